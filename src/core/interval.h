// interval.h — how far a release may be from the true answer (dp_noise_interval and the
// *_report aggregates).  docs/intervals.md has the argument.
//
// A scalar release v of a true answer a is v = (k + j) g rounded to a double (release.cpp), with
// k g the answer rounded to the release grid g (|k g - a| <= g/2) and j g the noise X rounded to it
// (|j g - X| <= g/2).  So |v - a| <= |X| + g, up to the final rounding to a double, which the glue
// covers by widening the interval's ends outward by one unit in the last place.  With w the
// smallest half-width whose two-sided tail P(|X| > w) is at most 1 - confidence,
//     P(|v - a| <= w + g) >= confidence.
// The tail comes from the mechanism (Mechanism::noise_tail, an upper bound); the inversion below
// returns the feasible end of its bracket, so rounding only widens the interval.
#pragma once

#include "dpagg_core.h"

namespace dpagg {

class Mechanism;

// The smallest w (to a relative 2^-40, from above) with m.noise_tail(cal, w) <= 1 - confidence.
// Throws Error(DPAGG_INVALID_PARAMETER) where the mechanism has no tail or confidence is not in
// (0, 1), Error(DPAGG_INTERNAL) if the tail never falls that low.
double noise_quantile(const Mechanism& m, const dpagg_calibration& cal, double confidence);

// noise_quantile plus the release grid's rounding: the half-width dpagg_noise_halfwidth returns.
double release_halfwidth(const dpagg_calibration& cal, double confidence);

}  // namespace dpagg
