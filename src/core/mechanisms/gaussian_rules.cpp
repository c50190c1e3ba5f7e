// Gaussian noise N(0, sigma^2) under two calibration rules.  One distribution, so one sampler;
// the rules differ only in how sigma is chosen.
//
// analytic_gaussian — Balle & Wang (2018), "Improving the Gaussian mechanism": the smallest sigma
//   with delta_G(sigma) <= delta, where delta_G is the exact privacy profile of gaussian.h (seed 001
//   calls it DP-OPT).  Exact for every eps > 0, 0 < delta < 1.  Solved by TOMS 748 in log sigma to
//   1e-12 relative against a certified upper bound of delta_G (rounding error included), then the
//   returned double is re-checked, so the answer is always on the feasible side.
//
// classic_gaussian — Dwork & Roth (2014), Thm A.1: sigma = sqrt(2 ln(1.25/delta)) D / eps, proved
//   only for eps < 1 (and not private for large eps: seed 001, Thm 1).  dpagg accepts eps <= 1 and
//   re-checks the result against delta_G, refusing it if the check fails.
//
// Loss: E|X| = sigma sqrt(2/pi), E[X^2] = sigma^2.
#include <cmath>

#include "../errors.h"
#include "../gaussian.h"
#include "../mechanism.h"

namespace dpagg {
namespace {

class GaussianRule : public Mechanism {
 public:
  std::vector<std::string> param_names() const override { return {"sigma"}; }
  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    return cal.scale * sample_standard_normal(rng);
  }
  // N(0, sigma^2) on sensitivity D is rho-zCDP with rho = D^2/(2 sigma^2) (Bun & Steinke 2016).
  double zcdp_rho(const dpagg_calibration& cal) const override {
    return cal.sensitivity * cal.sensitivity / (2 * cal.scale * cal.scale);
  }

 protected:
  static void finish(double sigma, const PrivacyRequest& req, dpagg_calibration& cal) {
    cal.scale = sigma;
    cal.nparams = 1;
    cal.params[0] = sigma;
    cal.l1 = sigma * 0.79788456080286535588;  // sqrt(2/pi)
    cal.l2 = sigma * sigma;
    cal.delta_bound = gaussian_profile(sigma, req.epsilon, req.sensitivity).upper;
  }
};

class AnalyticGaussian final : public GaussianRule {
 public:
  const char* name() const override { return "analytic_gaussian"; }
  const char* summary() const override {
    return "Gaussian noise with the exact (Balle-Wang) calibration: the least sigma that is "
           "(epsilon, delta)-DP, for any epsilon > 0";
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    finish(analytic_gaussian_sigma(req.epsilon, req.delta, req.sensitivity), req, cal);
  }
};

class ClassicGaussian final : public GaussianRule {
 public:
  const char* name() const override { return "classic_gaussian"; }
  const char* summary() const override {
    return "Gaussian noise with sigma = sqrt(2 ln(1.25/delta)) sensitivity/epsilon "
           "(Dwork-Roth); only for epsilon <= 1";
  }
  void validate(const PrivacyRequest& req, const Options&) const override {
    if (req.epsilon > 1.0)
      invalid("classic_gaussian is not private for epsilon > 1",
              "Use epsilon <= 1, or the analytic_gaussian mechanism, which is exact for any epsilon.");
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    double sigma = std::sqrt(2.0 * std::log(1.25 / req.delta)) * req.sensitivity / req.epsilon;
    if (gaussian_profile(sigma, req.epsilon, req.sensitivity).upper > req.delta)
      invalid("classic_gaussian is not private at this epsilon and delta",
              "Use the analytic_gaussian mechanism.");
    finish(sigma, req, cal);
  }
};

}  // namespace

const Mechanism& analytic_gaussian_mechanism() {
  static const AnalyticGaussian m;
  return m;
}
const Mechanism& classic_gaussian_mechanism() {
  static const ClassicGaussian m;
  return m;
}

}  // namespace dpagg
