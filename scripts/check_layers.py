#!/usr/bin/env python3
"""The PostgreSQL glue's folders and the one-way order between them (docs/architecture.md).

src/pg is layered, lowest first:

    base        errors, calibration requests and their caches, catalog and plan helpers, what
                Citus's metadata says; nothing of dpagg's semantics
    ledger      privacy budgets: the accounts, the journal (WAL), the charge of a release
    labels      security labels: private relations, public objects, restricted roles; preloading
    aggregates  dpagg's aggregates: call sites, states, releases (scalar, vector, merges,
                per-unit, group selection)
    query       the planner's side: the per-unit rewrite, the restricted analyst's checks,
                dp_explain
    citus       the Citus split of a query and the coordinator's grants to workers
    (src/pg)    the entry points: _PG_init and the hooks, which run the layers in order

A file may include the headers of, and call the functions of, its own folder and the folders
below it, never a folder above it.  Checked two ways: the #include lines of every .c and .h, and
the symbols of the built objects (a function declared by hand, or reached through a header
that includes another, still shows as an undefined symbol of the object that calls it).

No source file of the glue may be longer than LIMIT lines unless its header comment says why
(a line containing "Longer than").

Exit status 1 on any violation; prints one line per violation, then a summary.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PG = os.path.join(ROOT, "src", "pg")
LAYERS = ["base", "ledger", "labels", "aggregates", "query", "citus", ""]
LIMIT = 1000


def layer_of(path):
    rel = os.path.relpath(path, PG)
    folder = os.path.dirname(rel)
    if folder not in LAYERS:
        return None
    return LAYERS.index(folder)


def name(i):
    return LAYERS[i] or "src/pg"


def main():
    problems = []
    sources = sorted(glob.glob(os.path.join(PG, "*.[ch]")) + glob.glob(os.path.join(PG, "*", "*.[ch]")))
    for f in sources:
        if layer_of(f) is None:
            problems.append(f"{os.path.relpath(f, ROOT)}: in a folder that is not a layer ({', '.join(map(name, range(len(LAYERS))))})")
    # 1. includes
    for f in sources:
        me = layer_of(f)
        if me is None:
            continue
        for n, line in enumerate(open(f), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            target = os.path.normpath(os.path.join(PG, inc))
            if not os.path.exists(target):
                target = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if not os.path.exists(target) or not target.startswith(PG + os.sep):
                continue  # PostgreSQL's, the core's, or the generated header
            them = layer_of(target)
            if them is not None and them > me:
                problems.append(f"{os.path.relpath(f, ROOT)}:{n}: includes {inc} ({name(them)} is above {name(me)})")
    # 2. symbols of the built objects
    objects = [f[:-2] + ".o" for f in sources if f.endswith(".c")]
    missing = [o for o in objects if not os.path.exists(o)]
    if missing:
        problems.append(f"not built: {', '.join(os.path.relpath(o, ROOT) for o in missing[:3])} (run make first)")
    else:
        defined, undefined = {}, {}
        for o in objects:
            out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
            undefined[o] = set()
            for line in out.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in "TDBRC":
                    defined[p[2]] = o
                elif len(p) == 2 and p[0] == "U":
                    undefined[o].add(p[1])
        for o in objects:
            me = layer_of(o)
            for sym in sorted(undefined[o]):
                t = defined.get(sym)
                if t is None or t == o:
                    continue
                them = layer_of(t)
                if them > me:
                    problems.append(f"{os.path.relpath(o[:-2] + '.c', ROOT)}: calls {sym} "
                                    f"({os.path.relpath(t[:-2] + '.c', ROOT)}: {name(them)} is above {name(me)})")
    # 3. sizes
    for f in sources:
        lines = open(f).read().split("\n")
        if len(lines) > LIMIT:
            head = "\n".join(lines[:60])
            if "Longer than" not in head:
                problems.append(f"{os.path.relpath(f, ROOT)}: {len(lines)} lines, and its header does not say why "
                                f"(\"Longer than {LIMIT} lines because ...\")")
    for p in problems:
        print("not ok - " + p)
    print(f"layers: {len(sources)} files in {len(LAYERS)} layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
