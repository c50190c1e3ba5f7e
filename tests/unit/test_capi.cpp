// test_capi.cpp — the C boundary of the core (src/core/capi.cpp, dpagg_core.h): null arguments,
// calibrations through the C API (never a thrown exception, OK only when certified), the describe
// JSON, and the sweep of the documented input ranges below.
//
// Every input inside the documented ranges works, and every input outside them is refused as an
// invalid parameter (22023 in SQL) — never an internal error, a NaN or an infinite answer (a
// sweep of 250 combinations once found 25 internal errors at tiny epsilon).  A sweep that refuses
// everything would pass that trivially, so each sweep also requires a minimum of releases, from
// every mechanism.
//
// Documented ranges (docs/guides/mechanisms.md, "Input ranges"): epsilon in [1e-10, 1e9] (the mixtures' own limits
// aside), delta = 0 or in [1e-290, 1), sensitivity in [1e-150, 1e150], sensitivity / epsilon at
// most 1e150.  The sweep draws
// log-uniform parameters from a fixed-seed generator (only the *parameters* are fixed; the noise
// comes from the secure generator) and always includes the corners.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <random>
#include <string>
#include <vector>

#include "mechanisms/multi_gaussian/multi_gaussian.h"
#include "release.h"
#include "test_support.h"

using dpagg_test::calibrate;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(Registry, NullArgumentsAndErrorPointer) {
  dpagg_calibration cal;
  dpagg_error err;
  EXPECT_EQ(dpagg_calibrate(nullptr, 1, 1e-5, 1, &cal, &err), DPAGG_INVALID_PARAMETER);
  // A null error pointer is tolerated.
  EXPECT_EQ(dpagg_calibrate("nope", 1, 1e-5, 1, &cal, nullptr), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_calibrate("laplace", 1, 0, 1, &cal, nullptr), DPAGG_OK);
}

TEST(Registry, ValidCalibrationsThroughTheCApi) {
  dpagg_calibration cal;
  dpagg_error err;
  ASSERT_EQ(dpagg_calibrate("  Laplace ", 0.5, 0, 2, &cal, &err), DPAGG_OK);
  EXPECT_EQ(err.status, DPAGG_OK);
  EXPECT_STREQ(cal.spec, "laplace");
  EXPECT_EQ(cal.epsilon, 0.5);
  EXPECT_EQ(cal.delta, 0.0);
  EXPECT_EQ(cal.sensitivity, 2.0);
  EXPECT_EQ(cal.nparams, 1);
  EXPECT_EQ(cal.params[0], cal.scale);
  EXPECT_EQ(cal.delta_bound, 0.0);
  EXPECT_EQ(dpagg::find_mechanism(cal.mechanism)->name(), std::string("laplace"));
  ASSERT_EQ(dpagg_calibrate("analytic_gaussian", 1, 1e-5, 1, &cal, &err), DPAGG_OK);
  EXPECT_STREQ(cal.spec, "analytic_gaussian");
  EXPECT_LE(cal.delta_bound, 1e-5);
  // Boundary values that are valid.
  EXPECT_EQ(dpagg_calibrate("laplace", 1, 0.5, 1, &cal, &err), DPAGG_OK);
  EXPECT_EQ(dpagg_calibrate("analytic_gaussian", 1, std::nextafter(1.0, 0.0), 1, &cal, &err), DPAGG_OK);
  EXPECT_EQ(dpagg_calibrate("laplace", 1, 0, 1e150, &cal, &err), DPAGG_OK);
  EXPECT_EQ(dpagg_calibrate("analytic_gaussian", 1, 1e-5, 1e150, &cal, &err), DPAGG_OK);
  EXPECT_EQ(dpagg_calibrate("laplace", 1e-10, 0, 1e-150, &cal, &err), DPAGG_OK);
  // Below the smallest epsilon, or a noise scale beyond representable: refused as parameters.
  EXPECT_EQ(dpagg_calibrate("laplace", 1e-100, 0, 1e-150, &cal, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_calibrate("laplace", 1e-3, 0, 1e150, &cal, &err), DPAGG_INVALID_PARAMETER);
}

// Whatever the input, dpagg_calibrate returns a status (never throws, never aborts), and a
// successful calibration is certified.
TEST(Registry, CalibrateNeverThrowsAndOkMeansCertified) {
  const double vals[] = {kNaN, -kInf, -1, 0, std::numeric_limits<double>::denorm_min(), 1e-300,
                         1e-30, 1e-6, 0.5, std::nextafter(1.0, 0.0), 1, 2, 1e6, 1e300,
                         std::numeric_limits<double>::max(), kInf};
  const char* specs[] = {"laplace", "analytic_gaussian", "classic_gaussian", "LAPLACE(", "x"};
  int ok = 0;
  for (const char* spec : specs)
    for (double e : vals)
      for (double d : vals)
        for (double s : vals) {
          dpagg_calibration cal;
          dpagg_error err;
          int rc = -1;
          EXPECT_NO_THROW(rc = dpagg_calibrate(spec, e, d, s, &cal, &err));
          if (rc == DPAGG_OK) {
            ++ok;
            ASSERT_TRUE(std::isfinite(cal.scale) && cal.scale > 0) << spec << " " << e << " " << d << " " << s;
            ASSERT_LE(cal.delta_bound, cal.delta);
            ASSERT_GE(cal.delta_bound, 0.0);
            ASSERT_TRUE(std::isfinite(cal.l1) && std::isfinite(cal.l2));
          } else {
            ASSERT_TRUE(rc == DPAGG_INVALID_PARAMETER || rc == DPAGG_INTERNAL || rc == DPAGG_NOT_SUPPORTED);
            ASSERT_GT(std::strlen(err.message), 0u);
          }
        }
  EXPECT_GT(ok, 100);
}

TEST(Describe, JsonNamesTheMechanismAndItsParameters) {
  struct C { const char* spec; double eps, delta, sens; const char* param; const char* guarantee; };
  const C cs[] = {{"laplace", 0.5, 0, 2, "\"b\": ", "\"epsilon-DP\""},
                  {"laplace", 0.5, 1e-6, 2, "\"b\": ", "\"(epsilon, delta)-DP\""},
                  {"analytic_gaussian", 1, 1e-5, 1, "\"sigma\": ", "\"(epsilon, delta)-DP\""},
                  {"classic_gaussian", 0.25, 1e-8, 3, "\"sigma\": ", "\"(epsilon, delta)-DP\""}};
  for (const C& c : cs) {
    dpagg_calibration cal;
    dpagg_error err;
    ASSERT_EQ(dpagg_calibrate(c.spec, c.eps, c.delta, c.sens, &cal, &err), DPAGG_OK);
    char buf[2048];
    ASSERT_EQ(dpagg_describe(&cal, buf, sizeof(buf), &err), DPAGG_OK);
    std::string js(buf);
    SCOPED_TRACE(js);
    EXPECT_EQ(js.front(), '{');
    EXPECT_EQ(js.back(), '}');
    EXPECT_NE(js.find(std::string("\"mechanism\": \"") + c.spec + "\""), std::string::npos);
    EXPECT_NE(js.find(c.param), std::string::npos);
    EXPECT_NE(js.find(c.guarantee), std::string::npos);
    for (const char* key : {"\"epsilon\": ", "\"delta\": ", "\"sensitivity\": ", "\"l1\": ", "\"l2\": ",
                            "\"delta_certified\": ", "\"release_grid\": "})
      EXPECT_NE(js.find(key), std::string::npos) << key;
    // Numbers round-trip (%.17g): the scale printed is the scale calibrated.
    size_t at = js.find(c.param) + std::strlen(c.param);
    EXPECT_EQ(std::strtod(js.c_str() + at, nullptr), cal.scale);
    at = js.find("\"release_grid\": ") + std::strlen("\"release_grid\": ");
    EXPECT_EQ(std::strtod(js.c_str() + at, nullptr), dpagg::release_grid(cal));
    // Balanced braces, no stray control characters.
    int depth = 0;
    for (char ch : js) {
      depth += ch == '{';
      depth -= ch == '}';
      EXPECT_GE(depth, 0);
      EXPECT_GE(static_cast<unsigned char>(ch), 0x20);
    }
    EXPECT_EQ(depth, 0);
    // Truncation keeps the buffer NUL-terminated.
    char small[16];
    std::memset(small, 'z', sizeof(small));
    EXPECT_EQ(dpagg_describe(&cal, small, sizeof(small), &err), DPAGG_OK);
    EXPECT_EQ(std::strlen(small), sizeof(small) - 1);
    EXPECT_EQ(std::string(small), js.substr(0, sizeof(small) - 1));
  }
  // A calibration that names no mechanism is reported, not thrown.
  dpagg_calibration bad;
  std::memset(&bad, 0, sizeof(bad));
  bad.mechanism = 42;
  char buf[256];
  dpagg_error err;
  int rc = DPAGG_OK;
  EXPECT_NO_THROW(rc = dpagg_describe(&bad, buf, sizeof(buf), &err));
  EXPECT_EQ(rc, DPAGG_INTERNAL);
  EXPECT_GT(std::strlen(err.message), 0u);
}

// The describe JSON's "K" is the multi-Gaussian's parameter K (the calibration record has no
// field of its own for it), and 0 for every other mechanism.
TEST(Describe, KIsTheMultiGaussiansParameter) {
  auto describe = [](const dpagg_calibration& cal) {
    char buf[4096];
    dpagg_error err;
    EXPECT_EQ(dpagg_describe(&cal, buf, sizeof(buf), &err), DPAGG_OK);
    return std::string(buf);
  };
  const dpagg_calibration mg = dpagg_test::calibrate("multi_gaussian(k=3)", 1.0, 1e-6, 1.0);
  EXPECT_EQ(mg.params[1], 3.0);
  EXPECT_EQ(dpagg::multi_gaussian_k(mg), 3);
  EXPECT_NE(describe(mg).find("\"K\": 3,"), std::string::npos) << describe(mg);
  for (const char* spec : {"laplace", "analytic_gaussian", "osgt", "quasi_gaussian"}) {
    const dpagg_calibration cal = dpagg_test::calibrate(spec, 1.0, 1e-6, 1.0);
    EXPECT_NE(describe(cal).find("\"K\": 0,"), std::string::npos) << describe(cal);
  }
}

// ---- the documented input ranges ----

namespace {

struct Case {
  std::string mech;
  double eps, delta, sens;
  bool integer;
};

std::string describe(const Case& c) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%s eps=%.3g delta=%.3g sens=%.3g int=%d", c.mech.c_str(), c.eps,
                c.delta, c.sens, c.integer ? 1 : 0);
  return buf;
}

std::vector<std::string> mechanism_names() {
  std::vector<std::string> out{"auto"};
  for (int i = 0; i < dpagg_mechanism_count(); ++i) {
    dpagg_mechanism_info info;
    if (dpagg_mechanism_get(i, &info) == DPAGG_OK) out.push_back(info.name);
  }
  return out;
}

// The status of a scalar request, end to end: check, calibrate (with the release allowance, as the
// aggregates do), release.  Returns DPAGG_OK or the first refusal; fails the test on anything else.
int run_scalar(const Case& c) {
  dpagg_error err;
  double s = c.integer ? std::floor(c.sens) : c.sens;
  dpagg_request req{c.eps, c.delta, s, c.integer ? 1 : 0, 1, 0, DPAGG_OBJECTIVE_L2};
  int st = dpagg_check_for_release(c.mech.c_str(), &req, &err);
  if (st != DPAGG_OK) {
    EXPECT_EQ(st, DPAGG_INVALID_PARAMETER) << describe(c) << ": " << err.message;
    return st;
  }
  dpagg_calibration cal;
  st = dpagg_calibrate_for_release(c.mech.c_str(), &req, &cal, &err);
  if (st != DPAGG_OK) {
    // A request that passed the check must calibrate, or be refused as out of range.
    EXPECT_EQ(st, DPAGG_INVALID_PARAMETER) << describe(c) << ": " << err.message;
    return st;
  }
  EXPECT_TRUE(std::isfinite(cal.scale) && cal.scale > 0) << describe(c);
  EXPECT_LE(cal.delta_bound, c.delta) << describe(c);
  double quantum = std::ldexp(1.0, std::ilogb(s) - 52);
  for (__int128 quanta : {static_cast<__int128>(0), static_cast<__int128>(12345),
                          -(static_cast<__int128>(1) << 60)}) {
    double out;
    st = dpagg_release(&cal, quanta, quantum, &out, &err);
    EXPECT_EQ(st, DPAGG_OK) << describe(c) << ": " << err.message;
    if (st == DPAGG_OK) {
      EXPECT_TRUE(std::isfinite(out)) << describe(c) << " gave " << out;
    }
  }
  return DPAGG_OK;
}

double log_uniform(std::mt19937_64& g, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return std::exp(u(g));
}

}  // namespace

TEST(InputRanges, CornersOfTheDocumentedRangesWorkForEveryMechanism) {
  const double eps[] = {1e-10, 1e-3, 1.0, 700.0, 1e9};
  const double delta[] = {0.0, 1e-290, 1e-6, 0.49, 0.999};
  const double sens[] = {1e-150, 1.0, 1e150};
  int ok = 0, refused = 0;
  for (const auto& m : mechanism_names())
    for (double e : eps)
      for (double d : delta)
        for (double s : sens) (run_scalar({m, e, d, s, false}) == DPAGG_OK ? ok : refused)++;
  std::printf("[ corners ] %d calibrated and released, %d refused as invalid parameters\n", ok, refused);
  EXPECT_GT(ok, 100);
}

TEST(InputRanges, RandomSweepHasNoInternalErrors) {
  std::mt19937_64 g(20261125);  // the parameters only: the noise is the secure generator's
  const auto mechs = mechanism_names();
  std::map<std::string, int> released;
  int ok = 0, refused = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 250; ++i) {
    Case c;
    c.mech = mechs[g() % mechs.size()];
    c.eps = log_uniform(g, 1e-12, 1e10);  // a little beyond the range on both sides
    int dk = static_cast<int>(g() % 4);
    c.delta = dk == 0 ? 0.0 : dk == 1 ? log_uniform(g, 1e-300, 1e-200) : log_uniform(g, 1e-200, 0.999);
    c.sens = log_uniform(g, 1e-160, 1e160);
    c.integer = (g() % 4) == 0;
    if (c.integer) c.sens = std::floor(log_uniform(g, 1, 1e10));
    if (run_scalar(c) == DPAGG_OK) {
      ++ok;
      ++released[c.mech];
    } else {
      ++refused;
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ sweep ] 250 requests: %d released, %d refused as invalid parameters, %.1f s\n", ok,
              refused, secs);
  // The parameters are fixed, so these counts are too (135 released when written): a change that
  // makes the sweep refuse what it used to release fails here rather than passing on nothing.
  EXPECT_GE(ok, 120);
  for (const auto& m : std::set<std::string>(mechs.begin(), mechs.end())) {
    std::printf("[ sweep ]   %-22s %d released\n", m.c_str(), released[m]);
    EXPECT_GE(released[m], 2) << m << " released almost nothing in the sweep";
  }
}

TEST(InputRanges, VectorSweepHasNoInternalErrors) {
  std::mt19937_64 g(11250);
  const char* mechs[] = {"gaussian", "l2", "auto"};
  int released[3] = {0, 0, 0};
  for (int i = 0; i < 40; ++i) {
    const int which = static_cast<int>(g() % 3);
    const char* m = mechs[which];
    int dim = 1 + static_cast<int>(g() % 16);
    double e = log_uniform(g, 1e-12, 1e10);
    double d = (g() % 3) == 0 ? 0.0 : log_uniform(g, 1e-290, 0.5);
    double b = log_uniform(g, 1e-150, 1e150);
    dpagg_error err;
    dpagg_request req{e, d, b, 0, dim, 1, DPAGG_OBJECTIVE_L2};
    int st = dpagg_check_for_release(m, &req, &err);
    if (st != DPAGG_OK) {
      EXPECT_EQ(st, DPAGG_INVALID_PARAMETER) << m << " " << e << " " << d << " " << b << ": " << err.message;
      continue;
    }
    dpagg_calibration cal;
    st = dpagg_calibrate_for_release(m, &req, &cal, &err);
    if (st != DPAGG_OK) {
      EXPECT_EQ(st, DPAGG_INVALID_PARAMETER) << m << " " << e << " " << d << " " << b << ": " << err.message;
      continue;
    }
    std::vector<__int128> quanta(dim, 7);
    std::vector<double> out(dim);
    double quantum = std::ldexp(1.0, std::ilogb(b) - 52);
    st = dpagg_release_vector(&cal, quanta.data(), quantum, out.data(), &err);
    EXPECT_EQ(st, DPAGG_OK) << m << " dim=" << dim << " eps=" << e << " delta=" << d << " bound=" << b
                            << ": " << err.message;
    for (double v : out) EXPECT_TRUE(std::isfinite(v));
    if (st == DPAGG_OK) ++released[which];
  }
  std::printf("[ sweep ] vectors: gaussian %d, l2 %d, auto %d released of 40\n", released[0], released[1],
              released[2]);
  for (int k = 0; k < 3; ++k) EXPECT_GE(released[k], 3) << mechs[k] << " released almost nothing in the sweep";
}

// dpagg_random()'s source: uniform on [0, 1) from the secure pool, never the same value twice in
// a row of 100 000 (53 random bits), and uniform (Kolmogorov-Smirnov at 1e-6).
TEST(SecureUniform, InTheUnitIntervalAndUniform) {
  const int n = 100000;
  std::vector<double> u(n);
  dpagg_error err;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(dpagg_secure_uniform(&u[i], &err), DPAGG_OK);
    ASSERT_GE(u[i], 0.0);
    ASSERT_LT(u[i], 1.0);
  }
  std::sort(u.begin(), u.end());
  EXPECT_EQ(std::adjacent_find(u.begin(), u.end()), u.end());
  double d = 0;
  for (int i = 0; i < n; ++i)
    d = std::max(d, std::max(std::fabs(u[i] - double(i) / n), std::fabs(u[i] - double(i + 1) / n)));
  // P(sqrt(n) D > 2.6) < 1e-5 (Kolmogorov); 2.6 / sqrt(n) = 0.0082.
  EXPECT_LT(d, 2.6 / std::sqrt(double(n)));
}

// The delta a release is charged (docs/guides/budgets.md): 0 for a mechanism whose certificate
// bounds delta by 0 (the staircase auto picks for a large sensitivity, Laplace at delta 0), the
// delta asked for when the mechanism uses it (the Gaussian; Laplace and Tulap calibrated at
// delta > 0 use it too).
TEST(ChargedDelta, PureMechanismsAreChargedNoDelta) {
  struct Case {
    const char* spec;
    double delta;
    bool pure;
  } cases[] = {{"staircase", 1e-6, true},       {"auto", 1e-6, true},
               {"laplace", 0, true},            {"laplace", 1e-6, false},
               {"analytic_gaussian", 1e-6, false}, {"tulap", 1e-6, false}};
  for (const Case& c : cases) {
    dpagg_calibration cal;
    dpagg_error err;
    ASSERT_EQ(dpagg_calibrate(c.spec, 1.0, c.delta, 200000, &cal, &err), DPAGG_OK) << c.spec;
    if (c.pure) {
      EXPECT_EQ(cal.delta_bound, 0.0) << c.spec;
      EXPECT_EQ(dpagg_charged_delta(&cal, c.delta), 0.0) << c.spec;
    } else {
      EXPECT_GT(cal.delta_bound, 0.0) << c.spec;
      EXPECT_EQ(dpagg_charged_delta(&cal, c.delta), c.delta) << c.spec;
    }
  }
  dpagg_calibration nan_bound;
  std::memset(&nan_bound, 0, sizeof nan_bound);
  nan_bound.delta_bound = kNaN;
  EXPECT_EQ(dpagg_charged_delta(&nan_bound, 1e-6), 1e-6);
  EXPECT_EQ(dpagg_charged_delta(nullptr, 1e-6), 1e-6);
}
