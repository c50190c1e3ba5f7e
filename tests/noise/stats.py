#!/usr/bin/env python3
"""The statistics of tests/noise/run.sh (python3 standard library only).

    stats.py MANIFEST WORKDIR [selftest]

MANIFEST has one line per check: name <TAB> kind <TAB> label <TAB> params <TAB> faults.
WORKDIR/<name> holds the check's samples, one row per released value, columns separated by '|'.
Prints one line per check, "PASS<TAB>description" or "FAIL<TAB>description"; with "selftest",
instead one line per (check, fault): the samples are first changed as the fault would change them
(see FAULTS below) and the line is "PASS" when the check then FAILS, as it must.

The kinds and their bands (run.sh's header gives the reasoning and the false-failure budget):

  var    d = released - truth; V = the calibrated E[d^2] (dp_calibrate(...).l2 and friends);
         R = mean(d^2) / V.  Below: R >= 1 - sqrt(2 K ln(2 / ALPHA) / n), Bernstein's inequality
         for the mean of the nonnegative d^2/V, whose second moment is the kurtosis K (taken as
         the larger of the family's bound, param K, default KURT_FLOOR = 7, and the sample's):
         rigorous.  Above: the studentized z = (R - 1) / (sd(d^2 / V) / sqrt(n)) <= Z_BAND (7),
         and R <= R_MAX = 2.  And (unless "mean=0") the studentized mean of d within +-Z_BAND.
  quant  d as for var; the share of |d| <= w, w the noise's calibrated quantile of level p
         (dp_noise_interval: exact for continuous noise), is Binomial(n, p): exact two-sided
         binomial test at ALPHA.  Distribution-free, and blind to a few wild values.
  cover  columns d | wl | wh (the release minus the truth, and the interval's reach below and
         above the release): the number of intervals holding the truth is Binomial(n, p) with p
         the interval's exact coverage; exact two-sided binomial test at ALPHA.
  select group selection: k of M groups of n units kept; p = pi(n) of the strategy in closed form
         (docs/partition_selection.md), computed here from (epsilon, delta, L); exact two-sided
         binomial test at ALPHA; also checks dp_group_selection's keep_one_unit against pi(1).
  tol    ratios that must all be 1 within a relative tolerance (interval widths against the
         calibrated quantiles): deterministic, never fails by chance.
  ks     x = |noise vector| / scale; its distribution (Gamma(T, 1) for the l2 mechanism,
         sqrt(chi^2_T) for the Gaussian) by the Kolmogorov-Smirnov distance with the
         Dvoretzky-Kiefer-Wolfowitz-Massart bound P(D_n > e) <= 2 exp(-2 n e^2): passes iff
         D_n <= sqrt(ln(2 / ALPHA) / (2 n)).  Rigorous for any n.
  simks  (private variances) the released values v (NULL encoded as -1) against the law of the
         estimator simulated here from the true parts and Laplace noise of the calibrated scales
         (VarianceLaw below: post-processing written independently of dpagg; per unit, param L,
         the parts are the units' and the scales one group's, at epsilon_i / L): two-sample
         Kolmogorov-Smirnov distance at most sqrt(ln(4 / ALPHA) / (2 n)) + sqrt(ln(4 / ALPHA) /
         (2 M)), M the simulated draws: DKW-Massart for each sample at ALPHA/2.  Rigorous.
  simvar (private variances) R = mean(d^2) / E[d^2], d = v - truth, E[d^2] the simulated law's
         (with the linearised estimator as control variate): the var bands, with the kurtosis
         taken from the simulated law (times 1.1) or the sample's, widened by 7 standard errors
         of the simulation; and the mean of d against the simulated mean, studentized, +-7.

FAULTS (comma-separated in the manifest) say how a fault would change the samples:
  scale:F[:WHAT]   every deviation multiplied by F (the noise's standard deviation times F;
                   for tol, every ratio times F; for ks, every norm times F)
  file:NAME:WHAT   the samples of WORKDIR/NAME instead: what the release would have been under
                   the fault WHAT (e.g. dp_avg with its count half released exactly)
  rate:P:WHAT      (select) the observed count of released groups times P
  L1               (select) the rate of the same strategy with epsilon and delta not divided over
                   the L groups of a unit (calibrated as for L = 1)
  vpart:I:F[:WHAT] (simks, simvar) the samples replaced by as many releases simulated with part
                   I's noise scale times F (0 squares, 1 sum, 2 count; F = 0: that part exact).
                   For simks and simvar, scale:F multiplies each release's deviation from the truth.
  vall:F[:WHAT]    (simks, simvar) as vpart, with all three parts' noise scales times F (per unit:
                   F = 1/L for parts at epsilon_i instead of epsilon_i / L, F = L at epsilon_i / L^2).
"""
import functools
import math
import random
import statistics
import sys

Z_BAND = 7.0          # studentized moment checks: |z| <= 7
Z_MISS = 6.1          # one-sided normal tail 5e-10: "fails with probability > 1 - 1e-9"
ALPHA = 5e-9          # every random check's false-failure probability (two-sided)
R_MAX = 2.0           # var: E[d^2]/V must also be below this (see var_test)
KURT_FLOOR = 7.0      # var: kurtosis assumed at least (every family here: 6.3 or less; see run.sh)


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append([float(c) for c in line.split("|")])
    return rows


# ---------------------------------------------------------------------------------------------
# var: the second moment of the deviations against the calibrated one

def var_test(d, V, check_mean=True, kurt_floor=KURT_FLOOR):
    """The second moment of d against V, two-sided (the module's header gives the bands)."""
    n = len(d)
    y = [x * x / V for x in d]
    R = sum(y) / n
    sy = statistics.stdev(y) if n > 1 else 0.0
    se = sy / math.sqrt(n)
    kurt = sum(v * v for v in y) / n / (R * R) if R > 0 else math.nan
    # Below: Bernstein's inequality for the mean of the nonnegative Y = d^2/V (E[Y] = 1,
    # E[Y^2] = the kurtosis K): P(mean(Y) <= 1 - t) <= exp(-n t^2 / (2 K)).  K is the larger of
    # the family's bound (kurt_floor) and the sample's.  Rigorous: fails by chance w.p. <= ALPHA/2.
    K = max(kurt_floor, kurt) if math.isfinite(kurt) else kurt_floor
    r_lo = 1 - math.sqrt(2 * K * math.log(2 / ALPHA) / n)
    # Above: the studentized z = (R - 1)/se <= Z_BAND (the upper tail of a studentized mean of a
    # positively skewed variable is lighter than the normal's), and R <= R_MAX whatever the
    # sample's spread (a few wild values inflate se and would let z hide a gross error).
    if se > 0:
        z = (R - 1) / se
    else:
        z = -math.inf if R < 1 else (math.inf if R > 1 else 0.0)
    ok = r_lo <= R <= R_MAX and z <= Z_BAND
    mean_txt = ""
    if check_mean:
        # Symmetric noise: the studentized mean is sub-Gaussian (Efron 1969: given the |d_i|,
        # the signs are fair coins, and Hoeffding's inequality), P(|t| >= 7) <= 2 exp(-24.2).
        sd = statistics.stdev(d) if n > 1 else 0.0
        m = sum(d) / n
        zm = m / (sd / math.sqrt(n)) if sd > 0 else (0.0 if m == 0 else math.inf)
        ok = ok and abs(zm) <= Z_BAND
        mean_txt = f"; mean z {zm:+.1f}"
    # Power.  A true variance factor r gives R ~ r (1 +- rse N(0, 1)), rse = se/R the relative
    # standard error (scale-free): the check fails w.p. > 1 - 1e-9 once r (1 + 6.1 rse) <= r_lo,
    # or once (r - 1)/(r rse) >= 7 + 6.1 (or r (1 - 6.1 rse) >= R_MAX).
    rse = se / R if R > 0 else math.inf
    lo_det = r_lo / (1 + Z_MISS * rse) if rse < math.inf else 0.0
    hi_det = min(1 / (1 - (Z_BAND + Z_MISS) * rse) if (Z_BAND + Z_MISS) * rse < 1 else math.inf,
                 R_MAX / (1 - Z_MISS * rse) if Z_MISS * rse < 1 else math.inf)
    hi_band = min(R_MAX, 1 + Z_BAND * se)
    txt = (f"E[d^2]/calibrated = {R:.3f} (band [{r_lo:.3f}, ~{hi_band:.3f}]: below by Bernstein "
           f"at kurtosis {K:.1f} (sample {kurt:.1f}), above z {z:+.1f} <= {Z_BAND:g}; a variance "
           f"<= {lo_det:.2f}x or >= {fmt(hi_det)}x fails w.p. > 1-1e-9{mean_txt}; n {n})")
    return ok, txt


# ---------------------------------------------------------------------------------------------
# Exact binomial tails

def binom_band(M, p):
    """The acceptance region [lo, hi] of the exact two-sided test at ALPHA (ALPHA/2 per tail)."""
    if p <= 0:
        return 0, 0
    if p >= 1:
        return M, M
    lp, lq = math.log(p), math.log1p(-p)
    lg = math.lgamma(M + 1)
    logpmf = [lg - math.lgamma(i + 1) - math.lgamma(M - i + 1) + i * lp + (M - i) * lq
              for i in range(M + 1)]
    top = max(logpmf)
    pmf = [math.exp(v - top) for v in logpmf]
    scale = math.exp(top)
    lo, acc = 0, 0.0
    while lo <= M:
        acc += pmf[lo] * scale
        if acc > ALPHA / 2:
            break
        lo += 1
    hi, acc = M, 0.0
    while hi >= 0:
        acc += pmf[hi] * scale
        if acc > ALPHA / 2:
            break
        hi -= 1
    return lo, hi       # P(X < lo) <= ALPHA/2, P(X > hi) <= ALPHA/2


def binom_test(k, M, p):
    lo, hi = binom_band(M, p)
    ok = lo <= k <= hi
    # the smallest and largest true rates that fail with probability > 1 - 1e-9 (normal approx.)
    sd = math.sqrt(p * (1 - p) / M)
    txt = (f"rate {k}/{M} = {k / M:.4f}, closed form {p:.4f} (ratio {k / M / p:.3f}; exact band "
           f"[{lo / M:.4f}, {hi / M:.4f}] at two-sided {ALPHA:g}; a rate off by more than about "
           f"{(Z_BAND + Z_MISS) * sd / p * 100:.0f}% fails w.p. > 1-1e-9)")
    return ok, txt


# ---------------------------------------------------------------------------------------------
# Group selection in closed form (docs/partition_selection.md)

def inv_norm_upper(q):
    return statistics.NormalDist().inv_cdf(1 - q)


def selection_pi(strategy, eps, delta, L, n, sigma=None):
    if strategy == "optimal":
        e = eps / L
        d = 1 - (1 - delta) ** (1 / L)
        pi = 0.0
        for _ in range(n):
            pi = min(math.exp(e) * pi + d, 1 - math.exp(-e) * (1 - d - pi), 1.0)
        return pi
    if strategy == "laplace":
        b = L / eps
        d = 1 - (1 - delta) ** (1 / L)
        T = 1 + b * math.log(1 / (2 * d)) if d <= 0.5 else 1 - b * math.log(2 * (1 - d))
        return math.exp(-(T - n) / b) / 2 if n <= T else 1 - math.exp(-(n - T) / b) / 2
    if strategy == "gaussian":
        dt = 1 - (1 - (delta - delta / 2)) ** (1 / L)
        T = 1 + sigma * inv_norm_upper(dt)
        return 1 - statistics.NormalDist().cdf((T - n) / sigma)
    raise ValueError(strategy)


# ---------------------------------------------------------------------------------------------
# ks: the distribution of the noise vector's norm

def cdf_gamma_int(x, T):
    """P(Gamma(T, 1) <= x), T a whole number."""
    if x <= 0:
        return 0.0
    term, s = 1.0, 1.0
    for k in range(1, T):
        term *= x / k
        s += term
    return 1 - math.exp(-x) * s


def cdf_chi_norm(x, T):
    """P(|N(0, I_T)| <= x), T even: P(chi^2_T <= x^2) = P(Gamma(T/2, 1) <= x^2 / 2)."""
    return cdf_gamma_int(x * x / 2, T // 2)


def ks_test(xs, family, T):
    n = len(xs)
    F = (lambda x: cdf_gamma_int(x, T)) if family == "gamma" else (lambda x: cdf_chi_norm(x, T))
    xs = sorted(xs)
    D = 0.0
    for i, x in enumerate(xs):
        f = F(x)
        D = max(D, (i + 1) / n - f, f - i / n)
    eps = math.sqrt(math.log(2 / ALPHA) / (2 * n))
    ok = D <= eps

    lo, hi = ks_power(family, T, eps)
    what = f"Gamma({T}, 1)" if family == "gamma" else f"chi with {T} degrees of freedom"
    return ok, (f"KS distance of |noise|/scale from {what}: {D:.4f} (DKW band {eps:.4f} at "
                f"{ALPHA:g}; a norm scale <= {lo:.3f}x or >= {hi:.3f}x fails w.p. > "
                f"1-{ALPHA:g}; n {n})")


@functools.lru_cache(maxsize=None)
def ks_power(family, T, eps):
    """Noise whose norm is f times the calibrated one has CDF F(x / f), at distance
    dist(f) = sup |F(x) - F(x / f)| from F; by DKW once more the check then fails with
    probability > 1 - ALPHA when dist(f) >= 2 eps.  The factors f < 1 and f > 1 where that
    starts."""
    F = (lambda x: cdf_gamma_int(x, T)) if family == "gamma" else (lambda x: cdf_chi_norm(x, T))
    grid = [i * 0.01 for i in range(1, 3000)]

    def dist(f):
        return max(abs(F(x) - F(x / f)) for x in grid)

    def edge(a, b):     # dist(a) >= 2 eps > dist(b)
        for _ in range(30):
            mid = (a + b) / 2
            a, b = (mid, b) if dist(mid) >= 2 * eps else (a, mid)
        return a
    return edge(0.5, 1.0), edge(2.0, 1.0)


# ---------------------------------------------------------------------------------------------
# simks, simvar: private variances (dp_var_pop and friends) against their law, simulated here

VAR_FORMS = {"var_pop": (False, False), "var_samp": (True, False),     # (sample form, root)
             "stddev_pop": (False, True), "stddev_samp": (True, True)}
VAR_SHARES = (0.287885, 0.424227, 0.287885)     # squares, sum, count (src/core/variance/variance.h)
VAR_PARTS = ("squares", "sum", "count")
VAR_NULL = -1.0         # a NULL release (too small a noisy count), encoded below every value
POWER_DRAWS = 100000    # simulated releases per fault for the printed power


def var_estimate(q, s, c, B, samp, root):
    """The statistic from the noisy parts (q: the centred sum of squares sum(y^2 - B^2/2), s: the
    centred sum, c: the count, rounded and >= 0), as the specification states it (written here
    without dpagg): NULL below 1 value (2 for the sample forms); mean = s/c clamped to [-B, B],
    m2 = q/c + B^2/2 clamped to [0, B^2], v = m2 - mean^2 clamped to [0, B^2], times c/(c - 1)
    for the sample forms; its root for the standard deviations."""
    if not c >= (2 if samp else 1):
        return VAR_NULL
    B2 = B * B
    mean = min(max(s / c, -B), B)
    m2 = min(max(q / c + B2 / 2, 0.0), B2)
    v = min(max(m2 - mean * mean, 0.0), B2)
    if samp:
        v *= c / (c - 1)
    return math.sqrt(v) if root else v


def rint_laplace_l2(b):
    """E[rint(X)^2], X ~ Laplace(b): P(rint X = k) = sinh(1/(2b)) e^(-|k|/b) for k != 0."""
    q = math.exp(-1 / b)
    return 2 * math.sinh(1 / (2 * b)) * q * (1 + q) / (1 - q) ** 3


def std_laplace(rng, M):
    """M draws of Laplace(1): an Exp(1) magnitude with a fair sign."""
    lg, rnd = math.log, rng.random
    return [-lg(1.0 - rnd()) if rnd() < 0.5 else lg(1.0 - rnd()) for _ in range(M)]


def ks2(a, b):
    """sup_x |F_a(x) - F_b(x)| of two sorted samples (ties handled: both ECDFs at every value)."""
    na, nb = len(a), len(b)
    i = j = 0
    D = 0.0
    while i < na and j < nb:
        x = a[i] if a[i] <= b[j] else b[j]
        while i < na and a[i] <= x:
            i += 1
        while j < nb and b[j] <= x:
            j += 1
        D = max(D, abs(i / na - j / nb))
    return D


class VarianceLaw:
    """The law of one private-variance release: true parts (n values, centred sum S, centred sum of
    squares Q, half-width B), Laplace noise of scales b = (b_squares, b_sum, b_count) (dp_explain's
    per-part scales), the count part rint(n + X) clamped at 0, then var_estimate.  M draws with
    random.Random(seed).  Per unit (L > 1) the parts are those of the units' values and the scales
    one group's; the faults whose power is printed are then those of the division by L."""

    def __init__(self, P):
        self.form = P["form"]
        self.samp, self.root = VAR_FORMS[self.form]
        self.B, self.n, self.S, self.Q = (float(P[k]) for k in ("B", "n", "S", "Q"))
        self.truth = float(P["truth"])
        self.b = tuple(float(P[k]) for k in ("bq", "bs", "bc"))
        self.seed = int(P["seed"])
        self.M = int(P["M"])
        self.L = int(P.get("L", "1"))
        exact = self.estimate(self.Q, self.S, self.n)
        if not abs(exact - self.truth) <= 1e-9 * max(1.0, abs(self.truth)):
            raise ValueError(f"the parts give {exact!r}, the truth is {self.truth!r}")
        rng = random.Random(self.seed)
        self.E = [std_laplace(rng, self.M) for _ in range(3)]
        ref = self.releases(self.E, (1, 1, 1))
        self.ref_sorted = sorted(ref)
        d = [v - self.truth for v in ref]
        M = self.M
        # E[d^2] with the linearised estimator as control variate: d_lin = sum_i g_i X_i (g the
        # gradient at the true parts, X_i the noises, the count's rounded), whose E[d_lin^2] is
        # exact: sum_i g_i^2 E[X_i^2] (independent, symmetric); E[d^2] = E[d_lin^2] +
        # mean(d^2 - d_lin^2).
        g = []
        for i in range(3):
            h = 1e-4 * self.b[i]
            up, dn = [self.Q, self.S, self.n], [self.Q, self.S, self.n]
            up[i] += h
            dn[i] -= h
            g.append((self.estimate(*up) - self.estimate(*dn)) / (2 * h))
        bq, bs, bc = self.b
        lin = [g[0] ** 2 * 2 * bq * bq, g[1] ** 2 * 2 * bs * bs, g[2] ** 2 * rint_laplace_l2(bc)]
        self.lin_shares = [x / sum(lin) for x in lin]
        diff = [x * x - (g[0] * bq * a + g[1] * bs * s + g[2] * round(bc * c)) ** 2
                for x, a, s, c in zip(d, *self.E)]
        self.E2 = sum(lin) + sum(diff) / M
        self.se_sim = statistics.stdev(diff) / math.sqrt(M) / self.E2     # relative
        self.kurt = sum(x ** 4 for x in d) / M / self.E2 ** 2
        self.mean = sum(d) / M
        self.var_d = statistics.variance(d)
        self._power = None

    def estimate(self, q, s, c):
        return var_estimate(q, s, c, self.B, self.samp, self.root)

    def releases(self, E, f, count=None):
        """Releases with noise scales b_i f_i (f_i = 0: part i exact) from the standard draws E."""
        bq, bs, bc = (self.b[i] * f[i] for i in range(3))
        n, S, Q, est = self.n, self.S, self.Q, self.estimate
        E = [e[:count] for e in E] if count else E
        if bc > 0:
            return [est(Q + bq * a, S + bs * s, max(0.0, float(round(n + bc * c))))
                    for a, s, c in zip(*E)]
        return [est(Q + bq * a, S + bs * s, n) for a, s in zip(E[0], E[1])]

    def faults(self):
        """The faults whose power is printed: (text, noise-scale factors of the three parts)."""
        sq, ss, sc = VAR_SHARES
        if self.L > 1:
            # per unit: a part at epsilon_i instead of epsilon_i / L has 1/L of the Laplace scale,
            # one at epsilon_i / L^2 L times it
            L = float(self.L)
            return [("all at epsilon (not /L)", (1 / L, 1 / L, 1 / L)),
                    ("all at epsilon/L^2", (L, L, L)),
                    ("squares not /L", (1 / L, 1, 1)), ("sum not /L", (1, 1 / L, 1)),
                    ("count not /L", (1, 1, 1 / L))]
        return [("squares x0.5", (0.5, 1, 1)), ("squares x2", (2, 1, 1)),
                ("sum x0.5", (1, 0.5, 1)), ("sum x2", (1, 2, 1)),
                ("count x0.5", (1, 1, 0.5)), ("count x2", (1, 1, 2)), ("count exact", (1, 1, 0)),
                # epsilon split in thirds: b_i proportional to 1/share_i
                ("equal thirds", (3 * sq, 3 * ss, 3 * sc)),
                ("squares/sum shares swapped", (sq / ss, ss / sq, 1))]

    def power(self):
        """Per fault: E[d^2] under it / E[d^2], and its KS distance from the reference law (common
        random numbers: the first POWER_DRAWS standard draws)."""
        if self._power is None:
            self._power = []
            for text, f in self.faults():
                v = self.releases(self.E, f, POWER_DRAWS)
                r = sum((x - self.truth) ** 2 for x in v) / len(v) / self.E2
                self._power.append((text, r, ks2(sorted(v), self.ref_sorted)))
        return self._power

    def fault_sample(self, fault, vals):
        """The samples as the fault would make them (see FAULTS)."""
        parts = fault.split(":")
        if parts[0] == "scale":
            F = float(parts[1])
            return [v if v == VAR_NULL else self.truth + F * (v - self.truth) for v in vals]
        if parts[0] in ("vpart", "vall"):
            f = [1.0, 1.0, 1.0]
            if parts[0] == "vall":
                f = [float(parts[1])] * 3
            else:
                f[int(parts[1])] = float(parts[2])
            rng = random.Random(f"{self.seed}:{fault}")
            return self.releases([std_laplace(rng, len(vals)) for _ in range(3)], f)
        raise ValueError(fault)

    def describe(self):
        return (f"{self.form}{f' per unit, L = {self.L}' if self.L > 1 else ''}, truth "
                f"{self.truth:.6g}, first-order shares of the error "
                + "/".join(f"{x * 100:.0f}" for x in self.lin_shares) + " % (squares/sum/count)")


@functools.lru_cache(maxsize=None)
def variance_law(key):
    return VarianceLaw(dict(key))


def simks_test(vals, law):
    n, M = len(vals), law.M
    D = ks2(sorted(vals), law.ref_sorted)
    # DKW-Massart for each sample at ALPHA/2: |F_n - F| <= e1 and |F_M - F| <= e2 together with
    # probability >= 1 - ALPHA, and then D <= e1 + e2.
    e1 = math.sqrt(math.log(4 / ALPHA) / (2 * n))
    e2 = math.sqrt(math.log(4 / ALPHA) / (2 * M))
    band = e1 + e2
    ok = D <= band
    # A law at distance Delta from the reference gives D >= Delta - t - e2 with t the DKW deviation
    # at 1e-9: fails w.p. > 1 - 1e-9 once Delta >= band + t + e2.
    need = band + math.sqrt(math.log(2 / 1e-9) / (2 * n)) + e2
    pw = ", ".join(f"{t} {dist:.3f}{'' if dist >= need else ' (not certain)'}"
                   for t, _, dist in law.power())
    return ok, (f"two-sample KS distance from the simulated law ({law.describe()}): {D:.4f} (band "
                f"{band:.4f} = DKW {e1:.4f} (n {n}) + {e2:.4f} (M {M}) at {ALPHA:g}); a law at "
                f"distance >= {need:.3f} fails w.p. > 1-1e-9; faults' distances: {pw}")


def simvar_test(vals, law):
    n = len(vals)
    d = [v - law.truth for v in vals]
    y = [x * x / law.E2 for x in d]
    R = sum(y) / n
    se = statistics.stdev(y) / math.sqrt(n)
    kurt = sum(v * v for v in y) / n / (R * R) if R > 0 else math.nan
    # Bernstein below as var_test, with the kurtosis of the simulated law (times 1.1 for its own
    # error) or the sample's if larger, and the band lowered by 7 standard errors of the
    # simulation's E[d^2]; above, z counts the simulation's standard error too.
    K = max(1.1 * law.kurt, kurt) if math.isfinite(kurt) else 1.1 * law.kurt
    r_lo = (1 - math.sqrt(2 * K * math.log(2 / ALPHA) / n)) / (1 + Z_BAND * law.se_sim)
    sez = math.sqrt(se * se + law.se_sim ** 2)
    z = (R - 1) / sez if sez > 0 else math.inf
    m = sum(d) / n
    zm = (m - law.mean) / math.sqrt(statistics.variance(d) / n + law.var_d / law.M)
    ok = r_lo <= R <= R_MAX and z <= Z_BAND and abs(zm) <= Z_BAND
    rse = se / R if R > 0 else math.inf
    lo_det = r_lo / (1 + Z_MISS * rse)
    hi_det = min(1 / (1 - (Z_BAND + Z_MISS) * rse) if (Z_BAND + Z_MISS) * rse < 1 else math.inf,
                 R_MAX / (1 - Z_MISS * rse) if Z_MISS * rse < 1 else math.inf)
    pw = ", ".join(f"{t} {r:.2f}{'' if r <= lo_det or r >= hi_det else ' (not certain)'}"
                   for t, r, _ in law.power())
    return ok, (f"E[d^2]/simulated = {R:.3f} (band [{r_lo:.3f}, ~{min(R_MAX, 1 + Z_BAND * sez):.3f}]: "
                f"Bernstein at kurtosis {K:.1f} (simulated {law.kurt:.2f}, sample {kurt:.2f}), "
                f"z {z:+.1f} <= {Z_BAND:g}, simulation's relative se {law.se_sim:.4f}; mean z vs "
                f"simulated {zm:+.1f}; {law.describe()}; n {n}); an E[d^2] <= {lo_det:.2f}x or >= "
                f"{fmt(hi_det)}x fails w.p. > 1-1e-9; faults' E[d^2] ratios: {pw}")


# ---------------------------------------------------------------------------------------------

def quantile_hit_p(eps, D, below, above, s_below, s_above, em=False):
    """The chance that a quantile release (src/core/quantile/quantile.h) picks the one bin of score
    0 when `below` bins have score s_below and `above` bins s_above: permute-and-flip's law
    E[1 / (1 + X + Y)], X ~ Bin(below, q1), Y ~ Bin(above, q2), q = exp(-eps s / (2 D))
    (docs/quantiles.md section 3); em: the exponential mechanism's 1 / (1 + below q1 + above q2)."""
    q1, q2 = math.exp(-eps * s_below / (2 * D)), math.exp(-eps * s_above / (2 * D))
    if em:
        return 1 / (1 + below * q1 + above * q2)

    def pmf(m, q):
        return [math.exp(math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1)
                         + k * math.log(q) + (m - k) * math.log1p(-q)) for k in range(m + 1)]
    a, b = pmf(below, q1), pmf(above, q2)
    conv = [0.0] * (below + above + 1)
    for i, x in enumerate(a):
        if x < 1e-300:
            continue
        for j, y in enumerate(b):
            conv[i + j] += x * y
    return sum(c / (1 + k) for k, c in enumerate(conv))


def parse_params(s):
    out = {}
    for kv in s.split(";"):
        if kv:
            k, v = kv.split("=", 1)
            out[k] = v
    return out


def evaluate(kind, rows, P, fault=None, work=None):
    """(ok, text) of one check; with fault, on the samples as the fault would make them."""
    f = 1.0
    if fault and fault.startswith("scale:"):
        f = float(fault.split(":")[1])
    if fault and fault.startswith("file:"):
        rows = load(f"{work}/{fault.split(':')[1]}")
    if kind == "var":
        d = [r[0] * f for r in rows]
        return var_test(d, float(P["V"]), P.get("mean", "1") == "1", float(P.get("K", KURT_FLOOR)))
    if kind == "cover":
        n = len(rows)
        k = sum(1 for d, wl, wh in rows if -wh <= d * f <= wl)
        return binom_test(k, n, float(P["p"]))
    if kind == "quant":
        n, w = len(rows), float(P["w"])
        k = sum(1 for r in rows if abs(r[0] * f) <= w)
        ok, txt = binom_test(k, n, float(P["p"]))
        return ok, f"|noise| <= its calibrated quantile {fmt(w, 6)}: " + txt
    if kind == "tol":
        tol = float(P["tol"])
        worst = max(abs(r[0] * f - 1) for r in rows)
        return worst <= tol, (f"largest relative deviation {fmt(worst)} over {len(rows)} values "
                              f"(tolerance {fmt(tol)}; exact arithmetic, never fails by chance)")
    if kind == "ks":
        return ks_test([r[0] * f for r in rows], P["family"], int(P["T"]))
    if kind in ("simks", "simvar"):
        law = variance_law(tuple(sorted(P.items())))
        vals = [r[0] for r in rows]
        if fault:
            vals = law.fault_sample(fault, vals)
        return (simks_test if kind == "simks" else simvar_test)(vals, law)
    if kind == "qhit":
        # releases of a quantile in the bin of score 0 (|d| < w/2 from its centre), against
        # permute-and-flip's exact chance: exact two-sided binomial test
        w = float(P["w"])
        n = len(rows)
        k = sum(1 for r in rows if -w / 2 <= r[0] < w / 2)
        args = (float(P["eps"]), float(P["D"]), int(P["below"]), int(P["above"]),
                float(P["sb"]), float(P["sa"]))
        p = quantile_hit_p(*args)
        if fault and fault.startswith("qeps:"):
            f = float(fault.split(":")[1])
            k = round(k * quantile_hit_p(args[0] * f, *args[1:]) / p)
        if fault and fault.startswith("qem:"):
            k = round(k * quantile_hit_p(*args, em=True) / p)
        ok, txt = binom_test(min(k, n), n, p)
        return ok, f"releases in the quantile's bin {k} of {n}: " + txt
    if kind == "reach":
        # groups whose noisy histogram has no bin reaching the threshold (released NULL), against
        # the exact chance: every bin misses independently (docs/automatic_bounds.md section 2)
        counts = [int(c) for c in P["counts"].split()]
        p = histogram_miss_p(float(P["s"]), float(P["t"]), counts)
        n = len(rows)
        k = sum(1 for r in rows if r[0] == 1)
        if fault and fault.startswith("heps:"):
            f = float(fault.split(":")[1])
            k = round(k * histogram_miss_p(float(P["s"]) / f, float(P["t"]), counts) / p)
        ok, txt = binom_test(min(k, n), n, p)
        return ok, f"groups with no bin reaching the threshold {k} of {n}: " + txt
    if kind == "select":
        k, M = int(P["k"]), int(P["M"])
        extra = ""
        ok_extra = True
        eps, delta, L, n = float(P["eps"]), float(P["delta"]), int(P["L"]), int(P["n"])
        sigma = float(P["sigma"]) if "sigma" in P else None
        p = selection_pi(P["strategy"], eps, delta, L, n, sigma)
        if "keep1" in P:
            k1 = float(P["keep1"])
            p1 = selection_pi(P["strategy"], eps, delta, L, 1, sigma)
            # the core works at parameters lowered by 2^-12 (its rounding margin): a little below
            ok_extra = abs(k1 / p1 - 1) <= 2e-3
            extra = f"; dp_group_selection's keep_one_unit / closed form = {k1 / p1:.5f}"
        if fault == "L1":       # the same strategy calibrated as for L = 1
            p_f = selection_pi(P["strategy"], eps, delta, 1, n, sigma)
            k = round(k * p_f / p)
        if fault and fault.startswith("rate:"):
            k = round(k * float(fault.split(":")[1]))
        ok, txt = binom_test(min(k, M), M, p)
        return ok and ok_extra, txt + extra
    raise ValueError(kind)


def histogram_miss_p(s, t, counts, bins=191):
    """The chance that no bin of a histogram (occupied bins of these counts, the rest empty) reaches
    t under discrete Laplace noise of scale s: P(c + X >= t) = p^m/(1 + p) for m = t - c >= 1, else
    1 - p^(1 - m)/(1 + p), p = e^(-1/s); the bins independent."""
    p = math.exp(-1 / s)
    miss = 1.0
    for c in counts + [0] * (bins - len(counts)):
        m = t - c
        r = p ** m / (1 + p) if m >= 1 else 1 - p ** (1 - m) / (1 + p)
        miss *= 1 - r
    return miss


def safe_evaluate(*args):
    try:
        return evaluate(*args)
    except Exception as e:      # a malformed sample or truth is a failure, not a crash
        return False, f"cannot evaluate: {type(e).__name__}: {e}"


FAULT_TEXT = {
    "scale:0.5": "noise standard deviation halved",
    "scale:2": "noise standard deviation doubled",
    "scale:0": "noise not added at all (the value released exactly)",
    "L1": "epsilon and delta not divided over the L groups of a unit",
}


def fault_text(fault):
    if fault in FAULT_TEXT:
        return FAULT_TEXT[fault]
    if fault.startswith("vall:"):
        parts = fault.split(":", 2)
        return parts[2] if len(parts) > 2 else f"every part's noise times {parts[1]}"
    if fault.startswith("vpart:"):
        parts = fault.split(":", 3)
        if len(parts) > 3:
            return parts[3]
        F = float(parts[2])
        what = VAR_PARTS[int(parts[1])]
        return f"the {what} part released exactly" if F == 0 else f"the {what} part's noise times {parts[2]}"
    parts = fault.split(":", 2)
    if parts[0] == "scale":
        return parts[2] if len(parts) > 2 else f"noise (or width) times {parts[1]}"
    if parts[0] == "rate":
        return parts[2] if len(parts) > 2 else f"keep rate times {parts[1]}"
    return parts[2]


def main():
    manifest, work = sys.argv[1], sys.argv[2]
    selftest = len(sys.argv) > 3 and sys.argv[3] == "selftest"
    with open(manifest) as m:
        for line in m:
            line = line.rstrip("\n")
            if not line:
                continue
            name, kind, label, params, faults = line.split("\t")
            P = parse_params(params)
            rows = load(f"{work}/{name}") if kind != "select" else []
            if kind in ("var", "ks", "simks", "simvar") and not rows:
                print(f"FAIL\t{label}: no samples")
                continue
            if not selftest:
                ok, txt = safe_evaluate(kind, rows, P)
                print(f"{'PASS' if ok else 'FAIL'}\t{label}: {txt}")
                continue
            for fault in [x for x in faults.split(",") if x]:
                ok, txt = safe_evaluate(kind, rows, P, fault, work)
                print(f"{'FAIL' if ok else 'PASS'}\tselftest {label} | fault: {fault_text(fault)} "
                      f"-> {'NOT DETECTED' if ok else 'fails as it must'}: {txt}")


if __name__ == "__main__":
    main()
