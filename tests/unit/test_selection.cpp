// test_selection.cpp — private group selection (src/core/selection): validation, the privacy
// inequalities checked independently on a grid, the optimal mechanism against a separate
// recurrence and against high-precision reference values (tests/data/partition_selection_
// reference.{py,csv}), the Gaussian's joint guarantee, the decision's rate, and the claim that the
// optimal mechanism keeps more small groups than the noisy thresholds.
//
// Self-contained on purpose (no test_support.h): its own seeded generator and data lookup.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "errors.h"
#include "oracles/gaussian_mp.h"
#include "test_support.h"
#include "random.h"
#include "selection/dpagg_selection.h"
#include "selection/partition_selection.h"

namespace {

using dpagg::selection::Builder;
using dpagg::selection::KeepProbability;
using dpagg::selection::PartitionSelection;
using dpagg::selection::Strategy;
using LD = long double;

// Deterministic generator for the statistical tests only (production draws from SecureRandom).


std::unique_ptr<PartitionSelection> make(Strategy s, double eps, double delta, int64_t L,
                                         double slack = dpagg::selection::kDefaultSlack) {
  return Builder().strategy(s).epsilon(eps).delta(delta).max_groups(L).unsafe_slack(slack).build();
}

const Strategy kAll[] = {Strategy::kOptimal, Strategy::kLaplace, Strategy::kGaussian};

// ---- the per-group inequalities, evaluated here (long double), not by the code under test ----
//   pi(n+1) <= e^eps' pi(n) + delta'   and   1 - pi(n) <= e^eps' (1 - pi(n+1)) + delta'
// (and the same with n and n+1 swapped) with pi(0) = 0; eps' = eps / L as a long double, delta' the plan's group delta (whose
// composition is checked separately).
struct PairCheck {
  LD e, d;
  int checked = 0;
  bool operator()(const PartitionSelection& s, int64_t n, std::string* why) {
    KeepProbability a = s.keep_probability(n), b = s.keep_probability(n + 1);
    // The exact probabilities of the decision: value or 1 - value (exact in long double).
    LD pa = a.certain ? 1 : a.complement ? 1.0L - a.value : a.value;
    LD pb = b.certain ? 1 : b.complement ? 1.0L - b.value : b.value;
    LD qa = 1.0L - pa, qb = 1.0L - pb;
    if (a.complement && !a.certain) qa = a.value;
    if (b.complement && !b.certain) qb = b.value;
    ++checked;
    bool ok1 = pb <= (pa > 0 ? e * pa : 0.0L) + d;
    bool ok2 = qa <= (qb > 0 ? e * qb : 0.0L) + d;
    // The other direction (removing the unit) is implied by monotonicity; checked anyway.
    ok1 = ok1 && pa <= (pb > 0 ? e * pb : 0.0L) + d;
    ok2 = ok2 && qb <= (qa > 0 ? e * qa : 0.0L) + d;
    if (!(ok1 && ok2) && why) {
      std::ostringstream o;
      o.precision(21);
      o << "n=" << n << " p(n)=" << pa << " p(n+1)=" << pb << " q(n)=" << qa << " q(n+1)=" << qb
        << " e=" << e << " d=" << d;
      *why = o.str();
    }
    return ok1 && ok2;
  }
};

// The n at which rounding and regime changes matter, plus a spread up to far beyond.
std::vector<int64_t> probe_points(const dpagg_selection_plan& p, uint64_t seed) {
  std::set<int64_t> ns;
  for (int64_t n = 0; n <= 64; ++n) ns.insert(n);
  auto around = [&](int64_t c, int64_t w) {
    for (int64_t n = c - w; n <= c + w; ++n)
      if (n >= 0) ns.insert(n);
  };
  int64_t top = 1 << 20;
  if (p.strategy == DPAGG_SELECT_OPTIMAL) {
    around(p.crossover, 6);
    around(p.certain_from, 6);
    top = std::max<int64_t>(2 * p.certain_from, 64);
  } else {
    double t = std::floor(p.threshold);
    if (t > 0 && t < 4e18) {
      around(static_cast<int64_t>(t), 6);
      top = std::max<int64_t>(static_cast<int64_t>(4 * t), 64);
    }
  }
  for (int64_t k = 1; k > 0 && k < top; k *= 2) around(k, 1);
  std::mt19937_64 g(seed);
  for (int i = 0; i < 300; ++i) ns.insert(static_cast<int64_t>(g() % static_cast<uint64_t>(top)));
  if (top <= 2000)
    for (int64_t n = 0; n <= top; ++n) ns.insert(n);
  return std::vector<int64_t>(ns.begin(), ns.end());
}

// ------------------------------------------------------------------------------------------------
// Validation

struct BadInput {
  const char* what;
  double eps, delta;
  int64_t L;
};

TEST(Selection, RefusesBadParametersWithHints) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const BadInput bad[] = {
      {"eps 0", 0.0, 1e-6, 1},         {"eps < 0", -1.0, 1e-6, 1},
      {"eps nan", nan, 1e-6, 1},       {"eps inf", inf, 1e-6, 1},
      {"eps huge", 2e9, 1e-6, 1},      {"delta 0", 1.0, 0.0, 1},
      {"delta 1", 1.0, 1.0, 1},        {"delta < 0", 1.0, -1e-6, 1},
      {"delta nan", 1.0, nan, 1},      {"delta tiny", 1.0, 1e-300, 1},
      {"L 0", 1.0, 1e-6, 0},           {"L < 0", 1.0, 1e-6, -3},
      {"L huge", 1.0, 1e-6, 2000000000}, {"eps/L tiny", 1e-3, 1e-6, 100000000},
  };
  for (Strategy s : kAll) {
    for (const BadInput& b : bad) {
      try {
        make(s, b.eps, b.delta, b.L);
        ADD_FAILURE() << b.what << " accepted";
      } catch (const dpagg::Error& e) {
        EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << b.what;
        EXPECT_FALSE(e.hint().empty()) << b.what;
      }
      dpagg_selection_plan plan;
      dpagg_error err;
      EXPECT_EQ(dpagg_selection_prepare(static_cast<int32_t>(s), b.eps, b.delta, b.L, &plan, &err),
                DPAGG_INVALID_PARAMETER)
          << b.what;
      EXPECT_EQ(err.status, DPAGG_INVALID_PARAMETER);
      EXPECT_GT(std::strlen(err.hint), 0u);
    }
  }
  // The hints state the valid ranges.
  try {
    make(Strategy::kOptimal, 0.0, 1e-6, 1);
  } catch (const dpagg::Error& e) {
    EXPECT_NE(e.hint().find("[1e-10, 1e9]"), std::string::npos) << e.hint();
  }
  try {
    make(Strategy::kOptimal, 1.0, 1e-6, 0);
  } catch (const dpagg::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[1, 1000000000]"), std::string::npos) << e.what();
  }
  // Edges that are valid.
  EXPECT_NO_THROW(make(Strategy::kOptimal, 1e-10, 1e-290, 1));
  EXPECT_NO_THROW(make(Strategy::kLaplace, 1e9, 0.999999, 1));
  EXPECT_NO_THROW(make(Strategy::kOptimal, 0.1, 1e-6, 1000000000));
}

TEST(Selection, StrategyNamesAndBadCalls) {
  int32_t s = -1;
  dpagg_error err;
  EXPECT_EQ(dpagg_selection_strategy_parse(" Optimal ", &s, &err), DPAGG_OK);
  EXPECT_EQ(s, DPAGG_SELECT_OPTIMAL);
  EXPECT_EQ(dpagg_selection_strategy_parse("LAPLACE", &s, &err), DPAGG_OK);
  EXPECT_EQ(s, DPAGG_SELECT_LAPLACE);
  EXPECT_EQ(dpagg_selection_strategy_parse("gaussian", &s, &err), DPAGG_OK);
  EXPECT_EQ(s, DPAGG_SELECT_GAUSSIAN);
  EXPECT_EQ(dpagg_selection_strategy_parse("magic", &s, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_NE(std::string(err.hint).find("'optimal'"), std::string::npos);
  EXPECT_STREQ(dpagg_selection_strategy_name(DPAGG_SELECT_GAUSSIAN), "gaussian");
  EXPECT_EQ(dpagg_selection_strategy_name(7), nullptr);

  dpagg_selection_plan plan;
  EXPECT_EQ(dpagg_selection_prepare(7, 1.0, 1e-6, 1, &plan, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_selection_prepare(DPAGG_SELECT_OPTIMAL, 1.0, 1e-6, 1, nullptr, &err), DPAGG_INTERNAL);
  ASSERT_EQ(dpagg_selection_prepare(DPAGG_SELECT_OPTIMAL, 1.0, 1e-6, 1, &plan, &err), DPAGG_OK);
  int keep = -1;
  EXPECT_EQ(dpagg_selection_keep(&plan, -1, &keep, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_selection_keep(nullptr, 1, &keep, &err), DPAGG_INTERNAL);
  EXPECT_TRUE(std::isnan(dpagg_selection_probability(&plan, -5)));
  EXPECT_TRUE(std::isnan(dpagg_selection_probability(nullptr, 5)));
  int64_t n = 0;
  EXPECT_EQ(dpagg_selection_min_units(&plan, 0.0, &n, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_selection_min_units(&plan, 1.5, &n, &err), DPAGG_INVALID_PARAMETER);
  // A plan that prepare() did not produce is refused, not trusted.
  dpagg_selection_plan broken = plan;
  broken.strategy = 9;
  EXPECT_EQ(dpagg_selection_keep(&broken, 3, &keep, &err), DPAGG_INTERNAL);
  broken = plan;
  broken.work_delta = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(dpagg_selection_keep(&broken, 3, &keep, &err), DPAGG_INTERNAL);
  broken = plan;
  broken.version = 2;
  EXPECT_EQ(dpagg_selection_keep(&broken, 3, &keep, &err), DPAGG_INTERNAL);
}

// ------------------------------------------------------------------------------------------------
// Composition across the L groups of one unit: L eps' <= eps and 1 - (1 - delta')^L <= delta.

TEST(Selection, PerGroupShareComposesToTheRequest) {
  int checked = 0;
  for (double delta : {1e-290, 1e-30, 1e-12, 1e-6, 1e-3, 0.1, 0.5, 0.9, 0.999999})
    for (int64_t L : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{10}, int64_t{1000},
                      int64_t{123457}, int64_t{1000000000}}) {
      double d = dpagg::selection::group_delta_for(delta, L);
      ASSERT_GT(d, 0.0);
      // (1 - d)^L >= 1 - delta  <=>  L log1p(-d) >= log1p(-delta)
      EXPECT_GE(static_cast<LD>(L) * std::log1p(-static_cast<LD>(d)), std::log1p(-static_cast<LD>(delta)))
          << delta << " " << L;
      // ... and it is not needlessly small: at least delta / L.
      EXPECT_GE(d, delta / static_cast<double>(L) * (1 - 1e-15)) << delta << " " << L;
      ++checked;
    }
  EXPECT_EQ(checked, 72);
  for (Strategy s : {Strategy::kOptimal, Strategy::kLaplace})
    for (double eps : {1e-3, 0.7, 3.0, 1e4})
      for (int64_t L : {1, 3, 10, 1000}) {
        auto sel = make(s, eps, 1e-7, L);
        const auto& p = sel->plan();
        EXPECT_LE(static_cast<LD>(p.work_epsilon) * L, static_cast<LD>(eps));
        EXPECT_LE(p.work_delta, p.group_delta);
        EXPECT_GE(static_cast<LD>(p.work_epsilon) * L, static_cast<LD>(eps) * (1 - 1e-3));
      }
}

// ------------------------------------------------------------------------------------------------
// The privacy inequalities on a grid, for the strategies whose guarantee is per group.

TEST(Selection, PerGroupPrivacyInequalitiesHoldOnAGrid) {
  const double epss[] = {1e-6, 1e-3, 0.05, 0.3, 1.0, 2.0, 5.0, 13.0, 31.0, 50.0, 200.0, 1000.0,
                         2e4, 1e9};
  const double deltas[] = {1e-290, 1e-100, 1e-12, 1e-6, 1e-3, 0.1, 0.5, 0.9};
  const int64_t Ls[] = {1, 2, 5, 64, 1000};
  int configs = 0, pairs = 0;
  uint64_t seed = 1;
  for (Strategy s : {Strategy::kOptimal, Strategy::kLaplace})
    for (double eps : epss)
      for (double delta : deltas)
        for (int64_t L : Ls) {
          if (eps / L < 1e-10) continue;
          if (eps / L < 1e-4 && delta < 1e-100) continue;  // n up to 1e7: probed sparsely anyway
          auto sel = make(s, eps, delta, L);
          PairCheck check{std::exp(static_cast<LD>(eps) / L), sel->plan().group_delta};
          for (int64_t n : probe_points(sel->plan(), seed++)) {
            std::string why;
            if (!check(*sel, n, &why)) {
              ADD_FAILURE() << dpagg::selection::strategy_name(s) << " eps=" << eps
                            << " delta=" << delta << " L=" << L << ": " << why;
              break;
            }
          }
          pairs += check.checked;
          ++configs;
        }
  EXPECT_GT(configs, 700);
  EXPECT_GT(pairs, 250000);
  std::printf("[ selection ] %d configurations, %d pairs of consecutive n checked\n", configs, pairs);
}

// Parameters chosen so that the crossover falls on (or within rounding of) an integer, with a
// large eps: where the two bounds of the recurrence meet and rounding is amplified by e^eps.
TEST(Selection, OptimalPrivacyAtKnifeEdges) {
  const double s = dpagg::selection::kDefaultSlack;
  // delta with log1p(tanh(e/2)(1/delta - 1)) = k e, i.e. pi(k) = (1 - delta)/(1 + e^e) exactly.
  auto knife = [](double e, int k) {
    LD t = std::tanh(static_cast<LD>(e) / 2);
    return static_cast<double>(1 / (1 + std::expm1(static_cast<LD>(k) * e) / t));
  };
  int configs = 0;
  for (double eps : {0.7, 3.0, 9.0, 17.0, 25.0, 40.0, 80.0})
    for (int k = 1; k <= 6; ++k)
      for (double wiggle : {-4.0, -1.0, 0.0, 1.0, 4.0}) {
        // On the edge for the working parameters (the builder takes the margin off both), and
        // for the requested ones.
        const double on_work = knife(eps * (1.0 - s), k) * (1 + wiggle * 1e-16) / (1.0 - s);
        const double on_request = knife(eps, k) * (1 + wiggle * 1e-16);
        for (double dd : {on_work, on_request}) {
          if (!(dd >= 1e-290 && dd < 1)) continue;
          auto sel = make(Strategy::kOptimal, eps, dd, 1);
          PairCheck check{std::exp(static_cast<LD>(eps)), sel->plan().group_delta};
          for (int64_t n : probe_points(sel->plan(), 7)) {
            std::string why;
            ASSERT_TRUE(check(*sel, n, &why)) << "eps=" << eps << " k=" << k << ": " << why;
          }
          ++configs;
        }
      }
  EXPECT_GT(configs, 300);
}

// ------------------------------------------------------------------------------------------------
// The optimal mechanism against a recurrence written here, for the working parameters.

// pi(n) for the recurrence min(e^eps p + delta, 1 - e^-eps (1 - delta - p), 1), carrying the drop
// probability separately so that both stay accurate; index n = 0..certain.
struct Recurrence {
  std::vector<LD> keep, drop;
  int64_t certain = -1;
  Recurrence(LD eps, LD delta, int64_t limit) {
    LD E = std::exp(eps), Ei = std::exp(-eps);
    LD p = 0, q = 1;
    keep.push_back(p);
    drop.push_back(q);
    for (int64_t n = 1; n <= limit; ++n) {
      LD a = E * p + delta;
      LD qb = Ei * (q - delta);
      if (qb <= 0) {
        keep.push_back(1);
        drop.push_back(0);
        certain = n;
        return;
      }
      if (a <= 1 - qb) {
        p = a;
        q = 1 - a;
      } else {
        p = 1 - qb;
        q = qb;
      }
      keep.push_back(p);
      drop.push_back(q);
    }
  }
};

TEST(Selection, OptimalMatchesAnIndependentRecurrence) {
  int compared = 0;
  for (double eps : {1e-3, 0.02, 0.2, 1.0, 3.0, 7.5, 20.0})
    for (double delta : {1e-15, 1e-9, 1e-6, 1e-3, 0.05})
      for (int64_t L : {1, 4}) {
        auto sel = make(Strategy::kOptimal, eps, delta, L);
        const auto& p = sel->plan();
        Recurrence r(p.work_epsilon, p.work_delta, 2000000);
        ASSERT_GT(r.certain, 0);
        EXPECT_EQ(p.certain_from, r.certain) << eps << " " << delta << " " << L;
        const LD c = static_cast<LD>(p.work_delta) / std::expm1(static_cast<LD>(p.work_epsilon));
        const int64_t stride = std::max<int64_t>(1, r.certain / 3000);
        for (int64_t n = 0; n <= r.certain + 2; n += (n < 2000 || std::abs(n - p.crossover) < 50 ||
                                                          std::abs(n - r.certain) < 50) ? 1 : stride) {
          KeepProbability k = sel->keep_probability(n);
          int64_t i = std::min(n, r.certain);
          LD want_p = r.keep[i], want_q = r.drop[i];
          if (want_q == 0) {
            EXPECT_TRUE(k.certain) << n;
            continue;
          }
          // Relative accuracy on the smaller side; the recurrence itself loses a few ulps of
          // long double per step, hence the allowance growing with n.
          LD tol = 1e-13L + 1e-18L * static_cast<LD>(n);
          if (want_p <= 0.5L)
            EXPECT_LE(std::fabs(k.keep_ld() - want_p), tol * want_p) << eps << " " << delta << " n=" << n;
          else
            // (absolute part: the recurrence's own error, ~1 ulp of c per step)
            EXPECT_LE(std::fabs(k.drop_ld() - want_q), tol * want_q + 1e-18L * n * c)
                << eps << " " << delta << " n=" << n;
          ++compared;
        }
      }
  EXPECT_GT(compared, 10000);
}

// ------------------------------------------------------------------------------------------------
// Against reference values computed with 120 significant digits (Python decimal).

TEST(Selection, MatchesHighPrecisionReferenceValues) {
  std::ifstream in(dpagg_test::data_path("partition_selection_reference.csv"));
  ASSERT_TRUE(in.good()) << "tests/data/partition_selection_reference.csv not found";
  std::string line;
  int rows = 0, metas = 0;
  std::getline(in, line);  // comment
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) c.push_back(cell);
    ASSERT_EQ(c.size(), 6u) << line;
    const double eps = std::strtod(c[1].c_str(), nullptr), delta = std::strtod(c[2].c_str(), nullptr);
    const int64_t n = std::strtoll(c[3].c_str(), nullptr, 10);
    if (c[0] == "meta") {
      auto sel = make(Strategy::kOptimal, eps, delta, 1, 0.0);
      EXPECT_EQ(sel->plan().crossover, n) << line;
      EXPECT_EQ(sel->plan().certain_from, std::strtoll(c[4].c_str(), nullptr, 10)) << line;
      ++metas;
      continue;
    }
    const Strategy s = c[0] == "optimal" ? Strategy::kOptimal : Strategy::kLaplace;
    auto sel = make(s, eps, delta, 1, 0.0);  // no margin: the very parameters of the reference
    const LD want_p = std::strtold(c[4].c_str(), nullptr), want_q = std::strtold(c[5].c_str(), nullptr);
    KeepProbability k = sel->keep_probability(n);
    const bool is_zero = c[5] == "0";
    if (is_zero) {
      EXPECT_TRUE(k.certain) << line;
    } else if (want_q < static_cast<LD>(dpagg::selection::kMinProbability)) {
      // Drop probabilities below 2^-1000 are raised to it (strtold gives 0 below ~1e-4950).
      EXPECT_FALSE(k.certain) << line;
      EXPECT_TRUE(k.complement) << line;
      EXPECT_EQ(k.value, dpagg::selection::kMinProbability) << line;
    } else if (want_p <= 0.5L) {
      EXPECT_LE(std::fabs(k.keep_ld() - want_p), 1e-12L * want_p) << line;
      EXPECT_LE(k.keep_ld(), want_p * (1 + 1e-15L)) << "rounded towards keeping: " << line;
    } else {
      // The optimal mechanism's tail starts from the drop probability Q just after the crossover,
      // rounded (up to 1.5 ulps, both roundings towards dropping); that carries into the tail
      // as e^-(m eps) dQ = dQ (q + c)/(Q + c) <= 2^-51 (q + c), c = delta / (e^eps - 1).
      const LD cc = static_cast<LD>(delta) / std::expm1(static_cast<LD>(eps));
      const LD allow = c[0] == "optimal" ? 0x1p-51L * (want_q + cc) : 0.0L;
      EXPECT_LE(std::fabs(k.drop_ld() - want_q), 1e-12L * want_q + allow) << line;
      EXPECT_GE(k.drop_ld(), want_q * (1 - 1e-15L)) << "rounded towards keeping: " << line;
    }
    ++rows;
  }
  EXPECT_EQ(metas, 11);
  EXPECT_GT(rows, 400);
}

// ------------------------------------------------------------------------------------------------
// Shape: monotone, pi(0) = 0, pi(1) = the group delta (up to the margin), certain from certain_from.

TEST(Selection, ProbabilitiesAreMonotoneAndStartAtDelta) {
  for (Strategy s : kAll)
    for (double eps : {0.01, 0.5, 2.0, 40.0})
      for (double delta : {1e-12, 1e-5, 0.2})
        for (int64_t L : {1, 8}) {
          auto sel = make(s, eps, delta, L);
          const auto& p = sel->plan();
          EXPECT_EQ(sel->probability(0), 0.0);
          LD p1 = sel->keep_probability(1).keep_ld();
          EXPECT_LE(p1, static_cast<LD>(p.group_delta));
          EXPECT_GE(p1, static_cast<LD>(p.group_delta) * (1 - 1e-3));
          LD prev = 0;
          for (int64_t n : probe_points(p, 3)) {
            LD v = sel->keep_probability(n).keep_ld();
            EXPECT_GE(v, prev - 1e-18L) << "n=" << n;
            prev = std::max(prev, v);
          }
          if (s == Strategy::kOptimal) {
            ASSERT_GT(p.certain_from, 1);
            EXPECT_FALSE(sel->keep_probability(p.certain_from - 1).certain);
            EXPECT_TRUE(sel->keep_probability(p.certain_from).certain);
            EXPECT_EQ(sel->min_units(1.0), p.certain_from);
          } else {
            EXPECT_EQ(p.certain_from, -1);
            EXPECT_EQ(sel->min_units(1.0), -1);
            EXPECT_FALSE(sel->keep_probability(int64_t{1} << 40).certain);
          }
        }
}

// ------------------------------------------------------------------------------------------------
// The Gaussian: joint (eps, delta/2) over the L groups of a unit (l2 sensitivity sqrt L), the
// threshold's delta/2 split over L groups, evaluated by the 50-digit oracle (oracles/gaussian_mp).

LD gaussian_profile(LD sigma, LD eps, LD sens) {
  return static_cast<LD>(dpagg_oracle::gaussian_delta_mp(static_cast<double>(sigma),
                                                         static_cast<double>(eps),
                                                         static_cast<double>(sens)));
}

TEST(Selection, GaussianJointGuarantee) {
  int configs = 0;
  for (double eps : {0.05, 0.5, 1.0, 3.0})
    for (double delta : {1e-12, 1e-8, 1e-5, 1e-2})
      for (int64_t L : {1, 2, 10, 100, 10000}) {
        auto sel = make(Strategy::kGaussian, eps, delta, L);
        const auto& p = sel->plan();
        EXPECT_EQ(p.noise_delta + p.threshold_delta, delta);
        // The noise: (eps, noise_delta)-DP for a shift of l2 norm sqrt(L).
        LD prof = gaussian_profile(p.noise_scale, eps, std::sqrt(static_cast<LD>(L)));
        EXPECT_LE(prof, static_cast<LD>(p.noise_delta)) << eps << " " << delta << " " << L;
        EXPECT_GE(prof, static_cast<LD>(p.noise_delta) * 0.8L) << "sigma not tight";
        // The threshold: L groups each created by the unit alone are all dropped with
        // probability >= 1 - threshold_delta.
        LD p1 = sel->keep_probability(1).keep_ld();
        LD z = (static_cast<LD>(p.threshold) - 1) / p.noise_scale;
        EXPECT_LE(std::fabs(p1 - 0.5L * std::erfc(z / std::sqrt(2.0L))), 1e-14L * p1);
        EXPECT_GE(static_cast<LD>(L) * std::log1p(-p1), std::log1p(-static_cast<LD>(p.threshold_delta)));
        // Per group, the decision is a post-processing of n + N(0, sigma^2): for any a,
        // (a, delta_G(a; sigma, 1))-DP.  Check the inequalities at three a.
        for (LD a : {0.1L, 1.0L, 4.0L}) {
          // At a slightly smaller a: the probabilities are accurate to ~1e-16 relative only.
          PairCheck check{std::exp(a), gaussian_profile(p.noise_scale, a * (1 - 1e-6L), 1)};
          for (int64_t n = 1; n < 4 * p.threshold + 10 && n < 100000; n += 1 + n / 50) {
            std::string why;
            ASSERT_TRUE(check(*sel, n, &why)) << "a=" << static_cast<double>(a) << " " << why;
          }
        }
        ++configs;
      }
  EXPECT_EQ(configs, 80);
}

// ------------------------------------------------------------------------------------------------
// The decision keeps groups at the stated rate (thousands of draws, bounds in standard errors).

TEST(Selection, DecisionsKeepAtTheStatedRate) {
  dpagg_test::SeededRandom rng(20240611);
  const int kDraws = 20000;
  int tests = 0;
  for (Strategy s : kAll)
    for (double target : {0.02, 0.3, 0.5, 0.9}) {
      auto sel = make(s, 1.0, 1e-6, 3);
      int64_t n = sel->min_units(target);
      ASSERT_GT(n, 0);
      double p = sel->probability(n);
      int kept = 0;
      for (int i = 0; i < kDraws; ++i) kept += sel->keep(n, rng) ? 1 : 0;
      double se = std::sqrt(p * (1 - p) / kDraws);
      EXPECT_NEAR(kept / static_cast<double>(kDraws), p, 5 * se + 1e-12)
          << dpagg::selection::strategy_name(s) << " n=" << n;
      ++tests;
    }
  // n = 0 is never kept; from certain_from on always.
  auto opt = make(Strategy::kOptimal, 1.0, 1e-6, 3);
  for (int i = 0; i < 2000; ++i) {
    EXPECT_FALSE(opt->keep(0, rng));
    EXPECT_TRUE(opt->keep(opt->plan().certain_from, rng));
  }
  // The C interface draws from the secure generator.
  dpagg_selection_plan plan;
  dpagg_error err;
  ASSERT_EQ(dpagg_selection_prepare(DPAGG_SELECT_OPTIMAL, 0.5, 1e-5, 2, &plan, &err), DPAGG_OK);
  int64_t n = 0;
  ASSERT_EQ(dpagg_selection_min_units(&plan, 0.5, &n, &err), DPAGG_OK);
  double p = dpagg_selection_probability(&plan, n);
  EXPECT_GE(p, 0.5);
  EXPECT_LT(dpagg_selection_probability(&plan, n - 1), 0.5);
  int kept = 0;
  for (int i = 0; i < kDraws; ++i) {
    int k = -1;
    ASSERT_EQ(dpagg_selection_keep(&plan, n, &k, &err), DPAGG_OK);
    kept += k;
  }
  EXPECT_NEAR(kept / static_cast<double>(kDraws), p, 5 * std::sqrt(p * (1 - p) / kDraws));
  EXPECT_EQ(tests, 12);
}

// The decision compares the draw with the stored value: exactly the stated probability.
TEST(Selection, DecisionIsAThresholdOnTheDraw) {
  for (Strategy s : kAll) {
    auto sel = make(s, 0.8, 1e-6, 1);
    for (int64_t n : {int64_t{1}, sel->min_units(0.3), sel->min_units(0.7), sel->min_units(0.999)}) {
      KeepProbability k = sel->keep_probability(n);
      ASSERT_FALSE(k.certain);
      double below = std::nextafter(k.value, 0.0);
      EXPECT_EQ(sel->decide(n, below), !k.complement) << n;
      EXPECT_EQ(sel->decide(n, k.value), k.complement) << n;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// The paper's claim: at equal (eps, delta) the optimal mechanism keeps every group size at least
// as often as Laplace or Gaussian thresholding.  With L groups per unit it holds against Laplace
// (both spend eps/L per group); against the Gaussian, whose noise composes in l2 over the L
// groups, only at L = 1 — for larger L the Gaussian can win (next test).

TEST(Selection, OptimalKeepsMoreSmallGroups) {
  int configs = 0;
  for (double eps : {0.1, 0.5, 1.0, 2.0, 5.0})
    for (double delta : {1e-10, 1e-6, 1e-3})
      for (int64_t L : {1, 3, 10}) {
        auto opt = make(Strategy::kOptimal, eps, delta, L);
        std::vector<std::unique_ptr<PartitionSelection>> others;
        others.push_back(make(Strategy::kLaplace, eps, delta, L));
        if (L == 1) others.push_back(make(Strategy::kGaussian, eps, delta, L));
        const int64_t half = opt->min_units(0.5);
        for (const auto& other : others) {
          const char* name = dpagg::selection::strategy_name(other->strategy());
          LD small_opt = 0, small_other = 0;
          for (int64_t n = 1; n <= opt->plan().certain_from + 5; ++n) {
            LD a = opt->keep_probability(n).keep_ld(), b = other->keep_probability(n).keep_ld();
            EXPECT_GE(a, b * (1 - 1e-12L)) << name << " eps=" << eps << " delta=" << delta
                                            << " L=" << L << " n=" << n;
            if (n <= half) {
              small_opt += a;
              small_other += b;
            }
          }
          // Groups smaller than the optimal mechanism's median are kept strictly more often.
          EXPECT_GT(small_opt, small_other * 1.005L) << name << " eps=" << eps << " delta=" << delta;
          EXPECT_LE(half, other->min_units(0.5)) << name;
        }
        ++configs;
      }
  EXPECT_EQ(configs, 45);
}

TEST(Selection, GaussianCanWinWhenUnitsSpanManyGroups) {
  // eps = 1, delta = 1e-6: the group size kept half of the time.
  auto half = [](Strategy s, int64_t L) { return make(s, 1.0, 1e-6, L)->min_units(0.5); };
  EXPECT_LT(half(Strategy::kOptimal, 1), half(Strategy::kGaussian, 1));
  EXPECT_LT(half(Strategy::kGaussian, 10), half(Strategy::kOptimal, 10));
  EXPECT_LT(half(Strategy::kGaussian, 100), half(Strategy::kOptimal, 100) / 2);
}

// ------------------------------------------------------------------------------------------------
// dp_explain's view and the plan round trip.

TEST(Selection, DescribeAndRoundTrip) {
  for (Strategy s : kAll) {
    dpagg_selection_plan plan;
    dpagg_error err;
    ASSERT_EQ(dpagg_selection_prepare(static_cast<int32_t>(s), 1.0, 1e-6, 4, &plan, &err), DPAGG_OK)
        << err.message;
    char buf[2048];
    ASSERT_EQ(dpagg_selection_describe(&plan, buf, sizeof(buf), &err), DPAGG_OK);
    std::string j(buf);
    EXPECT_NE(j.find(std::string("\"strategy\": \"") + dpagg::selection::strategy_name(s)), std::string::npos) << j;
    EXPECT_NE(j.find("\"max_groups_contributed\": 4"), std::string::npos) << j;
    EXPECT_NE(j.find("\"units_for_half\": "), std::string::npos) << j;
    // A copy of the plan (as the glue caches it) decides like the original.
    dpagg_selection_plan copy;
    std::memcpy(&copy, &plan, sizeof(plan));
    for (int64_t n : {1, 5, 17, 40, 300})
      EXPECT_EQ(dpagg_selection_probability(&copy, n), make(s, 1.0, 1e-6, 4)->probability(n));
    // Truncation is safe.
    char small[8];
    ASSERT_EQ(dpagg_selection_describe(&plan, small, sizeof(small), &err), DPAGG_OK);
    EXPECT_EQ(std::strlen(small), 7u);
  }
}

}  // namespace
