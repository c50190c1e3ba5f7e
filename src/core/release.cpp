// release.cpp — the one place where noise meets the true answer.
//
// Defence against floating-point attacks (Mironov 2012, "On significance of the least significant
// bits for differential privacy"): adding a continuous sample to a double leaks through which
// doubles can come out.  dpagg never lets the raw sum reach the client.  It picks a grid g, a
// power of two chosen from public values only (the calibration): about 2^-40 of the noise scale,
// and never more than 2^-31 of the sensitivity.  Then
//     k = round_g(true answer)   (exact, in 128-bit integers of the accumulation quantum),
//     j = round_g(noise),
//     released = the double nearest to (k + j) g.
// (k + j) g = round_g(k g + X), so the release is post-processing of the mechanism applied to the
// query k g, whose sensitivity is at most D + g (rounding moves each neighbour by at most g/2).
// Calibrating with release_sensitivity(D) = D (1 + 2^-29) >= D + g covers that.  The set of
// possible outputs is the fixed grid, the same for every database, so the low-order bits carry
// nothing.  What remains is the sampler's own approximation of the ideal continuous law, which
// with full-resolution uniforms (random.h) is at the 2^-52 relative level inside the grid cells
// and cuts the tails only beyond probability 2^-1000.
#include "release.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "errors.h"
#include "registry.h"

namespace dpagg {

namespace {
// Every release computes these for its grid, so they read the bits of normal doubles instead of
// calling ilogb and ldexp (a third of a release's time); subnormal and zero arguments take the
// library's path.  The results are identical.
uint64_t bits_of(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}
bool is_normal_positive(double x) { return x >= 0x1p-1022 && x <= 0x1.fffffffffffffp1023; }
int log2_of(double x) {  // ilogb(x)
  if (is_normal_positive(x)) return static_cast<int>((bits_of(x) >> 52) & 0x7ff) - 1023;
  return std::ilogb(x);
}
double pow2_floor(double x) {
  if (is_normal_positive(x)) {
    const uint64_t b = bits_of(x) & 0xfff0000000000000ULL;  // the mantissa cleared
    double out;
    std::memcpy(&out, &b, sizeof(out));
    return out;
  }
  return std::ldexp(1.0, std::ilogb(x));
}
double pow2_ceil(double x) {
  double f = pow2_floor(x);
  return f == x ? f : 2.0 * f;
}
double times_pow2(double x, int e) {  // std::ldexp(x, e), exact where 2^e and the result are normal
  if (e >= -1022 && e <= 1023) {
    const uint64_t b = static_cast<uint64_t>(e + 1023) << 52;
    double p;
    std::memcpy(&p, &b, sizeof(p));
    const double r = x * p;
    if (r == 0 ? x == 0 : std::fabs(r) >= 0x1p-1022) return r;  // no subnormal rounding involved
  }
  return std::ldexp(x, e);
}
__int128 round_half_even_shift(__int128 n, int shift) {  // n / 2^shift, 0 < shift <= 125
  const __int128 q = n >> shift;  // arithmetic: the floor
  const __int128 r = n - (q * (static_cast<__int128>(1) << shift));
  const __int128 half = static_cast<__int128>(1) << (shift - 1);
  return (r > half || (r == half && (q & 1) != 0)) ? q + 1 : q;
}
}  // namespace

double release_sensitivity(double sensitivity, int dimension) {
  // sqrt(1) == 1 exactly: the scalar allowance is D (1 + 2^-29).
  return sensitivity * (1.0 + std::sqrt(static_cast<double>(dimension)) * 0x1p-29);
}

double release_grid_for(double sensitivity, double scale) {
  double cap = pow2_floor(sensitivity * 0x1p-31);
  double floor = pow2_floor(sensitivity * 0x1p-92);
  double g = std::min(cap, pow2_ceil(scale) * 0x1p-40);
  return std::max(g, floor);
}

double release_grid(const dpagg_calibration& cal) { return release_grid_for(cal.sensitivity, cal.scale); }

namespace {
void check_quantum(double quantum) {
  if (!(quantum > 0) || !std::isfinite(quantum) || pow2_floor(quantum) != quantum)
    throw Error(DPAGG_INTERNAL, "release: the quantum must be a finite power of two");
}

// The release's range (grid_units): with the grid 2^shift times finer than the quantum, a true
// answer is taken in grid units only below 2^(125 - shift) quanta (exclusive), and not at all
// past shift 120; with a grid as coarse as the quantum or coarser, any 128-bit answer is.
__int128 max_quanta_for(int log2q, int log2g) {
  if (log2g >= log2q) return ~(static_cast<unsigned __int128>(1) << 127);  // 2^127 - 1
  const int shift = log2q - log2g;
  if (shift > 120) return 0;
  return static_cast<__int128>(1) << (125 - shift);
}

// The answer quanta * 2^log2q in units of the grid 2^log2g, rounded half to even.
__int128 grid_units(__int128 quanta, int log2q, int log2g) {
  __int128 k;
  if (log2g >= log2q) {
    int shift = log2g - log2q;
    // quanta / 2^shift rounds to 0 or +-1 once shift exceeds 126; clamp the divisor's exponent.
    if (shift > 125) shift = 125;
    k = shift == 0 ? quanta : round_half_even_shift(quanta, shift);
    if (log2g - log2q > 125) k = 0;  // |quanta| < 2^127 is far below 2^shift: rounds to 0
  } else {
    int shift = log2q - log2g;
    const __int128 limit = max_quanta_for(log2q, log2g);
    if (quanta >= limit || quanta <= -limit)
      // bad input, not an internal fault: every path over rows bounds its sums below this, but a
      // merge given partial sums by hand can reach it (the glue reports it as 22023)
      invalid("the answer is beyond what its release at this epsilon can represent",
              "Rows cannot make such an answer; give dpagg's merges the partial sums their Citus "
              "rewrite makes.");
    k = quanta * (static_cast<__int128>(1) << shift);
  }
  return k;
}

// answer + noise on the grid 2^log2g (g itself), as a double.
double snap_add(__int128 k, double noise, double g, int log2g) {
  // The noise in grid units is an integer-valued double; above 2^53 every double is one already.
  // Kept exact in 128 bits (|k| < 2^125 and |jd| <= 2^125 cannot overflow their sum), so noise up
  // to ~2^125 grid units, ~1e27 sensitivities at the grid's finest, is released exactly: far
  // beyond the noise of the smallest epsilon accepted (1e-10).
  double jd = std::nearbyint(noise / g);
  if (!std::isfinite(jd) || std::fabs(jd) > 0x1p125)
    throw Error(DPAGG_INTERNAL, "release: noise sample out of range");
  // Through 64-bit integers where they suffice (the conversions of 128-bit ones are library calls).
  const __int128 j = std::fabs(jd) < 0x1p62 ? static_cast<__int128>(static_cast<int64_t>(jd))
                                             : static_cast<__int128>(jd);
  const __int128 total = k + j;
  const double t = total >= INT64_MIN && total <= INT64_MAX
                       ? static_cast<double>(static_cast<int64_t>(total))
                       : static_cast<double>(total);
  return times_pow2(t, log2g);
}
}  // namespace

__int128 answer_in_grid_units(__int128 quanta, double quantum, double g) {
  check_quantum(quantum);
  return grid_units(quanta, log2_of(quantum), log2_of(g));
}

double snap_and_add(__int128 k, double noise, double g) { return snap_add(k, noise, g, log2_of(g)); }

dpagg_release_plan release_plan(const dpagg_calibration& cal, double quantum) {
  if (find_mechanism(cal.mechanism) == nullptr)
    throw Error(DPAGG_INTERNAL, "release: calibration names no known mechanism");
  check_quantum(quantum);
  dpagg_release_plan plan;
  plan.cal = &cal;
  plan.grid = release_grid(cal);
  plan.log2_grid = log2_of(plan.grid);
  plan.log2_quantum = log2_of(quantum);
  return plan;
}

double release_planned(const dpagg_release_plan& plan, __int128 quanta, RandomSource& rng) {
  const Mechanism* m = find_mechanism(plan.cal->mechanism);
  if (m == nullptr) throw Error(DPAGG_INTERNAL, "release: calibration names no known mechanism");
  const __int128 k = grid_units(quanta, plan.log2_quantum, plan.log2_grid);
  const double x = m->sample(*plan.cal, rng);
  return snap_add(k, x, plan.grid, plan.log2_grid);
}

__int128 release_max_quanta(const dpagg_release_plan& plan) {
  return max_quanta_for(plan.log2_quantum, plan.log2_grid);
}

double release(const dpagg_calibration& cal, __int128 quanta, double quantum, RandomSource& rng) {
  return release_planned(release_plan(cal, quantum), quanta, rng);
}

void release_vector(const dpagg_calibration& cal, const __int128* quanta, double quantum,
                    RandomSource& rng, double* out) {
  const Mechanism* m = find_mechanism(cal.mechanism);
  if (m == nullptr) throw Error(DPAGG_INTERNAL, "release: calibration names no known mechanism");
  if (cal.dimension < 1) throw Error(DPAGG_INTERNAL, "release: a vector needs a dimension");
  const double g = release_grid(cal);
  std::vector<double> noise(static_cast<size_t>(cal.dimension));
  m->sample_vector(cal, rng, noise.data());
  for (int j = 0; j < cal.dimension; ++j)
    out[j] = snap_and_add(answer_in_grid_units(quanta[j], quantum, g), noise[static_cast<size_t>(j)], g);
}

}  // namespace dpagg
