// test_interval.cpp — noise intervals (src/core/interval.h): the half-width inverts each
// mechanism's tail from the conservative side, matches the closed forms of the Gaussian and
// Laplace noise, and covers the noise its own sampler draws (an independent check of the tail
// against the sampler: a wrong tail or a wrong sampler shows as under- or over-coverage).
#include <cmath>
#include <string>
#include <vector>

#include "interval.h"
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
        }
      }
    }
  }
  EXPECT_GT(checked, 20);
}
