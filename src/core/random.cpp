#include "random.h"

#include <sys/random.h>

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

void SecureRandom::refill() {
  secure_bytes(buf_, sizeof(buf_));
  pos_ = 0;
}

uint64_t SecureRandom::next_u64() {
  if (pos_ == sizeof(buf_) / sizeof(buf_[0])) refill();
  uint64_t v = buf_[pos_];
  buf_[pos_++] = 0;  // do not keep used randomness around
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
