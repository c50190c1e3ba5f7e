#!/usr/bin/env python3
"""Runs the ```sql blocks of the given markdown files, in order, against the cluster that the
environment's PG* variables name (tests/readme/run.sh sets it up; read its header first).

Each block runs in one psql session (psql -X, ON_ERROR_STOP, VERBOSITY verbose), as the
superuser in the database of PGDATABASE, unless its own first lines connect elsewhere (psql's
`\\c`).  An HTML comment on the line just before the opening fence changes what is expected:

    <!-- readme-test: expect-error 53DP1 -->      the block must fail with this SQLSTATE, at its
                                                 last statement (nothing after it left unrun)
    <!-- readme-test: skip (needs Citus) -->      not run; counted and listed with the reason

Anything else after "readme-test:" is a mistake and fails.  With --settings GUIDE first, it
also checks that every dpagg.* setting of pg_settings is in a table row of GUIDE.  ```sh blocks are not run: each
command they name (the first word of a line, after sudo and its options) must exist, as a file
of the checkout, an absolute path or a program on PATH.  Blocks without a language (a
postgresql.conf excerpt, the source layout) are neither run nor checked.

With DPAGG_README_SHOW=1 it also prints what each block printed, as "# | ..." lines.
Prints "ok N - ...", "not ok N - ..." and "skip N - ..." lines and, last,
"readme: X passed, Y failed, Z skipped"; exit status 1 when anything failed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
MARK = re.compile(r"^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
ERROR = re.compile(r"^psql:[^:]*:(\d+): (?:ERROR|FATAL|error):\s+(?:([0-9A-Z]{5}): )?(.*)$")
WARNING = re.compile(r"^psql:[^:]*:(\d+): WARNING:\s+(?:[0-9A-Z]{5}: )?(.*)$")

n = passed = failed = skipped = 0


def report(ok, text):
    global n, passed, failed
    n += 1
    if ok:
        passed += 1
        print(f"ok {n} - {text}")
    else:
        failed += 1
        print(f"not ok {n} - {text}")
    sys.stdout.flush()


def blocks(path):
    """(language, marker, first line number of the body, body lines) of each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        prev = MARK.match(lines[i - 1]) if i > 0 else None
        start, body = i + 2, []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        yield lang, prev.group(1) if prev else None, start, body
        i += 1


def only_comments(lines):
    return all(not l.strip() or l.strip().startswith("--") for l in lines)


def run_sql(where, mark, start, body):
    expect = None
    if mark is not None:
        m = re.fullmatch(r"expect-error ([0-9A-Z]{5})", mark)
        s = re.fullmatch(r"skip \((.+)\)", mark)
        if s:
            global skipped
            skipped += 1
            print(f"skip - {where}: {s.group(1)}")
            return
        if not m:
            report(False, f"{where}: unknown marker <!-- readme-test: {mark} --> "
                          "(expect-error SQLSTATE, or skip (reason))")
            return
        expect = m.group(1)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("\n".join(body) + "\n")
        name = f.name
    try:
        p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
                            "-f", name], capture_output=True, text=True, timeout=90)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "timed out after 90 s", -1
    finally:
        os.unlink(name)
    file, _, _ = where.partition(":")
    if os.environ.get("DPAGG_README_SHOW"):  # what each block printed, for a reader of the test
        print("\n".join("# | " + l for l in out.rstrip("\n").split("\n")))
    for m in map(WARNING.match, out.splitlines()):
        if m:  # not a failure: shown so that a reader's surprise is seen here first
            print(f"# {file}:{start + int(m.group(1)) - 1}: WARNING: {m.group(2)}")
    err = next(filter(None, map(ERROR.match, out.splitlines())), None)
    if err:
        line = start + int(err.group(1)) - 1
        state, msg = err.group(2) or "-----", err.group(3)
    if expect is None:
        if rc == 0:
            report(True, f"{where}: runs ({len(body)} lines)")
        elif err:
            report(False, f"{where}: ERROR {state} at {file}:{line}: {msg}")
        else:
            report(False, f"{where}: psql exited {rc}: {out.strip()[-300:]}")
        return
    if rc == 0:
        report(False, f"{where}: ran without the error {expect} it is marked with")
    elif not err:
        report(False, f"{where}: psql exited {rc} without an error line: {out.strip()[-300:]}")
    elif state != expect:
        report(False, f"{where}: failed with {state}, not {expect}, at {file}:{line}: {msg}")
    elif not only_comments(body[int(err.group(1)):]):
        report(False, f"{where}: {expect} at {file}:{line}, but statements after it did not run "
                      "(an expect-error block ends with its failing statement)")
    else:
        report(True, f"{where}: fails with {expect} as marked ({file}:{line}: {msg})")


def check_sh(where, body):
    missing = []
    for line in body:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        while words and words[0] == "sudo":  # sudo [-u user] command ...
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[2:] if words[0] in ("-u", "-g") else words[1:]
        if not words:
            continue
        cmd = words[0]
        if "/" in cmd:
            if not os.path.exists(cmd):
                missing.append(cmd)
        elif shutil.which(cmd) is None:
            missing.append(cmd)
    if missing:
        report(False, f"{where}: commands it names do not exist: {', '.join(missing)}")
    else:
        report(True, f"{where}: the commands it names exist (sh: not run)")


def check_settings(path):
    """Every dpagg.* setting the server has is in a table row of path (the guide's Configuration)."""
    names = subprocess.run(["psql", "-X", "-At", "-c",
                            "SELECT name FROM pg_settings WHERE name LIKE 'dpagg.%' ORDER BY 1"],
                           capture_output=True, text=True).stdout.split()
    rows = "\n".join(l for l in open(path, encoding="utf-8") if l.startswith("|"))
    missing = [x for x in names if f"`{x}`" not in rows]
    if not names:
        report(False, f"{path}: pg_settings lists no dpagg.* setting (is dpagg preloaded?)")
    elif missing:
        report(False, f"{path}: its configuration table lacks {', '.join(missing)}")
    else:
        report(True, f"{path}: its configuration table lists all {len(names)} dpagg.* settings")


def main(files):
    if files and files[0] == "--settings":  # --settings GUIDE: check its configuration table first
        check_settings(files[1])
        files = files[2:]
    for path in files:
        for lang, mark, start, body in blocks(path):
            where = f"{path}:{start - 1}"
            if lang == "sql":
                run_sql(where, mark, start, body)
            elif lang == "sh":
                check_sh(where, body)
            elif mark is not None:
                report(False, f"{where}: a readme-test marker on a ```{lang} block, which is not run")
    print(f"readme: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
