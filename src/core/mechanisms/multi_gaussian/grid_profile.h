// grid_profile.h — the fast approximation of the multi-Gaussian's privacy profile that the search
// (search.cpp) drives: f on a lattice-aligned grid and the trapezoid rule on (f(. - phi) - e^eps f)_+.
// An estimate, never a bound: nothing privacy-relevant rests on it (the certifier re-proves
// whatever sigma the search proposes).  GaussLattice::approximate_sup/approximate_at (lattice.h)
// are defined in grid_profile.cpp too.  Internal to this folder.
#pragma once

#include "mechanisms/multi_gaussian/lattice.h"

namespace dpagg {
namespace mg_detail {

// The approximate sup of the profile over the shifts that matter, and where it is.  Real-valued:
// every 4th grid shift from phi = 1 down, then every shift around the best of those (the profile is
// smooth on the scale of 4 grid steps, sigma / 8); an estimate for the search, not a bound.
// `negligible` > 0: points where f is below negligible / (number of points) are left out (their
// contributions, together at most `negligible`, are in regions whose components weigh nothing:
// e.g. k >= 3 at eps = 10).
GaussLattice::Peak approx_profile_sup(double eps, int K, double sigma, int integer_shifts,
                                      double negligible = 0);

}  // namespace mg_detail
}  // namespace dpagg
