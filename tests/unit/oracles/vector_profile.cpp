// vector_profile.cpp — see vector_profile.h.
#include "oracles/vector_profile.h"

#include <boost/math/distributions/gamma.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dpagg_oracle {

// Brute force, independent of (S1) (docs/generalized_gaussian.md §2.1): the hockey-stick
// divergence of the T = 2 l2 mechanism, integral over the plane of (f(x) - e^eps f(x - mu))_+,
// f(x) = e^{-|x|/theta} / (2 pi theta^2), by the midpoint rule in polar coordinates (n x n cells,
// rho up to 60 theta).
double brute_force_l2_T2(double theta, double s, double eps, int n) {
  const double E = std::exp(eps), rmax = 60 * theta, pi = 3.14159265358979323846;
  long double total = 0;
  for (int i = 0; i < n; ++i) {
    double c = std::cos((i + 0.5) * pi / n);
    long double row = 0;
    for (int j = 0; j < n; ++j) {
      double r = (j + 0.5) * rmax / n;
      double d = std::sqrt(r * r - 2 * r * s * c + s * s);
      double v = std::exp(-r / theta) - E * std::exp(-d / theta);
      if (v > 0) row += v * r;
    }
    total += row;
  }
  return static_cast<double>(total * (pi / n) * (rmax / n) * 2 / (2 * pi * theta * theta));
}

// (S1) for the l2 mechanism by adaptive Gauss-Kronrod over the radius (a different code path
// from the certified bins): the w* closed form written out again here.
double s1_quadrature_l2(int T, double theta, double s, double eps) {
  const double aw = (T - 1) / 2.0;
  auto FW = [&](double w) {
    if (w <= -1) return 0.0;
    if (w >= 1) return 1.0;
    return boost::math::ibeta(aw, aw, (w + 1) / 2);
  };
  auto wstar = [&](double r, double y) {
    double t = r - y * theta;
    if (t < 0) return -2.0;
    return (t * t - r * r - s * s) / (2 * s * r);
  };
  boost::math::gamma_distribution<double> R(T, theta);
  auto integrand = [&](double r) {
    if (r <= 0) return 0.0;
    return boost::math::pdf(R, r) * ((1 - FW(wstar(r, -eps))) - std::exp(eps) * FW(wstar(r, eps)));
  };
  double err = 0;
  double hi = boost::math::quantile(boost::math::complement(R, 1e-16));
  // Split at the kinks of w* (r = eps theta) and at a few quantiles for accuracy.
  std::vector<double> cuts = {0, std::min(eps * theta, hi)};
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.99}) cuts.push_back(boost::math::quantile(R, q));
  cuts.push_back(hi);
  std::sort(cuts.begin(), cuts.end());
  double total = 0;
  for (size_t i = 0; i + 1 < cuts.size(); ++i)
    if (cuts[i + 1] > cuts[i])
      total += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(integrand, cuts[i], cuts[i + 1], 15, 1e-13, &err);
  return std::max(0.0, total);
}

}  // namespace dpagg_oracle
