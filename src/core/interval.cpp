// interval.cpp — inverting a mechanism's noise tail into a conservative half-width (interval.h).
#include "interval.h"

#include <cmath>
#include <string>

#include "errors.h"
#include "interrupt.h"
#include "mechanism.h"
#include "registry.h"
#include "release.h"

namespace dpagg {

double noise_quantile(const Mechanism& m, const dpagg_calibration& cal, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    invalid("confidence must be between 0 and 1 (exclusive)",
            "Ask for example for 0.95 (a 95 % interval).");
  const double alpha = 1.0 - confidence;  // the tail allowed; 1 - c is exact for c >= 0.5
  const double t0 = m.noise_tail(cal, 0.0);
  if (std::isnan(t0))
    invalid(std::string("mechanism ") + m.name() + " does not state the distribution of its noise",
            "Use a mechanism whose noise intervals are known (dp_mechanisms() lists them).");
  if (t0 <= alpha) return 0.0;  // discrete noise: exactly 0 with probability >= confidence
  // Bracket: tail(lo) > alpha >= tail(hi); grow hi from the noise scale.
  double lo = 0.0;
  double hi = cal.scale > 0 && std::isfinite(cal.scale) ? cal.scale : cal.sensitivity;
  for (int i = 0;; ++i) {
    check_interrupt();
    const double t = m.noise_tail(cal, hi);
    if (t <= alpha) break;
    if (i > 4000 || !std::isfinite(hi))
      throw Error(DPAGG_INTERNAL, std::string("noise interval: the tail of ") + m.name() +
                                      " does not fall to " + std::to_string(alpha));
    lo = hi;
    hi *= 2.0;
  }
  // Bisection keeps the invariant (tail(hi) <= alpha): robust for step-shaped (discrete) tails.
  for (int i = 0; i < 200 && hi - lo > hi * 0x1p-40; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (m.noise_tail(cal, mid) <= alpha)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

double release_halfwidth(const dpagg_calibration& cal, double confidence) {
  const Mechanism* m = find_mechanism(cal.mechanism);
  if (m == nullptr) throw Error(DPAGG_INTERNAL, "noise interval: calibration names no known mechanism");
  if (cal.dimension != 1 || cal.vector)
    invalid("noise intervals are for scalar releases", "Ask per coordinate of a scalar aggregate.");
  const double w = noise_quantile(*m, cal, confidence);
  // One grid step for the two roundings (answer and noise), then up by one ulp.
  return std::nextafter(w + release_grid(cal), INFINITY);
}

}  // namespace dpagg
