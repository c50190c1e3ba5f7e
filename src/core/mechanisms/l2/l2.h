// l2 — the l2 mechanism of vector releases.  A vector release (PrivacyRequest::vector) is several
// sums over the same rows released together, each row's vector clipped to an l2-norm bound D, so
// that adding or removing a row moves the vector of sums by at most D in l2 norm.  It is calibrated
// by the same registry, validation, `auto` and cache as a scalar release, among the mechanisms
// that serve its dimension T (Mechanism::serves).  Privacy arguments: docs/generalized_gaussian.md
// §2-3.
//
// Two noise distributions serve vector releases, both spherically symmetric in R^T:
//  * gaussian: N(0, sigma^2 I_T).  Its privacy profile depends only on ||shift|| / sigma, so the
//    analytic (Balle-Wang) sigma for sensitivity D is exact in every dimension (gaussian.h): the
//    analytic_gaussian mechanism, named "gaussian" for vectors (gaussian_rules.h).
//    Recommended as T grows (Wei, Bienstock & Polychroniadou, "Asymptotic Optimality of the
//    High-Dimensional Gaussian Mechanism and Improved Low-Dimensional Mechanisms for Differential
//    Privacy", ICML 2026, Theorem 3.1).  E||X||^2 = T sigma^2.
//  * l2 (the "l2 mechanism", SGG(alpha = T-1, p = 1)): density proportional to exp(-||x|| / theta).
//    Pure epsilon-DP at theta = D / epsilon (triangle inequality).  With delta > 0 a smaller theta
//    is private; dpagg certifies it with the exact profile (S1) of Wei, Bienstock &
//    Polychroniadou's Lemma 4.1, bounded from above with monotone bins (l2.cpp).  This mechanism.
//    E||X||^2 = T (T + 1) theta^2.
// At T = 1 the l2 mechanism is the Laplace mechanism.
#pragma once

#include "mechanism.h"

namespace dpagg {

// The exact privacy profile delta(epsilon) of SGG(alpha = T - 1, beta, p) for a shift of l2 norm
// s, p in {1, 2}, T >= 2 ((S1) of docs/generalized_gaussian.md §2.1), as a certified interval
// [lower, upper]: the integral over the radius is bounded on bins where both integrands are
// monotone, refined until upper - lower <= tolerance or max_bins is reached; tails and rounding
// are charged to `upper`.
struct SggBound {
  double lower, upper;
  int bins;
};
SggBound sgg_profile(int T, double p, double beta, double s, double epsilon, double tolerance,
                         int max_bins = 200000);

// The l2 mechanism's theta: D / epsilon if delta == 0, else the smallest theta (to ~1e-4
// relative) whose certified profile bound is <= delta, never above D / epsilon.
double l2_mechanism_theta(int T, double epsilon, double delta, double D, double* delta_bound);

const Mechanism& l2_mechanism();

}  // namespace dpagg
