// staircase — the staircase mechanism of Geng & Viswanath, "The Optimal Noise-Adding Mechanism in
// Differential Privacy" (IEEE Trans. Inf. Theory 62(2), 2016, Sections III-IV) and Geng, Kairouz,
// Oh & Viswanath, "The Staircase Mechanism in Differential Privacy" (IEEE J. Sel. Topics Signal
// Process. 9(7), 2015).  Pure epsilon-DP noise for a real-valued query of sensitivity D.
//
// Noise.  X = S * D * (G + V): S a fair sign; G = 0, 1, 2, ... with P(G = k) = (1 - b) b^k,
// b = e^-eps; V on [0, 1), independent of G: uniform on [0, gamma) with probability 1 - p_out,
// uniform on [gamma, 1) with probability p_out.  With p_out = b(1-gamma) / (gamma + b(1-gamma)) the
// density of X is the paper's staircase: constant on [kD, (k+gamma)D) and on [(k+gamma)D, (k+1)D),
// the second step e^-eps below the first, and each period of length D e^-eps below the one before.
//
// Privacy (our wording of the papers' argument).  The density f is symmetric, non-increasing in |x|,
// and f(t + D) = e^-eps f(t) for t >= 0 (shifting by one period multiplies the density by b exactly,
// because G's law has that ratio and V's law is the same in every period).  Take two outputs x and
// y = x - mu with |mu| <= D.  Then |y| <= |x| + D, so f(y) >= f(|x| + D) = e^-eps f(|x|) = e^-eps f(x),
// i.e. f(x) / f(x - mu) <= e^eps for every x and every shift in [-D, D]: the privacy loss is bounded by
// eps everywhere and the mechanism is eps-DP (delta = 0), for every gamma in [0, 1] and every p_out
// making the density non-increasing.  Only monotonicity within a period depends on p_out: the first
// step's density over the second's is (1-p_out)(1-gamma) / (p_out gamma), which must lie in [1, e^eps].
//
// Rounding.  G is drawn as floor(-log(U) / eps) and the period's shape does not depend on G, so the
// ratio b per period is that of the real number e^-eps itself (the sampler's own floating-point
// error is that of every continuous sampler in dpagg, release.cpp).  p_out is computed, then raised
// by 2^-45 relative (and drawn with a full-resolution uniform): more mass on the lower step only
// lowers the within-period ratio below e^eps, far from its floor of 1 (eps >= 1e-10).  Hence
// delta_bound = 0.  eps above 700 is treated as 700 (an eps'-DP mechanism is eps-DP for eps >= eps').
//
// With delta > 0 the same pure-DP calibration is returned (still valid; delta_bound = 0).
//
// gamma.  For the objective l1, gamma* = 1/(1 + e^{eps/2}) (Geng & Viswanath 2016, the section
// deriving the optimal staircase for the cost functions |x| and x^2; docs/staircase.md §3 derives
// it again); for l2 gamma minimises E[X^2] numerically (Boost's
// brent_find_minima over log gamma of the closed form).  gamma is floored at 2^-60 (eps > 83, where
// the loss is then within D 2^-60 of the optimum).  objective is an option like auto's.
//
// Loss: E|X| = D (b/(1-b) + (gamma + p_out)/2),
//       E[X^2] = D^2 (b(1+b)/(1-b)^2 + 2 b/(1-b) E V + gamma^2/3 + p_out (1+gamma)/3).
#pragma once

#include "mechanism.h"

namespace dpagg {

const Mechanism& staircase_mechanism();

// The gamma staircase would choose for eps (objective l1 or l2), before rounding margins; exposed
// for the tests.
double staircase_gamma(double epsilon, bool l1);

}  // namespace dpagg
