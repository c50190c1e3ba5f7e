// noise_cdf — the CDF of every noise law dpagg samples, for the goodness-of-fit (KS) tests of the
// samplers.
//
// Independent of the production samplers and densities (src/core/samplers.cpp and each
// mechanism's sample()): each CDF is written again from the distribution's definition (the
// documents cited below) with std::erfc or Boost's regularised incomplete gamma; none calls the
// core.
#pragma once

namespace dpagg_oracle {

// N(0, 1) and Laplace(b) (density e^{-|x|/b} / (2b)).
double normal_cdf(double x);
double laplace_cdf(double x, double b);

// OSGT noise of scale sigma and shape r (docs/osgt.md §1): |Y| = sigma (Z - r) given Z > r,
// Z ~ N(0, 1), with a fair sign.
double osgt_cdf(double y, double sigma, double r);

// Generalized Gaussian, density p / (2 s Gamma(1/p)) exp(-|x/s|^p) (docs/generalized_gaussian.md
// §4.1).
double gg_cdf(double x, double s, double p);

// The quasi-Gaussian mixture (docs/mixtures.md §3.2) and the K-modal multi-Gaussian mixture
// (docs/mixtures.md §2.2), sensitivity D.
double quasi_cdf(double x, double eps, double s, double D);
double multi_cdf(double x, double eps, int K, double s, double D);

}  // namespace dpagg_oracle
