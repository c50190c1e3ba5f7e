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

// The pieces of release(), for releases that are not one scalar mechanism (vector.cpp): the grid
// for a given sensitivity and noise scale, the true answer in grid units, and answer + noise.
double release_grid_for(double sensitivity, double scale);
__int128 answer_in_grid_units(__int128 quanta, double quantum, double g);
double snap_and_add(__int128 k, double noise, double g);

}  // namespace dpagg
