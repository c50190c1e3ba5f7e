// chi_moments — an independent evaluation of E||X||_2 and E||X||_2^2 for X ~ N(0, I_T), by
// quadrature of the radial density r^(T-1) exp(-r^2/2) (normalised numerically: no Gamma
// function), for checking the losses of Gaussian vector calibrations.
#pragma once

namespace dpagg_test {

struct ChiMoments {
  double mean;    // E ||X||
  double second;  // E ||X||^2 (= T)
};
ChiMoments chi_moments(int T);

}  // namespace dpagg_test
