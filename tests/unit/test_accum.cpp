// test_accum.cpp — dpagg_accum.h: clamping, quantization and exact, order-independent sums.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "dpagg_accum.h"
#include "test_support.h"

namespace {

struct Bounds {
  double lower, upper;
  double bound() const { return std::max(std::fabs(lower), std::fabs(upper)); }
  double quantum() const { return dpagg_quantum_for_bound(bound()); }
  double inv() const { return 1.0 / quantum(); }
};

const Bounds kBounds[] = {{-1, 1},    {0, 1},        {2, 5},        {-5, -2},      {-0.1, 7},
                          {-1e6, 3},  {1e-9, 1e-8},  {-1e300, 1e300}, {-3.5, 3.5}, {0, 1e-200},
                          {-0x1p52, 0x1p52 - 1}};

// Values that stress the clamp: inside, outside, at the bounds, huge, tiny, specials.
std::vector<double> probe_values(const Bounds& b, uint64_t seed) {
  std::vector<double> v = {0.0,       -0.0,       b.lower,   b.upper,   std::nextafter(b.lower, -INFINITY),
                           std::nextafter(b.upper, INFINITY), NAN, -NAN, INFINITY, -INFINITY,
                           std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::denorm_min(), 1e-300, -1e-300,
                           (b.lower + b.upper) / 2};
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 2000; ++i) {
    double span = b.upper - b.lower;
    v.push_back(b.lower - 0.2 * span + 1.4 * span * u(g));            // around the range
    v.push_back(std::ldexp(u(g) - 0.5, static_cast<int>(g() % 80) - 40) * b.bound());  // any scale
  }
  return v;
}

}  // namespace

TEST(Accum, QuantumIsAPowerOfTwoThatDividesTheBound) {
  for (double bound : {1.0, 2.0, 1.5, 0.1, 3e-7, 1e6, 0x1p52, 1e300, 1.7e308, 1e-290, 2.2250738585072014e-308 * 0x1p60}) {
    double q = dpagg_quantum_for_bound(bound);
    int e;
    EXPECT_EQ(std::frexp(q, &e), 0.5) << bound;
    double k = bound / q;  // exact: a power-of-two scaling
    EXPECT_EQ(k, std::floor(k)) << bound;
    EXPECT_GE(k, 0x1p52) << bound;
    EXPECT_LT(k, 0x1p53) << bound;
    EXPECT_TRUE(std::isfinite(1.0 / q)) << bound;
  }
}

TEST(Accum, ClampHandlesSpecials) {
  EXPECT_EQ(dpagg_clamp(NAN, -1, 1), 0.0);
  EXPECT_EQ(dpagg_clamp(NAN, 2, 5), 2.0);    // NaN -> 0, then clamped
  EXPECT_EQ(dpagg_clamp(NAN, -5, -2), -2.0);
  EXPECT_EQ(dpagg_clamp(INFINITY, -1, 3), 3.0);
  EXPECT_EQ(dpagg_clamp(-INFINITY, -1, 3), -1.0);
  EXPECT_EQ(dpagg_clamp(0.25, -1, 3), 0.25);
  EXPECT_EQ(dpagg_clamp(7, 2, 2), 2.0);
}

TEST(Accum, QuantizeSpecialsMapToBounds) {
  for (const Bounds& b : kBounds) {
    SCOPED_TRACE(testing::Message() << "[" << b.lower << ", " << b.upper << "]");
    const double inv = b.inv();
    const int64_t lo = dpagg_quantize(b.lower, b.lower, b.upper, inv);
    const int64_t hi = dpagg_quantize(b.upper, b.lower, b.upper, inv);
    EXPECT_EQ(dpagg_quantize(INFINITY, b.lower, b.upper, inv), hi);
    EXPECT_EQ(dpagg_quantize(-INFINITY, b.lower, b.upper, inv), lo);
    EXPECT_EQ(dpagg_quantize(NAN, b.lower, b.upper, inv),
              dpagg_quantize(0.0, b.lower, b.upper, inv));
    EXPECT_EQ(dpagg_quantize(std::numeric_limits<double>::max(), b.lower, b.upper, inv), hi);
  }
}

TEST(Accum, QuantizeNeverExceedsTheBoundAndRoundsToNearest) {
  for (const Bounds& b : kBounds) {
    SCOPED_TRACE(testing::Message() << "[" << b.lower << ", " << b.upper << "]");
    const double q = b.quantum(), inv = b.inv();
    const long double max_quanta = static_cast<long double>(b.bound()) / q;
    ASSERT_LE(max_quanta, 0x1p53L);
    for (double x : probe_values(b, 7)) {
      int64_t r = dpagg_quantize(x, b.lower, b.upper, inv);
      ASSERT_LE(std::fabs(static_cast<long double>(r)), max_quanta) << "x=" << x;
      // within half a quantum of the clamped value (exact in long double: 64-bit mantissa)
      long double c = dpagg_clamp(x, b.lower, b.upper);
      long double err = std::fabs(static_cast<long double>(r) * q - c);
      ASSERT_LE(err, 0.5L * q) << "x=" << x;
    }
  }
  // Ties go to even.
  const double q = dpagg_quantum_for_bound(1.0);
  EXPECT_EQ(dpagg_quantize(2.5 * q, -1, 1, 1 / q), 2);
  EXPECT_EQ(dpagg_quantize(3.5 * q, -1, 1, 1 / q), 4);
  EXPECT_EQ(dpagg_quantize(-2.5 * q, -1, 1, 1 / q), -2);
  // Values finer than the quantum round away: 0.25 quantum -> 0.
  EXPECT_EQ(dpagg_quantize(0.25 * q, -1, 1, 1 / q), 0);
  EXPECT_EQ(dpagg_quantize(1.0, -1, 1, 1 / q), int64_t{1} << 52);
}

TEST(Accum, SumIsIndependentOfOrderAndGrouping) {
  // Values over 12 orders of magnitude with both signs, plus out-of-range and special values:
  // a double sum depends on the order, the 128-bit sum of quanta does not.
  const Bounds b{-1e6, 1e6};
  const double inv = b.inv(), q = b.quantum();
  std::mt19937_64 g(2024);
  std::vector<double> xs;
  for (int i = 0; i < 100000; ++i) {
    double mag = std::ldexp(static_cast<double>(g() >> 11) * 0x1p-53, static_cast<int>(g() % 60) - 20);
    xs.push_back((g() & 1) ? mag : -mag);
  }
  xs.insert(xs.end(), {NAN, INFINITY, -INFINITY, 1e300, -1e300, 0.1, 0.2, 0.3});
  auto total = [&](const std::vector<double>& v) {
    __int128 s = 0;
    for (double x : v) s += dpagg_quantize(x, b.lower, b.upper, inv);
    return s;
  };
  const __int128 reference = total(xs);
  bool double_sums_differ = false;
  double first_double_sum = 0;
  for (int round = 0; round < 10; ++round) {
    std::shuffle(xs.begin(), xs.end(), g);
    EXPECT_TRUE(total(xs) == reference) << "shuffle " << round;
    // Grouping: partial aggregates combined in any order (as parallel workers would).
    __int128 parts = 0;
    size_t chunk = 1 + g() % 5000;
    for (size_t i = 0; i < xs.size(); i += chunk) {
      std::vector<double> part(xs.begin() + i, xs.begin() + std::min(xs.size(), i + chunk));
      parts += total(part);
    }
    EXPECT_TRUE(parts == reference) << "chunk " << chunk;
    double ds = 0;
    for (double x : xs) ds += dpagg_clamp(x, b.lower, b.upper);
    if (round == 0) first_double_sum = ds;
    else if (ds != first_double_sum) double_sums_differ = true;
  }
  EXPECT_TRUE(double_sums_differ) << "the test data should defeat naive double summation";
  // The exact total is within n * q/2 of the sum of the clamped values.
  long double exact = 0;
  for (double x : xs) exact += dpagg_clamp(x, b.lower, b.upper);
  EXPECT_LE(std::fabs(static_cast<long double>(static_cast<double>(reference)) * q - exact),
            xs.size() * 0.5L * q + 1e-6L);
}

TEST(Accum, ExtremeRowCountsDoNotOverflow) {
  // 2^60 rows at the bound still fit: 2^53 * 2^60 = 2^113 < 2^127.
  const double inv = 1.0 / dpagg_quantum_for_bound(1.0);
  __int128 per_row = dpagg_quantize(1.0, -1, 1, inv);
  __int128 s = per_row * (static_cast<__int128>(1) << 60);
  EXPECT_TRUE(s > 0);
  EXPECT_TRUE(s / per_row == (static_cast<__int128>(1) << 60));
}

// Known bug: for bounds below about 2^-970 the quantum 2^(ilogb(B) - 52) is subnormal and its
// reciprocal overflows to +inf, so dpagg_quantize computes inf or NaN and converts it to int64
// (undefined behaviour; INT64_MIN on x86) instead of at most 2^53 quanta.  The SQL glue accepts
// such bounds (it only requires max(|lower|, |upper|) > 0).
TEST(Accum, ExtremeSupportedBoundsQuantizeWithinTheBound) {
  // The core accepts sensitivities (hence bounds) in [1e-150, 1e150] only (registry.cpp); at both
  // ends the quantum and its reciprocal are finite and every row stays within +-2^53 quanta.
  for (double bound : {1e-150, 3e-120, 1.0, 7e99, 1e150}) {
    SCOPED_TRACE(testing::Message() << "bound=" << bound);
    const double q = dpagg_quantum_for_bound(bound);
    EXPECT_GT(q, 0.0);
    EXPECT_TRUE(std::isfinite(1.0 / q)) << "the reciprocal of the quantum overflows";
    for (double x : {bound, -bound, bound / 3, 0.0, double(NAN), double(INFINITY)}) {
      int64_t r = dpagg_quantize(x, -bound, bound, 1.0 / q);
      EXPECT_LE(std::fabs(static_cast<double>(r)), 0x1p53) << "x=" << x;
    }
  }
}

// The integer path (dp_sum and dp_avg of smallint, integer, bigint with whole-number bounds)
// gives exactly the quanta of the floating-point path, for every int64 value.
TEST(Accum, IntegerPathMatchesTheFloatingPointPath) {
  const double kMax = DPAGG_INT_QUANTIZER_MAX;
  const double bounds[][2] = {{0, 1000},   {0, 1},        {-1, 1},          {-1000, 0},      {3, 3},
                              {5, 9},      {-7, 12},      {1e15 - 1, 1e15 + 1}, {-kMax, kMax}, {0, kMax},
                              {-kMax, -kMax + 1}, {-32768, 32767}, {1, 2},  {0, 0x1p40 + 1}, {-3, 0}};
  std::mt19937_64 g(99);
  for (const auto& b : bounds) {
    const double lower = b[0], upper = b[1];
    for (int centred = 0; centred <= 1; ++centred) {
      SCOPED_TRACE(testing::Message() << "[" << lower << ", " << upper << "] centred=" << centred);
      dpagg_int_quantizer iq;
      if (centred && !(lower < upper)) {
        EXPECT_FALSE(dpagg_int_quantizer_init(&iq, lower, upper, centred));
        continue;
      }
      ASSERT_TRUE(dpagg_int_quantizer_init(&iq, lower, upper, centred));
      const double mid = lower / 2 + upper / 2;
      const double bound = centred ? (upper - lower) / 2.0 : std::max(std::fabs(lower), std::fabs(upper));
      const double inv = 1.0 / dpagg_quantum_for_bound(bound);
      auto reference = [&](int64_t x) {
        double v = static_cast<double>(x);
        return centred ? dpagg_quantize(dpagg_clamp(v, lower, upper) - mid, -bound, bound, inv)
                       : dpagg_quantize(v, lower, upper, inv);
      };
      std::vector<int64_t> xs = {0, 1, -1, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
                                 static_cast<int64_t>(lower), static_cast<int64_t>(upper),
                                 static_cast<int64_t>(lower) - 1, static_cast<int64_t>(upper) + 1,
                                 (int64_t{1} << 53) + 1, -(int64_t{1} << 53) - 1};
      for (int i = 0; i < 20000; ++i) {
        const int64_t span = static_cast<int64_t>(upper - lower) + 3;
        xs.push_back(static_cast<int64_t>(lower) - 1 + static_cast<int64_t>(g() % static_cast<uint64_t>(span)));
        xs.push_back(static_cast<int64_t>(g()) >> (g() % 64));
      }
      for (int64_t x : xs) ASSERT_EQ(dpagg_quantize_int(x, &iq), reference(x)) << "x=" << x;
    }
  }
  // Not applicable: fractional or too large bounds (the floating-point path is used).
  dpagg_int_quantizer iq;
  EXPECT_FALSE(dpagg_int_quantizer_init(&iq, 0.5, 10, 0));
  EXPECT_FALSE(dpagg_int_quantizer_init(&iq, 0, 10.25, 1));
  EXPECT_FALSE(dpagg_int_quantizer_init(&iq, 0, 2 * kMax, 0));
  EXPECT_FALSE(dpagg_int_quantizer_init(&iq, -2 * kMax, 0, 1));
  EXPECT_FALSE(dpagg_int_quantizer_init(&iq, 0, 0, 0));
}
