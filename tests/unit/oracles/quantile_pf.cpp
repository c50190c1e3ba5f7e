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

namespace {
std::vector<long double> binomial(int m, long double q) {
  std::vector<long double> out(static_cast<size_t>(m) + 1);
  for (int k = 0; k <= m; ++k)
    out[static_cast<size_t>(k)] = std::exp(std::lgamma(m + 1.0L) - std::lgamma(k + 1.0L) - std::lgamma(m - k + 1.0L) +
                                           (k ? k * std::log(q) : 0.0L) + (m - k ? (m - k) * std::log1p(-q) : 0.0L));
  return out;
}
std::vector<long double> convolve(const std::vector<long double>& a, const std::vector<long double>& b) {
  std::vector<long double> out(a.size() + b.size() - 1, 0.0L);
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] > 0)
      for (size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  return out;
}
}  // namespace

std::vector<QuantileClass> quantile_pf_law_by_class(const std::vector<uint64_t>& counts, long double p,
                                                   long double epsilon) {
  const std::vector<long double> s = quantile_scores_oracle(counts, p);
  std::vector<QuantileClass> cls;
  for (long double x : s) {
    bool found = false;
    for (auto& c : cls)
      if (c.score == x) {
        c.bins++;
        found = true;
      }
    if (!found) cls.push_back({x, 1, 0});
  }
  std::sort(cls.begin(), cls.end(), [](const QuantileClass& a, const QuantileClass& b) { return a.score < b.score; });
  const long double best = cls[0].score, sens = std::max(p, 1.0L - p);
  std::vector<long double> q;
  for (auto& c : cls) q.push_back(c.score == best ? 1.0L : std::exp(-epsilon * (c.score - best) / (2.0L * sens)));
  // The heads among the other bins, class by class (a class of q = 1 adds all its bins).
  for (size_t i = 0; i < cls.size(); ++i) {
    std::vector<long double> dist{1.0L};
    for (size_t j = 0; j < cls.size(); ++j) {
      const int m = cls[j].bins - (i == j ? 1 : 0);
      if (m <= 0) continue;
      if (q[j] >= 1.0L) {
        std::vector<long double> shifted(dist.size() + static_cast<size_t>(m), 0.0L);
        for (size_t k = 0; k < dist.size(); ++k) shifted[k + static_cast<size_t>(m)] = dist[k];
        dist.swap(shifted);
      } else {
        dist = convolve(dist, binomial(m, q[j]));
      }
    }
    long double e = 0;
    for (size_t k = 0; k < dist.size(); ++k) e += dist[k] / static_cast<long double>(k + 1);
    cls[i].p_bin = q[i] * e;
  }
  return cls;
}

}  // namespace dpagg_test
