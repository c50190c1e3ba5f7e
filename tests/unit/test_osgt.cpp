// test_osgt.cpp — the offset-symmetric Gaussian tails mechanism of Sadeghi & Korki,
// "Offset-Symmetric Gaussians for Differential Privacy" (2021) (src/core/mechanisms/osgt/):
// vectors O1–O11 and O17–O18 of docs/osgt.md §7, the calibration's monotonicity, options and
// domain, calibration time, the certificate re-checked by brute-force quadrature over a dense set
// of shifts (tests/unit/oracles/hockey_stick.h), and the noise: KS goodness of fit against the
// exact CDF (tests/unit/oracles/noise_cdf.h), mean |X|, mean X^2 within 3 standard errors of the
// calibration's l1, l2, and the tail mass under the production generator.  Its Renyi curves
// (O12–O16) are tested with src/core/math/rdp in test_rdp.cpp.
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "certificate_check.h"
#include "mechanisms/osgt/osgt.h"
#include "oracles/hockey_stick.h"
#include "oracles/noise_cdf.h"
#include "test_support.h"

using dpagg_oracle::brute_hockey;
using dpagg_oracle::LD;
using dpagg_oracle::Quad;
using dpagg_oracle::osgt_cdf;
using dpagg_oracle::osgt_log_density;
using dpagg_test::calibrate;
using dpagg_test::check_noise;
using dpagg_test::check_scalar_certificate;
using dpagg_test::mechanism_of;
using dpagg_test::rel_err;

namespace {

double max_err_osgt = 0;

void record(double* worst, double e) { *worst = std::max(*worst, e); }

}  // namespace

// docs/osgt.md §7: O1, O3, O4 (variance V(m, sigma^2)), O11 (E|Y|), O2 (r and the sub-Gaussian
// threshold).
TEST(OsgtVectors, MomentsO1O3O4O11) {
  struct V { double m, s2, var; };
  for (const V& v : {V{3, 40, 27.704678326}, V{2, 20, 14.137218}, V{15, 630, 398.21747}}) {
    const double s = std::sqrt(v.s2), r = v.m / s;
    const double got = v.s2 * dpagg::osgt_l2_unit(r);
    EXPECT_LT(rel_err(got, v.var), 1e-7) << "m=" << v.m << " sigma^2=" << v.s2 << " V=" << got;
    record(&max_err_osgt, rel_err(got, v.var));
  }
  const double s = std::sqrt(40.0);
  EXPECT_LT(rel_err(s * dpagg::osgt_l1_unit(3 / s), 4.0984405579), 1e-9);
  EXPECT_NEAR(3 / s, 0.4743, 5e-5);
  EXPECT_NEAR(2 / std::sqrt(20.0), 0.4472, 5e-5);
  // the default shape is Q^-1(1/4) = 0.67448975 to 4 digits
  EXPECT_NEAR(std::sqrt(2.0) * boost::math::erfc_inv(0.5), 0.67448975, 1e-8);
}

// docs/osgt.md §7: O5, O8: Theorem 1 at m = 3, sigma^2 = 40, D = 1 (both branches;
// eps_b = 0.0875).
TEST(OsgtVectors, ProfileO5O8) {
  const double s = std::sqrt(40.0), r = 3 / s;
  struct V { double eps, delta; };
  for (const V& v : {V{0.05, 0.06421620341}, V{0.0875, 0.04720047979}, V{0.25, 0.006836534455},
                     V{0.5, 6.786595051e-5}, V{2, 2.980123873e-38}, V{1, 7.847361018e-12}}) {
    dpagg::ProfileBound pb = dpagg::osgt_profile(s, r, v.eps, 1.0);
    EXPECT_LT(rel_err(pb.value, v.delta), 1e-9) << "eps=" << v.eps << " got " << pb.value;
    EXPECT_GE(pb.upper, pb.value);
    EXPECT_LT(pb.upper, v.delta * (1 + 1e-9));
    record(&max_err_osgt, rel_err(pb.value, v.delta));
  }
  // At the branch point both formulas give 1/2 - e^eps_b Q((m + D)/sigma) / (2 Q(r)).
  const double eb = (1 + 6.0) / 80.0;
  const double want = 0.5 - std::exp(eb) * 0.5 * std::erfc(4 / s / std::sqrt(2.0)) / std::erfc(r / std::sqrt(2.0));
  EXPECT_LT(rel_err(dpagg::osgt_profile(s, r, eb, 1.0).value, want), 1e-12);
  for (double e : {std::nextafter(eb, 0.0), std::nextafter(eb, 1.0)})
    EXPECT_LT(rel_err(dpagg::osgt_profile(s, r, e, 1.0).value, want), 1e-12);
  // r = 0 is the Gaussian: the profile is (G1) of docs/gaussian_rules.md.
  EXPECT_LT(rel_err(dpagg::osgt_profile(1.0, 0.0, 1.0, 1.0).value, 0.12693673751), 1e-10);
}

// docs/osgt.md §7: O6, O7, O9, O10: OSGT against the Gaussian of the same variance
// (m = 3, sigma^2 = 40 and m = 2, sigma^2 = 20; D = 1).
TEST(OsgtVectors, SameVarianceComparisonO6O7O9O10) {
  const double s = std::sqrt(40.0), r = 3 / s;
  const double sg = std::sqrt(40.0 * dpagg::osgt_l2_unit(r));  // sigma_g^2 = V = 27.70468
  EXPECT_LT(rel_err(dpagg::gaussian_profile(sg, 1.0, 1.0).value, 3.928505933e-9), 1e-8);  // O6
  // O7: the eps at which delta = 1e-10 (8 digits of eps: ~1e-7 of delta)
  EXPECT_LT(rel_err(dpagg::osgt_profile(s, r, 0.93662576, 1.0).value, 1e-10), 1e-6);
  EXPECT_LT(rel_err(dpagg::gaussian_profile(sg, 1.11994534, 1.0).value, 1e-10), 1e-6);
  // O9: the crossover eps ~ 0.14313, delta ~ 0.026544; the Gaussian is better below it.
  const double o9 = dpagg::osgt_profile(s, r, 0.14313, 1.0).value;
  EXPECT_NEAR(o9, 0.026544, 2e-6);
  EXPECT_NEAR(dpagg::gaussian_profile(sg, 0.14313, 1.0).value, o9, 2e-6);
  EXPECT_LT(dpagg::gaussian_profile(sg, 0.1, 1.0).value, dpagg::osgt_profile(s, r, 0.1, 1.0).value);
  EXPECT_GT(dpagg::gaussian_profile(sg, 0.2, 1.0).value, dpagg::osgt_profile(s, r, 0.2, 1.0).value);
  // O10: m = 2, sigma^2 = 20, eps at delta = 1e-10 (6 digits of eps)
  const double s2 = std::sqrt(20.0), r2 = 2 / s2, sg2 = std::sqrt(20.0 * dpagg::osgt_l2_unit(r2));
  EXPECT_LT(rel_err(dpagg::osgt_profile(s2, r2, 1.34299, 1.0).value, 1e-10), 1e-4);
  EXPECT_LT(rel_err(dpagg::gaussian_profile(sg2, 1.59197, 1.0).value, 1e-10), 1e-4);
}

// docs/osgt.md §7: O17, O18: calibration at fixed r (eps = 1, D = 1).
TEST(OsgtVectors, CalibrationO17O18) {
  struct V { double delta, r, sigma, var; };
  const V vs[] = {{1e-5, 0, 3.7306316, 13.917612},       {1e-5, 0.25, 3.7798152, 11.738366},
                  {1e-5, 0.5, 3.8380118, 10.00869},      {1e-5, 0.6745, 3.8841436, 9.0154912},
                  {1e-5, 1, 3.9825192, 7.5315727},       {1e-5, 2, 4.3840013, 4.8734598},
                  {1e-10, 0, 5.8677777, 34.430816},      {1e-10, 0.6745, 5.9760321, 21.341486}};
  for (const V& v : vs) {
    SCOPED_TRACE(testing::Message() << "delta=" << v.delta << " r=" << v.r);
    char spec[64];
    std::snprintf(spec, sizeof(spec), "osgt(r=%g)", v.r);
    dpagg_calibration cal = calibrate(spec, 1.0, v.delta, 1.0);
    EXPECT_LT(rel_err(cal.scale, v.sigma), 1e-7) << "sigma=" << cal.scale;
    EXPECT_LT(rel_err(cal.l2, v.var), v.var == 10.00869 ? 1e-6 : 1e-7) << "V=" << cal.l2;
    record(&max_err_osgt, rel_err(cal.scale, v.sigma));
    EXPECT_LE(cal.delta_bound, v.delta);
    EXPECT_EQ(cal.nparams, 3);
    EXPECT_EQ(cal.params[0], cal.scale);
    EXPECT_EQ(cal.params[2], v.r);
    EXPECT_DOUBLE_EQ(cal.params[1], v.r * cal.scale);
  }
  // The default shape, and r = 0 equals analytic_gaussian (to the search tolerance).
  EXPECT_STREQ(calibrate("osgt", 1.0, 1e-5, 1.0).spec, "osgt");
  EXPECT_EQ(calibrate("osgt", 1.0, 1e-5, 1.0).scale, calibrate("osgt(r=0.6745)", 1.0, 1e-5, 1.0).scale);
  for (double e : {0.01, 0.3, 1.0, 7.0})
    for (double d : {0.1, 1e-4, 1e-9}) {
      const double a = calibrate("analytic_gaussian", e, d, 1.0).scale;
      const double o = calibrate("osgt(r=0)", e, d, 1.0).scale;
      // analytic_gaussian's certified bound is the looser one (gaussian.cpp charges every term
      // at least 1e-11 relative): its sigma may sit up to ~1e-9 above osgt(r=0)'s.
      EXPECT_LT(rel_err(o, a), 1e-8) << "eps=" << e << " delta=" << d;
      EXPECT_LE(o, a * (1 + 1e-12)) << "eps=" << e << " delta=" << d;
    }
  std::printf("[ osgt ] O1-O18 max relative error %.2e\n", max_err_osgt);
}

TEST(OsgtCalibration, MonotoneAndScaling) {
  // sigma grows with r at fixed (eps, delta), and at (1, 1e-5) the variance falls towards the
  // Laplace variance 2b^2 (docs/osgt.md §4); sigma scales linearly with the sensitivity.  (The
  // variance is not monotone in r everywhere: at (0.1, 1e-3) it is least near r = 4, 174.4, below
  // both the Gaussian's 302.9 and the Laplace limit 192.2; see
  // OsgtCalibration.VarianceNotAlwaysMonotone.)
  for (double e : {0.1, 1.0, 5.0})
    for (double d : {1e-3, 1e-8}) {
      double prev_s = 0, prev_v = INFINITY;
      (void)prev_v;
      for (double r : {0.0, 0.25, 0.6745, 1.5, 4.0, 8.0}) {
        char spec[64];
        std::snprintf(spec, sizeof(spec), "osgt(r=%g)", r);
        dpagg_calibration cal = calibrate(spec, e, d, 1.0);
        EXPECT_GT(cal.scale, prev_s) << spec << " eps=" << e << " delta=" << d;
        if (e == 1.0 && d == 1e-8) {
          EXPECT_LT(cal.l2, prev_v) << spec << " eps=" << e << " delta=" << d;
        }
        prev_s = cal.scale;
        prev_v = cal.l2;
        EXPECT_LT(rel_err(calibrate(spec, e, d, 37.5).scale, 37.5 * cal.scale), 1e-11);
      }
    }
}

TEST(OsgtCalibration, VarianceNotAlwaysMonotone) {
  const double v4 = calibrate("osgt(r=4)", 0.1, 1e-3, 1.0).l2;
  EXPECT_LT(v4, calibrate("osgt(r=8)", 0.1, 1e-3, 1.0).l2);
  EXPECT_LT(v4, calibrate("laplace", 0.1, 1e-3, 1.0).l2);
  EXPECT_NEAR(v4, 174.364, 1e-3);
}

TEST(OsgtCalibration, OptionsAndDomain) {
  for (const char* bad : {"osgt(r=-0.1)", "osgt(r=8.5)", "osgt(r=abc)", "osgt(r=nan)", "osgt(r=inf)",
                          "osgt(m=1)"}) {
    try {
      calibrate(bad, 1.0, 1e-5, 1.0);
      ADD_FAILURE() << bad << " accepted";
    } catch (const dpagg::Error& e) {
      EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << bad;
      EXPECT_FALSE(e.hint().empty()) << bad;
    }
  }
  EXPECT_THROW(calibrate("osgt", 1.0, 0.0, 1.0), dpagg::Error);  // needs delta > 0
  for (double e : {1e-6, 1e-3, 1.0, 50.0, 1e3})
    for (double d : {0.9, 0.3, 1e-5, 1e-50, 1e-290}) {
      dpagg_calibration cal = calibrate("osgt(r=2)", e, d, 1.0);
      EXPECT_LE(cal.delta_bound, d) << "eps=" << e << " delta=" << d;
    }
  EXPECT_TRUE(dpagg::parse_spec("osgt").mechanism->auto_candidate());
}

// Mean time per calibration over epsilon in {0.01, 0.1, 1, 10} x delta in {1e-3, 1e-6, 1e-10}:
// below 1 ms.
TEST(ScalarCalibration, OsgtTime) {
  for (const char* spec : {"osgt", "osgt(r=0)", "osgt(r=4)"}) {
    int n = 0;
    double worst = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (double e : {0.01, 0.1, 1.0, 10.0})
      for (double d : {1e-3, 1e-6, 1e-10}) {
        auto t1 = std::chrono::steady_clock::now();
        calibrate(spec, e, d, 1.0);
        worst = std::max(worst, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count());
        ++n;
      }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    std::printf("[ scalar ] %-28s mean %7.1f us, max %7.1f us per calibration\n", spec, us, worst);
    EXPECT_LT(us, 1000.0) << spec;
  }
}

TEST(OsgtCertificate, BruteForceOverShifts) {
  int n = 0;
  for (double r : {0.0, 0.6745, 2.0, 8.0})
    for (double e : {0.05, 0.5, 1.0, 4.0})
      for (double d : {1e-2, 1e-5, 1e-10})
        for (double sens : {1.0, 123.456}) {
          char spec[64];
          std::snprintf(spec, sizeof(spec), "osgt(r=%g)", r);
          dpagg_calibration cal = calibrate(spec, e, d, sens);
          check_scalar_certificate(
              cal, [r](LD s) { return osgt_log_density(s, r); }, 80.0L * cal.scale, &n);
        }
  EXPECT_EQ(n, 96);
  // The case where osgt's variance beats Laplace's (OsgtCalibration.VarianceNotAlwaysMonotone), re-checked here too.
  for (double r : {4.0, 6.0}) {
    char spec[64];
    std::snprintf(spec, sizeof(spec), "osgt(r=%g)", r);
    dpagg_calibration cal = calibrate(spec, 0.1, 1e-3, 1.0);
    check_scalar_certificate(cal, [r](LD s) { return osgt_log_density(s, r); }, 80.0L * cal.scale, &n);
  }
  // Vector O8 (docs/osgt.md §7) by brute force (m = 3, sigma^2 = 40) against the core's Theorem 1
  // evaluation.
  const double s = std::sqrt(40.0), r = 3 / s;
  for (double e : {0.05, 0.0875, 0.25, 0.5, 1.0, 2.0}) {
    Quad q = brute_hockey(osgt_log_density(s, r), 1.0L, e, 400.0L);
    dpagg::ProfileBound pb = dpagg::osgt_profile(s, r, e, 1.0);
    EXPECT_LT(rel_err(static_cast<double>(q.value), pb.value), 1e-10) << "eps=" << e;
    EXPECT_GE(static_cast<LD>(pb.upper), q.value * (1 - 1e-15L)) << "eps=" << e;
  }
}

TEST(ScalarNoise, OsgtKsAndMoments) {
  uint64_t seed = 1000;
  for (const char* spec : {"osgt", "osgt(r=0)", "osgt(r=0.25)", "osgt(r=2)", "osgt(r=8)"})
    for (const auto& c : {std::make_pair(1.0, 1e-5), std::make_pair(0.2, 0.01)}) {
      dpagg_calibration cal = calibrate(spec, c.first, c.second, 3.0);
      const double s = cal.params[0], r = cal.params[2];
      check_noise(cal, ++seed, [&](double y) { return osgt_cdf(y, s, r); });
    }
}

// The production generator with looser thresholds: the tail mass of osgt beyond 2 sigma.
TEST(ScalarNoise, OsgtSecureRandomAndTails) {
  dpagg::SecureRandom rng;
  dpagg_calibration cal = calibrate("osgt", 1.0, 1e-5, 1.0);
  const dpagg::Mechanism& m = mechanism_of(cal);
  const size_t n = 400000;
  size_t beyond = 0;
  const double s = cal.params[0], r = cal.params[2];
  for (size_t i = 0; i < n; ++i) beyond += std::fabs(m.sample(cal, rng)) > 2 * s;
  const double p = 2 * (1 - osgt_cdf(2 * s, s, r));
  EXPECT_NEAR(double(beyond) / n, p, 5 * std::sqrt(p * (1 - p) / n));
}
