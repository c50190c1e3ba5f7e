// gaussian_mp — the Gaussian mechanism's privacy profiles in 50 significant digits.
//
// Independent of the production path (src/core/math/gaussian.cpp, which evaluates the profile in
// double with an explicit rounding-error bound): written again from the formulas of
// docs/gaussian_rules.md in boost::multiprecision::cpp_bin_float_50 with Boost's multiprecision
// erfc, arranged so that no term cancels, and with no bound of its own (at 50 digits the value is
// exact for every comparison the tests make).
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>

namespace dpagg_oracle {

using mp = boost::multiprecision::cpp_bin_float_50;

// (G1) of docs/gaussian_rules.md: delta(eps) of N(0, sigma^2) noise for sensitivity `sens`,
//     Phi(sens/(2 sigma) - eps sigma/sens) - e^eps Phi(-sens/(2 sigma) - eps sigma/sens),
// Phi(x) = erfc(-x/sqrt 2)/2 (each Phi by erfc of the argument's own sign: no cancellation).
mp gaussian_delta_mp(double sigma, double eps, double sens);

// Q(x) = P(N(0, 1) > x) = erfc(x/sqrt 2)/2.
mp normal_upper_tail_mp(double x);

// The probabilistic-DP profile of the Gaussian (docs/gaussian_rules.md §7): P[|L| > eps] for the
// privacy loss L ~ N(sens^2/(2 sigma^2), sens^2/sigma^2), by the normal CDF of L itself (not the
// core's Q(a) + Q(b) arrangement).
mp pdp_delta_mp(double sigma, double eps, double sens);

}  // namespace dpagg_oracle
