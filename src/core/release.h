// release.h — turning an exact true answer into a released value.
#pragma once

#include "dpagg_core.h"
#include "random.h"

namespace dpagg {

// The grid (a power of two) on which the answer and the noise are snapped for this calibration.
double release_grid(const dpagg_calibration& cal);

// Release quanta*quantum + noise, both snapped to the release grid (see release.cpp).
double release(const dpagg_calibration& cal, __int128 quanta, double quantum, RandomSource& rng);

// The sensitivity to calibrate with so that snapping to the release grid stays private:
// D (1 + sqrt(T) 2^-29) for a release of dimension T (D (1 + 2^-29) for a scalar), which covers
// the snapping of each coordinate to the grid (and, for vectors, the rounding of each row's
// clipped coordinates to the accumulation quantum).
double release_sensitivity(double sensitivity, int dimension = 1);

// Release a vector: quanta[j] * quantum + noise_j, both snapped to the release grid, per
// coordinate; cal.dimension coordinates.
void release_vector(const dpagg_calibration& cal, const __int128* quanta, double quantum,
                    RandomSource& rng, double* out);

// A release with its plan (dpagg_core.h: dpagg_release_plan): the grid and exponents worked out
// once per calibration and quantum.  release() is release_plan() then release_planned().
dpagg_release_plan release_plan(const dpagg_calibration& cal, double quantum);
double release_planned(const dpagg_release_plan& plan, __int128 quanta, RandomSource& rng);
// The planned release's range: it takes a true answer of |quanta| below this (exclusive).
__int128 release_max_quanta(const dpagg_release_plan& plan);

// The pieces of release(): the grid for a given sensitivity and noise scale, the true answer in
// grid units, and answer + noise.
double release_grid_for(double sensitivity, double scale);
__int128 answer_in_grid_units(__int128 quanta, double quantum, double g);
double snap_and_add(__int128 k, double noise, double g);

}  // namespace dpagg
