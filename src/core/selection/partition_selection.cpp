// partition_selection.cpp — the three group-selection strategies of partition_selection.h.
//
// Numerics (docs/partition_selection.md, "Numerics"): probabilities are computed in 64-bit long
// double for working parameters eps0 = eps'(1 - s), delta0 = delta'(1 - s) slightly below the
// per-group target (eps', delta'), s = 2^-12.  A keep probability p <= 1/2 is stored as p rounded
// down; above 1/2 its complement, the drop probability q, is stored rounded up, so each stored
// value is relatively accurate and every rounding drops rather than keeps.  The margin taken off
// (eps', delta') is many orders of magnitude larger than the rounding errors it has to absorb.
#include "partition_selection.h"

#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "errors.h"
#include "math/gaussian.h"

static_assert(std::numeric_limits<long double>::digits >= 64,
              "partition selection's error analysis assumes at least 64-bit long double");

namespace dpagg {
namespace selection {

namespace {

constexpr double kMinEpsilon = 1e-10;
constexpr double kMaxEpsilon = 1e9;
constexpr double kMinDelta = 1e-290;
constexpr int64_t kMaxGroups = 1000000000;
constexpr int64_t kMaxUnits = int64_t{1} << 62;

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

double round_down(long double x) {
  if (!(x > 0)) return 0.0;
  double d = static_cast<double>(x);
  if (static_cast<long double>(d) > x) d = std::nextafter(d, 0.0);
  return d;
}

double round_up(long double x) {
  double d = static_cast<double>(x);
  if (static_cast<long double>(d) < x) d = std::nextafter(d, std::numeric_limits<double>::infinity());
  return d;
}

// Keep with probability p (p <= 1/2 expected), rounded down.
KeepProbability keep_form(long double p) {
  KeepProbability k;
  k.value = round_down(p);
  return k;
}

// Drop with probability q, rounded up and never below kMinProbability (raising a drop
// probability only ever drops more).
KeepProbability drop_form(long double q) {
  KeepProbability k;
  k.complement = true;
  k.value = std::max(round_up(q), kMinProbability);
  if (k.value >= 1.0) {  // cannot happen for q < 1; a drop probability of 1 is "never keep"
    k.complement = false;
    k.value = 0.0;
  }
  return k;
}

KeepProbability certain() {
  KeepProbability k;
  k.certain = true;
  k.value = 1.0;
  return k;
}

// log(e^x - 1), x > 0, without overflow.
long double log_expm1(long double x) {
  if (x > 0.5L) return x + std::log1p(-std::exp(-x));
  return std::log(std::expm1(x));
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string json_int(int64_t v) { return v < 0 ? "null" : std::to_string(v); }

dpagg_selection_plan empty_plan() {
  dpagg_selection_plan p;
  p.strategy = DPAGG_SELECT_OPTIMAL;
  p.version = 1;
  p.max_groups = 1;
  p.epsilon = p.delta = nan();
  p.group_epsilon = p.group_delta = nan();
  p.work_epsilon = p.work_delta = nan();
  p.noise_scale = p.threshold = nan();
  p.noise_delta = p.threshold_delta = nan();
  p.crossover = 0;
  p.anchor_drop = nan();
  p.certain_from = -1;
  return p;
}

[[noreturn]] void internal(const std::string& what) {
  throw Error(DPAGG_INTERNAL, "group selection: " + what);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Strategy parse_strategy(const std::string& raw) {
  std::string s;
  for (char c : raw)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "optimal") return Strategy::kOptimal;
  if (s == "laplace") return Strategy::kLaplace;
  if (s == "gaussian") return Strategy::kGaussian;
  invalid("unknown group selection strategy " + quoted(raw),
          "Use 'optimal' (the default), 'laplace' or 'gaussian'.");
}

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kOptimal: return "optimal";
    case Strategy::kLaplace: return "laplace";
    case Strategy::kGaussian: return "gaussian";
  }
  return nullptr;
}

double KeepProbability::keep() const {
  if (certain) return 1.0;
  return complement ? static_cast<double>(1.0L - value) : value;
}

long double KeepProbability::keep_ld() const {
  if (certain) return 1.0L;
  return complement ? 1.0L - value : static_cast<long double>(value);
}

long double KeepProbability::drop_ld() const {
  if (certain) return 0.0L;
  return complement ? static_cast<long double>(value) : 1.0L - value;
}

double group_delta_for(double delta, int64_t max_groups) {
  if (max_groups == 1) return delta;
  // 1 - (1 - delta)^(1/L): a few ulps of long double accurate; the factor takes off more than
  // that error, so the result, rounded down, satisfies (1 - d)^L >= 1 - delta.
  long double d = -std::expm1(std::log1p(-static_cast<long double>(delta)) /
                              static_cast<long double>(max_groups));
  return round_down(d * (1.0L - 0x1p-58L));
}

// ---------------------------------------------------------------------------------------------
// PartitionSelection

KeepProbability PartitionSelection::keep_probability(int64_t n) const {
  if (n < 0)
    invalid("the number of units of a group must be >= 0",
            "Pass the count of distinct privacy units in the group.");
  if (n == 0) return KeepProbability{};
  return compute(n);
}

bool PartitionSelection::decide(int64_t n, double u) const {
  KeepProbability k = keep_probability(n);
  if (k.certain) return true;
  // u is a uniform real rounded down to a double: P(u < v) = v for every double v >= 2^-1022.
  return k.complement ? !(u < k.value) : (u < k.value);
}

bool PartitionSelection::keep(int64_t n, RandomSource& rng) const {
  if (n < 0) keep_probability(n);  // throws
  return decide(n, rng.uniform_open01());
}

int64_t PartitionSelection::min_units(double p) const {
  if (!(p > 0.0 && p <= 1.0))
    invalid("a keep probability must be in (0, 1]", "Pass a probability such as 0.5 or 0.99.");
  if (p == 1.0) return plan_.certain_from;
  auto enough = [&](int64_t n) { return keep_probability(n).keep_ld() >= static_cast<long double>(p); };
  if (enough(1)) return 1;
  int64_t lo = 1, hi = 2;  // enough(lo) is false
  while (!enough(hi)) {
    if (hi >= kMaxUnits) return -1;
    lo = hi;
    hi = std::min(hi * 2, kMaxUnits);
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (enough(mid)) hi = mid; else lo = mid;
  }
  return hi;
}

std::string PartitionSelection::describe_json() const {
  const dpagg_selection_plan& p = plan_;
  std::string s = "{\"strategy\": \"" + std::string(strategy_name(strategy())) + "\"";
  s += ", \"epsilon\": " + json_number(p.epsilon);
  s += ", \"delta\": " + json_number(p.delta);
  s += ", \"max_groups_contributed\": " + std::to_string(p.max_groups);
  if (strategy() == Strategy::kGaussian) {
    s += ", \"noise\": \"gaussian\", \"sigma\": " + json_number(p.noise_scale);
    s += ", \"l2_sensitivity\": " + json_number(std::sqrt(static_cast<double>(p.max_groups)));
    s += ", \"noise_delta\": " + json_number(p.noise_delta);
    s += ", \"threshold_delta\": " + json_number(p.threshold_delta);
    s += ", \"group_threshold_delta\": " + json_number(p.group_delta);
    s += ", \"threshold\": " + json_number(p.threshold);
  } else {
    s += ", \"group_epsilon\": " + json_number(p.group_epsilon);
    s += ", \"group_delta\": " + json_number(p.group_delta);
    if (strategy() == Strategy::kLaplace) {
      s += ", \"noise\": \"laplace\", \"scale\": " + json_number(p.noise_scale);
      s += ", \"threshold\": " + json_number(p.threshold);
    }
  }
  s += ", \"keep_probability_1_unit\": " + json_number(probability(1));
  s += ", \"units_for_half\": " + json_int(min_units(0.5));
  s += ", \"units_for_99_percent\": " + json_int(min_units(0.99));
  s += ", \"always_kept_from\": " + json_int(p.certain_from);
  return s + "}";
}

void PartitionSelection::self_check() const {
  if (strategy() == Strategy::kGaussian) {
    // The threshold's share: a group of one unit is kept with probability <= group_delta.
    if (keep_probability(1).keep_ld() > static_cast<long double>(plan_.group_delta))
      internal("self-check failed: P(keep | 1 unit) exceeds the threshold's delta");
    return;
  }
  const long double eps = static_cast<long double>(plan_.epsilon) / plan_.max_groups;
  const long double e = std::exp(eps);
  const long double d = plan_.group_delta;
  std::vector<int64_t> ns = {0, 1, 2, 3};
  auto around = [&](int64_t c, int64_t below, int64_t above) {
    for (int64_t n = c - below; n <= c + above; ++n)
      if (n >= 0 && n < kMaxUnits) ns.push_back(n);
  };
  if (strategy() == Strategy::kOptimal) {
    around(plan_.crossover, 3, 4);
    if (plan_.certain_from >= 0) around(plan_.certain_from, 3, 1);
  } else {
    around(static_cast<int64_t>(std::min(std::floor(plan_.threshold), 4e18)), 2, 2);
  }
  for (int64_t n : ns) {
    KeepProbability a = keep_probability(n), b = keep_probability(n + 1);
    long double pa = a.keep_ld(), pb = b.keep_ld(), qa = a.drop_ld(), qb = b.drop_ld();
    bool ok1 = pb <= (pa > 0 ? e * pa : 0.0L) + d;
    bool ok2 = qa <= (qb > 0 ? e * qb : 0.0L) + d;
    if (!ok1 || !ok2) internal("self-check failed at n = " + std::to_string(n));
  }
}

std::unique_ptr<PartitionSelection> PartitionSelection::from_plan(const dpagg_selection_plan& p) {
  bool ok = p.version == 1 && p.max_groups >= 1 && p.max_groups <= kMaxGroups &&
            std::isfinite(p.epsilon) && std::isfinite(p.delta) && std::isfinite(p.work_epsilon) &&
            std::isfinite(p.work_delta) && p.work_epsilon > 0 && p.work_delta > 0 &&
            std::isfinite(p.group_delta);
  switch (p.strategy) {
    case DPAGG_SELECT_OPTIMAL:
      ok = ok && p.crossover >= 1 && std::isfinite(p.anchor_drop) && p.anchor_drop >= 0 &&
           p.anchor_drop < 1;
      if (!ok) break;
      return std::unique_ptr<PartitionSelection>(new OptimalSelection(p));
    case DPAGG_SELECT_LAPLACE:
      ok = ok && std::isfinite(p.threshold);
      if (!ok) break;
      return std::unique_ptr<PartitionSelection>(new LaplaceSelection(p));
    case DPAGG_SELECT_GAUSSIAN:
      ok = ok && std::isfinite(p.threshold) && std::isfinite(p.noise_scale) && p.noise_scale > 0;
      if (!ok) break;
      return std::unique_ptr<PartitionSelection>(new GaussianSelection(p));
    default:
      break;
  }
  internal("the selection plan is not one dpagg_selection_prepare() produced");
}

// ---------------------------------------------------------------------------------------------
// OptimalSelection.  pi(0) = 0 and pi(n) = min(e^eps pi(n-1) + delta,
// 1 - e^-eps (1 - delta - pi(n-1)), 1): the first bound governs up to the crossover (a geometric
// series, closed form below), the second after it (closed form in the drop probability).

OptimalSelection::OptimalSelection(const dpagg_selection_plan& plan) : PartitionSelection(plan) {}

void OptimalSelection::fill(dpagg_selection_plan& plan, double eps0, double delta0) {
  plan.work_epsilon = eps0;
  plan.work_delta = delta0;
  const long double e = eps0, d = delta0;
  // The geometric regime lasts while pi(n-1) <= (1 - delta)/(1 + e^eps), i.e. for
  // n - 1 <= log1p(tanh(eps/2) (1/delta - 1)) / eps.
  long double x = std::log1p(std::tanh(e / 2) * (1.0L / d - 1.0L)) / e;
  long double n1 = 1.0L + std::floor(x);
  if (!(n1 >= 1.0L)) n1 = 1.0L;
  if (n1 > static_cast<long double>(kMaxUnits / 4)) internal("crossover out of range");
  plan.crossover = static_cast<int64_t>(n1);
  plan.certain_from = -1;
  plan.anchor_drop = 0.0;

  OptimalSelection tmp(plan);
  // Walk the recurrence across the crossover; it may already reach certainty.
  const int64_t a = plan.crossover + 1;
  for (int64_t n = std::max<int64_t>(plan.crossover - 1, 1); n <= a; ++n) {
    if (tmp.walk(n).certain) {
      plan.certain_from = n;
      return;
    }
  }
  // The tail starts from the anchor's drop probability rounded up to a double (exact when the
  // anchor is stored as a drop probability): a larger start only lowers the tail's keep
  // probabilities, which keeps both inequalities between a and a + 1 (docs, "Numerics").
  plan.anchor_drop = round_up(tmp.walk(a).drop_ld());
  if (!(plan.anchor_drop > 0 && plan.anchor_drop < 1)) internal("anchor out of range");
  tmp.plan_ = plan;
  // Certain from the first tail step m with A - m eps <= 0 (evaluated exactly as tail() does).
  const long double A = tmp.tail_exponent();
  long double mstar = std::ceil(A / e);
  if (!(mstar >= 1.0L)) mstar = 1.0L;
  if (mstar > static_cast<long double>(kMaxUnits / 4)) internal("tail out of range");
  int64_t m = static_cast<int64_t>(mstar);
  auto done = [&](int64_t k) { return A - static_cast<long double>(k) * e <= 0; };
  while (m > 1 && done(m - 1)) --m;
  while (!done(m)) ++m;
  plan.certain_from = a + m;
}

KeepProbability OptimalSelection::regime1(int64_t n) const {
  const long double e = plan_.work_epsilon, d = plan_.work_delta;
  if (n == 1) return keep_form(d);
  return keep_form(d * (std::expm1(static_cast<long double>(n) * e) / std::expm1(e)));
}

KeepProbability OptimalSelection::step(const KeepProbability& prev) const {
  const long double e = plan_.work_epsilon, d = plan_.work_delta;
  if (prev.certain) return certain();
  if (!prev.complement && prev.value == 0.0) return keep_form(d);  // pi(1) = delta
  const long double p = prev.keep_ld(), q = prev.drop_ld();
  if (q <= d) return certain();
  // Drop-side bound q >= e^-eps (q_prev - delta), in logs so that it never underflows to 0.
  long double qb = std::exp(std::log(q - d) - e);
  // Keep-side bound p <= e^eps p_prev + delta (may overflow to +inf: then it does not bind).
  long double pa = d + p * std::exp(e);
  if (pa <= 1.0L - qb) {
    if (pa <= 0.5L) return keep_form(pa);
    return drop_form(std::max(1.0L - pa, qb));
  }
  if (qb >= 0.5L) return keep_form(1.0L - qb);
  return drop_form(qb);
}

KeepProbability OptimalSelection::walk(int64_t n) const {
  const int64_t base = std::max<int64_t>(plan_.crossover - 2, 0);
  if (n <= base) return regime1(n);
  KeepProbability v = base == 0 ? KeepProbability{} : regime1(base);
  for (int64_t k = base + 1; k <= n; ++k) v = step(v);
  return v;
}

// After the anchor a = crossover + 1 with drop probability Q: q(a + m) = c (e^(A - m eps) - 1)
// with c = delta / (e^eps - 1) and A = log(1 + Q / c); certain once A - m eps <= 0.
long double OptimalSelection::tail_exponent() const {
  const long double e = plan_.work_epsilon;
  const long double lc = std::log(static_cast<long double>(plan_.work_delta)) - log_expm1(e);
  const long double dq = std::log(static_cast<long double>(plan_.anchor_drop)) - lc;  // log(Q/c)
  return dq > 0 ? dq + std::log1p(std::exp(-dq)) : std::log1p(std::exp(dq));
}

KeepProbability OptimalSelection::tail(int64_t m) const {
  const long double e = plan_.work_epsilon;
  const long double t = tail_exponent() - static_cast<long double>(m) * e;
  if (t <= 0) return certain();
  const long double lc = std::log(static_cast<long double>(plan_.work_delta)) - log_expm1(e);
  return drop_form(std::exp(lc + log_expm1(t)));
}

KeepProbability OptimalSelection::compute(int64_t n) const {
  if (plan_.certain_from >= 0 && n >= plan_.certain_from) return certain();
  const int64_t a = plan_.crossover + 1;
  if (n <= a) return walk(n);
  return tail(n - a);
}

// ---------------------------------------------------------------------------------------------
// LaplaceSelection: keep iff n + X >= T, X ~ Laplace(1/eps0); P(keep | n) = e^(-(T-n) eps0) / 2
// for n <= T, else 1 - e^(-(n-T) eps0) / 2.  T is set so that P(keep | 1) = delta0 and rounded
// up to a double; T - n is then exact in long double.

void LaplaceSelection::fill(dpagg_selection_plan& plan, double eps0, double delta0) {
  plan.work_epsilon = eps0;
  plan.work_delta = delta0;
  plan.noise_scale = 1.0 / eps0;
  const long double e = eps0, d = delta0;
  long double t = d <= 0.5L ? 1.0L + std::log(1.0L / (2.0L * d)) / e
                            : 1.0L - std::log(2.0L * (1.0L - d)) / e;
  plan.threshold = round_up(t);
  if (!(std::fabs(plan.threshold) < 0x1p52)) internal("threshold out of range");
}

KeepProbability LaplaceSelection::compute(int64_t n) const {
  const long double u = (static_cast<long double>(plan_.threshold) - static_cast<long double>(n)) *
                        static_cast<long double>(plan_.work_epsilon);
  if (u >= 0) return keep_form(0.5L * std::exp(-u));
  return drop_form(0.5L * std::exp(u));
}

// ---------------------------------------------------------------------------------------------
// GaussianSelection: keep iff n + N(0, sigma^2) >= T.  sigma: the analytic Gaussian sigma for
// (eps0, noise delta) at l2 sensitivity sqrt(L) (each unit moves at most L counts by 1);
// T: P(keep | n = 1) = work_delta, the per-group share of the threshold's delta.

void GaussianSelection::fill(dpagg_selection_plan& plan, double slack) {
  const double L = static_cast<double>(plan.max_groups);
  plan.noise_delta = plan.delta / 2.0;
  plan.threshold_delta = plan.delta - plan.noise_delta;
  plan.group_epsilon = nan();
  plan.group_delta = group_delta_for(plan.threshold_delta, plan.max_groups);
  plan.work_epsilon = plan.epsilon * (1.0 - slack);
  plan.work_delta = plan.group_delta * (1.0 - slack);
  double sens = std::sqrt(L);
  if (static_cast<long double>(sens) * sens < static_cast<long double>(L))
    sens = std::nextafter(sens, std::numeric_limits<double>::infinity());
  plan.noise_scale = analytic_gaussian_sigma(plan.work_epsilon, plan.noise_delta * (1.0 - slack), sens);
  const long double sigma = plan.noise_scale;
  const long double z = boost::math::erfc_inv(2.0L * static_cast<long double>(plan.work_delta)) *
                        std::sqrt(2.0L);
  plan.threshold = round_up(1.0L + sigma * z);
  if (!(std::fabs(plan.threshold) < 0x1p52)) internal("threshold out of range");
  GaussianSelection tmp(plan);
  // The quantile is not exact: move T up until P(keep | 1) is within the slack of work_delta.
  const long double limit = static_cast<long double>(plan.work_delta) * (1.0L + slack / 4);
  for (int i = 0; tmp.compute(1).keep_ld() > limit; ++i) {
    if (i > 200) internal("could not place the Gaussian threshold");
    tmp.plan_.threshold = std::nextafter(tmp.plan_.threshold, std::numeric_limits<double>::infinity());
  }
  plan.threshold = tmp.plan_.threshold;
}

KeepProbability GaussianSelection::compute(int64_t n) const {
  const long double w = (static_cast<long double>(plan_.threshold) - static_cast<long double>(n)) /
                        static_cast<long double>(plan_.noise_scale);
  const long double r = 0.70710678118654752440084436210484903928L;  // 1/sqrt(2)
  if (w >= 0) return keep_form(0.5L * std::erfc(w * r));
  return drop_form(0.5L * std::erfc(-w * r));
}

// ---------------------------------------------------------------------------------------------
// Builder

std::unique_ptr<PartitionSelection> Builder::build() const {
  const char* range = "Pass epsilon in [1e-10, 1e9], for example 0.5.";
  if (!(std::isfinite(epsilon_) && epsilon_ > 0))
    invalid("group selection epsilon must be a finite number greater than 0", range);
  if (epsilon_ > kMaxEpsilon) invalid("group selection epsilon must be at most 1e9", range);
  if (!(delta_ > 0 && delta_ < 1))
    invalid("group selection delta must be in (0, 1)",
            "Group selection needs delta > 0: pass a small delta such as 1e-6, at least 1e-290 and "
            "below 1.");
  if (delta_ < kMinDelta)
    invalid("group selection delta must be at least 1e-290", "Pass a delta such as 1e-6.");
  if (max_groups_ < 1 || max_groups_ > kMaxGroups)
    invalid("max_groups_contributed must be an integer in [1, 1000000000]",
            "Declare how many groups one privacy unit may contribute to, for example 1 or 5.");
  if (epsilon_ / static_cast<double>(max_groups_) < kMinEpsilon)
    invalid("group selection epsilon / max_groups_contributed must be at least 1e-10",
            "Each group spends epsilon / max_groups_contributed: pass a larger epsilon or a "
            "smaller max_groups_contributed.");
  if (!(slack_ >= 0 && slack_ < 0.5)) internal("slack out of range");

  dpagg_selection_plan plan = empty_plan();
  plan.strategy = static_cast<int32_t>(strategy_);
  plan.max_groups = max_groups_;
  plan.epsilon = epsilon_;
  plan.delta = delta_;
  plan.group_epsilon = epsilon_ / static_cast<double>(max_groups_);
  plan.group_delta = group_delta_for(delta_, max_groups_);
  const double eps0 = plan.group_epsilon * (1.0 - slack_);
  const double delta0 = plan.group_delta * (1.0 - slack_);

  std::unique_ptr<PartitionSelection> sel;
  switch (strategy_) {
    case Strategy::kOptimal:
      OptimalSelection::fill(plan, eps0, delta0);
      sel.reset(new OptimalSelection(plan));
      break;
    case Strategy::kLaplace:
      LaplaceSelection::fill(plan, eps0, delta0);
      sel.reset(new LaplaceSelection(plan));
      break;
    case Strategy::kGaussian:
      GaussianSelection::fill(plan, slack_);
      sel.reset(new GaussianSelection(plan));
      break;
  }
  if (!sel) internal("unknown strategy");
  // Without the margin (tests only) the inequalities hold only up to rounding.
  if (slack_ >= kDefaultSlack) sel->self_check();
  return sel;
}

}  // namespace selection
}  // namespace dpagg
