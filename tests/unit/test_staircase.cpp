// test_staircase.cpp — the staircase mechanism (src/core/mechanisms/staircase/): gamma and the
// losses against the closed forms of Geng & Viswanath (docs/staircase.md §3-4), the losses and the
// certificate (pure eps-DP: a zero hockey-stick divergence at every shift in [0, D], and a positive
// one just below eps) re-checked by exact summation over the density's pieces
// (tests/unit/oracles/staircase_tulap.h), the sampler against an independent CDF, and extreme inputs.
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <string>

#include "mechanisms/staircase/staircase.h"
#include "oracles/staircase_tulap.h"
#include "test_support.h"

using dpagg_oracle::LD;
using dpagg_oracle::staircase_density;
using dpagg_oracle::step_abs_mean;
using dpagg_oracle::step_cdf;
using dpagg_oracle::step_hockey;
using dpagg_oracle::step_second_moment;
using dpagg_test::calibrate;
using dpagg_test::rel_err;

namespace {

const double kEps[] = {0.01, 0.1, 0.5, 1, 2, 5, 10};

dpagg_oracle::StepDensity sampled_law(const dpagg_calibration& cal) {
  return staircase_density(cal.params[2], cal.params[3], cal.params[0], cal.params[1]);
}

// The exact staircase's E|X| / D and E[X^2] / D^2 at gamma, by the oracle.
LD oracle_loss(double eps, double gamma, bool l1) {
  const LD b = std::exp(-static_cast<LD>(eps));
  const LD p = b * (1 - gamma) / (gamma + b * (1 - gamma));
  const auto s = staircase_density(eps, 1, gamma, p);
  return l1 ? step_abs_mean(s) : step_second_moment(s);
}

}  // namespace

// gamma* = 1/(1 + e^{eps/2}) for l1, and then E|X| = D e^{eps/2} / (e^eps - 1) = D / (2 sinh(eps/2))
// (Geng & Viswanath 2016, the optimal amplitude); for l2, gamma minimises the oracle's E[X^2].
TEST(StaircaseCalibration, GammaAndLossesAgainstClosedFormsAndOracle) {
  for (double sens : {1.0, 0.37, 1e6}) {
    for (double e : kEps) {
      SCOPED_TRACE(testing::Message() << "eps=" << e << " sens=" << sens);
      dpagg_calibration c1 = calibrate("staircase(objective=l1)", e, 0.0, sens);
      EXPECT_EQ(c1.delta_bound, 0.0);
      EXPECT_LT(rel_err(c1.params[0], 1 / (1 + std::exp(e / 2))), 1e-15);
      EXPECT_LT(rel_err(c1.l1, sens / (2 * std::sinh(e / 2))), 1e-12);
      dpagg_calibration c2 = calibrate("staircase(objective=l2)", e, 0.0, sens);
      EXPECT_EQ(c2.delta_bound, 0.0);
      EXPECT_LE(c2.l2, c1.l2 * (1 + 1e-14));
      EXPECT_GE(c2.l1, c1.l1 * (1 - 1e-14));
      // l1 and l2 of the law the sampler draws, by the oracle's sums over the pieces.
      for (const auto* c : {&c1, &c2}) {
        const auto s = sampled_law(*c);
        EXPECT_LT(rel_err(c->l1, static_cast<double>(step_abs_mean(s))), 1e-10) << c->spec;
        EXPECT_LT(rel_err(c->l2, static_cast<double>(step_second_moment(s))), 1e-10) << c->spec;
      }
      if (sens != 1.0) continue;
      // Optimality, by the oracle: gamma moved by 2 % either way is worse.
      for (bool l1 : {true, false}) {
        const double g = (l1 ? c1 : c2).params[0];
        const LD at = oracle_loss(e, g, l1);
        EXPECT_GT(oracle_loss(e, g * 1.02, l1), at) << (l1 ? "l1" : "l2");
        EXPECT_GT(oracle_loss(e, g * 0.98, l1), at) << (l1 ? "l1" : "l2");
      }
    }
  }
}

// The default objective is l2; auto(objective=...) gets the matching staircase.
TEST(StaircaseCalibration, ObjectiveOption) {
  dpagg_calibration d = calibrate("staircase", 1.0, 0.0, 1.0);
  EXPECT_STREQ(d.spec, "staircase");
  dpagg_calibration c2 = calibrate("staircase(objective=l2)", 1.0, 0.0, 1.0);
  EXPECT_EQ(d.params[0], c2.params[0]);
  dpagg_calibration a1 = calibrate("auto(objective=l1)", 1.0, 0.0, 1.0);
  EXPECT_STREQ(a1.spec, "staircase(objective=l1)");
  dpagg_calibration a2 = calibrate("auto(objective=l2)", 1.0, 0.0, 1.0);
  EXPECT_STREQ(a2.spec, "staircase(objective=l2)");
  EXPECT_THROW(calibrate("staircase(objective=l3)", 1.0, 0.0, 1.0), dpagg::Error);
  // delta > 0 is served by the pure-DP calibration.
  dpagg_calibration withd = calibrate("staircase(objective=l1)", 1.0, 1e-5, 1.0);
  EXPECT_EQ(withd.delta_bound, 0.0);
  EXPECT_EQ(withd.l1, calibrate("staircase(objective=l1)", 1.0, 0.0, 1.0).l1);
}

// Pure DP re-checked: H(mu) = 0 (to rounding) for mu on a grid of [0, D] and at random shifts, for
// the very law the sampler draws; tight: at eps (1 - 1e-3) some shift has H > 0.
TEST(StaircaseCertificate, ZeroDivergenceAtEveryShiftAndTight) {
  int n = 0;
  for (double sens : {1.0, 123.456})
    for (double e : {0.05, 0.5, 1.0, 2.0, 5.0, 10.0})
      for (const char* spec : {"staircase(objective=l1)", "staircase(objective=l2)"}) {
        SCOPED_TRACE(testing::Message() << spec << " eps=" << e << " sens=" << sens);
        dpagg_calibration cal = calibrate(spec, e, 0.0, sens);
        const auto s = sampled_law(cal);
        LD worst = 0;
        for (int i = 0; i <= 40; ++i) {
          const LD mu = sens * (i / 40.0L + (i % 3) * 1e-4L * (i < 40));
          worst = std::max(worst, step_hockey(s, std::min<LD>(mu, sens), e));
        }
        EXPECT_LE(worst, 1e-15L);
        EXPECT_GT(step_hockey(s, sens, e * (1 - 1e-3)), 1e-12L);
        ++n;
      }
  EXPECT_EQ(n, 24);
}

TEST(StaircaseSampler, MatchesIndependentCdfAndMoments) {
  uint64_t seed = 11;
  for (double e : {0.1, 1.0, 4.0})
    for (const char* spec : {"staircase(objective=l1)", "staircase(objective=l2)"}) {
      dpagg_calibration cal = calibrate(spec, e, 0.0, 2.5);
      const auto s = sampled_law(cal);
      dpagg_test::check_noise(cal, seed++, [&](double x) { return static_cast<double>(step_cdf(s, x)); });
    }
}

// The tail is an upper bound of the oracle's exact tail, and close to it.
TEST(StaircaseTail, BoundsTheExactTail) {
  for (double e : {0.1, 1.0, 6.0}) {
    dpagg_calibration cal = calibrate("staircase(objective=l2)", e, 0.0, 3.0);
    const auto& m = dpagg_test::mechanism_of(cal);
    const auto s = sampled_law(cal);
    for (double w : {0.0, 0.01, 0.5, 1.0, 2.9, 3.0, 3.1, 10.0, 50.0, 200.0}) {
      // The oracle's 1 - CDF has an absolute error near 1e-19: compared where it is accurate.
      const double exact = static_cast<double>(2 * (1 - step_cdf(s, w)));
      const double t = m.noise_tail(cal, w);
      EXPECT_GE(t, exact * (1 - 1e-12) - 1e-17) << "eps=" << e << " w=" << w;
      if (exact > 1e-8) {
        EXPECT_LE(t, exact * (1 + 1e-9)) << "eps=" << e << " w=" << w;
      }
    }
  }
}

// Extreme inputs: a certified calibration or dpagg::invalid, never an internal error or a
// non-finite number; the sampler and the tail stay finite.
TEST(StaircaseCalibration, ExtremeInputs) {
  int ok = 0, refused = 0;
  for (double e : {1e-10, 1e-6, 0.3, 50.0, 745.0, 1e4, 1e9})
    for (double d : {0.0, 1e-290, 1e-5, 0.999})
      for (double sens : {1e-150, 1.0, 1e150})
        for (const char* spec : {"staircase(objective=l1)", "staircase(objective=l2)"}) {
          SCOPED_TRACE(testing::Message() << spec << " eps=" << e << " delta=" << d << " sens=" << sens);
          dpagg_calibration cal;
          dpagg_error err;
          const int st = dpagg_calibrate(spec, e, d, sens, &cal, &err);
          ASSERT_TRUE(st == DPAGG_OK || st == DPAGG_INVALID_PARAMETER) << err.message;
          if (st != DPAGG_OK) { ++refused; continue; }
          ++ok;
          EXPECT_TRUE(std::isfinite(cal.l1) && std::isfinite(cal.l2) && cal.l1 > 0 && cal.scale > 0);
          EXPECT_EQ(cal.delta_bound, 0.0);
          const auto& m = dpagg_test::mechanism_of(cal);
          dpagg_test::SeededRandom rng(5);
          for (int i = 0; i < 50; ++i) EXPECT_TRUE(std::isfinite(m.sample(cal, rng)));
          for (double w : {0.0, cal.l1, 100 * cal.l1}) {
            const double t = m.noise_tail(cal, w);
            EXPECT_TRUE(t >= 0 && t <= 1) << t;
          }
        }
  EXPECT_GT(ok, 60);
  EXPECT_GT(refused, 0);  // e.g. sens / eps > 1e150
}
