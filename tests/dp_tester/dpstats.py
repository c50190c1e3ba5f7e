"""Statistics of the dpagg DP tester (tests/dp_tester), standard library only.

* Exact (Clopper-Pearson) one-sided binomial confidence bounds, from the regularized incomplete
  beta function I_x(a, b) evaluated by its continued fraction and inverted by bisection; the
  bisection returns the conservative end of its bracket.
* The two-sample test of one ordered pair of output distributions: events chosen on one half of
  the samples, tested on the other half (docs/dp_tester.md has the argument).
"""
import bisect
import math

# --------------------------------------------------------------------------------------------
# Regularized incomplete beta and the Clopper-Pearson bounds
# --------------------------------------------------------------------------------------------

_TINY = 1e-300


def _betacf(a, b, x):
    """Continued fraction of I_x(a, b) (modified Lentz), good for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    # Converges in O(sqrt(max(a, b))) steps; 1e5 steps cover every n this tester uses.
    for m in range(1, 100000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            return h
    raise ArithmeticError("incomplete beta: continued fraction did not converge (a=%g, b=%g, x=%g)" % (a, b, x))


def betainc(a, b, x):
    """I_x(a, b) = P(Beta(a, b) <= x) for a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lfront = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
              + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lfront) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lfront) * _betacf(b, a, 1.0 - x) / b


def binom_sf(k, n, p):
    """P(Bin(n, p) >= k) = I_p(k, n - k + 1)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return betainc(k, n - k + 1, p)


def binom_cdf(k, n, p):
    """P(Bin(n, p) <= k) = I_{1-p}(n - k, k + 1), computed on the side that keeps small tails
    accurate."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return betainc(n - k, k + 1, 1.0 - p)


def _bisect(f, target, increasing, want_low):
    """The root p in [0, 1] of f(p) = target, f monotone; returns the low end of the final
    bracket when want_low, else the high end.  200 halvings reach the spacing of doubles."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        v = f(mid)
        if (v < target) == increasing:
            lo = mid
        else:
            hi = mid
    return lo if want_low else hi


def cp_lower(k, n, alpha):
    """One-sided lower confidence bound for p from k successes in n trials: P_p(bound > p) <=
    alpha for every p.  The p at which P(Bin(n, p) >= k) = alpha, rounded down."""
    if k <= 0:
        return 0.0
    return _bisect(lambda p: binom_sf(k, n, p), alpha, True, True)


def cp_upper(k, n, alpha):
    """One-sided upper confidence bound: the p at which P(Bin(n, p) <= k) = alpha, rounded up."""
    if k >= n:
        return 1.0
    return _bisect(lambda p: binom_cdf(k, n, p), alpha, False, False)


def norm_isf(alpha):
    """z with P(N(0,1) > z) = alpha (bisection on erfc); used only to choose events."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 0.5 * math.erfc(mid / math.sqrt(2.0)) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def wilson(k, n, z):
    """Wilson score interval (approximate, fast): used only on the selection half."""
    p = k / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def self_check():
    """Checks the bounds against binomial tails summed term by term in log space.  Returns a
    list of (description, ok)."""
    out = []

    def tail_ge(k, n, p):  # P(Bin(n, p) >= k), direct sum
        if p <= 0.0:
            return 0.0 if k > 0 else 1.0
        lp, lq = math.log(p), math.log1p(-p)
        lc = math.lgamma(n + 1)
        terms = [lc - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * lp + (n - j) * lq
                 for j in range(k, n + 1)]
        m = max(terms)
        return math.exp(m) * math.fsum(math.exp(t - m) for t in terms)

    def tail_le(k, n, p):
        if p >= 1.0:
            return 0.0 if k < n else 1.0
        lp, lq = math.log(p), math.log1p(-p)
        lc = math.lgamma(n + 1)
        terms = [lc - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * lp + (n - j) * lq
                 for j in range(0, k + 1)]
        m = max(terms)
        return math.exp(m) * math.fsum(math.exp(t - m) for t in terms)

    for (k, n, alpha) in [(1, 10, 0.05), (5, 10, 0.05), (9, 10, 1e-3), (3, 1000, 1e-8),
                          (500, 1000, 1e-8), (137, 50000, 1e-9), (25000, 50000, 1e-9),
                          (49990, 50000, 1e-9), (1000, 100000, 1e-8), (99000, 100000, 1e-8)]:
        lo, hi = cp_lower(k, n, alpha), cp_upper(k, n, alpha)
        a_lo, a_hi = tail_ge(k, n, lo), tail_le(k, n, hi)
        ok = (lo < k / n < hi and a_lo <= alpha * (1 + 1e-9) and a_hi <= alpha * (1 + 1e-9)
              and a_lo >= alpha * (1 - 1e-6) and a_hi >= alpha * (1 - 1e-6))
        out.append(("Clopper-Pearson k=%d n=%d alpha=%g: [%.6g, %.6g], tails %.6g, %.6g"
                    % (k, n, alpha, lo, hi, a_lo, a_hi), ok))
    # Textbook value: k = 0 of n = 10 at 95 % two-sided, upper = 1 - 0.025^(1/10).
    v = cp_upper(0, 10, 0.025)
    out.append(("Clopper-Pearson upper bound for 0 of 10 at 0.025: %.10f" % v,
                abs(v - (1 - 0.025 ** 0.1)) < 1e-12))
    return out


# --------------------------------------------------------------------------------------------
# The two-sample test
# --------------------------------------------------------------------------------------------

def _candidate_thresholds(values):
    """Thresholds t for the events {x > t} and {x <= t}: midpoints between consecutive distinct
    values when there are few, else about 1000 quantiles of the pooled values."""
    vs = sorted(values)
    distinct = []
    for v in vs:
        if not distinct or v != distinct[-1]:
            distinct.append(v)
            if len(distinct) > 2000:
                break
    if len(distinct) <= 2000:
        return [(distinct[i] + distinct[i + 1]) / 2 for i in range(len(distinct) - 1)]
    n = len(vs)
    ts = []
    for i in range(1, 1000):
        t = vs[i * n // 1000]
        if not ts or t != ts[-1]:
            ts.append(t)
    return ts


def _count(sorted_vals, t, above):
    """#{x > t} when above, else #{x <= t}."""
    i = bisect.bisect_right(sorted_vals, t)
    return len(sorted_vals) - i if above else i


def _event_name(t, above):
    return ("x > %.6g" % t) if above else ("x <= %.6g" % t)


def test_pair(xs_d, xs_d2, epsilon, delta, alpha):
    """Tests (epsilon, delta)-indistinguishability of two samples of a real statistic, X from
    D and X' from D', in both orders.

    The first half of each sample chooses, for each order (P, Q) in {(D, D'), (D', D)}, two
    threshold events: the one with the largest approximate lower bound of P(S) - e^eps Q(S) - delta
    and the one with the largest approximate lower bound of the privacy loss.  Each of these four
    events is then tested on the second half: a violation is declared when
    lower_CP(P(S)) - e^eps * upper_CP(Q(S)) > delta, each bound at level alpha (so 8 one-sided
    bounds per call).  Returns a dict with the verdict, the best epsilon lower bound (at the
    claimed delta) and delta lower bound (at the claimed epsilon), and the events."""
    n_d, n_d2 = len(xs_d) // 2, len(xs_d2) // 2
    if n_d < 10 or n_d2 < 10:
        raise ValueError("too few samples: %d and %d" % (len(xs_d), len(xs_d2)))
    sel = {"D": sorted(xs_d[:n_d]), "D'": sorted(xs_d2[:n_d2])}
    hold = {"D": sorted(xs_d[n_d:]), "D'": sorted(xs_d2[n_d2:])}
    e_eps = math.exp(epsilon)
    z = norm_isf(alpha)
    thresholds = _candidate_thresholds(sel["D"] + sel["D'"])
    tested = []
    for p_name, q_name in (("D", "D'"), ("D'", "D")):
        sp, sq = sel[p_name], sel[q_name]
        best_margin, best_eps = None, None
        for t in thresholds:
            for above in (True, False):
                kp, kq = _count(sp, t, above), _count(sq, t, above)
                lp, _ = wilson(kp, len(sp), z)
                _, uq = wilson(kq, len(sq), z)
                margin = lp - e_eps * uq - delta
                if best_margin is None or margin > best_margin[0]:
                    best_margin = (margin, t, above)
                if lp > delta and uq > 0:
                    le = math.log((lp - delta) / uq)
                    if best_eps is None or le > best_eps[0]:
                        best_eps = (le, t, above)
        events = [best_margin[1:]]
        if best_eps is not None and best_eps[1:] != best_margin[1:]:
            events.append(best_eps[1:])
        for (t, above) in events:
            hp, hq = hold[p_name], hold[q_name]
            kp, kq = _count(hp, t, above), _count(hq, t, above)
            lp = cp_lower(kp, len(hp), alpha)
            uq = cp_upper(kq, len(hq), alpha)
            margin = lp - e_eps * uq
            eps_lb = math.log((lp - delta) / uq) if lp > delta and uq > 0 else -math.inf
            ph, qh = kp / len(hp), kq / len(hq)
            # How far the point estimate of P(S) - e^eps Q(S) lies beyond delta, in standard
            # deviations of that estimate (a measure of power, reported by the self-test).
            sd = math.sqrt(ph * (1 - ph) / len(hp) + e_eps ** 2 * qh * (1 - qh) / len(hq))
            excess_sd = (ph - e_eps * qh - delta) / sd if sd > 0 else math.inf
            tested.append({"order": "%s over %s" % (p_name, q_name), "event": _event_name(t, above),
                           "p_hat": ph, "q_hat": qh, "p_lower": lp, "q_upper": uq,
                           "delta_lb": margin, "eps_lb": eps_lb, "excess_sd": excess_sd,
                           "violation": margin > delta})
    # The event to show: the largest loss bound, or when no event shows a positive loss, the
    # largest P(S) - e^eps Q(S).
    if max(r["eps_lb"] for r in tested) > 0:
        best = max(tested, key=lambda r: r["eps_lb"])
    else:
        best = max(tested, key=lambda r: r["delta_lb"])
    return {"violation": any(r["violation"] for r in tested),
            "excess_sd": max(r["excess_sd"] for r in tested),
            "eps_lb": max(r["eps_lb"] for r in tested),
            "delta_lb": max(r["delta_lb"] for r in tested),
            "best": best, "tested": tested, "n": (len(xs_d), len(xs_d2)),
            "bounds_used": 2 * len(tested)}
