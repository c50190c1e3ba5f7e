// release.h — turning an exact true answer into a released value.
#pragma once

#include "dpagg_core.h"
#include "random.h"

namespace dpagg {

// The grid (a power of two) on which the answer and the noise are snapped for this calibration.
double release_grid(const dpagg_calibration& cal);

// Release quanta*quantum + noise, both snapped to the release grid (see release.cpp).
double release(const dpagg_calibration& cal, __int128 quanta, double quantum, RandomSource& rng);

double release_sensitivity(double sensitivity);

}  // namespace dpagg
