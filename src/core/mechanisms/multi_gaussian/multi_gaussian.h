// multi_gaussian — the multi-Gaussian mixture of Liu, Selvi & Wiesemann, "Mind the Gap: Mixtures
// of Gaussians in Approximate Differential Privacy" (ICML 2026, Def. 3.1; docs/mixtures.md §2):
// 2K+1 Gaussians N(k D, s^2), k = -K..K, with weights proportional to e^{-|k| eps}.
//
// Privacy.  At sensitivity D = 1 (the mechanism is scale-equivariant; sigma and l1 scale with D,
// l2 with D^2) the density is f(x) = sum_{k=-K..K} w_k N(x; k, sigma^2), w_k = e^{-|k| eps} / S_K.
// Additive noise with a symmetric density is (eps, delta)-DP iff for every shift phi in [0, 1]
//     delta(phi) = integral of (f(x - phi) - e^eps f(x))_+ dx  <=  delta
// (the paper's Lemma B.1; negative shifts by symmetry).  The worst phi is often interior
// (docs/mixtures.md §2.5).  dpagg does not use the paper's Theorem 3.2 grid (which its public code
// caps at 2000 shifts, and which needs ~1e12 shifts at delta = 1e-10).  Instead:
//   1. search (search.cpp): the sigma where a fast trapezoid approximation of sup_phi delta(phi)
//      (grid_profile.cpp) equals delta — not a proof;
//   2. certify (certifier.cpp) sigma = search * (1 + tau), tau = 0.2% (doubled on failure): a
//      branch and bound over shift intervals [a, b] covering [0, 1], each accepted only if a
//      rigorous upper bound of sup over [a, b] of delta(phi) is <= delta (1 - 1e-9): from
//      lattice-aligned tables (tables.h, tables.cpp, table_bounds.cpp) with a second-order
//      interpolation bound between grid shifts, and the envelope integral (envelope_bound.cpp) for
//      whatever the tables leave (both derived in docs/multi_gaussian_certificate.md).  The bounds
//      account for the tails, the curvature between evaluation points, and rounding;
//   3. if no sigma below the analytic Gaussian's sigma_AG(eps, delta) is certified, sigma_AG itself,
//      private by a closed-form argument: every pair of components shifted by phi <= D is then an
//      (eps, delta)-DP Gaussian pair, and a mixture of DP pairs with the same weights is DP (joint
//      convexity of the hockey-stick divergence; docs/mixtures.md §1.3).
// For an integer-valued query (COUNT, SUM of integers with integer bounds) only the shifts
// m = 1..D occur, and only those are certified (the mixture then approaches a discrete Laplace).
// Every sigma >= a certified one is also private (Lemma 3.4; docs/mixtures.md §1.3).
//
// zCDP: rho = D^2/(2 s^2) for any K (Corollary 3.7).
// Loss (App. B.2): E|X| = sum_k w_k [s sqrt(2/pi) e^{-k^2 D^2/2s^2} + |k| D erf(|k| D/(s sqrt 2))],
// E[X^2] = s^2 + D^2 sum_k w_k k^2.
//
// Options: k = 1..40 fixes the modality; without it the K with the least expected loss (objective
// l1 or l2, default l2) among a ladder of K values is chosen by the search, then certified.
//
// The files of this folder:
//   multi_gaussian.h   this overview and the entry points (calibrate, search, certify, sample)
//   lattice.h/.cpp     GaussLattice: weights, density, CDF, losses of the mixture
//   envelope_bound.cpp the rigorous envelope bound over a shift interval (the slow, general path)
//   grid_profile.h/.cpp the fast approximate profile the search uses (an estimate, not a bound)
//   tables.h/.cpp      LatticeTables: the lattice-aligned tables of the tabulated certificate
//   table_bounds.cpp   the bounds computed from those tables (point and interval bounds)
//   cell_bounds.h      closed forms shared by both bounds (derivative sups, chord integrals)
//   certifier.cpp      the branch and bound over shift intervals: tables first, envelope for the rest
//   search.cpp         the sigma search, the best-K scan, and calibrate = search then certify
//   sampler.cpp        drawing the noise
//   mechanism.cpp      the Mechanism adapter (options, calibration record, registry entry)
#pragma once

#include "mechanism.h"
#include "mechanisms/multi_gaussian/lattice.h"
#include "mechanisms/multi_gaussian/tables.h"

namespace dpagg {

// The largest modality K dpagg offers.
constexpr int kMultiGaussianMaxK = 40;

struct MultiGaussianResult {
  double sigma;        // certified at D = 1
  double worst_phi;    // where the (approximate) profile peaks
  int intervals;       // shift intervals the certificate needed
  double search_sigma; // the uncertified search estimate it started from
};

// Smallest certified sigma (D = 1) for the K-modal mixture; `integer_shifts` > 0 certifies only the
// shifts m / integer_shifts, m = 1..integer_shifts (an integer-valued query with sensitivity
// integer_shifts, rescaled to D = 1).
// `hint`: a sigma near the search value (e.g. from the best-K scan) to start the search from.
MultiGaussianResult multi_gaussian_calibrate(double eps, double delta, int K, int integer_shifts = 0,
                                             double hint = 0);

// Search phase only (not certified): the sigma where the approximate sup of the profile is delta.
double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts = 0);
// The same, starting from `hint` (e.g. the search sigma of a neighbouring K; <= 0: none), to a
// tolerance `log_tol` in log sigma (a coarser one is enough to compare K).
double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts, double hint,
                                   double log_tol = 1e-5);

// Certify sigma: true if every shift interval's envelope bound is <= delta.
bool multi_gaussian_certify(double eps, double delta, int K, double sigma, int integer_shifts,
                            int* intervals_used);

// The K in 1..k_cap with the least estimated loss (objective l1 or l2) for the request, by the
// search phase (not certified); `shifts` as integer_shifts above.  *best_loss receives that loss
// (at the request's sensitivity), *sigma_out the K's search sigma (D = 1), a hint for its
// calibration.
int multi_gaussian_best_k(const PrivacyRequest& req, int shifts, bool l1, int k_cap,
                          double* best_loss, double* sigma_out = nullptr);

// One draw of K-modal multi-Gaussian noise with weights e^{-|k| eps}, spacing `sensitivity` and
// component standard deviation `scale`.
double multi_gaussian_sample(int K, double eps, double sensitivity, double scale, RandomSource& rng);

// An upper bound on P(|X| > w) for X drawn by multi_gaussian_sample with these arguments (never
// below the exact value; within ~1e-12 relative of it): the mixture's two-sided tail
//     (1/S) [2 Q(w/s) + sum_{j=1..K} 2 e^{-j eps} (Q((w - jD)/s) + Q((w + jD)/s))],
// S = 1 + 2 sum_{j=1..K} e^{-j eps}.
double multi_gaussian_tail(int K, double eps, double sensitivity, double scale, double w);

// The K of a multi_gaussian calibration (its parameter "K").
inline int multi_gaussian_k(const dpagg_calibration& cal) { return static_cast<int>(cal.params[1]); }

const Mechanism& multi_gaussian_mechanism();

}  // namespace dpagg
