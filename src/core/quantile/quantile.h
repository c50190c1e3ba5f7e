// quantile — private quantiles of values counted in equal bins of [lower, upper]: the
// permute-and-flip mechanism on the bins' distances in rank from the asked quantile, sampled
// exactly.  The full argument, with its sources, is docs/quantiles.md; in short:
//
// Data.  h_j values in bin j (j = 0..B-1, B = DPAGG_QUANTILE_BINS), n = sum h_j.  Neighbouring
// data differ by one value added or removed (dpagg's neighbouring relation for every aggregate).
//
// Score.  For the quantile p, the target rank is t = p n, and bin j covers the ranks
// [A_j, A_j + h_j] with A_j = h_0 + ... + h_(j-1).  Its score is its distance from the target,
// s_j = max(A_j - t, t - A_j - h_j, 0): 0 for the bins that hold the quantile.  Adding one value to
// bin m moves t by p, the ranks of the bins above m by 1 and the top of bin m by 1, so every s_j
// moves by at most max(p, 1 - p) =: D (docs/quantiles.md §2); removing one is the same backwards.
//
// Mechanism.  Permute-and-flip (McKenna & Sheldon, "Permute-and-Flip: A new mechanism for
// differentially private selection", NeurIPS 2020, Algorithm 1 and Theorem 1): visit the bins in
// a uniformly random order and stop at the first bin whose coin, with probability
// exp(-epsilon (s_j - s_min) / (2 D)), comes up heads.  It is epsilon-DP for scores of
// sensitivity D, and its expected score is never worse than the exponential mechanism's at the
// same epsilon (their Theorem 2).  (The walk's length, and so a release's time, depends on the
// data: docs/quantiles.md §4 says what that shows.)  The answer is a uniform point of the chosen bin (independent of the data).
//
// Exactness.  p is rounded to a multiple of 2^-60 first (a parameter, not data); then t, D and
// every s_j are integers in units of 2^-60, epsilon is the rational its double is, and each
// coin exp(-gamma), gamma = epsilon (s_j - s_min) / (2 D) rational, is drawn exactly by Canonne,
// Kamath & Steinke's Bernoulli(exp(-gamma)) sampler ("The Discrete Gaussian for Differential
// Privacy", NeurIPS 2020, Algorithm 1) from uniform integers.  No floating-point number enters
// the choice, so no rounding can move a probability (the floating-point attacks on the Laplace
// mechanism, Mironov 2012, have nothing to act on).
//
// Several quantiles (dp_percentiles): each at epsilon / k exactly (basic composition), the
// answers sorted to the order of the ps (post-processing, which never increases the error of a
// monotone target: Chernozhukov, Fernandez-Val & Galichon, "Improving point and interval
// estimators of monotone functions by rearrangement", Biometrika 2009).
#pragma once

#include <cstdint>
#include <vector>

#include "random.h"

namespace dpagg {

// p as an integer multiple of 2^-60 (rounded to nearest; p in [0, 1]).
uint64_t quantile_target_units(double p);

// The scores s_j of the bins, in units of 2^-60, for the quantile P / 2^60 (exact).
std::vector<unsigned __int128> quantile_scores(const uint64_t* counts, int bins, uint64_t P);

// The chosen bin of one permute-and-flip draw at epsilon / k (k >= 1).  Where the bins form at
// most max_segments segments (a bin with values, or a run of empty bins: alike within), the walk
// goes by segment (a small group's release then costs a few steps, not 1 024); else bin by bin.
// The law is the same (tests/unit/test_quantile.cpp checks both against one oracle).
int quantile_select_bin(const uint64_t* counts, int bins, double p, double epsilon, int k,
                        RandomSource& rng, int max_segments = 64);

// The same from the occupied bins only: occ[0..m-1] strictly increasing, cnt[i] values in bin
// occ[i] (how a small group is kept).
int quantile_select_sparse(const int* occ, const uint64_t* cnt, int m, int bins, double p,
                           double epsilon, int k, RandomSource& rng, int max_segments = 64);

// Bernoulli(exp(-num/den)), exact (num >= 0, den > 0): as a release draws it (on 128-bit
// integers where num and den are below 2^120, going on in rational arithmetic when den * K
// outgrows them), and wholly in rational arithmetic (for the tests to compare).
bool bernoulli_exp_neg(unsigned __int128 num, unsigned __int128 den, RandomSource& rng);
bool bernoulli_exp_neg_rational(unsigned __int128 num, unsigned __int128 den, RandomSource& rng);

// One release of k quantiles (each at epsilon / k); answers sorted to the order of ps.  counts
// is the dense histogram (m < 0), or the m >= 0 counts of the occupied bins occ[0..m-1].
std::vector<double> release_quantiles(const uint64_t* counts, double lower, double upper,
                                      const std::vector<double>& ps, double epsilon,
                                      RandomSource& rng, const int* occ = nullptr, int m = -1);

// The same over the cells first..last of the grid of automatic bounds (dpagg_bounds.h):
// cells[0..m-1] strictly increasing, counts[i] values in cells[i]; a cell outside the range counts
// in the nearer end cell.  Each answer is a uniform point of its chosen cell
// (docs/automatic_bounds.md, "Quantiles").
std::vector<double> release_quantiles_cells(const int* cells, const uint64_t* counts, int m,
                                            int first, int last, const std::vector<double>& ps,
                                            double epsilon, RandomSource& rng);

void check_quantile_parameters(const double* ps, int k, double epsilon, double lower,
                               double upper);

}  // namespace dpagg
