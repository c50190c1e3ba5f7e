// test_random.cpp — the uniform generator (src/core/random.{h,cpp}): full-resolution uniforms on
// (0, 1) and 53-bit ones on [0, 1), and SecureRandom, the only generator production code uses
// (getrandom(2)-backed, pooled, fork-safe), also through the C API.
#include <cmath>
#include <cstring>
#include <set>

#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "test_support.h"

using dpagg_test::ScriptedRandom;
using dpagg_test::SeededRandom;

TEST(UniformOpen01, NeverZeroOrOne) {
  dpagg::SecureRandom srng;
  SeededRandom rng(5);
  for (int i = 0; i < 500000; ++i) {
    double a = srng.uniform_open01(), b = rng.uniform_open01();
    ASSERT_GT(a, 0.0);
    ASSERT_LT(a, 1.0);
    ASSERT_GT(b, 0.0);
    ASSERT_LT(b, 1.0);
  }
  // Adversarial streams: all zero bits gives the least positive double, never 0.
  ScriptedRandom zeros({0});
  double z = zeros.uniform_open01();
  EXPECT_GT(z, 0.0);
  EXPECT_EQ(z, std::numeric_limits<double>::denorm_min());
  // All one bits gives the largest double below 1, never 1.
  ScriptedRandom ones({~uint64_t{0}});
  EXPECT_EQ(ones.uniform_open01(), 1.0 - 0x1p-53);
  // Full resolution: a zero word then a word with only its lowest bit set lands in [2^-128, 2^-127).
  ScriptedRandom deep({0, 1, 0});
  double d = deep.uniform_open01();
  EXPECT_GE(d, 0x1p-128);
  EXPECT_LT(d, 0x1p-127);
}

TEST(UniformOpen01, BinadesHaveTheRightMass) {
  // P(U in [2^-k, 2^-k+1)) = 2^-k; the mean is 1/2.
  const size_t n = 1000000;
  SeededRandom rng(31337);
  std::vector<size_t> binade(16, 0);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    double u = rng.uniform_open01();
    sum += u;
    int k = -std::ilogb(u);  // u in [2^-k, 2^-k+1)
    if (k >= 1 && k < 16) ++binade[static_cast<size_t>(k)];
  }
  EXPECT_NEAR(sum / n, 0.5, 4 * std::sqrt(1.0 / 12 / n));
  for (int k = 1; k < 16; ++k) {
    double p = std::ldexp(1.0, -k);
    EXPECT_NEAR(static_cast<double>(binade[static_cast<size_t>(k)]) / n, p, 4 * std::sqrt(p * (1 - p) / n))
        << "binade 2^-" << k;
  }
}

// Where the first one bit is among a word's top 12, the same word's 52 low bits are the
// mantissa; otherwise the binade is counted over whole words and the next word gives it.
TEST(UniformOpen01, OneWordWhenTheBinadeIsInItsTop12Bits) {
  ScriptedRandom a({0x8000000000000001ULL, 0});
  EXPECT_EQ(a.uniform_open01(), 0.5 + 0x1p-53);
  ScriptedRandom b({0x0010000000000003ULL, 0});  // 11 leading zeros: [2^-12, 2^-11)
  EXPECT_EQ(b.uniform_open01(), 0x1p-12 * (1 + 3 * 0x1p-52));
  ScriptedRandom c({0x0008000000000003ULL, ~uint64_t{0}});  // 12 leading zeros: the next word
  EXPECT_EQ(c.uniform_open01(), 0x1p-13 * (2 - 0x1p-52));
  // Within a binade the mantissa is uniform: its mean fraction is 1/2 and its lowest bit fair.
  SeededRandom rng(4242);
  const int n = 400000;
  double frac = 0;
  int odd = 0;
  for (int i = 0; i < n; ++i) {
    int e;
    const double m = std::frexp(rng.uniform_open01(), &e);  // m in [1/2, 1)
    frac += 2 * m - 1;
    uint64_t w;
    std::memcpy(&w, &m, sizeof(w));
    odd += static_cast<int>(w & 1);
  }
  EXPECT_NEAR(frac / n, 0.5, 4 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(static_cast<double>(odd) / n, 0.5, 4 * std::sqrt(0.25 / n));
}

TEST(Uniform53, OnTheGridInHalfOpenInterval) {
  SeededRandom rng(8);
  for (int i = 0; i < 100000; ++i) {
    double u = rng.uniform53();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_EQ(std::ldexp(u, 53), std::floor(std::ldexp(u, 53)));
  }
  ScriptedRandom ones({~uint64_t{0}});
  EXPECT_EQ(ones.uniform53(), 1.0 - 0x1p-53);
  ScriptedRandom zeros({0});
  EXPECT_EQ(zeros.uniform53(), 0.0);
}

TEST(SecureRandom, IndependentInstancesDiffer) {
  dpagg::SecureRandom a, b;
  std::vector<uint64_t> wa, wb;
  for (int i = 0; i < 40; ++i) {
    wa.push_back(a.next_u64());
    wb.push_back(b.next_u64());
  }
  EXPECT_NE(wa, wb);
  std::set<uint64_t> distinct(wa.begin(), wa.end());
  distinct.insert(wb.begin(), wb.end());
  EXPECT_EQ(distinct.size(), 80u) << "80 random 64-bit words should all differ";
  // Bits are balanced: 80*64 bits, mean 1/2, sd sqrt(5120)/2 ~ 36.
  int ones = 0;
  for (uint64_t w : distinct) ones += __builtin_popcountll(w);
  EXPECT_NEAR(ones, 80 * 32, 6 * 36);
}

TEST(SecureRandom, CrossesPoolRefillsWithoutRepeats) {
  dpagg::SecureRandom a;
  std::set<uint64_t> seen;
  for (int i = 0; i < 3 * 512 + 7; ++i) seen.insert(a.next_u64());
  EXPECT_EQ(seen.size(), 3u * 512 + 7);
}

// A forked child must never draw the bytes still pooled in its parent (the postmaster forks
// backends; a backend that forked would otherwise share a stream with its child).
TEST(SecureRandom, ForkedChildDoesNotReuseTheParentsPool) {
  dpagg::SecureRandom parent;
  (void) parent.next_u64();  // the pool now holds 511 unused words
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dpagg::SecureRandom child;
    uint64_t w[16];
    for (auto& x : w) x = child.next_u64();
    ssize_t n = write(fds[1], w, sizeof(w));
    _exit(n == static_cast<ssize_t>(sizeof(w)) ? 0 : 1);
  }
  uint64_t from_child[16];
  ASSERT_EQ(read(fds[0], from_child, sizeof(from_child)), static_cast<ssize_t>(sizeof(from_child)));
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(fds[0]);
  close(fds[1]);
  std::set<uint64_t> mine;
  for (int i = 0; i < 511; ++i) mine.insert(parent.next_u64());
  for (uint64_t x : from_child) EXPECT_EQ(mine.count(x), 0u) << "the child replayed the parent's pool";
}

TEST(SecureRandom, CApiFillsBuffers) {
  unsigned char a[64], b[64];
  std::memset(a, 0, sizeof(a));
  std::memset(b, 0, sizeof(b));
  dpagg_error err;
  ASSERT_EQ(dpagg_secure_bytes(a, sizeof(a), &err), DPAGG_OK);
  ASSERT_EQ(dpagg_secure_bytes(b, sizeof(b), &err), DPAGG_OK);
  EXPECT_NE(std::memcmp(a, b, sizeof(a)), 0);
  int nonzero = 0;
  for (unsigned char c : a) nonzero += c != 0;
  EXPECT_GT(nonzero, 48);
  EXPECT_EQ(dpagg_secure_bytes(a, 0, &err), DPAGG_OK);
}
