#!/usr/bin/env python3
"""META.json (the distribution's metadata for PGXN) follows the PGXN Meta Spec 1.0.0
(https://pgxn.org/meta/spec.txt) and agrees with the repository; run by the test command.

The spec's rules checked here, written from the spec and its JSON schemas (pgxn/meta,
schema/v1): the required keys (name, version, abstract,
maintainer, license, provides, meta-spec) and no key outside the spec but custom ones (x_...);
a name and the extensions' names are "terms" (at least two characters, no slash, backslash,
space or control character); versions are SemVer; the maintainer is a string or a non-empty list
of them; the license is one of the spec's short names, a list of them, or an object of names to
URIs; each provided extension has a relative unix path "file" and a "version" (optionally an
abstract and a docfile) and nothing else; prereqs are phases of relationships of names to
versions; release_status is stable, testing or unstable; tags are non-empty strings of at most
255 characters; meta-spec has a version 1.0.x.  And with the repository: the version is
dpagg.control's default_version, the provided extension is dpagg at that version, and the files
it names exist.
"""
import importlib.util
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
problems = []
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
_SV = SEMVER.pattern[1:-1]
_OP = r"(?:(?:[=!]=|[<>]=?)\s*)?"
RANGE = re.compile(rf"^(?:{_OP}(?:{_SV})|0)(?:,\s*{_OP}(?:{_SV}))*$")
LICENSES = {"agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
            "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
            "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay",
            "sun", "zlib", "open_source", "restricted", "unrestricted", "unknown"}
TOP = {"name", "version", "abstract", "maintainer", "license", "provides", "meta-spec",
       "description", "generated_by", "tags", "no_index", "prereqs", "release_status", "resources"}


def bad(msg):
    problems.append(msg)


def custom(k):
    return re.match(r"^[xX]_.", k) is not None


def term(v, what):
    if not isinstance(v, str) or len(v) < 2 or re.search(r"[/\\\s\x00-\x1f\x7f]", v):
        bad(f"{what} is not a term (two or more characters, no slash, backslash, space or control): {v!r}")


def semver(v, what):
    if not isinstance(v, str) or not SEMVER.match(v):
        bad(f"{what} is not a SemVer version: {v!r}")


def nonempty(v, what):
    if not isinstance(v, str) or not v:
        bad(f"{what} must be a non-empty string")


def relpath(v, what):
    if not isinstance(v, str) or not v or v.startswith("/") or "\\" in v or ".." in v.split("/"):
        bad(f"{what} must be a relative unix path: {v!r}")


with open(os.path.join(ROOT, "META.json")) as f:
    try:
        meta = json.load(f)
    except json.JSONDecodeError as e:
        print(f"not ok - META.json is not JSON: {e}")
        sys.exit(1)

for k in ("name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"):
    if k not in meta:
        bad(f"the required key {k} is missing")
for k in meta:
    if k not in TOP and not custom(k):
        bad(f"the key {k} is not in the spec (custom keys start with x_)")
term(meta.get("name"), "name")
semver(meta.get("version"), "version")
nonempty(meta.get("abstract"), "abstract")
if "description" in meta:
    nonempty(meta["description"], "description")
if "generated_by" in meta:
    nonempty(meta["generated_by"], "generated_by")
m = meta.get("maintainer")
if not (isinstance(m, str) and m) and not (isinstance(m, list) and m and all(isinstance(x, str) and x for x in m)):
    bad("maintainer must be a string or a non-empty list of strings")
lic = meta.get("license")
if isinstance(lic, str):
    if lic not in LICENSES:
        bad(f"license {lic!r} is not one of the spec's short names")
elif isinstance(lic, list):
    if not lic or any(x not in LICENSES for x in lic):
        bad("license list must be non-empty and hold the spec's short names")
elif isinstance(lic, dict):
    if not lic or any(not (isinstance(u, str) and re.match(r"^[a-z][a-z0-9+.-]*:", u)) for u in lic.values()):
        bad("license object must map names to URIs")
else:
    bad("license must be a short name, a list of them, or an object")
prov = meta.get("provides")
if not isinstance(prov, dict) or not prov:
    bad("provides must be a non-empty object")
else:
    for ext, e in prov.items():
        term(ext, f"provides: {ext}")
        if not isinstance(e, dict):
            bad(f"provides.{ext} must be an object")
            continue
        for k in e:
            if k not in {"file", "version", "abstract", "docfile", "docpath"} and not custom(k):
                bad(f"provides.{ext}.{k} is not in the spec")
        if "file" not in e or "version" not in e:
            bad(f"provides.{ext} needs file and version")
        relpath(e.get("file"), f"provides.{ext}.file")
        semver(e.get("version"), f"provides.{ext}.version")
        if "docfile" in e:
            relpath(e["docfile"], f"provides.{ext}.docfile")
        if "abstract" in e:
            nonempty(e["abstract"], f"provides.{ext}.abstract")
ms = meta.get("meta-spec")
if not isinstance(ms, dict) or not re.match(r"^1\.0\.\d+$", str(ms.get("version", ""))):
    bad("meta-spec must be an object with a version 1.0.x")
elif any(k not in {"version", "url"} and not custom(k) for k in ms):
    bad("meta-spec holds keys outside the spec")
elif "url" in ms and ms["url"] not in {"https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"}:
    bad("meta-spec.url must be the spec's own URL")
if "release_status" in meta and meta["release_status"] not in {"stable", "testing", "unstable"}:
    bad("release_status must be stable, testing or unstable")
if "tags" in meta:
    t = meta["tags"]
    if not isinstance(t, list) or not t or any(
            not isinstance(x, str) or not 2 <= len(x) <= 255 or re.search(r"[/\\\x00-\x1f\x7f]", x) for x in t):
        bad("tags must be a non-empty list of strings of 2 to 255 characters without slash, backslash or control")
if "prereqs" in meta:
    p = meta["prereqs"]
    if not isinstance(p, dict):
        bad("prereqs must be an object")
    else:
        for phase, rels in p.items():
            if phase not in {"configure", "build", "test", "runtime", "develop"} and not custom(phase):
                bad(f"prereqs phase {phase!r} is not in the spec")
            if not isinstance(rels, dict):
                bad(f"prereqs.{phase} must be an object")
                continue
            for rel, reqs in rels.items():
                if rel not in {"requires", "recommends", "suggests", "conflicts"} and not custom(rel):
                    bad(f"prereqs.{phase}.{rel} is not in the spec")
                if not isinstance(reqs, dict):
                    bad(f"prereqs.{phase}.{rel} must be an object")
                    continue
                for name, v in reqs.items():
                    term(name, f"prereqs.{phase}.{rel}: {name}")
                    if v != 0 and not (isinstance(v, str) and RANGE.match(v)):
                        bad(f"prereqs.{phase}.{rel}.{name} must be 0 or a version range: {v!r}")

# with the repository
spec = importlib.util.spec_from_file_location("generate_sql", os.path.join(ROOT, "scripts", "generate_sql.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
control = gen.version()  # dpagg.control's default_version, read as the generator reads it
if meta.get("version") != control:
    bad(f"version {meta.get('version')} is not dpagg.control's default_version {control}")
d = (prov or {}).get("dpagg") if isinstance(prov, dict) else None
if not isinstance(d, dict) or d.get("version") != control:
    bad(f"provides.dpagg must be the extension at version {control}")
if isinstance(prov, dict):
    for ext, e in prov.items():
        for k in ("file", "docfile"):
            if isinstance(e, dict) and isinstance(e.get(k), str) and not os.path.exists(os.path.join(ROOT, e[k])):
                bad(f"provides.{ext}.{k} names {e[k]}, which does not exist")

for x in problems:
    print("not ok - " + x)
print(f"META.json: {len(problems)} problems (PGXN Meta Spec 1.0.0; version {meta.get('version')})")
sys.exit(1 if problems else 0)
