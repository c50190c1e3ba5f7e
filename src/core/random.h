// random.h — randomness for noise.  Production noise comes only from SecureRandom: bytes of the
// kernel's CSPRNG (getrandom(2)), read 4 KiB at a time into a per-process (per-thread) pool so
// that a release does not pay a system call (one read serves ~100-250 releases; each value is
// erased from the pool as it is used).  Fork safety: the pool is filled lazily, only when a
// release draws (never in the postmaster, which releases nothing); it is wiped in the child of
// any fork() (pthread_atfork) and, as a second guard, whenever the process id differs from the
// one that filled it.  So no two processes ever use the same bytes.
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

// The kernel CSPRNG through the pool above; one instance is meant to live for one release (or
// one batch in tests): constructing it re-checks the process id.  Throws
// dpagg::Error(DPAGG_INTERNAL) if the kernel refuses.
class SecureRandom final : public RandomSource {
 public:
  SecureRandom();
  uint64_t next_u64() override;
};

void secure_bytes(void* buf, size_t n);

}  // namespace dpagg
