// generalized_gaussian.h — pieces of the generalized Gaussian mechanism
// (mechanisms/generalized_gaussian.cpp), exposed for tests.  Noise density proportional to
// exp(-|x/s|^p) = exp(-beta |x|^p), beta = s^-p.  Everything in units of the scale s: the
// shift is h = D/s.
#pragma once

#include "gaussian.h"  // ProfileBound

namespace dpagg {

struct GgProfile {
  double value;   // floating-point evaluation of delta(eps)
  double upper;   // certified upper bound
  double x1, x2;  // {loss >= eps} = [x1, x2] in units of s (x1 = -inf for p >= 1; both NaN if empty)
};
// Privacy profile at eps of the shift h (in units of s) for exponent p
// (docs/generalized_gaussian.md §4.2).
GgProfile gg_profile(double h, double p, double epsilon);

// The smallest scale s (to 1e-12 relative, feasible side) whose certified profile is <= delta.
double gg_scale(double p, double epsilon, double delta, double sensitivity);

// E|X| / s = Gamma(2/p)/Gamma(1/p),  E[X^2] / s^2 = Gamma(3/p)/Gamma(1/p).
double gg_l1_unit(double p);
double gg_l2_unit(double p);

}  // namespace dpagg
