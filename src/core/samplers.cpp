// samplers.cpp — the continuous samplers shared by mechanisms.  Both use uniform_open01(), which
// resolves every double down to 2^-1074, so their tails are cut off only beyond ~38 sigma
// (Gaussian) or ~744 b (Laplace), with probability below 2^-1000.
#include <cmath>

#include "mechanism.h"

namespace dpagg {

double sample_standard_normal(RandomSource& rng) {
  // Box-Muller: radius from a full-resolution uniform, angle from 53 bits.
  double u = rng.uniform_open01();
  double r = std::sqrt(-2.0 * std::log(u));
  double theta = 6.283185307179586476925 * rng.uniform53();
  return r * std::cos(theta);
}

double sample_laplace(double b, RandomSource& rng) {
  // A random sign times an Exp(1/b) magnitude: symmetric by construction.
  double e = -std::log(rng.uniform_open01());
  return rng.random_bit() ? b * e : -b * e;
}

}  // namespace dpagg
