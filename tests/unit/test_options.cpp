// Unit tests of the option reader (src/core/options.h): what each typed option accepts, and the
// uniform texts of a refusal, directly and through the spec parser of every mechanism.
#include <string>
#include <vector>

#include "options.h"
#include "test_support.h"

namespace {

const dpagg::IntOption kInt{"k", 1, 40, 0, "12", "without k, chosen automatically"};
const dpagg::NumberOption kNumber{"r", 0.0, 8.0, 0.6745, "0.6745", ""};
const dpagg::ChoiceOption kChoice{"mode", {"a", "b", "c"}, 1, "c", "b is the default"};

dpagg::Options with(const std::string& key, const std::string& value) { return {{key, value}}; }

// The error read_option throws for `value`, or a failure if it accepts it.
template <typename Spec>
dpagg::Error refusal(const Spec& spec, const std::string& value) {
  try {
    read_option(with(spec.key, value), "mech", spec);
  } catch (const dpagg::Error& e) {
    return e;
  }
  ADD_FAILURE() << spec.key << "=" << value << " was accepted";
  return dpagg::Error(DPAGG_OK, "");
}

}  // namespace

TEST(Options, IntegerAcceptsDecimalIntegersInRange) {
  EXPECT_EQ(read_option(dpagg::Options{}, "mech", kInt), 0);  // absent
  EXPECT_EQ(read_option(with("k", "1"), "mech", kInt), 1);
  EXPECT_EQ(read_option(with("k", "40"), "mech", kInt), 40);
  EXPECT_EQ(read_option(with("k", "+3"), "mech", kInt), 3);
  EXPECT_EQ(read_option(with("k", "03"), "mech", kInt), 3);
  for (const char* bad : {"0", "41", "-1", "1.5", "0x3", "3a", "a", "99999999999999999999", "1e1"}) {
    dpagg::Error e = refusal(kInt, bad);
    EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << bad;
    EXPECT_STREQ(e.what(), "option k of mech must be an integer from 1 to 40") << bad;
    EXPECT_EQ(e.hint(), "Write mech(k=12): k is an integer from 1 to 40; without k, chosen automatically.");
  }
}

TEST(Options, NumberAcceptsWhatStrtodReadsInRange) {
  EXPECT_EQ(read_option(dpagg::Options{}, "mech", kNumber), 0.6745);  // absent
  EXPECT_EQ(read_option(with("r", "0"), "mech", kNumber), 0.0);
  EXPECT_EQ(read_option(with("r", "8"), "mech", kNumber), 8.0);
  EXPECT_EQ(read_option(with("r", "1e0"), "mech", kNumber), 1.0);
  EXPECT_EQ(read_option(with("r", "+2.5"), "mech", kNumber), 2.5);
  EXPECT_EQ(read_option(with("r", "0x1p1"), "mech", kNumber), 2.0);
  for (const char* bad : {"-1", "8.01", "inf", "nan", "-inf", "abc", "1,5", "2x"}) {
    dpagg::Error e = refusal(kNumber, bad);
    EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << bad;
    EXPECT_STREQ(e.what(), "option r of mech must be a number from 0 to 8") << bad;
    EXPECT_EQ(e.hint(), "Write mech(r=0.6745): r is a number from 0 to 8.");  // no note: no "; "
  }
}

TEST(Options, ChoiceIsOneOfItsWords) {
  EXPECT_EQ(read_option(dpagg::Options{}, "mech", kChoice), 1);  // absent
  EXPECT_EQ(read_option(with("mode", "a"), "mech", kChoice), 0);
  EXPECT_EQ(read_option(with("mode", "c"), "mech", kChoice), 2);
  dpagg::Error e = refusal(kChoice, "d");
  EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER);
  EXPECT_STREQ(e.what(), "option mode of mech must be a, b or c");
  EXPECT_EQ(e.hint(), "Write mech(mode=c): mode is a, b or c; b is the default.");
}

TEST(Options, ObjectiveIsL2UnlessL1) {
  EXPECT_FALSE(dpagg::objective_is_l1(dpagg::Options{}, "mech"));
  EXPECT_FALSE(dpagg::objective_is_l1(with("objective", "l2"), "mech"));
  EXPECT_TRUE(dpagg::objective_is_l1(with("objective", "l1"), "mech"));
  dpagg::Error e = refusal(dpagg::kObjectiveOption, "l3");
  EXPECT_STREQ(e.what(), "option objective of mech must be l1 or l2");
}

// Every option of every mechanism, through the spec parser and the mechanism's validation: a bad
// value is invalid_parameter with the uniform texts (the parser lowercases and trims the value).
TEST(Options, EveryMechanismRefusesBadValuesUniformly) {
  const dpagg::PrivacyRequest req{1.0, 1e-5, 1.0};
  struct Case {
    const char* spec;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"multi_gaussian(k=41)", "option k of multi_gaussian must be an integer from 1 to 40"},
      {"multi_gaussian(k=0x3)", "option k of multi_gaussian must be an integer from 1 to 40"},
      {"multi_gaussian(objective=l3)", "option objective of multi_gaussian must be l1 or l2"},
      {"auto(objective=L3)", "option objective of auto must be l1 or l2"},
      {"osgt(r=-1)", "option r of osgt must be a number from 0 to 8"},
      {"osgt(r=nan)", "option r of osgt must be a number from 0 to 8"},
      {"generalized_gaussian(p=0.4)", "option p of generalized_gaussian must be a number from 0.5 to 10"},
      {"generalized_gaussian(p=x)", "option p of generalized_gaussian must be a number from 0.5 to 10"},
  };
  for (const Case& c : cases) {
    try {
      dpagg::check(c.spec, req);
      ADD_FAILURE() << c.spec << " was accepted";
    } catch (const dpagg::Error& e) {
      EXPECT_EQ(e.status(), DPAGG_INVALID_PARAMETER) << c.spec;
      EXPECT_STREQ(e.what(), c.message) << c.spec;
      EXPECT_EQ(e.hint().rfind("Write ", 0), 0u) << c.spec << ": " << e.hint();
    }
  }
  for (const char* ok : {"multi_gaussian(k= 7 , objective = L1)", "osgt(r=1e0)", "osgt(r=0)",
                         "generalized_gaussian(p=+2)", "generalized_gaussian(p=0x1p1)",
                         "multi_gaussian(k=03)", "auto(objective=l2)"})
    EXPECT_NO_THROW(dpagg::check(ok, req)) << ok;
}
