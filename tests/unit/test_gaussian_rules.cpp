// test_gaussian_rules.cpp — the calibration rules of Zhao et al. ("Reviewing and Improving the
// Gaussian Mechanism for Differential Privacy", 2019) against the vectors Z20–Z28 of
// docs/gaussian_rules.md §9 (computed with mpmath at 30–60 digits from the paper's formulas),
// their orderings, domains and refusals.  The independent re-check of
// their certificates is in test_certificates.cpp; their noise in test_scalar_noise.cpp.
#include <boost/math/special_functions/erf.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mechanisms/auto/auto.h"
#include "test_support.h"
#include "zhao_vectors.h"

using dpagg_test::calibrate;
using dpagg_test::rel_err;
using dpagg_test::kZ;
using dpagg_test::ZRow;

namespace {

const char* const kRule[9] = {"analytic_gaussian", "zhao1_gaussian",     "zhao2_gaussian",
                              "classic_gaussian",  "dwork2006_gaussian", "pdp_gaussian",
                              "zhao3_pdp_gaussian", "zhao4_pdp_gaussian", "zcdp_gaussian"};
bool dwork(int i) { return i == 3 || i == 4; }

}  // namespace

TEST(ZhaoRules, VectorsZ20toZ28) {
  double worst = 0;
  int checked = 0;
  for (const ZRow& z : kZ) {
    for (int i = 0; i < 9; ++i) {
      SCOPED_TRACE(testing::Message() << z.id << " " << kRule[i]);
      if (dwork(i) && z.eps > 1) continue;  // refused there (below)
      dpagg_calibration cal = calibrate(kRule[i], z.eps, z.delta, 1.0);
      const double e = rel_err(cal.scale, z.s[i]);
      EXPECT_LT(e, 1e-7) << "sigma=" << cal.scale << " want " << z.s[i];
      worst = std::max(worst, e);
      ++checked;
      EXPECT_STREQ(cal.spec, kRule[i]);
      EXPECT_EQ(cal.nparams, 1);
      EXPECT_EQ(cal.params[0], cal.scale);
      EXPECT_LE(cal.delta_bound, z.delta);
      EXPECT_GE(cal.delta_bound, 0.0);
      EXPECT_LT(rel_err(cal.l1, cal.scale * std::sqrt(2 / M_PI)), 1e-15);
      EXPECT_LT(rel_err(cal.l2, cal.scale * cal.scale), 1e-15);
    }
  }
  EXPECT_EQ(checked, 9 * 9 - 2 * 3);
  std::printf("[ zhao ] %d sigmas of Z20-Z28 matched, max relative error %.2e\n", checked, worst);
}

TEST(ZhaoRules, ScaleLinearlyWithSensitivity) {
  for (const ZRow& z : kZ)
    for (int i = 1; i < 9; ++i) {
      if (dwork(i) && z.eps > 1) continue;
      const double s1 = calibrate(kRule[i], z.eps, z.delta, 1.0).scale;
      for (double sens : {1e-6, 123.456, 4.5e9}) {
        const double s = calibrate(kRule[i], z.eps, z.delta, sens).scale;
        EXPECT_LT(rel_err(s, s1 * sens), 1e-12) << z.id << " " << kRule[i] << " sens=" << sens;
      }
    }
}

// Proven orderings (docs/gaussian_rules.md §5, §7): OPT < M1 < M2; pOPT < M3 < M4; every pDP
// sigma >= the DP-OPT one; M4 < zCDP; for eps <= 1 (Zhao et al. eq. (10)): M1 < M2 < D14 < D06.
TEST(ZhaoRules, ProvenOrderings) {
  for (double d : {0.3, 0.05, 1e-3, 1e-5, 1e-8, 1e-12, 1e-20, 1e-100, 1e-290}) {
    for (double e : {1e-4, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0, 1e4, 1e6}) {
      SCOPED_TRACE(testing::Message() << "eps=" << e << " delta=" << d);
      double s[9];
      for (int i = 0; i < 9; ++i) {
        if (dwork(i) && e > 1) {
          s[i] = NAN;
          continue;
        }
        dpagg_calibration cal = calibrate(kRule[i], e, d, 1.0);
        s[i] = cal.scale;
        EXPECT_LE(cal.delta_bound, d) << kRule[i];
      }
      EXPECT_LT(s[0], s[1]);
      EXPECT_LT(s[1], s[2]);
      EXPECT_LE(s[5], s[6] * (1 + 1e-12));
      EXPECT_LT(s[6], s[7]);
      EXPECT_LT(s[0], s[5]);
      EXPECT_LT(s[7], s[8]);
      if (e <= 1) {
        EXPECT_LT(s[2], s[3]);
        EXPECT_LT(s[3], s[4]);
      }
    }
  }
}

TEST(ZhaoRules, DomainsAndRefusals) {
  // The Dwork rules: eps <= 1 only, with an error and a hint.
  for (const char* rule : {"dwork2006_gaussian", "classic_gaussian"}) {
    EXPECT_NO_THROW(calibrate(rule, 1.0, 1e-5, 1.0));
    try {
      calibrate(rule, std::nextafter(1.0, 2.0), 1e-5, 1.0);
      ADD_FAILURE() << rule << " accepted eps > 1";
    } catch (const dpagg::Error& e) {
      EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER);
      EXPECT_NE(std::string(e.what()).find("epsilon > 1"), std::string::npos) << e.what();
      EXPECT_NE(e.hint().find("analytic_gaussian"), std::string::npos);
    }
  }
  // Mechanism 2 needs delta < 0.5; Mechanism 1, zCDP and the pDP rules take any delta < 1.
  EXPECT_THROW(calibrate("zhao2_gaussian", 1.0, 0.5, 1.0), dpagg::Error);
  EXPECT_NO_THROW(calibrate("zhao2_gaussian", 1.0, 0.4999, 1.0));
  for (const char* rule : {"zhao1_gaussian", "zcdp_gaussian", "pdp_gaussian", "zhao3_pdp_gaussian",
                           "zhao4_pdp_gaussian"})
    for (double d : {0.5, 0.7, 0.95, 0.999})
      for (double e : {0.01, 1.0, 30.0}) {
        dpagg_calibration cal = calibrate(rule, e, d, 1.0);
        EXPECT_LE(cal.delta_bound, d) << rule << " eps=" << e << " delta=" << d;
      }
  // Mechanism 1's b = 0 branch (t >= 2 needs delta >= 1 - e^eps erfc(sqrt eps)/2 > 0.5).
  EXPECT_LT(rel_err(calibrate("zhao1_gaussian", 1.0, 0.9, 1.0).scale, 1.0 / std::sqrt(2.0)), 1e-15);
  // delta = 0 is refused by every Gaussian rule.
  for (const char* rule : kRule) EXPECT_THROW(calibrate(rule, 0.5, 0.0, 1.0), dpagg::Error) << rule;
}

TEST(ZhaoRules, PdpRulesAreMarkedAndNotAutoCandidates) {
  for (const char* rule : {"pdp_gaussian", "zhao3_pdp_gaussian", "zhao4_pdp_gaussian"}) {
    const dpagg::Mechanism& m = *dpagg::parse_spec(rule).mechanism;
    EXPECT_FALSE(m.auto_candidate()) << rule;
    EXPECT_NE(std::string(m.guarantee()).find("probabilistic DP"), std::string::npos) << rule;
    EXPECT_NE(std::string(m.summary()).find("probabilistic DP"), std::string::npos) << rule;
  }
  for (const char* rule : {"zhao1_gaussian", "zhao2_gaussian", "zcdp_gaussian", "dwork2006_gaussian"})
    EXPECT_TRUE(dpagg::parse_spec(rule).mechanism->auto_candidate()) << rule;
  const dpagg::PrivacyRequest req{1.0, 1e-5, 1.0, false};
  for (const auto& c : dpagg::auto_candidates(req, false))
    EXPECT_EQ(std::strstr(c.spec, "pdp"), nullptr) << c.spec;
}

TEST(ZhaoRules, ZcdpRhoIsTheConvertedOne) {
  for (double e : {0.1, 1.0, 5.0})
    for (double d : {1e-3, 1e-6, 1e-10}) {
      dpagg_calibration cal = calibrate("zcdp_gaussian", e, d, 2.0);
      const double L = std::log(1 / d);
      const double rho = std::pow(std::sqrt(L + e) - std::sqrt(L), 2);
      const double got = dpagg_zcdp_rho(&cal);
      EXPECT_LE(got, rho * (1 + 1e-13));
      EXPECT_LT(rel_err(got, rho), 1e-13);
      // and it converts back to eps by Bun-Steinke
      EXPECT_LE(got + 2 * std::sqrt(got * L), e * (1 + 1e-13));
    }
}

TEST(ZhaoRules, CalibrationTime) {
  const double eps[] = {0.01, 0.1, 1, 10};
  const double deltas[] = {1e-3, 1e-6, 1e-10};
  for (const char* rule : kRule) {
    int n = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 20; ++rep)
      for (double e : eps)
        for (double d : deltas) {
          if ((std::strstr(rule, "dwork") || std::strstr(rule, "classic")) && e > 1) continue;
          calibrate(rule, e, d, 1.0);
          ++n;
        }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    std::printf("[ zhao ] %-20s %7.1f us per calibration\n", rule, us);
    EXPECT_LT(us, 1000.0) << rule;
  }
}
