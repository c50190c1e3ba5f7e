// generalized_gaussian.cpp — the generalized Gaussian mechanism (privacy argument in
// generalized_gaussian.h): the certified profile, the scale search, losses, the registry entry
// and the sampler.
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "errors.h"
#include "math/scale_search.h"
#include "mechanism.h"
#include "mechanisms/generalized_gaussian/generalized_gaussian.h"

namespace dpagg {

namespace {

constexpr double kUlp = std::numeric_limits<double>::epsilon();
constexpr double kDefaultP = 1.5;
constexpr double kMinP = 0.5, kMaxP = 10.0;
// |t|^p beyond which the tail mass Q(1/p, |t|^p)/2 is below e^-800 (0 in double precision).
constexpr double kFarTail = 800.0;

struct Enc {
  double lo, hi;
};

class Profile {
 public:
  Profile(double h, double p, double eps) : h_(h), p_(p), k_(1.0 / p), eps_(eps) {}

  GgProfile eval() const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (p_ >= 1.0) {
      // p = 1: the loss is at most h; p > 1: unbounded.
      if (p_ == 1.0 && eps_ >= h_ * (1.0 + 8.0 * kUlp)) return {0.0, 0.0, nan, nan};
      if (p_ == 1.0) {
        // Laplace: F(t*) - e^eps F(t* - h) collapses to 1 - e^((eps - h)/2) (t* = (h - eps)/2,
        // docs/generalized_gaussian.md §5, vector D1), which avoids the cancellation of two terms
        // near 1/2 when eps is close to h.  The exponent is charged 4 ulps of (eps + h).
        const double x = 0.5 * (eps_ - h_), slack = 4.0 * kUlp * (eps_ + h_);
        const double value = -std::expm1(x);
        const double upper = -std::expm1(x - slack) * (1.0 + 4.0 * kUlp);
        return {value, std::min(1.0, std::max(0.0, upper)), -INFINITY, 0.5 * (h_ - eps_)};
      }
      // Root t* of l = eps on (-inf, h/2): l(h/2) = 0 < eps.
      double lo = std::min(0.0, 0.5 * h_), hi = 0.5 * h_;
      if (p_ == 1.0) lo = 0.0;  // l(0) = h > eps
      for (int i = 0; loss(lo) <= eps_; ++i) {
        // For p close to 1 and small h the root can lie beyond the double range.  Once F(lo) is
        // below e^-800 and the loss at lo is certified <= eps, t* <= lo, so delta <= F(t*) <= F(lo).
        if (std::pow(-lo, p_) > kFarTail && loss(lo) + loss_error(lo) <= eps_)
          return {0.0, tail_half(-lo).hi, -INFINITY, nan};
        if (i > 2100) return {nan, 1.0, nan, nan};
        hi = lo;
        lo = 2.0 * lo - std::max(1.0, h_);
      }
      const double tc = root(lo, hi, true);
      Enc br;
      if (!bracket(tc, true, &br)) return {nan, 1.0, nan, tc};
      // delta = G(t*), G(t) = F(t) - e^eps F(t - h), G'(t*) = 0: delta <= G(tc) + |t* - tc| max|G'|
      // over the bracket (second order in its width), G(tc) bounded with tc - h rounded down.
      const Enc fb = mass(-INFINITY, tc);
      const Enc fa = mass(-INFINITY, shifted_down(tc));
      const double upper = fb.hi - exp_eps_lower(fa.lo) + 4.0 * kUlp * fb.hi +
                           (br.hi - br.lo) * slope_bound(br);
      const double value = mid(mass(-INFINITY, tc)) - std::exp(eps_) * mid(mass(-INFINITY, tc - h_));
      return {value, std::min(1.0, std::max(0.0, upper)), -INFINITY, tc};
    }
    // p < 1: the loss peaks at h^p (t = 0).
    if (eps_ >= std::pow(h_, p_) * (1.0 + 1e-12)) return {0.0, 0.0, nan, nan};
    // t1 on (-inf, 0), where l increases from 0 to h^p.
    double lo = -std::max(1.0, h_), hi = 0.0;
    Enc b1{nan, nan};
    double t1 = nan;
    for (int i = 0; loss(lo) >= eps_; ++i) {
      // For p close to 1 the loss decays like |t|^(p-1): t1 can lie beyond the double range.  Once
      // F(lo) is below e^-800 and the loss at lo is certified >= eps, t1 <= lo: bracket [-inf, lo].
      if (std::pow(-lo, p_) > kFarTail && loss(lo) - loss_error(lo) >= eps_) {
        b1 = {-INFINITY, lo};
        t1 = -INFINITY;
        break;
      }
      if (i > 2100) return {nan, 1.0, nan, nan};
      hi = lo;
      lo *= 2.0;
    }
    if (std::isnan(t1)) t1 = root(lo, hi, false);
    // t2 on (0, h/2), where l decreases from h^p to 0.
    const double t2 = root(0.0, 0.5 * h_, true);
    Enc b2;
    if ((std::isnan(b1.lo) && !bracket(t1, false, &b1)) || !bracket(t2, true, &b2))
      return {nan, 1.0, t1, t2};
    // {l >= eps} = [t1, t2], delta = G(t1, t2) = [F(t2) - F(t1)] - e^eps [F(t2 - h) - F(t1 - h)],
    // both partial derivatives 0 at the roots: delta <= G(c1, c2) + sum |t_i - c_i| max|d_i G|
    // over the brackets, G(c1, c2) bounded with the shifted points moved inwards.  A far-tail t1
    // (bracket [-inf, lo]) is bounded by F(t1) >= 0 and F(t1 - h) <= F(lo - h) instead.
    const bool far = std::isinf(b1.lo);
    const double c1 = far ? -INFINITY : t1, c2 = t2;
    const Enc outer = mass(c1, c2);
    const double y1 = shifted_up(far ? b1.hi : c1), y2 = shifted_down(c2);
    const double inner_lo = y1 < y2 ? std::max(0.0, mass(y1, y2).lo) : 0.0;
    const double upper = outer.hi - exp_eps_lower(inner_lo) + 4.0 * kUlp * outer.hi +
                         (far ? 0.0 : (b1.hi - b1.lo) * slope_bound(b1)) + (b2.hi - b2.lo) * slope_bound(b2);
    const double value = mid(mass(t1, t2)) - std::exp(eps_) * mid(mass(t1 - h_, t2 - h_));
    return {value, std::min(1.0, std::max(0.0, upper)), t1, t2};
  }

 private:
  // l(t) = |t - h|^p - |t|^p.  Outside [0, h] the two powers are close when |t| >> h; there
  // l = |t|^p expm1(p log1p(+-h/|t|)) has no cancellation.
  struct Loss {
    double value, error;
  };
  Loss loss_with_error(double t) const {
    const double a = std::fabs(t - h_), b = std::fabs(t);
    const double pa = std::pow(a, p_), pb = std::pow(b, p_);
    double value, rounding;
    const bool outside = t < 0 || t > h_;
    if (outside && h_ < 0.5 * b) {
      const double y = p_ * std::log1p(t < 0 ? h_ / b : -h_ / b);
      value = pb * std::expm1(y);
      // pow, log1p, the product, expm1 (relative sensitivity <= 1 + |y| to its argument)
      rounding = std::fabs(value) * 2.0 * (8.0 + 2.0 * std::fabs(y)) * kUlp;
    } else {
      value = pa - pb;
      rounding = 2.0 * (p_ + 3.0) * kUlp * (pa + pb);
    }
    // The law sampled has exponent p' = 1/fl(1/p), |p - p'| <= p ulp; dl/dp = l ln a + b^p ln(a/b).
    const double la = std::log(std::max(a, 1e-300)), lb = std::log(std::max(b, 1e-300));
    const double mismatch = 2.0 * p_ * kUlp * (std::fabs(value) * std::fabs(la) + pb * std::fabs(la - lb));
    return {value, rounding + mismatch + 1e-300};
  }
  double loss(double t) const { return loss_with_error(t).value; }
  double loss_error(double t) const { return loss_with_error(t).error; }

  // The root of l = eps in [lo, hi], where l - eps changes sign; `decreasing` says which way.
  double root(double lo, double hi, bool decreasing) const {
    auto f = [&](double t) { return decreasing ? loss(t) - eps_ : eps_ - loss(t); };
    const double flo = f(lo), fhi = f(hi);
    if (!(flo > 0)) return lo;
    if (!(fhi < 0)) return hi;
    boost::uintmax_t iters = 200;
    const double scale = std::max(std::fabs(lo), std::fabs(hi)) + h_;
    auto tol = [&](double x, double y) { return std::fabs(x - y) <= 4.0 * kUlp * scale; };
    auto r = boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, tol, iters);
    return 0.5 * (r.first + r.second);
  }

  // Certified bracket [lo, hi] of the exact root near tc: the sign of l - eps at both ends is
  // beyond the rounding bound.  For a decreasing l: l(lo) > eps > l(hi); increasing: the reverse.
  bool bracket(double tc, bool decreasing, Enc* out) const {
    // Start from a few ulps of the root itself (it can be far below h for p < 1) and widen.
    double eta = 4.0 * kUlp * std::fabs(tc) + 1e-300;
    for (int i = 0; i < 40; ++i, eta *= 8.0) {
      const double lo = tc - eta, hi = tc + eta;
      const double dlo = loss(lo) - eps_, dhi = loss(hi) - eps_;
      const double slack_lo = loss_error(lo) + 2.0 * kUlp * eps_, slack_hi = loss_error(hi) + 2.0 * kUlp * eps_;
      const bool ok = decreasing ? (dlo > slack_lo && dhi < -slack_hi) : (dlo < -slack_lo && dhi > slack_hi);
      if (ok) {
        *out = {lo, hi};
        return true;
      }
    }
    return false;
  }

  // A bound on |F'(t) - e^eps F'(t - h)| = f(t) |1 - e^(eps - l(t))| over a certified bracket of
  // a root of l = eps on which l is monotone: |l - eps| is largest at an end, and the density
  // f(t) = e^(-|t|^p') / (2 Gamma(1 + k)) is largest at the point of the bracket nearest 0.
  double slope_bound(Enc br) const {
    const double dl = std::max(std::fabs(loss(br.lo) - eps_), std::fabs(loss(br.hi) - eps_)) +
                      std::max(loss_error(br.lo), loss_error(br.hi)) + 2.0 * kUlp * eps_;
    const double near0 = (br.lo <= 0 && br.hi >= 0) ? 0.0 : std::min(std::fabs(br.lo), std::fabs(br.hi));
    const double fmax = std::exp(-std::pow(near0, p_)) / (2.0 * boost::math::tgamma(1.0 + k_));
    return fmax * std::expm1(dl) * (1.0 + 1e-10) + 1e-300;
  }

  // t - h rounded so that the result is <= (resp. >=) the exact t - h.
  double shifted_down(double t) const { return (t - h_) - 2.0 * kUlp * (std::fabs(t) + h_); }
  double shifted_up(double t) const { return (t - h_) + 2.0 * kUlp * (std::fabs(t) + h_); }

  // Relative error charged to a regularized incomplete gamma value at z = |y|^p: 2e-13 for Boost
  // (about 900 ulps; Boost's own tests put gamma_p/gamma_q within tens of ulps for a = 1/p <= 2),
  // plus (z + k + 2) times the relative error of z (pow, and p versus p' = 1/k).
  double gamma_rel(double ay, double z) const {
    const double rel_z = (3.0 + p_ * std::fabs(std::log(std::max(ay, 1e-300)))) * kUlp;
    return 2e-13 + 2.0 * (z + k_ + 2.0) * rel_z;
  }
  // Q(k, |y|^p) / 2 and P(k, |y|^p) / 2, enclosed.
  Enc tail_half(double ay) const {
    if (std::isinf(ay)) return {0.0, 0.0};
    const double z = std::pow(ay, p_);
    const double q = boost::math::gamma_q(k_, z), rel = gamma_rel(ay, z);
    return {0.5 * q * std::max(0.0, 1.0 - rel), 0.5 * q * (1.0 + rel) + 1e-300};
  }
  Enc head_half(double ay) const {
    if (std::isinf(ay)) return {0.5, 0.5};
    const double z = std::pow(ay, p_);
    const double q = boost::math::gamma_p(k_, z), rel = gamma_rel(ay, z);
    return {0.5 * q * std::max(0.0, 1.0 - rel), std::min(0.5, 0.5 * q * (1.0 + rel) + 1e-300)};
  }
  // F(x2) - F(x1) for x1 <= x2 (x1 may be -inf), enclosed, without cancellation across 0.
  Enc mass(double x1, double x2) const {
    Enc out;
    if (x2 <= 0) {  // Q(|x2|)/2 - Q(|x1|)/2
      const Enc a = tail_half(-x2), b = tail_half(-x1);
      out = narrow({a.lo - b.hi, a.hi - b.lo}, -x2, -x1);
    } else if (x1 < 0) {  // P(|x1|)/2 + P(x2)/2
      const Enc a = head_half(-x1), b = head_half(x2);
      out = {a.lo + b.lo, a.hi + b.hi};
    } else {  // Q(x1)/2 - Q(x2)/2
      const Enc a = tail_half(x1), b = tail_half(x2);
      out = narrow({a.lo - b.hi, a.hi - b.lo}, x1, x2);
    }
    const double r = 2.0 * kUlp * std::max(std::fabs(out.lo), std::fabs(out.hi));
    return {std::max(0.0, out.lo - r), std::min(1.0, out.hi + r)};
  }
  // Between two points of one sign the difference of tails cancels when they are close (the
  // near-degenerate p < 1 case, where both are ~1/2 and their difference ~delta).  A second
  // enclosure, from the trapezoid rule on the Gamma(k) density f(z) = z^(k-1) e^-z / Gamma(k):
  //   ∫_za^zb f = w (f(za) + f(zb))/2 - w^3 f''(xi)/12,   w = zb - za,
  // with |f''| <= max f * ((|k-1|/za + 1)^2 + |k-1|/za^2) on [za, zb] (f''/f = ((k-1)/z - 1)^2 -
  // (k-1)/z^2) and max f from unimodality (mode k - 1).  The tighter of the two is kept.
  Enc narrow(Enc diff, double ya, double yb) const {
    if (!(ya > 0) || std::isinf(yb)) return diff;
    const double za = std::pow(ya, p_), zb = std::pow(yb, p_);
    const double rel_z = (3.0 + p_ * std::fabs(std::log(std::max(yb, 1e-300)))) * kUlp;
    const double w = zb - za, ew = 2.0 * (za + zb) * rel_z;
    if (!(w > ew) || !(za > 0)) return diff;
    const double fa = boost::math::gamma_p_derivative(k_, za), fb = boost::math::gamma_p_derivative(k_, zb);
    double hi = std::max(fa, fb);
    if (k_ - 1.0 > za && k_ - 1.0 < zb) hi = std::max(hi, boost::math::gamma_p_derivative(k_, k_ - 1.0));
    const double rel = 2e-13 + 4.0 * (std::fabs(k_ - 1.0) + zb + 1.0) * rel_z;  // f values, w
    const double c = std::fabs(k_ - 1.0) / za;
    const double curv = hi * ((c + 1.0) * (c + 1.0) + c / za) * w * w * w / 12.0;
    const double trap = 0.5 * w * (fa + fb);
    const double slack = trap * (rel + ew / w + 4.0 * kUlp) + curv * (1.0 + rel) + ew * hi * (1.0 + rel);
    const Enc tz{0.5 * (trap - slack), 0.5 * (trap + slack) + 1e-300};
    return {std::max(diff.lo, tz.lo), std::min(diff.hi, tz.hi)};
  }
  static double mid(Enc e) { return 0.5 * (e.lo + e.hi); }
  // A lower bound on e^eps v for v >= 0, without overflow.
  double exp_eps_lower(double v) const {
    if (!(v > 0)) return 0.0;
    const double lv = std::log(v);
    return std::exp(eps_ + lv) * std::max(0.0, 1.0 - (64.0 + 4.0 * (eps_ + std::fabs(lv))) * kUlp);
  }

  double h_, p_, k_, eps_;
};

}  // namespace

GgProfile gg_profile(double h, double p, double epsilon) { return Profile(h, p, epsilon).eval(); }

double gg_scale(double p, double eps, double delta, double D) {
  // Start at (c + sqrt(c^2 + eps))/eps D, c of Zhao's Mechanism 2 (sqrt 2 times a Gaussian sigma).
  const double d = std::min(delta, 0.49);
  const double c = std::sqrt(std::log((std::sqrt(16.0 * d + 1.0) + 1.0) / (8.0 * d)));
  const double start = (c + std::sqrt(c * c + eps)) / eps * D;
  // A Boost evaluation error (none is known in the accepted ranges) counts as infeasible: the
  // search then moves to more noise, never less.
  auto upper = [&](double s) {
    try {
      return gg_profile(D / s, p, eps).upper;
    } catch (const std::exception&) {
      return static_cast<double>(INFINITY);
    }
  };
  return smallest_feasible_scale(upper, delta, start, "generalized_gaussian");
}

double gg_l1_unit(double p) {
  const double k = 1.0 / p;
  return boost::math::tgamma_ratio(2.0 * k, k);
}
double gg_l2_unit(double p) {
  const double k = 1.0 / p;
  return boost::math::tgamma_ratio(3.0 * k, k);
}

namespace {

const NumberOption kP{"p", kMinP, kMaxP, kDefaultP, "1.5",
                      "the density is ~ exp(-|x/s|^p); p = 1 is Laplace, p = 2 Gaussian, the default 1.5 "
                      "halfway between"};

class GeneralizedGaussian final : public Mechanism {
 public:
  const char* name() const override { return "generalized_gaussian"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_GENERALIZED_GAUSSIAN; }
  const char* summary() const override {
    return "generalized Gaussian noise, density ~ exp(-|x/s|^p) (option p in [0.5, 10], default "
           "1.5), with the exact scale s for (epsilon, delta)";
  }
  std::vector<std::string> option_names() const override { return {kP.key}; }
  std::vector<std::string> param_names() const override { return {"s", "beta", "p"}; }

  void validate(const PrivacyRequest&, const Options& options) const override { read_option(options, "generalized_gaussian", kP); }

  void calibrate(const PrivacyRequest& req, const Options& options, dpagg_calibration& cal) const override {
    const double p = read_option(options, "generalized_gaussian", kP);
    const double s = gg_scale(p, req.epsilon, req.delta, req.sensitivity);
    const GgProfile pb = gg_profile(req.sensitivity / s, p, req.epsilon);
    if (!(pb.upper <= req.delta))
      throw Error(DPAGG_INTERNAL, "generalized_gaussian: certificate check failed");
    if (!std::isfinite(s * s * gg_l2_unit(p)))
      invalid("the generalized_gaussian noise for this epsilon and sensitivity exceeds the "
              "floating-point range",
              "Use a larger epsilon, or rescale the values so that the sensitivity is smaller.");
    cal.scale = s;
    cal.nparams = 3;
    cal.params[0] = s;
    cal.params[1] = std::pow(s, -p);
    cal.params[2] = p;
    cal.l1 = s * gg_l1_unit(p);
    cal.l2 = s * s * gg_l2_unit(p);
    cal.delta_bound = pb.upper;
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    const double s = cal.params[0], k = 1.0 / cal.params[2];
    // Z = Q^-1(k, U): Gamma(k, 1); U at full resolution reaches the far tail.
    const double z = boost::math::gamma_q_inv(k, rng.uniform_open01());
    const double mag = s * std::pow(z, k);
    return rng.random_bit() ? mag : -mag;
  }

  // The sampler's law: |X| = s Z^k, Z ~ Gamma(k, 1), k = fl(1/p), so
  //     P(|X| > w) = P(Z > (w/s)^(1/k)) = Q(k, (w/s)^(1/k))
  // with Q the regularized upper incomplete gamma.  (w/s)^p stands for (w/s)^(1/k): the division,
  // pow and |p - 1/k| <= p ulp move it by at most rel_z relative, and Q(k, .) is decreasing, so
  // Q(k, z (1 - rel_z)) is above the exact value; Boost's gamma_q is charged 2e-13 relative as in
  // the profile (gamma_rel above); a subnormal result gets DBL_MIN added (it may have underflowed).
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    const double s = cal.params[0], p = cal.params[2], k = 1.0 / p;
    if (!(w > 0)) return 1.0;
    const double t = w / s;
    const double rel_z = 2.0 * (2.0 + p * (1.0 + std::fabs(std::log(std::max(t, 1e-300))))) * kUlp;
    const double z = std::pow(t, p) * (1.0 - rel_z);
    constexpr double kMin = std::numeric_limits<double>::min();
    if (std::isinf(z)) return kMin;  // z beyond the double range: Q(k, z) < e^-700
    const double q = boost::math::gamma_q(k, z) * (1.0 + 2e-13);
    return std::min(1.0, q < kMin ? q + kMin : q);
  }
};

}  // namespace

const Mechanism& generalized_gaussian_mechanism() {
  static const GeneralizedGaussian m;
  return m;
}

}  // namespace dpagg
