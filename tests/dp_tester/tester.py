#!/usr/bin/env python3
"""dpagg's statistical differential-privacy tester, end to end through SQL.

For each release path: two neighbouring databases D and D' (one row, or one privacy unit with all
its rows, apart), many releases from each through psql, and a test of whether the two output
distributions are (epsilon, delta)-indistinguishable as claimed.  One query over G identical groups
gives G independent releases (one ledger charge per aggregate call), so every path costs two
queries.  The statistics are in dpstats.py; the argument is in docs/dp_tester.md.

Run by tests/dp_tester/run.sh inside a throwaway cluster (pg_virtualenv).  Environment:
  DPTEST_GROUPS      groups (samples) per database for the paths over plain tables (default 200000)
  DPTEST_SELFTEST=1  self-test: simulate broken mechanisms by post-processing the same releases,
                     and check that the tester reports them
  DPTEST_PATHS       a regular expression: run only the paths whose name matches (the multiple-
                     testing correction still counts every path)
  CHECK_BASE         number of the first check minus one (run.sh's counter)
Prints "ok N - ..." / "not ok N - ..." per check and "# ..." diagnostics.
"""
import math
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True    # leave no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dpstats  # noqa: E402

FALSE_FAILURE = 1e-6          # the whole run's chance of failing a correct dpagg
BOUNDS_PER_PATH = 8           # one-sided Clopper-Pearson bounds per path (dpstats.test_pair)
EPS = 1.0                     # every path claims epsilon = 1

PSQL = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"]


def psql(sql):
    r = subprocess.run(PSQL, input=sql, capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        raise RuntimeError("psql failed: %s\n%s" % (r.stderr.strip(), sql[:400]))
    return r.stdout


def rows(sql):
    """key|value rows as a dict; value text."""
    out = {}
    for line in psql(sql).splitlines():
        if not line:
            continue
        k, v = line.split("|", 1)
        out[int(k)] = v
    return out


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------

def setup_sql(G, U, C, S):
    """G groups for the plain tables, U blocks of 3 groups for the per-unit sum, C blocks of 6
    groups for the per-unit count, S groups per kind for the selections."""
    return f"""
SELECT dp_set_budget(current_user::regrole, 1e12, 0.9);
-- Plain tables.  D: per group two rows; D' = D plus one row in every group.
--   x  : 0.25, 0.25 (+ 7,   clamped to the upper bound 1)
--   xh : 0.25, 0.25 (+ 0.5, half the sensitivity 1)
--   xi : 1, 1       (+ 1,   integer, a third of the sensitivity 3)
--   v  : [0.25, 0.25] twice (+ [3, 4], clipped to l2 norm 1: [0.6, 0.8])
CREATE TABLE pub_d (g int, x float8, xh float8, xi int, v float8[]);
INSERT INTO pub_d SELECT g, 0.25, 0.25, 1, ARRAY[0.25, 0.25]
  FROM generate_series(1, {G}) g, generate_series(1, 2);
CREATE TABLE pub_d2 AS SELECT * FROM pub_d;
INSERT INTO pub_d2 SELECT g, 7, 0.5, 1, ARRAY[3, 4] FROM generate_series(1, {G}) g;
ANALYZE pub_d; ANALYZE pub_d2;

-- Per-unit sum, L = 3, public groups (keys): groups in blocks of 3.  D: in every group one unit
-- with two rows of 0.5 (its sum 1).  D' = D plus, per block, one unit with four rows of 1.0 in
-- each of the block's 3 groups (its sum per group 4, bounded to the upper bound 2).
CREATE TABLE ukeys AS SELECT g FROM generate_series(1, {3 * U}) g;
CREATE TABLE pu_d (uid bigint, g int, x float8);
INSERT INTO pu_d SELECT g, g, 0.5 FROM generate_series(1, {3 * U}) g, generate_series(1, 2);
CREATE TABLE pu_d2 AS SELECT * FROM pu_d;
INSERT INTO pu_d2 SELECT 100000000 + (g - 1) / 3, g, 1.0
  FROM generate_series(1, {3 * U}) g, generate_series(1, 4);
ANALYZE ukeys; ANALYZE pu_d; ANALYZE pu_d2;
SELECT dp_protect('pu_d', 'uid', 3);
SELECT dp_protect('pu_d2', 'uid', 3);

-- Per-unit count, L = 3, public groups (ckeys): groups in blocks of 6.  D: in every group one
-- unit with two rows.  D' = D plus, per block, one unit with two rows in each of the block's 6
-- groups, of which it may keep only 3.
CREATE TABLE ckeys AS SELECT g FROM generate_series(1, {6 * C}) g;
CREATE TABLE pc_d (uid bigint, g int);
INSERT INTO pc_d SELECT g, g FROM generate_series(1, {6 * C}) g, generate_series(1, 2);
CREATE TABLE pc_d2 AS SELECT * FROM pc_d;
INSERT INTO pc_d2 SELECT 100000000 + (g - 1) / 6, g FROM generate_series(1, {6 * C}) g,
  generate_series(1, 2);
ANALYZE ckeys; ANALYZE pc_d; ANALYZE pc_d2;
SELECT dp_protect('pc_d', 'uid', 3);
SELECT dp_protect('pc_d2', 'uid', 3);

-- Private group selection, L = 1 (keys from the private table, so groups are selected).  Every
-- unit has 2 rows.  Keys 1..S (kind A): D none, D' 1 unit.  S+1..2S (B): D 1 unit, D' 2 units.
-- 2S+1..3S (C): 4 units in both (used only by the self-test).
CREATE TABLE sel_d (uid bigint, g int);
INSERT INTO sel_d SELECT g * 10 + u, g FROM generate_series({S} + 1, 2 * {S}) g,
  generate_series(1, 1) u, generate_series(1, 2);
INSERT INTO sel_d SELECT g * 10 + u, g FROM generate_series(2 * {S} + 1, 3 * {S}) g,
  generate_series(1, 4) u, generate_series(1, 2);
CREATE TABLE sel_d2 AS SELECT * FROM sel_d;
INSERT INTO sel_d2 SELECT g * 10 + 1, g FROM generate_series(1, {S}) g, generate_series(1, 2);
INSERT INTO sel_d2 SELECT g * 10 + 2, g FROM generate_series({S} + 1, 2 * {S}) g, generate_series(1, 2);
ANALYZE sel_d; ANALYZE sel_d2;
SELECT dp_protect('sel_d', 'uid', 1);
SELECT dp_protect('sel_d2', 'uid', 1);

-- Private group selection, L = 3: blocks of 3 new keys.  Every unit has 4 rows per group.  D:
-- only unrelated groups (keys above 3S, one unit each).  D' adds, per block of keys 1..S, one
-- unit in each of the block's 3 groups; and (both tables, for the self-test) keys S+1..2S, whose
-- blocks have 4 units each in each of the block's 3 groups.
CREATE TABLE sel3_d (uid bigint, g int);
INSERT INTO sel3_d SELECT g * 10, g FROM generate_series(3 * {S} + 1, 3 * {S} + 1000) g,
  generate_series(1, 4);
INSERT INTO sel3_d SELECT 100000000 + ((g - 1) / 3) * 10 + u, g
  FROM generate_series({S} + 1, 2 * {S}) g, generate_series(1, 4) u, generate_series(1, 4);
CREATE TABLE sel3_d2 AS SELECT * FROM sel3_d;
INSERT INTO sel3_d2 SELECT 200000000 + (g - 1) / 3, g FROM generate_series(1, {S}) g,
  generate_series(1, 4);
ANALYZE sel3_d; ANALYZE sel3_d2;
SELECT dp_protect('sel3_d', 'uid', 3);
SELECT dp_protect('sel3_d2', 'uid', 3);
"""


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------

class Path:
    """One release path.

    sql(table) -> the query over the named table, returning key|value rows;
    parse(text) -> raw output; keys(D or D') -> which keys are the samples;
    truth = (answer over D, answer over D'), the exact answers the broken simulations shrink
    towards; stat(list of raw outputs in key order) -> list of floats (default: the values);
    shrink: the factor by which the self-test's simulated broken mechanism shrinks each
    release's deviation from the true answer (2 Delta / shift: a privacy loss of about 2 eps);
    broken: more simulated bugs, (description, f) with f(raw, truth, outs) -> the two samples'
    raw outputs (outs: what each query returned)."""

    def __init__(self, name, eps, delta, sql, tables, keys, truth, parse=float, stat=None,
                 shrink=2.0, broken=()):
        self.name, self.eps, self.delta, self.sql, self.tables = name, eps, delta, sql, tables
        self.keys, self.truth, self.parse = keys, truth, parse
        self.stat = stat or (lambda xs: [float(x) for x in xs])
        self.shrink, self.broken = shrink, broken


def vec(text):
    return [float(t) for t in text.strip("{}").split(",")]


def shrink_towards(raw, truth, f):
    if isinstance(raw, list):
        return [t + (r - t) / f for r, t in zip(raw, truth)]
    return truth + (raw - truth) / f


def make_paths(G, U, C, S):
    allg = lambda _db: list(range(1, G + 1))  # noqa: E731
    P = []

    def plain(name, expr, delta, truth, **kw):
        P.append(Path(name, EPS, delta,
                      lambda t, e=expr: f"SELECT g, {e} FROM {t} GROUP BY g",
                      ("pub_d", "pub_d2"), allg, truth, **kw))

    plain("dp_sum laplace (a row clamped to the upper bound)",
          "dp_sum(x, 1.0, 0, 0, 1, 'laplace')", 0.0, (0.5, 1.5))
    plain("dp_sum analytic_gaussian, delta 1e-3",
          "dp_sum(x, 1.0, 1e-3, 0, 1, 'analytic_gaussian')", 1e-3, (0.5, 1.5))
    plain("dp_sum auto, delta 1e-5",
          "dp_sum(x, 1.0, 1e-5, 0, 1)", 1e-5, (0.5, 1.5))
    plain("dp_sum tulap, delta 1e-5",
          "dp_sum(x, 1.0, 1e-5, 0, 1, 'tulap')", 1e-5, (0.5, 1.5))
    plain("dp_sum multi_gaussian, delta 1e-5, a shift of half the sensitivity",
          "dp_sum(xh, 1.0, 1e-5, 0, 1, 'multi_gaussian')", 1e-5, (0.5, 1.0), shrink=4.0)
    plain("dp_sum integer-valued multi_gaussian, sensitivity 3, a shift of 1",
          "dp_sum(xi, 1.0, 1e-5, 0, 3, 'multi_gaussian')", 1e-5, (2.0, 3.0), shrink=6.0)
    plain("dp_sum_report auto, delta 1e-5 (its value)",
          "(dp_sum_report(x, 1.0, 1e-5, 0, 1)).value", 1e-5, (0.5, 1.5))
    plain("dp_count auto, delta 1e-5",
          "dp_count(1.0, 1e-5)", 1e-5, (2.0, 3.0),
          broken=[("released exactly",
                   lambda raw, truth, _o: [[truth[i]] * len(raw[i]) for i in range(2)])])
    plain("dp_count laplace",
          "dp_count(1.0, 0, 'laplace')", 0.0, (2.0, 3.0))
    plain("dp_avg laplace",
          "dp_avg(x, 1.0, 0, 0, 1, 'laplace')", 0.0, (0.25, 0.5))
    plain("dp_avg auto, delta 1e-5",
          "dp_avg(x, 1.0, 1e-5, 0, 1)", 1e-5, (0.25, 0.5))

    # Vectors: the statistic is the privacy loss's own shape for each noise: for 'l2' noise
    # (density ~ exp(-|x|/theta)) |o - a| - |o - a'|, for Gaussian noise the projection on a' - a.
    va, va2 = [0.5, 0.5], [1.1, 1.3]

    def norm_diff(xs):
        return [math.dist(o, va) - math.dist(o, va2) for o in xs]

    def projection(xs):
        d = [b - a for a, b in zip(va, va2)]
        return [sum((oi - ai) * di for oi, ai, di in zip(o, va, d)) for o in xs]

    plain("dp_sum_vector l2, dimension 2, delta 1e-5 (norm event)",
          "dp_sum_vector(v, 2, 1.0, 1e-5, 1.0, 'l2')", 1e-5, (va, va2), parse=vec, stat=norm_diff)
    plain("dp_sum_vector gaussian, dimension 2, delta 1e-3 (projection event)",
          "dp_sum_vector(v, 2, 1.0, 1e-3, 1.0, 'gaussian')", 1e-3, (va, va2), parse=vec,
          stat=projection)

    # Per unit, L = 3: a sample is a block of 3 groups (the new unit's); the statistic is the sum
    # of the block's releases, each clamped to [answer over D, answer over D'] (for Laplace noise
    # exactly the privacy loss of the block, up to an affine map).
    def block_sum(xs):
        return [sum(min(max(x, 1.0), 3.0) for x in xs[i:i + 3]) for i in range(0, len(xs), 3)]

    P.append(Path("per-unit dp_sum laplace, L = 3, a unit of 4 rows in each of 3 groups",
                  EPS, 0.0,
                  lambda t: (f"SELECT k.g, dp_sum(p.x, 1.0, 0, 0, 2, 'laplace') FROM ukeys k "
                             f"LEFT JOIN {t} p ON p.g = k.g GROUP BY k.g"),
                  ("pu_d", "pu_d2"), lambda _db: list(range(1, 3 * U + 1)), (1.0, 3.0),
                  stat=block_sum))

    # Per unit, L = 3, a unit in 6 groups: it keeps a random 3 of them.  Statistic: the sum of
    # the block's 6 releases, each clamped to [1, 2].
    def block6_sum(xs):
        return [sum(min(max(x, 1.0), 2.0) for x in xs[i:i + 6]) for i in range(0, len(xs), 6)]

    P.append(Path("per-unit dp_count laplace, L = 3, a unit in 6 groups (keeps 3)", EPS, 0.0,
                  lambda t: (f"SELECT k.g, dp_count(1.0, 0, 'laplace') FROM ckeys k "
                             f"LEFT JOIN {t} p ON p.g = k.g GROUP BY k.g"),
                  ("pc_d", "pc_d2"), lambda _db: list(range(1, 6 * C + 1)), (1.0, 2.0),
                  stat=block6_sum))

    # Selections: the raw output is 1 when the group is released, 0 when it is not.  The
    # self-test's bug counts rows instead of units: a group of n units with r rows each is then
    # decided as one of r*n units, so the releases of groups that really have r*n units (the
    # kinds kept for this in both tables) stand in for it (r = 2 for L = 1, 4 for L = 3).
    sel_sql = ("SET dpagg.selection_epsilon = 1; SET dpagg.selection_delta = {d}; "
               "SELECT g, dp_count(1.0, 1e-6) FROM {t} GROUP BY g")

    P.append(Path("group selection, L = 1: the group of one unit (0 -> 1 unit)", EPS, 0.01,
                  lambda t: sel_sql.format(d=0.01, t=t), ("sel_d", "sel_d2"),
                  lambda _db: list(range(1, S + 1)), (0.0, 1.0), parse=None,
                  broken=[("counts rows, not units",
                           lambda _r, _t, out: ([0.0] * S, out[1](range(S + 1, 2 * S + 1))))]))
    P.append(Path("group selection, L = 1: 1 -> 2 units", EPS, 0.01,
                  lambda t: sel_sql.format(d=0.01, t=t), ("sel_d", "sel_d2"),
                  lambda _db: list(range(S + 1, 2 * S + 1)), (1.0, 2.0), parse=None,
                  broken=[("counts rows, not units",
                           lambda _r, _t, out: (out[1](range(S + 1, 2 * S + 1)),
                                                out[1](range(2 * S + 1, 3 * S + 1))))]))

    def any_in_block(xs):
        return [max(xs[i:i + 3]) for i in range(0, len(xs), 3)]

    P.append(Path("group selection, L = 3: a new unit in 3 new groups (any of them released)",
                  EPS, 0.03, lambda t: sel_sql.format(d=0.03, t=t), ("sel3_d", "sel3_d2"),
                  lambda _db: list(range(1, S + 1)), (0.0, 1.0), parse=None, stat=any_in_block,
                  broken=[("counts rows, not units",
                           lambda _r, _t, out: ([0.0] * S, out[1](range(S + 1, 2 * S + 1))))]))
    return P


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------

def fmt(x):
    """A lower bound of a privacy loss: never below 0 (every loss is)."""
    return "%.3f" % max(0.0, x)


def main():
    G = int(os.environ.get("DPTEST_GROUPS", "200000"))
    U, C, S = G // 4, G // 8, G // 2
    S -= S % 3                # the L = 3 selection uses blocks of 3 keys
    selftest = os.environ.get("DPTEST_SELFTEST", "") not in ("", "0")
    only = os.environ.get("DPTEST_PATHS")
    n = int(os.environ.get("CHECK_BASE", "0"))

    paths = make_paths(G, U, C, S)
    alpha = FALSE_FAILURE / (BOUNDS_PER_PATH * len(paths))
    print("# %d paths, eps %g each; every one-sided Clopper-Pearson bound at level %.3g "
          "(false failure <= %g for the run)" % (len(paths), EPS, alpha, FALSE_FAILURE))
    t0 = time.time()
    psql(setup_sql(G, U, C, S))
    print("# data: %d groups per plain table, %d + %d unit blocks, %d groups per selection kind "
          "(%.1f s)" % (G, U, C, S, time.time() - t0))

    for p in paths:
        if only and not re.search(only, p.name):
            continue
        t1 = time.time()
        outs = []
        try:
            got_all = [rows(p.sql(t)) for t in p.tables]
        except Exception as e:  # a refused or failed query fails the path, not the run
            n += 1
            print("not ok %d - %s%s: the releases failed: %s"
                  % (n, "selftest " if selftest else "", p.name, str(e).splitlines()[0]))
            continue
        for got in got_all:
            if p.parse is None:       # selection: which keys were released
                outs.append(lambda keys, got=got: [1.0 if k in got else 0.0 for k in keys])
            else:
                outs.append({k: p.parse(v) for k, v in got.items()})
        if p.parse is None:
            raw = [outs[0](p.keys(0)), outs[1](p.keys(1))]
        else:
            raw = []
            for i in range(2):
                missing = [k for k in p.keys(i) if k not in outs[i]]
                if missing:
                    raise RuntimeError("%s: %d groups missing from the releases over %s"
                                       % (p.name, len(missing), p.tables[i]))
                raw.append([outs[i][k] for k in p.keys(i)])
        t_sql = time.time() - t1

        if not selftest:
            r = dpstats.test_pair(p.stat(raw[0]), p.stat(raw[1]), p.eps, p.delta, alpha)
            n += 1
            b = r["best"]
            print("%s %d - %s: estimated eps lower bound %s vs claimed %g (delta %g; delta lower "
                  "bound at the claimed eps %.2g)" % ("not ok" if r["violation"] else "ok", n, p.name,
                                                       fmt(r["eps_lb"]), p.eps, p.delta,
                                                       r["delta_lb"]))
            print("#   %d and %d samples; best held-out event: %s, %s (%.4g vs %.4g); %.1f s "
                  "queries, %.1f s in all" % (r["n"][0], r["n"][1], b["order"], b["event"],
                                              b["p_hat"], b["q_hat"], t_sql, time.time() - t1))
            if r["violation"]:
                for e in r["tested"]:
                    if e["violation"]:
                        print("#   VIOLATION: %s, %s: P >= %.5g, Q <= %.5g, P - e^eps Q >= %.5g > delta"
                              % (e["order"], e["event"], e["p_lower"], e["q_upper"], e["delta_lb"]))
            continue

        # Self-test: the same releases, post-processed into a broken mechanism.
        real = dpstats.test_pair(p.stat(raw[0]), p.stat(raw[1]), p.eps, p.delta, alpha)
        print("# real releases of %s: eps lower bound %s vs claimed %g%s"
              % (p.name, fmt(real["eps_lb"]), p.eps, " (VIOLATION)" if real["violation"] else ""))
        variants = []
        if p.parse is not None:
            f = p.shrink
            variants.append(("noise shrunk %gx" % f,
                             [[shrink_towards(x, p.truth[i], f) for x in raw[i]] for i in range(2)]))
        for desc, fn in p.broken:
            variants.append((desc, list(fn(raw, p.truth, outs))))
        for desc, br in variants:
            r = dpstats.test_pair(p.stat(br[0]), p.stat(br[1]), p.eps, p.delta, alpha)
            n += 1
            print("%s %d - selftest %s, simulated bug '%s': %s, estimated eps lower bound %s vs "
                  "claimed %g (the estimate of P(S) - e^eps Q(S) exceeds delta by %.1f sd)"
                  % ("ok" if r["violation"] else "not ok", n, p.name, desc,
                     "violation reported" if r["violation"] else "NOT detected",
                     fmt(r["eps_lb"]), p.eps, r["excess_sd"]))
    print("# tester: %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--check-math":
        bad = 0
        for i, (desc, ok) in enumerate(dpstats.self_check()):
            print("# %s %s" % ("ok" if ok else "FAILED", desc))
            bad += not ok
        sys.exit(1 if bad else 0)
    main()
