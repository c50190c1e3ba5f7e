// test_auto.cpp — `auto` (src/core/mechanisms/auto/): it returns the candidate with the least
// expected loss among every mechanism that accepts the request, and Laplace at delta = 0.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "mechanisms/auto/auto.h"
#include "test_support.h"

using dpagg_test::calibrate;
using dpagg_test::rel_err;

TEST(AutoMechanism, PicksTheLeastLossCandidate) {
  const dpagg::PrivacyRequest req{1.0, 1e-5, 1.0, false};
  // auto skips candidates whose cheap loss estimate cannot win; the full candidate lists here are
  // calibrated without skipping, so this also checks that no winner is skipped.
  for (const bool l1 : {false, true}) {
    SCOPED_TRACE(l1 ? "objective l1" : "objective l2");
    std::vector<dpagg_calibration> cands = dpagg::auto_candidates(req, l1);
    ASSERT_GE(cands.size(), 4u);
    auto loss = [&](const dpagg_calibration& c) { return l1 ? c.l1 : c.l2; };
    const dpagg_calibration *best = nullptr, *ag = nullptr, *mg = nullptr;
    for (const auto& c : cands) {
      if (!best || loss(c) < loss(*best)) best = &c;
      if (std::strcmp(c.spec, "analytic_gaussian") == 0) ag = &c;
      if (std::strncmp(c.spec, "multi_gaussian", 14) == 0) mg = &c;
      EXPECT_LE(c.delta_bound, req.delta) << c.spec;
    }
    ASSERT_TRUE(ag && mg);
    const char* spec = l1 ? "auto(objective=l1)" : "auto";
    dpagg_calibration a = dpagg::calibrate(spec, req);
    EXPECT_STREQ(a.spec, best->spec);
    EXPECT_EQ(loss(a), loss(*best));
    EXPECT_EQ(a.scale, best->scale);
    EXPECT_STREQ(a.requested, l1 ? "auto(objective=l1)" : "auto");
    for (const auto& c : cands) EXPECT_LE(loss(a), loss(c)) << c.spec;
    // At eps = 1, delta = 1e-5 the multi-Gaussian's loss is far below the analytic Gaussian's
    // (docs/mixtures.md §8: l2 1.969 vs 13.918, l1 0.983 vs 2.977).
    EXPECT_LE(loss(*mg), 0.5 * loss(*ag));
    // But the pure-DP staircase is better still here (docs/staircase.md: l1 = 1/(2 sinh(1/2)) =
    // 0.9595, l2 = 1.918), and auto takes it.
    EXPECT_STREQ(a.spec, l1 ? "staircase(objective=l1)" : "staircase(objective=l2)");
    EXPECT_LT(loss(a), loss(*mg));
    std::printf("[ mixtures ] auto at eps=1 delta=1e-5, %s: -> %s (%.4f; multi_gaussian %.4f, analytic_gaussian %.4f)\n",
                l1 ? "l1" : "l2", a.spec, loss(a), loss(*mg), loss(*ag));
  }
}

// At delta = 0 the staircase (Geng & Viswanath's optimal pure-DP noise) beats Laplace for either
// objective, and auto picks the staircase of the matching step.
TEST(AutoMechanism, ZeroDeltaIsStaircase) {
  for (double e : {0.1, 1.0, 5.0}) {
    for (bool l1 : {false, true}) {
      dpagg_calibration a = dpagg::calibrate(l1 ? "auto(objective=l1)" : "auto",
                                             dpagg::PrivacyRequest{e, 0.0, 2.0, false});
      EXPECT_STREQ(a.spec, l1 ? "staircase(objective=l1)" : "staircase(objective=l2)") << "eps=" << e;
      EXPECT_EQ(a.delta_bound, 0.0);
      const dpagg_calibration lap = dpagg::calibrate("laplace", dpagg::PrivacyRequest{e, 0.0, 2.0, false});
      EXPECT_LE(l1 ? a.l1 : a.l2, l1 ? lap.l1 : lap.l2) << "eps=" << e;
    }
  }
}

// Under zcdp accounting (auto's accounting option, or a request from a zcdp budget) auto takes,
// among the candidates zCDP accounting charges no delta, the least expected loss per unit of rho
// charged (rho when the mechanism is rho-zCDP with rho <= eps^2 / 2, else eps^2 / 2): checked
// against every candidate, recomputed here from the candidates' own calibrations.
TEST(AutoMechanism, ZcdpAccountingWeighsTheRhoCharged) {
  for (const double delta : {1e-5, 1e-9, 0.0}) {
    for (const double eps : {0.1, 1.0, 4.0}) {
      SCOPED_TRACE("eps " + std::to_string(eps) + " delta " + std::to_string(delta));
      dpagg::PrivacyRequest req{eps, delta, 1.0, false};
      req.zcdp_accounting = true;
      const dpagg_calibration a = dpagg::calibrate("auto", req);
      EXPECT_STREQ(a.requested, "auto(accounting=zcdp)");
      const dpagg_calibration b = dpagg::calibrate("auto(accounting=zcdp)", {eps, delta, 1.0, false});
      EXPECT_STREQ(a.spec, b.spec);
      const double half = eps * eps / 2;
      auto cost = [&](const dpagg_calibration& c, bool* free) {
        const double rho = dpagg_zcdp_rho(&c);
        const bool charged_rho = !std::isnan(rho) && rho <= half;
        *free = charged_rho || c.delta_bound == 0.0;
        return charged_rho ? rho : half;
      };
      bool a_free = false;
      const double a_score = a.l2 * cost(a, &a_free);
      EXPECT_TRUE(a_free) << a.spec;  // some candidate is always free (Gaussian, or a pure one)
      for (const auto& c : dpagg::auto_candidates(req, false)) {
        bool free = false;
        const double score = c.l2 * cost(c, &free);
        if (free) EXPECT_LE(a_score, score * (1 + 1e-12)) << c.spec;
        // of the candidates that tie with it (every Gaussian scores Delta^2 / 2), the least loss
        if (free && score <= a_score * (1 + 1e-9)) EXPECT_LE(a.l2, c.l2) << c.spec;
      }
      if (delta > 0) {
        // a Gaussian scores Delta^2 / 2 and Laplace Delta^2: never Laplace, never the staircase
        EXPECT_FALSE(std::isnan(dpagg_zcdp_rho(&a))) << a.spec;
        EXPECT_LE(a_score, 0.5 * 1.0 * (1 + 1e-9)) << a.spec;
      }
    }
  }
  // basic accounting is unchanged: the least loss (Tulap or the staircase at these parameters)
  const dpagg_calibration basic = dpagg::calibrate("auto", {1.0, 1e-5, 1.0, false});
  EXPECT_TRUE(std::isnan(dpagg_zcdp_rho(&basic)) || basic.delta_bound > 0) << basic.spec;
}
