// quasi_gaussian.h — calibration pieces of the quasi-Gaussian mechanism, exposed for tests.
// All at sensitivity D = 1 (the mechanism is scale-equivariant: multiply sigma by D).
#pragma once

namespace dpagg {

struct QuasiCalibration {
  double sigma;   // the certified sigma: both conditions of Theorem 4.2 hold here
  double sigma1;  // root of the tail condition (0 when e^eps + 2 >= 1/delta)
  double sigma2;  // first sigma where the density-ratio condition holds
};
QuasiCalibration quasi_gaussian_calibrate(double eps, double delta);

struct QuasiLosses {
  double l1, l2;
};
QuasiLosses quasi_gaussian_losses(double eps, double sigma);

// Condition (a) holds at sigma, with rounding margin.
bool quasi_tail_condition(double sigma, double eps, double delta);
// An upper bound on log(max f / min f) over [0, 1] (condition (b) is this <= eps).
double quasi_log_ratio_upper(double sigma, double eps);

}  // namespace dpagg
