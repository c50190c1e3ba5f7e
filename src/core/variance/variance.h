// variance.h — private variances and standard deviations from three noisy sums (the full argument
// is docs/variance.md; the C interface is dpagg_variance.h).
//
// Privacy.  Each value is clamped to [lower, upper] and centred, y = x - m in [-B, B].  Adding or
// removing one value changes the centred sum of squares sum(y^2 - B^2/2) by at most B^2/2, the
// centred sum sum(y) by at most B and the count by 1.  Each sum is released by the call's
// mechanism calibrated for that sensitivity at a share (eps_i, delta_i) of the call's budget, the
// shares adding up to less than (epsilon, delta): by basic composition the three releases are
// (epsilon, delta)-DP together, and the answer, computed from them alone, is post-processing.
//
// The split.  With noise whose scale is proportional to 1/eps_i, the variance's error is to first
// order sum_i (c_i s_i / eps_i)^2 times a constant, s_i the sensitivities and c_i the answer's
// derivatives, which depend on the data's mean and variance relative to the bounds.  Averaged over
// every feasible (mean, variance) of values in [-B, B] (uniformly), E[(c_i s_i)^2] is (n B^2)^-2
// times 1/4 (squares), 4/5 (sum) and 1/4 (count), and the average error is least for eps_i in
// proportion to the cube roots: 0.287886, 0.424228, 0.287886 (docs/variance.md, "The split").
#pragma once

#include "dpagg_variance.h"

namespace dpagg {

// The shares of the call's epsilon and delta, in the order of the parts (squares, sum, count):
// the optimum above rounded down to six digits, so that they add up to 0.999997 < 1.
constexpr double kVarianceShares[DPAGG_VARIANCE_PARTS] = {0.287885, 0.424227, 0.287885};

// The plan of one call (throws Error(DPAGG_INVALID_PARAMETER) for unusable bounds).
dpagg_variance_plan variance_plan(double epsilon, double delta, double lower, double upper);

// The answer from the noisy parts; false for NULL (see dpagg_variance_estimate).
bool variance_estimate(const dpagg_variance_plan& plan, int form, double squares, double sum,
                       double count, double* out);

void variance_interval(const dpagg_variance_plan& plan, int form, double squares, double sum,
                       double count, const double* w, double* lo, double* hi);

}  // namespace dpagg
