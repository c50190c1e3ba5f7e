// gaussian.h — the Gaussian privacy profile, shared by every Gaussian calibration rule.
//
// For N(0, sigma^2) noise and sensitivity D, the privacy profile (Balle & Wang 2018, Thm 8;
// Zhao et al. 2019, Thm 2; derived in docs/gaussian_rules.md §1, eq. (G1)) is
//     delta_G(sigma) = Q(A) - e^eps Q(B),   A = eps*sigma/D - D/(2 sigma),  B = A + D/sigma,
// with Q the standard normal upper tail.  It is strictly decreasing in sigma, and the mechanism
// is (eps, delta)-DP iff delta_G(sigma) <= delta.
#pragma once

namespace dpagg {

// Q(x) = P(N(0,1) > x), accurate in relative terms for every x (Boost erfc).
double normal_upper_tail(double x);
// log Q(x), finite for every finite x (asymptotic erfcx for large x).
double log_normal_upper_tail(double x);
// exp(z^2) erfc(z) for z >= 0 (Boost 1.74 has no erfcx).
double erfcx_nonneg(double z);

// Enclosures of Q over an argument known to within an absolute error, for noise tails
// (Mechanism::noise_tail), which must never fall below the exact tail: lo <= Q(t) <= hi for every
// t with |t - x| <= ex (ex >= 0).  Q is decreasing, so hi is Q at x - ex and lo at x + ex, each
// moved outward by the rounding of the argument; Boost erfc is charged 1e-13 relative, the
// asymptotic erfcx of the far tail (beyond the range of erfc) and the logs and exps their
// rounding.  The log form never underflows; in the other, a subnormal hi gets DBL_MIN added.
struct TailEnclosure {
  double lo, hi;
};
TailEnclosure log_normal_upper_tail_enclosure(double x, double ex);  // of log Q
TailEnclosure normal_upper_tail_enclosure(double x, double ex);      // of Q
// An upper bound on e^L: exp's rounding, and DBL_MIN added where the result is subnormal.
double exp_upper(double L);

struct ProfileBound {
  double value;  // the floating-point evaluation of delta_G
  double upper;  // value + a bound on its rounding error: a rigorous upper bound
};
ProfileBound gaussian_profile(double sigma, double epsilon, double sensitivity);

// The analytic (exact) calibration: the smallest sigma (to a relative 1e-12) whose certified
// profile bound is <= delta: smallest_feasible_scale (scale_search.h) on gaussian_profile().upper,
// started at sigma = sensitivity.
double analytic_gaussian_sigma(double epsilon, double delta, double sensitivity);

}  // namespace dpagg
