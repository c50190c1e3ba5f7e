// osgt.cpp — the OSGT mechanism (privacy argument in osgt.h): the certified profile, the
// sigma search, losses, the registry entry and the sampler.
#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "errors.h"
#include "math/gaussian.h"
#include "math/scale_search.h"
#include "mechanism.h"
#include "mechanisms/osgt/osgt.h"

namespace dpagg {

namespace {

constexpr double kUlp = std::numeric_limits<double>::epsilon();
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kDefaultR = 0.6745;
constexpr double kMaxR = 8.0;

// log Q(x) when x is known to within an absolute error ex, with an absolute error bound: Boost's
// erfc (or the asymptotic erfcx of math/gaussian.cpp) is charged 1e-13 relative, and
// phi(x)/Q(x) <= max(x, 0) + 1 bounds the effect of the argument (factor 2 for the curvature).
struct LogQ {
  double value, error;
};
LogQ log_q(double x, double ex) {
  const double lq = log_normal_upper_tail(x);
  return {lq, 1e-13 + 2.0 * (std::fabs(x) + 1.0 + ex) * ex + 2.0 * kUlp * std::fabs(lq)};
}

// exp(L) for L = sum of terms with a total absolute error e: an enclosure (exp adds its own ulps).
struct Enclosure {
  double lo, hi;
};
Enclosure exp_enclosure(double L, double e) {
  const double v = std::exp(L), rel = e + 4.0 * kUlp * (1.0 + std::fabs(L));
  // e is tiny (<< 1e-3), so e^rel - 1 <= 2 rel; subnormal results get an absolute 1e-305.
  return {v * std::max(0.0, 1.0 - 2.0 * rel), v * (1.0 + 2.0 * rel) + 1e-305};
}

}  // namespace

ProfileBound osgt_profile(double sigma, double r, double eps, double D) {
  const double h = D / sigma;  // the shift in units of sigma
  const double x = eps / h;    // eps sigma / D
  // log 2Q(r): r is exact (an option value).
  const LogQ lqr = log_q(r, 0.0);
  const double l2qr = lqr.value + 0.69314718055994530942;
  const double e2qr = lqr.error + 2.0 * kUlp * std::fabs(l2qr);
  const double gap = x - (0.5 * h + r);  // <= 0: first branch (eps <= eps_b)
  const bool near = std::fabs(gap) <= 1e-9 * (x + 0.5 * h + r);
  double value = -INFINITY, upper = -INFINITY;
  if (gap > 0 || near) {
    // [Q(x - h/2) - e^eps Q(x + h/2)] / (2Q(r)); x and h carry a few ulps of relative error.
    const double a = x - 0.5 * h, b = x + 0.5 * h;
    const double ex = 6.0 * kUlp * (x + h);
    const LogQ la = log_q(a, ex), lb = log_q(b, ex);
    const double L1 = la.value - l2qr, L2 = eps + lb.value - l2qr;
    const Enclosure t1 = exp_enclosure(L1, la.error + e2qr + 2.0 * kUlp * (std::fabs(la.value) + std::fabs(l2qr)));
    const Enclosure t2 = exp_enclosure(L2, lb.error + e2qr + 4.0 * kUlp * (eps + std::fabs(lb.value) + std::fabs(l2qr)));
    value = std::max(value, std::exp(L1) - std::exp(L2));
    upper = std::max(upper, t1.hi - t2.lo + 2.0 * kUlp * t1.hi);
  }
  if (gap <= 0 || near) {
    // 1 - [Q(u - v) + e^eps Q(u + v)] / (2Q(r)),  u = (h + 2r)/2 = (2m + D)/(2 sigma),
    // v = eps / (h + 2r) = eps sigma / (2m + D).
    const double w = h + 2.0 * r;
    const double u = 0.5 * w, v = eps / w;
    const double ex = 6.0 * kUlp * (u + v);
    const LogQ la = log_q(u - v, ex), lb = log_q(u + v, ex);
    const double L1 = la.value - l2qr, L2 = eps + lb.value - l2qr;
    const Enclosure t1 = exp_enclosure(L1, la.error + e2qr + 2.0 * kUlp * (std::fabs(la.value) + std::fabs(l2qr)));
    const Enclosure t2 = exp_enclosure(L2, lb.error + e2qr + 4.0 * kUlp * (eps + std::fabs(lb.value) + std::fabs(l2qr)));
    value = std::max(value, 1.0 - std::exp(L1) - std::exp(L2));
    upper = std::max(upper, 1.0 - (t1.lo + t2.lo) * (1.0 - 4.0 * kUlp) + 4.0 * kUlp);
  }
  return {value, std::min(1.0, std::max(0.0, upper))};
}

double osgt_sigma(double r, double eps, double delta, double D) {
  // Start at Zhao's Mechanism 2 sigma for the Gaussian (r = 0), a cheap upper bound of sigma_OPT.
  const double c = std::sqrt(std::log((std::sqrt(16.0 * std::min(delta, 0.49) + 1.0) + 1.0) /
                                      (8.0 * std::min(delta, 0.49))));
  const double start = (c + std::sqrt(c * c + eps)) / (eps * 1.41421356237309504880) * D;
  return smallest_feasible_scale([&](double s) { return osgt_profile(s, r, eps, D).upper; }, delta,
                                 start, "osgt");
}

double osgt_l1_unit(double r) {
  const double lambda = 0.79788456080286535588 / erfcx_nonneg(r * kSqrt1_2);  // sqrt(2/pi)/erfcx
  return lambda - r;
}

double osgt_l2_unit(double r) {
  const double lambda = 0.79788456080286535588 / erfcx_nonneg(r * kSqrt1_2);
  return 1.0 + r * (r - lambda);
}

namespace {

const NumberOption kR{"r", 0.0, kMaxR, kDefaultR, "0.6745",
                      "the default 0.6745 is the largest r with a proved sigma^2-sub-Gaussian tail; "
                      "r = m/sigma, 0 gives the Gaussian"};

class Osgt final : public Mechanism {
 public:
  const char* name() const override { return "osgt"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_OSGT; }
  const char* summary() const override {
    return "offset-symmetric Gaussian tails (Sadeghi-Korki): density ~ exp(-(|y| + r sigma)^2/"
           "(2 sigma^2)), exact Theorem-1 calibration of sigma at shape r (option r, default 0.6745)";
  }
  std::vector<std::string> option_names() const override { return {kR.key}; }
  std::vector<std::string> param_names() const override { return {"sigma", "m", "r"}; }

  void validate(const PrivacyRequest&, const Options& options) const override { read_option(options, "osgt", kR); }

  void calibrate(const PrivacyRequest& req, const Options& options, dpagg_calibration& cal) const override {
    const double r = read_option(options, "osgt", kR);
    const double sigma = osgt_sigma(r, req.epsilon, req.delta, req.sensitivity);
    const ProfileBound pb = osgt_profile(sigma, r, req.epsilon, req.sensitivity);
    if (!(pb.upper <= req.delta)) throw Error(DPAGG_INTERNAL, "osgt: certificate check failed");
    if (!std::isfinite(sigma * sigma))
      invalid("the osgt noise for this epsilon and sensitivity exceeds the floating-point range",
              "Use a larger epsilon, or rescale the values so that the sensitivity is smaller.");
    cal.scale = sigma;
    cal.nparams = 3;
    cal.params[0] = sigma;
    cal.params[1] = r * sigma;
    cal.params[2] = r;
    cal.l1 = sigma * osgt_l1_unit(r);
    cal.l2 = sigma * sigma * osgt_l2_unit(r);
    cal.delta_bound = pb.upper;
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    const double sigma = cal.params[0], r = cal.params[2];
    const double tail = boost::math::erfc(r * kSqrt1_2);  // 2 Q(r)
    double p;
    do {
      p = rng.uniform_open01() * tail;  // U 2Q(r), uniform on (0, 2Q(r))
    } while (!(p > 0));                 // underflow: probability below 2^-1000
    // |Y| = sigma (Q^-1(U Q(r)) - r), Q^-1(y) = sqrt 2 erfc^-1(2y).
    const double z = 1.41421356237309504880 * boost::math::erfc_inv(p);
    const double mag = std::max(0.0, sigma * (z - r));
    return rng.random_bit() ? mag : -mag;
  }

  // The sampler's law: |Y| = sigma (Z - r) given Z > r, Z ~ N(0, 1), so
  //     P(|Y| > w) = Q(r + w/sigma) / Q(r)
  // (docs/osgt.md §1).  In logs (Q(r) is as small as 6e-16 at r = 8, and the numerator may
  // underflow where the ratio does not): log Q(x) from above (x's two roundings charged 4 ulps),
  // log Q(r) from below, capped at 1 (w = 0 gives 1).
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    const double sigma = cal.params[0], r = cal.params[2];
    const double x = r + w / sigma;
    const TailEnclosure num = log_normal_upper_tail_enclosure(x, 4.0 * kUlp * x);
    const TailEnclosure den = log_normal_upper_tail_enclosure(r, 0.0);
    const double L = num.hi - den.lo;
    return std::min(1.0, exp_upper(L + 2.0 * kUlp * (std::fabs(num.hi) + std::fabs(den.lo))));
  }
};

}  // namespace

const Mechanism& osgt_mechanism() {
  static const Osgt m;
  return m;
}

}  // namespace dpagg
