// cell_bounds.h — closed forms shared by the two rigorous bounds of the multi-Gaussian certificate,
// the envelope bound (envelope_bound.cpp) and the tabulated bound (tables.cpp, table_bounds.cpp):
// sups of the derivatives of the N(0, sigma^2) density over a range (for the second-order chord
// bounds of a cell) and the integral of the positive part of a chord.  Internal to this folder.
#pragma once

#include <algorithm>
#include <cmath>

namespace dpagg {
namespace mg_detail {

constexpr double kSqrt2Pi = 2.50662827463100050242;

struct Range {
  double lo, hi;
};
// sup over y in [lo, hi] of |n''(y)| * sigma^4 / c0 = e^{-y^2/2s^2} |y^2 - s^2|
inline double n2_sup(Range r, double s) {
  double ymin = (r.lo <= 0 && r.hi >= 0) ? 0 : std::min(std::fabs(r.lo), std::fabs(r.hi));
  double ymax = std::max(std::fabs(r.lo), std::fabs(r.hi));
  return std::exp(-ymin * ymin / (2 * s * s)) * std::max(ymax * ymax, s * s);
}
// sup over y in [lo, hi] of |n'''(y)| * sigma^6 / c0 = e^{-y^2/2s^2} |3 y s^2 - y^3|
inline double n3_sup(Range r, double s) {
  double ymin = (r.lo <= 0 && r.hi >= 0) ? 0 : std::min(std::fabs(r.lo), std::fabs(r.hi));
  double ymax = std::max(std::fabs(r.lo), std::fabs(r.hi));
  return std::exp(-ymin * ymin / (2 * s * s)) * (3 * ymax * s * s + ymax * ymax * ymax);
}
// Integral over [0, h] of the positive part of the linear function from p to q.
inline double pos_linear_integral(double p, double q, double h) {
  if (p >= 0 && q >= 0) return h * (p + q) / 2;
  if (p <= 0 && q <= 0) return 0;
  double m = std::max(p, q);
  return h * m * m / (2 * (std::fabs(p) + std::fabs(q)));
}


}  // namespace mg_detail
}  // namespace dpagg
