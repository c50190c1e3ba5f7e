#!/usr/bin/env python3
"""Accuracy of dpagg's private quantile against other published quantile mechanisms.

Simulates, at the same epsilon and on the same data, in floating point (enough to measure
accuracy; dpagg itself samples exactly, see docs/quantiles.md):

  dpagg-pf     dpagg's mechanism: 1024 equal bins of [lower, upper], bin score
               s_j = max(A_j - t, t - (A_j + h_j), 0) with t = p n, selected by permute-and-flip
               (coin of bin j: exp(-eps (s_j - s_min) / (2 D)), D = max(p, 1 - p); sampled as
               "flip every coin, take a uniformly random head"), answer uniform in the bin;
  bins-em      the exponential mechanism on the same bins and score (weights
               exp(-eps s_j / (2 D))), answer uniform in the bin;
  opendp-pf    OpenDP's quantile score on the 1025 edges c_k = lower + k w of the same bins:
               |alpha_den #(x < c) - alpha_num (n - #(x = c))| (units of 1/alpha_den), L-inf
               sensitivity max(alpha_num, alpha_den - alpha_num), selected by permute-and-flip
               with eps = 2 * sensitivity / scale, as make_private_quantile does under
               MaxDivergence in the current OpenDP source (noisy_top_k, exponential noise);
               the answer is the chosen edge;
  opendp-em    the same score and candidates selected by the exponential mechanism (Gumbel
               noise, OpenDP's earlier make_report_noisy_max_gumbel path);
  smith        Smith (STOC 2011, Algorithm 2): the interval i between the sorted, clamped values
               x_(i) and x_(i+1) (x_(0) = lower, x_(n+1) = upper) has weight
               (x_(i+1) - x_(i)) exp(-eps |i - p n| / 2) (score sensitivity 1), answer uniform
               in the interval;
  smith-ar     the same with the add/remove sensitivity max(p, 1 - p) in place of 1:
               exp(-eps |i - p n| / (2 max(p, 1 - p))), as Tumult Core's NoisyQuantile and
               Google's dp_multiq (ind_exp, swap=False) use.

Each dataset is drawn DRAWS times (default 100) and each mechanism releases REPS / DRAWS times
on each draw (REPS = 2000 in all by default), so the figures average over where the exact quantile
falls relative to the bins as well as over the mechanisms' noise.  The table gives, over the REPS
releases, the median and 90th percentile of |answer - exact| (exact: PostgreSQL's
percentile_cont, linear interpolation at position p (n - 1) of that draw's clamped values) and the
median rank error |#(x < answer) / n - p|.  Every random stream is seeded from --seed and the
cell's labels, so stdout is the same on every run; the elapsed time goes to stderr.

Usage: python3 scripts/quantile_accuracy.py [--reps 2000] [--draws 100] [--seed 20261122] [--jobs 2]
Python 3.10 or later (bisect with key=), standard library only.  Described in
docs/quantile_accuracy.md.
"""
import argparse
import bisect
import itertools
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from fractions import Fraction

B = 1024  # dpagg's number of bins (DPAGG_QUANTILE_BINS)
PS = (0.1, 0.5, 0.9)
EPSILONS = (1.0, 0.1)
MECHANISMS = ("dpagg-pf", "bins-em", "opendp-pf", "opendp-em", "smith", "smith-ar")


# ---------------------------------------------------------------------------- datasets

DATASETS = [("uniform", 1000), ("uniform", 100000), ("lognormal", 1000), ("lognormal", 100000),
            ("pareto", 1000), ("bimodal", 1000), ("bimodal", 100000)]
BOUNDS = {"uniform": (0.0, 100.0), "lognormal": (0.0, 500000.0), "pareto": (0.0, 1000.0),
          "bimodal": (0.0, 100.0)}


def draw(name, n, rng):
    """One draw of a dataset, clamped to its public bounds: (sorted values, number clamped)."""
    lower, upper = BOUNDS[name]
    if name == "uniform":
        xs = [rng.uniform(0.0, 100.0) for _ in range(n)]
    elif name == "lognormal":
        # salary-like: median exp(mu) = 50 000, sigma 0.6 (mean about 59 800)
        mu = math.log(50000.0)
        xs = [math.exp(rng.gauss(mu, 0.6)) for _ in range(n)]
    elif name == "pareto":
        # Pareto with shape 1.5 and scale 1: support [1, inf), median 2^(2/3) = 1.587
        xs = [rng.paretovariate(1.5) for _ in range(n)]
    elif name == "bimodal":
        # an even mixture of N(30, 5^2) and N(70, 5^2)
        xs = [rng.gauss(30.0 if rng.random() < 0.5 else 70.0, 5.0) for _ in range(n)]
    else:
        raise ValueError(name)
    xs.sort()
    below, above = bisect.bisect_left(xs, lower), len(xs) - bisect.bisect_right(xs, upper)
    xs[:below] = [lower] * below
    xs[len(xs) - above:] = [upper] * above
    return xs, below + above


def percentile_cont(xs, p):
    """PostgreSQL's percentile_cont: linear interpolation at position p (n - 1)."""
    pos = p * (len(xs) - 1)
    i = int(math.floor(pos))
    if i + 1 >= len(xs):
        return xs[-1]
    return xs[i] + (pos - i) * (xs[i + 1] - xs[i])


class Draw:
    """One draw and what the mechanisms compute from it once (bins, candidates, intervals)."""

    def __init__(self, xs, lower, upper):
        self.xs, self.lower, self.upper, self.n = xs, lower, upper, len(xs)
        # dpagg's counts: the bin of a value is non-decreasing in the value, so the values of bin j
        # are those from the first of bin >= j to the first of bin >= j + 1 (xs is sorted)
        first = [bisect.bisect_left(xs, j, key=lambda x: dpagg_bin(x, lower, upper))
                 for j in range(B + 1)]
        self.counts = [first[j + 1] - first[j] for j in range(B)]
        # OpenDP's candidates: the 1025 edges of the 1024 bins, with #(x < c) and #(x = c)
        self.cands = [lower + (upper - lower) * k / B for k in range(B + 1)]
        self.lt_eq = []
        for c in self.cands:
            lt = bisect.bisect_left(xs, c)
            self.lt_eq.append((lt, bisect.bisect_right(xs, c) - lt))
        # Smith's intervals: z_0 = lower, z_1..z_n the sorted values, z_(n+1) = upper
        self.z = [lower] + xs + [upper]
        # log of each interval's width (-inf for an interval of width 0: weight 0)
        self.logwidth = [math.log(b - a) if b > a else -math.inf
                         for a, b in zip(self.z, self.z[1:])]


# ---------------------------------------------------------------------------- mechanisms

def dpagg_bin(x, lower, upper):
    """dpagg_quantile_bin (src/core/quantile/dpagg_quantile.h)."""
    if x >= upper:
        return B - 1
    if not x > lower:
        return 0
    return min(max(int((x - lower) / (upper - lower) * B), 0), B - 1)


def flip_all_coins(q, rng, reps):
    """Permute-and-flip with coin probabilities q (the best candidate's is 1), sampled as 'flip
    every coin, take a uniformly random head': the first head in a uniform order is a uniform
    member of the set of heads.  Coins of probability 0.0 (underflow) are never heads."""
    live = [(j, qj) for j, qj in enumerate(q) if qj > 0.0]
    rnd, out = rng.random, []
    for _ in range(reps):
        heads = [j for j, qj in live if rnd() < qj]
        out.append(heads[rng.randrange(len(heads))])
    return out


def exponential(q, rng, reps):
    """The exponential mechanism: index j with probability q[j] / sum(q)."""
    return rng.choices(range(len(q)), cum_weights=list(itertools.accumulate(q)), k=reps)


def run_bins(d, p, eps, rng, reps, select):
    """dpagg's scores on its bins; permute-and-flip (dpagg) or the exponential mechanism."""
    t = p * d.n
    s, a = [], 0
    for h in d.counts:
        s.append(max(a - t, t - (a + h), 0.0))
        a += h
    sens = max(p, 1.0 - p)
    best = min(s)
    q = [math.exp(-eps * (sj - best) / (2.0 * sens)) for sj in s]
    w = (d.upper - d.lower) / B
    return [min(max(d.lower + (j + rng.random()) * w, d.lower), d.upper)
            for j in select(q, rng, reps)]


def opendp_alpha(alpha):
    """score_candidates_constants without a known size: alpha exactly when its denominator is
    below 10 000 (0.5 = 1/2), else round(alpha * 10 000) / 10 000 (0.1, 0.9)."""
    exact = Fraction(alpha)
    if exact.denominator < 10000:
        return exact.numerator, exact.denominator
    return int(round(alpha * 10000)), 10000


def run_opendp(d, p, eps, rng, reps, select):
    """OpenDP's compute_score on the bin edges; permute-and-flip (make_private_quantile under
    MaxDivergence today) or the exponential mechanism (the earlier Gumbel path)."""
    num, den = opendp_alpha(p)
    scores = [abs(den * lt - num * (d.n - eq)) for lt, eq in d.lt_eq]
    sens = max(num, den - num)  # L-inf sensitivity for one record added or removed
    # make_noisy_max: eps = range distance / scale, range distance = 2 * L-inf (not monotonic)
    scale = 2.0 * sens / eps
    best = min(scores)
    q = [math.exp(-(sc - best) / scale) for sc in scores]
    return [d.cands[k] for k in select(q, rng, reps)]


def run_smith(d, p, eps, rng, reps, sens):
    """Smith's exponential mechanism over the intervals between the sorted values.  Intervals
    more than 800 * 2 sens / eps ranks from p n are left out: their weight relative to the
    interval at p n is below exp(-800) times a ratio of widths (far below exp(40) here), which
    is 0 in double precision anyway."""
    t = p * d.n
    c = eps / (2.0 * sens)
    reach = 800.0 / c
    lo, hi = max(0, int(t - reach)), min(d.n, int(t + reach) + 1)
    logw = [lw - c * abs(i - t) for i, lw in enumerate(d.logwidth[lo:hi + 1], lo)]
    top = max(logw)
    q = [math.exp(lw - top) for lw in logw]  # 0.0 for the intervals of width 0
    z, out = d.z, []
    for k in exponential(q, rng, reps):
        i = lo + k
        out.append(z[i] + rng.random() * (z[i + 1] - z[i]))
    return out


def run(mech, d, p, eps, rng, reps):
    if mech == "dpagg-pf":
        return run_bins(d, p, eps, rng, reps, flip_all_coins)
    if mech == "bins-em":
        return run_bins(d, p, eps, rng, reps, exponential)
    if mech == "opendp-pf":
        return run_opendp(d, p, eps, rng, reps, flip_all_coins)
    if mech == "opendp-em":
        return run_opendp(d, p, eps, rng, reps, exponential)
    if mech == "smith":
        return run_smith(d, p, eps, rng, reps, 1.0)
    if mech == "smith-ar":
        return run_smith(d, p, eps, rng, reps, max(p, 1.0 - p))
    raise ValueError(mech)


# ---------------------------------------------------------------------------- summary

def q90(v):
    """90th percentile, nearest rank."""
    v = sorted(v)
    return v[math.ceil(0.9 * len(v)) - 1]


def fmt(v):
    return f"{v:.4g}"


def one_draw(task):
    """Everything measured on draw k of a dataset: the exact quantiles and, per (p, eps,
    mechanism), the absolute and rank errors of per_draw releases.  Its own random streams, so
    the result does not depend on which process runs it or when."""
    name, n, k, per_draw, seed = task
    lower, upper = BOUNDS[name]
    xs, clamped = draw(name, n, random.Random(f"{seed}:data:{name}:{n}:{k}"))
    d = Draw(xs, lower, upper)
    exacts, out = {}, {}
    for p in PS:
        exact = exacts[p] = percentile_cont(xs, p)
        for eps in EPSILONS:
            for mech in MECHANISMS:
                rng = random.Random(f"{seed}:{name}:{n}:{k}:{p}:{eps}:{mech}")
                answers = run(mech, d, p, eps, rng, per_draw)
                out[(p, eps, mech)] = ([abs(a - exact) for a in answers],
                                       [abs(bisect.bisect_left(xs, a) / n - p) for a in answers])
    return name, n, clamped, exacts, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2000, help="releases per row (default 2000)")
    ap.add_argument("--draws", type=int, default=100, help="data draws per dataset (default 100)")
    ap.add_argument("--seed", type=int, default=20261122, help="seed of every random stream")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="worker processes (default 2); the output does not depend on it")
    args = ap.parse_args()
    if args.reps % args.draws:
        ap.error("--reps must be a multiple of --draws")
    per_draw = args.reps // args.draws
    t0 = time.time()

    tasks = [(name, n, k, per_draw, args.seed) for name, n in DATASETS for k in range(args.draws)]
    errs, ranks, exacts, clamps = {}, {}, {}, {}

    def merge(result):
        name, n, clamped, ex, out = result
        clamps[(name, n)] = clamps.get((name, n), 0) + clamped
        for p, e in ex.items():
            exacts.setdefault((name, n, p), []).append(e)
        for (p, eps, mech), (e, r) in out.items():
            errs.setdefault((name, n, p, eps, mech), []).extend(e)
            ranks.setdefault((name, n, p, eps, mech), []).extend(r)

    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            for result in pool.imap(one_draw, tasks):  # results come back in task order
                merge(result)
    else:
        for task in tasks:
            merge(one_draw(task))

    print(f"dpagg quantile accuracy: {B} bins; {args.draws} draws of each dataset x "
          f"{per_draw} releases = {args.reps} releases per row; seed {args.seed}")
    print("|err| = |answer - exact|, exact = percentile_cont of the draw's clamped values; "
          "rank err = |#(x < answer)/n - p|")
    print()
    print("Datasets (values clamped to the public bounds; exact quantiles: mean over the draws "
          "[min, max]):")
    for name, n in DATASETS:
        lower, upper = BOUNDS[name]
        print(f"  {name:9s} n={n:<6d} bounds [{fmt(lower)}, {fmt(upper)}], bin width "
              f"{fmt((upper - lower) / B)}, values clamped {clamps[(name, n)]} of {args.draws * n}")
        print("      " + "   ".join(
            f"p={p}: {fmt(statistics.fmean(exacts[(name, n, p)]))} "
            f"[{fmt(min(exacts[(name, n, p)]))}, {fmt(max(exacts[(name, n, p)]))}]" for p in PS))
    print()

    header = (f"{'dataset':9s} {'n':>6s} {'p':>3s} {'eps':>3s}  {'mechanism':9s}  "
              f"{'med|err|':>9s} {'p90|err|':>9s} {'med rank err':>12s}")
    print(header)
    print("-" * len(header))
    med = {}
    for name, n in DATASETS:
        for p in PS:
            for eps in EPSILONS:
                for mech in MECHANISMS:
                    key = (name, n, p, eps, mech)
                    med[key] = statistics.median(errs[key])
                    print(f"{name:9s} {n:>6d} {p:>3} {eps:>3}  {mech:9s}  {fmt(med[key]):>9s} "
                          f"{fmt(q90(errs[key])):>9s} {fmt(statistics.median(ranks[key])):>12s}")
                print()

    print("Median |err| relative to dpagg-pf (above 1: less accurate than dpagg-pf):")
    h2 = (f"{'dataset':9s} {'n':>6s} {'p':>3s} {'eps':>3s}  "
          + " ".join(f"{m:>9s}" for m in MECHANISMS[1:]))
    print(h2)
    print("-" * len(h2))
    for name, n in DATASETS:
        for p in PS:
            for eps in EPSILONS:
                base = med[(name, n, p, eps, "dpagg-pf")]
                cells = [f"{med[(name, n, p, eps, m)] / base:9.3g}" if base > 0 else f"{'inf':>9s}"
                         for m in MECHANISMS[1:]]
                print(f"{name:9s} {n:>6d} {p:>3} {eps:>3}  " + " ".join(cells))
    sys.stdout.flush()
    print(f"elapsed {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
