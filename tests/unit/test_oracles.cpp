// test_oracles.cpp — the independent evaluations of tests/unit/oracles/ checked against closed
// forms, published vectors and each other before the tests of the core rely on them:
//  * gaussian_mp and hockey_stick: the Gaussian profile (G1) in 50 digits and by quadrature agree
//    with vectors S5 / D6 of docs/generalized_gaussian.md §6 and with each other; the Laplace
//    profile by quadrature with vector D1 and its closed form;
//  * mixture_profile: K = 0 is the Gaussian, Lemma B.5's K = 1 vectors and the single-shift and
//    eta = 0.01 values of docs/mixtures.md §8, and the quasi-Gaussian's tail identity at sigma1.
#include <algorithm>
#include <cmath>

#include "mechanisms/quasi_gaussian/quasi_gaussian.h"
#include "math/gaussian.h"
#include "oracles/gaussian_mp.h"
#include "oracles/hockey_stick.h"
#include "oracles/mixture_profile.h"
#include "test_support.h"

using dpagg_oracle::DeltaValue;
using dpagg_oracle::gaussian_delta_mp;
using dpagg_oracle::gaussian_delta_quad;
using dpagg_oracle::laplace_delta_quad;
using dpagg_oracle::LD;
using dpagg_oracle::Mixture;
using dpagg_oracle::mp;
using dpagg_oracle::profile_sup;
using dpagg_oracle::ProfileEvaluator;
using dpagg_oracle::Sup;
using dpagg_test::rel_err;

// The two independent evaluators agree with each other and with the reference vectors.
TEST(IndependentEvaluators, AgreeWithVectorsAndEachOther) {
  // Vectors S5 / D6 of docs/generalized_gaussian.md §6: (G1) at σ = 1, Δ = 1.
  EXPECT_LT(rel_err(static_cast<double>(gaussian_delta_mp(1.0, 0.5, 1.0)), 0.23842170813), 1e-10);
  EXPECT_LT(rel_err(static_cast<double>(gaussian_delta_mp(1.0, 1.0, 1.0)), 0.12693673751), 1e-10);
  EXPECT_LT(rel_err(static_cast<double>(gaussian_delta_quad(1.0, 0.5, 1.0).value), 0.23842170813), 1e-10);
  EXPECT_LT(rel_err(static_cast<double>(gaussian_delta_quad(1.0, 1.0, 1.0).value), 0.12693673751), 1e-10);
  for (double s : {0.2, 1.0, 3.7, 40.0, 600.0})
    for (double e : {0.01, 1.0, 10.0}) {
      double a = static_cast<double>(gaussian_delta_mp(s, e, 1.0));
      double q = static_cast<double>(gaussian_delta_quad(s, e, 1.0).value);
      if (a > 1e-200) {
        EXPECT_LT(rel_err(q, a), 1e-12) << "sigma=" << s << " eps=" << e;
      }
    }
}

TEST(IndependentEvaluators, LaplaceD1ByQuadrature) {
  struct V { double b, eps, delta; };
  const V vs[] = {{1, 0.5, 0.2211992169}, {1, 0.9, 0.0487705755}, {2, 0.1, 0.1812692469},
                  {1.0 / 3.0, 2, 0.3934693403}};
  for (const V& v : vs) {
    double q = static_cast<double>(laplace_delta_quad(v.b, v.eps, 1.0).value);
    EXPECT_LT(rel_err(q, v.delta), 1e-9) << "b=" << v.b << " eps=" << v.eps << " got " << q;
    // and the closed form (docs/generalized_gaussian.md §5) agrees with the quadrature
    double closed = std::max(0.0, -std::expm1((v.eps - 1.0 / v.b) / 2));
    EXPECT_LT(rel_err(q, closed), 1e-13);
  }
  // Pure DP at b = Δ/eps: nothing to integrate.
  EXPECT_EQ(laplace_delta_quad(2.0, 0.5, 1.0).value, 0.0L);
}

TEST(MixtureEvaluator, SingleGaussianIsTheAnalyticProfile) {
  // K = 0: delta(phi) is the Gaussian profile (G1) with D -> phi, increasing in phi; at sigma_AG
  // the sup is delta.
  for (double e : {0.5, 1.0, 5.0})
    for (double s : {0.3, 1.0, 3.7}) {
      Mixture g = Mixture::multi(e, 0, s);
      ProfileEvaluator ev(g, e);
      for (double phi : {0.25, 0.6, 1.0}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " s=" << s << " phi=" << phi);
        const mp want = gaussian_delta_mp(s, e, phi);
        DeltaValue dv = ev.at(phi);
        // Where the violating set starts beyond the scanned 13 sigma, only the upper allowance
        // (the shifted mass beyond the scan, < 1e-38) covers it.
        EXPECT_LE(want, mp(dv.upper) * (1 + 1e-12));
        if (want > 1e-30) {
          EXPECT_LT(rel_err(static_cast<double>(dv.value), static_cast<double>(want)), 1e-12);
        }
      }
    }
  const double s_ag = dpagg::analytic_gaussian_sigma(1.0, 1e-5, 1.0);  // checked in test_gaussian_rules
  Sup sup = profile_sup(Mixture::multi(1.0, 0, s_ag), 1.0, 400, 1);
  EXPECT_NEAR(static_cast<double>(sup.argmax), 1.0, 1e-12);
  EXPECT_LT(rel_err(static_cast<double>(sup.sup), 1e-5), 1e-9);
}

TEST(MixtureEvaluator, LemmaB5AndSection29Vectors) {
  // Lemma B.5 (docs/mixtures.md §2.6, values in §8): K = 1, sigma = 1/sqrt(2 eps): sup at phi = 1,
  // below 1/(e^eps + 2).
  const double rows[][2] = {{3, 0.038109}, {5, 0.006116}, {10, 4.4604e-5}};
  for (const auto& r : rows) {
    const double e = r[0];
    Sup s = profile_sup(Mixture::multi(e, 1, 1 / std::sqrt(2 * e)), e, 500, 1);
    EXPECT_NEAR(static_cast<double>(s.argmax), 1.0, 1e-3) << "eps=" << e;
    EXPECT_LT(rel_err(static_cast<double>(s.sup), r[1]), 5e-5) << "eps=" << e << " sup=" << (double)s.sup;
    EXPECT_LT(static_cast<double>(s.sup), 1 / (std::exp(e) + 2));
  }
  // docs/mixtures.md §8 single shift: eps = 1, K = 16, sigma = 0.35755, phi = 0.945:
  // delta(phi) = 9.91e-6 (3 digits, brute-force Simpson).
  Mixture m = Mixture::multi(1.0, 16, 0.35755);
  ProfileEvaluator ev(m, 1.0);
  EXPECT_NEAR(static_cast<double>(ev.at(0.945L).value), 9.91e-6, 0.006e-6);
  // docs/mixtures.md §8: sigma = 0.35755085 is the smallest sigma whose sup over 2000 shifts is
  // (1 - eta) delta = 0.99e-5 (Theorem 3.2, eta = 0.01); worst phi 0.945.
  Sup s = profile_sup(Mixture::multi(1.0, 16, 0.35755085), 1.0);
  EXPECT_LT(rel_err(static_cast<double>(s.sup), 0.99e-5), 1e-4) << "sup=" << (double)s.sup;
  EXPECT_NEAR(static_cast<double>(s.argmax), 0.945, 0.002);
  // The certificate prototype's sigma* = 0.3575408 (docs/multi_gaussian_certificate.md, "Why not
  // a grid of shifts"; 7 digits, trapezoid prototype): the profile is
  // steep here (d log delta / d log sigma ~ -500), so its sup is only within 1% of 1e-5.
  Sup s2 = profile_sup(Mixture::multi(1.0, 16, 0.3575408), 1.0);
  EXPECT_LT(rel_err(static_cast<double>(s2.sup), 1e-5), 1e-2) << "sup=" << (double)s2.sup;
}

TEST(MixtureEvaluator, QuasiTailIdentityIsExactAtSigma1) {
  // Theorem 4.2's proof: at phi = 1 the violation is exactly delta h1/h2 when the ratio condition
  // holds, so at sigma = sigma1 (tail condition binding) delta(1) = delta.
  for (double e : {0.5, 2.0, 5.0})
    for (double d : {1e-3, 1e-7}) {
      dpagg::QuasiCalibration q = dpagg::quasi_gaussian_calibrate(e, d);
      ASSERT_GT(q.sigma1, q.sigma2);
      Mixture m = Mixture::quasi(e, q.sigma1);
      ProfileEvaluator ev(m, e);
      DeltaValue dv = ev.at(1.0L);
      EXPECT_LT(rel_err(static_cast<double>(dv.value), d), 1e-9) << "eps=" << e << " delta=" << d;
      EXPECT_LT(rel_err(static_cast<double>(ev.in_50_digits(1.0L, dv)), d), 1e-9);
    }
  // Density pieces integrate to 1 and are continuous at 0.
  Mixture m = Mixture::quasi(1.0, 0.3);
  EXPECT_NEAR(static_cast<double>(m.mass<LD>(-INFINITY, INFINITY)), 1.0, 1e-15);
  EXPECT_NEAR(static_cast<double>(m.density(-1e-15L) / m.density(0)), 1.0, 1e-12);
}
