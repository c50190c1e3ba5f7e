// laplace — noise with density exp(-|x|/b) / (2b).
//
// Privacy.  For a shift D (the sensitivity) the privacy profile of Laplace noise is
//     delta(eps) = max{0, 1 - exp((eps - D/b)/2)}
// (docs/generalized_gaussian.md §5, derived from the generalized Gaussian at p = 1, checked by
// quadrature; vector D1 there).  Hence:
//   delta = 0:  b = D/eps, the classic pure eps-DP mechanism (Dwork et al. 2006);
//   delta > 0:  b = D / (eps - 2 ln(1 - delta))  (vector D2), a little less noise.
// Conservative: b is computed in floating point, multiplied by (1 + 2^-40), and the profile is
// re-evaluated at the returned b with a rounding margin; delta_bound reports that bound.
//
// Loss: E|X| = b, E[X^2] = 2 b^2.
#include <algorithm>
#include <cmath>

#include "../errors.h"
#include "../mechanism.h"

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
