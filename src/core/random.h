// random.h — randomness for noise.  Production noise comes only from SecureRandom: a per-process
// pool of 4 KiB filled from OpenSSL's DRBG (RAND_bytes: NIST SP 800-90A CTR_DRBG, seeded from the
// kernel's CSPRNG, the generator PostgreSQL itself uses for pg_strong_random), or from
// getrandom(2) should OpenSSL fail, so that a release pays neither a system call nor the
// kernel's slower generator.  Each value is erased from the pool as it is used.  Fork safety:
// the pool is filled lazily, only when a release draws (never in the postmaster, which releases
// nothing); it lives in a page marked MADV_WIPEONFORK, so the child of any fork() finds it empty
// (with a process-id check per release where the kernel lacks that), and a pthread_atfork
// handler wipes it too.  So no two processes ever use the same bytes.
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
