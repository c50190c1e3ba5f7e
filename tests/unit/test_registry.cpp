// test_registry.cpp — mechanism specs, request validation and the C API boundary.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "mechanisms/multi_gaussian/multi_gaussian.h"
#include "release.h"
#include "test_support.h"

using dpagg_test::calibrate;

namespace {

struct Bad {
  const char* spec;
  double eps, delta, sens;
  const char* why;
};

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<Bad> kBad = {
    {"no_such_mechanism", 1, 1e-5, 1, "unknown mechanism"},
    {"", 1, 1e-5, 1, "empty spec"},
    {"gaussian", 1, 1e-5, 1, "unknown mechanism"},
    {"laplace(k=3)", 1, 0, 1, "option on an option-less mechanism"},
    {"analytic_gaussian(sigma=2)", 1, 1e-5, 1, "unknown option"},
    {"laplace(", 1, 0, 1, "malformed spec"},
    {"laplace(k)", 1, 0, 1, "malformed option"},
    {"laplace(=1)", 1, 0, 1, "malformed option"},
    {"laplace(,)", 1, 0, 1, "malformed option"},
    {"(laplace)", 1, 0, 1, "no name"},
    {"laplace x", 1, 0, 1, "trailing junk"},
    {"laplace", 0, 0, 1, "eps = 0"},
    {"laplace", -1, 0, 1, "eps < 0"},
    {"laplace", kNaN, 0, 1, "eps NaN"},
    {"laplace", kInf, 0, 1, "eps inf"},
    {"analytic_gaussian", -kInf, 1e-5, 1, "eps -inf"},
    {"laplace", 1, -1e-9, 1, "delta < 0"},
    {"laplace", 1, 1, 1, "delta = 1"},
    {"laplace", 1, 1.5, 1, "delta > 1"},
    {"laplace", 1, kNaN, 1, "delta NaN"},
    {"analytic_gaussian", 1, kInf, 1, "delta inf"},
    {"analytic_gaussian", 1, 0, 1, "delta = 0 for a Gaussian"},
    {"classic_gaussian", 0.5, 0, 1, "delta = 0 for a Gaussian"},
    {"laplace", 1, 0, 0, "sensitivity 0"},
    {"laplace", 1, 0, -2, "sensitivity < 0"},
    {"analytic_gaussian", 1, 1e-5, kNaN, "sensitivity NaN"},
    {"analytic_gaussian", 1, 1e-5, kInf, "sensitivity inf"},
    {"classic_gaussian", 1, 1e-5, -kInf, "sensitivity -inf"},
    {"classic_gaussian", 1.5, 1e-5, 1, "classic Gaussian above eps = 1"},
};

}  // namespace

TEST(Registry, ListsTheMechanisms) {
  // Other mechanisms may be registered too; these three are the core's own.
  const int n = dpagg_mechanism_count();
  ASSERT_EQ(static_cast<size_t>(n), dpagg::all_mechanisms().size());
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    dpagg_mechanism_info info;
    ASSERT_EQ(dpagg_mechanism_get(i, &info), DPAGG_OK);
    ASSERT_NE(info.name, nullptr);
    EXPECT_GT(std::strlen(info.summary), 10u);
    EXPECT_GT(std::strlen(info.guarantee), 0u);
    const std::string name = info.name;
    if (name == "laplace") {
      EXPECT_EQ(info.accepts_zero_delta, 1);
    }
    if (name == "analytic_gaussian" || name == "classic_gaussian") {
      EXPECT_EQ(info.accepts_zero_delta, 0);
    }
    names.push_back(name);
    EXPECT_EQ(dpagg::parse_spec(name).mechanism, dpagg::all_mechanisms().at(static_cast<size_t>(i)));
  }
  for (const char* want : {"analytic_gaussian", "classic_gaussian", "laplace"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  dpagg_mechanism_info info;
  EXPECT_NE(dpagg_mechanism_get(-1, &info), DPAGG_OK);
  EXPECT_NE(dpagg_mechanism_get(n, &info), DPAGG_OK);
}

TEST(Registry, ParseSpecCanonicalForm) {
  EXPECT_EQ(dpagg::parse_spec("laplace").canonical, "laplace");
  EXPECT_EQ(dpagg::parse_spec("  LaPlAcE \t").canonical, "laplace");
  EXPECT_EQ(dpagg::parse_spec("Analytic_Gaussian()").canonical, "analytic_gaussian");
  EXPECT_EQ(dpagg::parse_spec(" laplace ( ) ").canonical, "laplace");
  EXPECT_EQ(dpagg::parse_spec("classic_gaussian").mechanism->name(), std::string("classic_gaussian"));
  char canon[DPAGG_MECH_SPEC_LEN];
  dpagg_error err;
  ASSERT_EQ(dpagg_validate_spec(" ANALYTIC_GAUSSIAN ", canon, sizeof(canon), &err), DPAGG_OK);
  EXPECT_STREQ(canon, "analytic_gaussian");
  EXPECT_EQ(dpagg_validate_spec("nope", canon, sizeof(canon), &err), DPAGG_INVALID_PARAMETER);
  EXPECT_NE(std::string(err.message).find("nope"), std::string::npos);
  EXPECT_NE(std::string(err.hint).find("laplace"), std::string::npos) << "the hint lists the mechanisms";
  EXPECT_EQ(dpagg_validate_spec(nullptr, canon, sizeof(canon), &err), DPAGG_INVALID_PARAMETER);
  // A spec far longer than the canonical buffer is refused, not truncated.
  std::string longspec(200, 'x');
  EXPECT_EQ(dpagg_validate_spec(longspec.c_str(), canon, sizeof(canon), &err), DPAGG_INVALID_PARAMETER);
}

TEST(Registry, InvalidRequestsAreInvalidParameterWithMessageAndHint) {
  for (const Bad& b : kBad) {
    SCOPED_TRACE(testing::Message() << b.why << ": spec=\"" << b.spec << "\" eps=" << b.eps
                                    << " delta=" << b.delta << " sens=" << b.sens);
    dpagg_calibration cal;
    std::memset(&cal, 0x5a, sizeof(cal));
    dpagg_error err;
    std::memset(&err, 0, sizeof(err));
    int rc = DPAGG_OK;
    EXPECT_NO_THROW(rc = dpagg_calibrate(b.spec, b.eps, b.delta, b.sens, &cal, &err));
    EXPECT_EQ(rc, DPAGG_INVALID_PARAMETER);
    EXPECT_EQ(err.status, DPAGG_INVALID_PARAMETER);
    EXPECT_GT(std::strlen(err.message), 0u);
    EXPECT_GT(std::strlen(err.hint), 0u);
    // The C++ entry point throws the same class.
    try {
      calibrate(b.spec, b.eps, b.delta, b.sens);
      ADD_FAILURE() << "accepted";
    } catch (const dpagg::Error& e) {
      EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER);
    }
  }
}

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

// Known bugs: requests inside the documented ranges (eps finite > 0, 0 <= delta < 1,
// sensitivity finite > 0) that the core answers with DPAGG_INTERNAL ("failed its certificate
// check", "laplace: certificate check failed", or a Boost root-finder message), which the glue
// reports as SQLSTATE XX000 internal_error — a user error, or a perfectly fine request, dressed
// up as a bug.  Each should either succeed or be DPAGG_INVALID_PARAMETER with a hint.
//  * scale > ~1.3e154: l2 = scale^2 overflows and registry.cpp's final check rejects the
//    calibration (even though the scale itself is fine);
//  * laplace with delta >= ~0.998: the absolute rounding margin in laplace_profile_bound exceeds
//    the slack the (1 + 2^-40) factor buys;
//  * analytic_gaussian with delta < 1e-300 (gaussian_profile's absolute 1e-300 error floor), or
//    a huge epsilon (toms748 fails to bracket), or a sigma that overflows.
TEST(Registry, UnrepresentableRequestsAreInvalidParameterNotInternal) {
  const Bad cases[] = {
      {"laplace", 1, 0, 1e200, "l2 = 2 b^2 overflows although b = 1e200 is fine"},
      {"analytic_gaussian", 1, 1e-5, 1e160, "l2 = sigma^2 overflows although sigma is fine"},
      {"laplace", 1, 0.999, 1, "laplace, delta close to 1"},
      {"laplace", 1, std::nextafter(1.0, 0.0), 1, "laplace, largest delta below 1"},
      {"analytic_gaussian", 1, 1e-5, 1e308, "sigma overflows"},
      {"laplace", 1e-300, 0, 1e300, "b overflows"},
      {"analytic_gaussian", 1, 1e-305, 1, "delta below the 1e-300 error floor"},
      {"analytic_gaussian", 1e300, 1e-5, 1, "huge epsilon"},
      {"laplace", 1, 0, 1e-320, "subnormal sensitivity"},
  };
  for (const Bad& b : cases) {
    dpagg_calibration cal;
    dpagg_error err;
    int rc = dpagg_calibrate(b.spec, b.eps, b.delta, b.sens, &cal, &err);
    if (rc == DPAGG_OK) {
      EXPECT_TRUE(std::isfinite(cal.scale)) << b.why;
      continue;
    }
    EXPECT_EQ(rc, DPAGG_INVALID_PARAMETER) << b.why << ": " << err.message;
  }
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

// A calibration names its mechanism by a stable identity (dpagg_core.h), not by a position in
// the registry: the values are fixed per name for good, and distinct.
TEST(Registry, MechanismIdsAreFixedPerNameAndDistinct) {
  const std::vector<std::pair<const char*, dpagg_mechanism_id>> fixed = {
      {"analytic_gaussian", DPAGG_MECH_ANALYTIC_GAUSSIAN}, {"classic_gaussian", DPAGG_MECH_CLASSIC_GAUSSIAN},
      {"laplace", DPAGG_MECH_LAPLACE}, {"dwork2006_gaussian", DPAGG_MECH_DWORK2006_GAUSSIAN},
      {"zhao1_gaussian", DPAGG_MECH_ZHAO1_GAUSSIAN}, {"zhao2_gaussian", DPAGG_MECH_ZHAO2_GAUSSIAN},
      {"zcdp_gaussian", DPAGG_MECH_ZCDP_GAUSSIAN}, {"pdp_gaussian", DPAGG_MECH_PDP_GAUSSIAN},
      {"zhao3_pdp_gaussian", DPAGG_MECH_ZHAO3_PDP_GAUSSIAN}, {"zhao4_pdp_gaussian", DPAGG_MECH_ZHAO4_PDP_GAUSSIAN},
      {"osgt", DPAGG_MECH_OSGT}, {"generalized_gaussian", DPAGG_MECH_GENERALIZED_GAUSSIAN},
      {"quasi_gaussian", DPAGG_MECH_QUASI_GAUSSIAN}, {"multi_gaussian", DPAGG_MECH_MULTI_GAUSSIAN},
      {"auto", DPAGG_MECH_AUTO}};
  ASSERT_EQ(fixed.size(), dpagg::all_mechanisms().size());
  for (const auto& [name, id] : fixed) {
    const dpagg::Mechanism* m = dpagg::parse_spec(name).mechanism;
    EXPECT_EQ(m->id(), id) << name;
    EXPECT_EQ(dpagg::find_mechanism(id), m) << name;
  }
  for (int32_t none : {0, -1, 16, 99, INT32_MAX, INT32_MIN}) EXPECT_EQ(dpagg::find_mechanism(none), nullptr) << none;
  // A calibration carries the id of the mechanism in its spec; auto's, that of the one it chose.
  for (const char* spec : {"laplace", "osgt", "multi_gaussian(k=2)", "auto"}) {
    const dpagg_calibration cal = dpagg_test::calibrate(spec, 1.0, 1e-6, 1.0);
    const dpagg::Mechanism* m = dpagg::parse_spec(cal.spec).mechanism;
    EXPECT_EQ(cal.mechanism, m->id()) << spec;
    EXPECT_NE(cal.mechanism, DPAGG_MECH_AUTO) << spec;
  }
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
