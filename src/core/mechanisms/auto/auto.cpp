// auto.cpp — the `auto` choice (argument in auto.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "errors.h"
#include "mechanism.h"
#include "mechanisms/auto/auto.h"
#include "registry.h"

namespace dpagg {

std::string candidate_spec(const Mechanism& m, const PrivacyRequest& req, bool l1) {
  if (req.vector) return m.vector_name();  // vector releases: no objective option, always l2
  const auto opts = m.option_names();
  const bool has_objective = std::find(opts.begin(), opts.end(), kObjectiveOption.key) != opts.end();
  return std::string(m.name()) + (has_objective ? (l1 ? "(objective=l1)" : "(objective=l2)") : "");
}

std::vector<dpagg_calibration> auto_candidates(const PrivacyRequest& req, bool l1) {
  std::vector<dpagg_calibration> out;
  const auto& list = all_mechanisms();
  for (size_t i = 0; i < list.size(); ++i) {
    const Mechanism* m = list[i];
    if (!m->auto_considers(req)) continue;
    if (req.delta == 0 && !m->accepts_zero_delta()) continue;
    try {
      out.push_back(calibrate(candidate_spec(*m, req, l1), req));
    } catch (const Error& e) {
      if (e.status() == DPAGG_CANCELED) throw;  // otherwise the candidate is just not listed
    }
  }
  return out;
}

namespace {

class Auto final : public Mechanism {
 public:
  const char* name() const override { return "auto"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_AUTO; }
  const char* summary() const override {
    return "the mechanism (and parameters) with the least expected loss for this epsilon, delta "
           "and sensitivity; objective l2 (default, from dpagg.objective) or l1";
  }
  const char* guarantee() const override { return "that of the chosen mechanism"; }
  bool accepts_zero_delta() const override { return true; }
  bool auto_candidate() const override { return false; }
  std::vector<std::string> option_names() const override {
    return {kObjectiveOption.key, kAccountingOption.key};
  }
  std::vector<std::string> param_names() const override { return {}; }
  // Among the mechanisms that serve the request, whatever its dimension.
  const char* vector_name() const override { return "auto"; }
  bool serves(const PrivacyRequest&) const override { return true; }

  void validate(const PrivacyRequest& req, const Options& options) const override {
    if (objective_is_l1(options, "auto") && req.vector)
      invalid("a vector release minimises the expected squared error",
              "Write auto: for vectors the objective is E ||X||^2.");
  }
  void calibrate(const PrivacyRequest& req, const Options& options,
                 dpagg_calibration& cal) const override {
    // For vectors the loss is E ||X||_2^2 (cal.l2).
    const bool l1 = !req.vector && objective_is_l1(options, "auto");
    if (accounting_is_zcdp(options, "auto")) {
      calibrate_for_zcdp(req, l1, cal);
      return;
    }
    auto loss = [&](const dpagg_calibration& c) { return l1 ? c.l1 : c.l2; };
    // Mechanisms are tried in registry order (the cheap ones first); one that offers a cheap
    // estimate of its loss is calibrated only if that estimate beats the best so far.  The
    // estimate is the uncertified search-phase loss, normally a little below the certified one;
    // if it ever were above, a near-tie could go to the other mechanism (privacy is unaffected).
    dpagg_calibration best_cal;
    bool have = false;
    for (const Mechanism* m : all_mechanisms()) {
      if (!m->auto_considers(req) || (req.delta == 0 && !m->accepts_zero_delta())) continue;
      if (have) {
        double est = m->estimate_loss(req, Options{}, l1);
        if (!std::isnan(est) && est >= loss(best_cal)) continue;
      }
      dpagg_calibration c;
      try {
        c = dpagg::calibrate(candidate_spec(*m, req, l1), req);
      } catch (const Error& e) {
        // A candidate that refuses (or fails on) this request is skipped: the others are still
        // valid choices.  A cancel is not a failure of the candidate.
        if (e.status() == DPAGG_CANCELED) throw;
        continue;
      }
      if (!have || loss(c) < loss(best_cal)) {
        best_cal = c;
        have = true;
      }
    }
    if (!have)
      invalid("no mechanism accepts this epsilon and delta", "See dp_mechanisms().");
    char requested[DPAGG_MECH_SPEC_LEN];
    std::memcpy(requested, cal.requested, sizeof(requested));
    cal = best_cal;
    std::memcpy(cal.requested, requested, sizeof(requested));
  }

  double sample(const dpagg_calibration&, RandomSource&) const override {
    throw Error(DPAGG_INTERNAL, "auto has no noise of its own");
  }

 private:
  // Under zcdp accounting (docs/guides/budgets.md, "Budgets"; core/accounting.h) a release is
  // charged its rho when its mechanism is rho-zCDP with rho <= epsilon^2 / 2, and otherwise
  // epsilon^2 / 2 plus the delta it uses, taken from the budget's delta for approximate releases.
  // Among the candidates charged no such delta, auto takes the least expected loss per unit of
  // rho charged: E[X^2] * rho (E|X|^2 * rho for the l1 objective), which is invariant under
  // rescaling a Gaussian's sigma, so it compares mechanisms as if each were given the same
  // charge.  A Gaussian scores Delta^2 / 2, Laplace Delta^2: so a zcdp budget gets a Gaussian
  // where basic accounting would take Laplace or the staircase (which zcdp charges epsilon^2 / 2
  // and their delta).  Without delta no Gaussian serves; the pure mechanisms, charged
  // epsilon^2 / 2 alike, then compete on their loss.  If every candidate uses delta, the least
  // loss is taken, as under basic accounting.
  void calibrate_for_zcdp(const PrivacyRequest& req, bool l1, dpagg_calibration& cal) const {
    const double half_eps2 = req.epsilon * req.epsilon / 2;
    struct Free {
      dpagg_calibration cal;
      double score, loss;
    };
    std::vector<Free> free;
    dpagg_calibration best_free, best_any;
    double free_score = 0, any_loss = 0;
    bool have_free = false, have_any = false;
    for (const Mechanism* m : all_mechanisms()) {
      if (!m->auto_considers(req) || (req.delta == 0 && !m->accepts_zero_delta())) continue;
      dpagg_calibration c;
      try {
        c = dpagg::calibrate(candidate_spec(*m, req, l1), req);
      } catch (const Error& e) {
        if (e.status() == DPAGG_CANCELED) throw;
        continue;
      }
      const double loss = l1 ? c.l1 : c.l2;
      const double rho = m->zcdp_rho(c);
      const bool uses_delta = c.delta_bound != 0.0;
      const bool charged_rho = !std::isnan(rho) && rho <= half_eps2;
      if (!have_any || loss < any_loss) {
        best_any = c;
        any_loss = loss;
        have_any = true;
      }
      if (!charged_rho && uses_delta) continue;  // would spend the budget's delta too
      const double score = (l1 ? loss * loss : loss) * (charged_rho ? rho : half_eps2);
      if (!std::isfinite(score)) continue;
      free.push_back({c, score, loss});
    }
    // Every Gaussian scores Delta^2 / 2: among the candidates that tie with the best score (to a
    // relative 1e-9), the least loss at the requested epsilon (the analytic Gaussian, not the
    // looser Gaussian rules), which is what the analyst sees.
    for (const auto& f : free)
      if (!have_free || f.score < free_score) {
        free_score = f.score;
        have_free = true;
      }
    double free_loss = 0;
    bool picked = false;
    for (const auto& f : free)
      if (f.score <= free_score * (1 + 1e-9) && (!picked || f.loss < free_loss)) {
        best_free = f.cal;
        free_loss = f.loss;
        picked = true;
      }
    if (!have_any)
      invalid("no mechanism accepts this epsilon and delta", "See dp_mechanisms().");
    char requested[DPAGG_MECH_SPEC_LEN];
    std::memcpy(requested, cal.requested, sizeof(requested));
    cal = have_free && picked ? best_free : best_any;
    std::memcpy(cal.requested, requested, sizeof(requested));
  }
};

}  // namespace

const Mechanism& auto_mechanism() {
  static const Auto m;
  return m;
}

}  // namespace dpagg
