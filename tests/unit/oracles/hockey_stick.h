// hockey_stick — the hockey-stick divergence of additive noise by numerical quadrature.
//
//     delta_S(eps) = integral of (p(x - S) - e^eps p(x))_+ dx
//
// Independent of every production certificate (src/core/math/gaussian.cpp, the mechanisms'
// profile bounds): the density enters only as a (log-)density function in long double, the
// region where the integrand is positive is located numerically (bisection on the privacy loss,
// or a grid scan for sign changes when the loss need not be monotone), and the integral is taken
// by Boost's Gauss-Kronrod, tanh-sinh and exp-sinh rules — no closed form for a tail probability
// is used.
#pragma once

#include <functional>
#include <vector>

namespace dpagg_oracle {

using LD = long double;

// Noise whose privacy loss l(x) = log p(x - S) - log p(x) is non-decreasing in x, so that
// {l > eps} is a half-line.
struct LossModel {
  std::function<LD(LD)> log_p;  // log density of the unshifted noise
  std::function<LD(LD)> llr;    // l(x) = log p(x - S) - log p(x), non-decreasing in x
  LD shift;                     // S
  LD scale;                     // a length scale of p (for brackets and the variable change)
  std::vector<LD> kinks;        // points where the integrand is not smooth
};

struct Quad {
  LD value;
  LD err;  // the quadrature routines' own error estimates, summed
};

// delta_S(eps) = integral over {l > eps} of p(x - S) (1 - e^{eps - l(x)}) dx, the threshold of l
// located by bisection.
Quad hockey_stick(const LossModel& m, LD eps);

// N(0, sigma^2) noise and Laplace(b) noise at shift `sens`, through hockey_stick.
Quad gaussian_delta_quad(double sigma, double eps, double sens);
Quad laplace_delta_quad(double b, double eps, double sens);

// Brute force, for noise whose privacy loss need not be monotone (osgt, generalized_gaussian with
// p < 1): delta_S(eps) for the normalised log-density log_p, integrated over the pieces where the
// integrand is positive.  Those pieces are found by scanning a grid of 12000 points over [-W, W]
// (geometric away from 0, S/2 and S, first step 1e-9 S) for sign changes of
// g(x) = ln p(x - S) - ln p(x) - eps (refined by bisection), with 0 and S as breakpoints; finite
// pieces by tanh-sinh, pieces reaching +-infinity by exp-sinh.
Quad brute_hockey(const std::function<LD(LD)>& log_p, LD S, LD eps, LD W);

// Normalised log-densities, written from the definitions (std::erfc, std::lgamma for the
// normalisers): OSGT noise of scale sigma and shape r (docs/osgt.md §1), and generalized Gaussian
// noise p / (2 s Gamma(1/p)) exp(-|x/s|^p) (docs/generalized_gaussian.md §4.1).
std::function<LD(LD)> osgt_log_density(LD sigma, LD r);
std::function<LD(LD)> gg_log_density(LD s, LD p);

}  // namespace dpagg_oracle
