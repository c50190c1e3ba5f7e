#include "math/gaussian.h"

#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "errors.h"
#include "math/scale_search.h"

namespace dpagg {

namespace {
constexpr double kSqrt1_2 = 0.70710678118654752440;
// Relative error allowed for each of the two terms of the profile.  Boost's erfc is accurate to
// a few ulps; exp(eps + log Q) loses about (eps + |log Q|) ulps.  1e-11 covers eps + |log Q| up to
// ~4e4 with a wide margin; beyond that the caller gets a larger bound below.
double term_error(double epsilon, double logq) {
  double ulps = 64.0 + 4.0 * (std::fabs(epsilon) + std::fabs(logq));
  return std::max(1e-11, ulps * std::numeric_limits<double>::epsilon());
}
}  // namespace

double erfcx_nonneg(double z) {
  if (z < 25.0) return std::exp(z * z) * boost::math::erfc(z);
  // Asymptotic series: erfcx(z) ~ 1/(z sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2 z^2)^k.
  // At z >= 25 the terms fall below 1e-17 relative after 6 terms.
  double inv2z2 = 1.0 / (2.0 * z * z);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k <= 8; ++k) {
    term *= -(2.0 * k - 1.0) * inv2z2;
    sum += term;
  }
  return sum / (z * 1.77245385090551602730);
}

namespace {
constexpr double kUlpG = std::numeric_limits<double>::epsilon();
// log Q(t) for a double t, and a bound on its absolute error: log of Boost erfc (about an ulp;
// charged 1e-13 relative) where erfc does not underflow (t / sqrt 2 < 26), else
// -z^2 + log(erfcx(z)/2), whose terms carry a few ulps of their size.  The rounding of
// t / sqrt 2 is left to the caller (the enclosures below move t by 4 ulps of |t| first).
struct LogTail {
  double value, error;
};
LogTail log_tail(double t) {
  const double z = t * kSqrt1_2;
  if (z < 26.0) {
    const double v = std::log(0.5 * boost::math::erfc(z));
    return {v, 1e-13 + 2.0 * kUlpG * (1.0 + std::fabs(v))};
  }
  const double L = -z * z + std::log(0.5 * erfcx_nonneg(z));
  return {L, 1e-13 + (8.0 + 4.0 * std::fabs(L)) * kUlpG};
}
}  // namespace

TailEnclosure log_normal_upper_tail_enclosure(double x, double ex) {
  const double slack = ex + 4.0 * kUlpG * (std::fabs(x) + ex);
  const LogTail h = log_tail(x - slack), l = log_tail(x + slack);
  return {l.value - l.error, std::min(0.0, h.value + h.error)};
}

double exp_upper(double L) {
  const double v = std::exp(L) * (1.0 + 4.0 * kUlpG * (1.0 + std::fabs(L)));
  return v < std::numeric_limits<double>::min() ? v + std::numeric_limits<double>::min() : v;
}

TailEnclosure normal_upper_tail_enclosure(double x, double ex) {
  const TailEnclosure L = log_normal_upper_tail_enclosure(x, ex);
  return {std::exp(L.lo) * (1.0 - 4.0 * kUlpG * (1.0 + std::fabs(L.lo))), std::min(1.0, exp_upper(L.hi))};
}

double normal_upper_tail(double x) { return 0.5 * boost::math::erfc(x * kSqrt1_2); }

double log_normal_upper_tail(double x) {
  double z = x * kSqrt1_2;
  if (z < 25.0) return std::log(0.5 * boost::math::erfc(z));
  return -z * z + std::log(0.5 * erfcx_nonneg(z));
}

ProfileBound gaussian_profile(double sigma, double epsilon, double sensitivity) {
  double a = epsilon * sigma / sensitivity - sensitivity / (2.0 * sigma);
  double b = epsilon * sigma / sensitivity + sensitivity / (2.0 * sigma);
  double t1 = normal_upper_tail(a);
  double logq_b = log_normal_upper_tail(b);
  double t2 = std::exp(epsilon + logq_b);
  double value = t1 - t2;
  double err = 1e-13 * t1 + term_error(epsilon, logq_b) * t2 + 1e-300;
  // The arguments a and b carry a relative rounding error of a few ulps; Q's relative
  // sensitivity to that is |x| phi(x)/Q(x) <= |x| + 1, so add (|a|+1)*8 ulps of t1.
  err += (std::fabs(a) + 1.0) * 8.0 * std::numeric_limits<double>::epsilon() * t1;
  return {value, std::max(0.0, value) + err};
}

double analytic_gaussian_sigma(double epsilon, double delta, double sensitivity) {
  // The calibration contract of scale_search.h, applied to the certified Gaussian profile.
  return smallest_feasible_scale(
      [&](double sigma) { return gaussian_profile(sigma, epsilon, sensitivity).upper; }, delta,
      sensitivity, "analytic_gaussian");
}

}  // namespace dpagg
