// rdp.h — Renyi-DP curves and their conversion to (epsilon, delta)-DP (Sadeghi & Korki,
// "Offset-Symmetric Gaussians for Differential Privacy", 2021, Sections IV-B, IV-C and App. E;
// docs/osgt.md §6).  Accounting tools, not calibrations: they report what a mechanism with given
// parameters guarantees, e.g. for k i.i.d. OSGT coordinates, where no exact (epsilon, delta)
// profile is known.
#pragma once

#include <functional>

namespace dpagg {

// Exact 1-D Renyi divergence of order alpha > 1 between OSGT(m, sigma) and its shift by d >= 0
// (eq. (O2) of docs/osgt.md §6.2), evaluated in log space (the printed form loses all digits at
// large alpha).
double osgt_rdp(double alpha, double m, double sigma, double d);

// Sadeghi & Korki, Theorem 2: k i.i.d. coordinates, l2 shift D2:
//   alpha D2^2 / (2 sigma^2) + k ln((1 - Q(r)) / Q(r)) / (alpha - 1).
double osgt_rdp_theorem2(double alpha, double m, double sigma, double d2, int k);

// RDP to DP (Canonne, Kamath & Steinke 2020, Prop. 12): D_alpha <= tau implies
// (epsilon, delta)-DP with delta = e^{(alpha-1)(tau-epsilon)} / (alpha-1) (1 - 1/alpha)^alpha.
double rdp_to_dp_delta(double alpha, double tau, double epsilon);

// The least such delta over alpha in [alpha_lo, alpha_hi] for an RDP curve tau(alpha), by a
// log-spaced scan refined with golden-section search (the function is unimodal in practice);
// *best_alpha receives the minimiser.
double rdp_best_delta(const std::function<double(double)>& tau, double epsilon, double alpha_lo,
                      double alpha_hi, double* best_alpha = nullptr);

}  // namespace dpagg
