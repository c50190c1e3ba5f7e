// Tests of the exact sums of a variance without bounds (dpagg_auto_variance_sums,
// src/core/variance/auto_variance.cpp; docs/automatic_bounds.md, "Variances"): the three integers
// agree with a straightforward per-value recomputation in long double on random data and ranges,
// each square is rounded once, and adding one value (random, or adversarial: bin edges, the
// bounds, the extremes) moves each part by at most its calibrated sensitivity, B (1 + 2^-40) and
// B^2/2 (1 + 2^-40).
#include <cmath>
#include <random>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "bounds/dpagg_bounds.h"
#include "dpagg_accum.h"
#include "test_support.h"
#include "variance/dpagg_variance.h"

namespace {

// A group's bins, filled as the glue's transition function fills them (auto_bounds.c).
struct Acc {
  std::vector<dpagg_auto_variance_bin> bins = std::vector<dpagg_auto_variance_bin>(DPAGG_BOUNDS_BINS);
  std::vector<double> kept;  // the values as the histogram keeps them
  void add(double x) {
    x = dpagg_bounds_value(x);
    const int j = dpagg_bounds_bin(x);
    bins[j].count += 1;
    bins[j].sum += std::llrint(std::ldexp(x, -dpagg_bounds_quantum_exp(j)));
    bins[j].squares += dpagg_bounds_square_quanta(x, j);
    kept.push_back(x);
  }
};

struct Sums {
  __int128 squares, sum;
  int64_t count;
};

dpagg_variance_plan plan_for(int lo, int hi) {
  double L, U, a, b;
  dpagg_bounds_bin_edges(lo, &L, &a);
  dpagg_bounds_bin_edges(hi, &b, &U);
  dpagg_variance_plan p;
  dpagg_error err;
  EXPECT_EQ(dpagg_variance_plan_init(1.0, 0, L, U, &p, &err), DPAGG_OK) << err.message;
  return p;
}

Sums sums(const Acc& a, int lo, int hi, const dpagg_variance_plan& p) {
  Sums s{};
  dpagg_error err;
  EXPECT_EQ(dpagg_auto_variance_sums(a.bins.data(), lo, hi, &p, &s.squares, &s.sum, &s.count, &err),
            DPAGG_OK)
      << err.message;
  return s;
}

double random_value(std::mt19937_64& g) {
  std::uniform_real_distribution<double> e(-36, 66);
  std::uniform_real_distribution<double> u(0, 1);
  const double r = u(g);
  if (r < 0.02) return 0;
  if (r < 0.04) return (g() & 1 ? 1 : -1) * std::ldexp(1.0, static_cast<int>(e(g)));  // an edge
  if (r < 0.05) return (g() & 1 ? 1 : -1) * std::nextafter(std::ldexp(1.0, static_cast<int>(e(g))), 0.0);
  return (g() & 1 ? 1 : -1) * std::pow(2.0, e(g));
}

TEST(AutoVariance, EachSquareIsRoundedOnceToItsBinsQuanta) {
  std::mt19937_64 g(7);
  for (int i = 0; i < 100000; ++i) {
    const double x = dpagg_bounds_value(random_value(g));
    const int j = dpagg_bounds_bin(x);
    const int64_t q = dpagg_bounds_square_quanta(x, j);
    if (x == 0) {
      ASSERT_EQ(q, 0);
      continue;
    }
    // exact: |x|^2 / 2^e rounded half to even, with cpp_int
    using boost::multiprecision::cpp_int;
    int ex;
    const double f = std::frexp(std::fabs(x), &ex);
    const cpp_int m = static_cast<uint64_t>(std::ldexp(f, 53));
    const int sh = dpagg_bounds_squares_exp(j) - 2 * (ex - 53);
    ASSERT_GE(sh, 1);
    const cpp_int m2 = m * m, fl = m2 >> sh, r = m2 - (fl << sh), half = cpp_int(1) << (sh - 1);
    const cpp_int want = (r > half || (r == half && bit_test(fl, 0))) ? fl + 1 : fl;
    ASSERT_EQ(cpp_int(q), want) << x;
    ASSERT_LE(q, int64_t(1) << 52);
  }
}

TEST(AutoVariance, TheSumsAreThoseOfTheClampedValuesRecomputedValueByValue) {
  std::mt19937_64 g(11);
  for (int trial = 0; trial < 400; ++trial) {
    Acc a;
    const int n = 1 + static_cast<int>(g() % 300);
    // values around a random magnitude and offset, so that ranges of every width are exercised
    const double centre = (g() & 1 ? 1 : -1) * std::ldexp(1.0, static_cast<int>(g() % 80) - 30);
    for (int i = 0; i < n; ++i) {
      const double x = g() % 4 == 0 ? random_value(g)
                                    : centre * (1 + std::ldexp(static_cast<double>(g() % 1000), -12));
      a.add(x);
    }
    int lo = static_cast<int>(g() % DPAGG_BOUNDS_BINS), hi = static_cast<int>(g() % DPAGG_BOUNDS_BINS);
    if (trial % 2 == 0) {  // the occupied range, as the histogram at a huge epsilon gives it
      lo = DPAGG_BOUNDS_BINS, hi = -1;
      for (int j = 0; j < DPAGG_BOUNDS_BINS; ++j)
        if (a.bins[j].count > 0) lo = std::min(lo, j), hi = std::max(hi, j);
    }
    if (lo > hi) std::swap(lo, hi);
    const dpagg_variance_plan p = plan_for(lo, hi);
    const Sums s = sums(a, lo, hi, p);
    ASSERT_EQ(s.count, n);
    long double sy = 0, sq = 0;
    const long double m = static_cast<long double>(p.lower) / 2 + static_cast<long double>(p.upper) / 2;
    const long double h = p.sensitivity[DPAGG_VARIANCE_SQUARES];
    for (double x : a.kept) {
      const long double c = x < p.lower ? p.lower : x > p.upper ? p.upper : x;
      const long double y = c - m;
      sy += y;
      sq += y * y - h;
    }
    const double qy = dpagg_quantum_for_bound(p.bound);
    const double qq = dpagg_quantum_for_bound(h);
    // per value: its quanta (2^-52 of the bin's edge, at most 4 B) and long double's rounding
    // (2^-63 of max(|x|, |m|) <= 4 B); per bin, one coarse quantum
    const long double tol_y = n * p.bound * 0x1p-49L + 192 * qy;
    const long double tol_q = n * h * 0x1p-45L + 192 * qq;
    EXPECT_LE(std::fabs(static_cast<long double>(s.sum) * qy - sy), tol_y) << trial;
    EXPECT_LE(std::fabs(static_cast<long double>(s.squares) * qq - sq), tol_q) << trial;
  }
}

// Adding one value moves each part by at most its calibrated sensitivity, whatever the range.
void check_neighbour(const Acc& a, double x, int lo, int hi) {
  const dpagg_variance_plan p = plan_for(lo, hi);
  Acc b = a;
  b.add(x);
  const Sums s0 = sums(a, lo, hi, p), s1 = sums(b, lo, hi, p);
  const double qy = dpagg_quantum_for_bound(p.bound);
  const double h = p.sensitivity[DPAGG_VARIANCE_SQUARES];
  const double qq = dpagg_quantum_for_bound(h);
  const double sy = std::nextafter(p.bound * (1 + 0x1p-40), INFINITY);
  const double sq = std::nextafter(h * (1 + 0x1p-40), INFINITY);
  ASSERT_EQ(s1.count - s0.count, 1);
  ASSERT_LE(std::fabs(static_cast<double>(s1.sum - s0.sum)) * qy, sy) << x << " in [" << p.lower << ", " << p.upper << "]";
  ASSERT_LE(std::fabs(static_cast<double>(s1.squares - s0.squares)) * qq, sq) << x << " in [" << p.lower << ", " << p.upper << "]";
}

TEST(AutoVariance, OneValueMovesEachPartByAtMostItsSensitivity) {
  std::mt19937_64 g(13);
  for (int trial = 0; trial < 3000; ++trial) {
    Acc a;
    const int n = static_cast<int>(g() % 50);
    for (int i = 0; i < n; ++i) a.add(random_value(g));
    int lo = static_cast<int>(g() % DPAGG_BOUNDS_BINS), hi = static_cast<int>(g() % DPAGG_BOUNDS_BINS);
    if (lo > hi) std::swap(lo, hi);
    check_neighbour(a, random_value(g), lo, hi);
  }
}

TEST(AutoVariance, AdversarialValuesAtTheEdgesStayWithinTheSensitivity) {
  // Ranges where the middle is far from 0 relative to B (one bin, the narrowest relative width),
  // the widest range, and ranges around the zero bin; values at and next to every edge.
  std::vector<std::pair<int, int>> ranges;
  for (int j : {0, 1, DPAGG_BOUNDS_ZERO - 1, DPAGG_BOUNDS_ZERO, DPAGG_BOUNDS_ZERO + 1, DPAGG_BOUNDS_ZERO + 50,
                DPAGG_BOUNDS_BINS - 2, DPAGG_BOUNDS_BINS - 1})
    ranges.push_back({j, j});
  ranges.push_back({0, DPAGG_BOUNDS_BINS - 1});
  ranges.push_back({DPAGG_BOUNDS_ZERO - 3, DPAGG_BOUNDS_ZERO + 2});
  ranges.push_back({DPAGG_BOUNDS_ZERO + 1, DPAGG_BOUNDS_BINS - 1});
  ranges.push_back({0, DPAGG_BOUNDS_ZERO - 1});
  ranges.push_back({DPAGG_BOUNDS_ZERO + 80, DPAGG_BOUNDS_ZERO + 81});
  std::mt19937_64 g(17);
  for (auto [lo, hi] : ranges) {
    double L, U, a0, b0;
    dpagg_bounds_bin_edges(lo, &L, &a0);
    dpagg_bounds_bin_edges(hi, &b0, &U);
    std::vector<double> xs = {L, U, std::nextafter(U, 0.0), std::nextafter(U, -INFINITY), std::nextafter(L, INFINITY),
                              L / 2 + U / 2, 0.0, INFINITY, -INFINITY, NAN, 0x1p63, -0x1p63,
                              std::nextafter(0x1p63, 0.0), 4.9e-324, 0x1p-32, std::nextafter(0x1p-32, 0.0)};
    for (int k = DPAGG_BOUNDS_KMIN; k <= DPAGG_BOUNDS_KMAX + 1; ++k)
      for (double s : {1.0, -1.0}) {
        xs.push_back(s * std::ldexp(1.0, k));
        xs.push_back(s * std::nextafter(std::ldexp(1.0, k), 0.0));
        xs.push_back(s * std::ldexp(1.0 + 0x1p-52, k));
      }
    // states full of values whose roundings pile up in one direction: just below each edge
    for (int fill = 0; fill < 3; ++fill) {
      Acc a;
      for (int i = 0; i < 200; ++i) {
        const double x = xs[g() % xs.size()];
        a.add(fill == 0 ? x : fill == 1 ? std::nextafter(x, 0.0) : x * (1 + 0x1p-53 * (g() % 3)));
      }
      for (double x : xs) check_neighbour(a, x, lo, hi);
    }
  }
}

TEST(AutoVariance, RefusesAPlanForOtherBounds) {
  Acc a;
  a.add(3.0);
  dpagg_variance_plan p;
  dpagg_error err;
  ASSERT_EQ(dpagg_variance_plan_init(1.0, 0, 0, 4, &p, &err), DPAGG_OK);
  Sums s{};
  EXPECT_EQ(dpagg_auto_variance_sums(a.bins.data(), DPAGG_BOUNDS_ZERO + 33, DPAGG_BOUNDS_ZERO + 34, &p,
                                     &s.squares, &s.sum, &s.count, &err),
            DPAGG_INVALID_PARAMETER);
}

}  // namespace
