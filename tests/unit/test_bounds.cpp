// Tests of automatic bounds' core (src/core/bounds/dpagg_bounds.h, docs/automatic_bounds.md): the
// bins of magnitudes (every value within its bin's edges, the bins contiguous and in order), the
// threshold (the least that keeps every empty bin below it with probability 1 - beta, and that
// probability measured two-sided on simulated noise), and the choice of bounds.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <boost/math/distributions/binomial.hpp>

#include "bounds/dpagg_bounds.h"
#include "test_support.h"

namespace {

double clamp_top(double x) {
  const double top = std::ldexp(1.0, DPAGG_BOUNDS_KMAX + 1);
  return x > top ? top : x < -top ? -top : x;
}

TEST(Bounds, EveryValueLiesWithinItsBinAndTheBinsAreInOrder) {
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> e(-1100, 1100);
  std::vector<double> xs = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, -1.0, 0x1p-32, -0x1p-32,
                            0x1p-33, 0x1p62, 0x1p63, -0x1p63, 9.2e18, -9.3e18, 1e308, -1e308,
                            4.9e-324};
  for (int i = 0; i < 200000; ++i) xs.push_back((g() & 1 ? 1 : -1) * std::pow(2.0, e(g) / 10));
  for (double x : xs) {
    const int j = dpagg_bounds_bin(x);
    ASSERT_GE(j, 0);
    ASSERT_LT(j, DPAGG_BOUNDS_BINS);
    if (std::isnan(x)) {
      EXPECT_EQ(j, DPAGG_BOUNDS_ZERO);
      continue;
    }
    double lo, hi;
    dpagg_bounds_bin_edges(j, &lo, &hi);
    const double c = clamp_top(x);
    ASSERT_LE(lo, c) << x;
    ASSERT_LE(c, hi) << x;
  }
  // monotone in x
  std::vector<double> sorted;
  for (double x : xs)
    if (!std::isnan(x)) sorted.push_back(x);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    ASSERT_LE(dpagg_bounds_bin(sorted[i - 1]), dpagg_bounds_bin(sorted[i])) << sorted[i - 1] << " " << sorted[i];
  // contiguous: each bin starts where the one before it ends; each is reached by its lower edge
  for (int j = 1; j < DPAGG_BOUNDS_BINS; ++j) {
    double a, b, c, d;
    dpagg_bounds_bin_edges(j - 1, &a, &b);
    dpagg_bounds_bin_edges(j, &c, &d);
    EXPECT_EQ(b, c) << j;
    EXPECT_LT(c, d) << j;
    if (j > DPAGG_BOUNDS_ZERO) EXPECT_EQ(dpagg_bounds_bin(c), j);
  }
  EXPECT_EQ(DPAGG_BOUNDS_BINS, 191);
}

TEST(Bounds, TheThresholdIsTheLeastThatKeepsEmptyBinsOut) {
  for (double s : {0.5, 1.0, 3.7, 10.0, 100.0, 1e4}) {
    for (double beta : {1e-9, 1e-6, 1e-3, 0.1, 0.5}) {
      double t;
      dpagg_error err;
      ASSERT_EQ(dpagg_bounds_threshold(s, beta, &t, &err), DPAGG_OK);
      const long double p = std::exp(-1.0L / s);
      auto chance = [&](double tt) { return DPAGG_BOUNDS_BINS * std::pow(p, (long double)tt) / (1 + p); };
      EXPECT_LE(chance(t), beta) << s << " " << beta;
      if (t > 1) EXPECT_GT(chance(t - 1), beta) << s << " " << beta;
      EXPECT_EQ(t, std::floor(t));
    }
  }
  double t;
  dpagg_error err;
  EXPECT_EQ(dpagg_bounds_threshold(0, 1e-9, &t, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_bounds_threshold(INFINITY, 1e-9, &t, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_bounds_threshold(1, 0, &t, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_bounds_threshold(1, 1, &t, &err), DPAGG_INVALID_PARAMETER);
}

// Simulated discrete Laplace noise (the difference of two geometric variables) on an empty
// histogram: how often some bin reaches the threshold, against its exact chance
// 1 - (1 - p^t/(1 + p))^BINS, by an exact two-sided binomial test at 1e-6.
TEST(Bounds, EmptyBinsReachTheThresholdAsOftenAsTheArgumentSays) {
  std::mt19937_64 g(9);
  const double s = 2.0, beta = 0.3;
  double t;
  dpagg_error err;
  ASSERT_EQ(dpagg_bounds_threshold(s, beta, &t, &err), DPAGG_OK);
  const double p = std::exp(-1.0 / s);
  std::geometric_distribution<long> geo(1 - p);  // P(G = k) = (1 - p) p^k
  const int trials = 40000;
  int hits = 0;
  std::vector<double> noisy(DPAGG_BOUNDS_BINS);
  for (int i = 0; i < trials; ++i) {
    for (double& v : noisy) v = static_cast<double>(geo(g) - geo(g));
    double lo, hi;
    if (dpagg_bounds_choose(noisy.data(), t, &lo, &hi)) ++hits;
  }
  const double q = 1 - std::pow(1 - std::pow(p, t) / (1 + p), DPAGG_BOUNDS_BINS);
  EXPECT_LE(q, beta);
  const boost::math::binomial_distribution<double> law(trials, q);
  const double lower = boost::math::cdf(law, hits), upper = boost::math::cdf(boost::math::complement(law, hits - 1));
  EXPECT_GT(std::min(lower, upper), 1e-6) << hits << " hits, " << q * trials << " expected";
}

TEST(Bounds, TheBoundsSpanTheBinsThatReachTheThresholdAndContainZero) {
  std::vector<double> noisy(DPAGG_BOUNDS_BINS, 0.0);
  double lo, hi;
  // nothing reaches: the zero bin's edges, and 0 returned
  EXPECT_EQ(dpagg_bounds_choose(noisy.data(), 5, &lo, &hi), 0);
  EXPECT_EQ(lo, -0x1p-32);
  EXPECT_EQ(hi, 0x1p-32);
  // salaries: bins of 2^15 and 2^17 (values in [32768, 65536) and [131072, 262144))
  noisy[dpagg_bounds_bin(40000)] = 50;
  noisy[dpagg_bounds_bin(150000)] = 7;
  noisy[dpagg_bounds_bin(3e6)] = 4;  // below the threshold: clamped away
  EXPECT_EQ(dpagg_bounds_choose(noisy.data(), 5, &lo, &hi), 1);
  EXPECT_EQ(lo, 0);  // widened to 0: small values are not pushed up
  EXPECT_EQ(hi, 262144);
  // both signs
  noisy[dpagg_bounds_bin(-0.3)] = 9;
  EXPECT_EQ(dpagg_bounds_choose(noisy.data(), 5, &lo, &hi), 1);
  EXPECT_EQ(lo, -0.5);
  EXPECT_EQ(hi, 262144);
  // only negative values: the upper bound widened to 0
  std::fill(noisy.begin(), noisy.end(), 0.0);
  noisy[dpagg_bounds_bin(-1000)] = 100;
  EXPECT_EQ(dpagg_bounds_choose(noisy.data(), 5, &lo, &hi), 1);
  EXPECT_EQ(lo, -1024);
  EXPECT_EQ(hi, 0);
}

}  // namespace

namespace {

TEST(Bounds, EveryValueLiesWithinItsCellTheCellsAreInOrderAndEachInItsBin) {
  std::mt19937_64 g(2);
  std::uniform_real_distribution<double> e(-1100, 1100);
  std::vector<double> xs = {0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0, 1.03125, -1.03125,
                            1.0312499, 0x1p-32, -0x1p-32, 0x1p-33, 0x1p62, 0x1p63, -0x1p63,
                            9.2e18, -9.3e18, 1e308, -1e308, 4.9e-324, 1.96875, 1.9999999};
  for (int i = 0; i < 200000; ++i) xs.push_back((g() & 1 ? 1 : -1) * std::pow(2.0, e(g) / 10));
  for (double x : xs) {
    const int c = dpagg_bounds_cell(x);
    ASSERT_GE(c, 0);
    ASSERT_LT(c, DPAGG_BOUNDS_CELLS);
    double lo, hi;
    dpagg_bounds_cell_edges(c, &lo, &hi);
    const double v = clamp_top(x);
    ASSERT_LE(lo, v) << x;
    ASSERT_LE(v, hi) << x;
    // the cell's bin is the value's bin of magnitude (NaN aside: bins count it as 0)
    ASSERT_EQ(dpagg_bounds_cell_bin(c), dpagg_bounds_bin(x)) << x;
    // relative width at most 1/SUB (the zero cell aside)
    if (c != DPAGG_BOUNDS_ZERO_CELL) ASSERT_LE(hi - lo, std::fabs(v) / DPAGG_BOUNDS_SUB + 1e-300) << x;
  }
  EXPECT_EQ(dpagg_bounds_cell(NAN), DPAGG_BOUNDS_CELLS - 1);
  EXPECT_EQ(dpagg_bounds_cell(INFINITY), DPAGG_BOUNDS_CELLS - 1);
  EXPECT_EQ(dpagg_bounds_cell(-INFINITY), 0);
  std::vector<double> sorted;
  for (double x : xs) sorted.push_back(x);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    ASSERT_LE(dpagg_bounds_cell(sorted[i - 1]), dpagg_bounds_cell(sorted[i])) << sorted[i - 1] << " " << sorted[i];
  for (int c = 1; c < DPAGG_BOUNDS_CELLS; ++c) {
    double a, b, lo, hi;
    dpagg_bounds_cell_edges(c - 1, &a, &b);
    dpagg_bounds_cell_edges(c, &lo, &hi);
    ASSERT_EQ(b, lo) << c;
    ASSERT_LT(lo, hi) << c;
    if (c > DPAGG_BOUNDS_ZERO_CELL) ASSERT_EQ(dpagg_bounds_cell(lo), c) << c;
    if (c < DPAGG_BOUNDS_ZERO_CELL) ASSERT_EQ(dpagg_bounds_cell(hi), c) << c;
  }
  // each bin's cells: contiguous, and together the bin
  int next = 0;
  for (int j = 0; j < DPAGG_BOUNDS_BINS; ++j) {
    int first, last;
    dpagg_bounds_bin_cells(j, &first, &last);
    ASSERT_EQ(first, next) << j;
    for (int c = first; c <= last; ++c) ASSERT_EQ(dpagg_bounds_cell_bin(c), j) << c;
    double blo, bhi, clo, chi, dlo, dhi;
    dpagg_bounds_bin_edges(j, &blo, &bhi);
    dpagg_bounds_cell_edges(first, &clo, &chi);
    dpagg_bounds_cell_edges(last, &dlo, &dhi);
    ASSERT_EQ(blo, clo) << j;
    ASSERT_EQ(bhi, dhi) << j;
    next = last + 1;
  }
  EXPECT_EQ(next, DPAGG_BOUNDS_CELLS);
}

TEST(Bounds, TheRangeRunsFromTheLowestToTheHighestBinThatReachesTheThreshold) {
  std::vector<double> noisy(DPAGG_BOUNDS_BINS, 0.0);
  int lo, hi;
  EXPECT_EQ(dpagg_bounds_range(noisy.data(), 5, &lo, &hi), 0);
  EXPECT_EQ(lo, -1);
  EXPECT_EQ(hi, -1);
  noisy[120] = 5;
  noisy[100] = 4.9;
  EXPECT_EQ(dpagg_bounds_range(noisy.data(), 5, &lo, &hi), 1);
  EXPECT_EQ(lo, 120);
  EXPECT_EQ(hi, 120);
  noisy[110] = 6;
  noisy[140] = 5;
  EXPECT_EQ(dpagg_bounds_range(noisy.data(), 5, &lo, &hi), 1);
  EXPECT_EQ(lo, 110);
  EXPECT_EQ(hi, 140);  // not widened to contain 0 (the zero bin is 95)
}

}  // namespace
