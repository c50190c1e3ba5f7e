// generalized_gaussian — noise with density p / (2 s Gamma(1/p)) exp(-|x/s|^p), i.e.
// proportional to exp(-beta |x|^p) with beta = s^-p: the one-dimensional member (alpha = 0, T = 1)
// of the spherical generalized Gamma (SGG) family of Wei, Bienstock & Polychroniadou, "Asymptotic
// Optimality of the High-Dimensional Gaussian Mechanism and Improved Low-Dimensional Mechanisms
// for Differential Privacy" (ICML 2026, Def. 4.1-4.2; docs/generalized_gaussian.md §1, §4);
// p = 1 is Laplace(b = s), p = 2 is N(0, s^2/2).
//
// Privacy (dpagg's derivation, docs/generalized_gaussian.md §4.2; the paper stops at T >= 2).
// For a shift D write h = D/s and t = x/s.  The privacy loss of the shifted output against the
// unshifted one is
//     l(t) = |t - h|^p - |t|^p.
//   p >= 1: l is non-increasing (strictly for p > 1; for p = 1 a ramp clipped at +-h), so
//     {l >= eps} = (-inf, t*] and delta(eps) = F(t*) - e^eps F(t* - h), F the CDF,
//     F(t) = 1/2 + sgn(t) P(1/p, |t|^p) / 2 with P the regularized lower incomplete gamma.
//     For p = 1 this is the Laplace profile 1 - e^((eps - h)/2) (evaluated in that form), and
//     for eps >= h the loss never exceeds eps: delta = 0 (pure eps-DP at s = D/eps).
//   p < 1: l rises from 0 to h^p on (-inf, 0], falls to -h^p on [0, h], rises back to 0, so
//     {l >= eps} = [t1, t2] with t1 < 0 < t2 < h/2 and
//     delta = [F(t2) - F(t1)] - e^eps [F(t2 - h) - F(t1 - h)];  eps >= h^p gives delta = 0.
//   In both cases the set is the superlevel set of the likelihood ratio, so delta is the exact
//   hockey-stick divergence.  The worst shift is the largest, D: the density is symmetric and
//   non-increasing in |x| (alpha = 0 <= T - 1), and the ball-overlap argument of the paper's
//   Lemma 4.2 applies to intervals (docs/generalized_gaussian.md §2.2); the unit tests re-check
//   it by quadrature over a dense set of shifts.  So integer-valued queries need nothing else.
//   delta depends on h = D/s only and is non-decreasing in h (the paper's Prop. C.1, by scaling):
//   for fixed p it is non-increasing in s, and the calibration is a 1-D root search in s.
//
// Calibration (conservative).  The roots of l = eps are found by TOMS 748, then bracketed: points
// a <= t <= b at which the sign of l - eps is certified (l evaluated with an explicit rounding
// bound, in the form |t|^p expm1(p log1p(+-h/|t|)) outside [0, h], where the two powers nearly
// cancel).  delta is G at the roots, where G's derivative vanishes, so delta <= G(c) + (b - a)
// max|G'| over the bracket for the computed root c (second order in the bracket width); G(c) is
// bounded with the added CDF terms from above, the subtracted ones from below, and the shifted
// points c - h nudged inwards by their rounding.  Each incomplete gamma value is charged 2e-13
// relative plus the effect of the rounding of its argument; a difference of two tails on one side
// of 0 is also enclosed by the trapezoid rule on the Gamma density, and the tighter enclosure kept.
// Roots beyond the double range (p near 1, where the loss decays like |t|^(p-1)) are replaced by a
// far point where the tail mass is below e^-800.  math/scale_search.h finds the least s whose bound
// is <= delta, from the feasible side, and re-checks the returned double; delta_bound is that bound.
// The exponent used throughout is p' = 1/k with k = fl(1/p), exactly the law the sampler draws,
// with the difference between pow(., p) and pow(., p') charged as rounding.
// Where the profile terms nearly cancel (p <= 1 near its pure-DP point with tiny delta) the bound
// can exceed the exact profile by up to ~1e-2 relative (the scale by ~1e-7): never the other way.
//
// Options: p = exponent, 0.5 <= p <= 10, default 1.5 (halfway between Laplace and Gaussian).
// Sampling: X = +-s Z^k, Z ~ Gamma(k, 1) by the inverse of the regularized upper incomplete gamma
// at a full-resolution uniform (random.h), with an independent fair sign; |X|/s = Z^k has density
// proportional to exp(-y^(1/k)) exactly.
// Loss: E|X| = s Gamma(2/p)/Gamma(1/p), E[X^2] = s^2 Gamma(3/p)/Gamma(1/p)
// (docs/generalized_gaussian.md §4.1).
#pragma once

#include "math/gaussian.h"  // ProfileBound
#include "mechanism.h"

namespace dpagg {

// The pieces of the calibration, exposed for tests.  Noise density proportional to
// exp(-|x/s|^p) = exp(-beta |x|^p), beta = s^-p.  Everything in units of the scale s: the shift is
// h = D/s.

struct GgProfile {
  double value;   // floating-point evaluation of delta(eps)
  double upper;   // certified upper bound
  double x1, x2;  // {loss >= eps} = [x1, x2] in units of s (x1 = -inf for p >= 1; both NaN if empty)
};
// Privacy profile at eps of the shift h (in units of s) for exponent p
// (docs/generalized_gaussian.md §4.2).
GgProfile gg_profile(double h, double p, double epsilon);

// The smallest scale s (to 1e-12 relative, feasible side) whose certified profile is <= delta.
double gg_scale(double p, double epsilon, double delta, double sensitivity);

// E|X| / s = Gamma(2/p)/Gamma(1/p),  E[X^2] / s^2 = Gamma(3/p)/Gamma(1/p).
double gg_l1_unit(double p);
double gg_l2_unit(double p);

const Mechanism& generalized_gaussian_mechanism();

}  // namespace dpagg
