// test_interval.cpp — noise intervals (src/core/interval.h): the half-width inverts each
// mechanism's tail from the conservative side, matches the closed forms of the Gaussian and
// Laplace noise, and covers the noise its own sampler draws (an independent check of the tail
// against the sampler: a wrong tail or a wrong sampler shows as under- or over-coverage), and
// each mechanism's tail agrees with a quadrature of its density written independently here or in
// tests/unit/oracles/ (mixture_profile.h).
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "interval.h"
#include "oracles/mixture_profile.h"
#include "release.h"
#include "test_support.h"

using dpagg_test::calibrate;
using dpagg_test::mechanism_of;
using dpagg_test::SeededRandom;

TEST(NoiseInterval, GaussianAndLaplaceClosedForms) {
  // The two-sided 95 % quantile of N(0, s^2) is 1.959963984540054 s; of Laplace(b), b ln 20.
  dpagg_calibration g = calibrate("analytic_gaussian", 1.0, 1e-5, 1.0);
  const double wg = dpagg::noise_quantile(mechanism_of(g), g, 0.95);
  EXPECT_GE(wg, 1.959963984540054 * g.scale * (1 - 1e-12));
  EXPECT_LE(wg, 1.959963984540054 * g.scale * (1 + 1e-9));
  dpagg_calibration l = calibrate("laplace", 0.5, 0.0, 3.0);
  const double wl = dpagg::noise_quantile(mechanism_of(l), l, 0.95);
  EXPECT_GE(wl, l.scale * std::log(20.0) * (1 - 1e-12));
  EXPECT_LE(wl, l.scale * std::log(20.0) * (1 + 1e-9));
  // The release's half-width adds the grid and never falls below the noise's.
  double hw = 0;
  dpagg_error err;
  ASSERT_EQ(dpagg_noise_halfwidth(&l, 0.95, &hw, &err), DPAGG_OK);
  EXPECT_GE(hw, wl + dpagg::release_grid(l));
  EXPECT_LE(hw, wl * (1 + 1e-9) + 2 * dpagg::release_grid(l));
}

TEST(NoiseInterval, RefusesBadConfidence) {
  dpagg_calibration g = calibrate("laplace", 1.0, 0.0, 1.0);
  dpagg_error err;
  double hw = 0;
  for (double c : {0.0, 1.0, -0.5, 1.5, std::nan("")})
    EXPECT_EQ(dpagg_noise_halfwidth(&g, c, &hw, &err), DPAGG_INVALID_PARAMETER) << c;
}

// Every scalar mechanism that states its tail: the interval is feasible for the tail, and the
// noise its sampler draws lands inside it at the stated rate (n draws; 5 binomial standard
// deviations either side, plus the discreteness of integer noise above).
TEST(NoiseInterval, EveryMechanismCoversItsOwnSamples) {
  const int n = 20000;
  struct Cell { double eps, delta; };
  const Cell cells[] = {{0.1, 1e-6}, {1.0, 1e-5}, {4.0, 0.01}};
  int checked = 0;
  std::set<std::string> covered;
  for (const dpagg::Mechanism* m : dpagg::listed_mechanisms()) {
    if (std::string(m->name()) == "auto") continue;  // auto returns another mechanism's calibration
    for (const Cell& c : cells) {
      for (bool integer : {false, true}) {
        dpagg_calibration cal;
        dpagg_error err;
        if (dpagg_calibrate_ex(m->name(), c.eps, m->accepts_zero_delta() && c.delta < 1e-5 ? 0.0 : c.delta,
                               1.0, integer ? 1 : 0, &cal, &err) != DPAGG_OK)
          continue;  // a mechanism may refuse a cell (e.g. classic_gaussian above epsilon 1)
        if (std::isnan(m->noise_tail(cal, 0.0))) continue;
        for (double conf : {0.5, 0.9, 0.95, 0.99}) {
          const double w = dpagg::noise_quantile(*m, cal, conf);
          ASSERT_LE(m->noise_tail(cal, w), 1 - conf) << m->name();
          SeededRandom rng(0x5eed + checked);
          int inside = 0;
          for (int i = 0; i < n; ++i) inside += std::fabs(m->sample(cal, rng)) <= w;
          const double p = double(inside) / n, sd = std::sqrt(conf * (1 - conf) / n);
          EXPECT_GE(p, conf - 5 * sd) << m->name() << " eps=" << c.eps << " conf=" << conf;
          // Not far above, except for noise with an atom at the end of the interval: the tail just
          // below w exceeds the tail at w by more than 1e-3 (at w = 0, the atom at 0: the tail
          // below 0 is 1).  Testing the tail below w against 1 - conf instead could not tell an
          // atom from continuous noise: both exceed it.
          const double t_below = w > 0 ? m->noise_tail(cal, w * (1 - 1e-6)) : 1.0;
          const bool continuous = t_below <= m->noise_tail(cal, w) + 1e-3;
          if (continuous) {
            EXPECT_LE(p, conf + 5 * sd + 2e-3) << m->name() << " eps=" << c.eps << " conf=" << conf;
          }
          ++checked;
          covered.insert(m->name());
        }
      }
    }
  }
  EXPECT_GT(checked, 20);
  // Every scalar mechanism but l2 (vector releases) and auto states its tail and was checked here.
  std::string list;
  for (const std::string& name : covered) list += " " + name;
  std::printf("[ checked  ] tails of:%s\n", list.c_str());
  for (const char* name : {"analytic_gaussian", "classic_gaussian", "laplace", "osgt",
                           "generalized_gaussian", "quasi_gaussian", "multi_gaussian"})
    EXPECT_EQ(covered.count(name), 1u) << name << " has no tail (NaN) or was never calibrated";
}

// ---- each tail against a quadrature of the density, written independently of the core ----

namespace {

using LD = long double;

// 2 * integral of f over [w, inf) for a symmetric density f: Gauss-Kronrod on pieces of length
// `step` up to `far` (tanh-sinh for the first piece from 0, where the generalized Gaussian with
// p < 1 has a cusp), then, if `infinite`, exp-sinh on [far, inf).
LD two_sided_tail(const std::function<LD(LD)>& f, LD w, LD step, LD far, bool infinite) {
  static boost::math::quadrature::tanh_sinh<LD> cusp_rule;
  static boost::math::quadrature::exp_sinh<LD> tail_rule;  // integrate() is not const in Boost 1.74
  LD total = 0;
  for (LD a = w; a < far; a += step) {
    const LD b = std::min(far, a + step);
    if (a == 0)
      total += cusp_rule.integrate(f, a, b, 1e-17L);
    else
      total += boost::math::quadrature::gauss_kronrod<LD, 61>::integrate(f, a, b, 4, 1e-15L);
  }
  if (infinite)
    total += tail_rule.integrate(f, std::max(w, far), std::numeric_limits<LD>::infinity(), 1e-17L,
                                 nullptr, nullptr, nullptr);
  return 2 * total;
}

// The check of one calibration: at w = {0, 0.5, 1, 2, 3, 5, 10} standard deviations (and `extra`),
// exact (1 - 1e-14) <= noise_tail <= exact (1 + 1e-9) + 1e-300, the 1e-14 for the quadrature's
// own error (QuadratureReproducesTheNormalTail); returns the largest |tail/exact - 1| where the
// exact tail is above 1e-280.
double check_tail(const dpagg_calibration& cal, const std::function<LD(LD)>& density, LD step,
                  LD far_from_w, bool infinite, std::vector<double> extra = {}) {
  const dpagg::Mechanism& m = dpagg_test::mechanism_of(cal);
  const double sd = std::sqrt(cal.l2);
  std::vector<double> ws = {0.0, 0.5 * sd, sd, 2 * sd, 3 * sd, 5 * sd, 10 * sd};
  ws.insert(ws.end(), extra.begin(), extra.end());
  double worst = 0;
  for (double w : ws) {
    const LD exact = two_sided_tail(density, w, step, w + far_from_w, infinite);
    const double tail = m.noise_tail(cal, w);
    EXPECT_GE(tail, static_cast<double>(exact * (1 - 1e-14L))) << cal.spec << " w=" << w << " sd=" << sd;
    EXPECT_LE(tail, static_cast<double>(exact * (1 + 1e-9L) + 1e-300L)) << cal.spec << " w=" << w;
    if (exact > 1e-280L) worst = std::max(worst, static_cast<double>(std::fabs(tail / exact - 1)));
  }
  return worst;
}

void report(const char* name, double worst) {
  std::printf("[ tail     ] %s: max |noise_tail / quadrature - 1| = %.3g\n", name, worst);
}

}  // namespace

// The quadrature itself, on N(0, 1), against erfc in long double.
TEST(NoiseTail, QuadratureReproducesTheNormalTail) {
  auto phi = [](LD x) { return std::exp(-x * x / 2) / std::sqrt(2 * 3.14159265358979323846264338327950288L); };
  for (double w : {0.0, 0.5, 1.0, 3.0, 10.0, 30.0}) {
    const LD exact = std::erfc(LD(w) / std::sqrt(2.0L));
    EXPECT_LT(std::fabs(two_sided_tail(phi, w, 0.5L, w + 40, true) / exact - 1), 1e-15L) << w;
  }
}

// OSGT: f(y) = exp(-(|y| + m)^2 / (2 sigma^2)) / (2 sqrt(2 pi) sigma Q(r)) (docs/osgt.md §1).
TEST(NoiseTail, OsgtMatchesQuadrature) {
  double worst = 0;
  for (const char* spec : {"osgt", "osgt(r=0)", "osgt(r=2.5)", "osgt(r=8)"}) {
    for (double sens : {1.0, 3.0}) {
      const dpagg_calibration cal = dpagg_test::calibrate(spec, 1.0, 1e-5, sens);
      const LD sigma = cal.params[0], m = cal.params[1];
      const LD q_r = std::erfc(LD(cal.params[2]) / std::sqrt(2.0L)) / 2;
      auto f = [&](LD y) {
        const LD a = std::fabs(y) + m;
        return std::exp(-a * a / (2 * sigma * sigma)) /
               (2 * std::sqrt(2 * 3.14159265358979323846264338327950288L) * sigma * q_r);
      };
      worst = std::max(worst, check_tail(cal, f, sigma / 2, 45 * sigma, false, {30 * double(sigma)}));
    }
  }
  report("osgt", worst);
}

// Generalized Gaussian: f(x) = p / (2 s Gamma(1/p)) exp(-|x/s|^p) (docs/generalized_gaussian.md §4.1).
TEST(NoiseTail, GeneralizedGaussianMatchesQuadrature) {
  double worst = 0;
  for (double p : {0.5, 0.8, 1.0, 1.5, 2.0, 4.0, 10.0}) {
    const std::string spec = "generalized_gaussian(p=" + std::to_string(p) + ")";
    const dpagg_calibration cal = dpagg_test::calibrate(spec, 1.0, 1e-5, 2.0);
    const LD s = cal.params[0], pp = p;
    const LD norm = pp / (2 * s * std::exp(std::lgamma(1 / pp)));
    auto f = [&](LD x) { return norm * std::exp(-std::pow(std::fabs(x) / s, pp)); };
    // Pieces of s/4 near the mode; the far part (heavy for p < 1) is left to exp-sinh.
    worst = std::max(worst, check_tail(cal, f, s / 4, 20 * s, true, {50 * double(s)}));
  }
  report("generalized_gaussian", worst);
}

// Quasi-Gaussian: the density of docs/mixtures.md §3.1 as rebuilt by the mixture oracle
// (dpagg_oracle::Mixture::quasi, at sensitivity 1: X = D Y).
TEST(NoiseTail, QuasiGaussianMatchesQuadrature) {
  double worst = 0;
  for (double eps : {0.1, 1.0, 4.0}) {
    for (double sens : {1.0, 2.5}) {
      const dpagg_calibration cal = dpagg_test::calibrate("quasi_gaussian", eps, 1e-5, sens);
      const double s = cal.scale;
      const dpagg_oracle::Mixture mix = dpagg_oracle::Mixture::quasi(eps, LD(s) / sens);
      auto f = [&](LD x) { return mix.density(x / sens) / sens; };
      worst = std::max(worst, check_tail(cal, f, LD(s) / 2, sens + 45 * s, false,
                                         {sens, sens + 3 * s, 30 * s}));
    }
  }
  report("quasi_gaussian", worst);
}

// Multi-Gaussian: sum_k w_k N(k D, s^2), w_k ∝ e^{-|k| eps} (docs/mixtures.md §2.2), rebuilt by the
// mixture oracle (dpagg_oracle::Mixture::multi, at sensitivity 1).
TEST(NoiseTail, MultiGaussianMatchesQuadrature) {
  struct Case { const char* spec; double eps, delta, sens; bool integer; };
  const Case cases[] = {{"multi_gaussian(k=1)", 1.0, 1e-5, 1.0, false},
                        {"multi_gaussian(k=3)", 1.0, 1e-6, 1.0, false},
                        {"multi_gaussian(k=12)", 0.5, 1e-5, 2.0, false},
                        {"multi_gaussian(k=40)", 0.1, 1e-6, 1.0, false},
                        {"multi_gaussian(k=5)", 4.0, 1e-5, 3.0, true}};
  double worst = 0;
  for (const Case& c : cases) {
    const dpagg_calibration cal = dpagg_test::calibrate(c.spec, c.eps, c.delta, c.sens, c.integer);
    const int K = static_cast<int>(cal.params[1]);  // the parameter "K"
    const double s = cal.scale, D = c.sens;
    const dpagg_oracle::Mixture mix = dpagg_oracle::Mixture::multi(c.eps, K, LD(s) / D);
    auto f = [&](LD x) { return mix.density(x / D) / D; };
    worst = std::max(worst, check_tail(cal, f, LD(s) / 2, K * D + 45 * s, false,
                                       {D, K * D, K * D + 3 * s, 30 * s}));
  }
  report("multi_gaussian", worst);
}
