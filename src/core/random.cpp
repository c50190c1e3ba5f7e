#include "random.h"

#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include "errors.h"

namespace dpagg {

void secure_bytes(void* buf, size_t n) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(DPAGG_INTERNAL,
                  std::string("could not read the operating system's secure random generator: ") +
                      std::strerror(errno));
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
}

namespace {

constexpr size_t kPoolWords = 512;  // 4 KiB per getrandom(2)

struct Pool {
  uint64_t words[kPoolWords];
  size_t pos = kPoolWords;  // == kPoolWords: empty
  pid_t owner = 0;          // the process that filled it
};

thread_local Pool pool;

void wipe_pool() {
  std::memset(pool.words, 0, sizeof(pool.words));
  // A compiler barrier: the wipe must not be optimised away as a dead store.
  __asm__ __volatile__("" : : "r"(pool.words) : "memory");
  pool.pos = kPoolWords;
  pool.owner = 0;
}

void register_fork_handler() {
  static bool registered = false;  // the backend is single-threaded; tests register early
  if (!registered) {
    registered = true;
    pthread_atfork(nullptr, nullptr, wipe_pool);
  }
}

}  // namespace

SecureRandom::SecureRandom() {
  register_fork_handler();
  if (pool.owner != 0 && pool.owner != getpid()) wipe_pool();
}

uint64_t SecureRandom::next_u64() {
  if (pool.pos == kPoolWords) {
    secure_bytes(pool.words, sizeof(pool.words));
    pool.pos = 0;
    pool.owner = getpid();
  }
  uint64_t v = pool.words[pool.pos];
  pool.words[pool.pos++] = 0;  // do not keep used randomness around
  return v;
}

double RandomSource::uniform53() { return static_cast<double>(next_u64() >> 11) * 0x1p-53; }

bool RandomSource::random_bit() { return (next_u64() & 1u) != 0; }

double RandomSource::uniform_open01() {
  int exponent = -1;  // the result lies in [2^exponent, 2^(exponent+1))
  for (;;) {
    uint64_t bits = next_u64();
    if (bits == 0) {
      exponent -= 64;
      if (exponent < -1074) return 0x1p-1074;  // probability below 2^-1000: never in practice
      continue;
    }
    exponent -= __builtin_clzll(bits);
    break;
  }
  uint64_t mantissa = next_u64() >> 12;  // 52 bits
  return std::ldexp(1.0 + static_cast<double>(mantissa) * 0x1p-52, exponent);
}

}  // namespace dpagg
