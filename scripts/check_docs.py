#!/usr/bin/env python3
"""The documentation holds together (run by the test command):

1. every relative link of README.md and docs/**/*.md resolves to a file (and a heading, when it
   names one: GitHub's anchors);
2. every document the code, tests and scripts cite by path (under docs/, ending .md) exists;
3. code, tests, scripts and docs cite documents, not issue numbers ("issue 11", "(issue 10)").

Prints one line per problem and a summary; exit status 1 on any problem.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
os.chdir(ROOT)
problems = []


def slug(h):
    h = h.strip().lower()
    h = "".join(c for c in h if c.isalnum() or c in " -_")
    return h.replace(" ", "-")


def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence and re.match(r"#{1,6} ", line):
            out.add(slug(line.lstrip("#")))
    return out


# 1. links
docs = ["README.md"] + sorted(glob.glob("docs/**/*.md", recursive=True))
link = re.compile(r"(?<!\!)\[([^\]]*)\]\(([^)\s]+)\)")
nlinks = 0
for f in docs:
    text = open(f, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in link.finditer(text):
        target = m.group(2)
        if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
            continue
        nlinks += 1
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(full):
            problems.append(f"{f}: the link {target} names no file")
        elif frag and full.endswith(".md") and frag not in anchors(full):
            problems.append(f"{f}: the link {target} names no heading")

# 2. and 3. over the tracked sources
def tracked_files():
    """The repository's files: git's list in a checkout, else every file outside build products."""
    try:
        out = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
        if out:
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk("."):
        dirs[:] = [x for x in dirs if x not in {".git", "build", "debian", "__pycache__", "results", "log"}]
        files += [os.path.relpath(os.path.join(d, n)) for n in names]
    return sorted(files)


tracked = tracked_files()
sources = [f for f in tracked if re.search(r"\.(c|h|cpp|py|sh|sql|md)$|^Makefile$|^\.ci/", f)
           and not f.startswith(("expected/", "tests/data/"))]
cited = re.compile(r"docs/[A-Za-z0-9_/.-]+\.md")
issue = re.compile(r"\b[Ii]ssues? #?\d+|\(issue\b|\bissue \d+'s\b")
ncited = 0
for f in sources:
    if not os.path.exists(f):
        continue
    text = open(f, encoding="utf-8", errors="replace").read()
    for m in set(cited.findall(text)):
        ncited += 1
        if not os.path.exists(m):
            problems.append(f"{f}: cites {m}, which does not exist")
    for n, line in enumerate(text.split("\n"), 1):
        if issue.search(line) and f != "scripts/check_docs.py":
            problems.append(f"{f}:{n}: cites an issue number, not a document: {line.strip()[:100]}")

for p in problems:
    print("not ok - " + p)
print(f"docs: {nlinks} links in {len(docs)} documents, {ncited} citations of documents in the code, "
      f"{len(problems)} problems")
sys.exit(1 if problems else 0)
