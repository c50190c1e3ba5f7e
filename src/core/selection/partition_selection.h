// partition_selection.h — private group (partition) selection: is a group whose key comes from
// the data released, given its number n of distinct privacy units?  Each unit contributes to at
// most L groups; the whole selection is (epsilon, delta)-DP per unit.
//
// Three strategies, each a small class built by a validating Builder and summarised by the
// plain-data dpagg_selection_plan (dpagg_selection.h):
//  * OptimalSelection — the mechanism of Desfontaines, Voss, Gipson & Mandayam, "Differentially
//    private partition selection" (PoPETs 2022), Theorem 1: the largest keep probability pi(n)
//    allowed by (eps', delta')-DP for one unit per group, run per group with
//    eps' = eps / L and delta' = 1 - (1 - delta)^(1/L).
//  * LaplaceSelection — keep iff n + Laplace(1/eps') >= T with P(keep | n = 1) = delta'.
//  * GaussianSelection — keep iff n + N(0, sigma^2) >= T: sigma is the analytic Gaussian sigma for
//    (eps, delta/2) at l2 sensitivity sqrt(L); T gives P(keep | n = 1) = 1 - (1 - delta/2)^(1/L).
// Proofs, composition across the L groups and numerics: docs/partition_selection.md.
//
// Every decision is one Bernoulli draw: keep iff U < p (or, for p > 1/2, drop iff U < 1 - p), with
// U from RandomSource::uniform_open01(), which is a uniform real rounded down to a double, so the
// probability of keeping is exactly the double that keep_probability() returns (down to 2^-1000).
// No noise is sampled: a noisy threshold test only ever releases one bit, whose law is this one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dpagg_selection.h"
#include "random.h"

namespace dpagg {
namespace selection {

enum class Strategy { kOptimal = DPAGG_SELECT_OPTIMAL, kLaplace = DPAGG_SELECT_LAPLACE,
                      kGaussian = DPAGG_SELECT_GAUSSIAN };

Strategy parse_strategy(const std::string& name);  // throws dpagg::Error (invalid) if unknown
const char* strategy_name(Strategy s);

// The keep probability of one group, represented so that it is exact: keep with probability
// `value`, or (complement) drop with probability `value`.  `certain`: kept with probability 1.
struct KeepProbability {
  double value = 0.0;
  bool complement = false;
  bool certain = false;
  // Nearest double to the keep probability (display only).
  double keep() const;
  // The keep probability in long double (exact: value or 1 - value is exact in 64 bits for the
  // values that matter, see docs/partition_selection.md).
  long double keep_ld() const;
  long double drop_ld() const;
};

// The smallest probability any decision uses: below it, keep (or drop) probabilities are raised
// to it on the drop side, so that P(U < v) = v holds exactly.  2^-1000 < 1e-299 <= group delta.
constexpr double kMinProbability = 0x1p-1000;
// The relative margin by which (eps, delta) are reduced before computing probabilities.
constexpr double kDefaultSlack = 0x1p-12;

class PartitionSelection {
 public:
  virtual ~PartitionSelection() = default;

  const dpagg_selection_plan& plan() const { return plan_; }
  Strategy strategy() const { return static_cast<Strategy>(plan_.strategy); }

  // n_units >= 0; n = 0 is never kept (a group without units does not exist).
  KeepProbability keep_probability(int64_t n_units) const;
  double probability(int64_t n_units) const { return keep_probability(n_units).keep(); }
  // The decision for a uniform draw u in (0, 1) (from uniform_open01()).
  bool decide(int64_t n_units, double u) const;
  // One fresh draw from `rng`.
  bool keep(int64_t n_units, RandomSource& rng) const;
  // Smallest n >= 1 whose keep probability is >= p (p in (0, 1]); -1 if none.
  int64_t min_units(double p) const;
  std::string describe_json() const;

  // Rebuild from a plan produced by a Builder (e.g. cached by the glue).  Checks the plan's
  // consistency and throws dpagg::Error(DPAGG_INTERNAL) if it was not.
  static std::unique_ptr<PartitionSelection> from_plan(const dpagg_selection_plan& plan);

 protected:
  friend class Builder;
  explicit PartitionSelection(const dpagg_selection_plan& plan) : plan_(plan) {}
  // n >= 1.
  virtual KeepProbability compute(int64_t n_units) const = 0;
  // Throws DPAGG_INTERNAL if the per-group inequalities fail at a few n where rounding matters
  // most (a tripwire; the argument is in the docs and the tests check a grid).
  void self_check() const;

  dpagg_selection_plan plan_;
};

class OptimalSelection final : public PartitionSelection {
 public:
  explicit OptimalSelection(const dpagg_selection_plan& plan);
  // Plan fields for working parameters (eps0, delta0) per group.
  static void fill(dpagg_selection_plan& plan, double eps0, double delta0);

 protected:
  KeepProbability compute(int64_t n_units) const override;

 private:
  KeepProbability regime1(int64_t n) const;           // closed form, 1 <= n <= crossover - 2
  KeepProbability step(const KeepProbability& prev) const;  // one step of the recurrence
  KeepProbability walk(int64_t n) const;              // value at n <= crossover + 1
  KeepProbability tail(int64_t m) const;              // anchor + m steps, m >= 1, closed form
  long double tail_exponent() const;                  // A of the closed form
};

class LaplaceSelection final : public PartitionSelection {
 public:
  explicit LaplaceSelection(const dpagg_selection_plan& plan) : PartitionSelection(plan) {}
  static void fill(dpagg_selection_plan& plan, double eps0, double delta0);

 protected:
  KeepProbability compute(int64_t n_units) const override;
};

class GaussianSelection final : public PartitionSelection {
 public:
  explicit GaussianSelection(const dpagg_selection_plan& plan) : PartitionSelection(plan) {}
  static void fill(dpagg_selection_plan& plan, double slack);

 protected:
  KeepProbability compute(int64_t n_units) const override;
};

class Builder {
 public:
  Builder& strategy(Strategy s) { strategy_ = s; return *this; }
  Builder& epsilon(double e) { epsilon_ = e; return *this; }
  Builder& delta(double d) { delta_ = d; return *this; }
  Builder& max_groups(int64_t l) { max_groups_ = l; return *this; }
  // Tests only: the relative margin taken off (eps, delta); 0 computes the probabilities for
  // the requested parameters exactly as given (and skips the self-check, which then holds only
  // up to rounding).  The C interface always uses kDefaultSlack.
  Builder& unsafe_slack(double s) { slack_ = s; return *this; }

  // Validates (dpagg::invalid with a hint naming the valid range) and prepares.
  std::unique_ptr<PartitionSelection> build() const;
  dpagg_selection_plan build_plan() const { return build()->plan(); }

 private:
  Strategy strategy_ = Strategy::kOptimal;
  double epsilon_ = 0.0, delta_ = 0.0;
  int64_t max_groups_ = 1;
  double slack_ = kDefaultSlack;
};

// Per-group delta for L groups: the largest d (rounded down) with 1 - (1 - d)^L <= delta.
double group_delta_for(double delta, int64_t max_groups);

}  // namespace selection
}  // namespace dpagg
