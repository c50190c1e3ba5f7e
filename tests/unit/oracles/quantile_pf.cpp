#include "oracles/quantile_pf.h"

#include <algorithm>
#include <cmath>

namespace dpagg_test {

std::vector<long double> quantile_scores_oracle(const std::vector<uint64_t>& counts, long double p) {
  long double n = 0;
  for (uint64_t c : counts) n += static_cast<long double>(c);
  const long double t = p * n;
  std::vector<long double> s;
  long double below = 0;
  for (uint64_t c : counts) {
    // ranks held by the bin: [below, below + c]; distance of t from that interval
    const long double lo = below, hi = below + static_cast<long double>(c);
    s.push_back(t < lo ? lo - t : (t > hi ? t - hi : 0.0L));
    below = hi;
  }
  return s;
}

std::vector<long double> quantile_pf_law(const std::vector<uint64_t>& counts, long double p,
                                         long double epsilon) {
  const std::vector<long double> s = quantile_scores_oracle(counts, p);
  const long double best = *std::min_element(s.begin(), s.end());
  const long double sens = std::max(p, 1.0L - p);
  const size_t B = s.size();
  std::vector<long double> q(B);
  for (size_t j = 0; j < B; ++j) q[j] = std::exp(-epsilon * (s[j] - best) / (2.0L * sens));
  std::vector<long double> law(B);
  for (size_t j = 0; j < B; ++j) {
    std::vector<long double> dist{1.0L};  // law of the number of heads among the others
    for (size_t k = 0; k < B; ++k) {
      if (k == j) continue;
      std::vector<long double> next(dist.size() + 1, 0.0L);
      for (size_t m = 0; m < dist.size(); ++m) {
        next[m] += dist[m] * (1.0L - q[k]);
        next[m + 1] += dist[m] * q[k];
      }
      dist.swap(next);
    }
    long double e = 0;
    for (size_t m = 0; m < dist.size(); ++m) e += dist[m] / static_cast<long double>(m + 1);
    law[j] = q[j] * e;
  }
  return law;
}

}  // namespace dpagg_test
