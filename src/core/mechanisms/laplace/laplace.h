// laplace — noise with density exp(-|x|/b) / (2b).
//
// Privacy.  For a shift D (the sensitivity) the privacy profile of Laplace noise is
//     delta(eps) = max{0, 1 - exp((eps - D/b)/2)}
// (docs/generalized_gaussian.md §5, derived from the generalized Gaussian at p = 1, checked by
// quadrature; vector D1 there).  Hence:
//   delta = 0:  b = D/eps, the classic pure eps-DP mechanism (Dwork et al. 2006);
//   delta > 0:  b = D / (eps - 2 ln(1 - delta))  (vector D2), a little less noise.
// Conservative: b is computed in floating point, multiplied by (1 + 2^-40), and the profile is
// re-evaluated at the returned b with a rounding margin; delta_bound reports that bound.
//
// Loss: E|X| = b, E[X^2] = 2 b^2.
#pragma once

#include "mechanism.h"

namespace dpagg {

const Mechanism& laplace_mechanism();

}  // namespace dpagg
