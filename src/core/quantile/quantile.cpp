// quantile.cpp — private quantiles (quantile.h; docs/quantiles.md).
#include "quantile.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <boost/multiprecision/cpp_int.hpp>

#include "bounds/dpagg_bounds.h"
#include "dpagg_quantile.h"
#include "errors.h"
#include "guarded.h"
#include "interrupt.h"

namespace dpagg {

namespace {

using boost::multiprecision::cpp_int;
using u128 = unsigned __int128;

constexpr int kUnitBits = 60;  // p and every score in units of 2^-60
const u128 kOne = static_cast<u128>(1) << kUnitBits;

// Uniform on {0, ..., k-1}, k >= 1, by rejection (exact).
uint64_t uniform_below(uint64_t k, RandomSource& rng) {
  if (k == 1) return 0;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % k;  // a multiple of k
  for (;;) {
    const uint64_t v = rng.next_u64();
    if (v < limit) return v % k;
  }
}

// Uniform on {0, ..., den-1} for a big den >= 1 (exact: rejection on the bits of den).
cpp_int uniform_below(const cpp_int& den, RandomSource& rng) {
  const unsigned bits = boost::multiprecision::msb(den) + 1;
  for (;;) {
    cpp_int v = 0;
    unsigned have = 0;
    while (have < bits) {
      const unsigned take = std::min(64u, bits - have);
      uint64_t w = rng.next_u64();
      if (take < 64) w &= (uint64_t{1} << take) - 1;
      v |= cpp_int(w) << have;
      have += take;
    }
    if (v < den) return v;
  }
}

bool bernoulli_ratio(const cpp_int& num, const cpp_int& den, RandomSource& rng) {
  if (num <= 0) return false;
  if (num >= den) return true;
  return uniform_below(den, rng) < num;
}

// Canonne, Kamath & Steinke, Algorithm 1: Bernoulli(exp(-gamma)) for gamma = num/den in [0, 1]:
// K = 1; while Bernoulli(gamma / K) succeeds, K = K + 1; heads iff K is odd.
bool bernoulli_exp_neg_le1(const cpp_int& num, const cpp_int& den, RandomSource& rng) {
  cpp_int k = 1;
  for (;;) {
    if (!bernoulli_ratio(num, den * k, rng)) break;
    k += 1;
  }
  return (k & 1) != 0;
}

// The same for gamma = 1, on machine integers (the common coin of far bins).
bool bernoulli_exp_minus_one(RandomSource& rng) {
  uint64_t k = 1;
  for (;;) {
    if (uniform_below(k, rng) != 0) break;  // Bernoulli(1/k)
    ++k;
  }
  return (k & 1) != 0;
}

// gamma >= 0 rational: exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))).
bool bernoulli_exp_neg_big(cpp_int num, const cpp_int& den, RandomSource& rng) {
  while (num > den) {
    if (!bernoulli_exp_minus_one(rng)) return false;
    num -= den;
  }
  return bernoulli_exp_neg_le1(num, den, rng);
}


// Bernoulli(num / den) on 128-bit integers (0 <= num, 0 < den < 2^127).
uint64_t top_bits(unsigned bits, RandomSource& rng) {
  return bits >= 64 ? rng.next_u64() : (rng.next_u64() & ((uint64_t{1} << bits) - 1));
}

u128 uniform_below(u128 den, RandomSource& rng) {
  if (den <= UINT64_MAX) return uniform_below(static_cast<uint64_t>(den), rng);
  const unsigned hi_bits = 128 - static_cast<unsigned>(__builtin_clzll(static_cast<uint64_t>(den >> 64))) - 64;
  for (;;) {
    const u128 v = (static_cast<u128>(top_bits(hi_bits, rng)) << 64) | rng.next_u64();
    if (v < den) return v;
  }
}

constexpr u128 kFastLimit = static_cast<u128>(1) << 120;  // num, den and den * K stay below 2^127

// Canonne, Kamath & Steinke's coin for gamma = num/den on 128-bit integers (num, den below
// 2^120).  Each Bernoulli(gamma / K) is drawn on machine integers while den * K fits, and in
// rational arithmetic past that: the draw goes on where it is, never starts again (starting
// again only when K grew large would bias the coin towards the draws that stayed small).
bool bernoulli_exp_neg_fast(u128 num, u128 den, RandomSource& rng) {
  while (num > den) {
    if (!bernoulli_exp_minus_one(rng)) return false;
    num -= den;
  }
  const u128 limit = (~static_cast<u128>(0)) >> 1;  // den * K below 2^127
  uint64_t k = 1;
  for (;;) {
    const bool success = den <= limit / k ? uniform_below(den * k, rng) < num
                                          : bernoulli_ratio(cpp_int(num), cpp_int(den) * k, rng);
    if (!success) break;
    ++k;
  }
  return (k & 1) != 0;
}

u128 gcd_u128(u128 a, u128 b) {
  while (b != 0) {
    const u128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// The coins of one release, at gamma = epsilon * diff / (2 D k), diff and D in units of 2^-60:
// exact.  A far bin (gamma well above 1) first flips exp(-1) coins on machine integers while a
// floating-point estimate of gamma - c stays above 1.5 (its error is far below 0.5, so each such
// coin is certainly one of exp(-gamma)'s factors); most such walks end there.  What is left,
// gamma - c, is drawn from its exact fraction: reduced once per run of bins of equal score, on
// 128-bit integers where it fits (the usual case), else in rational arithmetic.
class Coins {
 public:
  Coins(double epsilon, u128 D, int k, int runs)
      : eps_(static_cast<long double>(epsilon)), approx_den_(2.0L * static_cast<long double>(D) * k),
        two_d_(2 * D), k_(static_cast<uint64_t>(k)), cache_(static_cast<size_t>(runs)) {
    int e = 0;
    const double f = std::frexp(epsilon, &e);  // epsilon = f 2^e, f in [0.5, 1)
    uint64_t m = static_cast<uint64_t>(std::ldexp(f, 53));  // exact: 53 bits
    int shift = e - 53;
    const int tz = __builtin_ctzll(m);
    m_ = m >> tz;  // odd
    e_ = shift + tz;
  }
  bool flip(u128 diff, int run, RandomSource& rng) {
    if (diff == 0) return true;
    const long double gamma = eps_ * static_cast<long double>(diff) / approx_den_;
    uint64_t c = 0;
    while (gamma - static_cast<long double>(c) > 1.5L) {
      if (!bernoulli_exp_minus_one(rng)) return false;
      ++c;
    }
    Frac& f = fraction(diff, run);
    if (f.fast && c <= (f.num / f.den))
      return bernoulli_exp_neg_fast(f.num - static_cast<u128>(c) * f.den, f.den, rng);
    cpp_int num = f.big_num - cpp_int(c) * f.big_den;
    if (num < 0) throw Error(DPAGG_INTERNAL, "dpagg: quantile coin below zero");
    return bernoulli_exp_neg_big(num, f.big_den, rng);
  }

 private:
  struct Frac {
    bool made = false;
    bool fast = false;
    u128 num = 0, den = 0;
    cpp_int big_num, big_den;
  };
  // gamma = m 2^e diff / (2 D k), reduced: the common factors of diff and 2 D first (for p = 1/2
  // both are multiples of 2^59), then of m and the denominator.
  Frac& fraction(u128 diff, int run) {
    Frac& f = cache_[static_cast<size_t>(run)];
    if (f.made) return f;
    f.made = true;
    const u128 g = gcd_u128(diff, two_d_);
    const u128 a = diff / g, b = two_d_ / g;
    f.big_num = cpp_int(m_) * cpp_int(a);
    f.big_den = cpp_int(b) * k_;
    if (e_ > 0) f.big_num <<= e_;
    if (e_ < 0) f.big_den <<= -e_;
    const cpp_int h = boost::multiprecision::gcd(f.big_num, f.big_den);
    if (h > 1) {
      f.big_num /= h;
      f.big_den /= h;
    }
    if (f.big_num < cpp_int(kFastLimit) && f.big_den < cpp_int(kFastLimit)) {
      f.fast = true;
      f.num = static_cast<u128>(f.big_num);
      f.den = static_cast<u128>(f.big_den);
    }
    return f;
  }
  long double eps_, approx_den_;
  u128 two_d_;
  uint64_t k_;
  uint64_t m_ = 0;
  int e_ = 0;
  std::vector<Frac> cache_;  // one per run of bins of equal score
};

}  // namespace

namespace {
// The distance of the target t from the ranks [lo_rank, hi_rank], in units of 2^-60.
u128 rank_distance(u128 lo_rank, u128 hi_rank, u128 t) {
  const u128 lo = lo_rank << kUnitBits, hi = hi_rank << kUnitBits;
  return lo > t ? lo - t : (t > hi ? t - hi : 0);
}
}  // namespace

uint64_t quantile_target_units(double p) {
  return static_cast<uint64_t>(std::nearbyint(std::ldexp(p, kUnitBits)));
}

std::vector<u128> quantile_scores(const uint64_t* counts, int bins, uint64_t P) {
  u128 n = 0;
  for (int j = 0; j < bins; ++j) n += counts[j];
  if (n >= (static_cast<u128>(1) << 63)) throw Error(DPAGG_INTERNAL, "dpagg: too many values for a quantile");
  const u128 t = static_cast<u128>(P) * n;  // < 2^123
  std::vector<u128> s(static_cast<size_t>(bins));
  u128 a = 0;
  for (int j = 0; j < bins; ++j) {
    s[static_cast<size_t>(j)] = rank_distance(a, a + counts[j], t);
    a += counts[j];
  }
  return s;
}

bool bernoulli_exp_neg(u128 num, u128 den, RandomSource& rng) {
  if (den == 0) throw Error(DPAGG_INTERNAL, "dpagg: zero denominator");
  if (num < kFastLimit && den < kFastLimit) return bernoulli_exp_neg_fast(num, den, rng);
  return bernoulli_exp_neg_big(cpp_int(num), cpp_int(den), rng);
}

bool bernoulli_exp_neg_rational(unsigned __int128 num, unsigned __int128 den, RandomSource& rng) {
  if (den == 0) throw Error(DPAGG_INTERNAL, "dpagg: zero denominator");
  return bernoulli_exp_neg_big(cpp_int(num), cpp_int(den), rng);
}

namespace {

// A bin that holds values, or a maximal run of empty bins between them: its bins have the same
// score (the same ranks below, none inside).
struct Segment {
  int start, length;
  u128 score;
};

// Permute-and-flip over the bins, walked by segment: the next bin of a uniformly random order
// lies in a segment with probability proportional to the segment's bins not yet visited, and a
// bin that flips heads is a uniform one of its segment's (they are alike).
int walk_segments(const std::vector<Segment>& seg, int bins, u128 D, double epsilon, int k,
                  RandomSource& rng) {
  u128 best = seg[0].score;
  for (const Segment& g : seg) best = std::min(best, g.score);
  Coins coins(epsilon, D, k, static_cast<int>(seg.size()));
  std::vector<int> left(seg.size());
  for (size_t i = 0; i < seg.size(); ++i) left[i] = seg[i].length;
  for (int remaining = bins; remaining > 0; --remaining) {
    int r = static_cast<int>(uniform_below(static_cast<uint64_t>(remaining), rng));
    size_t i = 0;
    while (r >= left[i]) r -= left[i++];
    if (coins.flip(seg[i].score - best, static_cast<int>(i), rng))
      return seg[i].start + static_cast<int>(uniform_below(static_cast<uint64_t>(seg[i].length), rng));
    left[i]--;
  }
  throw Error(DPAGG_INTERNAL, "dpagg: permute-and-flip chose no bin");
}

// The segments of the occupied bins occ[0..m-1] (strictly increasing, below bins) holding
// cnt[i] values each, for the target P n; n the total.
std::vector<Segment> segments_of(const int* occ, const uint64_t* cnt, int m, int bins, uint64_t P,
                                 u128 n) {
  const u128 t = static_cast<u128>(P) * n;
  std::vector<Segment> seg;
  seg.reserve(static_cast<size_t>(2 * m + 1));
  u128 a = 0;
  int next = 0;  // the first bin not yet in a segment
  auto score = [&](u128 lo_rank, u128 hi_rank) { return rank_distance(lo_rank, hi_rank, t); };
  for (int i = 0; i < m; ++i) {
    if (occ[i] < next || occ[i] >= bins) throw Error(DPAGG_INTERNAL, "dpagg: quantile bins out of order");
    if (occ[i] > next) seg.push_back({next, occ[i] - next, score(a, a)});
    seg.push_back({occ[i], 1, score(a, a + cnt[i])});
    a += cnt[i];
    next = occ[i] + 1;
  }
  if (next < bins) seg.push_back({next, bins - next, score(a, a)});
  return seg;
}

}  // namespace

int quantile_select_sparse(const int* occ, const uint64_t* cnt, int m, int bins, double p,
                           double epsilon, int k, RandomSource& rng, int max_segments) {
  u128 n = 0;
  for (int i = 0; i < m; ++i) n += cnt[i];
  if (n >= (static_cast<u128>(1) << 63)) throw Error(DPAGG_INTERNAL, "dpagg: too many values for a quantile");
  if (2 * m + 1 <= max_segments) {
    const uint64_t P = quantile_target_units(p);
    return walk_segments(segments_of(occ, cnt, m, bins, P, n), bins, std::max<u128>(P, kOne - P),
                         epsilon, k, rng);
  }
  std::vector<uint64_t> dense(static_cast<size_t>(bins), 0);
  for (int i = 0; i < m; ++i) {
    if (occ[i] < 0 || occ[i] >= bins) throw Error(DPAGG_INTERNAL, "dpagg: quantile bin out of range");
    dense[static_cast<size_t>(occ[i])] += cnt[i];
  }
  return quantile_select_bin(dense.data(), bins, p, epsilon, k, rng, 0);
}

int quantile_select_bin(const uint64_t* counts, int bins, double p, double epsilon, int k,
                        RandomSource& rng, int max_segments) {
  const uint64_t P = quantile_target_units(p);
  const u128 D = std::max<u128>(P, kOne - P);  // the scores' sensitivity, >= 2^59
  if (max_segments > 0) {
    std::vector<int> occ;
    std::vector<uint64_t> cnt;
    for (int j = 0; j < bins && static_cast<int>(occ.size()) * 2 + 1 <= max_segments; ++j)
      if (counts[j] != 0) {
        occ.push_back(j);
        cnt.push_back(counts[j]);
      }
    if (static_cast<int>(occ.size()) * 2 + 1 <= max_segments)
      return quantile_select_sparse(occ.data(), cnt.data(), static_cast<int>(occ.size()), bins, p,
                                    epsilon, k, rng, max_segments);
  }
  const std::vector<u128> s = quantile_scores(counts, bins, P);
  const u128 best = *std::min_element(s.begin(), s.end());
  // runs of neighbouring bins of equal score share one fraction
  std::vector<int> run(static_cast<size_t>(bins));
  int runs = 0;
  for (int j = 0; j < bins; ++j)
    run[static_cast<size_t>(j)] = (j > 0 && s[static_cast<size_t>(j)] == s[static_cast<size_t>(j - 1)]) ? runs - 1 : runs++;
  Coins coins(epsilon, D, k, runs);
  std::vector<int> order(static_cast<size_t>(bins));
  std::iota(order.begin(), order.end(), 0);
  // A uniformly random order, drawn as it is visited (Fisher-Yates); a bin of the best score
  // always flips heads, so the walk ends.
  for (int i = 0; i < bins; ++i) {
    const int r = i + static_cast<int>(uniform_below(static_cast<uint64_t>(bins - i), rng));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(r)]);
    const int j = order[static_cast<size_t>(i)];
    if (coins.flip(s[static_cast<size_t>(j)] - best, run[static_cast<size_t>(j)], rng)) return j;
  }
  throw Error(DPAGG_INTERNAL, "dpagg: permute-and-flip chose no bin");
}

void check_quantile_parameters(const double* ps, int k, double epsilon, double lower,
                               double upper) {
  if (k < 1 || k > DPAGG_QUANTILE_MAX_K)
    invalid("dp_percentiles takes 1 to " + std::to_string(DPAGG_QUANTILE_MAX_K) + " quantiles",
            "Pass an array of 1 to " + std::to_string(DPAGG_QUANTILE_MAX_K) +
                " values of p in [0, 1]; split longer lists over several calls.");
  for (int i = 0; i < k; ++i)
    if (!(ps[i] >= 0.0 && ps[i] <= 1.0))
      invalid("p must lie in [0, 1]", "Pass the quantile as a fraction: 0.5 for the median, 0.9 for the 90th percentile.");
  if (!(std::isfinite(epsilon) && epsilon > 0.0))
    invalid("epsilon must be a finite number greater than 0", "Pass epsilon in (0, infinity), e.g. 1.0.");
  if (!std::isfinite(lower) || !std::isfinite(upper) || !(lower < upper) ||
      !std::isfinite(upper - lower))
    invalid("lower and upper must be finite with lower < upper",
            "Pass finite bounds with lower < upper (and upper - lower finite): the answer lies in "
            "[lower, upper], at a resolution of (upper - lower) / " +
                std::to_string(DPAGG_QUANTILE_BINS) + ".");
}

namespace {

// k answers of the k quantiles ps, each a point of the cell select(i) chose; sorted to the order
// of the ps (post-processing).
template <class Select, class Point>
std::vector<double> answer_sorted(const std::vector<double>& ps, Select select, Point point) {
  const int k = static_cast<int>(ps.size());
  std::vector<double> answers;
  for (int i = 0; i < k; ++i) {
    check_interrupt();
    answers.push_back(point(select(i)));
  }
  std::vector<int> by_p(static_cast<size_t>(k));
  std::iota(by_p.begin(), by_p.end(), 0);
  std::stable_sort(by_p.begin(), by_p.end(),
                   [&](int a, int b) { return ps[static_cast<size_t>(a)] < ps[static_cast<size_t>(b)]; });
  std::vector<double> sorted = answers;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> out(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) out[static_cast<size_t>(by_p[static_cast<size_t>(i)])] = sorted[static_cast<size_t>(i)];
  return out;
}

}  // namespace

std::vector<double> release_quantiles(const uint64_t* counts, double lower, double upper,
                                      const std::vector<double>& ps, double epsilon,
                                      RandomSource& rng, const int* occ, int m) {
  const int k = static_cast<int>(ps.size());
  check_quantile_parameters(ps.data(), k, epsilon, lower, upper);
  const int B = DPAGG_QUANTILE_BINS;
  const double width = (upper - lower) / B;
  return answer_sorted(
      ps,
      [&](int i) {
        return m >= 0 ? quantile_select_sparse(occ, counts, m, B, ps[static_cast<size_t>(i)], epsilon, k, rng)
                      : quantile_select_bin(counts, B, ps[static_cast<size_t>(i)], epsilon, k, rng);
      },
      [&](int j) {
        // A uniform point of the chosen bin: independent of the data given the bin.
        const double x = lower + (static_cast<double>(j) + rng.uniform53()) * width;
        return std::min(std::max(x, lower), upper);
      });
}

std::vector<double> release_quantiles_cells(const int* cells, const uint64_t* counts, int m,
                                            int first, int last, const std::vector<double>& ps,
                                            double epsilon, RandomSource& rng) {
  const int k = static_cast<int>(ps.size());
  check_quantile_parameters(ps.data(), k, epsilon, 0.0, 1.0);
  if (first < 0 || last >= DPAGG_BOUNDS_CELLS || first > last)
    throw Error(DPAGG_INTERNAL, "dpagg: a range of cells out of order");
  // The candidates are the cells first..last; a value below (above) them counts in the first
  // (last): a rule of the value and the range alone, so one value still moves one count by 1.
  std::vector<int> occ;
  std::vector<uint64_t> cnt;
  for (int i = 0; i < m; ++i) {
    if (cells[i] < 0 || cells[i] >= DPAGG_BOUNDS_CELLS || (i > 0 && cells[i] <= cells[i - 1]))
      throw Error(DPAGG_INTERNAL, "dpagg: occupied cells out of order");
    const int c = std::min(std::max(cells[i], first), last) - first;
    if (!occ.empty() && occ.back() == c)
      cnt.back() += counts[i];
    else {
      occ.push_back(c);
      cnt.push_back(counts[i]);
    }
  }
  const int ncells = last - first + 1;
  return answer_sorted(
      ps,
      [&](int i) {
        return quantile_select_sparse(occ.data(), cnt.data(), static_cast<int>(occ.size()), ncells,
                                      ps[static_cast<size_t>(i)], epsilon, k, rng);
      },
      [&](int j) {
        double lo, hi;
        dpagg_bounds_cell_edges(first + j, &lo, &hi);
        const double x = lo + rng.uniform53() * (hi - lo);
        return std::min(std::max(x, lo), hi);
      });
}

}  // namespace dpagg

extern "C" {

int dpagg_quantile_check(const double* ps, int k, double epsilon, double lower, double upper,
                         dpagg_error* err) {
  return dpagg::guarded(err, [&] { dpagg::check_quantile_parameters(ps, k, epsilon, lower, upper); });
}

int dpagg_quantile_release(const uint64_t* counts, double lower, double upper, const double* ps,
                           int k, double epsilon, double* out, dpagg_error* err) {
  return dpagg::guarded(err, [&] {
    dpagg::SecureRandom rng;
    const std::vector<double> r = dpagg::release_quantiles(
        counts, lower, upper, std::vector<double>(ps, ps + std::max(k, 0)), epsilon, rng, nullptr, -1);
    std::copy(r.begin(), r.end(), out);
  });
}

int dpagg_quantile_release_sparse(const int32_t* bins, const uint64_t* counts, int m, double lower,
                                  double upper, const double* ps, int k, double epsilon, double* out,
                                  dpagg_error* err) {
  return dpagg::guarded(err, [&] {
    dpagg::SecureRandom rng;
    if (m < 0) throw dpagg::Error(DPAGG_INTERNAL, "dpagg: a negative number of occupied bins");
    std::vector<int> occ(bins, bins + m);
    const std::vector<double> r = dpagg::release_quantiles(
        counts, lower, upper, std::vector<double>(ps, ps + std::max(k, 0)), epsilon, rng, occ.data(), m);
    std::copy(r.begin(), r.end(), out);
  });
}

int dpagg_quantile_release_cells(const int32_t* cells, const uint64_t* counts, int m, int first,
                                 int last, const double* ps, int k, double epsilon, double* out,
                                 dpagg_error* err) {
  return dpagg::guarded(err, [&] {
    dpagg::SecureRandom rng;
    if (m < 0) throw dpagg::Error(DPAGG_INTERNAL, "dpagg: a negative number of occupied cells");
    std::vector<int> occ(cells, cells + m);
    const std::vector<double> r = dpagg::release_quantiles_cells(
        occ.data(), counts, m, first, last, std::vector<double>(ps, ps + std::max(k, 0)), epsilon, rng);
    std::copy(r.begin(), r.end(), out);
  });
}

}  // extern "C"
