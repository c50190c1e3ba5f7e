// test_gaussian.cpp — src/core/math/gaussian.{h,cpp}: the Gaussian privacy profile (G1) of
// docs/gaussian_rules.md with its certified rounding-error bound, and the tail functions it is
// built on, against the 50-digit evaluation of tests/unit/oracles/gaussian_mp.h.
#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "math/gaussian.h"
#include "oracles/gaussian_mp.h"
#include "test_support.h"

using dpagg_oracle::gaussian_delta_mp;
using dpagg_oracle::mp;
using dpagg_oracle::normal_upper_tail_mp;
using dpagg_test::rel_err;

// The core's Gaussian profile and its rounding-error bound versus 50-digit arithmetic.
TEST(GaussianProfile, CertifiedUpperBoundCoversTrueValue) {
  for (double e : {1e-3, 0.01, 0.1, 1.0, 5.0, 20.0, 100.0, 700.0}) {
    for (double s : {0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1000.0, 30000.0}) {
      mp truth = gaussian_delta_mp(s, e, 1.0);
      if (truth < mp(1e-290)) continue;
      dpagg::ProfileBound pb = dpagg::gaussian_profile(s, e, 1.0);
      double t = static_cast<double>(truth);
      EXPECT_GE(pb.upper, t) << "sigma=" << s << " eps=" << e;
      EXPECT_LE(std::fabs(pb.value - t), pb.upper - pb.value) << "sigma=" << s << " eps=" << e;
      // The bound is useful, not vacuous.
      EXPECT_LT(pb.upper, t * (1 + 1e-5) + 1e-300) << "sigma=" << s << " eps=" << e;
    }
  }
}

TEST(GaussianProfile, TailFunctionsMatchMultiprecision) {
  for (double x = -30.0; x <= 38.0; x += 0.37) {
    double want = static_cast<double>(normal_upper_tail_mp(x));
    // A few ulps, times the condition number of Q for a relative change of x (about x^2 + 1).
    const double tol = 1e-14 + 4 * (x * x + 1) * std::numeric_limits<double>::epsilon();
    EXPECT_LT(rel_err(dpagg::normal_upper_tail(x), want), tol) << "x=" << x;
  }
  for (double x : {-20.0, -1.0, 0.0, 0.5, 3.0, 10.0, 35.0, 35.4, 35.5, 40.0, 100.0, 1e3, 1e5, 1e7}) {
    mp lq = boost::multiprecision::log(normal_upper_tail_mp(x));
    double want = static_cast<double>(lq);
    double got = dpagg::log_normal_upper_tail(x);
    EXPECT_TRUE(std::isfinite(got)) << "x=" << x;
    EXPECT_LE(std::fabs(got - want), 1e-13 * std::max(1.0, std::fabs(want))) << "x=" << x;
  }
  for (double z : {0.0, 0.1, 1.0, 5.0, 24.9, 25.0, 25.1, 30.0, 100.0, 1e3, 1e4}) {
    mp zz = z;
    mp want = boost::multiprecision::exp(zz * zz) * boost::math::erfc(zz);
    EXPECT_LT(rel_err(dpagg::erfcx_nonneg(z), static_cast<double>(want)), 1e-13) << "z=" << z;
  }
  // Beyond the exponent range of the 50-digit type: 1/(z√π)·(1 − 1/(2z²)) <= erfcx(z) <= 1/(z√π).
  for (double z : {1e6, 1e50, 1e150}) {
    double lead = 1.0 / (z * std::sqrt(M_PI));
    double got = dpagg::erfcx_nonneg(z);
    EXPECT_LE(got, lead * (1 + 1e-15)) << "z=" << z;
    EXPECT_GE(got, lead * (1 - 1 / (2 * z * z)) * (1 - 1e-15)) << "z=" << z;
  }
}
