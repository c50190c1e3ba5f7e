// gaussian_rules.cpp — the Gaussian calibration rules (privacy arguments in gaussian_rules.h):
// one sampler, one certificate check against the exact Gaussian profile (math/gaussian.h), and
// each rule's choice of sigma.
#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "errors.h"
#include "math/gaussian.h"
#include "math/scale_search.h"
#include "mechanisms/gaussian_rules/gaussian_rules.h"

namespace dpagg {
namespace {

class GaussianRule : public Mechanism {
 public:
  std::vector<std::string> param_names() const override { return {"sigma"}; }
  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    return cal.scale * sample_standard_normal(rng);
  }
  // P(|X| > w) = 2 Q(w / sigma), Q from above (math/gaussian.h: erfc's error, the argument's
  // rounding, charged 2 ulps of it, and underflow).
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    const double x = w / cal.scale;
    return std::min(1.0, 2.0 * normal_upper_tail_enclosure(x, 2.0 * std::numeric_limits<double>::epsilon() * x).hi);
  }
  // N(0, sigma^2) on sensitivity D is rho-zCDP with rho = D^2/(2 sigma^2) (Bun & Steinke 2016).
  double zcdp_rho(const dpagg_calibration& cal) const override {
    return cal.sensitivity * cal.sensitivity / (2 * cal.scale * cal.scale);
  }

 protected:
  static void finish(double sigma, const PrivacyRequest& req, dpagg_calibration& cal) {
    if (!std::isfinite(sigma * sigma))
      invalid("the Gaussian noise for this epsilon and sensitivity exceeds the floating-point range",
              "Use a larger epsilon, or rescale the values so that the sensitivity is smaller.");
    cal.scale = sigma;
    cal.nparams = 1;
    cal.params[0] = sigma;
    if (req.dimension == 1) {
      cal.l1 = sigma * 0.79788456080286535588;  // sqrt(2/pi)
      cal.l2 = sigma * sigma;
    } else {
      // N(0, sigma^2 I_T): ||X|| is sigma times a chi with T degrees of freedom.
      const double T = req.dimension;
      cal.l1 = sigma * std::sqrt(2.0) * std::exp(std::lgamma((T + 1) / 2) - std::lgamma(T / 2));
      cal.l2 = T * sigma * sigma;
    }
    cal.delta_bound = gaussian_profile(sigma, req.epsilon, req.sensitivity).upper;
  }
};

class AnalyticGaussian final : public GaussianRule {
 public:
  const char* name() const override { return "analytic_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_ANALYTIC_GAUSSIAN; }
  const char* summary() const override {
    return "Gaussian noise with the exact (Balle-Wang) calibration: the least sigma that is "
           "(epsilon, delta)-DP, for any epsilon > 0";
  }
  // Spherical N(0, sigma^2 I_T) noise: its profile depends only on ||shift|| / sigma, so the same
  // sigma is exact for vector releases of every dimension (l2.h), named "gaussian" there.
  const char* vector_name() const override { return "gaussian"; }
  bool serves(const PrivacyRequest& req) const override { return req.vector || req.dimension == 1; }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    finish(analytic_gaussian_sigma(req.epsilon, req.delta, req.sensitivity), req, cal);
  }
};

class ClassicGaussian final : public GaussianRule {
 public:
  const char* name() const override { return "classic_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_CLASSIC_GAUSSIAN; }
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

// ---- helpers shared by the closed-form rules ----

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kUlp = std::numeric_limits<double>::epsilon();

// sigma = (x + sqrt(x^2 + eps)) D / (eps sqrt 2), the common shape (G2) of Zhao et al.'s rules
// (docs/gaussian_rules.md §2), written as D / (sqrt 2 (sqrt(x^2 + eps) - x)) when x < 0 (no
// cancellation).
double z1_sigma(double x, double eps, double D) {
  const double root = std::sqrt(x * x + eps);
  const double unit = x >= 0 ? (x + root) / (eps * kSqrt2) : 1.0 / (kSqrt2 * (root - x));
  return unit * D;
}

// Certified upper bound on Q(x) when x is known only to within an absolute error ex.
// d ln Q/dx = -phi/Q and phi(x)/Q(x) <= max(x, 0) + 1, so a shift of ex moves Q by a relative
// (|x| + 1 + ex) ex at most (to first order; the factor 2 covers the rest for ex < 1e-3).
double q_upper(double x, double ex) {
  const double q = normal_upper_tail(x);
  const double rel = 1e-13 + 2.0 * (std::fabs(x) + 1.0 + ex) * ex;
  return q * (1.0 + rel) + 1e-300;
}

// The pDP profile P_G(sigma) = Q(a) + Q(b), a, b = eps sigma/D -/+ D/(2 sigma), certified.
double pdp_profile_upper(double sigma, double eps, double D) {
  const double u = eps * sigma / D, v = D / (2.0 * sigma);
  // u and v carry a relative error of 2 ulps each; a and b one more rounding.
  const double ex = 4.0 * kUlp * (u + v);
  return q_upper(u - v, ex) + q_upper(u + v, ex);
}

// e^eps erfc(z) for z >= sqrt(eps), without overflow: erfcx(z) e^(eps - z^2).
double exp_eps_erfc(double eps, double z) { return erfcx_nonneg(z) * std::exp(eps - z * z); }

[[noreturn]] void refuse_rule(const char* name, const char* why) {
  invalid(std::string(name) + ": " + why,
          "Use the analytic_gaussian mechanism, which is exact for every epsilon and delta.");
}

// A closed-form rule's sigma, certified: the DP profile (and for pDP rules the pDP profile) is
// checked at the returned double; rounding is absorbed by stepping up 1e-15 relative at most 16
// times.  A rule that still fails is refused rather than returned.
double certify_rule(double sigma, const PrivacyRequest& req, bool pdp, const char* name) {
  if (!(std::isfinite(sigma) && sigma > 0)) refuse_rule(name, "the formula has no finite value here");
  auto ok = [&](double s) {
    if (gaussian_profile(s, req.epsilon, req.sensitivity).upper > req.delta) return false;
    return !pdp || pdp_profile_upper(s, req.epsilon, req.sensitivity) <= req.delta;
  };
  for (int i = 0; !ok(sigma); ++i) {
    if (i >= 16) refuse_rule(name, "the rule is not private at this epsilon and delta");
    sigma *= 1.0 + 1e-15;
  }
  return sigma;
}

// ---- (eps, delta)-DP rules ----

class Dwork2006Gaussian final : public GaussianRule {
 public:
  const char* name() const override { return "dwork2006_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_DWORK2006_GAUSSIAN; }
  const char* summary() const override {
    return "Gaussian noise with sigma = sqrt(2 ln(2/delta)) sensitivity/epsilon "
           "(Dwork et al. 2006); only for epsilon <= 1";
  }
  void validate(const PrivacyRequest& req, const Options&) const override {
    if (req.epsilon > 1.0)
      invalid("dwork2006_gaussian is not private for epsilon > 1",
              "Use epsilon <= 1, or the analytic_gaussian mechanism, which is exact for any epsilon.");
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    double sigma = std::sqrt(2.0 * std::log(2.0 / req.delta)) * req.sensitivity / req.epsilon;
    finish(certify_rule(sigma, req, false, name()), req, cal);
  }
};

// Zhao et al., Theorem 4, eq. (7a) (docs/gaussian_rules.md §5): b, or 0 when
// 2 - e^eps erfc(sqrt eps) <= 2 delta.
double zhao1_b(double eps, double delta) {
  const double t = 2.0 * delta + erfcx_nonneg(std::sqrt(eps));  // e^eps erfc(sqrt eps) = erfcx
  if (!(t < 2.0)) return 0.0;
  const double at = boost::math::erfc_inv(t);
  const double inner = exp_eps_erfc(eps, std::sqrt(at * at + eps));
  const double arg = 2.0 * delta / (1.0 - inner / t);
  if (!(arg > 0.0 && arg < 2.0)) return std::numeric_limits<double>::quiet_NaN();
  return boost::math::erfc_inv(arg);
}

class Zhao1Gaussian final : public GaussianRule {
 public:
  const char* name() const override { return "zhao1_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_ZHAO1_GAUSSIAN; }
  const char* summary() const override {
    return "Gaussian noise with the closed-form sigma of Zhao et al.'s Mechanism 1 (erfc, "
           "inverfc), valid for any epsilon; a little more noise than analytic_gaussian";
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    const double b = zhao1_b(req.epsilon, req.delta);
    finish(certify_rule(z1_sigma(b, req.epsilon, req.sensitivity), req, false, name()), req, cal);
  }
};

class Zhao2Gaussian final : public GaussianRule {
 public:
  const char* name() const override { return "zhao2_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_ZHAO2_GAUSSIAN; }
  const char* summary() const override {
    return "Gaussian noise with the elementary closed-form sigma of Zhao et al.'s Mechanism 2, "
           "valid for any epsilon and delta < 0.5";
  }
  void validate(const PrivacyRequest& req, const Options&) const override {
    if (req.delta >= 0.5)
      invalid("zhao2_gaussian needs delta < 0.5", "Pass delta in (0, 0.5), or use zhao1_gaussian.");
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    // c = sqrt(ln(2/(sqrt(16 delta + 1) - 1))) = sqrt(ln((sqrt(16 delta + 1) + 1)/(8 delta))).
    const double d = req.delta;
    const double c = std::sqrt(std::log((std::sqrt(16.0 * d + 1.0) + 1.0) / (8.0 * d)));
    finish(certify_rule(z1_sigma(c, req.epsilon, req.sensitivity), req, false, name()), req, cal);
  }
};

class ZcdpGaussian final : public GaussianRule {
 public:
  const char* name() const override { return "zcdp_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_ZCDP_GAUSSIAN; }
  const char* summary() const override {
    return "Gaussian noise for the rho-zCDP that converts to (epsilon, delta) by Bun-Steinke: "
           "rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2, sigma = sensitivity/sqrt(2 rho)";
  }
  const char* guarantee() const override {
    return "rho-zCDP with rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2, hence "
           "(epsilon, delta)-DP";
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    const double L = -std::log(req.delta);
    const double sigma =
        (std::sqrt(L) + std::sqrt(L + req.epsilon)) / (kSqrt2 * req.epsilon) * req.sensitivity;
    finish(certify_rule(sigma, req, false, name()), req, cal);
  }
};

// ---- probabilistic-DP rules (not auto candidates) ----

class PdpRule : public GaussianRule {
 public:
  const char* guarantee() const override {
    return "(epsilon, delta)-probabilistic DP (pDP), which implies (epsilon, delta)-DP";
  }
  bool auto_candidate() const override { return false; }
};

class PdpGaussian final : public PdpRule {
 public:
  const char* name() const override { return "pdp_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_PDP_GAUSSIAN; }
  const char* summary() const override {
    return "probabilistic DP: Gaussian noise with the least sigma such that |privacy loss| > "
           "epsilon has probability <= delta (Zhao et al.'s pDP-OPT); more noise than analytic_gaussian";
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    const double eps = req.epsilon, D = req.sensitivity;
    // Mechanism 3's sigma bounds pDP-OPT from above (Lemma 5): a good start.
    const double start = z1_sigma(boost::math::erfc_inv(req.delta), eps, D);
    double sigma = smallest_feasible_scale(
        [&](double s) { return pdp_profile_upper(s, eps, D); }, req.delta, start, name());
    // pDP implies DP: the DP profile is below the pDP one; certify_rule re-checks both.
    finish(certify_rule(sigma, req, true, name()), req, cal);
  }
};

class Zhao3PdpGaussian final : public PdpRule {
 public:
  const char* name() const override { return "zhao3_pdp_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_ZHAO3_PDP_GAUSSIAN; }
  const char* summary() const override {
    return "probabilistic DP: Gaussian noise with the closed-form sigma of Zhao et al.'s "
           "Mechanism 3, x = inverfc(delta)";
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    const double f = boost::math::erfc_inv(req.delta);
    finish(certify_rule(z1_sigma(f, req.epsilon, req.sensitivity), req, true, name()), req, cal);
  }
};

class Zhao4PdpGaussian final : public PdpRule {
 public:
  const char* name() const override { return "zhao4_pdp_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_ZHAO4_PDP_GAUSSIAN; }
  const char* summary() const override {
    return "probabilistic DP: Gaussian noise with the elementary closed-form sigma of Zhao et "
           "al.'s Mechanism 4";
  }
  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    // g = sqrt(ln(2/(sqrt(8 delta + 1) - 1))) = sqrt(ln((sqrt(8 delta + 1) + 1)/(4 delta))).
    const double d = req.delta;
    const double g = std::sqrt(std::log((std::sqrt(8.0 * d + 1.0) + 1.0) / (4.0 * d)));
    finish(certify_rule(z1_sigma(g, req.epsilon, req.sensitivity), req, true, name()), req, cal);
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

const Mechanism& dwork2006_gaussian_mechanism() {
  static const Dwork2006Gaussian m;
  return m;
}
const Mechanism& zhao1_gaussian_mechanism() {
  static const Zhao1Gaussian m;
  return m;
}
const Mechanism& zhao2_gaussian_mechanism() {
  static const Zhao2Gaussian m;
  return m;
}
const Mechanism& zcdp_gaussian_mechanism() {
  static const ZcdpGaussian m;
  return m;
}
const Mechanism& pdp_gaussian_mechanism() {
  static const PdpGaussian m;
  return m;
}
const Mechanism& zhao3_pdp_gaussian_mechanism() {
  static const Zhao3PdpGaussian m;
  return m;
}
const Mechanism& zhao4_pdp_gaussian_mechanism() {
  static const Zhao4PdpGaussian m;
  return m;
}

}  // namespace dpagg


