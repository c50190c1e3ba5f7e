// tulap.cpp — Tulap noise (privacy argument in tulap.h; derivations in docs/tulap.md): the
// truncation point with a certified profile bound, the losses, the sampler, the tail.
//
// Units: N is in units of the sensitivity D (the release adds D N).  The outer part of |N| is
// 1/2 + y, y >= 0 a "stepped exponential": P(y > k + u) = Sy(k + u) = b^k (1 - u (1 - b)) for an
// integer k >= 0 and u in [0, 1]; truncation at L = 1/2 + J keeps y < J.
#include <algorithm>
#include <cmath>
#include <limits>

#include "errors.h"
#include "mechanisms/tulap/tulap.h"

namespace dpagg {
namespace {

constexpr double kMaxEps = 700.0;
constexpr double kOuterMargin = 0x1p-45;   // P(outer part) raised by this, relative
constexpr double kEvalMargin = 2e-11;      // charged to the profile's evaluation (tulap.h)
constexpr double kTargetShrink = 1e-10;    // L is computed for delta (1 - this)

// The truncation J = j + r (j an integer, r in [0, 1)), with Sy(J) and 1 - Sy(J) without
// cancellation.  J = +infinity: no truncation.
struct Trunc {
  double eps, b, omb;  // eps used, b = e^-eps, 1 - b
  bool none;
  double j, r, syj, one_minus_syj;
  Trunc(double eps_used, double J) : eps(eps_used), b(std::exp(-eps_used)), omb(-std::expm1(-eps_used)) {
    none = !std::isfinite(J);
    if (none) {
      j = r = 0;
      syj = 0;
      one_minus_syj = 1;
      return;
    }
    j = std::floor(J);
    r = J - j;  // exact
    const double bj = std::exp(-j * eps);
    syj = bj * (1.0 - r * omb);
    one_minus_syj = -std::expm1(-j * eps) + bj * r * omb;
  }
  // P(|N| >= 1/2) of the truncated law (before the sampler's margin).
  double p_outer() const {
    const double outer = 2.0 * b * one_minus_syj;
    return outer / (omb + outer);
  }
  // delta(L) = (1 - b) Sy(J) / ((1 - b) + 2 b (1 - Sy(J))), the profile at the shift D.
  double profile() const { return none ? 0.0 : omb * syj / (omb + 2.0 * b * one_minus_syj); }
};

// J with Sy(J) = s, from 1 - s (given without cancellation), rounded towards a larger J.
double j_for_survival(double s, double one_minus_s, double eps) {
  const double omb = -std::expm1(-eps);
  // -log s, from whichever of s and 1 - s is the more accurate.
  const double neg_log_s = s < 0.5 ? -std::log(s) : -std::log1p(-one_minus_s);
  double j = std::floor(neg_log_s / eps);
  double r = 0;
  for (int it = 0; it < 4; ++it) {
    // r = (1 - s / b^j) / (1 - b); s / b^j = exp(log s + j eps).
    r = j == 0 ? one_minus_s / omb : -std::expm1(-neg_log_s + j * eps) / omb;
    if (r < 0 && j > 0) {
      j -= 1;
    } else if (r >= 1) {
      j += 1;
    } else {
      break;
    }
  }
  r = std::min(std::max(r, 0.0), 1.0);
  return j + r;
}

// E y and E y^2 of y truncated to [0, J): pieces [k, k+1) of mass b^k (1-b) for k < j, and
// [j, j + r) of mass b^j (1 - b) r; normalised by 1 - Sy(J).  In long double; by direct summation
// where the closed form would cancel (j eps small), by the closed form otherwise.
void outer_moments(const Trunc& t, long double& m1, long double& m2) {
  using LD = long double;
  const LD eps = t.eps;
  const LD omb = -std::expm1(-eps);
  const LD m = 1.0L / std::expm1(eps);  // E K, K geometric
  const LD s = m * (1 + 2 * m);         // E K^2
  if (t.none) {
    m1 = m + 0.5L;
    m2 = s + m + 1.0L / 3;
    return;
  }
  const LD j = t.j, r = t.r;
  LD S0, S1, S2;  // sum_{k<j} b^k (1-b) {1, k, k^2}
  if (j <= 100000 && j * eps <= 1) {
    S0 = S1 = S2 = 0;
    for (long k = 0; k < static_cast<long>(j); ++k) {
      const LD w = std::exp(-static_cast<LD>(k) * eps) * omb;
      S0 += w;
      S1 += w * k;
      S2 += w * k * k;
    }
  } else {
    // sum_{k<j} = E[K^i] - E[K^i; K >= j], and K >= j is j + an independent copy of K.
    const LD bj = std::exp(-j * eps), ombj = -std::expm1(-j * eps);
    S0 = ombj;
    S1 = m * ombj - j * bj;
    S2 = s * ombj - bj * j * (j + 2 * m);
  }
  const LD bj = std::exp(-j * eps);
  const LD last = bj * omb * r;
  const LD Z = S0 + last;
  // Within a full piece k: E y = k + 1/2, E y^2 = k^2 + k + 1/3; the last piece: j + r/2 and
  // j^2 + j r + r^2/3.
  m1 = (S1 + 0.5L * S0 + last * (j + r / 2)) / Z;
  m2 = (S2 + S1 + S0 / 3 + last * (j * j + j * r + r * r / 3)) / Z;
  m1 = std::min(std::max(m1, 0.0L), static_cast<LD>(j + r));
  m2 = std::min(std::max(m2, m1 * m1), static_cast<LD>((j + r) * (j + r)));
}

class Tulap final : public Mechanism {
 public:
  const char* name() const override { return "tulap"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_TULAP; }
  const char* summary() const override {
    return "Tulap noise of Awan and Slavkovic (the canonical noise distribution of (epsilon, "
           "delta)-DP): discrete Laplace plus a uniform, truncated to its central 1 - q for delta > 0";
  }
  const char* guarantee() const override { return "epsilon-DP when delta = 0, else (epsilon, delta)-DP"; }
  bool accepts_zero_delta() const override { return true; }
  std::vector<std::string> param_names() const override {
    return {"epsilon_used", "L", "q", "p_outer", "step"};
  }
  // At delta = 0 tulap is the staircase with gamma = 1/2, never better than `staircase`'s own
  // choice of gamma: auto considers it only where it uses delta.
  bool auto_considers(const PrivacyRequest& req) const override {
    return req.delta > 0 && serves(req);
  }

  void calibrate(const PrivacyRequest& req, const Options&, dpagg_calibration& cal) const override {
    const double eps = std::min(req.epsilon, kMaxEps);
    const double D = req.sensitivity;
    const double b = std::exp(-eps), omb = -std::expm1(-eps);
    double J = std::numeric_limits<double>::infinity();
    double bound = 0.0;
    if (req.delta > 0) {
      const double d = req.delta * (1.0 - kTargetShrink);
      // Sy(J) = d (1 + b) / (1 - b + 2 b d); 1 - Sy(J) = (1 - b)(1 - d) / (1 - b + 2 b d).
      const double den = omb + 2.0 * b * d;
      const double s = d * (1.0 + b) / den, one_minus_s = omb * (1.0 - d) / den;
      double L = (0.5 + j_for_survival(s, one_minus_s, eps)) * (1.0 + 0x1p-50);
      for (int it = 0;; ++it) {
        const Trunc t(eps, L - 0.5);  // L - 1/2 is exact (L > 1/2)
        bound = t.profile() * (1.0 + kEvalMargin);
        if (bound <= req.delta) break;
        if (it > 60) throw Error(DPAGG_INTERNAL, "tulap: certificate check failed");
        L *= 1.0 + 1e-12 * std::ldexp(1.0, it);
      }
      J = L - 0.5;
    }
    const Trunc t(eps, J);
    const double p_outer = std::min(1.0, t.p_outer() * (1.0 + kOuterMargin));
    long double m1, m2;
    outer_moments(t, m1, m2);
    // |N| = centre (uniform on [0, 1/2)) or 1/2 + y.
    const long double e_abs = (1 - p_outer) * 0.25L + p_outer * (0.5L + m1);
    const long double e_sq = (1 - p_outer) / 12.0L + p_outer * (0.25L + m1 + m2);
    cal.nparams = 5;
    cal.params[0] = eps;
    cal.params[1] = std::isfinite(J) ? J + 0.5 : 0.0;  // 0: no truncation
    cal.params[2] = std::isfinite(J) ? 2.0 * b / (1.0 + b) * t.syj : 0.0;  // P(|N0| > L)
    cal.params[3] = p_outer;
    cal.params[4] = D;
    cal.l1 = static_cast<double>(D * e_abs);
    cal.l2 = static_cast<double>(static_cast<long double>(D) * D * e_sq);
    cal.scale = cal.l1;
    cal.delta_bound = bound;
    if (!(std::isfinite(cal.l1) && cal.l1 > 0 && std::isfinite(cal.l2)))
      invalid("the tulap noise for this epsilon and sensitivity is not representable",
              "Rescale the values or raise epsilon.");
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    const double eps = cal.params[0], L = cal.params[1], p_outer = cal.params[3], D = cal.params[4];
    // The truncation's constants depend on (eps, L) only: kept for the last pair seen, since a
    // GROUP BY draws from one calibration for every group (their four exp/expm1 calls were most
    // of a draw's cost).  Computed exactly as before, so the draws are unchanged.
    struct LastTrunc {
      double eps = -1, L = -1;
      Trunc t{1.0, 0.0};
    };
    thread_local LastTrunc last;
    if (!(last.eps == eps && last.L == L)) {
      last.t = Trunc(eps, L > 0 ? L - 0.5 : std::numeric_limits<double>::infinity());
      last.eps = eps;
      last.L = L;
    }
    const Trunc& t = last.t;
    const bool negative = rng.random_bit();
    double a;
    if (rng.uniform_open01() < p_outer) {
      // Inverse survival of y given y < J: Sy(y) = Sy(J) + v (1 - Sy(J)), v uniform on (0, 1).
      const double v = rng.uniform_open01();
      const double sigma = t.syj + v * t.one_minus_syj;
      const double log_sigma = std::log(sigma);
      double k = std::floor(-log_sigma / eps);
      double u = 0;
      for (int it = 0; it < 4; ++it) {
        u = -std::expm1(log_sigma + k * eps) / t.omb;  // (1 - sigma / b^k) / (1 - b)
        if (u < 0 && k > 0) {
          k -= 1;
        } else if (u >= 1) {
          k += 1;
        } else {
          break;
        }
      }
      u = std::min(std::max(u, 0.0), 1.0);
      double y = k + u;
      if (!t.none) y = std::min(y, L - 0.5);
      a = 0.5 + y;
    } else {
      a = 0.5 * rng.uniform53();
    }
    const double x = D * a;
    return negative ? -x : x;
  }

  // P(|X| > w): for t = w/D < 1/2, (1 - p)(1 - 2t) + p; else p (Sy(t - 1/2) - Sy(J)) / (1 - Sy(J));
  // 0 beyond L.  t is taken a little low; each term is bounded for its rounding (1e-12 relative).
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    const double eps = cal.params[0], L = cal.params[1], p = cal.params[3], D = cal.params[4];
    if (!(w > 0)) return 1.0;
    const double tt = w / D * (1.0 - 0x1p-50);
    if (!std::isfinite(tt)) return 0.0;
    if (L > 0 && tt >= L) return 0.0;
    double tail;
    if (tt < 0.5) {
      tail = (1.0 - p) * (1.0 - 2.0 * tt) + p;
    } else {
      const Trunc t(eps, L > 0 ? L - 0.5 : std::numeric_limits<double>::infinity());
      const double x = tt - 0.5, k = std::floor(x), u = x - k;
      const double sy = std::exp(-k * eps) * (1.0 - u * t.omb);
      const double num = std::max(0.0, sy * (1 + 1e-12) - t.syj * (1 - 1e-12));
      tail = p * num / t.one_minus_syj;
    }
    return std::min(1.0, tail * (1.0 + 1e-12));
  }
};

}  // namespace

const Mechanism& tulap_mechanism() {
  static const Tulap m;
  return m;
}

}  // namespace dpagg
