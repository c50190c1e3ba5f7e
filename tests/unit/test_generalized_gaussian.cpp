// test_generalized_gaussian.cpp — the generalized Gaussian mechanism (src/core/mechanisms/
// generalized_gaussian/): the one-dimensional member of the spherical generalized Gamma family of
// Wei, Bienstock & Polychroniadou (ICML 2026): vectors D3–D8 of docs/generalized_gaussian.md §6,
// continuity around Laplace, options, domain and scaling, calibration time, the certificate
// re-checked by brute-force quadrature over a dense set of shifts (tests/unit/oracles/
// hockey_stick.h), and the noise: KS goodness of fit against the exact CDF
// (tests/unit/oracles/noise_cdf.h), mean |X|, mean X^2 within 3 standard errors of the
// calibration's l1, l2, and the tail mass under the production generator.
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
#include "mechanisms/generalized_gaussian/generalized_gaussian.h"
#include "oracles/hockey_stick.h"
#include "oracles/noise_cdf.h"
#include "test_support.h"

using dpagg_oracle::gg_cdf;
using dpagg_oracle::gg_log_density;
using dpagg_oracle::brute_hockey;
using dpagg_oracle::LD;
using dpagg_oracle::Quad;
using dpagg_test::calibrate;
using dpagg_test::check_noise;
using dpagg_test::check_scalar_certificate;
using dpagg_test::mechanism_of;
using dpagg_test::rel_err;

namespace {

double max_err_gg = 0;

void record(double* worst, double e) { *worst = std::max(*worst, e); }

}  // namespace

// docs/generalized_gaussian.md §6: D3–D7: the profile at beta, p, eps with D = 1
// (h = beta^(1/p) in units of s = beta^(-1/p)), and the thresholds x*, x1, x2.
TEST(GeneralizedGaussianVectors, ProfileD3toD7) {
  struct V { double p, beta, eps, delta, x1, x2; };
  const V vs[] = {{1.5, 1, 0.5, 0.3455416403, -INFINITY, 0.2619445459},
                  {1.5, 1, 2, 0.0126631370, -INFINITY, -1.289575348},
                  {3, 0.2, 1, 0.1420536686, -INFINITY, -0.7583057392},
                  {2, 0.5, 1, 0.12693673751, -INFINITY, -0.5},
                  {0.5, 1, 0.5, 0.0170622375, -0.5625, 0.1692810861}};
  for (const V& v : vs) {
    SCOPED_TRACE(testing::Message() << "p=" << v.p << " beta=" << v.beta << " eps=" << v.eps);
    const double s = std::pow(v.beta, -1 / v.p);
    dpagg::GgProfile g = dpagg::gg_profile(1 / s, v.p, v.eps);
    EXPECT_NEAR(g.value, v.delta, 1e-9 * v.delta + 5e-11) << g.value;  // vectors have 10 decimals
    EXPECT_GE(g.upper, g.value);
    EXPECT_LT(g.upper, g.value * (1 + 1e-9));
    EXPECT_LT(std::fabs(g.x2 * s - v.x2), 1e-9) << g.x2 * s;
    if (std::isinf(v.x1)) {
      EXPECT_TRUE(std::isinf(g.x1) && g.x1 < 0);
    } else {
      EXPECT_LT(std::fabs(g.x1 * s - v.x1), 1e-9) << g.x1 * s;
    }
    record(&max_err_gg, rel_err(g.value, v.delta));
  }
  // Pure DP: p = 1 at eps >= h, p < 1 at eps >= h^p (D7: beta D^p = 1).
  // (The certified side needs eps a rounding margin above the threshold.)
  EXPECT_EQ(dpagg::gg_profile(1.0, 1.0, 1.0 + 1e-14).upper, 0.0);
  EXPECT_EQ(dpagg::gg_profile(1.0, 0.5, 1.0 + 1e-11).upper, 0.0);
  EXPECT_GT(dpagg::gg_profile(1.0, 0.5, 0.999).upper, 0.0);
  // p = 1 is the Laplace profile 1 - e^((eps - h)/2) (D1).
  EXPECT_LT(rel_err(dpagg::gg_profile(1.0, 1.0, 0.5).value, 0.2211992169), 1e-9);
  EXPECT_LT(rel_err(dpagg::gg_profile(3.0, 1.0, 2.0).value, 0.3934693403), 1e-9);
}

// docs/generalized_gaussian.md §6: D8: beta calibrated at (eps = 1, delta = 1e-5), and the
// variances.
TEST(GeneralizedGaussianVectors, CalibrationD8) {
  struct V { double p, beta, var; };
  const V vs[] = {{1, 1 / 0.99998000030, 1.99992}, {1.25, 0.46409015, 3.644},
                  {1.5, 0.20377696, 6.1584308},    {1.75, 0.086699527, 9.5650209},
                  {2, 0.035925702, 13.917612}};
  for (const V& v : vs) {
    char spec[64];
    std::snprintf(spec, sizeof(spec), "generalized_gaussian(p=%g)", v.p);
    SCOPED_TRACE(spec);
    dpagg_calibration cal = calibrate(spec, 1.0, 1e-5, 1.0);
    const double beta = cal.params[1];
    EXPECT_LT(rel_err(beta, v.beta), 1e-7) << "beta=" << beta;
    EXPECT_LT(rel_err(cal.l2, v.var), v.p == 1.25 ? 1e-4 : 1e-6) << "var=" << cal.l2;
    record(&max_err_gg, rel_err(beta, v.beta));
    EXPECT_LE(cal.delta_bound, 1e-5);
    EXPECT_EQ(cal.params[0], cal.scale);
    EXPECT_EQ(cal.params[2], v.p);
  }
  // p = 1 is Laplace, p = 2 the analytic Gaussian with s = sqrt 2 sigma.
  for (double e : {0.1, 1.0, 4.0})
    for (double d : {1e-3, 1e-7}) {
      EXPECT_LT(rel_err(calibrate("generalized_gaussian(p=1)", e, d, 1.0).scale,
                        calibrate("laplace", e, d, 1.0).scale), 1e-10);
      // (each with its own certified rounding bound: they agree to ~1e-9)
      EXPECT_LT(rel_err(calibrate("generalized_gaussian(p=2)", e, d, 1.0).scale,
                        std::sqrt(2.0) * calibrate("analytic_gaussian", e, d, 1.0).scale), 1e-8);
    }
  EXPECT_STREQ(calibrate("generalized_gaussian", 1.0, 1e-5, 1.0).spec, "generalized_gaussian");
  EXPECT_EQ(calibrate("generalized_gaussian", 1.0, 1e-5, 1.0).params[2], 1.5);
  std::printf("[ gg ] D3-D8 max relative error %.2e\n", max_err_gg);
}

TEST(GeneralizedGaussianCalibration, ContinuousAroundLaplace) {
  // p -> 1 tends to Laplace from both sides; near p = 1 the loss roots can lie beyond the double
  // range (the loss decays like |t|^(p-1)), which the profile handles as a far-tail bound.
  for (double e : {0.01, 1.0, 20.0})
    for (double d : {0.1, 1e-6, 1e-12}) {
      const double b = calibrate("laplace", e, d, 1.0).scale;
      for (double p : {0.999, 0.9999, 1.0001, 1.001}) {
        char spec[64];
        std::snprintf(spec, sizeof(spec), "generalized_gaussian(p=%g)", p);
        const double s = calibrate(spec, e, d, 1.0).scale;
        EXPECT_LT(rel_err(s, b), 5e-3) << spec << " eps=" << e << " delta=" << d;
      }
    }
}

TEST(GeneralizedGaussianCalibration, OptionsDomainAndScaling) {
  for (const char* bad : {"generalized_gaussian(p=0.4)", "generalized_gaussian(p=11)",
                          "generalized_gaussian(p=x)", "generalized_gaussian(beta=1)"}) {
    try {
      calibrate(bad, 1.0, 1e-5, 1.0);
      ADD_FAILURE() << bad << " accepted";
    } catch (const dpagg::Error& e) {
      EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << bad;
      EXPECT_FALSE(e.hint().empty()) << bad;
    }
  }
  EXPECT_THROW(calibrate("generalized_gaussian", 1.0, 0.0, 1.0), dpagg::Error);
  for (double p : {0.5, 0.8, 0.999, 1.0, 1.001, 1.3, 2.0, 3.0, 10.0})
    for (double e : {1e-4, 0.05, 1.0, 20.0, 500.0})
      for (double d : {0.9, 0.2, 1e-6, 1e-30, 1e-290}) {
        char spec[64];
        std::snprintf(spec, sizeof(spec), "generalized_gaussian(p=%g)", p);
        SCOPED_TRACE(testing::Message() << spec << " eps=" << e << " delta=" << d);
        dpagg_calibration cal = calibrate(spec, e, d, 1.0);
        EXPECT_LE(cal.delta_bound, d);
        EXPECT_LT(rel_err(calibrate(spec, e, d, 1e-3).scale, 1e-3 * cal.scale), 1e-8);
      }
}

// Mean time per calibration over epsilon in {0.01, 0.1, 1, 10} x delta in {1e-3, 1e-6, 1e-10}:
// below 1 ms.
TEST(ScalarCalibration, GeneralizedGaussianTime) {
  for (const char* spec : {"generalized_gaussian(p=0.5)", "generalized_gaussian(p=1)", "generalized_gaussian", "generalized_gaussian(p=2)", "generalized_gaussian(p=4)"}) {
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

TEST(GeneralizedGaussianCertificate, BruteForceOverShifts) {
  int n = 0;
  for (double p : {0.5, 0.75, 0.999, 1.0, 1.001, 1.5, 2.0, 4.0})
    for (double e : {0.05, 0.5, 4.0})
      for (double d : {1e-2, 1e-5, 1e-10}) {
        char spec[64];
        std::snprintf(spec, sizeof(spec), "generalized_gaussian(p=%g)", p);
        dpagg_calibration cal = calibrate(spec, e, d, 2.5);
        // 750^(1/p) scales: beyond that the density is below e^-750.
        const LD width = std::pow(750.0L, 1 / static_cast<LD>(p)) * cal.scale;
        if (cal.delta_bound == 0) {
          // pure DP (p <= 1): the brute force finds nothing to integrate at the shift D
          EXPECT_EQ(brute_hockey(gg_log_density(cal.scale, p), 2.5L, e, width).value, 0.0L) << spec;
          ++n;
          continue;
        }
        // p < 1 calibrates close to its pure-DP point, where the two masses of the profile nearly
        // cancel (each ~1/2 when p is near 1, their difference delta = 1e-10): the certified bound
        // is then up to ~1e-2 above the profile (a scale ~1e-7 too large), never below it.  p = 1
        // (Laplace, delta = 1 - e^((eps - h)/2) ~ (h - eps)/2) resolves h - eps only to the
        // rounding of h = D/s: ~1e-16 h / delta relative.
        const LD loose = p < 1 ? 1e-2L : p == 1 ? 1e-4L : 1e-6L;
        check_scalar_certificate(cal, [p](LD s) { return gg_log_density(s, p); }, width, &n, loose,
                                 p < 1 ? 1e-6 : 1e-8, 12);
      }
  EXPECT_EQ(n, 72);
  // D3–D7 by brute force against the core's threshold-plus-incomplete-gamma evaluation.
  struct V { double p, beta, eps; };
  for (const V& v : {V{1.5, 1, 0.5}, V{1.5, 1, 2}, V{3, 0.2, 1}, V{2, 0.5, 1}, V{0.5, 1, 0.5}, V{0.7, 2, 0.3}}) {
    const double s = std::pow(v.beta, -1 / v.p);
    const LD width = std::pow(750.0L, 1 / static_cast<LD>(v.p)) * s;
    Quad q = brute_hockey(gg_log_density(s, v.p), 1.0L, v.eps, width);
    dpagg::GgProfile g = dpagg::gg_profile(1 / s, v.p, v.eps);
    EXPECT_LT(rel_err(static_cast<double>(q.value), g.value), 1e-10) << "p=" << v.p << " eps=" << v.eps;
    EXPECT_GE(static_cast<LD>(g.upper), q.value * (1 - 1e-15L)) << "p=" << v.p << " eps=" << v.eps;
  }
}

TEST(ScalarNoise, GeneralizedGaussianKsAndMoments) {
  uint64_t seed = 2000;
  for (const char* spec : {"generalized_gaussian(p=0.5)", "generalized_gaussian(p=1)", "generalized_gaussian",
                           "generalized_gaussian(p=2)", "generalized_gaussian(p=4)", "generalized_gaussian(p=10)"})
    for (const auto& c : {std::make_pair(1.0, 1e-5), std::make_pair(3.0, 0.01)}) {
      dpagg_calibration cal = calibrate(spec, c.first, c.second, 2.0);
      const double s = cal.params[0], p = cal.params[2];
      check_noise(cal, ++seed, [&](double x) { return gg_cdf(x, s, p); });
    }
}

// The production generator with looser thresholds: the tail mass of generalized_gaussian(p=1.25)
// beyond 3 s.
TEST(ScalarNoise, GeneralizedGaussianSecureRandomAndTails) {
  dpagg::SecureRandom rng;
  const size_t n = 400000;
  dpagg_calibration g = calibrate("generalized_gaussian(p=1.25)", 1.0, 1e-5, 1.0);
  size_t gb = 0;
  const double gs = g.params[0];
  for (size_t i = 0; i < n; ++i) gb += std::fabs(mechanism_of(g).sample(g, rng)) > 3 * gs;
  const double gp = 2 * (1 - gg_cdf(3 * gs, gs, 1.25));
  EXPECT_NEAR(double(gb) / n, gp, 5 * std::sqrt(gp * (1 - gp) / n));
}
