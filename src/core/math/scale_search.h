// scale_search.h — the one root-finding contract shared by the calibrations of pdp_gaussian,
// osgt and generalized_gaussian (docs/README.md §2, "The calibration contract"): given a certified
// upper bound U(s) of a privacy profile that is non-increasing in the noise scale s, return the
// smallest scale (to a relative 1e-12) whose bound is <= delta, always from the feasible side.
#pragma once

#include <functional>

namespace dpagg {

// `upper(s)` must be a rigorous upper bound of the profile at scale s (it may be +infinity where
// it cannot be evaluated).  `start` is any positive guess.  The bracket grows by factors of 2 in
// log scale; TOMS 748 narrows it to 1e-12 in log s; the feasible end is returned, re-checked, and
// stepped up by 1e-15 relative until upper(s) <= delta holds at the very double returned.
// Throws Error(DPAGG_INTERNAL) naming `who` if no feasible scale is found (at most 2^2000 times
// start) and Error(DPAGG_CANCELED) on interrupt.
double smallest_feasible_scale(const std::function<double(double)>& upper, double delta,
                               double start, const char* who);

}  // namespace dpagg
