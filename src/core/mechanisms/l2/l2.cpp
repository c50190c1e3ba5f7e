// l2.cpp — the l2 mechanism in R^T (see l2.h).
//
// Privacy of the l2 mechanism with delta > 0 (Wei, Bienstock & Polychroniadou 2026, Lemma 4.1, at
// alpha = T - 1; docs/generalized_gaussian.md §2-3): with X = R U, R ~ GGamma(alpha = T - 1, beta,
// p), U uniform on the sphere, W the cosine between U and the shift
// (F_W(w) = I_{(w+1)/2}((T-1)/2, (T-1)/2)) and the log-density ratio
//     l(r, w) = beta (r^p - (r^2 + 2 s w r + s^2)^{p/2}),
// which falls in w, the profile of a shift of norm s is
//     delta(eps) = E[1 - F_W(w*(R, -eps))] - e^eps E[F_W(w*(R, eps))],                     (S1)
// w*(r, y) = sup{w in [-1, 1] : l(r, w) >= y}.  Because alpha = T - 1 the log term of Lemma 4.1
// vanishes and w* has a closed form: l >= y iff r^p - y/beta >= 0 and
//     w <= ((r^p - y/beta)^{2/p} - r^2 - s^2) / (2 s r).
// For p = 1 and p = 2 both w*(r, -eps) and w*(r, eps) are monotone in r (their derivatives in r
// have a fixed sign), so both integrands are monotone, and on a bin [a, b] of the radius their
// integrals lie between (bin mass) x (integrand at a) and (bin mass) x (integrand at b).  Summing
// the larger ends of the first term and the smaller ends of the second gives a rigorous upper
// bound; bins are split where the two ends differ most until the bound is tight.  The radius
// beyond the last bin is charged in full (its mass, an incomplete gamma), and every evaluated
// quantity (ibeta, gamma_p/q: a few ulps in Boost) with a relative 1e-13 margin.  The worst
// shift has norm D (Lemma 4.2), and delta is non-increasing in theta = 1/beta (Prop. C.1), so a
// theta whose certified bound is <= delta is private; the search returns such a theta.
#include "mechanisms/l2/l2.h"

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <queue>
#include <string>

#include "errors.h"
#include "interrupt.h"
#include "mechanism.h"

namespace dpagg {

namespace {

struct Sgg {
  int T;
  double p, beta, s, eps, aw;
  double FW(double w) const {
    if (w <= -1) return 0.0;
    if (w >= 1) return 1.0;
    return boost::math::ibeta(aw, aw, (w + 1) / 2);
  }
  // w*(r, y), clamped; -2 stands for the empty set.
  double wstar(double r, double y) const {
    if (r <= 0) return -beta * std::pow(s, p) >= y ? 1.0 : -2.0;  // l(0, w) = -beta s^p for every w
    double t = std::pow(r, p) - y / beta;
    if (t < 0) return -2.0;
    double q = std::pow(t, 2.0 / p);
    double w = (q - r * r - s * s) / (2 * s * r);
    return std::min(1.0, std::max(-2.0, w));
  }
  double gm(double r) const { return 1.0 - FW(wstar(r, -eps)); }
  double gp(double r) const { return FW(wstar(r, eps)); }
  double radius(double z) const { return std::pow(z / beta, 1.0 / p); }
};

struct Bin {
  double za, zb;       // z = beta r^p
  double mass;         // P(za < Z <= zb), Z ~ Gamma(T/p)
  double gma, gmb, gpa, gpb;
  double gap(double E) const { return mass * (std::fabs(gma - gmb) + E * std::fabs(gpa - gpb)); }
  bool operator<(const Bin& o) const { return gap_cache < o.gap_cache; }
  double gap_cache;
};

}  // namespace

SggBound sgg_profile(int T, double p, double beta, double s, double epsilon, double tolerance,
                         int max_bins) {
  if (T < 2 || !(p == 1.0 || p == 2.0) || !(beta > 0) || !(s > 0) || !(epsilon >= 0))
    throw Error(DPAGG_INTERNAL, "sgg_profile: unsupported parameters");
  const Sgg g{T, p, beta, s, epsilon, (T - 1) / 2.0};
  const double E = std::exp(epsilon);
  const double k = T / p;
  // Tail of the radius: charged in full.
  const double tail_target = std::max(tolerance * 0.05, 1e-300);
  double zmax = boost::math::gamma_q_inv(k, std::min(tail_target, 0.5));
  double tail = boost::math::gamma_q(k, zmax);
  auto cdf_mass = [&](double za, double zb) {
    // Differences of P below the median, of Q above it: no cancellation in the tail.
    if (zb <= k) return boost::math::gamma_p(k, zb) - boost::math::gamma_p(k, za);
    if (za >= k) return boost::math::gamma_q(k, za) - boost::math::gamma_q(k, zb);
    return (boost::math::gamma_p(k, k) - boost::math::gamma_p(k, za)) +
           (boost::math::gamma_q(k, k) - boost::math::gamma_q(k, zb));
  };
  auto make = [&](double za, double zb, double gma, double gpa, double gmb, double gpb) {
    Bin b{za, zb, std::max(0.0, cdf_mass(za, zb)), gma, gmb, gpa, gpb, 0};
    b.gap_cache = b.gap(E);
    return b;
  };
  std::priority_queue<Bin> heap;
  std::vector<Bin> done;
  // Start: 64 bins of equal probability.
  const int n0 = 64;
  double zprev = 0, gmprev = g.gm(0), gpprev = g.gp(0);
  for (int i = 1; i <= n0; ++i) {
    double z = i == n0 ? zmax : boost::math::gamma_p_inv(k, static_cast<double>(i) / n0 * (1 - tail));
    z = std::min(z, zmax);
    if (z <= zprev) continue;
    double r = g.radius(z);
    double gm = g.gm(r), gp = g.gp(r);
    heap.push(make(zprev, z, gmprev, gpprev, gm, gp));
    zprev = z;
    gmprev = gm;
    gpprev = gp;
  }
  auto totals = [&](double& upper, double& lower) {
    double a_up = 0, a_lo = 0, b_up = 0, b_lo = 0;
    auto add = [&](const Bin& b) {
      a_up += b.mass * std::max(b.gma, b.gmb);
      a_lo += b.mass * std::min(b.gma, b.gmb);
      b_up += b.mass * std::max(b.gpa, b.gpb);
      b_lo += b.mass * std::min(b.gpa, b.gpb);
    };
    std::priority_queue<Bin> copy = heap;
    while (!copy.empty()) { add(copy.top()); copy.pop(); }
    for (const Bin& b : done) add(b);
    const double nb = static_cast<double>(heap.size() + done.size());
    const double rounding = 1e-13 * (a_up + E * b_up) + nb * 1e-17 + 1e-300;
    upper = a_up * (1 + 1e-13) + tail * (1 + 1e-13) - E * b_lo * (1 - 1e-13) + rounding;
    lower = a_lo - E * b_up - E * tail - rounding;
  };
  // Refine: split the bin with the largest gap until the total gap is below the tolerance.
  double gap_total = 0;
  {
    std::priority_queue<Bin> copy = heap;
    while (!copy.empty()) { gap_total += copy.top().gap_cache; copy.pop(); }
  }
  int bins = static_cast<int>(heap.size());
  int since_check = 0;
  while (!heap.empty() && gap_total > tolerance * 0.5 && bins < max_bins) {
    Bin b = heap.top();
    heap.pop();
    gap_total -= b.gap_cache;
    if (b.zb - b.za <= 1e-15 * b.zb) {  // cannot split further
      done.push_back(b);
      continue;
    }
    double zm = 0.5 * (b.za + b.zb);
    double r = g.radius(zm);
    double gm = g.gm(r), gp = g.gp(r);
    Bin left = make(b.za, zm, b.gma, b.gpa, gm, gp);
    Bin right = make(zm, b.zb, gm, gp, b.gmb, b.gpb);
    gap_total += left.gap_cache + right.gap_cache;
    heap.push(left);
    heap.push(right);
    ++bins;
    if (++since_check >= 1024) {
      since_check = 0;
      check_interrupt();
    }
  }
  double upper, lower;
  totals(upper, lower);
  // e^eps overflows beyond eps ~ 709.78: no bound then (never clamp a NaN or -inf to 0).
  if (!std::isfinite(E) || !std::isfinite(upper) || !std::isfinite(lower)) return {0.0, 1.0, bins};
  return {std::max(0.0, lower), std::max(0.0, upper), bins};
}

namespace {
// A fast estimate (not a bound) of the l2 mechanism's profile: the midpoint rule over n bins of
// equal probability of the radius, which is second-order accurate where the integrands are
// smooth.  Used only to choose the theta that is then certified.
double l2_profile_estimate(int T, double theta, double s, double epsilon) {
  const int n = T < 8 ? 2048 : 512;  // small T: sharper integrands, more points
  static thread_local int cached_T = -1;
  static thread_local std::vector<double> zmid;
  if (cached_T != T) {
    zmid.resize(n);
    for (int i = 0; i < n; ++i) zmid[static_cast<size_t>(i)] = boost::math::gamma_p_inv(static_cast<double>(T), (i + 0.5) / n);
    cached_T = T;
  }
  const Sgg g{T, 1.0, 1.0 / theta, s, epsilon, (T - 1) / 2.0};
  const double E = std::exp(epsilon);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    double r = zmid[static_cast<size_t>(i)] * theta;
    sum += g.gm(r) - E * g.gp(r);
  }
  return sum / n;
}
}  // namespace

double l2_mechanism_theta(int T, double epsilon, double delta, double D, double* delta_bound) {
  const double pure = D / epsilon;
  if (delta_bound) *delta_bound = 0;
  // The (eps, delta) calibration is attempted where it is tractable: 2 <= T <= 256, e^eps finite.
  if (delta <= 0 || T < 2 || T > 256 || epsilon > 700) return pure;
  // 1. Search (not a proof): the theta where the estimated profile is a fraction of delta.
  // 2. Certify it once with the rigorous bound (l2.cpp, top); on failure aim lower; if no
  //    attempt can be certified within the work limit, the pure-DP theta D / epsilon.
  // The monotone-bin bound converges like 1/bins, so very small deltas are out of reach: the
  // certificate's slack (tolerance) is a fraction of delta, and the work limit caps the bins.
  for (double fraction : {0.85, 0.6}) {
    const double target = fraction * delta;
    auto f = [&](double lt) { return l2_profile_estimate(T, std::exp(lt), D, epsilon) - target; };
    double hi = std::log(pure), lo = hi - std::log(2.0);
    // The estimate may sit above the target even at the pure theta (tiny delta): no bracket, so
    // this fraction gives nothing; the pure theta remains.
    if (!(f(hi) <= 0)) continue;
    int guard = 0;
    while (f(lo) <= 0 && guard++ < 40) {
      hi = lo;
      lo -= std::log(2.0);
    }
    if (guard >= 40) break;
    const double flo = f(lo), fhi = f(hi);
    if (!(flo > 0 && fhi <= 0)) continue;
    boost::uintmax_t iters = 40;
    auto tol = [](double a, double b) { return std::fabs(a - b) <= 1e-6; };
    std::pair<double, double> br;
    try {
      br = boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, tol, iters);
    } catch (const std::exception&) {
      continue;
    }
    const double theta = std::min(pure, std::exp(br.second));
    if (theta >= pure) break;
    SggBound b = sgg_profile(T, 1.0, 1.0 / theta, D, epsilon, (1 - fraction) * delta * 0.9, 40000);
    if (b.upper <= delta) {
      if (delta_bound) *delta_bound = b.upper;
      return theta;
    }
  }
  return pure;
}

namespace {

class L2Mechanism final : public Mechanism {
 public:
  // Not a scalar mechanism name: at T = 1 it is the laplace mechanism, listed under that name.
  const char* name() const override { return "l2"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_L2; }
  const char* summary() const override {
    return "the l2 mechanism for vector releases: density proportional to exp(-||x||_2 / theta); "
           "epsilon-DP at theta = l2_bound / epsilon, (epsilon, delta)-DP below it where certified";
  }
  const char* guarantee() const override { return "epsilon-DP, or (epsilon, delta)-DP if delta > 0"; }
  bool accepts_zero_delta() const override { return true; }
  std::vector<std::string> param_names() const override { return {"theta"}; }
  const char* vector_name() const override { return "l2"; }
  bool serves(const PrivacyRequest& req) const override { return req.vector; }
  // Beyond T = 256 its (eps, delta) calibration is not attempted (l2_mechanism_theta) and, when
  // delta > 0, `auto` keeps the Gaussian, whose E||X||^2 grows like T against T^2 (Wei, Bienstock
  // & Polychroniadou, Theorem 3.1).  This affects only which mechanism is used, never privacy.
  bool auto_considers(const PrivacyRequest& req) const override {
    return serves(req) && (req.dimension <= 256 || req.delta == 0);
  }

  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    const double T = req.dimension;
    double db = 0;
    const double theta = l2_mechanism_theta(req.dimension, req.epsilon, req.delta, req.sensitivity, &db);
    cal.scale = theta;
    cal.nparams = 1;
    cal.params[0] = theta;
    cal.l1 = T * theta;                    // the radius is Gamma(T, theta)
    cal.l2 = T * (T + 1) * theta * theta;  // E R^2
    cal.delta_bound = db;
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    if (cal.dimension != 1) throw Error(DPAGG_INTERNAL, "l2: a vector needs sample_vector");
    return sample_laplace(cal.scale, rng);
  }

  void sample_vector(const dpagg_calibration& cal, RandomSource& rng, double* out) const override {
    const int T = cal.dimension;
    if (T == 1) {
      out[0] = sample_laplace(cal.scale, rng);
      return;
    }
    // Radius ~ Gamma(T, theta): a sum of T exponentials; direction: a normalised Gaussian vector.
    double r = 0;
    for (int j = 0; j < T; ++j) r += -std::log(rng.uniform_open01());
    r *= cal.scale;
    double norm2 = 0;
    for (int j = 0; j < T; ++j) {
      out[j] = sample_standard_normal(rng);
      norm2 += out[j] * out[j];
    }
    double f = r / std::sqrt(norm2);
    for (int j = 0; j < T; ++j) out[j] *= f;
  }
};

}  // namespace

const Mechanism& l2_mechanism() {
  static const L2Mechanism m;
  return m;
}

}  // namespace dpagg
