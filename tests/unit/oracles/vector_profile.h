// vector_profile — the privacy profile of the l2 mechanism (vector releases) evaluated two ways
// that share no code with src/core/mechanisms/l2/l2.cpp, whose certified bound bins the radius of (S1)
// (docs/generalized_gaussian.md §2.1):
//   * brute_force_l2_T2: for T = 2, the hockey-stick integral over the plane by the midpoint rule in
//     polar coordinates, straight from the density (no (S1) at all);
//   * s1_quadrature_l2: (S1) itself, with its w* closed form written out again here, integrated by
//     adaptive Gauss-Kronrod over the radius (Boost's gamma distribution and incomplete beta).
#pragma once

namespace dpagg_oracle {

// delta(eps) of the T = 2 l2 mechanism with scale theta at shift s, on an n x n polar grid.
double brute_force_l2_T2(double theta, double s, double eps, int n);

// delta(eps) of the T-dimensional l2 mechanism with scale theta at shift s, through (S1).
double s1_quadrature_l2(int T, double theta, double s, double eps);

}  // namespace dpagg_oracle
