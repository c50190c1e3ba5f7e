// sampler.cpp — multi_gaussian_sample (multi_gaussian.h): one draw of the mixture
// sum_k w_k N(k D, s^2), w_k proportional to e^{-|k| eps}: the component index by inversion of its
// tail sums, then the Gaussian (docs/mixtures.md §2.2).
#include <cmath>

#include "errors.h"
#include "mechanisms/multi_gaussian/multi_gaussian.h"

namespace dpagg {

double multi_gaussian_sample(int K, double eps, double sensitivity, double scale, RandomSource& rng) {
  if (K < 0 || K > kMultiGaussianMaxK)
    throw Error(DPAGG_INTERNAL, "multi_gaussian: calibration with an invalid K");
  // |k| = j with probability proportional to 1 (j = 0) or 2 e^{-j eps}: invert the tail sums,
  // computed from the far end so that small probabilities keep their relative accuracy.  The
  // table depends on (K, eps) only: kept for the last pair seen, since a GROUP BY draws from
  // the same calibration for every group (K calls of exp per draw were a tenth of dp_avg's time
  // over a million groups).  Recomputed exactly as before, so the draws are unchanged.
  struct TailTable {
    int K = -1;
    double eps = 0;
    double tail[kMultiGaussianMaxK + 2];
  };
  thread_local TailTable table;
  if (table.K != K || !(table.eps == eps)) {
    table.tail[K + 1] = 0;
    for (int j = K; j >= 0; --j)
      table.tail[j] = table.tail[j + 1] + (j == 0 ? 1.0 : 2.0 * std::exp(-j * eps));
    table.K = K;
    table.eps = eps;
  }
  const double* tail = table.tail;
  const double u = rng.uniform_open01() * tail[0];
  int j = 0;
  while (j < K && u < tail[j + 1]) ++j;
  const double k = (j == 0 || rng.random_bit()) ? j : -j;
  return k * sensitivity + scale * sample_standard_normal(rng);
}

}  // namespace dpagg
