// vector.h — vector releases: several sums over the same rows released together, each row's
// vector clipped to an l2-norm bound D, so that adding or removing a row moves the vector of sums
// by at most D in l2 norm.  Privacy arguments: docs/generalized_gaussian.md §2-3.
//
// Two noise distributions, both spherically symmetric in R^T:
//  * gaussian: N(0, sigma^2 I_T).  Its privacy profile depends only on ||shift|| / sigma, so the
//    analytic (Balle-Wang) sigma for sensitivity D is exact in every dimension (gaussian.h).
//    Recommended as T grows (Wei, Bienstock & Polychroniadou, "Asymptotic Optimality of the
//    High-Dimensional Gaussian Mechanism and Improved Low-Dimensional Mechanisms for Differential
//    Privacy", ICML 2026, Theorem 3.1).  E||X||^2 = T sigma^2.
//  * l2 (the "l2 mechanism", SGG(alpha = T-1, p = 1)): density proportional to exp(-||x|| / theta).
//    Pure epsilon-DP at theta = D / epsilon (triangle inequality).  With delta > 0 a smaller theta
//    is private; dpagg certifies it with the exact profile (S1) of Wei, Bienstock &
//    Polychroniadou's Lemma 4.1, bounded from above with monotone bins (vector.cpp).
//    E||X||^2 = T (T + 1) theta^2.
// At T = 1 the l2 mechanism is the Laplace mechanism.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "random.h"

namespace dpagg {

enum class VectorKind { kGaussian = 0, kL2 = 1 };

struct VectorCalibration {
  VectorKind kind;
  int dimension;
  double epsilon, delta, sensitivity;  // sensitivity: the l2 bound used (release allowance included)
  double scale;                        // sigma (gaussian) or theta (l2)
  double mse;                          // E ||X||_2^2
  double delta_bound;                  // certified upper bound of the privacy profile at epsilon
};

// The exact privacy profile delta(epsilon) of SGG(alpha = T - 1, beta, p) for a shift of l2 norm
// s, p in {1, 2}, T >= 2 ((S1) of docs/generalized_gaussian.md §2.1), as a certified interval
// [lower, upper]: the integral over the radius is bounded on bins where both integrands are
// monotone, refined until upper - lower <= tolerance or max_bins is reached; tails and rounding
// are charged to `upper`.
struct SggBound {
  double lower, upper;
  int bins;
};
SggBound sgg_profile(int T, double p, double beta, double s, double epsilon, double tolerance,
                         int max_bins = 200000);

// The l2 mechanism's theta: D / epsilon if delta == 0, else the smallest theta (to ~1e-4
// relative) whose certified profile bound is <= delta, never above D / epsilon.
double l2_mechanism_theta(int T, double epsilon, double delta, double D, double* delta_bound);

// The canonical mechanism name: lower case, trimmed, "auto" for none.
std::string vector_mechanism_name(const char* mechanism);

// Refuse bad input (dpagg::invalid): mechanism (lower case) "gaussian", "l2" or "auto".
void vector_validate(const std::string& mechanism, int dimension, double epsilon, double delta,
                     double l2_bound);

// Calibrate: mechanism "gaussian", "l2" or "auto" (least mse).  D must already include the
// release allowance (vector_release_sensitivity).  Throws dpagg::Error on bad input.
VectorCalibration vector_calibrate(const char* mechanism, int dimension, double epsilon,
                                   double delta, double D);

// D (1 + sqrt(T) 2^-29): covers the snapping of each coordinate to the release grid and the
// rounding of each row's clipped coordinates to the accumulation quantum.
double vector_release_sensitivity(double D, int dimension);

// One draw of the noise vector.
void vector_sample(const VectorCalibration& cal, RandomSource& rng, double* out);

// Release sums quanta[j] * quantum + noise, both snapped to the release grid, per coordinate.
void vector_release(const VectorCalibration& cal, const __int128* quanta, double quantum,
                    RandomSource& rng, double* out);

}  // namespace dpagg
