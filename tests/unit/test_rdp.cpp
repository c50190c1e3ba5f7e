// test_rdp.cpp — src/core/math/rdp: OSGT's Renyi-DP curves and their conversion to
// (epsilon, delta): vectors O12–O16 of docs/osgt.md §7 (Sadeghi & Korki 2021, App. E, Theorem 2,
// Fig. 6), the exact curve also against a direct quadrature of the Renyi divergence
// (tests/unit/oracles/rdp_quadrature.h, a different code path).
#include "math/gaussian.h"
#include "math/rdp.h"
#include "mechanisms/osgt/osgt.h"
#include "oracles/rdp_quadrature.h"
#include "test_support.h"

using dpagg_oracle::rdp_quadrature;

TEST(OsgtRdp, ExactCurveO12AndQuadrature) {
  const double sigma = std::sqrt(40.0);
  const double want[] = {0.0377307011, 0.0899463544, 0.1597064112};
  const double alphas[] = {2, 5, 10};
  for (int i = 0; i < 3; ++i) {
    double v = dpagg::osgt_rdp(alphas[i], 3, sigma, 1);
    EXPECT_NEAR(v, want[i], 1e-9) << "alpha " << alphas[i];
    EXPECT_NEAR(v, rdp_quadrature(alphas[i], 3, sigma, 1), 1e-9) << "alpha " << alphas[i];
  }
}

TEST(OsgtRdp, StableAtLargeAlphaO14) {
  // The printed form loses every digit here (it gives 0.0501120 at alpha 50).
  const double sigma = std::sqrt(630.0);
  const double want[] = {0.0501649044, 0.0653875800, 0.0781265654};
  const double alphas[] = {50, 72, 90};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(dpagg::osgt_rdp(alphas[i], 15, sigma, 1), want[i], 1e-9);
}

TEST(OsgtRdp, Theorem2BoundO13) {
  EXPECT_NEAR(dpagg::osgt_rdp_theorem2(2, 3, std::sqrt(40.0), 1, 1), 0.7896933941, 1e-9);
  EXPECT_GT(dpagg::osgt_rdp_theorem2(2, 3, std::sqrt(40.0), 1, 1), dpagg::osgt_rdp(2, 3, std::sqrt(40.0), 1));
}

TEST(OsgtRdp, Figure6O15O16) {
  // O15: k = 8 coordinates each shifted by 1 (l2 shift sqrt 8), m 15, sigma^2 630, eps 0.9:
  // the least delta over alpha is 1.2287e-14 at alpha ~ 71.66 (the paper prints ~1.44e-14).
  const double sigma = std::sqrt(630.0);
  double a = 0;
  double d = dpagg::rdp_best_delta([&](double al) { return 8 * dpagg::osgt_rdp(al, 15, sigma, 1); }, 0.9, 1.5, 500, &a);
  EXPECT_NEAR(d, 1.2287e-14, 0.0005e-14);
  EXPECT_LE(d, 1.44e-14);
  EXPECT_NEAR(a, 71.66, 0.1);
  // O16: the Gaussian with the same variance V = 398.2175: ~2.2297e-11 at alpha ~ 46.38.
  const double V = 398.21747;
  double ag = 0;
  double dg = dpagg::rdp_best_delta([&](double al) { return al * 8 / (2 * V); }, 0.9, 1.5, 500, &ag);
  EXPECT_NEAR(dg, 2.2297e-11, 0.0005e-11);
  EXPECT_NEAR(ag, 46.38, 0.1);
  // V itself is vector O4 (the variance of OSGT(15, 630)).
  EXPECT_NEAR(630 * dpagg::osgt_l2_unit(15 / sigma), V, 1e-4);
}
