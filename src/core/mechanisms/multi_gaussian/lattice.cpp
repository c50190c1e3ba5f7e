// lattice.cpp — the multi-Gaussian mixture itself (lattice.h): weights, density, CDF and the
// closed-form losses.  The bounds on its privacy profile are in envelope_bound.cpp and the table
// files; the approximate profile in grid_profile.cpp.
#include "mechanisms/multi_gaussian/lattice.h"

#include <boost/math/special_functions/erf.hpp>

#include <cmath>
#include <cstdlib>

#include "math/gaussian.h"
#include "mechanisms/multi_gaussian/cell_bounds.h"

namespace dpagg {

using mg_detail::kSqrt2Pi;

GaussLattice::GaussLattice(double eps, int K, double sigma)
    : eps_(eps), K_(K), sigma_(sigma), w_(static_cast<size_t>(2 * K + 1)), c0_(1.0 / (kSqrt2Pi * sigma)) {
  double s = 0;
  for (int k = -K; k <= K; ++k) s += std::exp(-std::abs(k) * eps);
  for (int k = -K; k <= K; ++k) w_[static_cast<size_t>(k + K)] = std::exp(-std::abs(k) * eps) / s;
}

double GaussLattice::density(double x) const {
  double sum = 0, inv = 1.0 / (2 * sigma_ * sigma_);
  for (int k = -K_; k <= K_; ++k) {
    double y = x - k;
    sum += weight(k) * std::exp(-y * y * inv);
  }
  return sum * c0_;
}

double GaussLattice::cdf(double x) const {
  double sum = 0;
  for (int k = -K_; k <= K_; ++k) sum += weight(k) * (1 - normal_upper_tail((x - k) / sigma_));
  return sum;
}

double GaussLattice::l1() const {
  // E|X| = sum_k w_k [ sigma sqrt(2/pi) e^{-k^2/(2 sigma^2)} + |k| erf(|k|/(sigma sqrt 2)) ]
  // (Liu, Selvi & Wiesemann, App. B.2; docs/mixtures.md §2.3)
  double sum = 0;
  for (int k = -K_; k <= K_; ++k) {
    double ak = std::abs(k);
    sum += weight(k) * (sigma_ * 0.79788456080286535588 * std::exp(-ak * ak / (2 * sigma_ * sigma_)) +
                        ak * boost::math::erf(ak / (sigma_ * 1.41421356237309504880)));
  }
  return sum;
}

double GaussLattice::l2() const {
  double sum = 0;
  for (int k = -K_; k <= K_; ++k) sum += weight(k) * (sigma_ * sigma_ + double(k) * k);
  return sum;
}

}  // namespace dpagg
