// test_grant.cpp — grants (src/core/grant): what a worker accepts is exactly what the
// coordinator sealed, under the same key, before the expiry; everything else is refused as an
// invalid parameter, never parsed into a grant.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "dpagg_core.h"

namespace {

dpagg_grant sample() {
  dpagg_grant g;
  std::memset(&g, 0, sizeof g);
  for (int i = 0; i < DPAGG_GRANT_NONCE_LEN; ++i) g.nonce[i] = static_cast<unsigned char>(i * 7 + 1);
  g.issued_us = 1000000000000000LL;
  g.expires_us = 2000000000000000LL;
  g.nshards = 3;
  for (int i = 0; i < 3; ++i) {
    g.shards[i].shardid = 102008 + i;
    g.shards[i].groupid = 1 + i % 2;
  }
  std::strcpy(g.database, "postgres");
  std::strcpy(g.role, "analyst");
  std::strcpy(g.table, "public.t");
  g.ncalls = 2;
  std::strcpy(g.calls[0].aggregate, "dp_sum");
  g.calls[0].epsilon = 1.0;
  g.calls[0].delta = 1e-5;
  g.calls[0].nparts = 1;
  std::strcpy(g.calls[0].parts[0].spec, "multi_gaussian(k=3)");
  g.calls[0].parts[0].epsilon = 1.0;
  g.calls[0].parts[0].delta = 1e-5;
  g.calls[0].parts[0].rho = 0.0123456789;
  std::strcpy(g.calls[1].aggregate, "dp_avg");
  g.calls[1].epsilon = 0.5;
  g.calls[1].delta = 0;
  g.calls[1].nparts = 2;
  std::strcpy(g.calls[1].parts[0].spec, "laplace");
  g.calls[1].parts[0].epsilon = 0.25;
  g.calls[1].parts[0].rho = 0.03125;
  std::strcpy(g.calls[1].parts[1].spec, "laplace");
  g.calls[1].parts[1].epsilon = 0.25;
  g.calls[1].parts[1].rho = 0.03125;
  return g;
}

const unsigned char* key() {
  static unsigned char k[DPAGG_GRANT_KEY_LEN];
  for (int i = 0; i < DPAGG_GRANT_KEY_LEN; ++i) k[i] = static_cast<unsigned char>(0xA0 + i);
  return k;
}

std::string seal(const dpagg_grant& g, const unsigned char* k = key()) {
  static char buf[DPAGG_GRANT_TEXT_MAX];
  dpagg_error err;
  EXPECT_EQ(dpagg_grant_seal(k, &g, buf, sizeof buf, &err), DPAGG_OK) << err.message;
  return buf;
}

int open(const std::string& text, dpagg_grant* out, int64_t now = 1000, const unsigned char* k = key()) {
  dpagg_error err;
  return dpagg_grant_open(k, text.c_str(), now, out, &err);
}

TEST(Grant, SealedGrantOpensToTheSameFields) {
  dpagg_grant g = sample(), h;
  ASSERT_EQ(open(seal(g), &h), DPAGG_OK);
  EXPECT_EQ(std::memcmp(g.nonce, h.nonce, sizeof g.nonce), 0);
  EXPECT_EQ(h.expires_us, g.expires_us);
  EXPECT_STREQ(h.role, "analyst");
  EXPECT_STREQ(h.table, "public.t");
  ASSERT_EQ(h.ncalls, 2);
  EXPECT_STREQ(h.calls[0].parts[0].spec, "multi_gaussian(k=3)");
  // doubles travel bit for bit: the worker compares them exactly with what it would charge
  EXPECT_EQ(h.calls[0].parts[0].rho, 0.0123456789);
  EXPECT_EQ(h.calls[0].delta, 1e-5);
  EXPECT_EQ(h.calls[1].nparts, 2);
  EXPECT_EQ(h.calls[1].parts[1].epsilon, 0.25);
  EXPECT_EQ(h.issued_us, g.issued_us);
  ASSERT_EQ(h.nshards, 3);
  EXPECT_EQ(h.shards[2].shardid, 102010);
  EXPECT_EQ(h.shards[2].groupid, 1);
}

TEST(Grant, EveryAlteredCharacterIsRefused) {
  std::string s = seal(sample());
  const std::string alphabet = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::string t = s;
    t[i] = (t[i] == '0') ? '1' : (alphabet.find(t[i]) != std::string::npos ? '0' : 'x');
    dpagg_grant h;
    EXPECT_EQ(open(t, &h), DPAGG_INVALID_PARAMETER) << "position " << i;
  }
}

TEST(Grant, OtherKeyExpiryAndFormsAreRefused) {
  dpagg_grant g = sample(), h;
  unsigned char other[DPAGG_GRANT_KEY_LEN];
  std::memcpy(other, key(), sizeof other);
  other[31] ^= 1;
  std::string s = seal(g);
  EXPECT_EQ(open(s, &h, 1000, other), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(open(s, &h, g.expires_us), DPAGG_INVALID_PARAMETER);  // expired at its instant
  EXPECT_EQ(open(s, &h, g.expires_us - 1), DPAGG_OK);
  EXPECT_EQ(open(s.substr(0, s.size() - 2), &h), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(open(s + "00", &h), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(open("", &h), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(open(std::string(20000, 'a'), &h), DPAGG_INVALID_PARAMETER);
  // a template is not a grant
  char buf[DPAGG_GRANT_TEXT_MAX];
  dpagg_error err;
  ASSERT_EQ(dpagg_grant_template(&g, buf, sizeof buf, &err), DPAGG_OK);
  EXPECT_EQ(open(buf, &h), DPAGG_INVALID_PARAMETER);
  // a payload with a valid MAC but a bad field (a forged key would be needed): refused on parse
  g.calls[0].epsilon = -1;
  EXPECT_EQ(open(seal(g), &h), DPAGG_INVALID_PARAMETER);
  g = sample();
  g.calls[0].parts[0].rho = -1;
  EXPECT_EQ(open(seal(g), &h), DPAGG_INVALID_PARAMETER);
  // a part without a zCDP bound has rho NaN (aggregates.c), which travels as it is
  g = sample();
  g.calls[0].parts[0].rho = std::nan("");
  ASSERT_EQ(open(seal(g), &h), DPAGG_OK);
  EXPECT_TRUE(std::isnan(h.calls[0].parts[0].rho));
}

TEST(Grant, TemplateRoundTrip) {
  dpagg_grant g = sample(), h;
  char buf[DPAGG_GRANT_TEXT_MAX];
  dpagg_error err;
  ASSERT_EQ(dpagg_grant_template(&g, buf, sizeof buf, &err), DPAGG_OK);
  ASSERT_EQ(dpagg_grant_from_template(buf, &h, &err), DPAGG_OK) << err.message;
  EXPECT_EQ(std::memcmp(&g.calls, &h.calls, sizeof g.calls), 0);
  EXPECT_EQ(dpagg_grant_from_template("dpagg-template-1:00", &h, &err), DPAGG_INVALID_PARAMETER);
}

TEST(Grant, LargestGrantFitsItsBuffer) {
  dpagg_grant g = sample();
  g.nshards = DPAGG_GRANT_MAX_SHARDS;
  for (int i = 0; i < g.nshards; ++i) {
    g.shards[i].shardid = INT64_MAX - i;
    g.shards[i].groupid = INT32_MAX - i;
  }
  g.ncalls = DPAGG_GRANT_MAX_CALLS;
  std::memset(g.database, 'd', DPAGG_GRANT_NAME_LEN - 1);
  std::memset(g.role, 'r', DPAGG_GRANT_NAME_LEN - 1);
  std::memset(g.table, 't', DPAGG_GRANT_NAME_LEN - 1);
  for (int i = 0; i < g.ncalls; ++i) {
    g.calls[i] = sample().calls[1];
    std::memset(g.calls[i].aggregate, 'a', DPAGG_GRANT_AGG_LEN - 1);
    for (int j = 0; j < 2; ++j) std::memset(g.calls[i].parts[j].spec, 's', DPAGG_MECH_SPEC_LEN - 1);
  }
  dpagg_grant h;
  ASSERT_EQ(open(seal(g), &h), DPAGG_OK);
  EXPECT_EQ(h.ncalls, DPAGG_GRANT_MAX_CALLS);
  EXPECT_EQ(h.shards[DPAGG_GRANT_MAX_SHARDS - 1].shardid, INT64_MAX - (DPAGG_GRANT_MAX_SHARDS - 1));
  EXPECT_EQ(h.shards[0].groupid, INT32_MAX);
  g.nshards = DPAGG_GRANT_MAX_SHARDS + 1;
  char big[DPAGG_GRANT_TEXT_MAX];
  dpagg_error e;
  EXPECT_EQ(dpagg_grant_seal(key(), &g, big, sizeof big, &e), DPAGG_INVALID_PARAMETER);
  g.nshards = DPAGG_GRANT_MAX_SHARDS;
  g.ncalls = DPAGG_GRANT_MAX_CALLS + 1;
  char buf[DPAGG_GRANT_TEXT_MAX];
  dpagg_error err;
  EXPECT_EQ(dpagg_grant_seal(key(), &g, buf, sizeof buf, &err), DPAGG_INVALID_PARAMETER);
}

TEST(Grant, KeyParsing) {
  unsigned char k[DPAGG_GRANT_KEY_LEN];
  dpagg_error err;
  std::string hex(64, 'a');
  EXPECT_EQ(dpagg_grant_parse_key((" " + hex + "\n").c_str(), k, &err), DPAGG_OK);
  EXPECT_EQ(k[0], 0xAA);
  EXPECT_EQ(dpagg_grant_parse_key(hex.substr(1).c_str(), k, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_grant_parse_key((hex.substr(1) + "g").c_str(), k, &err), DPAGG_INVALID_PARAMETER);
  EXPECT_EQ(dpagg_grant_parse_key("", k, &err), DPAGG_INVALID_PARAMETER);
}

}  // namespace
