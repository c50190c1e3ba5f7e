// random.h — randomness for noise.  Production noise comes only from SecureRandom, which reads
// the kernel's CSPRNG (getrandom(2)) and keeps no state between releases, so it is safe across
// the postmaster's fork() of backends: no two processes can share a buffered stream.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpagg {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual uint64_t next_u64() = 0;

  // Uniform on (0, 1) at full floating-point resolution: the binade [2^-k, 2^-k+1) is chosen
  // with probability 2^-k by counting leading zero bits, then 52 uniform mantissa bits.
  // Every double in (0, 1) is reachable down to 2^-1074, so -log(U) has no 2^-53 cut-off
  // (Mironov's concern about naive uniform doubles).
  double uniform_open01();
  // Uniform on [0, 1) with 53 bits.
  double uniform53();
  bool random_bit();
};

// The kernel CSPRNG, read in blocks; one instance is meant to live only for one release (or one
// batch in tests).  Throws dpagg::Error(DPAGG_INTERNAL) if the kernel refuses.
class SecureRandom final : public RandomSource {
 public:
  SecureRandom() = default;
  uint64_t next_u64() override;

 private:
  void refill();
  uint64_t buf_[32];
  size_t pos_ = 32;
};

void secure_bytes(void* buf, size_t n);

}  // namespace dpagg
