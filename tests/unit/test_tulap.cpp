// test_tulap.cpp — Tulap noise (src/core/mechanisms/tulap/): the truncation against the papers'
// q = 2 delta b / (1 - b + 2 delta b); the certificate re-checked by exact summation of the
// hockey-stick divergence over the density's pieces (tests/unit/oracles/staircase_tulap.h) at every
// shift of a grid of [0, D], non-integer shifts included: at most delta_bound <= delta, largest at D,
// and tight; the losses by the same oracle; the sampler against the papers' CDF; extreme inputs;
// and E|X| on the paper grid against the analytic Gaussian.
#include <cmath>
#include <cstdio>
#include <string>

#include "oracles/staircase_tulap.h"
#include "test_support.h"

using dpagg_oracle::LD;
using dpagg_oracle::step_abs_mean;
using dpagg_oracle::step_hockey;
using dpagg_oracle::step_second_moment;
using dpagg_oracle::tulap_density;
using dpagg_test::calibrate;
using dpagg_test::rel_err;

namespace {

// The law the sampler draws (its outer part weighted by the calibration's p_outer).
dpagg_oracle::StepDensity sampled_law(const dpagg_calibration& cal) {
  return tulap_density(cal.params[0], cal.params[4], cal.params[1], cal.params[3]);
}
// The papers' law: Tulap(0, e^-eps, q) restricted to [-L, L], unweighted.
dpagg_oracle::StepDensity paper_law(const dpagg_calibration& cal) {
  return tulap_density(cal.params[0], cal.params[4], cal.params[1]);
}

}  // namespace

TEST(TulapCalibration, TruncationIsThePapersQuantile) {
  for (double e : {0.05, 0.5, 1.0, 3.0, 10.0})
    for (double d : {1e-12, 1e-6, 1e-3, 0.05, 0.5}) {
      SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d);
      dpagg_calibration cal = calibrate("tulap", e, d, 1.0);
      const double b = std::exp(-e);
      const double q = 2 * d * b / (1 - b + 2 * d * b);
      EXPECT_LT(rel_err(cal.params[2], q), 1e-8);
      EXPECT_LE(cal.params[2], q);  // rounded towards more support
      // The papers' CDF at -L is q/2.
      EXPECT_LT(rel_err(dpagg_oracle::tulap_cdf(-cal.params[1], b, 0), q / 2), 1e-8);
      EXPECT_LE(cal.delta_bound, d);
      EXPECT_GE(cal.delta_bound, d * (1 - 1e-9));
    }
}

// H(mu) for mu on a grid of [0, D] (integer and non-integer multiples of the unit): non-decreasing
// up to mu = D, where it is at most delta_bound <= delta; delta_bound within 1e-9 of it; and the law
// with L a little smaller is not private.
TEST(TulapCertificate, EveryShiftFeasibleCertifiedAndTight) {
  int n = 0;
  for (double sens : {1.0, 7.25})
    for (double e : {0.05, 0.25, 1.0, 2.0, 5.0})
      for (double d : {1e-10, 1e-6, 1e-3, 0.05}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal = calibrate("tulap", e, d, sens);
        const auto s = sampled_law(cal);
        const LD at_d = step_hockey(s, sens, e);
        EXPECT_LE(at_d, static_cast<LD>(cal.delta_bound));
        EXPECT_LE(cal.delta_bound, d);
        EXPECT_LE(static_cast<LD>(cal.delta_bound), at_d * (1 + 1e-9L));
        LD prev = 0;
        for (int i = 1; i <= 24; ++i) {
          const LD mu = sens * (i / 24.0L - (i % 2) * 0.013L);
          const LD h = step_hockey(s, mu, e);
          EXPECT_LE(h, at_d * (1 + 1e-12L)) << "shift " << (double)mu;
          if (i % 2 == 0) {
            EXPECT_GE(h, prev * (1 - 1e-12L)) << "shift " << (double)mu;
            prev = h;
          }
        }
        // The papers' own law (without the sampler's margin) is as private.
        EXPECT_LE(step_hockey(paper_law(cal), sens, e), at_d * (1 + 1e-12L));
        // Tight: truncating a little more is not (eps, delta)-DP.
        const auto tighter = tulap_density(cal.params[0], sens, cal.params[1] - 1e-5);
        EXPECT_GT(step_hockey(tighter, sens, e), static_cast<LD>(d));
        ++n;
      }
  EXPECT_EQ(n, 40);
}

// delta = 0: untruncated, pure eps-DP; the law is the staircase with gamma = 1/2.
TEST(TulapCertificate, ZeroDeltaIsPure) {
  for (double e : {0.1, 1.0, 4.0}) {
    dpagg_calibration cal = calibrate("tulap", e, 0.0, 2.0);
    EXPECT_EQ(cal.delta_bound, 0.0);
    EXPECT_EQ(cal.params[1], 0.0);
    const auto s = sampled_law(cal);
    for (int i = 0; i <= 20; ++i) EXPECT_LE(step_hockey(s, 2.0 * i / 20, e), 1e-15L);
    const LD b = std::exp(-static_cast<LD>(e));
    const auto st = dpagg_oracle::staircase_density(e, 2.0, 0.5, b / (1 + b));
    EXPECT_LT(rel_err(cal.l1, static_cast<double>(step_abs_mean(st))), 1e-10);
  }
}

TEST(TulapCalibration, LossesAgainstOracle) {
  for (double sens : {1.0, 3e-4})
    for (double e : {0.02, 0.3, 1.0, 4.0, 12.0})
      for (double d : {0.0, 1e-9, 1e-4, 0.05, 0.7}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal = calibrate("tulap", e, d, sens);
        const auto s = sampled_law(cal);
        EXPECT_LT(rel_err(cal.l1, static_cast<double>(step_abs_mean(s))), 1e-10);
        EXPECT_LT(rel_err(cal.l2, static_cast<double>(step_second_moment(s))), 1e-10);
        // Truncation only helps.
        if (d > 0) {
          EXPECT_LE(cal.l2, calibrate("tulap", e, 0.0, sens).l2);
        }
      }
}

TEST(TulapSampler, MatchesThePapersCdf) {
  uint64_t seed = 101;
  for (double e : {0.1, 1.0, 3.0})
    for (double d : {0.0, 1e-3, 0.2}) {
      dpagg_calibration cal = calibrate("tulap", e, d, 1.5);
      const double b = std::exp(-e), q = cal.params[2];
      dpagg_test::check_noise(cal, seed++, [&](double x) { return dpagg_oracle::tulap_cdf(x / 1.5, b, q); });
    }
}

// The sampler keeps the truncation's constants of the last calibration it drew from: draws that
// alternate between calibrations must be those each calibration gives alone.
TEST(TulapSampler, AlternatingCalibrationsDrawAsAlone) {
  const dpagg_calibration a = calibrate("tulap", 1.0, 1e-5, 1.0), b = calibrate("tulap", 0.3, 0.1, 2.0),
                          c = calibrate("tulap", 1.0, 0.0, 1.0);
  const auto& m = dpagg_test::mechanism_of(a);
  const dpagg_calibration* cals[] = {&a, &b, &c};
  std::vector<double> alone[3];
  for (int i = 0; i < 3; ++i) {
    dpagg_test::SeededRandom rng(77 + i);
    for (int n = 0; n < 200; ++n) alone[i].push_back(m.sample(*cals[i], rng));
  }
  dpagg_test::SeededRandom r0(77), r1(78), r2(79);
  dpagg_test::SeededRandom* rngs[] = {&r0, &r1, &r2};
  for (int n = 0; n < 200; ++n)
    for (int i = 0; i < 3; ++i) ASSERT_EQ(m.sample(*cals[i], *rngs[i]), alone[i][n]) << i << " " << n;
}

TEST(TulapTail, BoundsTheExactTail) {
  for (double e : {0.1, 1.0, 6.0})
    for (double d : {0.0, 1e-6, 0.1}) {
      dpagg_calibration cal = calibrate("tulap", e, d, 3.0);
      const auto& m = dpagg_test::mechanism_of(cal);
      const auto s = sampled_law(cal);
      for (double w : {0.0, 0.01, 1.0, 1.5, 1.6, 4.5, 10.0, 50.0, 200.0}) {
        const double exact = static_cast<double>(2 * (1 - dpagg_oracle::step_cdf(s, w)));
        const double t = m.noise_tail(cal, w);
        EXPECT_GE(t, exact * (1 - 1e-14)) << "eps=" << e << " delta=" << d << " w=" << w;
        EXPECT_LE(t, exact * (1 + 1e-9) + 1e-13) << "eps=" << e << " delta=" << d << " w=" << w;
      }
    }
}

TEST(TulapCalibration, ExtremeInputs) {
  int ok = 0, refused = 0;
  for (double e : {1e-10, 1e-6, 0.3, 50.0, 745.0, 1e4, 1e9})
    for (double d : {0.0, 1e-290, 1e-5, 0.999})
      for (double sens : {1e-150, 1.0, 1e150}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal;
        dpagg_error err;
        const int st = dpagg_calibrate("tulap", e, d, sens, &cal, &err);
        ASSERT_TRUE(st == DPAGG_OK || st == DPAGG_INVALID_PARAMETER) << err.message;
        if (st != DPAGG_OK) { ++refused; continue; }
        ++ok;
        EXPECT_TRUE(std::isfinite(cal.l1) && std::isfinite(cal.l2) && cal.l1 > 0 && cal.scale > 0);
        EXPECT_LE(cal.delta_bound, d);
        const auto& m = dpagg_test::mechanism_of(cal);
        dpagg_test::SeededRandom rng(9);
        for (int i = 0; i < 50; ++i) {
          const double x = m.sample(cal, rng);
          EXPECT_TRUE(std::isfinite(x));
          if (cal.params[1] > 0) {
            EXPECT_LE(std::fabs(x), cal.params[1] * cal.params[4] * (1 + 1e-15));
          }
        }
        for (double w : {0.0, cal.l1, 100 * cal.l1}) {
          const double t = m.noise_tail(cal, w);
          EXPECT_TRUE(t >= 0 && t <= 1) << t;
        }
      }
  EXPECT_GT(ok, 30);
  EXPECT_GT(refused, 0);
}

// E|X| of tulap and staircase(objective=l1) over the analytic Gaussian's sigma sqrt(2/pi), on the
// paper grid (LSW Section 5): printed for the report; tulap's truncation never costs, the
// staircase beats pure Laplace, and the staircase beats the Gaussian where eps >= 1.
TEST(TulapLosses, PaperGridAgainstAnalyticGaussian) {
  std::printf("[ l1 ratio ] eps    delta    tulap/AG  staircase/AG  laplace/AG\n");
  for (double d : {5e-7, 1e-5, 1e-3, 0.05})
    for (double e : {0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0}) {
      const dpagg_calibration ag = calibrate("analytic_gaussian", e, d, 1.0);
      const double a = ag.scale * std::sqrt(2 / M_PI);
      const double t = calibrate("tulap", e, d, 1.0).l1, s = calibrate("staircase(objective=l1)", e, d, 1.0).l1;
      const double l = calibrate("laplace", e, d, 1.0).l1;
      std::printf("[ l1 ratio ] %-5g  %-7g  %8.4f  %12.4f  %10.4f\n", e, d, t / a, s / a, l / a);
      EXPECT_LE(t, calibrate("tulap", e, 0.0, 1.0).l1);
      EXPECT_LE(s, calibrate("laplace", e, 0.0, 1.0).l1);  // laplace's pure calibration
      if (e >= 1) {
        EXPECT_LT(s, a);
      }
    }
}
