// multi_gaussian — the multi-Gaussian mixture of Liu, Selvi & Wiesemann, "Mind the Gap: Mixtures
// of Gaussians in Approximate Differential Privacy" (ICML 2026, Def. 3.1; docs/mixtures.md §2):
// 2K+1 Gaussians N(k D, s^2), k = -K..K, with weights proportional to e^{-|k| eps}.
//
// Privacy.  Additive noise with a symmetric density is (eps, delta)-DP iff for every shift phi in
// [0, D] the hockey-stick divergence delta(phi) = integral (f(x - phi) - e^eps f(x))_+ is <= delta
// (Lemma B.1).  dpagg does not use the paper's Theorem 3.2 grid (which its public code caps at 2000
// shifts, and which needs ~1e12 shifts at delta = 1e-10).  Instead (multi_gaussian.cpp):
//   1. search: the sigma where a fast trapezoid approximation of sup_phi delta(phi) equals delta
//      (not a proof);
//   2. certify sigma = search * (1 + tau), tau = 0.2% (doubled on failure): a branch and bound over
//      shift intervals [a, b] covering [0, 1], each accepted only if a rigorous upper bound of
//      sup over [a, b] of delta(phi) is <= delta (1 - 1e-9): from lattice-aligned tables with a
//      second-order interpolation bound between grid shifts, and the envelope integral for
//      whatever the tables leave (both in docs/multi_gaussian_certificate.md).
//      The bounds account for the tails, the curvature between evaluation points, and rounding.
// For an integer-valued query (COUNT, SUM of integers with integer bounds) only the shifts
// m = 1..D occur, and only those are certified (the mixture then approaches a discrete Laplace).
// Every sigma >= a certified one is also private (Lemma 3.4; docs/mixtures.md §1.3).
//
// zCDP: rho = D^2/(2 s^2) for any K (Corollary 3.7).
// Loss (App. B.2): E|X| = sum_k w_k [s sqrt(2/pi) e^{-k^2 D^2/2s^2} + |k| D erf(|k| D/(s sqrt 2))],
// E[X^2] = s^2 + D^2 sum_k w_k k^2.
//
// Options: k = 1..40 fixes the modality; without it the K with the least expected loss (objective
// l1 or l2, default l2) among a ladder of K values is chosen by the search, then certified.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../errors.h"
#include "../mechanism.h"
#include "../multi_gaussian.h"

namespace dpagg {
namespace {

constexpr int kMaxK = 40;
// Integer-valued queries with a larger sensitivity are certified over all shifts (the integer
// shifts are then dense and certifying them one by one would cost more than it saves).
constexpr int kMaxIntegerShifts = 64;

int parse_k(const Options& options) {
  auto it = options.find("k");
  if (it == options.end()) return 0;
  char* end = nullptr;
  long k = std::strtol(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || k < 1 || k > kMaxK)
    invalid("option k of multi_gaussian must be an integer from 1 to 40",
            "Write multi_gaussian(k=12), or multi_gaussian to choose K automatically.");
  return static_cast<int>(k);
}

bool objective_l1(const Options& options) {
  auto it = options.find("objective");
  if (it == options.end() || it->second == "l2") return false;
  if (it->second == "l1") return true;
  invalid("objective of multi_gaussian must be l1 or l2", "Write multi_gaussian(objective=l1).");
}

// The K with the least estimated loss (search phase, not certified).  The loss is not smooth in K:
// while the outermost weight e^{-K eps}/S exceeds about delta the tail binds and sigma stays large;
// at the K where it stops binding sigma collapses and the loss drops sharply, after which it grows
// slowly with K (the discrete part's variance).  So every K is tried, from 1 up to
// K_sat ~ ln(1/delta)/eps + 2 (beyond it the tail never binds) and at most 40; once sigma has
// collapsed (below 1/sqrt(2 eps), the adjacent-peak regime) the scan stops after the loss has
// grown three K in a row.
// Each K's search starts from the previous K's sigma (sigma changes little from one K to the next,
// except where it collapses) and stops at 2e-4 in log sigma: enough to compare losses (a near-tie
// may go either way; only utility, by less than 0.05%, is at stake).  `sigma_out`: the search sigma of
// the chosen K, a hint for its calibration.
int best_k(const PrivacyRequest& req, int shifts, bool l1, int k_cap, double* best_loss,
           double* sigma_out = nullptr) {
  // One-entry memo: auto asks for the estimate, then calibrates the same request.
  struct Memo {
    double eps = -1, delta = -1, sens = -1;
    int shifts = -1, k_cap = -1;
    bool l1 = false;
    int K = 0;
    double loss = 0, sigma = 0;
  };
  static thread_local Memo memo;
  if (memo.eps == req.epsilon && memo.delta == req.delta && memo.sens == req.sensitivity &&
      memo.shifts == shifts && memo.k_cap == k_cap && memo.l1 == l1) {
    if (best_loss) *best_loss = memo.loss;
    if (sigma_out) *sigma_out = memo.sigma;
    return memo.K;
  }
  const double k_sat = std::ceil(std::log(1 / req.delta) / req.epsilon) + 2;
  double best = INFINITY, prev = INFINITY, s = 0, best_s = 0;
  int K = 1, rising = 0;
  for (int k = 1; k <= k_cap; ++k) {
    s = multi_gaussian_search_sigma(req.epsilon, req.delta, k, shifts, s, 2e-4);
    GaussLattice g(req.epsilon, k, s);
    double loss = (l1 ? g.l1() : g.l2()) * (l1 ? req.sensitivity : req.sensitivity * req.sensitivity);
    if (loss < best * (1 - 1e-6)) {
      best = loss;
      K = k;
      best_s = s;
    }
    rising = (loss > prev) ? rising + 1 : 0;
    prev = loss;
    const bool collapsed = s < 1 / std::sqrt(2 * req.epsilon);
    if (k > k_sat || (collapsed && k > K && rising >= 3)) break;
  }
  memo = Memo{req.epsilon, req.delta, req.sensitivity, shifts, k_cap, l1, K, best, best_s};
  if (best_loss) *best_loss = best;
  if (sigma_out) *sigma_out = best_s;
  return K;
}

class MultiGaussian final : public Mechanism {
 public:
  // The search-phase loss of the best K: a cheap estimate, slightly below the certified loss.
  double estimate_loss(const PrivacyRequest& req, const Options& options, bool l1) const override {
    if (req.epsilon > 500 || req.epsilon < 0.01) return NAN;
    const int fixed_k = parse_k(options);
    const int shifts = (req.integer_valued && req.sensitivity <= kMaxIntegerShifts)
                           ? static_cast<int>(req.sensitivity) : 0;
    const int k_cap = std::max(1, std::min(kMaxK, static_cast<int>(700 / req.epsilon)));
    if (fixed_k > 0) {
      double s = multi_gaussian_search_sigma(req.epsilon, req.delta, std::min(fixed_k, k_cap), shifts);
      GaussLattice g(req.epsilon, std::min(fixed_k, k_cap), s);
      return l1 ? g.l1() * req.sensitivity : g.l2() * req.sensitivity * req.sensitivity;
    }
    double best = NAN;
    best_k(req, shifts, l1, k_cap, &best);
    return best;
  }

  const char* name() const override { return "multi_gaussian"; }
  const char* summary() const override {
    return "multi-Gaussian mixture (Liu-Selvi-Wiesemann): 2K+1 Gaussians at multiples of the "
           "sensitivity, weights e^(-|k| epsilon); certified over every shift; option k=1..40";
  }
  std::vector<std::string> option_names() const override { return {"k", "objective"}; }
  std::vector<std::string> param_names() const override {
    return {"sigma", "K", "search_sigma", "certified_intervals"};
  }

  void validate(const PrivacyRequest& req, const Options& options) const override {
    // Beyond these the certificate's bounds overflow (e^eps c0/sigma^4) or its grids explode.
    if (req.epsilon > 500 || req.epsilon < 0.01)
      invalid("multi_gaussian supports epsilon from 0.01 to 500", "Use laplace or analytic_gaussian.");
    parse_k(options);
    objective_l1(options);
  }
  void calibrate(const PrivacyRequest& req, const Options& options, dpagg_calibration& cal) const override {
    const int fixed_k = parse_k(options);
    const bool l1 = objective_l1(options);
    const double D = req.sensitivity;
    const int shifts = (req.integer_valued && D <= kMaxIntegerShifts) ? static_cast<int>(D) : 0;
    // Components beyond |k| eps > 700 weigh below e^-700: no K beyond that changes anything.
    const int k_cap = std::max(1, std::min(kMaxK, static_cast<int>(700 / req.epsilon)));
    int K = std::min(fixed_k, k_cap);
    double hint = 0;
    if (fixed_k == 0) K = best_k(req, shifts, l1, k_cap, nullptr, &hint);
    MultiGaussianResult r = multi_gaussian_calibrate(req.epsilon, req.delta, K, shifts, hint);
    GaussLattice g(req.epsilon, K, r.sigma);
    cal.scale = r.sigma * D;
    cal.modality = K;
    cal.nparams = 4;
    cal.params[0] = r.sigma * D;
    cal.params[1] = K;
    cal.params[2] = r.search_sigma * D;
    cal.params[3] = r.intervals;
    cal.l1 = g.l1() * D;
    cal.l2 = g.l2() * D * D;
    cal.delta_bound = req.delta;  // every certified interval's bound is <= delta (1 - 1e-9)
    std::snprintf(cal.spec, sizeof(cal.spec), "multi_gaussian(k=%d)", K);
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    const int K = cal.modality;
    const double eps = cal.epsilon;
    // |k| = j with probability proportional to 1 (j = 0) or 2 e^{-j eps}: invert the tail sums,
    // computed from the far end so that small probabilities keep their relative accuracy.  The
    // table depends on (K, eps) only: kept for the last pair seen, since a GROUP BY draws from
    // the same calibration for every group (K calls of exp per draw were a tenth of dp_avg's time
    // over a million groups).  Recomputed exactly as before, so the draws are unchanged.
    struct TailTable {
      int K = -1;
      double eps = 0;
      double tail[kMaxK + 2];
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
    return k * cal.sensitivity + cal.scale * sample_standard_normal(rng);
  }

  double zcdp_rho(const dpagg_calibration& cal) const override {
    return cal.sensitivity * cal.sensitivity / (2 * cal.scale * cal.scale);
  }
};

}  // namespace

const Mechanism& multi_gaussian_mechanism() {
  static const MultiGaussian m;
  return m;
}

}  // namespace dpagg
