// Tests of private variances (src/core/variance/variance.h, docs/variance.md): the plan's split
// and checks, the estimate against the exact statistics computed the textbook way (two passes),
// its range and NULLs, the report interval's coverage when the parts lie within their
// half-widths, and the split's optimality for the average error it is chosen by (evaluated here
// by numerical integration, independently of the constants in variance.h).
#include <algorithm>
#include <cstring>
#include <cmath>
#include <random>
#include <vector>

#include "test_support.h"
#include "variance/dpagg_variance.h"
#include "variance/variance.h"

namespace {

struct Parts {
  double squares, sum, count;
};

// The exact parts of data already in [lower, upper] (no quantisation: the core never sees it).
Parts exact_parts(const std::vector<double>& xs, const dpagg_variance_plan& p) {
  long double q = 0, s = 0;
  for (double x : xs) {
    const long double y = static_cast<long double>(x) - p.mid;
    s += y;
    q += y * y - static_cast<long double>(p.bound) * p.bound / 2;
  }
  return {static_cast<double>(q), static_cast<double>(s), static_cast<double>(xs.size())};
}

// Two-pass textbook statistics.
double textbook(const std::vector<double>& xs, int form) {
  long double mean = 0;
  for (double x : xs) mean += x;
  mean /= xs.size();
  long double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  const bool samp = form == DPAGG_VAR_SAMP || form == DPAGG_STDDEV_SAMP;
  const long double v = ss / (samp ? xs.size() - 1 : xs.size());
  return static_cast<double>(form == DPAGG_STDDEV_POP || form == DPAGG_STDDEV_SAMP ? std::sqrt(v) : v);
}

dpagg_variance_plan plan_of(double lower, double upper, double eps = 1.0, double delta = 1e-6) {
  dpagg_variance_plan p;
  dpagg_error err;
  EXPECT_EQ(dpagg_variance_plan_init(eps, delta, lower, upper, &p, &err), DPAGG_OK) << err.message;
  return p;
}

TEST(Variance, PlanSplitsEpsilonAndDeltaIntoLessThanTheCall) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> le(-9, 3);
  for (int t = 0; t < 2000; ++t) {
    const double eps = std::pow(10.0, le(g)), delta = t % 3 == 0 ? 0 : std::pow(10.0, le(g) - 4);
    const dpagg_variance_plan p = plan_of(-1, 3, eps, delta);
    // exact sums of the three doubles (long double holds them without rounding here: they are
    // within a factor 2 of each other) never exceed the call's
    const long double se = static_cast<long double>(p.epsilon[0]) + p.epsilon[1] + p.epsilon[2];
    const long double sd = static_cast<long double>(p.delta[0]) + p.delta[1] + p.delta[2];
    EXPECT_LT(se, eps);
    EXPECT_GT(se, 0.99999 * eps);
    EXPECT_LE(sd, delta);
    for (int i = 0; i < DPAGG_VARIANCE_PARTS; ++i) EXPECT_GT(p.epsilon[i], 0);
  }
  const dpagg_variance_plan p = plan_of(10, 30);
  EXPECT_EQ(p.mid, 20);
  EXPECT_EQ(p.bound, 10);
  EXPECT_EQ(p.sensitivity[DPAGG_VARIANCE_SQUARES], 50);
  EXPECT_EQ(p.sensitivity[DPAGG_VARIANCE_SUM], 10);
  EXPECT_EQ(p.sensitivity[DPAGG_VARIANCE_COUNT], 1);
}

TEST(Variance, PlanRefusesUnusableBounds) {
  const double bad[][2] = {{0, INFINITY}, {-INFINITY, 0}, {NAN, 1}, {1, 1}, {2, 1},
                           {-1e71, 1e71}, {0, 1e-71}, {-1.7e308, 1.7e308}};
  dpagg_variance_plan p;
  dpagg_error err;
  for (const auto& b : bad) {
    EXPECT_EQ(dpagg_variance_plan_init(1, 1e-6, b[0], b[1], &p, &err), DPAGG_INVALID_PARAMETER)
        << b[0] << " " << b[1];
    EXPECT_GT(std::strlen(err.hint), 10u);
  }
  const double bad_privacy[][2] = {{0, 0}, {-1, 0}, {NAN, 0}, {INFINITY, 0}, {3e-10, 0},
                                   {2e9, 0}, {1, -1e-9}, {1, 1}, {1, NAN}, {1, 1e-300}};
  for (const auto& e : bad_privacy) {
    EXPECT_EQ(dpagg_variance_plan_init(e[0], e[1], 0, 1, &p, &err), DPAGG_INVALID_PARAMETER)
        << e[0] << " " << e[1];
    EXPECT_GT(std::strlen(err.hint), 10u);
  }
  // the edges accepted: every part's share is one a calibration takes
  ASSERT_EQ(dpagg_variance_plan_init(4e-10, 4e-290, -1e70, 1e70, &p, &err), DPAGG_OK);
  for (int i = 0; i < DPAGG_VARIANCE_PARTS; ++i) {
    EXPECT_GE(p.epsilon[i], 1e-10);
    EXPECT_GE(p.delta[i], 1e-290);
    EXPECT_LE(p.sensitivity[i], 1e150);
  }
  ASSERT_EQ(dpagg_variance_plan_init(1e9, 0.999, -1e-70, 1e-70, &p, &err), DPAGG_OK);
  EXPECT_GE(p.sensitivity[DPAGG_VARIANCE_SQUARES], 1e-150);
}

TEST(Variance, WithoutNoiseTheEstimateIsTheExactStatistic) {
  std::mt19937_64 g(11);
  for (int t = 0; t < 500; ++t) {
    const double lower = std::uniform_real_distribution<double>(-1e3, 1e3)(g);
    const double upper = lower + std::uniform_real_distribution<double>(1e-3, 1e4)(g);
    const dpagg_variance_plan p = plan_of(lower, upper);
    const int n = 2 + static_cast<int>(g() % 300);
    // values anywhere in the bounds, or bunched off the centre
    std::uniform_real_distribution<double> u(lower, t % 2 ? upper : lower + (upper - lower) / 8);
    std::vector<double> xs(static_cast<size_t>(n));
    for (double& x : xs) x = u(g);
    const Parts e = exact_parts(xs, p);
    for (int form = 0; form < 4; ++form) {
      double out;
      ASSERT_EQ(dpagg_variance_estimate(&p, form, e.squares, e.sum, e.count, &out), 1);
      const double want = textbook(xs, form);
      // the one-pass formula loses digits to cancellation: relative to B^2 (or B)
      const double scale = form >= DPAGG_STDDEV_POP ? p.bound : p.bound * p.bound;
      EXPECT_NEAR(out, want, 1e-9 * scale + 1e-9 * want) << "form " << form << " n " << n;
    }
  }
}

TEST(Variance, TheEstimateIsNullBelowTheCountItNeedsAndStaysInItsRange) {
  const dpagg_variance_plan p = plan_of(0, 10);  // B = 5
  double out = -1;
  EXPECT_EQ(dpagg_variance_estimate(&p, DPAGG_VAR_POP, 0, 0, 0, &out), 0);
  EXPECT_EQ(dpagg_variance_estimate(&p, DPAGG_VAR_POP, 0, 0, 1, &out), 1);
  EXPECT_EQ(dpagg_variance_estimate(&p, DPAGG_VAR_SAMP, 0, 0, 1, &out), 0);
  EXPECT_EQ(dpagg_variance_estimate(&p, DPAGG_STDDEV_SAMP, 0, 0, 1, &out), 0);
  EXPECT_EQ(dpagg_variance_estimate(&p, DPAGG_STDDEV_SAMP, 0, 0, 2, &out), 1);
  std::mt19937_64 g(3);
  std::cauchy_distribution<double> wild(0, 1e3);
  for (int t = 0; t < 20000; ++t) {
    const double c = std::floor(std::fabs(wild(g)) / 100);
    for (int form = 0; form < 4; ++form) {
      if (dpagg_variance_estimate(&p, form, wild(g), wild(g), c, &out) == 0) continue;
      const bool samp = form == DPAGG_VAR_SAMP || form == DPAGG_STDDEV_SAMP;
      const double vmax = 25 * (samp ? c / (c - 1) : 1);
      const double max = form >= DPAGG_STDDEV_POP ? std::sqrt(vmax) : vmax;
      ASSERT_TRUE(out >= 0 && out <= max * (1 + 1e-15)) << out << " form " << form << " c " << c;
    }
  }
}

// The interval holds the statistic whenever every part lies within its half-width of the truth:
// random data, random half-widths, the noisy parts anywhere in their boxes (corners included).
TEST(Variance, TheIntervalHoldsTheTruthWhenThePartsAreWithinTheirHalfWidths) {
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u01(0, 1);
  int checked = 0;
  for (int t = 0; t < 4000; ++t) {
    const double lower = -50 + 100 * u01(g), upper = lower + 0.5 + 200 * u01(g);
    const dpagg_variance_plan p = plan_of(lower, upper);
    const int n = 2 + static_cast<int>(g() % 200);
    const double lo_x = lower + (upper - lower) * u01(g) * 0.9;
    std::uniform_real_distribution<double> u(lo_x, lo_x + (upper - lo_x) * u01(g));
    std::vector<double> xs(static_cast<size_t>(n));
    for (double& x : xs) x = u(g);
    const Parts e = exact_parts(xs, p);
    const double B2 = p.bound * p.bound;
    const double w[3] = {B2 * n * u01(g) * 0.3, p.bound * n * u01(g) * 0.3,
                         std::floor(n * u01(g) * 0.5)};
    for (int corner = 0; corner < 10; ++corner) {
      auto pick = [&](double width) { return width * (2 * u01(g) - 1); };
      const double nq = e.squares + (corner < 8 ? ((corner & 1) ? w[0] : -w[0]) : pick(w[0]));
      const double ns = e.sum + (corner < 8 ? ((corner & 2) ? w[1] : -w[1]) : pick(w[1]));
      const double nc = std::max(0.0, e.count + (corner < 8 ? ((corner & 4) ? w[2] : -w[2])
                                                           : std::rint(pick(w[2]))));
      for (int form = 0; form < 4; ++form) {
        double lo, hi;
        dpagg_variance_interval(&p, form, nq, ns, nc, w, &lo, &hi);
        const double truth = textbook(xs, form);
        ASSERT_LE(lo, truth) << "form " << form << " n " << n << " corner " << corner;
        ASSERT_GE(hi, truth) << "form " << form << " n " << n << " corner " << corner;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 4000 * 10 * 4);
}

TEST(Variance, WithoutNoiseTheIntervalIsTight) {
  const dpagg_variance_plan p = plan_of(0, 100);
  std::vector<double> xs;
  for (int i = 0; i < 1000; ++i) xs.push_back(20 + (i % 37));
  const Parts e = exact_parts(xs, p);
  const double w[3] = {0, 0, 0};
  for (int form = 0; form < 4; ++form) {
    double lo, hi;
    dpagg_variance_interval(&p, form, e.squares, e.sum, e.count, w, &lo, &hi);
    const double truth = textbook(xs, form);
    EXPECT_LE(lo, truth);
    EXPECT_GE(hi, truth);
    EXPECT_LT(hi - lo, 1e-9 * truth) << form;
  }
  // a NULL answer's interval is the whole range
  double lo, hi;
  dpagg_variance_interval(&p, DPAGG_VAR_SAMP, 0, 0, 1, w, &lo, &hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 2 * 2500);
}

// docs/variance.md, "The split": to first order the error of the estimate is sum_i (c_i s_i /
// eps_i)^2 (times the noise's variance at scale 1 / eps); averaged over (t, v) = (mean / B,
// variance / B^2) uniform on the feasible set {|t| <= 1, 0 <= v <= 1 - t^2}, the weights are
// E[(c_i s_i)^2] = 1/4, 4/5, 1/4 (in units of (B^2 / n)^2).  Here: the weights by numerical
// integration of the derivatives of the estimate itself (finite differences on dpagg's own
// estimate at data of each (t, v)), and the shares at the minimum of the average error.
TEST(Variance, TheSharesMinimiseTheAverageErrorOverFeasibleData) {
  const dpagg_variance_plan p = plan_of(-1, 1);  // B = 1
  const double n = 1e6;
  const double sens[3] = {0.5, 1, 1};
  double weight[3] = {0, 0, 0};
  double area = 0;
  const int grid = 400;
  for (int a = 0; a < grid; ++a) {
    const double t = -1 + (a + 0.5) * 2.0 / grid;
    for (int b = 0; b < grid; ++b) {
      const double v = (b + 0.5) / grid;
      if (v > 1 - t * t) continue;
      // the parts of data of mean t and variance v (in B = 1 units)
      const double parts[3] = {n * (v + t * t - 0.5), n * t, n};
      double base;
      ASSERT_EQ(dpagg_variance_estimate(&p, DPAGG_VAR_POP, parts[0], parts[1], parts[2], &base), 1);
      for (int i = 0; i < 3; ++i) {
        double moved[3] = {parts[0], parts[1], parts[2]};
        const double h = i == 2 ? 1 : 1e-3 * n;
        moved[i] += h;
        double out;
        ASSERT_EQ(dpagg_variance_estimate(&p, DPAGG_VAR_POP, moved[0], moved[1], moved[2], &out), 1);
        const double c = (out - base) / h * n;  // derivative in units of 1/n
        weight[i] += (c * sens[i]) * (c * sens[i]);
      }
      area += 1;
    }
  }
  for (double& x : weight) x /= area;
  // interior points only (the clamps are inactive there): close to 1/4, 4/5, 1/4
  EXPECT_NEAR(weight[0], 0.25, 0.01);
  EXPECT_NEAR(weight[1], 0.8, 0.02);
  EXPECT_NEAR(weight[2], 0.25, 0.01);
  auto avg_error = [&](const double* sh) {
    return weight[0] / (sh[0] * sh[0]) + weight[1] / (sh[1] * sh[1]) + weight[2] / (sh[2] * sh[2]);
  };
  const double* s = dpagg::kVarianceShares;
  const double best = avg_error(s);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (i == j) continue;
      double moved[3] = {s[0], s[1], s[2]};
      moved[i] += 0.01;
      moved[j] -= 0.01;
      EXPECT_GT(avg_error(moved), best) << i << " " << j;
    }
  const double thirds[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  EXPECT_LT(best, 0.92 * avg_error(thirds));  // about 10 % less than an even split
}

}  // namespace
