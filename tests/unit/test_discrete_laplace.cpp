// test_discrete_laplace.cpp — the geometric (discrete Laplace) mechanism
// (src/core/mechanisms/discrete_laplace/, docs/truncated_laplace.md §2): s against D/eps, losses
// against direct summation, the certificate (pure eps-DP) re-checked by direct summation of the
// hockey-stick divergence over every integer shift 1..D (tests/unit/oracles/
// truncated_discrete_laplace.h), the sampler (chi-square, moments, integer support), the tail,
// extreme inputs, and that it serves (and is listed for) integer-valued scalar queries only.
#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "mechanisms/auto/auto.h"
#include "oracles/truncated_discrete_laplace.h"
#include "test_support.h"

using dpagg_oracle::DiscreteLaplace;
using dpagg_oracle::discrete_laplace_abs_moment;
using dpagg_oracle::discrete_laplace_hockey;
using dpagg_oracle::discrete_laplace_tail;
using dpagg_oracle::LD;
using dpagg_test::calibrate;
using dpagg_test::mechanism_of;
using dpagg_test::rel_err;
using dpagg_test::ScriptedRandom;
using dpagg_test::SeededRandom;

namespace {

const double kEps[] = {0.05, 0.1, 0.5, 1, 2, 5, 10};
const double kSens[] = {1, 2, 7};

}  // namespace

TEST(DiscreteLaplaceCalibration, ScaleAndSummedMoments) {
  for (double D : kSens)
    for (double e : kEps)
      for (double d : {0.0, 1e-6, 0.1}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << D);
        const dpagg_calibration cal = calibrate("discrete_laplace", e, d, D, true);
        EXPECT_EQ(cal.mechanism, DPAGG_MECH_DISCRETE_LAPLACE);
        EXPECT_GE(static_cast<LD>(cal.scale), static_cast<LD>(D) / e);
        EXPECT_LT(rel_err(cal.scale, D / e), 1e-13);
        EXPECT_EQ(cal.delta_bound, 0.0);  // pure eps-DP; a delta > 0 is not used
        EXPECT_LT(rel_err(cal.params[1], std::exp(-1 / cal.scale)), 1e-15);
        const DiscreteLaplace dl(cal.scale);
        EXPECT_LT(rel_err(cal.l1, static_cast<double>(discrete_laplace_abs_moment(dl, 1))), 1e-12);
        EXPECT_LT(rel_err(cal.l2, static_cast<double>(discrete_laplace_abs_moment(dl, 2))), 1e-12);
        // Less absolute error than the Laplace mechanism at the same epsilon (b = D/eps).
        EXPECT_LT(cal.l1, D / e);
        EXPECT_TRUE(std::isnan(mechanism_of(cal).zcdp_rho(cal)));
      }
}

// sum_k (P(k) - e^eps P(k - m))_+ over every integer shift m in [-D, D]: 0 (pure eps-DP); a scale
// smaller by 1e-9 is not eps-DP at the shift D.
TEST(DiscreteLaplaceCertificate, PureDpByDirectSummationAndTight) {
  int n = 0;
  for (double D : kSens)
    for (double e : kEps) {
      SCOPED_TRACE(testing::Message() << "eps=" << e << " sens=" << D);
      const dpagg_calibration cal = calibrate("discrete_laplace", e, 0.0, D, true);
      const DiscreteLaplace dl(cal.scale);
      for (long long m = -static_cast<long long>(D); m <= static_cast<long long>(D); ++m)
        EXPECT_EQ(discrete_laplace_hockey(dl, e, m), 0.0L) << "shift " << m;
      const DiscreteLaplace less(cal.scale * (1 - 1e-9L));
      EXPECT_GT(discrete_laplace_hockey(less, e, static_cast<long long>(D)), 0.0L) << "not tight";
      ++n;
    }
  EXPECT_EQ(n, 21);
}

// 2e5 draws: integers only, symmetric, mean |X| and X^2 within 3 standard errors, and a
// chi-square test of the counts against the pmf (cells with expected count >= 20, the rest
// pooled in the two tails).
TEST(DiscreteLaplaceNoise, ChiSquareMomentsAndIntegerSupport) {
  uint64_t seed = 0xd15c;
  for (const double e : {0.1, 1.0, 3.0})
    for (const double D : {1.0, 4.0}) {
      SCOPED_TRACE(testing::Message() << "eps=" << e << " sens=" << D);
      const dpagg_calibration cal = calibrate("discrete_laplace", e, 0.0, D, true);
      const dpagg::Mechanism& m = mechanism_of(cal);
      const DiscreteLaplace dl(cal.scale);
      SeededRandom rng(seed++);
      const int n = 200000;
      std::map<long long, long> counts;
      double s1 = 0, s2 = 0, q2 = 0, q4 = 0, pos = 0, neg = 0;
      for (int i = 0; i < n; ++i) {
        const double x = m.sample(cal, rng);
        ASSERT_EQ(x, std::floor(x)) << "not an integer";
        ++counts[static_cast<long long>(x)];
        s1 += std::fabs(x);
        s2 += x * x;
        q2 += x * x;
        q4 += x * x * x * x;
        pos += x > 0;
        neg += x < 0;
      }
      const double m1 = s1 / n, m2 = s2 / n, sn = std::sqrt(double(n));
      EXPECT_NEAR(m1, cal.l1, 3 * std::sqrt(q2 / n - m1 * m1) / sn);
      EXPECT_NEAR(m2, cal.l2, 3 * std::sqrt(q4 / n - m2 * m2) / sn);
      EXPECT_NEAR(pos / (pos + neg), 0.5, 3 * 0.5 / std::sqrt(pos + neg));
      // Chi-square: cells k in [-K, K] with n P(k) >= 20, tails pooled.
      long long K = 0;
      while (n * dl.pmf(K + 1) >= 20) ++K;
      double chi2 = 0;
      int cells = 0;
      long lo_count = 0, hi_count = 0;
      for (const auto& [k, c] : counts) {
        if (k < -K) lo_count += c;
        if (k > K) hi_count += c;
      }
      LD tail = 0;
      for (long long k = K + 1; k <= dl.reach; ++k) tail += dl.pmf(k);
      for (long long k = -K; k <= K; ++k) {
        const double expect = n * static_cast<double>(dl.pmf(k));
        const double got = counts.count(k) ? counts[k] : 0;
        chi2 += (got - expect) * (got - expect) / expect;
        ++cells;
      }
      for (long c : {lo_count, hi_count}) {
        const double expect = n * static_cast<double>(tail);
        if (expect < 1e-3) continue;
        chi2 += (c - expect) * (c - expect) / expect;
        ++cells;
      }
      const double p = boost::math::gamma_q((cells - 1) / 2.0, chi2 / 2);
      EXPECT_GT(p, 1e-3) << "chi2=" << chi2 << " cells=" << cells;
    }
}

// Extreme uniforms (all-zero or all-one words): integer-valued, finite draws.
TEST(DiscreteLaplaceNoise, ExtremeUniformsGiveFiniteIntegers) {
  for (double e : {1e-10, 1.0, 1e9}) {
    const dpagg_calibration cal = calibrate("discrete_laplace", e, 0.0, 1.0, true);
    const dpagg::Mechanism& m = mechanism_of(cal);
    for (uint64_t w : {uint64_t(0), uint64_t(1), ~uint64_t(0), uint64_t(1) << 63}) {
      ScriptedRandom rng({w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, 1});
      for (int i = 0; i < 4; ++i) {
        const double x = m.sample(cal, rng);
        EXPECT_TRUE(std::isfinite(x)) << "eps=" << e;
        EXPECT_EQ(x, std::floor(x)) << "eps=" << e;
      }
    }
  }
}

// The stated tail against the summed pmf: an upper bound, within 1e-9 of it, a step function of
// the integer part of w.
TEST(DiscreteLaplaceNoise, TailIsATightUpperBound) {
  for (double e : {0.1, 1.0, 5.0})
    for (double D : {1.0, 3.0}) {
      const dpagg_calibration cal = calibrate("discrete_laplace", e, 0.0, D, true);
      const dpagg::Mechanism& m = mechanism_of(cal);
      const DiscreteLaplace dl(cal.scale);
      for (long long k = 0; k <= 200; ++k) {
        const LD tail = discrete_laplace_tail(dl, k);  // P(|X| > k)
        if (tail < 1e-280L) break;
        for (double frac : {0.0, 0.25, 0.999}) {
          const double t = m.noise_tail(cal, k + frac);
          EXPECT_GE(static_cast<LD>(t), tail * (1 - 1e-14L)) << "eps=" << e << " w=" << k + frac;
          EXPECT_LE(static_cast<LD>(t), tail * (1 + 1e-9L)) << "eps=" << e << " w=" << k + frac;
        }
      }
    }
}

TEST(DiscreteLaplaceCalibration, RefusesNonIntegerRequestsWithAHint) {
  dpagg_calibration cal;
  dpagg_error err;
  ASSERT_EQ(dpagg_calibrate_ex("discrete_laplace", 1.0, 0.0, 1.0, 0, &cal, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_NE(std::string(err.hint).find("laplace"), std::string::npos) << err.hint;
  EXPECT_NE(std::string(err.message).find("integer"), std::string::npos) << err.message;
  ASSERT_EQ(dpagg_calibrate_ex("discrete_laplace", 1.0, 0.0, 1.5, 1, &cal, &err), DPAGG_INVALID_PARAMETER);
}

// Every request in the documented ranges: a certified calibration (finite, integer draws) or an
// invalid-parameter error, never an internal error.
TEST(DiscreteLaplaceCalibration, ExtremeInputsCertifiedOrInvalid) {
  int ok = 0, refused = 0;
  SeededRandom rng(7);
  for (double e : {1e-10, 1e-6, 0.1, 1.0, 700.0, 1e5, 1e9})
    for (double d : {0.0, 1e-290, 0.5, std::nextafter(1.0, 0.0)})
      for (double D : {1.0, 2.0, 1e6, 1e9, 2e9, 1e150, 1e-150}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << D);
        dpagg_calibration cal;
        dpagg_error err;
        const int rc = dpagg_calibrate_ex("discrete_laplace", e, d, D, 1, &cal, &err);
        if (rc != DPAGG_OK) {
          EXPECT_EQ(rc, DPAGG_INVALID_PARAMETER) << err.message;
          ++refused;
          continue;
        }
        ++ok;
        EXPECT_TRUE(std::isfinite(cal.scale) && cal.scale > 0);
        EXPECT_EQ(cal.delta_bound, 0.0);
        EXPECT_TRUE(std::isfinite(cal.l1) && std::isfinite(cal.l2));
        const dpagg::Mechanism& m = mechanism_of(cal);
        for (double w : {0.0, 1.0, cal.scale, 1e300}) {
          const double t = m.noise_tail(cal, w);
          EXPECT_TRUE(t >= 0 && t <= 1) << "w=" << w;
        }
        for (int i = 0; i < 8; ++i) {
          const double x = m.sample(cal, rng);
          EXPECT_TRUE(std::isfinite(x));
          EXPECT_EQ(x, std::floor(x));
        }
      }
  std::printf("[ discrete_laplace ] extreme inputs: %d certified, %d refused\n", ok, refused);
  EXPECT_GT(ok, 60);
}

// Listed (dp_mechanisms(), spec parsing) although it serves integer-valued requests only; auto
// considers it for those only.
TEST(DiscreteLaplaceRegistry, ListedAndAutoForIntegerRequestsOnly) {
  const dpagg::Mechanism* m = dpagg::parse_spec("discrete_laplace").mechanism;
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id(), DPAGG_MECH_DISCRETE_LAPLACE);
  const auto& listed = dpagg::listed_mechanisms();
  EXPECT_NE(std::find(listed.begin(), listed.end(), m), listed.end());
  EXPECT_THROW(dpagg::parse_spec("discrete_laplace", true), dpagg::Error);  // no vector name
  const dpagg::PrivacyRequest real{1.0, 0.0, 1.0, false}, integer{1.0, 0.0, 1.0, true};
  EXPECT_FALSE(m->auto_considers(real));
  EXPECT_TRUE(m->auto_considers(integer));
  for (bool l1 : {false, true}) {
    bool in_real = false, in_int = false;
    for (const auto& c : dpagg::auto_candidates(real, l1)) in_real |= c.mechanism == DPAGG_MECH_DISCRETE_LAPLACE;
    for (const auto& c : dpagg::auto_candidates(integer, l1)) in_int |= c.mechanism == DPAGG_MECH_DISCRETE_LAPLACE;
    EXPECT_FALSE(in_real);
    EXPECT_TRUE(in_int);
  }
  // At delta = 0 on an integer-valued query it has less loss than Laplace and the (continuous)
  // staircase, so auto picks it; on a real-valued one it is not a candidate (the staircase wins).
  EXPECT_STREQ(dpagg::calibrate("auto", integer).spec, "discrete_laplace");
  EXPECT_STRNE(dpagg::calibrate("auto", real).spec, "discrete_laplace");
}

// The attack of this session's review: at sensitivity / epsilon beyond 2^53 the two geometric
// draws were multiples of their own ulps, so nearly cancelling draws gave small but coarse noise
// and the release showed the answer's low bits.  Scales beyond 2^40 are refused (auto then picks
// another mechanism), and every draw at the largest scale served is an exact integer far below 2^53.
TEST(DiscreteLaplaceNoise, LargeScalesRefusedAndDrawsExact) {
  EXPECT_THROW(dpagg_test::calibrate("discrete_laplace", 1e-10, 0, 1e9, true), dpagg::Error);
  EXPECT_THROW(dpagg_test::calibrate("discrete_laplace", 1e-10, 0, 1e6, true), dpagg::Error);
  EXPECT_STRNE(dpagg_test::calibrate("auto", 1e-10, 0, 1e9, true).spec, "discrete_laplace");
  dpagg_calibration cal = dpagg_test::calibrate("discrete_laplace", 1e-3, 0, 1e9, true);  // s = 1e12 < 2^40
  const dpagg::Mechanism& m = dpagg_test::mechanism_of(cal);
  SeededRandom rng(99);
  for (int i = 0; i < 20000; ++i) {
    const double x = m.sample(cal, rng);
    ASSERT_EQ(x, std::floor(x));
    ASSERT_LT(std::fabs(x), 0x1p51);
  }
}
