// multi_gaussian.h — the multi-Gaussian mixture of seed 000 (Def. 3.1) and its certificate.
//
// At sensitivity D = 1 (the mechanism is scale-equivariant; sigma, l1 scale with D, l2 with D^2):
//     f(x) = sum_{k=-K..K} w_k N(x; k, sigma^2),   w_k = e^{-|k| eps} / S_K.
// (eps, delta)-DP iff sup over shifts phi in [0, 1] of
//     delta(phi) = integral of (f(x - phi) - e^eps f(x))_+ dx  <=  delta
// (Lemma B.1; negative shifts by symmetry).  The worst phi is often interior (docs/mixtures.md §2.9).
#pragma once

#include <cstddef>
#include <vector>

namespace dpagg {

class GaussLattice {
 public:
  GaussLattice(double eps, int K, double sigma);

  double eps() const { return eps_; }
  int K() const { return K_; }
  double sigma() const { return sigma_; }
  double weight(int k) const { return w_[static_cast<size_t>(k + K_)]; }

  double density(double x) const;  // f(x)
  double cdf(double x) const;      // F(x)
  double l1() const;               // E|X|
  double l2() const;               // E[X^2]

  // A rigorous upper bound on sup over phi in [a, b] of delta(phi) (0 <= a <= b <= 1): the
  // integral of (G - e^eps f)_+ with G the envelope of f(x - phi) over phi in [a, b]
  // (docs/certificate.md), evaluated with second-order cell bounds, adaptive refinement to an
  // absolute looseness of about `tolerance`, closed-form tail bounds and rounding margins.
  // Stops early, with lower > stop_above, once the bound is known to exceed stop_above.
  struct Bound {
    double upper;  // the rigorous upper bound
    double lower;  // a lower bound on the envelope integral (not on delta): for pruning
  };
  Bound envelope_bound(double a, double b, double tolerance, double stop_above) const;

  // A fast approximation (trapezoid on a lattice-aligned grid, not a bound) of delta(phi) at
  // phi = j/r, j = 0..r, for the r the grid uses; returns the largest value and its phi.
  struct Peak {
    double delta;
    double phi;
  };
  Peak approximate_sup(int points_per_sigma = 32) const;

  // The same approximation at one shift phi (rounded to the grid); used by tools/report.cpp.
  double approximate_at(double phi) const;

 private:
  double eps_;
  int K_;
  double sigma_;
  std::vector<double> w_;  // 2K+1 weights, normalised
  double c0_;              // 1/(sqrt(2 pi) sigma)
};

struct MultiGaussianResult {
  double sigma;        // certified at D = 1
  double worst_phi;    // where the (approximate) profile peaks
  int intervals;       // shift intervals the certificate needed
  double search_sigma; // the uncertified search estimate it started from
};

// Smallest certified sigma (D = 1) for the K-modal mixture; `integer_shifts` > 0 certifies only the
// shifts m / integer_shifts, m = 1..integer_shifts (an integer-valued query with sensitivity
// integer_shifts, rescaled to D = 1).
MultiGaussianResult multi_gaussian_calibrate(double eps, double delta, int K, int integer_shifts = 0);

// Search phase only (not certified): the sigma where the approximate sup of the profile is delta.
double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts = 0);

// Certify sigma: true if every shift interval's envelope bound is <= delta.
bool multi_gaussian_certify(double eps, double delta, int K, double sigma, int integer_shifts,
                            int* intervals_used);

}  // namespace dpagg
