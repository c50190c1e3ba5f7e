// grid_profile.cpp — the fast approximate profile of the multi-Gaussian (grid_profile.h).
#include "mechanisms/multi_gaussian/grid_profile.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "interrupt.h"
#include "mechanisms/multi_gaussian/cell_bounds.h"

namespace dpagg {

using mg_detail::kSqrt2Pi;

// Fast approximate profile: f on a grid of step h = 1/r aligned with the lattice, so that
// f(x_i - j/r) = f(x_{i-j}); the trapezoid rule on (f_{i-j} - E f_i)_+ for every j.
namespace {
struct GridProfile {
  int r;
  double h;
  std::vector<double> f;  // f at x_i = x0 + i h
};
GridProfile grid_profile(const GaussLattice& g, int points_per_sigma) {
  GridProfile p;
  p.r = std::max(8, static_cast<int>(std::ceil(points_per_sigma / g.sigma())));
  // Keep the grid below ~2 million points whatever sigma and K are.
  p.r = std::min(p.r, std::max(8, 1000000 / (2 * g.K() + 2)));
  p.h = 1.0 / p.r;
  const int K = g.K();
  const double z = 12 * g.sigma();
  const int pad = static_cast<int>(std::ceil(z / p.h)) + p.r;
  const int n = 2 * K * p.r + 2 * pad + 1;  // x_i = (i - pad - K r) h
  // Base Gaussian at offsets m h, |m| <= zr (12 sigma): beyond, a term is below e^-72 of its peak
  // (this is an estimate, not a bound).
  const int zr = static_cast<int>(std::ceil(z / p.h));
  std::vector<double> base(static_cast<size_t>(2 * zr + 1));
  const double c0 = 1.0 / (kSqrt2Pi * g.sigma()), inv = 1.0 / (2 * g.sigma() * g.sigma());
  for (int m = -zr; m <= zr; ++m) {
    double y = m * p.h;
    base[static_cast<size_t>(m + zr)] = c0 * std::exp(-y * y * inv);
  }
  p.f.assign(static_cast<size_t>(n), 0.0);
  for (int k = -K; k <= K; ++k) {
    const double wk = g.weight(k);
    const int ic = pad + K * p.r + k * p.r;  // x_ic = k
    const int i0 = std::max(0, ic - zr), i1 = std::min(n - 1, ic + zr);
    for (int i = i0; i <= i1; ++i) p.f[static_cast<size_t>(i)] += wk * base[static_cast<size_t>(i - ic + zr)];
  }
  return p;
}
// Points i in [i_lo, i_hi] only (default: all): the caller knows f <= thr outside, so that each
// point left out contributes at most thr.
double grid_delta(const GridProfile& p, int j, double E, int i_lo = 0, int i_hi = INT_MAX) {
  // Four partial sums: independent chains of additions.
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const int n = std::min(static_cast<int>(p.f.size()), i_hi == INT_MAX ? INT_MAX : i_hi + j + 1);
  const double* f = p.f.data();
  int i = std::max(j, i_lo);  // below j the shifted profile is 0 and the difference negative
  for (; i + 3 < n; i += 4) {
    s0 += std::max(f[i - j] - E * f[i], 0.0);
    s1 += std::max(f[i + 1 - j] - E * f[i + 1], 0.0);
    s2 += std::max(f[i + 2 - j] - E * f[i + 2], 0.0);
    s3 += std::max(f[i + 3 - j] - E * f[i + 3], 0.0);
  }
  for (; i < n; ++i) s0 += std::max(f[i - j] - E * f[i], 0.0);
  return ((s0 + s1) + (s2 + s3)) * p.h;
}
}  // namespace

GaussLattice::Peak GaussLattice::approximate_sup(int points_per_sigma) const {
  GridProfile p = grid_profile(*this, points_per_sigma);
  const double E = std::exp(eps_);
  Peak best{0, 0};
  for (int j = 1; j <= p.r; ++j) {
    if ((j & 15) == 0) check_interrupt();
    double d = grid_delta(p, j, E);
    if (d > best.delta) best = {d, j * p.h};
  }
  return best;
}

double GaussLattice::approximate_at(double phi) const {
  GridProfile p = grid_profile(*this, 32);
  int j = static_cast<int>(std::lround(phi * p.r));
  return grid_delta(p, j, std::exp(eps_));
}

namespace mg_detail {

GaussLattice::Peak approx_profile_sup(double eps, int K, double sigma, int integer_shifts,
                                      double negligible) {
  GaussLattice g(eps, K, sigma);
  GridProfile p = grid_profile(g, 32);
  const double E = std::exp(eps);
  int i_lo = 0, i_hi = static_cast<int>(p.f.size()) - 1;
  if (negligible > 0) {
    const double thr = negligible / (p.h * static_cast<double>(p.f.size()));
    while (i_lo < i_hi && p.f[static_cast<size_t>(i_lo)] <= thr) ++i_lo;
    while (i_hi > i_lo && p.f[static_cast<size_t>(i_hi)] <= thr) --i_hi;
  }
  GaussLattice::Peak best{0, 0};
  auto consider = [&](int j) {
    const double d = grid_delta(p, j, E, i_lo, i_hi);
    if (d > best.delta) best = {d, static_cast<double>(j) / p.r};
  };
  if (integer_shifts > 0) {
    for (int m = 1; m <= integer_shifts; ++m)
      consider(static_cast<int>(std::lround(static_cast<double>(m) / integer_shifts * p.r)));
    return best;
  }
  constexpr int kStride = 4;
  for (int j = p.r; j >= 1; j -= kStride) {
    if ((j & 63) == 0) check_interrupt();
    consider(j);
  }
  const int jb = static_cast<int>(std::lround(best.phi * p.r));
  for (int j = std::max(1, jb - kStride + 1); j <= std::min(p.r, jb + kStride - 1); ++j)
    if (j != jb) consider(j);
  return best;
}

}  // namespace mg_detail
}  // namespace dpagg
