// test_samplers.cpp — the shared noise samplers (src/core/samplers.cpp: the standard normal and
// Laplace), the KS machinery the statistical tests rely on, and the noise of the mechanisms that
// draw through them directly (analytic_gaussian, classic_gaussian, laplace) against the closed
// forms of their calibrations.
//
// The statistical tests are driven by a seeded test-only RandomSource (SeededRandom, in
// test_support.h), so they are deterministic; a looser set runs on SecureRandom itself.
#include <cmath>
#include <cstring>
#include <vector>

#include "oracles/noise_cdf.h"
#include "test_support.h"

using dpagg_oracle::laplace_cdf;
using dpagg_oracle::normal_cdf;
using dpagg_test::calibrate;
using dpagg_test::ks_pvalue;
using dpagg_test::ks_statistic;
using dpagg_test::mechanism_of;
using dpagg_test::ScriptedRandom;
using dpagg_test::SeededRandom;

namespace {

constexpr size_t kDraws = 100000;

struct Moments {
  double l1 = 0, l2 = 0, mean = 0, positive = 0;
};

Moments moments(const std::vector<double>& xs) {
  Moments m;
  for (double x : xs) {
    m.l1 += std::fabs(x);
    m.l2 += x * x;
    m.mean += x;
    m.positive += x > 0;
  }
  const double n = static_cast<double>(xs.size());
  m.l1 /= n;
  m.l2 /= n;
  m.mean /= n;
  m.positive /= n;
  return m;
}

// The expected value, standard deviation of one draw, of |X| and X^2 for the noise of `cal`.
struct LossLaw {
  double sd_abs, sd_sq, sd;
};
LossLaw loss_law(const dpagg_calibration& cal) {
  const double s = cal.scale;
  if (std::strcmp(cal.spec, "laplace") == 0)  // |X| ~ Exp(b); E X^4 = 24 b^4
    return {s, std::sqrt(20.0) * s * s, std::sqrt(2.0) * s};
  // Gaussian: Var|X| = s^2 (1 - 2/pi); Var X^2 = 2 s^4
  return {s * std::sqrt(1 - 2 / M_PI), std::sqrt(2.0) * s * s, s};
}

// Draws of a mechanism's noise, KS against the exact CDF, losses within k standard errors of
// the closed forms stored in the calibration.
void check_mechanism_noise(const dpagg_calibration& cal, dpagg::RandomSource& rng, double k_se,
                           double min_p) {
  SCOPED_TRACE(testing::Message() << cal.spec << " eps=" << cal.epsilon << " delta=" << cal.delta);
  const dpagg::Mechanism& m = mechanism_of(cal);
  std::vector<double> xs(kDraws);
  for (double& x : xs) x = m.sample(cal, rng);
  Moments mo = moments(xs);
  LossLaw law = loss_law(cal);
  const double sn = std::sqrt(static_cast<double>(kDraws));
  EXPECT_NEAR(mo.l1, cal.l1, k_se * law.sd_abs / sn);
  EXPECT_NEAR(mo.l2, cal.l2, k_se * law.sd_sq / sn);
  EXPECT_NEAR(mo.mean, 0.0, k_se * law.sd / sn);
  EXPECT_NEAR(mo.positive, 0.5, k_se * 0.5 / sn);
  const double s = cal.scale;
  const bool lap = std::strcmp(cal.spec, "laplace") == 0;
  double d = ks_statistic(xs, [&](double x) { return lap ? laplace_cdf(x, s) : normal_cdf(x / s); });
  EXPECT_GT(ks_pvalue(d, kDraws), min_p) << "KS statistic " << d;
}

}  // namespace

TEST(KsHelper, DetectsAWrongDistribution) {
  // The KS machinery itself must have power: normal draws scaled by 1.05 are rejected.
  SeededRandom rng(11);
  std::vector<double> xs(kDraws);
  for (double& x : xs) x = 1.05 * dpagg::sample_standard_normal(rng);
  EXPECT_LT(ks_pvalue(ks_statistic(xs, normal_cdf), kDraws), 1e-6);
  // and Laplace draws are not mistaken for normal ones of the same variance
  for (double& x : xs) x = dpagg::sample_laplace(1.0 / std::sqrt(2.0), rng);
  EXPECT_LT(ks_pvalue(ks_statistic(xs, normal_cdf), kDraws), 1e-6);
}

TEST(StandardNormalSampler, KolmogorovSmirnovAndMoments) {
  SeededRandom rng(20240601);
  std::vector<double> xs(kDraws);
  for (double& x : xs) x = dpagg::sample_standard_normal(rng);
  Moments mo = moments(xs);
  const double sn = std::sqrt(static_cast<double>(kDraws));
  EXPECT_NEAR(mo.l1, std::sqrt(2 / M_PI), 3 * std::sqrt(1 - 2 / M_PI) / sn);
  EXPECT_NEAR(mo.l2, 1.0, 3 * std::sqrt(2.0) / sn);
  EXPECT_NEAR(mo.mean, 0.0, 3 / sn);
  double d = ks_statistic(xs, normal_cdf);
  EXPECT_GT(ks_pvalue(d, kDraws), 1e-3) << "KS statistic " << d;
}

TEST(LaplaceSampler, KolmogorovSmirnovAndMoments) {
  for (double b : {1.0, 3.7, 2.5e-4}) {
    SCOPED_TRACE(testing::Message() << "b=" << b);
    SeededRandom rng(20240601);  // the same stream for every b: the draws scale exactly
    std::vector<double> xs(kDraws);
    for (double& x : xs) x = dpagg::sample_laplace(b, rng);
    Moments mo = moments(xs);
    const double sn = std::sqrt(static_cast<double>(kDraws));
    EXPECT_NEAR(mo.l1, b, 3 * b / sn);
    EXPECT_NEAR(mo.l2, 2 * b * b, 3 * std::sqrt(20.0) * b * b / sn);
    EXPECT_NEAR(mo.positive, 0.5, 3 * 0.5 / sn);
    double d = ks_statistic(xs, [b](double x) { return laplace_cdf(x, b); });
    EXPECT_GT(ks_pvalue(d, kDraws), 1e-3) << "KS statistic " << d;
  }
}

TEST(MechanismNoise, MatchesCalibratedLossesSeeded) {
  SeededRandom rng(99);
  check_mechanism_noise(calibrate("analytic_gaussian", 1.0, 1e-5, 2.0), rng, 3, 1e-3);
  check_mechanism_noise(calibrate("classic_gaussian", 0.5, 1e-6, 1.0), rng, 3, 1e-3);
  check_mechanism_noise(calibrate("laplace", 0.5, 0.0, 1.0), rng, 3, 1e-3);
  check_mechanism_noise(calibrate("laplace", 2.0, 1e-3, 10.0), rng, 3, 1e-3);
}

TEST(MechanismNoise, MatchesCalibratedLossesSecureRandom) {
  dpagg::SecureRandom rng;
  check_mechanism_noise(calibrate("analytic_gaussian", 0.3, 1e-8, 1.0), rng, 5, 1e-6);
  check_mechanism_noise(calibrate("laplace", 1.0, 0.0, 1.0), rng, 5, 1e-6);
}

TEST(MechanismNoise, TailProbabilities) {
  // 10^6 draws: tail masses beyond a few scales within 4 standard errors.
  const size_t n = 1000000;
  SeededRandom rng(4242);
  size_t g3 = 0, g4 = 0, l10 = 0;
  for (size_t i = 0; i < n; ++i) {
    double z = std::fabs(dpagg::sample_standard_normal(rng));
    g3 += z > 3;
    g4 += z > 4;
    l10 += std::fabs(dpagg::sample_laplace(1.0, rng)) > 10;
  }
  auto check = [n](size_t count, double p, const char* what) {
    double se = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(static_cast<double>(count) / n, p, 4 * se) << what;
  };
  check(g3, 2 * 0.0013498980316301, "P(|Z| > 3)");
  check(g4, 2 * 3.1671241833119863e-05, "P(|Z| > 4)");
  check(l10, std::exp(-10.0), "P(|Laplace(1)| > 10)");
}

TEST(Samplers, FiniteOnExtremeStreams) {
  for (uint64_t w : {uint64_t{0}, ~uint64_t{0}, uint64_t{1}, uint64_t{1} << 63}) {
    ScriptedRandom a({w}), b({w});
    double z = dpagg::sample_standard_normal(a);
    double l = dpagg::sample_laplace(2.0, b);
    EXPECT_TRUE(std::isfinite(z)) << std::hex << w;
    EXPECT_TRUE(std::isfinite(l)) << std::hex << w;
    EXPECT_LE(std::fabs(z), 38.6) << "the Gaussian tail is cut only beyond ~38.6 sigma";
    EXPECT_LE(std::fabs(l), 2.0 * 745) << "the Laplace tail is cut only beyond ~745 b";
  }
  // The all-zero stream gives the largest radius Box-Muller can produce.
  ScriptedRandom zeros({0});
  EXPECT_NEAR(dpagg::sample_standard_normal(zeros), std::sqrt(2 * 1074 * std::log(2.0)), 1e-9);
}
