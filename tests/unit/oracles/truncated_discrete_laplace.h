// truncated_discrete_laplace — independent evaluations for the truncated Laplace and the discrete
// Laplace (geometric) mechanisms (src/core/mechanisms/{truncated,discrete}_laplace/).
//
// Nothing here calls the core or uses the closed forms the core uses (docs/truncated_laplace.md):
// the truncated Laplace density is normalised by quadrature and its hockey-stick divergence is the
// integral of the positive part (f(x) - e^eps f(x - mu))_+ taken piece by piece by Gauss-Kronrod
// between the points where it is not smooth; the discrete Laplace pmf is normalised by summation
// and its divergence is the direct sum of (P(k) - e^eps P(k - m))_+ over the integers.  Long
// double throughout.
#pragma once

#include "oracles/hockey_stick.h"

namespace dpagg_oracle {

// H_eps(mu) = integral (f(x) - e^eps f(x - mu))_+ dx for f(x) proportional to exp(-|x|/lambda) on
// [-A, A] (and 0 outside), at the shift mu (any sign).
Quad truncated_laplace_hockey(LD lambda, LD A, LD eps, LD mu);

// E|X| and E[X^2] of that noise, by quadrature.
Quad truncated_laplace_abs_moment(LD lambda, LD A, int order);

// Its CDF, from the definition (the integral of the density written out by hand).
double truncated_laplace_cdf(double x, double lambda, double A);

// P(|X| > w) = 2 integral_w^A f, by quadrature (no cancellation near A).
LD truncated_laplace_tail(LD lambda, LD A, LD w);

// P(X = k) proportional to exp(-|k|/s), normalised by summation.
struct DiscreteLaplace {
  explicit DiscreteLaplace(LD s);
  LD pmf(long long k) const;
  LD s, norm;  // norm = sum over k of exp(-|k|/s)
  long long reach;  // |k| beyond which exp(-|k|/s) < 1e-45 norm (sums stop there)
};

// P(|X| > k) = 2 sum_{j > k} P(j), summed upwards (no cancellation).
LD discrete_laplace_tail(const DiscreteLaplace& d, long long k);

// sum over integers k of (P(k) - e^eps P(k - m))_+.
LD discrete_laplace_hockey(const DiscreteLaplace& d, LD eps, long long m);

// E|X|^order, order 1 or 2, by summation.
LD discrete_laplace_abs_moment(const DiscreteLaplace& d, int order);

}  // namespace dpagg_oracle
