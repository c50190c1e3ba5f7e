#!/usr/bin/env python3
"""dpagg's versions hold together (docs/versions.md); run by the test command.

1. dpagg.control's default_version is the newest version in versions/, and the install script the
   generator writes for it (scripts/generate_sql.py) is byte for byte versions/dpagg--<it>.sql:
   a change of the SQL surface without a new version fails here.
2. Every two adjacent versions kept in versions/ are joined by an upgrade script
   versions/dpagg--<older>--<newer>.sql, and every upgrade script joins two kept versions.
3. A released version (a "## <version> — <date>" heading of CHANGELOG.md) is frozen: its install
   script and the upgrade script into it have the SHA-256 versions/SHA256SUMS records.

Prints one line per problem and a summary; exit status 1 on any problem.
"""
import hashlib
import importlib.util
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
V = os.path.join(ROOT, "versions")
problems = []


def key(v):
    return tuple(int(x) for x in v.split("."))


spec = importlib.util.spec_from_file_location("generate_sql", os.path.join(ROOT, "scripts", "generate_sql.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
current = gen.version()

installs, upgrades = {}, {}
for name in sorted(os.listdir(V)):
    m = re.fullmatch(r"dpagg--(\d+\.\d+\.\d+)\.sql", name)
    u = re.fullmatch(r"dpagg--(\d+\.\d+\.\d+)--(\d+\.\d+\.\d+)\.sql", name)
    if m:
        installs[m.group(1)] = name
    elif u:
        upgrades[(u.group(1), u.group(2))] = name
    elif name != "SHA256SUMS":
        problems.append(f"versions/{name}: neither an install script, an upgrade script nor SHA256SUMS")

# 1. the current version's script
ordered = sorted(installs, key=key)
if not ordered or ordered[-1] != current:
    problems.append(f"dpagg.control's default_version {current} is not the newest install script in versions/ "
                    f"({', '.join(ordered) or 'none'})")
if current in installs:
    with open(os.path.join(V, installs[current])) as f:
        frozen = f.read()
    if gen.script() != frozen:
        problems.append(
            f"the SQL surface differs from versions/dpagg--{current}.sql. If {current} is released "
            f"(CHANGELOG.md), raise default_version in dpagg.control, write versions/dpagg--{current}--NEW.sql "
            f"and run `make freeze-sql`; if it is not, run `make freeze-sql`")

# 2. the chain
for a, b in zip(ordered, ordered[1:]):
    if (a, b) not in upgrades:
        problems.append(f"no upgrade script versions/dpagg--{a}--{b}.sql")
for (a, b), name in upgrades.items():
    if a not in installs or b not in installs or key(a) >= key(b):
        problems.append(f"versions/{name} does not join two kept versions, older to newer")

# 3. released versions are frozen
with open(os.path.join(ROOT, "CHANGELOG.md")) as f:
    released = re.findall(r"^## (\d+\.\d+\.\d+) — \d{4}-\d{2}-\d{2}", f.read(), re.M)
sums = {}
if os.path.exists(os.path.join(V, "SHA256SUMS")):
    for line in open(os.path.join(V, "SHA256SUMS")):
        if line.strip():
            h, name = line.split()
            sums[name] = h
for v in released:
    frozen = [installs.get(v)] + [n for (a, b), n in upgrades.items() if b == v]
    if installs.get(v) is None:
        problems.append(f"released version {v} (CHANGELOG.md) has no install script in versions/")
    for name in filter(None, frozen):
        with open(os.path.join(V, name), "rb") as f:
            h = hashlib.sha256(f.read()).hexdigest()
        if name not in sums:
            problems.append(f"versions/{name} of released {v} is not in versions/SHA256SUMS")
        elif sums[name] != h:
            problems.append(f"versions/{name} of released {v} changed (SHA-256 {h[:12]}..., recorded "
                            f"{sums[name][:12]}...): a released script is never edited; add a new version")
for v in ordered:
    if v != current and v not in released:
        problems.append(f"versions/dpagg--{v}.sql is kept but {v} is not released in CHANGELOG.md")

# the Debian package's version (debian/changelog's first line) and META.json's are the extension's
with open(os.path.join(ROOT, "debian", "changelog")) as f:
    m = re.match(r"dpagg \(([^)]+)\)", f.readline())
if not m or m.group(1) != current:
    problems.append(f"debian/changelog's version {m.group(1) if m else '?'} is not the current {current}: add an entry")

for p in problems:
    print("not ok - " + p)
print(f"versions: {len(installs)} install scripts ({', '.join(ordered)}), {len(upgrades)} upgrade scripts, "
      f"current {current}, released {', '.join(released) or 'none'}; {len(problems)} problems")
sys.exit(1 if problems else 0)
