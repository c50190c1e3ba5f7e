// auto — not a noise distribution of its own: the calibrated mechanism with the least expected
// loss, among every mechanism dpagg implements, for this epsilon, delta and sensitivity.
//
// The objective is the expected squared error (l2, the default) or the expected absolute error
// (l1), chosen by the option objective=l1|l2 (the PostgreSQL glue fills it from the GUC
// dpagg.objective).  Each candidate is calibrated with its own certified calibration; a candidate
// that refuses the request (e.g. classic_gaussian for epsilon > 1) is skipped.  The choice depends
// only on public values (epsilon, delta, sensitivity, objective), so it reveals nothing.
// Privacy: that of the chosen mechanism, whose calibration is returned unchanged.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "../auto.h"
#include "../errors.h"
#include "../mechanism.h"
#include "../registry.h"

namespace dpagg {

std::vector<dpagg_calibration> auto_candidates(const PrivacyRequest& req) {
  std::vector<dpagg_calibration> out;
  const auto& list = all_mechanisms();
  for (size_t i = 0; i < list.size(); ++i) {
    const Mechanism* m = list[i];
    if (!m->auto_candidate()) continue;
    if (req.delta == 0 && !m->accepts_zero_delta()) continue;
    try {
      out.push_back(calibrate(m->name(), req));
    } catch (const Error& e) {
      if (e.status() != DPAGG_INVALID_PARAMETER) throw;  // a real failure is not skipped
    }
  }
  return out;
}

namespace {

bool objective_is_l1(const Options& options) {
  auto it = options.find("objective");
  if (it == options.end() || it->second == "l2") return false;
  if (it->second == "l1") return true;
  invalid("objective of auto must be l1 or l2", "Write auto(objective=l1) or auto(objective=l2).");
}

class Auto final : public Mechanism {
 public:
  const char* name() const override { return "auto"; }
  const char* summary() const override {
    return "the mechanism (and parameters) with the least expected loss for this epsilon, delta "
           "and sensitivity; objective l2 (default, from dpagg.objective) or l1";
  }
  const char* guarantee() const override { return "that of the chosen mechanism"; }
  bool accepts_zero_delta() const override { return true; }
  bool auto_candidate() const override { return false; }
  std::vector<std::string> option_names() const override { return {"objective"}; }
  std::vector<std::string> param_names() const override { return {}; }

  void calibrate(const PrivacyRequest& req, const Options& options,
                 dpagg_calibration& cal) const override {
    const bool l1 = objective_is_l1(options);
    const dpagg_calibration* best = nullptr;
    std::vector<dpagg_calibration> cands = auto_candidates(req);
    for (const auto& c : cands) {
      double v = l1 ? c.l1 : c.l2;
      if (best == nullptr || v < (l1 ? best->l1 : best->l2)) best = &c;
    }
    if (best == nullptr)
      invalid("no mechanism accepts this epsilon and delta", "See dp_mechanisms().");
    char requested[DPAGG_MECH_SPEC_LEN];
    std::memcpy(requested, cal.requested, sizeof(requested));
    cal = *best;
    std::memcpy(cal.requested, requested, sizeof(requested));
  }

  double sample(const dpagg_calibration&, RandomSource&) const override {
    throw Error(DPAGG_INTERNAL, "auto has no noise of its own");
  }
};

}  // namespace

const Mechanism& auto_mechanism() {
  static const Auto m;
  return m;
}

}  // namespace dpagg
