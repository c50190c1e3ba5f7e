// noise_cdf.cpp — see noise_cdf.h.
#include "oracles/noise_cdf.h"

#include <boost/math/special_functions/gamma.hpp>

#include <cmath>
#include <cstdlib>

namespace dpagg_oracle {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double laplace_cdf(double x, double b) {
  return x < 0 ? 0.5 * std::exp(x / b) : 1.0 - 0.5 * std::exp(-x / b);
}

double osgt_cdf(double y, double sigma, double r) {
  const double m = r * sigma, tail2 = std::erfc(r / std::sqrt(2.0));  // 2 Q(r)
  if (y <= 0) return 0.5 * std::erfc((m - y) / sigma / std::sqrt(2.0)) / tail2;
  return 1.0 - 0.5 * std::erfc((m + y) / sigma / std::sqrt(2.0)) / tail2;
}

double gg_cdf(double x, double s, double p) {
  const double a = boost::math::gamma_p(1.0 / p, std::pow(std::fabs(x) / s, p)) / 2;
  return x < 0 ? 0.5 - a : 0.5 + a;
}

double quasi_cdf(double x, double eps, double s, double D) {
  auto Phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  const double ee = std::exp(eps), den = ee + 2 * Phi(D / s);
  if (x < 0) return (ee * Phi(x / s) + Phi((x + D) / s)) / den;
  return (ee * Phi(x / s) + Phi((x - D) / s) + Phi(D / s) - Phi(-D / s)) / den;
}

double multi_cdf(double x, double eps, int K, double s, double D) {
  double S = 0, F = 0;
  for (int k = -K; k <= K; ++k) {
    double w = std::exp(-std::abs(k) * eps);
    S += w;
    F += w * 0.5 * std::erfc(-(x - k * D) / (s * std::sqrt(2.0)));
  }
  return F / S;
}

}  // namespace dpagg_oracle
