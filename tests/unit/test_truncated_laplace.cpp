// test_truncated_laplace.cpp — the truncated Laplace mechanism (src/core/mechanisms/truncated_laplace/,
// docs/truncated_laplace.md §1): lambda and A against the formulas of Geng et al. (AISTATS 2020),
// losses against quadrature, the certificate re-checked over shifts in [-D, D] by quadrature of
// the hockey-stick divergence (tests/unit/oracles/truncated_discrete_laplace.h: feasible,
// certified, tight), the sampler (KS, moments, support), the tail, extreme inputs, and E|X| on the
// paper grid against the analytic Gaussian.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mechanisms/auto/auto.h"
#include "oracles/truncated_discrete_laplace.h"
#include "test_support.h"

using dpagg_oracle::LD;
using dpagg_oracle::Quad;
using dpagg_oracle::truncated_laplace_abs_moment;
using dpagg_oracle::truncated_laplace_cdf;
using dpagg_oracle::truncated_laplace_hockey;
using dpagg_oracle::truncated_laplace_tail;
using dpagg_test::calibrate;
using dpagg_test::mechanism_of;
using dpagg_test::rel_err;
using dpagg_test::ScriptedRandom;
using dpagg_test::SeededRandom;

namespace {

// A = (D/eps) ln(1 + (e^eps - 1)/(2 delta)), in long double from the paper's formula.
LD paper_A(LD eps, LD delta, LD D) { return D / eps * std::log1p(std::expm1(eps) / (2 * delta)); }

const double kEps[] = {0.01, 0.1, 0.5, 1, 2, 5, 10};
const double kDelta[] = {0.5, 0.05, 1e-3, 1e-5, 1e-8, 1e-12};
const double kSens[] = {1.0, 123.456};

}  // namespace

TEST(TruncatedLaplaceCalibration, PaperFormulasAndQuadratureMoments) {
  for (double D : kSens)
    for (double e : kEps)
      for (double d : kDelta) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << D);
        const dpagg_calibration cal = calibrate("truncated_laplace", e, d, D);
        EXPECT_EQ(cal.mechanism, DPAGG_MECH_TRUNCATED_LAPLACE);
        ASSERT_EQ(cal.nparams, 1);
        const LD lambda = static_cast<LD>(D) / e, A = paper_A(e, d, D);
        // Never less noise than the paper's, and only a rounding margin more.
        EXPECT_GE(static_cast<LD>(cal.scale), lambda);
        EXPECT_LT(rel_err(cal.scale, static_cast<double>(lambda)), 1e-13);
        EXPECT_GE(static_cast<LD>(cal.params[0]), A);
        EXPECT_LT(rel_err(cal.params[0], static_cast<double>(A)), 1e-10);
        EXPECT_LE(cal.delta_bound, d);
        // Losses of the calibrated noise by quadrature.
        const Quad m1 = truncated_laplace_abs_moment(cal.scale, cal.params[0], 1);
        const Quad m2 = truncated_laplace_abs_moment(cal.scale, cal.params[0], 2);
        EXPECT_LT(rel_err(cal.l1, static_cast<double>(m1.value)), 1e-12);
        EXPECT_LT(rel_err(cal.l2, static_cast<double>(m2.value)), 1e-12);
        // Integer-valued requests: the same calibration (the worst shift is D).
        if (D == 1.0) {
          const dpagg_calibration ci = calibrate("truncated_laplace", e, d, D, true);
          EXPECT_EQ(ci.scale, cal.scale);
          EXPECT_EQ(ci.params[0], cal.params[0]);
        }
        EXPECT_TRUE(std::isnan(mechanism_of(cal).zcdp_rho(cal)));
      }
}

// Near-uniform noise (A/lambda tiny) and extreme A/lambda: the moments keep their precision.
TEST(TruncatedLaplaceCalibration, MomentsWithoutCancellation) {
  struct C { double eps, delta; };
  for (const C c : {C{1e-6, 0.4}, C{1e-4, 0.9}, C{0.01, 0.3}, C{3, 1e-200}, C{30, 1e-6}}) {
    SCOPED_TRACE(testing::Message() << "eps=" << c.eps << " delta=" << c.delta);
    const dpagg_calibration cal = calibrate("truncated_laplace", c.eps, c.delta, 1.0);
    const Quad m1 = truncated_laplace_abs_moment(cal.scale, cal.params[0], 1);
    const Quad m2 = truncated_laplace_abs_moment(cal.scale, cal.params[0], 2);
    EXPECT_LT(rel_err(cal.l1, static_cast<double>(m1.value)), 1e-12);
    EXPECT_LT(rel_err(cal.l2, static_cast<double>(m2.value)), 1e-12);
    EXPECT_LE(cal.l1, cal.params[0] / 2 * (1 + 1e-15));  // at most the uniform's A/2
  }
}

// The profile at shifts mu in [-D, D], by quadrature of the positive part: at most delta and the
// certified bound, increasing towards |mu| = D, tight at D (>= delta (1 - 1e-6)); and a slightly
// smaller A, or the noise scaled down by 1e-6 (lambda and A), is not private.
TEST(TruncatedLaplaceCertificate, FeasibleCertifiedAndTightOverShifts) {
  int n = 0;
  for (double D : kSens)
    for (double e : kEps)
      for (double d : kDelta) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << D);
        const dpagg_calibration cal = calibrate("truncated_laplace", e, d, D);
        const LD lambda = cal.scale, A = cal.params[0];
        const Quad at_d = truncated_laplace_hockey(lambda, A, e, D);
        EXPECT_LE(at_d.value + at_d.err, static_cast<LD>(d));
        EXPECT_LE(at_d.value + at_d.err, static_cast<LD>(cal.delta_bound) * (1 + 1e-12L));
        EXPECT_GE(at_d.value, static_cast<LD>(d) * (1 - 1e-6L)) << "not tight";
        EXPECT_GE(at_d.value, static_cast<LD>(cal.delta_bound) * (1 - 1e-6L)) << "bound loose";
        LD prev = 0;
        for (int i = 1; i <= 8; ++i) {
          const LD mu = static_cast<LD>(D) * i / 8;
          const Quad plus = truncated_laplace_hockey(lambda, A, e, mu);
          const Quad minus = truncated_laplace_hockey(lambda, A, e, -mu);
          EXPECT_LE(plus.value, at_d.value * (1 + 1e-12L)) << "shift " << (double)mu;
          EXPECT_LE(minus.value, at_d.value * (1 + 1e-12L)) << "shift -" << (double)mu;
          EXPECT_GE(plus.value, prev * (1 - 1e-12L)) << "not increasing at " << (double)mu;
          prev = plus.value;
        }
        const Quad short_a = truncated_laplace_hockey(lambda, A * (1 - 1e-6L), e, D);
        EXPECT_GT(short_a.value - short_a.err, static_cast<LD>(d)) << "A not tight";
        const Quad shrunk = truncated_laplace_hockey(lambda * (1 - 1e-6L), A * (1 - 1e-6L), e, D);
        EXPECT_GT(shrunk.value - shrunk.err, static_cast<LD>(d)) << "scale not tight";
        ++n;
      }
  EXPECT_EQ(n, 84);
}

TEST(TruncatedLaplaceNoise, KolmogorovSmirnovMomentsAndSupport) {
  struct C { double eps, delta, sens; };
  uint64_t seed = 0x7a11;
  for (const C c : {C{1, 1e-5, 1}, C{0.1, 1e-3, 1}, C{0.01, 0.3, 2}, C{5, 0.05, 10}, C{2, 1e-12, 0.5}}) {
    const dpagg_calibration cal = calibrate("truncated_laplace", c.eps, c.delta, c.sens);
    const double lambda = cal.scale, A = cal.params[0];
    dpagg_test::check_noise(cal, seed++, [&](double x) { return truncated_laplace_cdf(x, lambda, A); });
    SeededRandom rng(seed++);
    const dpagg::Mechanism& m = mechanism_of(cal);
    double maxabs = 0;
    for (int i = 0; i < 200000; ++i) maxabs = std::max(maxabs, std::fabs(m.sample(cal, rng)));
    EXPECT_LE(maxabs, A);
    // The far end of the support is reached: with A/lambda small the noise is near uniform.
    if (A / lambda < 1) {
      EXPECT_GT(maxabs, A * 0.999);
    }
  }
}

// Extreme uniforms: the smallest (all zero bits) maps to |x| = A exactly at most, the largest to
// a value near 0; never beyond A, never NaN.
TEST(TruncatedLaplaceNoise, ExtremeUniformsStayInSupport) {
  for (double d : {0.9, 1e-5, 1e-290})
    for (double e : {1e-10, 1.0, 1e3, 1e9}) {
      dpagg_calibration cal;
      dpagg_error err;
      if (dpagg_calibrate_ex("truncated_laplace", e, d, 1.0, 0, &cal, &err) != DPAGG_OK) continue;
      const dpagg::Mechanism& m = mechanism_of(cal);
      for (uint64_t w : {uint64_t(0), uint64_t(1), ~uint64_t(0), uint64_t(1) << 63, uint64_t(12345)}) {
        ScriptedRandom rng({w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, 1});
        for (int i = 0; i < 4; ++i) {
          const double x = m.sample(cal, rng);
          EXPECT_TRUE(std::isfinite(x));
          EXPECT_LE(std::fabs(x), cal.params[0]) << "eps=" << e << " delta=" << d;
        }
      }
    }
}

// The stated tail against the CDF of the oracle: an upper bound, within 1e-9 of it, 0 at A.
TEST(TruncatedLaplaceNoise, TailIsATightUpperBound) {
  for (double e : {0.01, 1.0, 10.0})
    for (double d : {0.3, 1e-5, 1e-12}) {
      const dpagg_calibration cal = calibrate("truncated_laplace", e, d, 3.0);
      const dpagg::Mechanism& m = mechanism_of(cal);
      const double A = cal.params[0];
      for (int i = 0; i <= 100; ++i) {
        const double w = A * i / 100.0;
        const LD exact = truncated_laplace_tail(cal.scale, A, w);
        const LD t = m.noise_tail(cal, w);
        EXPECT_GE(t, exact * (1 - 1e-15L)) << "eps=" << e << " delta=" << d << " w=" << w;
        EXPECT_LE(t, exact * (1 + 1e-9L)) << "eps=" << e << " delta=" << d << " w=" << w;
      }
      EXPECT_EQ(m.noise_tail(cal, A), 0.0);
      EXPECT_EQ(m.noise_tail(cal, 2 * A), 0.0);
      EXPECT_GT(m.noise_tail(cal, std::nextafter(A, 0.0)), 0.0);
    }
}

TEST(TruncatedLaplaceCalibration, ZeroDeltaIsRefusedWithAHint) {
  dpagg_calibration cal;
  dpagg_error err;
  ASSERT_EQ(dpagg_calibrate_ex("truncated_laplace", 1.0, 0.0, 1.0, 0, &cal, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_NE(std::string(err.hint).find("laplace"), std::string::npos) << err.hint;
  // The mechanism's own check says the same to a caller that skipped the registry's.
  try {
    dpagg::parse_spec("truncated_laplace").mechanism->validate(dpagg::PrivacyRequest{1, 0, 1}, {});
    ADD_FAILURE() << "accepted delta = 0";
  } catch (const dpagg::Error& e) {
    EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER);
    EXPECT_NE(e.hint().find("laplace"), std::string::npos);
  }
}

// Every (eps, delta, sensitivity) in the documented ranges: a certified calibration with finite
// losses and a finite tail and draws, or an invalid-parameter error; never an internal error.
TEST(TruncatedLaplaceCalibration, ExtremeInputsCertifiedOrInvalid) {
  const double eps[] = {1e-10, 1e-6, 0.1, 1, 30, 700, 710, 1e5, 1e9};
  const double deltas[] = {1e-290, 1e-100, 1e-10, 0.5, 0.999, std::nextafter(1.0, 0.0)};
  const double sens[] = {1e-150, 1e-10, 1, 1e10, 1e150};
  int ok = 0, refused = 0;
  SeededRandom rng(99);
  for (double e : eps)
    for (double d : deltas)
      for (double D : sens)
        for (int integer : {0, 1}) {
          if (integer && D != 1) continue;
          SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << D);
          dpagg_calibration cal;
          dpagg_error err;
          const int rc = dpagg_calibrate_ex("truncated_laplace", e, d, D, integer, &cal, &err);
          if (rc != DPAGG_OK) {
            EXPECT_EQ(rc, DPAGG_INVALID_PARAMETER) << err.message;
            ++refused;
            continue;
          }
          ++ok;
          EXPECT_TRUE(std::isfinite(cal.scale) && cal.scale > 0);
          EXPECT_TRUE(std::isfinite(cal.params[0]) && cal.params[0] > 0);
          EXPECT_LE(cal.delta_bound, d);
          EXPECT_TRUE(std::isfinite(cal.l1) && std::isfinite(cal.l2));
          EXPECT_LE(cal.l1, cal.params[0]);
          const dpagg::Mechanism& m = mechanism_of(cal);
          for (double w : {0.0, cal.scale, cal.params[0] / 2}) {
            const double t = m.noise_tail(cal, w);
            EXPECT_TRUE(t >= 0 && t <= 1) << "w=" << w;
          }
          for (int i = 0; i < 8; ++i) {
            const double x = m.sample(cal, rng);
            EXPECT_TRUE(std::isfinite(x));
            EXPECT_LE(std::fabs(x), cal.params[0]);
          }
        }
  std::printf("[ truncated_laplace ] extreme inputs: %d certified, %d refused\n", ok, refused);
  EXPECT_GT(ok, 100);
}

// E|X| on the paper grid (D = 1) against the analytic Gaussian's sigma sqrt(2/pi): truncated
// Laplace wins at small epsilon.  Ratios printed for the record (docs/truncated_laplace.md §3).
TEST(TruncatedLaplaceLoss, BeatsTheAnalyticGaussianAtSmallEpsilon) {
  const double eps[] = {0.1, 0.25, 0.5, 1, 2, 5, 10};
  const double deltas[] = {5e-7, 1e-5, 1e-3, 0.05};
  std::printf("[ truncated_laplace ] E|X| ratio truncated_laplace / analytic_gaussian (D = 1)\n");
  std::printf("[ truncated_laplace ] %8s", "eps");
  for (double d : deltas) std::printf("  delta=%-7g", d);
  std::printf("\n");
  for (double e : eps) {
    std::printf("[ truncated_laplace ] %8g", e);
    for (double d : deltas) {
      const dpagg_calibration tl = calibrate("truncated_laplace", e, d, 1.0);
      const dpagg_calibration ag = calibrate("analytic_gaussian", e, d, 1.0);
      const double ratio = tl.l1 / (ag.scale * std::sqrt(2 / M_PI));
      std::printf("  %13.4f", ratio);
      if (e <= 0.5) {
        EXPECT_LT(ratio, 1.0) << "eps=" << e << " delta=" << d;
      }
    }
    std::printf("\n");
  }
}

// auto may choose it (a scalar candidate), and does where it has the least loss.
TEST(TruncatedLaplaceLoss, IsAnAutoCandidate) {
  const dpagg::PrivacyRequest req{0.1, 1e-3, 1.0, false};
  bool seen = false;
  for (const auto& c : dpagg::auto_candidates(req, true)) seen |= c.mechanism == DPAGG_MECH_TRUNCATED_LAPLACE;
  EXPECT_TRUE(seen);
  dpagg::PrivacyRequest vec{1.0, 1e-5, 1.0};
  vec.vector = true;
  vec.dimension = 3;
  EXPECT_FALSE(dpagg::parse_spec("truncated_laplace").mechanism->auto_considers(vec));
}
