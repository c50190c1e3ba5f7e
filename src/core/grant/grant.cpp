// grant.cpp — grants (grant.h; docs/citus.md, "Worker-side releases").
//
// Payload (all integers big-endian, doubles as their IEEE-754 bit patterns, strings as a 16-bit
// length and their bytes, no NUL):
//   "DPG2" | nonce[16] | issued_us:i64 | expires_us:i64 | database | role | table | ncalls:u8 |
//   ncalls x ( aggregate | epsilon:f64 | delta:f64 | nparts:u8 | nparts x ( spec | eps | delta | rho ) ) |
//   nshards:u16 | nshards x ( shardid:i64 | groupid:i32 )
// A grant is "dpagg-grant-1:" hex(payload) ":" hex(HMAC-SHA256(key, payload)); opening it checks
// the MAC over the decoded payload first, with CRYPTO_memcmp, so nothing of a forged grant is
// parsed.  Doubles travel as bit patterns so that the worker compares exactly what the
// coordinator charged.
#include "grant/grant.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>
#include <cmath>
#include <cstring>

#include "errors.h"
#include "guarded.h"

namespace dpagg {
namespace {

const char kMagic[4] = {'D', 'P', 'G', '2'};
const char kGrantPrefix[] = "dpagg-grant-1:";
const char kTemplatePrefix[] = "dpagg-template-1:";
constexpr std::size_t kMacLen = 32;

[[noreturn]] void bad(const std::string& what) {
  invalid("dpagg: invalid Citus grant (" + what + ")",
          "A worker releases only under a grant its coordinator sealed for this query; "
          "check that every node has the same dpagg.citus_key_file.");
}

class Writer {
 public:
  void bytes(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  void u8(unsigned v) { out_.push_back(static_cast<char>(v & 0xFF)); }
  void u64(uint64_t v) {
    for (int i = 7; i >= 0; --i) u8(static_cast<unsigned>(v >> (8 * i)));
  }
  void f64(double d) {
    uint64_t v;
    std::memcpy(&v, &d, sizeof v);
    u64(v);
  }
  void u32(uint32_t v) {
    for (int i = 3; i >= 0; --i) u8(static_cast<unsigned>(v >> (8 * i)));
  }
  void str(const char* s, std::size_t cap) {
    std::size_t n = strnlen(s, cap);
    if (n >= cap) bad("a name is too long");
    u8(static_cast<unsigned>(n >> 8));
    u8(static_cast<unsigned>(n));
    bytes(s, n);
  }
  const std::string& out() const { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  void need(std::size_t n) {
    if (s_.size() - pos_ < n) bad("truncated");
  }
  void bytes(void* p, std::size_t n) {
    need(n);
    std::memcpy(p, s_.data() + pos_, n);
    pos_ += n;
  }
  unsigned u8() {
    need(1);
    return static_cast<unsigned char>(s_[pos_++]);
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | u8();
    return v;
  }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | u8();
    return v;
  }
  double f64() {
    uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, sizeof d);
    return d;
  }
  void str(char* out, std::size_t cap) {
    std::size_t n = u8() << 8;
    n |= u8();
    if (n >= cap) bad("a name is too long");
    need(n);
    for (std::size_t i = 0; i < n; ++i)
      if (s_[pos_ + i] == '\0') bad("a name holds a NUL");
    std::memcpy(out, s_.data() + pos_, n);
    out[n] = '\0';
    pos_ += n;
  }
  bool done() const { return pos_ == s_.size(); }

 private:
  const std::string& s_;
  std::size_t pos_ = 0;
};

std::string to_hex(const std::string& b) {
  static const char digits[] = "0123456789abcdef";
  std::string h;
  h.reserve(b.size() * 2);
  for (unsigned char c : b) {
    h.push_back(digits[c >> 4]);
    h.push_back(digits[c & 15]);
  }
  return h;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is not the canonical form: refused
}

std::string from_hex(const std::string& h, std::size_t from, std::size_t to) {
  if (to < from || (to - from) % 2 != 0) bad("malformed hexadecimal");
  std::string b;
  b.reserve((to - from) / 2);
  for (std::size_t i = from; i < to; i += 2) {
    int hi = hex_digit(h[i]), lo = hex_digit(h[i + 1]);
    if (hi < 0 || lo < 0) bad("malformed hexadecimal");
    b.push_back(static_cast<char>(hi * 16 + lo));
  }
  return b;
}

bool finite_nonneg(double d) { return std::isfinite(d) && d >= 0; }

std::string mac_of(const unsigned char* key, const std::string& payload) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key, DPAGG_GRANT_KEY_LEN, reinterpret_cast<const unsigned char*>(payload.data()),
           payload.size(), mac, &len) == nullptr ||
      len != kMacLen)
    throw Error(DPAGG_INTERNAL, "dpagg: HMAC-SHA256 failed");
  return std::string(reinterpret_cast<char*>(mac), len);
}

}  // namespace

std::string grant_encode(const dpagg_grant& g) {
  if (g.ncalls < 1 || g.ncalls > DPAGG_GRANT_MAX_CALLS) bad("it lists no release, or too many");
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  if (g.nshards < 0 || g.nshards > DPAGG_GRANT_MAX_SHARDS) bad("too many shards");
  w.bytes(g.nonce, sizeof g.nonce);
  w.u64(static_cast<uint64_t>(g.issued_us));
  w.u64(static_cast<uint64_t>(g.expires_us));
  w.str(g.database, sizeof g.database);
  w.str(g.role, sizeof g.role);
  w.str(g.table, sizeof g.table);
  w.u8(static_cast<unsigned>(g.ncalls));
  for (int i = 0; i < g.ncalls; ++i) {
    const dpagg_grant_call& c = g.calls[i];
    if (c.nparts < 1 || c.nparts > 2) bad("a release has no part, or too many");
    w.str(c.aggregate, sizeof c.aggregate);
    w.f64(c.epsilon);
    w.f64(c.delta);
    w.u8(static_cast<unsigned>(c.nparts));
    for (int j = 0; j < c.nparts; ++j) {
      w.str(c.parts[j].spec, sizeof c.parts[j].spec);
      w.f64(c.parts[j].epsilon);
      w.f64(c.parts[j].delta);
      w.f64(c.parts[j].rho);
    }
  }
  w.u8(static_cast<unsigned>(g.nshards >> 8));
  w.u8(static_cast<unsigned>(g.nshards));
  for (int i = 0; i < g.nshards; ++i) {
    w.u64(static_cast<uint64_t>(g.shards[i].shardid));
    w.u32(static_cast<uint32_t>(g.shards[i].groupid));
  }
  return w.out();
}

dpagg_grant grant_decode(const std::string& payload) {
  dpagg_grant g;
  std::memset(&g, 0, sizeof g);
  Reader r(payload);
  char magic[4];
  r.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) bad("unknown version");
  r.bytes(g.nonce, sizeof g.nonce);
  g.issued_us = static_cast<int64_t>(r.u64());
  g.expires_us = static_cast<int64_t>(r.u64());
  r.str(g.database, sizeof g.database);
  r.str(g.role, sizeof g.role);
  r.str(g.table, sizeof g.table);
  g.ncalls = static_cast<int>(r.u8());
  if (g.ncalls < 1 || g.ncalls > DPAGG_GRANT_MAX_CALLS) bad("it lists no release, or too many");
  for (int i = 0; i < g.ncalls; ++i) {
    dpagg_grant_call& c = g.calls[i];
    r.str(c.aggregate, sizeof c.aggregate);
    c.epsilon = r.f64();
    c.delta = r.f64();
    c.nparts = static_cast<int>(r.u8());
    if (c.nparts < 1 || c.nparts > 2) bad("a release has no part, or too many");
    if (!finite_nonneg(c.epsilon) || !finite_nonneg(c.delta)) bad("a release's epsilon or delta");
    for (int j = 0; j < c.nparts; ++j) {
      r.str(c.parts[j].spec, sizeof c.parts[j].spec);
      c.parts[j].epsilon = r.f64();
      c.parts[j].delta = r.f64();
      c.parts[j].rho = r.f64();
      if (!finite_nonneg(c.parts[j].epsilon) || !finite_nonneg(c.parts[j].delta) ||
          !(c.parts[j].rho >= 0 || std::isnan(c.parts[j].rho)))  // NaN: no zCDP bound
        bad("a part's epsilon, delta or rho");
    }
  }
  g.nshards = static_cast<int>(r.u8() << 8);
  g.nshards |= static_cast<int>(r.u8());
  if (g.nshards > DPAGG_GRANT_MAX_SHARDS) bad("too many shards");
  for (int i = 0; i < g.nshards; ++i) {
    g.shards[i].shardid = static_cast<int64_t>(r.u64());
    g.shards[i].groupid = static_cast<int32_t>(r.u32());
  }
  if (!r.done()) bad("trailing bytes");
  return g;
}

std::string grant_template(const dpagg_grant& g) { return kTemplatePrefix + to_hex(grant_encode(g)); }

dpagg_grant grant_from_template(const std::string& text) {
  const std::size_t p = sizeof kTemplatePrefix - 1;
  if (text.compare(0, p, kTemplatePrefix) != 0) bad("not a template");
  return grant_decode(from_hex(text, p, text.size()));
}

std::string grant_seal(const unsigned char* key, const dpagg_grant& g) {
  std::string payload = grant_encode(g);
  return kGrantPrefix + to_hex(payload) + ":" + to_hex(mac_of(key, payload));
}

dpagg_grant grant_open(const unsigned char* key, const std::string& text, int64_t now_us) {
  const std::size_t p = sizeof kGrantPrefix - 1;
  if (text.size() > DPAGG_GRANT_TEXT_MAX || text.compare(0, p, kGrantPrefix) != 0) bad("not a grant");
  std::size_t colon = text.find(':', p);
  if (colon == std::string::npos || text.size() - colon - 1 != 2 * kMacLen) bad("malformed");
  std::string payload = from_hex(text, p, colon);
  std::string mac = from_hex(text, colon + 1, text.size());
  std::string want = mac_of(key, payload);
  if (CRYPTO_memcmp(want.data(), mac.data(), kMacLen) != 0) bad("its seal does not match");
  dpagg_grant g = grant_decode(payload);
  if (g.expires_us <= now_us) bad("it has expired");
  return g;
}

void grant_parse_key(const std::string& text, unsigned char* key) {
  std::size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  if (b - a != 2 * DPAGG_GRANT_KEY_LEN)
    invalid("dpagg: the Citus key must be 64 hexadecimal digits",
            "Write 32 random bytes in lower-case hexadecimal, e.g. openssl rand -hex 32.");
  for (std::size_t i = 0; i < DPAGG_GRANT_KEY_LEN; ++i) {
    int hi = hex_digit(static_cast<char>(std::tolower(static_cast<unsigned char>(text[a + 2 * i])))),
        lo = hex_digit(static_cast<char>(std::tolower(static_cast<unsigned char>(text[a + 2 * i + 1]))));
    if (hi < 0 || lo < 0)
      invalid("dpagg: the Citus key must be 64 hexadecimal digits",
              "Write 32 random bytes in lower-case hexadecimal, e.g. openssl rand -hex 32.");
    key[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
}

}  // namespace dpagg

extern "C" {

static int copy_out(const std::string& s, char* out, size_t outlen, dpagg_error* err) {
  return dpagg::guarded(err, [&] {
    if (out == nullptr || s.size() + 1 > outlen) throw dpagg::Error(DPAGG_INTERNAL, "dpagg: grant buffer too small");
    std::memcpy(out, s.c_str(), s.size() + 1);
  });
}

int dpagg_grant_template(const dpagg_grant* g, char* out, size_t outlen, dpagg_error* err) {
  std::string s;
  int rc = dpagg::guarded(err, [&] { s = dpagg::grant_template(*g); });
  return rc != DPAGG_OK ? rc : copy_out(s, out, outlen, err);
}

int dpagg_grant_from_template(const char* text, dpagg_grant* out, dpagg_error* err) {
  return dpagg::guarded(err, [&] { *out = dpagg::grant_from_template(text ? text : ""); });
}

int dpagg_grant_seal(const unsigned char* key, const dpagg_grant* g, char* out, size_t outlen,
                     dpagg_error* err) {
  std::string s;
  int rc = dpagg::guarded(err, [&] { s = dpagg::grant_seal(key, *g); });
  return rc != DPAGG_OK ? rc : copy_out(s, out, outlen, err);
}

int dpagg_grant_open(const unsigned char* key, const char* text, int64_t now_us, dpagg_grant* out,
                     dpagg_error* err) {
  return dpagg::guarded(err, [&] { *out = dpagg::grant_open(key, text ? text : "", now_us); });
}

int dpagg_grant_parse_key(const char* text, unsigned char* key, dpagg_error* err) {
  return dpagg::guarded(err, [&] { dpagg::grant_parse_key(text ? text : "", key); });
}

}  // extern "C"
