// noisy_range.h — the C++ side of dpagg_bounds_noisy_range (dpagg_bounds.h), for the unit tests:
// the range of bins whose noisy counts reach the threshold, drawing only the noise that decides
// it (docs/automatic_bounds.md §2, "Drawing only what decides the range").
#pragma once
#include <cstdint>

#include "dpagg_core.h"
#include "random.h"

namespace dpagg {

// The chance that an empty bin's noisy count reaches t: P(X >= t) = p^t / (1 + p) for discrete
// Laplace noise X of scale s (p = exp(-1/s)), t >= 1.
double empty_bin_reach_chance(double s, double t);

// The lowest and the highest of the DPAGG_BOUNDS_BINS bins whose count plus discrete Laplace
// noise (the calibration `cal`, which must be discrete_laplace) reaches t, with the same law as
// drawing every bin's noise; -1 and -1 when none does.  Draws the noise of an occupied bin it
// visits, and one geometric variable per run of empty bins it visits.
void noisy_range(const dpagg_calibration& cal, const int64_t* counts, double t, RandomSource& rng,
                 int* lo_bin, int* hi_bin);

}  // namespace dpagg
