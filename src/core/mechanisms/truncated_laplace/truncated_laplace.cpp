// truncated_laplace.cpp — the truncated Laplace mechanism (privacy argument in
// truncated_laplace.h): calibration of lambda and A with a certified profile bound, sampler,
// losses, tail.
#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/special_functions/gamma.hpp>

#include "errors.h"
#include "mechanisms/truncated_laplace/truncated_laplace.h"

namespace dpagg {
namespace {

// ln(e^x - 1) for x > 0, without overflow.
double log_expm1(double x) {
  return x > 0.5 ? x + std::log1p(-std::exp(-x)) : std::log(std::expm1(x));
}

// A rigorous upper bound on sup_{|mu| <= D} H_eps(mu) = expm1(D/lambda) / (2 expm1(A/lambda)) at
// the doubles lambda, A; 1 when D/lambda <= eps cannot be certified (then the overlap region
// would count too).  Arguments are rounded to the unsafe side (D/lambda up, A/lambda down, each by
// 2^-51 relative, more than the division's 2^-53); the logarithm of the bound gets a margin of
// 2^-48 times the magnitudes it was computed from (each log_expm1 is within a few ulps of its
// value), and exp's own rounding is charged by (1 + 2^-50).
double profile_bound(double D, double epsilon, double lambda, double A) {
  const double u_hi = (D / lambda) * (1 + 0x1p-51);
  if (!(u_hi <= epsilon)) return 1.0;
  const double t_lo = (A / lambda) * (1 - 0x1p-51);
  if (!(t_lo > 0) || !std::isfinite(t_lo)) return 1.0;
  const double ln_num = log_expm1(u_hi), ln_den = log_expm1(t_lo);
  const double ln_b = ln_num - std::log(2.0) - ln_den;
  const double margin = 0x1p-48 * (1 + std::fabs(ln_num) + std::fabs(ln_den));
  const double b = std::exp(ln_b + margin) * (1 + 0x1p-50);
  if (!std::isfinite(b)) return 1.0;
  // exp above -708 is a normal number, accurate to an ulp; below, take the least normal number.
  return std::max(b, std::numeric_limits<double>::min());
}

// a = A/lambda = ln(1 + (e^eps - 1)/(2 delta)) in double (not certified: the certificate is
// re-evaluated at the returned A).  For eps > 1 in the form
// eps + ln(1 - e^-eps (1 - 2 delta)) - ln(2 delta), which does not overflow.
double truncation_ratio(double epsilon, double delta) {
  if (epsilon <= 1) return std::log1p(std::expm1(epsilon) / (2 * delta));
  return epsilon + std::log1p(-std::exp(-epsilon) * (1 - 2 * delta)) - std::log(2 * delta);
}

class TruncatedLaplace final : public Mechanism {
 public:
  const char* name() const override { return "truncated_laplace"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_TRUNCATED_LAPLACE; }
  const char* summary() const override {
    return "Laplace noise of scale sensitivity/epsilon truncated to [-A, A], "
           "A = (sensitivity/epsilon) ln(1 + (e^epsilon - 1)/(2 delta)) (Geng et al. 2020); delta > 0";
  }
  std::vector<std::string> param_names() const override { return {"A"}; }

  void validate(const PrivacyRequest& req, const Options&) const override {
    if (!(req.delta > 0))
      invalid("mechanism truncated_laplace needs delta > 0",
              "Its truncation point A grows without bound as delta -> 0; use laplace (or staircase) "
              "for pure epsilon-DP, or pass delta in (0, 1).");
  }

  void calibrate(const PrivacyRequest& req, const Options& options,
                 dpagg_calibration& cal) const override {
    validate(req, options);
    const double D = req.sensitivity, eps = req.epsilon, delta = req.delta;
    const double lambda = D / eps * (1 + 0x1p-48);
    double A = lambda * truncation_ratio(eps, delta) * (1 + 0x1p-40);
    if (!(std::isfinite(lambda) && lambda > 0 && std::isfinite(A) && A > 0))
      invalid("truncated_laplace: the noise for this epsilon, delta and sensitivity is not representable",
              "Rescale the values or pass a larger epsilon.");
    double bound = profile_bound(D, eps, lambda, A);
    for (int i = 0; i < 16 && bound > delta; ++i) {
      A *= 1 + 0x1p-40;
      bound = profile_bound(D, eps, lambda, A);
    }
    if (!(bound <= delta)) throw Error(DPAGG_INTERNAL, "truncated_laplace: certificate check failed");
    const double a = A / lambda;
    const double mass = -std::expm1(-a);  // 1 - e^-a
    cal.scale = lambda;
    cal.nparams = 1;
    cal.params[0] = A;
    cal.l1 = lambda * (boost::math::gamma_p(2.0, a) / mass);
    cal.l2 = 2 * (lambda * lambda) * (boost::math::gamma_p(3.0, a) / mass);
    cal.delta_bound = bound;
  }

  // Inverse CDF of |X| from W = uniform on (0, 1) at full resolution, read as the tail
  // probability P(|X| > y) = expm1(a - y/lambda)/expm1(a):
  //   y = lambda (a - log1p(W expm1(a)))          for a <= 1 (accurate near A and near 0),
  //   y = -lambda ln(e^-a + W (1 - e^-a))         for a > 1 (no overflow of e^a);
  // clamped into [0, A] (the truncation is exact), then a fair sign.
  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    const double lambda = cal.scale, A = cal.params[0], a = A / lambda;
    const double w = rng.uniform_open01();
    double y = a <= 1 ? lambda * (a - std::log1p(w * std::expm1(a)))
                      : -lambda * std::log(std::exp(-a) + w * -std::expm1(-a));
    y = std::min(std::max(y, 0.0), A);
    return rng.random_bit() ? y : -y;
  }

  // P(|X| > w) = expm1(a - s)/expm1(a), s = w/lambda, for w < A (= e^-s (1 - e^-(a-s))/(1 - e^-a)
  // for a > 1, without overflow); 0 for w >= A, where no draw lands.  a - s is raised by
  // 2^-50 (a + s) for the rounding of both quotients and of their difference, and the result by
  // 2^-40 relative for expm1/exp's own.
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    const double lambda = cal.scale, A = cal.params[0];
    if (w >= A) return 0.0;
    if (w <= 0) return 1.0;
    const double a = A / lambda, s = w / lambda;
    const double d = std::max(a - s, 0.0) + 0x1p-50 * (a + s);
    const double t = a <= 1 ? std::expm1(d) / std::expm1(a)
                            : std::exp(-(a - d)) * (std::expm1(-d) / std::expm1(-a));
    return std::min(1.0, t * (1 + 0x1p-40));
  }
};

}  // namespace

const Mechanism& truncated_laplace_mechanism() {
  static const TruncatedLaplace m;
  return m;
}

}  // namespace dpagg
