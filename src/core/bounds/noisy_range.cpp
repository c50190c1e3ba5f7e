// noisy_range.cpp — the range of bins that reach the threshold, drawn without drawing every bin's
// noise (noisy_range.h; docs/automatic_bounds.md §2, "Drawing only what decides the range").
#include "bounds/noisy_range.h"

#include <cmath>
#include <cstdlib>

#include "dpagg_bounds.h"
#include "errors.h"
#include "guarded.h"
#include "mechanisms/discrete_laplace/discrete_laplace.h"

namespace dpagg {

double empty_bin_reach_chance(double s, double t) {
  if (!(std::isfinite(s) && s > 0 && t >= 1))
    throw Error(DPAGG_INTERNAL, "dpagg: the bounds' threshold or noise scale out of range");
  const long double p = std::exp(-1.0L / s);
  return static_cast<double>(std::exp(-static_cast<long double>(t) / s) / (1 + p));
}

namespace {

// K >= 0 with P(K >= k) = (1 - q)^k, by inversion: K = floor(ln U / ln(1 - q)), U uniform on
// (0, 1) at full resolution (as the discrete Laplace sampler's own geometric draws).  +Infinity
// when q is 0 (the chance underflowed: no empty bin ever reaches the threshold).
double empty_bins_passed(double q, RandomSource& rng) {
  if (!(q > 0)) return INFINITY;
  return std::floor(std::log(rng.uniform_open01()) / std::log1p(-q));
}

}  // namespace

void noisy_range(const dpagg_calibration& cal, const int64_t* counts, double t, RandomSource& rng,
                 int* lo_bin, int* hi_bin) {
  if (cal.mechanism != DPAGG_MECH_DISCRETE_LAPLACE)
    throw Error(DPAGG_INTERNAL, "dpagg: the bounds' histogram needs discrete_laplace noise");
  if (!(t >= 1 && t <= 0x1p52))
    throw Error(DPAGG_INTERNAL, "dpagg: the bounds' threshold out of range");
  const Mechanism& noise = discrete_laplace_mechanism();
  const double q = empty_bin_reach_chance(cal.scale, t);
  const __int128 need = static_cast<__int128>(t);
  // The first bin from `from` towards `to` (excluded), one step `dir` at a time, whose noisy
  // count reaches t; -1 if none.  An occupied bin draws its noise (an integer below 2^51 in
  // magnitude, so the sum is exact in 128 bits); a run of r empty bins draws how many of them
  // pass before the first that reaches t, each empty bin reaching it independently with chance
  // q, which is the law of the r bins' own draws.
  auto first = [&](int from, int to, int dir) -> int {
    int j = from;
    while (j != to) {
      if (counts[j] != 0) {
        const double x = noise.sample(cal, rng);
        if (static_cast<__int128>(counts[j]) + static_cast<__int128>(x) >= need) return j;
        j += dir;
        continue;
      }
      int end = j;
      while (end != to && counts[end] == 0) end += dir;
      const double k = empty_bins_passed(q, rng);
      if (k < std::abs(end - j)) return j + dir * static_cast<int>(k);
      j = end;
    }
    return -1;
  };
  *lo_bin = first(0, DPAGG_BOUNDS_BINS, 1);
  *hi_bin = -1;
  if (*lo_bin < 0) return;
  // The bins above the lowest are independent of the walk so far: the highest is the first
  // that reaches t from the top down, or the lowest itself.
  const int hi = first(DPAGG_BOUNDS_BINS - 1, *lo_bin, -1);
  *hi_bin = hi < 0 ? *lo_bin : hi;
}

}  // namespace dpagg

extern "C" {

int dpagg_bounds_noisy_range(const dpagg_calibration* cal, const int64_t* counts, double t,
                             int* lo_bin, int* hi_bin, dpagg_error* err) {
  *lo_bin = *hi_bin = -1;
  return dpagg::guarded(err, [&] {
    dpagg::SecureRandom rng;
    dpagg::noisy_range(*cal, counts, t, rng, lo_bin, hi_bin);
  });
}

}  // extern "C"
