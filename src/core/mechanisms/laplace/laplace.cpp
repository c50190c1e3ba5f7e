// laplace.cpp — the Laplace mechanism (privacy argument in laplace.h): calibration of b with a
// certified profile bound, sampler, losses.
#include <algorithm>
#include <cmath>
#include <limits>

#include "errors.h"
#include "mechanisms/laplace/laplace.h"

namespace dpagg {
namespace {

// Upper bound on the Laplace profile at eps for scale b, with rounding margin.
double laplace_profile_bound(double b, double epsilon, double sensitivity) {
  double exponent = (epsilon - sensitivity / b) / 2.0;
  // Rounding in the exponent is below a few ulps of (epsilon + D/b): charge 1e-15 of it, which
  // moves 1 - e^x by at most that much times e^x.
  double slack = 1e-15 * (epsilon + sensitivity / b);
  if (exponent >= slack) return 0.0;  // b >= D/eps even after rounding: pure eps-DP
  return std::max(0.0, -std::expm1(exponent)) + slack * std::exp(std::min(exponent + slack, 0.0)) + 1e-300;
}

class Laplace final : public Mechanism {
 public:
  const char* name() const override { return "laplace"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_LAPLACE; }
  const char* summary() const override {
    return "Laplace noise, scale b = sensitivity/epsilon (pure DP) when delta = 0, "
           "b = sensitivity/(epsilon - 2 ln(1 - delta)) when delta > 0";
  }
  const char* guarantee() const override { return "epsilon-DP when delta = 0, else (epsilon, delta)-DP"; }
  bool accepts_zero_delta() const override { return true; }
  std::vector<std::string> param_names() const override { return {"b"}; }

  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    double denom = req.epsilon - 2.0 * std::log1p(-req.delta);
    double b = req.sensitivity / denom * (1.0 + 0x1p-40);
    double bound = laplace_profile_bound(b, req.epsilon, req.sensitivity);
    if (bound > req.delta) throw Error(DPAGG_INTERNAL, "laplace: certificate check failed");
    cal.scale = b;
    cal.nparams = 1;
    cal.params[0] = b;
    cal.l1 = b;
    cal.l2 = 2.0 * b * b;
    cal.delta_bound = bound;
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    return sample_laplace(cal.scale, rng);
  }
  // P(|X| > w) = exp(-w / b), raised by 2^-40 relative for exp's rounding, plus the least normal
  // double so that an underflowed exp far out is still an upper bound.
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    return std::min(1.0, std::exp(-w / cal.scale) * (1 + 0x1p-40) + std::numeric_limits<double>::min());
  }

  // Laplace(b) is (D/b)-DP, and eps-DP implies (eps^2/2)-zCDP (Bun & Steinke 2016, Prop. 3.3).
  double zcdp_rho(const dpagg_calibration& cal) const override {
    double e = cal.sensitivity / cal.scale;
    return e * e / 2;
  }
};

}  // namespace

const Mechanism& laplace_mechanism() {
  static const Laplace m;
  return m;
}

}  // namespace dpagg
