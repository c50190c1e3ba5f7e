// staircase_tulap — independent evaluations for the staircase and Tulap noises: their densities,
// CDFs and moments written again from the papers' definitions, and the hockey-stick divergence of
// a piecewise-constant density by exact summation over its pieces.
//
// Independent of src/core/mechanisms/{staircase,tulap}/: nothing here calls the core.  The
// densities are those of the definitions (Geng & Viswanath 2016: the staircase density
// a(gamma) e^{-k eps} on [kD, (k+gamma)D), a(gamma) e^{-(k+1) eps} on [(k+gamma)D, (k+1)D); Awan &
// Slavkovic 2018: Tulap(0, b, 0) has density (1-b)/(1+b) b^{|round(x)|}, and Tulap(0, b, q) is it
// restricted to its central 1 - q), generalised by the weights of the two steps of a period so that
// the law a sampler draws (with its rounding margin) can be checked too.  The divergence
//     H(mu) = integral (f(x) - e^eps f(x - mu))_+ dx
// is summed over the intervals between consecutive breakpoints of f and f(. - mu), on each of which
// both densities are constant, in long double; the mass beyond the summed window is added as an
// upper bound of its contribution.
#pragma once

#include <vector>

namespace dpagg_oracle {

using LD = long double;

// A symmetric density, piecewise constant, with f(x + D) = b f(x) for x >= x0 where it is not
// truncated: the pieces of [0, x0 + D) are given explicitly; truncated to [-T, T] if T > 0.
// Each level is coef * b^exp with b = e^-eps: the divergence compares two levels through
// coef1 - coef2 e^{eps_h + (exp1 - exp2) eps}, so that levels whose ratio is exactly e^eps by
// construction (one period apart) give exactly 0 rather than rounding noise.
struct StepDensity {
  LD D;                     // the period
  LD eps;                   // b = e^-eps, the decay per period
  LD b;
  std::vector<LD> edges;    // 0 = e0 < e1 < ... < en = x0 + D: pieces on [0, x0 + D)
  std::vector<LD> levels;   // coefficient of the density on [e_i, e_{i+1}), before normalisation
  std::vector<int> lexp;    // and its power of b
  LD x0;                    // start of the periodic part (edges[] covers [0, x0 + D))
  LD T = 0;                 // truncation half-width (0: none)
};

// The staircase of step gamma with a probability p_out of the upper step within a period
// (p_out = b (1-gamma) / (gamma + b (1-gamma)) is the paper's exact staircase).
StepDensity staircase_density(LD eps, LD D, LD gamma, LD p_out);
// Tulap(0, e^-eps, 0) scaled by D, with the centre [0, D/2) weighted by (1 - p_outer) and the rest by
// p_outer relative to the untruncated law's split (p_outer < 0: the untruncated law's own split),
// truncated to [-L D, L D] if L > 0.
StepDensity tulap_density(LD eps, LD D, LD L, LD p_outer = -1);

// The normalised density at x, and the CDF, mean |X| and mean X^2 (exact sums over the pieces).
LD step_pdf(const StepDensity& s, LD x);
LD step_cdf(const StepDensity& s, LD x);
LD step_abs_mean(const StepDensity& s);
LD step_second_moment(const StepDensity& s);

// H(mu) at eps, with an upper bound of the neglected tail mass added.
LD step_hockey(const StepDensity& s, LD mu, LD eps);

// The Tulap CDF of the papers' definition (Awan & Slavkovic 2018, Definition 4.1 and the
// discrete Laplace CDF), in units of the period: Tulap(0, b, q) restricted to its central 1 - q.
double tulap_cdf(double x, double b, double q);

}  // namespace dpagg_oracle
