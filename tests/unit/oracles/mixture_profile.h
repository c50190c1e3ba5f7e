// mixture_profile — the privacy profile of the Gaussian mixtures (multi_gaussian, quasi_gaussian)
// evaluated from scratch, as the oracle of every mixture test:
//     delta(phi) = integral of (f(x - phi) - e^eps f(x))_+ dx,     phi in (0, 1]   (sensitivity 1).
//
// Independent of src/core/mechanisms/multi_gaussian/ and quasi_gaussian/ (it shares no code with
// src/core):
//   * the density is rebuilt here as a list of Gaussian pieces w N(x; mu, sigma^2), each possibly
//     restricted to a half-line (the quasi-Gaussian's folded part);
//   * the crossing points of f(x - phi) and e^eps f(x) are located by the sign of
//     v(x) = log f(x - phi) - log f(x) - eps (log-sum-exp, no underflow) on an x grid of step
//     <= sigma/200 covering every centre +- 13 sigma, and refined by TOMS 748 on v;
//   * each violating interval is integrated in closed form (docs/mixtures.md §2.5): differences
//     of Phi taken with erfc on the side where both arguments have the same sign, in long double
//     (std::erfc), and at the final arg max again in 50 digits (boost::multiprecision).  A
//     crossing enters the value only at second order, so v itself is evaluated in double;
//   * the mass of the shifted density outside the scanned x range (< Q(13) ~ 1e-38) is added as
//     an upper allowance: `upper` bounds delta(phi) up to the rounding of the Phi sums;
//   * the sup over phi: 2000 equally spaced shifts in (0, 1] (log f stored on a lattice that
//     contains every shift, so f(x_i - phi_j) is a stored sample), then golden-section refinement
//     around the three largest local maxima.
// The evaluator is itself validated against closed forms in test_oracles.cpp (K = 0 is the
// Gaussian, eq. (G1) of docs/gaussian_rules.md; Lemma B.5's K = 1 vectors; the single-shift
// vector and the eta = 0.01 sigma of docs/mixtures.md §8; the quasi-Gaussian's Theorem 4.2 tail
// identity, exact at phi = 1 when sigma = sigma1) and against the reference sigma* of the K = 10
// mixture, where it finds sup delta(phi) = delta to 1e-8 (test_multi_gaussian.cpp).
#pragma once

#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include "oracles/gaussian_mp.h"

namespace dpagg_oracle {

using LD = long double;

constexpr LD kSqrt2L = 1.414213562373095048801688724209698079L;
constexpr LD kLogSqrt2PiL = 0.918938533204672741780329736405617639861L;  // log sqrt(2 pi)

// Upper tail of N(0, 1) and Phi differences, generic in the number type.
inline LD upper_tail(LD z) { return 0.5L * std::erfc(z / kSqrt2L); }
inline mp upper_tail(const mp& z) {
  static const mp sqrt2 = boost::multiprecision::sqrt(mp(2));
  return boost::math::erfc(z / sqrt2) / 2;
}
// Phi(z2) − Phi(z1) for z1 <= z2 (z1 = −inf / z2 = +inf given by the flags), without cancellation.
template <class T>
T phi_diff(T z1, bool z1_minus_inf, T z2, bool z2_plus_inf) {
  if (z1_minus_inf && z2_plus_inf) return T(1);
  if (z1_minus_inf) return z2 <= 0 ? upper_tail(T(-z2)) : T(1) - upper_tail(z2);
  if (z2_plus_inf) return z1 >= 0 ? upper_tail(z1) : T(1) - upper_tail(T(-z1));
  if (z1 >= 0) return upper_tail(z1) - upper_tail(z2);
  if (z2 <= 0) return upper_tail(T(-z2)) - upper_tail(T(-z1));
  return T(1) - upper_tail(z2) - upper_tail(T(-z1));
}

// w * N(x; mu, sigma^2) restricted to [lo, hi) (lo = -inf / hi = +inf allowed).
struct Piece {
  LD w, logw, mu, lo, hi;
};

class Mixture {
 public:
  // f(x) = sum_{k=-K..K} w_k N(x; k, sigma^2), w_k ∝ e^{-|k| eps}.
  static Mixture multi(LD eps, int K, LD sigma) {
    Mixture m;
    m.sigma = sigma;
    m.K = K;
    m.lattice = true;
    LD S = 0;
    for (int k = -K; k <= K; ++k) S += std::exp(-std::abs(k) * eps);
    for (int k = -K; k <= K; ++k) {
      LD w = std::exp(-std::abs(k) * eps) / S;
      m.p.push_back({w, -std::abs(k) * eps - std::log(S), LD(k), -INFINITY, INFINITY});
    }
    m.cmin = -K;
    m.cmax = K;
    m.init();
    return m;
  }
  // f(x) = (e^eps/c) e^{-x^2/2s^2} + (1/c) e^{-(|x|-1)^2/2s^2},  c = sqrt(2 pi) s (e^eps + 2 Phi(1/s))
  // (docs/mixtures.md §3.1): N(0, s^2) with weight e^eps/c', and N(±1, s^2) on the half-lines.
  static Mixture quasi(LD eps, LD sigma) {
    Mixture m;
    m.sigma = sigma;
    m.K = 1;
    m.lattice = false;
    const LD Phi1 = 1 - upper_tail(1 / sigma);
    const LD cn = std::exp(eps) + 2 * Phi1;
    m.p.push_back({std::exp(eps) / cn, eps - std::log(cn), 0, -INFINITY, INFINITY});
    m.p.push_back({1 / cn, -std::log(cn), 1, 0, INFINITY});
    m.p.push_back({1 / cn, -std::log(cn), -1, -INFINITY, 0});
    m.cmin = -1;
    m.cmax = 1;
    m.init();
    return m;
  }

  // log f(x).  It only locates the sign changes of log f(x - phi) - log f(x) - eps (the integrals
  // are Phi sums in long double / 50 digits), so double is ample: an error of 1e-16 in it moves a
  // crossing by ~1e-16 sigma, which changes delta at second order only.
  LD log_density(LD x) const { return lattice ? log_density_lattice(double(x)) : log_density_pieces(double(x)); }
  LD density(LD x) const { return std::exp(log_density(x)); }

  // ∫_a^b f (a < b; a = -inf, b = +inf allowed), generic in the number type of the Phi sums.
  template <class T>
  T mass(LD a, LD b, LD shift = 0) const {
    T total = 0;
    const LD prune = 15;  // a piece with both ends beyond 15 sigma on one side has mass < 4e-51 there
    for (const Piece& q : p) {
      LD A = std::max(a, q.lo + shift), B = std::min(b, q.hi + shift);
      if (!(A < B)) continue;
      const bool ainf = std::isinf(A), binf = std::isinf(B);
      LD z1 = ainf ? 0 : (A - shift - q.mu) / sigma, z2 = binf ? 0 : (B - shift - q.mu) / sigma;
      if ((!ainf && z1 > prune) || (!binf && z2 < -prune)) continue;
      T zz1 = z1, zz2 = z2;
      if (!std::is_same<T, LD>::value) {  // recompute the arguments in T
        if (!ainf) zz1 = (T(A) - T(shift) - T(q.mu)) / T(sigma);
        if (!binf) zz2 = (T(B) - T(shift) - T(q.mu)) / T(sigma);
      }
      total += T(q.w) * phi_diff<T>(zz1, ainf, zz2, binf);
    }
    return total;
  }

  LD sigma = 1;
  int K = 0;
  bool lattice = false;
  std::vector<Piece> p;
  LD cmin = 0, cmax = 0;  // range of the centres

 private:
  void init() {
    inv2s2_ = static_cast<double>(1 / (2 * sigma * sigma));
    lognorm_ = static_cast<double>(kLogSqrt2PiL + std::log(sigma));
    for (const Piece& q : p) logw_.push_back(static_cast<double>(q.logw));
  }
  // Components at the integers: the exponent -|k| eps - (x-k)^2/2s^2 is concave in k, so a hill
  // climb from the nearest centre finds its maximum; terms 40 below the maximum are dropped
  // (relative 4e-18).
  double log_density_lattice(double x) const {
    auto ex = [&](int k) {
      double y = x - k;
      return logw_[static_cast<size_t>(k + K)] - y * y * inv2s2_;
    };
    int k = static_cast<int>(std::lround(std::min<double>(K, std::max<double>(-K, x))));
    double e = ex(k);
    while (k < K && ex(k + 1) > e) e = ex(++k);
    while (k > -K && ex(k - 1) > e) e = ex(--k);
    double sum = 1;
    for (int j = k + 1; j <= K; ++j) {
      double t = ex(j) - e;
      if (t < -40) break;
      sum += std::exp(t);
    }
    for (int j = k - 1; j >= -K; --j) {
      double t = ex(j) - e;
      if (t < -40) break;
      sum += std::exp(t);
    }
    return e + std::log(sum) - lognorm_;
  }
  double log_density_pieces(double x) const {
    double e[8];
    int n = 0;
    double emax = -INFINITY;
    for (size_t i = 0; i < p.size(); ++i) {
      const Piece& q = p[i];
      if (x < q.lo || x >= q.hi) continue;
      double y = x - static_cast<double>(q.mu);
      e[n] = logw_[i] - y * y * inv2s2_;
      emax = std::max(emax, e[n]);
      ++n;
    }
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::exp(e[i] - emax);
    return emax + std::log(sum) - lognorm_;
  }
  double inv2s2_ = 0.5, lognorm_ = 0;
  std::vector<double> logw_;
};

struct DeltaValue {
  LD value = 0;  // the integral over the scanned x range
  LD upper = 0;  // value + the shifted mass outside the scanned range (an upper bound on delta)
  std::vector<std::pair<LD, LD>> intervals;  // the violating intervals found
};

// delta(phi) by crossing points and closed-form Phi sums.
class ProfileEvaluator {
 public:
  static constexpr LD kTail = 13;        // scan every centre +- 13 sigma
  static constexpr int kPerSigma = 200;  // x grid step <= sigma / 200

  ProfileEvaluator(const Mixture& m, double eps);

  // delta(phi) at an arbitrary phi: log f(x_i − phi) computed afresh on the direct grid.
  DeltaValue at(LD phi);

  // delta(j / M) for j = 1..M.  log f is stored on a fine lattice of step hf = 1/(M mult) that
  // contains every shift, and the scan grid is every q-th lattice point (step q hf <= sigma/200),
  // so f(x_i − j/M) is a stored sample for every i and j.
  std::vector<DeltaValue> lattice_profile(int M);

  // The same delta(phi) as `dv`, its violating intervals re-integrated in 50 digits (those whose
  // long-double integral is below 1e-12 of the total, e.g. the rounding-level slivers where
  // f(x − 1) and e^eps f(x) share their dominant terms, are added as they are).
  mp in_50_digits(LD phi, const DeltaValue& dv) const;

  LD xs() const { return xs_; }
  LD xe() const { return xe_; }

 private:
  LD xd(size_t i) const { return xs_ + LD(i) * hd_; }
  void ensure_direct_grid();
  // The indices i in 1..n where the sign of sh[i] − ue[i] differs from that at i − 1
  // (sh: log f(x_i − phi); ue: log f(x_i) + eps); 64-point blocks without a change are skipped
  // after a branch-free count.
  static std::vector<size_t> sign_changes(const double* sh, const double* ue, size_t n, bool* first);
  // v(x) = log f(x − phi) − log f(x) − eps > 0 exactly where the integrand is positive.
  template <class X>
  DeltaValue integrate(LD phi, size_t n, X x_at, const double* sh, const double* ue) const;

  const Mixture& m_;
  double eps_;
  LD xs_, xe_;
  LD hd_ = 0;
  size_t nd_ = 0;
  std::vector<double> bd_;  // log f(x_i) + eps on the direct grid
};

struct Sup {
  LD sup = 0;          // the largest upper value found (lattice and refined shifts)
  LD argmax = 0;       // where
  LD lattice_sup = 0;  // the largest value on the 2000 lattice shifts alone
  LD lattice_argmax = 0;
  mp sup_50 = 0;       // delta(argmax) re-integrated in 50 digits
};

// Golden-section search for the largest delta over [lo, hi]; *best_phi and *best_upper track the
// largest upper value seen (they start as the caller's best so far).
LD golden_max(ProfileEvaluator& ev, LD lo, LD hi, int iters, LD* best_phi, LD* best_upper);

// sup over phi in (0, 1] of delta(phi): M lattice shifts, then golden-section refinement around
// the `refine` largest local maxima (bracket: the neighbouring lattice shifts).
Sup profile_sup(const Mixture& m, double eps, int M = 2000, int refine = 3, int golden_iters = 24,
                bool check_50_digits = true);

// sup of the exact profile over the shifts an integer_shifts calibration certifies (m / D, m = 1..D),
// or over dense shifts in (0, 1] (with a few just below 1) when integer_shifts = 0; `upper` values.
LD independent_sup(double eps, int K, double sigma, int integer_shifts, LD* argmax);

}  // namespace dpagg_oracle
