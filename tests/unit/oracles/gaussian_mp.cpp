// gaussian_mp.cpp — see gaussian_mp.h.
#include "oracles/gaussian_mp.h"

#include <boost/math/special_functions/erf.hpp>

namespace dpagg_oracle {

mp gaussian_delta_mp(double sigma_d, double eps_d, double sens_d) {
  const mp sigma = sigma_d, eps = eps_d, sens = sens_d;
  const mp sqrt2 = boost::multiprecision::sqrt(mp(2));
  const mp u = sens / (2 * sigma), v = eps * sigma / sens;
  auto Phi = [&](const mp& x) { return boost::math::erfc(-x / sqrt2) / 2; };
  return Phi(u - v) - boost::multiprecision::exp(eps) * Phi(-u - v);
}

mp normal_upper_tail_mp(double x) {
  return boost::math::erfc(mp(x) / boost::multiprecision::sqrt(mp(2))) / 2;
}

mp pdp_delta_mp(double sigma_d, double eps_d, double sens_d) {
  const mp sigma = sigma_d, eps = eps_d, sens = sens_d;
  const mp mean = sens * sens / (2 * sigma * sigma), sd = sens / sigma;
  const mp sqrt2 = boost::multiprecision::sqrt(mp(2));
  auto cdf = [&](const mp& x) { return boost::math::erfc(-(x - mean) / (sd * sqrt2)) / 2; };
  auto sf = [&](const mp& x) { return boost::math::erfc((x - mean) / (sd * sqrt2)) / 2; };
  return sf(eps) + cdf(-eps);
}

}  // namespace dpagg_oracle
