// osgt.h — pieces of the offset-symmetric Gaussian tails mechanism (mechanisms/osgt.cpp),
// exposed for tests.  Shape r = m/sigma (m the offset); sensitivity D.
#pragma once

#include "gaussian.h"  // ProfileBound

namespace dpagg {

// The exact privacy profile of Sadeghi & Korki 2021, Theorem 1 (eq. (O1) of docs/osgt.md §3) at
// epsilon for OSGT noise with scale sigma and offset m = r sigma; `upper` is a certified upper
// bound (rounding included).
ProfileBound osgt_profile(double sigma, double r, double epsilon, double sensitivity);

// The smallest sigma (to 1e-12 relative, feasible side) whose certified profile is <= delta.
double osgt_sigma(double r, double epsilon, double delta, double sensitivity);

// E|Y| / sigma = lambda(r) - r and Var Y / sigma^2 = 1 + r^2 - r lambda(r), lambda(r) = phi(r)/Q(r).
double osgt_l1_unit(double r);
double osgt_l2_unit(double r);

}  // namespace dpagg
