#!/usr/bin/env python3
"""dp_percentile without bounds against dp_percentile with given bounds, on real-shaped data.

    python3 scripts/auto_quantile_accuracy.py [--runs 500] [--seed 1]

An independent simulation (Python 3 standard library, floating point: enough to measure accuracy;
dpagg samples the selections exactly) of the two releases of one quantile p at epsilon, mirroring
docs/quantiles.md §1-3 and §7 and docs/automatic_bounds.md §1-2 (the grid of
src/core/bounds/dpagg_bounds.h):

  with bounds    dp_percentile(value, p, epsilon, delta, lower, upper): 1024 equal bins of
                 [lower, upper] (values below lower in bin 0, at or above upper in the last), score
                 s_j = max(A_j - t, t - (A_j + h_j), 0) with t = p n, sensitivity
                 D = max(p, 1 - p), permute-and-flip at epsilon, a uniform point of the chosen bin;
  without        dp_percentile(value, p, epsilon, delta): epsilon_b = epsilon / 2 buys the
  bounds         histogram of magnitudes (191 bins in signed order, discrete Laplace noise with
                 p = exp(-epsilon_b), threshold the least t >= 1 with 191 p^t / (1 + p) <= 1e-6);
                 the lowest and highest bins reaching it (not widened to 0; none: NULL) give the
                 candidates, the 32 equal cells of each of those bins (the zero bin one cell), in
                 signed order, values beyond them counted in the end candidates; permute-and-flip
                 at epsilon - epsilon_b with the same score, a uniform point of the chosen cell.

Permute-and-flip is drawn as report-noisy-max with Exp(1) noise on -epsilon s_j / (2 D), which has
the same law (Ding, Kifer, Wang, Zhang and Zhang, 2021).  In the histogram only the bins scanned
from either end until the first that reaches the threshold get their noise drawn: the noise of the
bins between does not change the choice, so the law is the same.

Bounds compared: the oracle [min, max] of the data (no analyst knows it: the extremes are private),
ten times too wide ([0, 10 max] for positive data, [10 min, 10 max] for mixed signs), and a
plausible guess that is too narrow.  Data sets (drawn once from --seed, n = 1 000 and 10 000):
lognormal salaries (median 50 000, sigma 0.6), Pareto (alpha 1.5, from 1), order amounts in cents
(exponential, mean 4 000, continuous as in scripts/auto_bounds_accuracy.py) and temperatures
(normal, mean 15, sd 10).  The exact quantile is the sorted data at index min(floor(p n), n - 1).

Each cell of the Markdown table is "median relative error / 90th percentile of the relative error /
median rank error" over --runs releases: relative error |answer - exact| / |exact|, rank error
|#(x < answer) - p n| / n.  Without bounds the errors are over the releases that are not NULL, and
the NULL column gives the fraction that are.  Every random stream is seeded from --seed and the
cell's labels, so stdout is the same on every run; the elapsed time goes to stderr.
"""
import argparse
import bisect
import math
import random
import sys
import time

# The grid of src/core/bounds/dpagg_bounds.h.
KMIN, KMAX = -32, 62
PER_SIDE = KMAX - KMIN + 1          # 95 magnitudes per side
BINS = 2 * PER_SIDE + 1             # 191
ZERO = PER_SIDE                     # the zero bin
SUB = 32                            # cells per bin of magnitude
CELLS = 2 * PER_SIDE * SUB + 1      # 6081
ZERO_CELL = PER_SIDE * SUB
BETA = 1e-6
QBINS = 1024                        # DPAGG_QUANTILE_BINS


def cell_of(x):
    """dpagg_bounds_cell: the cell of x in signed order."""
    m = abs(x)
    if m < 2.0 ** KMIN:
        return ZERO_CELL
    f, e = math.frexp(m)            # m = f 2^e, f in [0.5, 1)
    k = e - 1
    if k > KMAX:
        k, s = KMAX, SUB - 1
    else:
        s = min(int((2.0 * f - 1.0) * SUB), SUB - 1)   # exact: the first five fraction bits
    s += (k - KMIN) * SUB
    return ZERO_CELL + 1 + s if x > 0 else ZERO_CELL - 1 - s


def cell_bin(c):
    """dpagg_bounds_cell_bin: the bin of magnitude a cell lies in."""
    if c == ZERO_CELL:
        return ZERO
    if c > ZERO_CELL:
        return ZERO + 1 + (c - ZERO_CELL - 1) // SUB
    return ZERO - 1 - (ZERO_CELL - 1 - c) // SUB


def bin_cells(j):
    """dpagg_bounds_bin_cells: the first and the last cell of bin j."""
    if j == ZERO:
        return ZERO_CELL, ZERO_CELL
    if j > ZERO:
        first = ZERO_CELL + 1 + (j - ZERO - 1) * SUB
        return first, first + SUB - 1
    last = ZERO_CELL - 1 - (ZERO - 1 - j) * SUB
    return last - SUB + 1, last


def cell_edges(c):
    """dpagg_bounds_cell_edges."""
    if c == ZERO_CELL:
        return -2.0 ** KMIN, 2.0 ** KMIN
    a = c - ZERO_CELL - 1 if c > ZERO_CELL else ZERO_CELL - 1 - c
    k, s = a // SUB + KMIN, a % SUB
    m0 = math.ldexp(1.0 + s / SUB, k)
    m1 = math.ldexp(1.0 + (s + 1) / SUB, k)
    return (m0, m1) if c > ZERO_CELL else (-m1, -m0)


def threshold(p):
    """dpagg_bounds_threshold: the least whole t >= 1 with BINS p^t / (1 + p) <= BETA."""
    t = 1
    while BINS * p ** t / (1 + p) > BETA:
        t += 1
    return t


def quantile_bin(x, lower, upper):
    """dpagg_quantile_bin."""
    if x >= upper:
        return QBINS - 1
    if not x > lower:
        return 0
    return min(max(int((x - lower) / (upper - lower) * QBINS), 0), QBINS - 1)


def weights(cum, first, last, n, p, eps):
    """-eps s_j / (2 D) for the candidates first..last of a grid with prefix counts cum
    (cum[c] = values in the cells below c); values below first count in first, above last in
    last."""
    t = p * n
    c2d = eps / (2 * max(p, 1 - p))
    out = []
    for c in range(first, last + 1):
        a = cum[c] if c > first else 0
        top = cum[c + 1] if c < last else n
        out.append(-c2d * max(a - t, t - top, 0.0))
    return out


def pf(ws, rnd, log=math.log):
    """Permute-and-flip over scores given as -eps s / (2 D): report-noisy-max with Exp(1) noise."""
    vals = [w - log(1.0 - rnd()) for w in ws]
    return vals.index(max(vals))


class Data:
    def __init__(self, xs):
        self.xs = sorted(xs)
        self.n = len(xs)
        cells = [0] * CELLS
        for x in xs:
            cells[cell_of(x)] += 1
        self.cum = [0] * (CELLS + 1)
        for c in range(CELLS):
            self.cum[c + 1] = self.cum[c] + cells[c]
        self.bins = [0] * BINS
        for c in range(CELLS):
            self.bins[cell_bin(c)] += cells[c]

    def exact(self, p):
        return self.xs[min(int(math.floor(p * self.n)), self.n - 1)]

    def rank(self, v):
        return bisect.bisect_left(self.xs, v)


def auto_runs(d, p, eps, runs, r):
    """dp_percentile(value, p, eps, delta) `runs` times: answers, None for NULL."""
    eb = eps / 2
    es = eps - eb
    q = math.exp(-eb)
    t = threshold(q)
    lq = math.log(q)
    rnd = r.random

    def noisy(j):  # count + discrete Laplace: a difference of two geometric variables
        return (d.bins[j] + math.floor(math.log(1.0 - rnd()) / lq)
                - math.floor(math.log(1.0 - rnd()) / lq))

    cache = {}
    out = []
    for _ in range(runs):
        lo = next((j for j in range(BINS) if noisy(j) >= t), -1)
        if lo < 0:
            out.append(None)
            continue
        hi = next((j for j in range(BINS - 1, lo, -1) if noisy(j) >= t), lo)
        first, last = bin_cells(lo)[0], bin_cells(hi)[1]
        ws = cache.get((first, last))
        if ws is None:
            ws = cache[(first, last)] = weights(d.cum, first, last, d.n, p, es)
        a, b = cell_edges(first + pf(ws, rnd))
        out.append(a + rnd() * (b - a))
    return out


def bounded_runs(d, p, eps, lower, upper, runs, r):
    """dp_percentile(value, p, eps, delta, lower, upper) `runs` times."""
    counts = [0] * QBINS
    for x in d.xs:
        counts[quantile_bin(x, lower, upper)] += 1
    cum = [0] * (QBINS + 1)
    for j in range(QBINS):
        cum[j + 1] = cum[j] + counts[j]
    ws = weights(cum, 0, QBINS - 1, d.n, p, eps)  # no clamping beyond the end bins: cum is full
    w = (upper - lower) / QBINS
    rnd = r.random
    return [lower + (pf(ws, rnd) + rnd()) * w for _ in range(runs)]


def summary(d, p, answers):
    """(median relative error, its 90th percentile, median rank error) of the non-NULL answers."""
    ex = d.exact(p)
    got = [v for v in answers if v is not None]
    if not got:
        return None
    rel = sorted(abs(v - ex) / abs(ex) for v in got)
    rk = sorted(abs(d.rank(v) - p * d.n) / d.n for v in got)

    def q(xs, f):  # the order statistic at floor(f (m - 1))
        return xs[int(math.floor(f * (len(xs) - 1)))]
    return q(rel, 0.5), q(rel, 0.9), q(rk, 0.5)


def pct(v):
    v *= 100
    return (f"{v:#.3g}".rstrip(".") if v < 99.95 else f"{v:.0f}") + " %"


def num(v):
    return f"{v:,.0f}".replace(",", " ") if abs(v) >= 100 else f"{v:.4g}"


def cell(s):
    return "—" if s is None else f"{pct(s[0])} / {pct(s[1])} / {s[2]:.4f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    start = time.time()

    r = random.Random(a.seed)
    kinds = [  # name, draw, narrow guess
        ("salaries, lognormal (median 50 000, σ 0.6)",
         lambda: r.lognormvariate(math.log(50000), 0.6), (0.0, 100000.0)),
        ("heavy tail, Pareto (α 1.5, from 1)", lambda: r.paretovariate(1.5), (0.0, 10.0)),
        ("order amounts in cents, exponential (mean 4 000)",
         lambda: r.expovariate(1 / 4000), (0.0, 5000.0)),
        ("temperatures, normal (mean 15, sd 10)", lambda: r.normalvariate(15, 10), (-10.0, 20.0)),
    ]
    sets = []
    for name, draw, narrow in kinds:
        for n in (1000, 10000):
            sets.append((name, n, Data([draw() for _ in range(n)]), narrow))

    print("Each cell: median relative error / 90th percentile of the relative error / median rank "
          f"error, over {a.runs} releases (seed {a.seed}). Without bounds: over the releases that "
          "are not NULL.")
    print()
    print("| data | n | ε | p | exact | without bounds | NULL | oracle [min, max] | "
          "10× too wide | too narrow (guess) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, n, d, narrow in sets:
        mn, mx = d.xs[0], d.xs[-1]
        wide = (0.0, 10 * mx) if mn >= 0 else (10 * mn, 10 * mx)
        for eps in (1.0, 0.1):
            for p in (0.5, 0.9):
                def rng(tag):
                    return random.Random(f"{a.seed}|{name}|{n}|{eps}|{p}|{tag}")
                au = auto_runs(d, p, eps, a.runs, rng("auto"))
                nulls = sum(v is None for v in au) / a.runs
                cols = [cell(summary(d, p, au)), f"{100 * nulls:.1f} %"]
                for tag, (lo, hi) in (("oracle", (mn, mx)), ("wide", wide), ("narrow", narrow)):
                    got = bounded_runs(d, p, eps, lo, hi, a.runs, rng(tag))
                    cols.append(cell(summary(d, p, got)))
                print(f"| {name} | {num(n)} | {eps:g} | {p:g} | {num(d.exact(p))} | "
                      + " | ".join(cols) + " |")
                sys.stdout.flush()
    narrow_txt = ", ".join(f"{k[0].split(',')[0]} [{k[2][0]:g}, {k[2][1]:g}]" for k in kinds)
    print()
    print(f"Too-narrow guesses: {narrow_txt}. Ten times too wide: [0, 10 max] for positive data, "
          "[10 min, 10 max] for mixed signs.")
    print(f"elapsed {time.time() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
