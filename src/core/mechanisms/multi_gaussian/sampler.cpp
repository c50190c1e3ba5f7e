// sampler.cpp — multi_gaussian_sample (multi_gaussian.h): one draw of the mixture
// sum_k w_k N(k D, s^2), w_k proportional to e^{-|k| eps}: the component index by inversion of its
// tail sums, then the Gaussian (docs/mixtures.md §2.2); and multi_gaussian_tail, the two-sided tail
// of that law (Mechanism::noise_tail).
#include <algorithm>
#include <cmath>
#include <limits>

#include "errors.h"
#include "math/gaussian.h"
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

// The tail of the law sampled above.  With J = |k| and T_j(w) = P(|jD + sZ| > w) (the folded
// normal's tail, increasing in j), P(|X| > w) = T_0 + sum_{j>=1} P(J >= j) (T_j - T_{j-1}).  The
// sampler draws J >= j with probability tail[j]/tail[0] up to the rounding of those sums of K + 1
// positive terms and of u = U tail[0]: a relative (4K + 16) ulps at most, so the sampled tail is
// within that factor of the exact mixture's.  The bound: every Q from above (normal_upper_tail_
// enclosure, arguments charged 4 ulps of (w + jD)/s), and a relative (12K + 40 + 4 K eps) ulps for
// the sampler's rounding, the weights (exp(-j eps) is off by up to (j eps + 1) ulps, in the sampler
// too), the sums (2K + 1 terms above, K + 1 in S) and the division.
double multi_gaussian_tail(int K, double eps, double sensitivity, double scale, double w) {
  if (K < 0 || K > kMultiGaussianMaxK)
    throw Error(DPAGG_INTERNAL, "multi_gaussian: calibration with an invalid K");
  constexpr double kUlp = std::numeric_limits<double>::epsilon();
  auto q_hi = [&](double m) {  // Q((w - m)/s) from above
    return normal_upper_tail_enclosure((w - m) / scale, 4.0 * kUlp * (w + std::fabs(m)) / scale).hi;
  };
  double num = 2.0 * q_hi(0.0), S = 1.0;
  for (int j = 1; j <= K; ++j) {
    const double wj = 2.0 * std::exp(-j * eps), m = j * sensitivity;
    S += wj;
    num += wj * (q_hi(m) + q_hi(-m));
  }
  return std::min(1.0, num / S * (1.0 + (12.0 * K + 40.0 + 4.0 * K * eps) * kUlp));
}

}  // namespace dpagg
