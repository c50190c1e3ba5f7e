// test_certificates.cpp — every calibration's privacy certificate re-checked by code paths
// independent of src/core/gaussian.cpp and mechanisms/laplace.cpp:
//
//  (a) the Gaussian profile, eq. (G1) of docs/gaussian_rules.md, in 50-digit binary floating point
//      (boost::multiprecision::cpp_bin_float_50, Boost's multiprecision erfc);
//  (b) numerical quadrature, in long double, of the hockey-stick divergence
//        delta(eps) = ∫ (p(x − Δ) − e^eps p(x))_+ dx
//                   = ∫_{ℓ(x) > eps} p(x − Δ) (1 − e^{eps − ℓ(x)}) dx,
//      ℓ(x) = log p(x − Δ) − log p(x) the privacy-loss function, its threshold located by
//      bisection (no closed form for the tail probabilities is used).
//
// For each calibration: the profile at the returned scale is <= delta (feasible), the core's
// certified delta_bound really bounds it, and the scale shrunk by 1e-9 relative is infeasible
// (tight).
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

#include "math/gaussian.h"
#include "mechanisms/generalized_gaussian/generalized_gaussian.h"
#include "mechanisms/osgt/osgt.h"
#include "test_support.h"

using dpagg_test::calibrate;
using dpagg_test::rel_err;

namespace {

using mp = boost::multiprecision::cpp_bin_float_50;

// ---- (a) (G1) in 50 digits: Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ), Φ(x) = erfc(−x/√2)/2.
mp gaussian_delta_mp(double sigma_d, double eps_d, double sens_d) {
  const mp sigma = sigma_d, eps = eps_d, sens = sens_d;
  const mp sqrt2 = boost::multiprecision::sqrt(mp(2));
  const mp u = sens / (2 * sigma), v = eps * sigma / sens;
  auto Phi = [&](const mp& x) { return boost::math::erfc(-x / sqrt2) / 2; };
  return Phi(u - v) - boost::multiprecision::exp(eps) * Phi(-u - v);
}

mp normal_upper_tail_mp(double x) {
  return boost::math::erfc(mp(x) / boost::multiprecision::sqrt(mp(2))) / 2;
}

// ---- (b) hockey-stick quadrature.
using LD = long double;
struct LossModel {
  std::function<LD(LD)> log_p;  // log density of the unshifted noise
  std::function<LD(LD)> llr;    // ℓ(x) = log p(x − Δ) − log p(x), non-decreasing in x
  LD shift;                     // Δ
  LD scale;                     // a length scale of p (for brackets and the variable change)
  std::vector<LD> kinks;        // points where the integrand is not smooth
};

struct Quad {
  LD value;
  LD err;  // the quadrature routines' own error estimates, summed
};

Quad hockey_stick(const LossModel& m, LD eps) {
  // Locate x* = inf { x : ℓ(x) > eps } by bracketing and bisection.
  LD hi = m.shift;
  int guard = 0;
  while (m.llr(hi) <= eps) {
    hi += m.scale * std::ldexp(1.0L, std::min(guard, 60));
    if (++guard > 200) return {0.0L, 0.0L};  // ℓ never exceeds eps: pure eps-DP, delta = 0
  }
  LD lo = hi - m.scale;
  for (guard = 0; m.llr(lo) > eps; ++guard) {
    lo -= m.scale * std::ldexp(1.0L, std::min(guard, 60));
    if (guard > 200) return {1.0L, 0.0L};
  }
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    LD mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (m.llr(mid) > eps ? hi : lo) = mid;
  }
  const LD xstar = hi;
  // Integrand in u = (x − x*)/scale, written so that no cancellation occurs near x*.
  auto f = [&](LD u) -> LD {
    LD x = xstar + m.scale * u;
    LD gap = eps - m.llr(x);  // <= 0 on the domain
    if (gap >= 0) return 0.0L;
    return m.scale * std::exp(m.log_p(x - m.shift)) * -std::expm1(gap);
  };
  LD total = 0.0L, start = 0.0L, err_total = 0.0L;
  for (LD k : m.kinks) {
    LD uk = (k - xstar) / m.scale;
    if (uk <= start) continue;
    LD err = 0;
    total += boost::math::quadrature::gauss_kronrod<LD, 61>::integrate(f, start, uk, 8, 1e-17L, &err);
    err_total += err;
    start = uk;
  }
  boost::math::quadrature::exp_sinh<LD> tail;
  LD err = 0, l1 = 0;
  total += tail.integrate(f, start, std::numeric_limits<LD>::infinity(), 1e-17L, &err, &l1);
  err_total += err;
  return {total, err_total};
}

Quad gaussian_delta_quad(double sigma, double eps, double sens) {
  const LD s = sigma, d = sens;
  LossModel m;
  m.log_p = [s](LD x) { return -x * x / (2 * s * s) - std::log(s * std::sqrt(2 * M_PIl)); };
  m.llr = [s, d](LD x) { return d * (2 * x - d) / (2 * s * s); };
  m.shift = d;
  m.scale = s;
  return hockey_stick(m, eps);
}

Quad laplace_delta_quad(double b_d, double eps, double sens) {
  const LD b = b_d, d = sens;
  LossModel m;
  m.log_p = [b](LD x) { return -std::fabs(x) / b - std::log(2 * b); };
  // (|x| − |x − Δ|)/b, evaluated piecewise (a clipped ramp).
  m.llr = [b, d](LD x) { return x <= 0 ? -d / b : x >= d ? d / b : (2 * x - d) / b; };
  m.shift = d;
  m.scale = b;
  m.kinks = {d};
  return hockey_stick(m, eps);
}

const double kEps[] = {0.01, 0.1, 0.5, 1, 2, 5, 10, 20};
const double kDelta[] = {1e-2, 1e-5, 1e-8, 1e-10};
const double kSens[] = {1.0, 123.456};

}  // namespace

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

// Z29 round trip (docs/gaussian_rules.md §9): the profile at σ_OPT of Z20–Z28 equals the
// requested δ.
TEST(AnalyticGaussianCertificate, RoundTripZ20toZ28) {
  const double rows[][2] = {{1, 1e-5}, {0.1, 1e-5}, {0.5, 1e-5}, {1, 1e-6}, {2, 1e-6},
                            {5, 1e-6}, {10, 1e-10}, {0.01, 1e-6}, {1, 0.05}};
  for (const auto& r : rows) {
    double s = calibrate("analytic_gaussian", r[0], r[1], 1.0).scale;
    double d = static_cast<double>(gaussian_delta_mp(s, r[0], 1.0));
    EXPECT_LE(d, r[1]);
    EXPECT_LT(rel_err(d, r[1]), 1e-7) << "eps=" << r[0] << " delta=" << r[1];
  }
}

TEST(AnalyticGaussianCertificate, FeasibleCertifiedAndTight) {
  int n = 0;
  for (double sens : kSens)
    for (double e : kEps)
      for (double d : kDelta) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal = calibrate("analytic_gaussian", e, d, sens);
        const double s = cal.scale;
        mp exact = gaussian_delta_mp(s, e, sens);
        Quad quad = gaussian_delta_quad(s, e, sens);
        EXPECT_LE(exact, mp(d));
        EXPECT_LE(quad.value + quad.err, static_cast<LD>(d));
        EXPECT_LE(exact, mp(cal.delta_bound)) << "the certified bound must bound the profile";
        EXPECT_LE(cal.delta_bound, d);
        // Tight: 1e-9 less noise is not private.
        const double shrunk = s * (1 - 1e-9);
        EXPECT_GT(gaussian_delta_mp(shrunk, e, sens), mp(d));
        Quad qs = gaussian_delta_quad(shrunk, e, sens);
        EXPECT_GT(qs.value - qs.err, static_cast<LD>(d));
        ++n;
      }
  EXPECT_EQ(n, 64);
}

TEST(ClassicGaussianCertificate, FeasibleWhereAccepted) {
  for (double sens : kSens)
    for (double e : kEps)
      for (double d : kDelta) {
        if (e > 1) continue;
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal = calibrate("classic_gaussian", e, d, sens);
        mp exact = gaussian_delta_mp(cal.scale, e, sens);
        EXPECT_LE(exact, mp(d));
        EXPECT_LE(exact, mp(cal.delta_bound));
        Quad q = gaussian_delta_quad(cal.scale, e, sens);
        EXPECT_LE(q.value + q.err, static_cast<LD>(d));
      }
}

TEST(LaplaceCertificate, FeasibleCertifiedAndTight) {
  int n = 0;
  for (double sens : kSens)
    for (double e : kEps)
      for (double d : {0.0, 1e-2, 1e-5, 1e-8, 1e-10}) {
        SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d << " sens=" << sens);
        dpagg_calibration cal = calibrate("laplace", e, d, sens);
        const double b = cal.scale;
        Quad q = laplace_delta_quad(b, e, sens);
        EXPECT_LE(q.value + q.err, static_cast<LD>(d));
        EXPECT_LE(q.value + q.err, static_cast<LD>(cal.delta_bound));
        EXPECT_LE(cal.delta_bound, d);
        Quad qs = laplace_delta_quad(b * (1 - 1e-9), e, sens);
        EXPECT_GT(qs.value - qs.err, static_cast<LD>(d));
        ++n;
      }
  EXPECT_EQ(n, 80);
}

// Known weakness: gaussian_profile adds an absolute 1e-300 to its error bound
// (src/core/gaussian.cpp, `+ 1e-300` in gaussian_profile), so for delta <= ~1e-299 the
// certificate can only hold where the profile underflows, and sigma comes out far too large
// (43% too large at delta = 1e-300, eps = 1).  delta is otherwise accepted down to any
// positive value.
TEST(AnalyticGaussianCertificate, TightForTinyDelta) {
  for (double d : {1e-100, 1e-250, 1e-290}) {  // 1e-290 is the smallest delta accepted
    SCOPED_TRACE(testing::Message() << "delta=" << d);
    double s = calibrate("analytic_gaussian", 1.0, d, 1.0).scale;
    EXPECT_LE(gaussian_delta_mp(s, 1.0, 1.0), mp(d));
    EXPECT_GT(gaussian_delta_mp(s * (1 - 1e-6), 1.0, 1.0), mp(d))
        << "sigma=" << s << " is not within 1e-6 of the least private sigma";
  }
}

// ---- the other Gaussian rules of Zhao et al. (mechanisms/gaussian_rules.cpp) ----

// pDP profile in 50 digits: P[|L| > eps] for L ~ N(Δ²/(2σ²), Δ²/σ²), by the normal CDF of L
// itself (not the core's Q(a) + Q(b) arrangement).
mp pdp_delta_mp(double sigma_d, double eps_d, double sens_d) {
  const mp sigma = sigma_d, eps = eps_d, sens = sens_d;
  const mp mean = sens * sens / (2 * sigma * sigma), sd = sens / sigma;
  const mp sqrt2 = boost::multiprecision::sqrt(mp(2));
  auto cdf = [&](const mp& x) { return boost::math::erfc(-(x - mean) / (sd * sqrt2)) / 2; };
  auto sf = [&](const mp& x) { return boost::math::erfc((x - mean) / (sd * sqrt2)) / 2; };
  return sf(eps) + cdf(-eps);
}

TEST(ZhaoRulesCertificate, FeasibleByIndependentEvaluation) {
  const char* const rules[] = {"zhao1_gaussian", "zhao2_gaussian", "dwork2006_gaussian", "zcdp_gaussian",
                               "pdp_gaussian", "zhao3_pdp_gaussian", "zhao4_pdp_gaussian"};
  int n = 0;
  for (const char* rule : rules) {
    const bool pdp = std::strstr(rule, "pdp") != nullptr;
    for (double sens : kSens)
      for (double e : kEps)
        for (double d : kDelta) {
          if (std::strstr(rule, "dwork") && e > 1) continue;
          SCOPED_TRACE(testing::Message() << rule << " eps=" << e << " delta=" << d << " sens=" << sens);
          dpagg_calibration cal = calibrate(rule, e, d, sens);
          const double s = cal.scale;
          mp exact = gaussian_delta_mp(s, e, sens);
          EXPECT_LE(exact, mp(d));
          EXPECT_LE(exact, mp(cal.delta_bound)) << "the certified bound must bound the profile";
          EXPECT_LE(cal.delta_bound, d);
          Quad q = gaussian_delta_quad(s, e, sens);
          EXPECT_LE(q.value + q.err, static_cast<LD>(d));
          if (pdp) {
            // pDP: |privacy loss| > eps with probability <= delta, and it implies the DP profile.
            mp p = pdp_delta_mp(s, e, sens);
            EXPECT_LE(p, mp(d));
            EXPECT_LE(exact, p);
          }
          if (std::strcmp(rule, "pdp_gaussian") == 0) {
            // pDP-OPT is tight in the pDP profile: 1e-9 less noise violates it.
            EXPECT_GT(pdp_delta_mp(s * (1 - 1e-9), e, sens), mp(d));
          }
          ++n;
        }
  }
  EXPECT_EQ(n, 7 * 64 - 32);  // dwork2006 skips eps in {2, 5, 10, 20}
}

// ---- osgt and generalized_gaussian: brute-force hockey-stick quadrature ----
//
// A third code path, sharing nothing with the mechanisms' closed forms: the density is given only
// as a normalised log-density (long double, std::erfc / std::lgamma for the normalisers), and
//     delta_S(eps) = ∫ (p(x − S) − e^eps p(x))_+ dx
// is integrated over the pieces where the integrand is positive; those pieces are found by
// scanning a grid of 12000 points over [−W, W] (geometric away from 0, S/2 and S, first step 1e-9 S) for
// sign changes of g(x) = ln p(x − S) − ln p(x) − eps
// (refined by bisection), with 0 and S as breakpoints; no monotonicity of g is assumed (the
// generalized Gaussian with p < 1 has a non-monotone privacy loss).  Finite pieces by tanh-sinh, pieces reaching ±infinity by exp_sinh.
Quad brute_hockey(const std::function<LD(LD)>& log_p, LD S, LD eps, LD W) {
  auto g = [&](LD x) { return log_p(x - S) - log_p(x) - eps; };
  auto integrand = [&](LD x) -> LD {
    LD gx = g(x);
    if (!(gx > 0)) return 0.0L;
    return std::exp(log_p(x - S)) * -std::expm1(-gx);
  };
  std::vector<LD> cuts = {0.0L, S};
  // Grid: geometric outwards from 0, S/2 and S (first step 1e-9 S, ratio ~1.02), out to ±W.
  std::vector<LD> grid;
  const int n = 2000;
  const LD a = S * 1e-9L, umax = std::log(W / a + 1);
  for (LD c : {0.0L, S / 2, S})
    for (int i = 0; i <= n; ++i) {
      const LD d = a * std::expm1(umax * i / n);
      grid.push_back(c - d);
      grid.push_back(c + d);
    }
  std::sort(grid.begin(), grid.end());
  LD prev_x = grid.front(), prev_g = g(prev_x);
  for (size_t i = 1; i < grid.size(); ++i) {
    LD x = grid[i];
    LD gx = g(x);
    if ((prev_g > 0) != (gx > 0)) {
      LD lo = prev_x, hi = x;
      for (int j = 0; j < 200 && hi - lo > 0; ++j) {
        LD mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        ((g(mid) > 0) == (prev_g > 0) ? lo : hi) = mid;
      }
      cuts.push_back(lo + (hi - lo) / 2);
    }
    prev_x = x;
    prev_g = gx;
  }
  std::sort(cuts.begin(), cuts.end());
  LD total = 0, err_total = 0;
  // (-inf, cuts[0]]
  if (g(cuts.front() - W) > 0) {
    boost::math::quadrature::exp_sinh<LD> es;
    LD err = 0, l1 = 0;
    total += es.integrate([&](LD u) { return integrand(cuts.front() - u); }, 0.0L,
                          std::numeric_limits<LD>::infinity(), 1e-16L, &err, &l1);
    err_total += err;
  }
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    if (!(cuts[i + 1] > cuts[i])) continue;
    if (!(g(cuts[i] + (cuts[i + 1] - cuts[i]) / 2) > 0)) continue;
    // tanh-sinh: the integrand has a cusp at 0 or S when p < 1, which it handles at an endpoint
    // (Gauss-Kronrod's error estimate there is ~1e-5 relative).
    boost::math::quadrature::tanh_sinh<LD> ts;
    LD err = 0, l1 = 0;
    const LD a = cuts[i], w = cuts[i + 1] - cuts[i];  // over u in [0, 1]: no cancellation at the ends
    total += ts.integrate([&](LD u) -> LD { return w * integrand(a + w * u); }, 0.0L, 1.0L,
                          static_cast<LD>(1e-15L), &err, &l1);
    err_total += err;
  }
  if (g(cuts.back() + W) > 0) {
    boost::math::quadrature::exp_sinh<LD> es;
    LD err = 0, l1 = 0;
    total += es.integrate([&](LD u) { return integrand(cuts.back() + u); }, 0.0L,
                          std::numeric_limits<LD>::infinity(), 1e-16L, &err, &l1);
    err_total += err;
  }
  return {total, err_total + 1e-18L * total};
}

std::function<LD(LD)> osgt_log_density(LD sigma, LD r) {
  const LD m = r * sigma;
  const LD log_norm = std::log(2 * std::sqrt(2 * M_PIl) * sigma * (std::erfc(r / std::sqrt(2.0L)) / 2));
  return [=](LD y) { LD a = std::fabs(y) + m; return -a * a / (2 * sigma * sigma) - log_norm; };
}

std::function<LD(LD)> gg_log_density(LD s, LD p) {
  // p / (2 s Gamma(1/p)) exp(-|x/s|^p) = exp(-|x/s|^p) / (2 s Gamma(1 + 1/p))
  const LD log_norm = std::log(2 * s) + std::lgamma(1 + 1 / p);
  return [=](LD x) { return -std::pow(std::fabs(x) / s, p) - log_norm; };
}

// The profile at every shift S in a dense set of (0, D] is at most the profile at D, which is at
// most delta and below the core's certified delta_bound; the bound is within `loose` of the
// profile; and `shrink` less noise is not private.
void check_scalar_certificate(const dpagg_calibration& cal,
                              const std::function<std::function<LD(LD)>(LD)>& density_at_scale,
                              LD width, int* checked, LD loose = 1e-6L, double shrink = 1e-8,
                              int shifts = 24) {
  SCOPED_TRACE(testing::Message() << cal.spec << " eps=" << cal.epsilon << " delta=" << cal.delta
                                  << " sens=" << cal.sensitivity << " scale=" << cal.scale);
  const LD D = cal.sensitivity, eps = cal.epsilon;
  const auto log_p = density_at_scale(cal.scale);
  const Quad at_d = brute_hockey(log_p, D, eps, width);
  EXPECT_LE(at_d.value + at_d.err, static_cast<LD>(cal.delta));
  EXPECT_LE(at_d.value + at_d.err, static_cast<LD>(cal.delta_bound) * (1 + 1e-12L));
  // Not vacuous: the certified bound is close to the true profile.
  EXPECT_LE(static_cast<LD>(cal.delta_bound), at_d.value * (1 + loose) + 1e-300L);
  for (int i = 1; i <= shifts; ++i) {
    const LD S = D * i / shifts;
    const Quad q = brute_hockey(log_p, S, eps, width);
    EXPECT_LE(q.value, at_d.value * (1 + 1e-12L) + 1e-300L) << "shift " << (double)S;
  }
  const Quad shrunk = brute_hockey(density_at_scale(cal.scale * (1 - shrink)), D, eps, width);
  EXPECT_GT(shrunk.value - shrunk.err, static_cast<LD>(cal.delta)) << "not tight";
  ++*checked;
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
  // The case where osgt's variance beats Laplace's (test_scalar_mechanisms.cpp,
  // OsgtCalibration.VarianceNotAlwaysMonotone), re-checked here too.
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
