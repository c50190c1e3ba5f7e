// test_calibration.cpp — calibrated scales against published / independently computed vectors.
//
// Sources: docs/gaussian_rules.md §9 (Z20–Z28: first value = DP-OPT, i.e. analytic Gaussian;
// fourth value = Dwork-2014), docs/generalized_gaussian.md §6 (D2: Laplace (eps, delta)
// calibration), and the reference CSVs in tests/data/ (docs/README.md §4).
#include <boost/math/special_functions/erf.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "test_support.h"
#include "zhao_vectors.h"

using dpagg_test::calibrate;
using dpagg_test::rel_err;
using dpagg_test::kZ;
using dpagg_test::ZRow;

TEST(AnalyticGaussianVectors, Z20toZ28) {
  for (const ZRow& z : kZ) {
    dpagg_calibration cal = calibrate("analytic_gaussian", z.eps, z.delta, 1.0);
    EXPECT_LT(rel_err(cal.scale, z.s[dpagg_test::kOpt]), 1e-7) << z.id << " sigma=" << cal.scale;
    EXPECT_EQ(cal.params[0], cal.scale) << z.id;
    EXPECT_EQ(cal.nparams, 1) << z.id;
    EXPECT_LE(cal.delta_bound, z.delta) << z.id;
    EXPECT_GE(cal.delta_bound, 0.0) << z.id;
    EXPECT_STREQ(cal.spec, "analytic_gaussian");
  }
}

TEST(AnalyticGaussianVectors, TableIValues) {
  // docs/gaussian_rules.md §9: Z2, Z4, Z6, Z10, Z11 (Zhao et al.'s Table I, computed to 7
  // significant digits).
  struct V { double eps, delta, sigma; };
  const V vs[] = {{10, 1e-2, 0.3500967},  {6, 0.1, 0.3812992},     {10, 0.1, 0.2818121},
                  {8.87, 1e-5, 0.5512831}, {9.59, 1e-5, 0.5172028}, {10, 1e-4, 0.4552651},
                  {31.62, 1e-4, 0.1943637}};
  for (const V& v : vs) {
    double s = calibrate("analytic_gaussian", v.eps, v.delta, 1.0).scale;
    EXPECT_LT(rel_err(s, v.sigma), 5e-7) << "eps=" << v.eps << " delta=" << v.delta << " sigma=" << s;
  }
}

TEST(AnalyticGaussianVectors, ScalesLinearlyWithSensitivity) {
  for (const ZRow& z : kZ) {
    double s1 = calibrate("analytic_gaussian", z.eps, z.delta, 1.0).scale;
    for (double sens : {1e-6, 0.37, 123.456, 4.5e9}) {
      double s = calibrate("analytic_gaussian", z.eps, z.delta, sens).scale;
      EXPECT_LT(rel_err(s, s1 * sens), 1e-9) << z.id << " sensitivity " << sens;
    }
  }
}

TEST(AnalyticGaussianVectors, DecreasingInEpsilonAndDelta) {
  const double eps[] = {0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20, 50};
  const double deltas[] = {0.2, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-15};
  for (double d : deltas) {
    double prev = INFINITY;
    for (double e : eps) {
      double s = calibrate("analytic_gaussian", e, d, 1.0).scale;
      EXPECT_LT(s, prev) << "eps=" << e << " delta=" << d;
      prev = s;
    }
  }
  for (double e : eps) {
    double prev = 0;
    for (double d : deltas) {
      double s = calibrate("analytic_gaussian", e, d, 1.0).scale;
      EXPECT_GT(s, prev) << "eps=" << e << " delta=" << d;
      prev = s;
    }
  }
}

// Bounds of docs/gaussian_rules.md §3 (Zhao et al. Thm 2, 3; Lemma 11), which hold for every
// (eps, delta) in range.
TEST(AnalyticGaussianVectors, WithinTheoreticalBounds) {
  for (double d : {0.05, 1e-2, 1e-5, 1e-8, 1e-12}) {
    const double thm3 = 1.0 / (2 * std::sqrt(2.0) * boost::math::erf_inv(d));  // the eps -> 0 limit
    const double ic = boost::math::erfc_inv(2 * d);
    for (double e : {1e-4, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 50.0}) {
      SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d);
      const double s = calibrate("analytic_gaussian", e, d, 1.0).scale;
      EXPECT_LT(s, thm3);
      EXPECT_LT(s, (ic + std::sqrt(ic * ic + e)) / (e * std::sqrt(2.0)) * (1 + 1e-12));  // Lemma 11
      if (e >= 0.01 && d <= 0.05) {
        EXPECT_GT(s, 1 / std::sqrt(2 * e));
        EXPECT_LT(s, std::sqrt(2 * std::log(1 / (2 * d))) / e + 1 / std::sqrt(2 * e));
      }
    }
  }
  // Z31: the eps -> 0 limit at delta = 1e-5.
  EXPECT_NEAR(1.0 / (2 * std::sqrt(2.0) * boost::math::erf_inv(1e-5)), 39894.228, 1e-3);
}

TEST(AnalyticGaussianVectors, LossesAreClosedForms) {
  dpagg_calibration cal = calibrate("analytic_gaussian", 0.7, 1e-7, 2.5);
  EXPECT_LT(rel_err(cal.l1, cal.scale * std::sqrt(2.0 / M_PI)), 1e-15);
  EXPECT_LT(rel_err(cal.l2, cal.scale * cal.scale), 1e-15);
}

TEST(AnalyticGaussianReference, AnalyticGaussianSigmaCsv) {
  const std::string path = dpagg_test::data_path("analytic_gaussian_sigma.csv");
  dpagg_test::Csv csv = dpagg_test::read_csv(path);
  ASSERT_EQ(csv.rows.size(), 40u) << "cannot read " << path;
  int ce = csv.column("epsilon"), cd = csv.column("delta"), cs = csv.column("sensitivity"),
      ca = csv.column("sigma_analytic"), cc = csv.column("sigma_classical_sqrt2ln1.25overdelta");
  ASSERT_TRUE(ce >= 0 && cd >= 0 && cs >= 0 && ca >= 0 && cc >= 0);
  for (const auto& r : csv.rows) {
    double e = std::stod(r[ce]), d = std::stod(r[cd]), sens = std::stod(r[cs]);
    double want = std::stod(r[ca]);
    dpagg_calibration cal = calibrate("analytic_gaussian", e, d, sens);
    EXPECT_LT(rel_err(cal.scale, want), 1e-7) << "eps=" << e << " delta=" << d;
    // The CSV gives the exact root to ~20 digits: the core's sigma is on the feasible (larger)
    // side of it, and above it by less than 1e-9 relative.
    EXPECT_GE(cal.scale, want * (1 - 1e-15)) << "eps=" << e << " delta=" << d;
    EXPECT_LT(cal.scale / want - 1, 1e-9) << "eps=" << e << " delta=" << d;
    if (e <= 1.0) {
      double classic = calibrate("classic_gaussian", e, d, sens).scale;
      EXPECT_LT(rel_err(classic, std::stod(r[cc])), 1e-12) << "eps=" << e << " delta=" << d;
    }
  }
}

TEST(AnalyticGaussianReference, PaperGridCsv) {
  const std::string path = dpagg_test::data_path("analytic_gaussian_sigma_paper_grid.csv");
  dpagg_test::Csv csv = dpagg_test::read_csv(path);
  ASSERT_EQ(csv.rows.size(), 150u) << "cannot read " << path;
  int ce = csv.column("epsilon"), cd = csv.column("delta"), ca = csv.column("sigma_ag");
  ASSERT_TRUE(ce >= 0 && cd >= 0 && ca >= 0);
  for (const auto& r : csv.rows) {
    double e = std::stod(r[ce]), d = std::stod(r[cd]), want = std::stod(r[ca]);
    double s = calibrate("analytic_gaussian", e, d, 1.0).scale;
    EXPECT_LT(rel_err(s, want), 1e-7) << "eps=" << e << " delta=" << d << " sigma=" << s;
  }
}

// ---- classic_gaussian (Dwork–Roth 2014) ----

TEST(ClassicGaussian, MatchesD14ColumnForEpsilonAtMostOne) {
  int checked = 0;
  for (const ZRow& z : kZ) {
    if (z.eps > 1.0) continue;
    dpagg_calibration cal = calibrate("classic_gaussian", z.eps, z.delta, 1.0);
    EXPECT_LT(rel_err(cal.scale, z.s[dpagg_test::kD14]), 1e-7) << z.id;
    EXPECT_LT(rel_err(cal.scale, std::sqrt(2.0 * std::log(1.25 / z.delta)) / z.eps), 1e-14) << z.id;
    EXPECT_GT(cal.scale, calibrate("analytic_gaussian", z.eps, z.delta, 1.0).scale) << z.id;
    EXPECT_LE(cal.delta_bound, z.delta) << z.id;
    EXPECT_STREQ(cal.spec, "classic_gaussian");
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

TEST(ClassicGaussian, RefusedAboveEpsilonOne) {
  for (const ZRow& z : kZ) {
    if (z.eps <= 1.0) continue;
    try {
      calibrate("classic_gaussian", z.eps, z.delta, 1.0);
      ADD_FAILURE() << z.id << ": classic_gaussian accepted eps=" << z.eps;
    } catch (const dpagg::Error& e) {
      EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << z.id;
      EXPECT_STRNE(e.what(), "");
      EXPECT_FALSE(e.hint().empty());
    }
  }
  // The boundary: eps = 1 is accepted, the next double above is not.
  EXPECT_NO_THROW(calibrate("classic_gaussian", 1.0, 1e-5, 1.0));
  EXPECT_THROW(calibrate("classic_gaussian", std::nextafter(1.0, 2.0), 1e-5, 1.0), dpagg::Error);
  // Through the C API too.
  dpagg_calibration cal;
  dpagg_error err;
  EXPECT_EQ(dpagg_calibrate("classic_gaussian", 2.0, 1e-6, 1.0, &cal, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(err.status, DPAGG_INVALID_PARAMETER);
  EXPECT_GT(std::strlen(err.message), 0u);
  EXPECT_GT(std::strlen(err.hint), 0u);
}

// ---- Laplace ----

TEST(LaplaceCalibration, D2Vectors) {
  struct V { double eps, delta, b; };
  const V vs[] = {{1, 1e-5, 0.99998000030}, {0.1, 1e-6, 9.9998000039}, {1, 0.05, 0.90695824725}};
  for (const V& v : vs) {
    dpagg_calibration cal = calibrate("laplace", v.eps, v.delta, 1.0);
    EXPECT_LT(rel_err(cal.scale, v.b), 1e-9) << "eps=" << v.eps << " delta=" << v.delta;
    EXPECT_LE(cal.delta_bound, v.delta);
  }
}

TEST(LaplaceCalibration, ClosedFormAndPureDp) {
  for (double sens : {1.0, 0.003, 77.0, 1e12}) {
    for (double e : {0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0}) {
      // delta = 0: b = sensitivity / eps, made a tiny bit larger (never smaller).
      dpagg_calibration pure = calibrate("laplace", e, 0.0, sens);
      double ideal = sens / e;
      EXPECT_GE(pure.scale, ideal) << "eps=" << e << " sens=" << sens;
      EXPECT_LE(pure.scale, ideal * (1 + 1e-11)) << "eps=" << e << " sens=" << sens;
      EXPECT_EQ(pure.delta_bound, 0.0);
      EXPECT_EQ(pure.l1, pure.scale);
      EXPECT_LT(rel_err(pure.l2, 2 * pure.scale * pure.scale), 1e-15);
      for (double d : {1e-2, 1e-5, 1e-8, 1e-10}) {
        dpagg_calibration cal = calibrate("laplace", e, d, sens);
        double want = sens / (e - 2.0 * std::log1p(-d));
        EXPECT_GE(cal.scale, want) << "eps=" << e << " delta=" << d;
        EXPECT_LT(rel_err(cal.scale, want), 1e-11) << "eps=" << e << " delta=" << d;
        EXPECT_LE(cal.scale, pure.scale);
        EXPECT_LE(cal.delta_bound, d);
      }
    }
  }
}
