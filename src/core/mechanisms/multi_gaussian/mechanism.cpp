// mechanism.cpp — the multi-Gaussian as a registered Mechanism (multi_gaussian.h has the privacy
// argument): reads the options, picks K (the best-K scan of search.cpp unless k is given),
// calibrates and certifies sigma (multi_gaussian_calibrate), fills the calibration record, and
// draws through sampler.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "errors.h"
#include "mechanisms/multi_gaussian/multi_gaussian.h"

namespace dpagg {
namespace {

// Integer-valued queries with a larger sensitivity are certified over all shifts (the integer
// shifts are then dense and certifying them one by one would cost more than it saves).
constexpr int kMaxIntegerShifts = 64;

constexpr const char* kName = "multi_gaussian";

// k fixes the modality; absent (0), the best-K scan chooses it.
const IntOption kK{"k", 1, kMultiGaussianMaxK, 0, "12", "without k, K is chosen automatically"};

class MultiGaussian final : public Mechanism {
 public:
  // The search-phase loss of the best K: a cheap estimate, slightly below the certified loss.
  double estimate_loss(const PrivacyRequest& req, const Options& options, bool l1) const override {
    if (req.epsilon > 500 || req.epsilon < 0.01) return NAN;
    const int fixed_k = read_option(options, kName, kK);
    const int shifts = (req.integer_valued && req.sensitivity <= kMaxIntegerShifts)
                           ? static_cast<int>(req.sensitivity) : 0;
    const int k_cap = std::max(1, std::min(kMultiGaussianMaxK, static_cast<int>(700 / req.epsilon)));
    if (fixed_k > 0) {
      double s = multi_gaussian_search_sigma(req.epsilon, req.delta, std::min(fixed_k, k_cap), shifts);
      GaussLattice g(req.epsilon, std::min(fixed_k, k_cap), s);
      return l1 ? g.l1() * req.sensitivity : g.l2() * req.sensitivity * req.sensitivity;
    }
    double best = NAN;
    multi_gaussian_best_k(req, shifts, l1, k_cap, &best);
    return best;
  }

  const char* name() const override { return kName; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_MULTI_GAUSSIAN; }
  const char* summary() const override {
    return "multi-Gaussian mixture (Liu-Selvi-Wiesemann): 2K+1 Gaussians at multiples of the "
           "sensitivity, weights e^(-|k| epsilon); certified over every shift; option k=1..40";
  }
  std::vector<std::string> option_names() const override { return {kK.key, kObjectiveOption.key}; }
  std::vector<std::string> param_names() const override {
    return {"sigma", "K", "search_sigma", "certified_intervals"};
  }

  void validate(const PrivacyRequest& req, const Options& options) const override {
    // Beyond these the certificate's bounds overflow (e^eps c0/sigma^4) or its grids explode.
    if (req.epsilon > 500 || req.epsilon < 0.01)
      invalid("multi_gaussian supports epsilon from 0.01 to 500", "Use laplace or analytic_gaussian.");
    read_option(options, kName, kK);
    objective_is_l1(options, kName);
  }
  void calibrate(const PrivacyRequest& req, const Options& options, dpagg_calibration& cal) const override {
    const int fixed_k = read_option(options, kName, kK);
    const bool l1 = objective_is_l1(options, kName);
    const double D = req.sensitivity;
    const int shifts = (req.integer_valued && D <= kMaxIntegerShifts) ? static_cast<int>(D) : 0;
    // Components beyond |k| eps > 700 weigh below e^-700: no K beyond that changes anything.
    const int k_cap = std::max(1, std::min(kMultiGaussianMaxK, static_cast<int>(700 / req.epsilon)));
    int K = std::min(fixed_k, k_cap);
    double hint = 0;
    if (fixed_k == 0) K = multi_gaussian_best_k(req, shifts, l1, k_cap, nullptr, &hint);
    MultiGaussianResult r = multi_gaussian_calibrate(req.epsilon, req.delta, K, shifts, hint);
    GaussLattice g(req.epsilon, K, r.sigma);
    cal.scale = r.sigma * D;
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
    return multi_gaussian_sample(multi_gaussian_k(cal), cal.epsilon, cal.sensitivity, cal.scale, rng);
  }
  // The tail of the law sample() draws (sampler.cpp): an upper bound on P(|X| > w).
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    return multi_gaussian_tail(multi_gaussian_k(cal), cal.epsilon, cal.sensitivity, cal.scale, w);
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
