// quantile_pf — an independent evaluation of the quantile mechanism's output law
// (src/core/quantile/quantile.h), for tests: the scores from their definition (in long double,
// from the sorted ranks, not from the core's integer code), and the law of permute-and-flip by a
// different route than the core's sampler: flipping every coin at once, the first heads in a
// uniform order is a uniform member of the set of heads (McKenna & Sheldon 2020), so
//   P(j) = q_j E[1 / (1 + X_j)],  X_j = the number of heads among the other bins,
// with X_j's law (a Poisson binomial) by convolution.
#pragma once

#include <cstdint>
#include <vector>

namespace dpagg_test {

// The score of each bin for the quantile p (distance in rank from p n).
std::vector<long double> quantile_scores_oracle(const std::vector<uint64_t>& counts, long double p);

// P(bin j) for permute-and-flip at epsilon with scores of sensitivity max(p, 1 - p).
std::vector<long double> quantile_pf_law(const std::vector<uint64_t>& counts, long double p,
                                         long double epsilon);

// The same law for many bins, by classes of equal score: {score, number of bins, P(one bin of
// the class)}, in increasing score.  The heads among the other bins are a sum of binomials, one
// per class.
struct QuantileClass {
  long double score;
  int bins;
  long double p_bin;
};
std::vector<QuantileClass> quantile_pf_law_by_class(const std::vector<uint64_t>& counts, long double p,
                                                   long double epsilon);

}  // namespace dpagg_test
