// test_samplers.cpp — the noise samplers and the uniform generator.
//
// The statistical tests are driven by a seeded test-only RandomSource (SeededRandom, in
// test_support.h), so they are deterministic; a looser set runs on SecureRandom itself.
#include <cmath>
#include <cstring>
#include <set>

#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "test_support.h"

using dpagg_test::calibrate;
using dpagg_test::ks_pvalue;
using dpagg_test::ks_statistic;
using dpagg_test::laplace_cdf;
using dpagg_test::mechanism_of;
using dpagg_test::normal_cdf;
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

// ---- the uniform generator ----

TEST(UniformOpen01, NeverZeroOrOne) {
  dpagg::SecureRandom srng;
  SeededRandom rng(5);
  for (int i = 0; i < 500000; ++i) {
    double a = srng.uniform_open01(), b = rng.uniform_open01();
    ASSERT_GT(a, 0.0);
    ASSERT_LT(a, 1.0);
    ASSERT_GT(b, 0.0);
    ASSERT_LT(b, 1.0);
  }
  // Adversarial streams: all zero bits gives the least positive double, never 0.
  ScriptedRandom zeros({0});
  double z = zeros.uniform_open01();
  EXPECT_GT(z, 0.0);
  EXPECT_EQ(z, std::numeric_limits<double>::denorm_min());
  // All one bits gives the largest double below 1, never 1.
  ScriptedRandom ones({~uint64_t{0}});
  EXPECT_EQ(ones.uniform_open01(), 1.0 - 0x1p-53);
  // Full resolution: a zero word then a word with only its lowest bit set lands in [2^-128, 2^-127).
  ScriptedRandom deep({0, 1, 0});
  double d = deep.uniform_open01();
  EXPECT_GE(d, 0x1p-128);
  EXPECT_LT(d, 0x1p-127);
}

TEST(UniformOpen01, BinadesHaveTheRightMass) {
  // P(U in [2^-k, 2^-k+1)) = 2^-k; the mean is 1/2.
  const size_t n = 1000000;
  SeededRandom rng(31337);
  std::vector<size_t> binade(16, 0);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    double u = rng.uniform_open01();
    sum += u;
    int k = -std::ilogb(u);  // u in [2^-k, 2^-k+1)
    if (k >= 1 && k < 16) ++binade[static_cast<size_t>(k)];
  }
  EXPECT_NEAR(sum / n, 0.5, 4 * std::sqrt(1.0 / 12 / n));
  for (int k = 1; k < 16; ++k) {
    double p = std::ldexp(1.0, -k);
    EXPECT_NEAR(static_cast<double>(binade[static_cast<size_t>(k)]) / n, p, 4 * std::sqrt(p * (1 - p) / n))
        << "binade 2^-" << k;
  }
}

TEST(Uniform53, OnTheGridInHalfOpenInterval) {
  SeededRandom rng(8);
  for (int i = 0; i < 100000; ++i) {
    double u = rng.uniform53();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_EQ(std::ldexp(u, 53), std::floor(std::ldexp(u, 53)));
  }
  ScriptedRandom ones({~uint64_t{0}});
  EXPECT_EQ(ones.uniform53(), 1.0 - 0x1p-53);
  ScriptedRandom zeros({0});
  EXPECT_EQ(zeros.uniform53(), 0.0);
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

// ---- SecureRandom ----

TEST(SecureRandom, IndependentInstancesDiffer) {
  dpagg::SecureRandom a, b;
  std::vector<uint64_t> wa, wb;
  for (int i = 0; i < 40; ++i) {
    wa.push_back(a.next_u64());
    wb.push_back(b.next_u64());
  }
  EXPECT_NE(wa, wb);
  std::set<uint64_t> distinct(wa.begin(), wa.end());
  distinct.insert(wb.begin(), wb.end());
  EXPECT_EQ(distinct.size(), 80u) << "80 random 64-bit words should all differ";
  // Bits are balanced: 80*64 bits, mean 1/2, sd sqrt(5120)/2 ~ 36.
  int ones = 0;
  for (uint64_t w : distinct) ones += __builtin_popcountll(w);
  EXPECT_NEAR(ones, 80 * 32, 6 * 36);
}

TEST(SecureRandom, CrossesPoolRefillsWithoutRepeats) {
  dpagg::SecureRandom a;
  std::set<uint64_t> seen;
  for (int i = 0; i < 3 * 512 + 7; ++i) seen.insert(a.next_u64());
  EXPECT_EQ(seen.size(), 3u * 512 + 7);
}

// A forked child must never draw the bytes still pooled in its parent (the postmaster forks
// backends; a backend that forked would otherwise share a stream with its child).
TEST(SecureRandom, ForkedChildDoesNotReuseTheParentsPool) {
  dpagg::SecureRandom parent;
  (void) parent.next_u64();  // the pool now holds 511 unused words
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dpagg::SecureRandom child;
    uint64_t w[16];
    for (auto& x : w) x = child.next_u64();
    ssize_t n = write(fds[1], w, sizeof(w));
    _exit(n == static_cast<ssize_t>(sizeof(w)) ? 0 : 1);
  }
  uint64_t from_child[16];
  ASSERT_EQ(read(fds[0], from_child, sizeof(from_child)), static_cast<ssize_t>(sizeof(from_child)));
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(fds[0]);
  close(fds[1]);
  std::set<uint64_t> mine;
  for (int i = 0; i < 511; ++i) mine.insert(parent.next_u64());
  for (uint64_t x : from_child) EXPECT_EQ(mine.count(x), 0u) << "the child replayed the parent's pool";
}

TEST(SecureRandom, CApiFillsBuffers) {
  unsigned char a[64], b[64];
  std::memset(a, 0, sizeof(a));
  std::memset(b, 0, sizeof(b));
  dpagg_error err;
  ASSERT_EQ(dpagg_secure_bytes(a, sizeof(a), &err), DPAGG_OK);
  ASSERT_EQ(dpagg_secure_bytes(b, sizeof(b), &err), DPAGG_OK);
  EXPECT_NE(std::memcmp(a, b, sizeof(a)), 0);
  int nonzero = 0;
  for (unsigned char c : a) nonzero += c != 0;
  EXPECT_GT(nonzero, 48);
  EXPECT_EQ(dpagg_secure_bytes(a, 0, &err), DPAGG_OK);
}
