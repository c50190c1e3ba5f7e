// staircase.cpp — the staircase mechanism (privacy argument in staircase.h; derivations in
// docs/staircase.md): the choice of gamma, the losses in closed form, the sampler, the tail.
#include <algorithm>
#include <cmath>

#include <boost/math/tools/minima.hpp>

#include "errors.h"
#include "mechanisms/staircase/staircase.h"

namespace dpagg {
namespace {

constexpr double kMaxEps = 700.0;       // eps above this is treated as 700 (staircase.h)
constexpr double kGammaFloor = 0x1p-60;
constexpr double kOuterMargin = 0x1p-45;  // p_out raised by this, relative

// b = e^-eps, 1 - b and b/(1-b), without cancellation.
struct Decay {
  double b, one_minus_b, mean_g, second_g;  // E G, E G^2 of P(G = k) = (1-b) b^k
  explicit Decay(double eps) {
    b = std::exp(-eps);
    one_minus_b = -std::expm1(-eps);
    mean_g = 1.0 / std::expm1(eps);              // b / (1 - b)
    second_g = mean_g * (1.0 + 2.0 * mean_g);    // b (1 + b) / (1 - b)^2
  }
};

// P(V in the upper step) for the exact staircase: b(1-gamma) / (gamma + b(1-gamma)).
double exact_p_out(double gamma, const Decay& d) {
  const double up = d.b * (1.0 - gamma);
  return up / (gamma + up);
}

// E V and E V^2 of the period's shape (V on [0, 1)).
double mean_v(double gamma, double p_out) { return 0.5 * (gamma + p_out); }
double second_v(double gamma, double p_out) {
  return gamma * gamma / 3.0 + p_out * (1.0 + gamma) / 3.0;
}

// The part of E[X^2]/D^2 that depends on gamma: 2 E G E V + E V^2.
double l2_part(double gamma, const Decay& d) {
  const double p = exact_p_out(gamma, d);
  return 2.0 * d.mean_g * mean_v(gamma, p) + second_v(gamma, p);
}

double eff_eps(double eps) { return std::min(eps, kMaxEps); }

}  // namespace

double staircase_gamma(double epsilon, bool l1) {
  const double eps = eff_eps(epsilon);
  double g;
  if (l1) {
    g = 1.0 / (1.0 + std::exp(eps / 2.0));
  } else {
    const Decay d(eps);
    // Minimise over u = log gamma in [log 2^-60, log(1/2)]; the loss is unimodal there.
    auto f = [&](double u) { return l2_part(std::exp(u), d); };
    const auto r = boost::math::tools::brent_find_minima(f, std::log(kGammaFloor), std::log(0.5), 40);
    g = std::exp(r.first);
    if (l2_part(0.5, d) <= r.second) g = 0.5;  // the optimum may sit at the end of the range
  }
  return std::min(0.5, std::max(g, kGammaFloor));
}

namespace {

class Staircase final : public Mechanism {
 public:
  const char* name() const override { return "staircase"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_STAIRCASE; }
  const char* summary() const override {
    return "staircase noise of Geng and Viswanath (pure epsilon-DP, the optimal additive noise); "
           "step gamma for the objective l2 (default) or l1; delta > 0 is served by the pure-DP "
           "calibration";
  }
  const char* guarantee() const override { return "epsilon-DP"; }
  bool accepts_zero_delta() const override { return true; }
  std::vector<std::string> option_names() const override { return {kObjectiveOption.key}; }
  std::vector<std::string> param_names() const override {
    return {"gamma", "p_out", "epsilon_used", "step"};
  }

  void validate(const PrivacyRequest&, const Options& options) const override {
    (void)objective_is_l1(options, "staircase");  // refuses a bad value
  }

  void calibrate(const PrivacyRequest& req, const Options& options,
                 dpagg_calibration& cal) const override {
    const bool l1 = objective_is_l1(options, "staircase");
    const double eps = eff_eps(req.epsilon);
    const double D = req.sensitivity;
    const Decay d(eps);
    const double gamma = staircase_gamma(eps, l1);
    // More mass on the upper (lower-density) step: the within-period ratio drops below e^eps.
    const double p_out = std::min(1.0, exact_p_out(gamma, d) * (1.0 + kOuterMargin));
    // Monotone within the period: lower step's density over upper's, (1-p)(1-g)/(p g), in [1, e^eps]
    // (the upper end holds by construction; the lower end is checked here).
    if (!((1.0 - p_out) * (1.0 - gamma) >= p_out * gamma))
      throw Error(DPAGG_INTERNAL, "staircase: the step shape is not monotone");
    const double ev = mean_v(gamma, p_out), ev2 = second_v(gamma, p_out);
    cal.nparams = 4;
    cal.params[0] = gamma;
    cal.params[1] = p_out;
    cal.params[2] = eps;
    cal.params[3] = D;
    cal.l1 = D * (d.mean_g + ev);
    // D^2 (E G^2 + 2 E G E V + E V^2); finite since D/eps <= 1e150 (registry.cpp).
    cal.l2 = D * D * (d.second_g + 2.0 * d.mean_g * ev + ev2);
    cal.scale = cal.l1;
    cal.delta_bound = 0.0;
    if (!(std::isfinite(cal.l1) && cal.l1 > 0 && std::isfinite(cal.l2)))
      invalid("the staircase noise for this epsilon and sensitivity is not representable",
              "Rescale the values or raise epsilon.");
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    const double gamma = cal.params[0], p_out = cal.params[1], eps = cal.params[2], D = cal.params[3];
    const bool negative = rng.random_bit();
    // P(G >= k) = P(-log U >= k eps) = e^{-k eps}: geometric with ratio e^-eps.
    const double g = std::floor(-std::log(rng.uniform_open01()) / eps);
    const bool upper = rng.uniform_open01() < p_out;
    const double u = rng.uniform53();
    const double v = upper ? gamma + (1.0 - gamma) * u : gamma * u;
    const double x = D * (g + v);
    return negative ? -x : x;
  }

  // P(|X| > w) = P(G + V > t), t = w/D = k + r: b^{k+1} + (1-b) b^k P(V > r).  t is taken a little
  // low and the result raised by 1e-12 relative (the tail is non-increasing in t; the terms are
  // computed to better than 1e-13 relative).
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    const double gamma = cal.params[0], p_out = cal.params[1], eps = cal.params[2], D = cal.params[3];
    if (!(w > 0)) return 1.0;
    const double t = w / D * (1.0 - 0x1p-50);
    if (!std::isfinite(t)) return 0.0;
    const double k = std::floor(t), r = t - k;
    const double bk = std::exp(-k * eps);
    const double pv = r < gamma ? (1.0 - p_out) * (gamma - r) / gamma + p_out
                                : p_out * (1.0 - r) / (1.0 - gamma);
    const double tail = bk * (std::exp(-eps) + -std::expm1(-eps) * pv);
    return std::min(1.0, tail * (1.0 + 1e-12));
  }

  bool auto_candidate() const override { return true; }
};

}  // namespace

const Mechanism& staircase_mechanism() {
  static const Staircase m;
  return m;
}

}  // namespace dpagg
