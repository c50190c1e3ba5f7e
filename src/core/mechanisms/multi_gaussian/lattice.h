// lattice.h — the multi-Gaussian density at sensitivity D = 1 (the mechanism is scale-equivariant;
// sigma and l1 scale with D, l2 with D^2):
//     f(x) = sum_{k=-K..K} w_k N(x; k, sigma^2),   w_k = e^{-|k| eps} / S_K
// (Liu, Selvi & Wiesemann, Def. 3.1; docs/mixtures.md §2): its weights, density, CDF and losses
// (lattice.cpp), the rigorous envelope bound on its privacy profile over a shift interval
// (envelope_bound.cpp) and a fast approximation of that profile (grid_profile.cpp).  The tables
// (tables.h), the certifier (certifier.cpp) and the search (search.cpp) are built on it.
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
  // (docs/multi_gaussian_certificate.md, "The envelope bound for a shift interval"), evaluated
  // with second-order cell bounds, adaptive refinement to an absolute looseness of about
  // `tolerance`, closed-form tail bounds and rounding margins.
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

}  // namespace dpagg
