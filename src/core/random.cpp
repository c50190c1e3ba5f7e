#include "random.h"

#include <openssl/rand.h>
#include <pthread.h>
#include <sys/mman.h>
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

constexpr size_t kPoolWords = 512;  // 4 KiB per refill

// The pool lives in a page of its own marked MADV_WIPEONFORK: the kernel hands the child of any
// fork() a zeroed page, so `filled` reads 0 there and the child refills before drawing.  Where
// the kernel does not support it (before Linux 4.14), the process id is compared at every
// release instead.  A pthread_atfork child handler wipes it as well.
struct Pool {
  uint64_t filled;  // kFilled when words[pos..] hold unused random bytes of this process
  size_t pos;
  pid_t owner;
  uint64_t words[kPoolWords];
};
constexpr uint64_t kFilled = 0x706f6f6c66696c6cULL;

Pool* pool = nullptr;
bool wipe_on_fork = false;

void wipe_pool() {
  if (pool == nullptr) return;
  std::memset(pool, 0, sizeof(*pool));
  // A compiler barrier: the wipe must not be optimised away as a dead store.
  __asm__ __volatile__("" : : "r"(pool) : "memory");
}

Pool* the_pool() {
  if (pool == nullptr) {
    void* page = mmap(nullptr, sizeof(Pool), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (page == MAP_FAILED)
      throw Error(DPAGG_INTERNAL, "could not map memory for the random pool");
#ifdef MADV_WIPEONFORK
    wipe_on_fork = madvise(page, sizeof(Pool), MADV_WIPEONFORK) == 0;
#endif
    pool = static_cast<Pool*>(page);
    pthread_atfork(nullptr, nullptr, wipe_pool);
  }
  return pool;
}

void refill(Pool* p) {
  // OpenSSL's DRBG (NIST SP 800-90A, seeded from the kernel and reseeded by OpenSSL after a
  // fork): ~3 GB/s here against ~0.4 GB/s for getrandom(2) itself.
  if (RAND_bytes(reinterpret_cast<unsigned char*>(p->words), sizeof(p->words)) != 1)
    secure_bytes(p->words, sizeof(p->words));  // the kernel directly
  p->pos = 0;
  p->owner = getpid();
  p->filled = kFilled;
}

}  // namespace

SecureRandom::SecureRandom() {
  Pool* p = the_pool();
  if (!wipe_on_fork && p->filled == kFilled && p->owner != getpid()) wipe_pool();
}

uint64_t SecureRandom::next_u64() {
  Pool* p = pool;
  if (p->filled != kFilled || p->pos == kPoolWords) refill(p);
  uint64_t v = p->words[p->pos];
  p->words[p->pos++] = 0;  // do not keep used randomness around
  return v;
}

double RandomSource::uniform53() { return static_cast<double>(next_u64() >> 11) * 0x1p-53; }

bool RandomSource::random_bit() { return (next_u64() & 1u) != 0; }

double RandomSource::uniform_open01() {
  int exponent = -1;  // the result lies in [2^exponent, 2^(exponent+1))
  uint64_t bits = next_u64();
  uint64_t mantissa;
  const int lead = bits == 0 ? 64 : __builtin_clzll(bits);
  if (lead <= 11) {
    // The first one bit is among the top 12: the binade is 2^(-1-lead), and the 52 low bits lie
    // below that bit, uniform and independent of where it is, so they are the mantissa.  The
    // law is exactly that of the general path below (which draws a fresh word for the
    // mantissa); this path is taken with probability 1 - 2^-12 and saves a word per uniform.
    exponent -= lead;
    mantissa = bits & ((uint64_t{1} << 52) - 1);
  } else {
    for (;;) {
      if (bits == 0) {
        exponent -= 64;
        if (exponent < -1074) return 0x1p-1074;  // probability below 2^-1000: never in practice
        bits = next_u64();
        continue;
      }
      exponent -= __builtin_clzll(bits);
      break;
    }
    mantissa = next_u64() >> 12;  // 52 bits
  }
  if (exponent >= -1022) {
    // (1 + mantissa 2^-52) 2^exponent, assembled from its bits: the same double std::ldexp
    // returns, without its cost (a tenth of a release's time).
    const uint64_t word = (static_cast<uint64_t>(exponent + 1023) << 52) | mantissa;
    double out;
    std::memcpy(&out, &word, sizeof(out));
    return out;
  }
  return std::ldexp(1.0 + static_cast<double>(mantissa) * 0x1p-52, exponent);  // subnormal
}

}  // namespace dpagg
