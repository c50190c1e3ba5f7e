// Tests of automatic bounds' core (src/core/bounds/dpagg_bounds.h, docs/automatic_bounds.md): the
// bins of magnitudes (every value within its bin's edges, the bins contiguous and in order), the
// threshold (the least that keeps every empty bin below it with probability 1 - beta, and that
// probability measured two-sided on simulated noise), the choice of bounds, and the range drawn
// run by run against the exact law of every bin's noise.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>

#include "bounds/dpagg_bounds.h"
#include "bounds/noisy_range.h"
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

// ---- the range drawn without every bin's noise (dpagg_bounds_noisy_range, noisy_range.cpp) ----

namespace {

// Counts the generator's words, to show how little noise a range costs.
class CountingRandom final : public dpagg::RandomSource {
 public:
  explicit CountingRandom(uint64_t seed) : gen_(seed) {}
  uint64_t next_u64() override {
    ++words;
    return gen_();
  }
  long words = 0;

 private:
  std::mt19937_64 gen_;
};

// P(c + X >= t) for discrete Laplace X of scale s, computed here from the law
// P(X = k) = (1 - p)/(1 + p) p^|k|, independently of noisy_range.cpp: p^m/(1 + p) for m = t - c
// >= 1, else 1 - p^(1 - m)/(1 + p).
long double reach_chance(double s, double t, int64_t c) {
  const long double p = std::exp(-1.0L / s), m = static_cast<long double>(t) - c;
  return m >= 1 ? std::pow(p, m) / (1 + p) : 1 - std::pow(p, 1 - m) / (1 + p);
}

// The exact law of (lowest, highest) bin that reaches t, index lo * BINS + hi, and "none" at
// BINS * BINS.
std::vector<long double> range_law(double s, double t, const std::vector<int64_t>& counts) {
  const int B = DPAGG_BOUNDS_BINS;
  std::vector<long double> r(B), below(B + 1, 1), above(B + 1, 1);
  for (int j = 0; j < B; ++j) r[j] = reach_chance(s, t, counts[j]);
  for (int j = 0; j < B; ++j) below[j + 1] = below[j] * (1 - r[j]);       // none of [0, j]
  for (int j = B - 1; j >= 0; --j) above[j] = above[j + 1] * (1 - r[j]);  // none of [j, B)
  std::vector<long double> law(B * B + 1, 0);
  for (int a = 0; a < B; ++a) {
    law[a * B + a] = below[a] * r[a] * above[a + 1];
    for (int b = a + 1; b < B; ++b) law[a * B + b] = below[a] * r[a] * r[b] * above[b + 1];
  }
  law[B * B] = below[B];
  return law;
}

// Two-sided chi-square goodness of fit of observed (lo, hi) pairs against the exact law: cells
// expected below 5 times are pooled; returns the p-value.
double range_fit(const std::vector<long double>& law, const std::vector<long>& seen, long n) {
  double chi = 0, pooled_e = 0, pooled_o = 0;
  int cells = 0;
  for (size_t i = 0; i < law.size(); ++i) {
    const double e = static_cast<double>(law[i]) * n;
    if (e < 5) {
      pooled_e += e;
      pooled_o += seen[i];
      continue;
    }
    chi += (seen[i] - e) * (seen[i] - e) / e;
    ++cells;
  }
  if (pooled_e > 0) {
    chi += (pooled_o - pooled_e) * (pooled_o - pooled_e) / std::max(pooled_e, 1.0);
    ++cells;
  }
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(cells - 1), chi));
}

}  // namespace

// The lowest and highest bin that reach the threshold, drawn from occupied bins' noise and one
// geometric draw per run of empty bins, follow the exact law of drawing every bin's noise: a
// chi-square over the (lowest, highest) pairs at a threshold low enough that empty bins reach it
// (so the runs' draws matter) and at one from dpagg_bounds_threshold.  Drawing every empty bin
// with a chance 2x too high or too low, or only one end's bins, fails it.
TEST(Bounds, TheRangeDrawnRunByRunHasTheLawOfEveryBinsNoise) {
  const dpagg_calibration cal = dpagg_test::calibrate("discrete_laplace", 0.5, 0, 1, true);
  std::vector<int64_t> counts(DPAGG_BOUNDS_BINS, 0);
  counts[5] = 1;
  counts[60] = 10;
  counts[95] = 12;
  counts[96] = 30;
  counts[150] = 11;
  double t_beta;
  dpagg_error err;
  ASSERT_EQ(dpagg_bounds_threshold(cal.scale, 0.3, &t_beta, &err), DPAGG_OK);
  for (double t : {12.0, t_beta}) {
    SCOPED_TRACE(testing::Message() << "t=" << t);
    const std::vector<long double> law = range_law(cal.scale, t, counts);
    std::vector<long> seen(law.size(), 0);
    dpagg_test::SeededRandom rng(t == 12.0 ? 11 : 12);
    const long n = 200000;
    for (long i = 0; i < n; ++i) {
      int lo, hi;
      dpagg::noisy_range(cal, counts.data(), t, rng, &lo, &hi);
      ASSERT_TRUE((lo < 0 && hi < 0) || (0 <= lo && lo <= hi && hi < DPAGG_BOUNDS_BINS));
      ++seen[lo < 0 ? DPAGG_BOUNDS_BINS * DPAGG_BOUNDS_BINS : lo * DPAGG_BOUNDS_BINS + hi];
    }
    const double pv = range_fit(law, seen, n);
    EXPECT_GT(pv, 1e-6);
    // the test has power: the same draws against a law with empty bins' chance doubled or halved
    for (double f : {0.5, 2.0}) {
      std::vector<long double> r(DPAGG_BOUNDS_BINS);
      const double s2 = cal.scale;
      // an empty bin reaching with chance f q: scale its reach through an equivalent count
      std::vector<long double> alt = law;
      {
        const int B = DPAGG_BOUNDS_BINS;
        for (int j = 0; j < B; ++j)
          r[j] = counts[j] == 0 ? f * reach_chance(s2, t, 0) : reach_chance(s2, t, counts[j]);
        std::vector<long double> below(B + 1, 1), above(B + 1, 1);
        for (int j = 0; j < B; ++j) below[j + 1] = below[j] * (1 - r[j]);
        for (int j = B - 1; j >= 0; --j) above[j] = above[j + 1] * (1 - r[j]);
        std::fill(alt.begin(), alt.end(), 0.0L);
        for (int a = 0; a < B; ++a) {
          alt[a * B + a] = below[a] * r[a] * above[a + 1];
          for (int b = a + 1; b < B; ++b) alt[a * B + b] = below[a] * r[a] * r[b] * above[b + 1];
        }
        alt[B * B] = below[B];
      }
      EXPECT_LT(range_fit(alt, seen, n), 1e-6) << "f=" << f;
    }
  }
}

// What it costs: a histogram of a few occupied bins at a realistic threshold takes a handful of
// draws, where every bin's noise took two geometric draws per bin (at least 382 words).
TEST(Bounds, TheRangeDrawsOnlyWhatDecidesIt) {
  const dpagg_calibration cal = dpagg_test::calibrate("discrete_laplace", 0.5, 0, 1, true);
  double t;
  dpagg_error err;
  ASSERT_EQ(dpagg_bounds_threshold(cal.scale, 1e-6, &t, &err), DPAGG_OK);
  std::vector<int64_t> counts(DPAGG_BOUNDS_BINS, 0);
  counts[dpagg_bounds_bin(40000)] = 900;
  counts[dpagg_bounds_bin(70000)] = 600;
  counts[dpagg_bounds_bin(150000)] = 100;
  CountingRandom rng(5);
  const int n = 1000;
  for (int i = 0; i < n; ++i) {
    int lo, hi;
    dpagg::noisy_range(cal, counts.data(), t, rng, &lo, &hi);
    EXPECT_EQ(lo, dpagg_bounds_bin(40000));
    EXPECT_EQ(hi, dpagg_bounds_bin(150000));
  }
  EXPECT_LT(rng.words, 20L * n);
  // and the C entry refuses a calibration of another mechanism
  const dpagg_calibration lap = dpagg_test::calibrate("laplace", 0.5, 0, 1, false);
  int lo, hi;
  EXPECT_EQ(dpagg_bounds_noisy_range(&lap, counts.data(), t, &lo, &hi, &err), DPAGG_INTERNAL);
  EXPECT_EQ(lo, -1);
  EXPECT_EQ(dpagg_bounds_noisy_range(&cal, counts.data(), t, &lo, &hi, &err), DPAGG_OK);
  EXPECT_EQ(lo, dpagg_bounds_bin(40000));
}
