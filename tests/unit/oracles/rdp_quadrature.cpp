// rdp_quadrature.cpp — see rdp_quadrature.h.
#include "oracles/rdp_quadrature.h"

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <cmath>
#include <utility>

#include "math/gaussian.h"

namespace dpagg_oracle {

// D_alpha by quadrature of f^alpha g^(1-alpha) in log space, OSGT density with the corrected
// normaliser S = 2 sqrt(2 pi) sigma Q(r).
double rdp_quadrature(double alpha, double m, double sigma, double d) {
  const double logS = std::log(2 * std::sqrt(2 * M_PI) * sigma) + dpagg::log_normal_upper_tail(m / sigma);
  auto logf = [&](double y) { double t = std::fabs(y) + m; return -t * t / (2 * sigma * sigma) - logS; };
  auto integrand = [&](double y) { return std::exp(alpha * logf(y) + (1 - alpha) * logf(y - d)); };
  double err = 0, total = 0;
  const double lim = 60 * sigma + alpha * d * 4;
  for (auto [a, b] : {std::pair<double, double>{-lim, 0}, {0, d}, {d, lim}})
    total += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(integrand, a, b, 20, 1e-14, &err);
  return std::log(total) / (alpha - 1);
}

}  // namespace dpagg_oracle
