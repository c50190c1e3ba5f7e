// test_release_policy.cpp — the calibration of a release (registry.h: calibrate_for_release and
// the C entry points dpagg_calibrate_for_release / dpagg_check_for_release): the release-grid
// allowance, the typed objective, and vector releases as requests of dimension T to the same
// registry (validation, `auto`, one calibration struct).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "dpagg_core.h"
#include "errors.h"
#include "oracles/chi_moments.h"
#include "registry.h"
#include "release.h"

namespace {

dpagg_request scalar(double e, double d, double s, bool iv = false,
                     dpagg_objective o = DPAGG_OBJECTIVE_L2) {
  return dpagg_request{e, d, s, iv ? 1 : 0, 1, 0, o};
}
dpagg_request vec(double e, double d, double s, int T) {
  return dpagg_request{e, d, s, 0, T, 1, DPAGG_OBJECTIVE_L2};
}
dpagg_calibration cal_ok(const char* spec, const dpagg_request& r) {
  dpagg_calibration c;
  dpagg_error err;
  EXPECT_EQ(dpagg_calibrate_for_release(spec, &r, &c, &err), DPAGG_OK) << spec << ": " << err.message;
  return c;
}
int status(const char* spec, const dpagg_request& r, std::string* message = nullptr) {
  dpagg_error err;
  int st = dpagg_check_for_release(spec, &r, &err);
  dpagg_calibration c;
  dpagg_error err2;
  EXPECT_EQ(dpagg_calibrate_for_release(spec, &r, &c, &err2), st) << spec;  // check agrees
  if (message) *message = err.message;
  return st;
}

}  // namespace

TEST(ReleasePolicy, AllowanceAppliedInsideIntegerValuedExempt) {
  for (double d : {1.0, 7.0, 0.3, 1e100}) {
    EXPECT_EQ(cal_ok("laplace", scalar(1, 0, d)).sensitivity, d * (1 + 0x1p-29)) << d;
    // Equal to calibrating the raw entry point with the allowance by hand.
    dpagg_calibration raw;
    dpagg_error err;
    ASSERT_EQ(dpagg_calibrate_ex("analytic_gaussian", 1, 1e-6, d * (1 + 0x1p-29), 0, &raw, &err), DPAGG_OK);
    EXPECT_EQ(std::memcmp(&raw, &(const dpagg_calibration&)cal_ok("analytic_gaussian", scalar(1, 1e-6, d)),
                          sizeof(raw)), 0) << d;
  }
  EXPECT_EQ(cal_ok("laplace", scalar(1, 0, 7, true)).sensitivity, 7.0);
  // Vectors: D (1 + sqrt(T) 2^-29), which is the scalar allowance at T = 1.
  EXPECT_EQ(cal_ok("gaussian", vec(1, 1e-6, 1, 16)).sensitivity, 1 + 4 * 0x1p-29);
  EXPECT_EQ(cal_ok("gaussian", vec(1, 1e-6, 3, 1)).sensitivity, 3 * (1 + 0x1p-29));
}

TEST(ReleasePolicy, ObjectiveIsTypedAndRecordedInTheSpec) {
  dpagg_calibration l2 = cal_ok("auto", scalar(2, 1e-5, 1, false, DPAGG_OBJECTIVE_L2));
  dpagg_calibration l1 = cal_ok("auto", scalar(2, 1e-5, 1, false, DPAGG_OBJECTIVE_L1));
  EXPECT_STREQ(l2.requested, "auto(objective=l2)");
  EXPECT_STREQ(l1.requested, "auto(objective=l1)");
  // The same as naming the objective in the spec.
  dpagg_calibration named = cal_ok("auto(objective=l1)", scalar(2, 1e-5, 1, false, DPAGG_OBJECTIVE_L2));
  EXPECT_EQ(std::memcmp(&named, &l1, sizeof(named)), 0);
  // A spec's own objective wins over the request's.
  EXPECT_STREQ(cal_ok("AUTO ( objective = l2 )", scalar(2, 1e-5, 1, false, DPAGG_OBJECTIVE_L1)).requested,
               "auto(objective=l2)");
  EXPECT_STREQ(cal_ok("multi_gaussian", scalar(2, 1e-5, 1, false, DPAGG_OBJECTIVE_L1)).requested,
               "multi_gaussian(objective=l1)");
  // Mechanisms without an objective are untouched.
  EXPECT_STREQ(cal_ok("laplace", scalar(2, 0, 1, false, DPAGG_OBJECTIVE_L1)).requested, "laplace");
  // The raw entry point applies none.
  dpagg_calibration raw;
  dpagg_error err;
  ASSERT_EQ(dpagg_calibrate("auto", 2, 1e-5, 1, &raw, &err), DPAGG_OK);
  EXPECT_STREQ(raw.requested, "auto");
}

TEST(ReleasePolicy, VectorMechanismsServeTheirDimensions) {
  // The vector family: gaussian (the analytic Gaussian, every T), l2 (every T), auto.
  for (int T : {1, 2, 5, 40, 300}) {
    dpagg_calibration g = cal_ok("gaussian", vec(1, 1e-6, 1, T));
    EXPECT_EQ(g.mechanism, DPAGG_MECH_ANALYTIC_GAUSSIAN);
    EXPECT_STREQ(g.spec, "gaussian");
    EXPECT_EQ(g.dimension, T);
    EXPECT_EQ(g.vector, 1);
    // sigma is the scalar analytic sigma at the same sensitivity: the profile depends only on
    // ||shift|| / sigma.
    dpagg_calibration s;
    dpagg_error err;
    ASSERT_EQ(dpagg_calibrate("analytic_gaussian", 1, 1e-6, g.sensitivity, &s, &err), DPAGG_OK);
    EXPECT_EQ(g.scale, s.scale) << T;
    // Losses: E||X|| and E||X||^2 of N(0, sigma^2 I_T), against an independent quadrature.
    dpagg_test::ChiMoments m = dpagg_test::chi_moments(T);
    EXPECT_NEAR(g.l1 / (g.scale * m.mean), 1.0, 1e-9) << T;
    EXPECT_NEAR(g.l2 / (g.scale * g.scale * m.second), 1.0, 1e-9) << T;
    EXPECT_DOUBLE_EQ(dpagg_zcdp_rho(&g), g.sensitivity * g.sensitivity / (2 * g.scale * g.scale));
    dpagg_calibration l = cal_ok("l2", vec(1, 0, 1, T));
    EXPECT_EQ(l.mechanism, DPAGG_MECH_L2);
    EXPECT_DOUBLE_EQ(l.scale, l.sensitivity);  // pure: theta = D / eps
    EXPECT_DOUBLE_EQ(l.l2, T * (T + 1.0) * l.scale * l.scale);
    EXPECT_TRUE(std::isnan(dpagg_zcdp_rho(&l)));
  }
  // At T = 1 the l2 mechanism is the Laplace mechanism.
  dpagg_calibration l = cal_ok("l2", vec(0.7, 0, 2, 1));
  dpagg_calibration lap = cal_ok("laplace", scalar(0.7, 0, 2));
  // (laplace certifies its scale its own way: equal to 1e-9.)
  EXPECT_NEAR(l.scale / lap.scale, 1.0, 1e-9);
  EXPECT_NEAR(l.l1 / lap.l1, 1.0, 1e-9);
  EXPECT_NEAR(l.l2 / lap.l2, 1.0, 1e-9);
  // Vector auto chooses within the vector family only, by E||X||^2, also at T = 1.
  for (int T : {1, 3, 30}) {
    dpagg_calibration a = cal_ok("auto", vec(1, 1e-5, 1, T));
    EXPECT_TRUE(a.mechanism == DPAGG_MECH_ANALYTIC_GAUSSIAN || a.mechanism == DPAGG_MECH_L2) << T;
    EXPECT_STREQ(a.requested, "auto");
    EXPECT_DOUBLE_EQ(a.l2, std::min(cal_ok("gaussian", vec(1, 1e-5, 1, T)).l2,
                                    cal_ok("l2", vec(1, 1e-5, 1, T)).l2)) << T;
  }
  // Beyond T = 256 with delta > 0 auto keeps the Gaussian; with delta = 0 only l2 is private.
  EXPECT_EQ(cal_ok("auto", vec(1, 1e-5, 1, 300)).mechanism, DPAGG_MECH_ANALYTIC_GAUSSIAN);
  EXPECT_EQ(cal_ok("auto", vec(1, 0, 1, 300)).mechanism, DPAGG_MECH_L2);
}

TEST(ReleasePolicy, OneValidationOneSetOfMessages) {
  std::string msg;
  // Names belong to their family.
  EXPECT_EQ(status("laplace", vec(1, 1e-5, 1, 3), &msg), DPAGG_INVALID_PARAMETER);
  EXPECT_NE(msg.find("unknown mechanism"), std::string::npos) << msg;
  EXPECT_EQ(status("l2", scalar(1, 1e-5, 1), &msg), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(status("gaussian", scalar(1, 1e-5, 1), &msg), DPAGG_INVALID_PARAMETER);
  // The same range messages as scalars.
  std::string smsg;
  EXPECT_EQ(status("gaussian", vec(-1, 1e-5, 1, 3), &msg), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(status("analytic_gaussian", scalar(-1, 1e-5, 1), &smsg), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(msg, smsg);
  EXPECT_EQ(status("auto", vec(1, 1.0, 1, 3), &msg), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(status("auto", scalar(1, 1.0, 1), &smsg), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(msg, smsg);
  EXPECT_EQ(status("auto", vec(1, 1e-5, 0, 3)), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(status("gaussian", vec(1, 0, 1, 3), &msg), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(msg, "mechanism gaussian needs delta > 0");
  for (int T : {0, -1, 10001})
    EXPECT_EQ(status("auto", vec(1, 1e-5, 1, T)), DPAGG_INVALID_PARAMETER) << T;
  EXPECT_EQ(status("auto", vec(1, 1e-5, 1, 10000)), DPAGG_OK);
  // For vectors the objective is E||X||^2.
  EXPECT_EQ(status("auto(objective=l1)", vec(1, 1e-5, 1, 3)), DPAGG_INVALID_PARAMETER);
}

TEST(ReleasePolicy, ListingShowsScalarMechanismsOnly) {
  for (int i = 0; i < dpagg_mechanism_count(); ++i) {
    dpagg_mechanism_info info;
    ASSERT_EQ(dpagg_mechanism_get(i, &info), DPAGG_OK);
    EXPECT_STRNE(info.name, "l2");
  }
  // Every registered mechanism but l2; staircase, tulap and discrete_laplace (integer-valued
  // queries only) included.
  EXPECT_EQ(dpagg_mechanism_count(), 19);
  EXPECT_EQ(dpagg::find_mechanism(DPAGG_MECH_L2)->vector_name(), std::string("l2"));
}

TEST(ReleasePolicy, VectorReleaseOnTheGrid) {
  dpagg_calibration c = cal_ok("l2", vec(1, 0, 1, 4));
  __int128 quanta[4] = {0, 1, -1, static_cast<__int128>(1) << 60};
  double out[4];
  dpagg_error err;
  ASSERT_EQ(dpagg_release_vector(&c, quanta, 0x1p-52, out, &err), DPAGG_OK);
  const double g = dpagg::release_grid(c);
  for (double v : out) EXPECT_EQ(v / g, std::nearbyint(v / g));
}
