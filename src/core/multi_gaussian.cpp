// multi_gaussian.cpp — density, losses, the rigorous envelope certificate and the fast search of
// the multi-Gaussian mixture.  See multi_gaussian.h and docs/multi_gaussian_certificate.md.
#include "multi_gaussian.h"

#include <boost/math/special_functions/erf.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <climits>
#include <limits>
#include <map>

#include "errors.h"
#include "gaussian.h"
#include "interrupt.h"

namespace dpagg {

namespace {
constexpr double kSqrt2Pi = 2.50662827463100050242;
// The smallest sigma (in units of D) dpagg uses: below it an integer-valued release is already
// almost a discrete (truncated) Laplace, and the grids of the certificate would grow without bound.
constexpr double kSigmaFloor = 0.02;
// Work limit of one certification; beyond it the closed-form fallback is used.
constexpr int kMaxIntervals = 20000;
// Beyond 38.6 sigma a Gaussian term is below e^-745 of its peak: it underflows to 0 in double.
constexpr double kWindow = 38.6;
}  // namespace

GaussLattice::GaussLattice(double eps, int K, double sigma)
    : eps_(eps), K_(K), sigma_(sigma), w_(static_cast<size_t>(2 * K + 1)), c0_(1.0 / (kSqrt2Pi * sigma)) {
  double s = 0;
  for (int k = -K; k <= K; ++k) s += std::exp(-std::abs(k) * eps);
  for (int k = -K; k <= K; ++k) w_[static_cast<size_t>(k + K)] = std::exp(-std::abs(k) * eps) / s;
}

double GaussLattice::density(double x) const {
  double sum = 0, inv = 1.0 / (2 * sigma_ * sigma_);
  for (int k = -K_; k <= K_; ++k) {
    double y = x - k;
    sum += weight(k) * std::exp(-y * y * inv);
  }
  return sum * c0_;
}

double GaussLattice::cdf(double x) const {
  double sum = 0;
  for (int k = -K_; k <= K_; ++k) sum += weight(k) * (1 - normal_upper_tail((x - k) / sigma_));
  return sum;
}

double GaussLattice::l1() const {
  // E|X| = sum_k w_k [ sigma sqrt(2/pi) e^{-k^2/(2 sigma^2)} + |k| erf(|k|/(sigma sqrt 2)) ]
  // (Liu, Selvi & Wiesemann, App. B.2; docs/mixtures.md §2.3)
  double sum = 0;
  for (int k = -K_; k <= K_; ++k) {
    double ak = std::abs(k);
    sum += weight(k) * (sigma_ * 0.79788456080286535588 * std::exp(-ak * ak / (2 * sigma_ * sigma_)) +
                        ak * boost::math::erf(ak / (sigma_ * 1.41421356237309504880)));
  }
  return sum;
}

double GaussLattice::l2() const {
  double sum = 0;
  for (int k = -K_; k <= K_; ++k) sum += weight(k) * (sigma_ * sigma_ + double(k) * k);
  return sum;
}

// ---------------------------------------------------------------------------------------------
// The rigorous envelope bound.
//
// For phi in [a, b], f(x - phi) <= G(x) = sum_k w_k g_k(x), g_k(x) = n(dist(x - k, [a, b])) with n
// the N(0, sigma^2) density, so sup_{phi in [a,b]} delta(phi) <= U = integral (G - E f)_+, E = e^eps.
// U is bounded above by:
//  * tails: outside [X_L, X_R] = [-K + a - z sigma, K + b + z sigma], (G - E f)_+ <= G, whose mass
//    there is at most 2 Q(z) (all weights sum to 1);
//  * cells: [X_L, X_R] is cut at every kink of G (x = k + a, k + b) and into steps of at most
//    sigma/8, so D = G - E f is C^2 on each cell.  On a cell [u, v] of width h,
//    D(x) <= l(x) + c with l the chord through (u, D(u)), (v, D(v)) and c = M h^2/8 + e, where
//    M >= sup |D''| on the cell and e bounds the rounding error of D(u), D(v).  The integral of
//    (l + c)_+ is closed form.  M is a sum of per-component bounds written in the paired form
//    w_k [g_k - n(. - k - 1)] (E w_{k+1} = w_k for k >= 0), so that it is small where the shifted
//    and unshifted components nearly cancel (phi near 1).
//  * refinement: a cell whose upper and lower (l - c) integrals differ by more than its share of
//    `tolerance` is halved, down to width 1e-12 sigma; the upper bound is used in every case.
namespace {

struct Range {
  double lo, hi;
};
// sup over y in [lo, hi] of |n''(y)| * sigma^4 / c0 = e^{-y^2/2s^2} |y^2 - s^2|
double n2_sup(Range r, double s) {
  double ymin = (r.lo <= 0 && r.hi >= 0) ? 0 : std::min(std::fabs(r.lo), std::fabs(r.hi));
  double ymax = std::max(std::fabs(r.lo), std::fabs(r.hi));
  return std::exp(-ymin * ymin / (2 * s * s)) * std::max(ymax * ymax, s * s);
}
// sup over y in [lo, hi] of |n'''(y)| * sigma^6 / c0 = e^{-y^2/2s^2} |3 y s^2 - y^3|
double n3_sup(Range r, double s) {
  double ymin = (r.lo <= 0 && r.hi >= 0) ? 0 : std::min(std::fabs(r.lo), std::fabs(r.hi));
  double ymax = std::max(std::fabs(r.lo), std::fabs(r.hi));
  return std::exp(-ymin * ymin / (2 * s * s)) * (3 * ymax * s * s + ymax * ymax * ymax);
}
// Integral over [0, h] of the positive part of the linear function from p to q.
double pos_linear_integral(double p, double q, double h) {
  if (p >= 0 && q >= 0) return h * (p + q) / 2;
  if (p <= 0 && q <= 0) return 0;
  double m = std::max(p, q);
  return h * m * m / (2 * (std::fabs(p) + std::fabs(q)));
}

}  // namespace

GaussLattice::Bound GaussLattice::envelope_bound(double a, double b, double tolerance,
                                                 double stop_above) const {
  const double s = sigma_, inv2s2 = 1.0 / (2 * s * s), E = std::exp(eps_);
  const int K = K_;
  // Tails.
  const double target = std::max(tolerance * 1e-3, 1e-300);
  double z = std::sqrt(2 * std::log(1.0 / target)) + 1.0;
  const double tail = 2 * normal_upper_tail(z) + 1e-300;
  const double XL = -K + a - z * s, XR = K + b + z * s;

  // D at a point, with its rounding-error bound.
  struct Val {
    double d, err;
  };
  // sum over k in [k_from, k_to] of w_k exp(-(x0 - k)^2 / (2 s^2)), every term <= its neighbour
  // towards k_start, by the recurrence exp(-(y -+ 1)^2/2s^2) = exp(-y^2/2s^2) exp((+-2y - 1)/2s^2):
  // three exp calls instead of one per component.  The multipliers are <= 1 (we walk away from the
  // peak), so nothing overflows; each step adds a few ulps of relative error (charged below).
  const double q = std::exp(-2 * inv2s2);  // e^{-1/s^2}
  auto lattice_sum = [&](double x0, int k_from, int k_to) -> double {
    if (k_from > k_to) return 0.0;
    int k0 = static_cast<int>(std::lround(x0));
    k0 = std::min(std::max(k0, k_from), k_to);
    double y0 = x0 - k0;
    double t0 = std::exp(-y0 * y0 * inv2s2);
    double sum = weight(k0) * t0;
    double t = t0, r = std::exp((y0 - 0.5) * 2 * inv2s2);  // towards larger k
    for (int k = k0 + 1; k <= k_to; ++k) {
      t *= r;
      r *= q;
      if (t == 0) break;  // every further term is smaller still (covered by the 1e-300 slack)
      sum += weight(k) * t;
    }
    t = t0;
    r = std::exp(-(y0 + 0.5) * 2 * inv2s2);  // towards smaller k
    for (int k = k0 - 1; k >= k_from; --k) {
      t *= r;
      r *= q;
      if (t == 0) break;
      sum += weight(k) * t;
    }
    return sum;
  };
  auto eval = [&](double x) -> Val {
    // Envelope: components with x - k < a are N(x - a; k), those with x - k > b are N(x - b; k),
    // the rest sit on their flat top.
    // Classify with the very expression the definition uses (y = x - k compared with a and b),
    // so that rounding can never put a component in two sets or in none.
    int k_left = static_cast<int>(std::floor(x - b));  // largest k with x - k > b
    while (k_left >= -K - 1 && !(x - k_left > b)) --k_left;
    while (x - (k_left + 1) > b) ++k_left;
    int k_right = static_cast<int>(std::ceil(x - a));  // smallest k with x - k < a
    while (k_right <= K + 1 && !(x - k_right < a)) ++k_right;
    while (x - (k_right - 1) < a) --k_right;
    double g = lattice_sum(x - b, -K, std::min(K, k_left)) +
               lattice_sum(x - a, std::max(-K, k_right), K);
    for (int k = std::max(-K, k_left + 1); k <= std::min(K, k_right - 1); ++k) g += weight(k);
    double f = lattice_sum(x, -K, K);
    g *= c0_;
    f *= c0_ * E;
    // exp, the recurrences (a few ulps per step, at most 2K+1 steps) and the sums: 1e-13
    // relative covers K <= 40 with a wide margin.
    return {g - f, 1e-13 * (g + f) + 1e-300};
  };

  // Second-derivative bound on a cell without kinks inside.
  auto curvature = [&](double u, double v) -> double {
    const double c2 = c0_ / (s * s * s * s), c3 = c0_ / (s * s * s * s * s * s);
    // Components more than W = 12 sigma from the cell (in every role: shifted, unshifted, paired)
    // are not visited; each of their terms is at most e^{-W^2/2s^2} W^2 c2 (|n''| falls beyond
    // sqrt(2) sigma), and their weights sum to at most 1 per role, hence the constant below.
    const double W = 12 * s;
    double m = (2 + E) * c2 * W * W * std::exp(-W * W / (2 * s * s));
    int k_lo = std::max(-K, static_cast<int>(std::floor(u - 1 - W)));
    int k_hi = std::min(K, static_cast<int>(std::ceil(v + W)));
    for (int k = k_lo; k <= k_hi; ++k) {
      double wk = weight(k);
      Range y{u - k, v - k};
      // The envelope component on this cell: shifted by c (a or b) or flat.
      bool flat = (y.lo >= a && y.hi <= b);
      double c = (y.hi <= a) ? a : b;
      double gk = flat ? 0.0 : c2 * n2_sup({y.lo - c, y.hi - c}, s);
      if (k >= 0 && k < K) {
        // Paired with the unshifted component k + 1, whose coefficient E w_{k+1} equals w_k.
        double nk1 = c2 * n2_sup({y.lo - 1, y.hi - 1}, s);
        double pair = gk + nk1;
        if (!flat) pair = std::min(pair, (1 - c) * c3 * n3_sup({y.lo - 1, y.hi - c}, s));
        m += wk * pair;
      } else {
        m += wk * gk;  // shifted k = K or k < 0: unpaired
      }
      if (k <= 0) m += E * wk * c2 * n2_sup(y, s);  // unshifted j <= 0: unpaired
    }
    return m;
  };
  const double m_glob = (1 + E) * c0_ / (s * s);

  // D' at a point, with a rounding bound (for the monotonicity test of a cell).
  auto eval_slope = [&](double x) -> Val {
    double g = 0, f = 0, mag = 0;
    int k_lo = std::max(-K, static_cast<int>(std::floor(x - b - kWindow * s)));
    int k_hi = std::min(K, static_cast<int>(std::ceil(x - a + kWindow * s)));
    for (int k = k_lo; k <= k_hi; ++k) {
      double y = x - k;
      double wk = weight(k);
      if (y < a || y > b) {
        double yy = y < a ? y - a : y - b;
        double t = wk * yy * std::exp(-yy * yy * inv2s2);
        g -= t;
        mag += std::fabs(t);
      }
      double t = wk * y * std::exp(-y * y * inv2s2);
      f -= t;
      mag += E * std::fabs(t);
    }
    double scale = c0_ / (s * s);
    return {(g - E * f) * scale, 1e-14 * mag * scale + 1e-300};
  };
  // Integral of n(y) over [p, q], p <= q, accurate in the tails.  `mag` accumulates the size of
  // the terms subtracted, which bounds the absolute rounding error of the difference.
  auto phi_diff = [&](double p, double q, double& mag) {
    double lo = p / s, hi = q / s;
    if (lo >= 0) {
      double a1 = normal_upper_tail(lo), a2 = normal_upper_tail(hi);
      mag += a1 + a2;
      return a1 - a2;
    }
    if (hi <= 0) {
      double a1 = normal_upper_tail(-hi), a2 = normal_upper_tail(-lo);
      mag += a1 + a2;
      return a1 - a2;
    }
    mag += 1;
    return 1 - normal_upper_tail(-lo) - normal_upper_tail(hi);
  };
  // Exact integral of D over [p, q] inside one smooth cell, with a rounding bound.
  auto integral = [&](double p, double q) -> Val {
    double ig = 0, ifl = 0, mag_g = 0, mag_f = 0;
    double mid = 0.5 * (p + q);
    int k_lo = std::max(-K, static_cast<int>(std::floor(mid - b - kWindow * s)));
    int k_hi = std::min(K, static_cast<int>(std::ceil(mid - a + kWindow * s)));
    for (int k = k_lo; k <= k_hi; ++k) {
      double wk = weight(k);
      double yl = p - k, yh = q - k;
      double mg = 0, mf = 0;
      if (yh <= a) ig += wk * phi_diff(yl - a, yh - a, mg);
      else if (yl >= b) ig += wk * phi_diff(yl - b, yh - b, mg);
      else ig += wk * c0_ * (q - p);  // flat top of the envelope over this cell
      ifl += wk * phi_diff(yl, yh, mf);
      mag_g += wk * mg;
      mag_f += wk * mf;
    }
    // erfc is accurate to a few ulps of each tail value; the differences inherit that in
    // absolute terms, the sums a relative 1e-13.
    return {ig - E * ifl, 1e-15 * (mag_g + E * mag_f) + 1e-13 * (ig + E * ifl) + 1e-300};
  };

  // Breakpoints: kinks of G and a uniform step.
  std::vector<double> pts;
  pts.reserve(static_cast<size_t>((XR - XL) / (s / 8)) + 4 * K + 8);
  const double h0 = s / 2;
  int n = static_cast<int>(std::ceil((XR - XL) / h0));
  for (int i = 0; i <= n; ++i) pts.push_back(XL + (XR - XL) * i / n);
  for (int k = -K; k <= K; ++k) {
    pts.push_back(k + a);
    if (b > a) pts.push_back(k + b);
  }
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());

  // Screening: on a block [lo, hi], D < 0 everywhere if the sup of G (each envelope component at
  // its nearest point) is below the inf of E f (each component at its farthest point).  Cells of
  // such blocks need no further work.
  auto block_negative = [&](double lo, double hi) -> bool {
    double sup_g = 0, inf_f = 0;
    int k_lo = std::max(-K, static_cast<int>(std::floor(lo - b - kWindow * s)));
    int k_hi = std::min(K, static_cast<int>(std::ceil(hi - a + kWindow * s)));
    for (int k = -K; k <= K; ++k) {
      double wk = weight(k);
      double y_lo = lo - k, y_hi = hi - k;
      double far = std::max(std::fabs(y_lo), std::fabs(y_hi));
      inf_f += wk * std::exp(-far * far * inv2s2);
      if (k < k_lo || k > k_hi) continue;
      double dmin = y_hi < a ? a - y_hi : (y_lo > b ? y_lo - b : 0.0);
      sup_g += wk * std::exp(-dmin * dmin * inv2s2);
    }
    // Terms outside the window: each below e^-745 of a peak; 1e-300 covers them all.
    return sup_g * c0_ * (1 + 1e-12) + 1e-300 < E * inf_f * c0_ * (1 - 1e-12);
  };

  const double per_length = tolerance / (XR - XL);
  double total = tail, total_lower = 0;
  // Recursive refinement of one cell.
  struct Cell {
    double u, v;
    Val du, dv;
    int depth;
    double m;  // curvature bound valid on [u, v] (a parent's bound is valid on its halves); < 0: unknown
  };
  std::vector<Cell> stack;
  // Mark the breakpoints that start a cell inside a provably negative block.
  std::vector<char> skip(pts.size(), 0);
  {
    const double bw = s;
    size_t i = 0;
    while (i + 1 < pts.size()) {
      size_t j = i;
      while (j + 1 < pts.size() && pts[j + 1] - pts[i] <= bw) ++j;
      if (j == i) j = i + 1;
      if (block_negative(pts[i], pts[j]))
        for (size_t t = i; t < j; ++t) skip[t] = 1;
      i = j;
    }
  }
  Val prev{0, 0};
  bool have_prev = false;
  for (size_t i = 1; i < pts.size(); ++i) {
    if ((i & 255) == 0) check_interrupt();
    if (skip[i - 1]) {
      have_prev = false;
      continue;
    }
    if (!have_prev) prev = eval(pts[i - 1]);
    Val cur = eval(pts[i]);
    have_prev = true;
    stack.push_back({pts[i - 1], pts[i], prev, cur, 0, -1.0});
    prev = cur;
    while (!stack.empty()) {
      Cell c = stack.back();
      stack.pop_back();
      double h = c.v - c.u;
      if (h <= 0) continue;
      double e = std::max(c.du.err, c.dv.err);
      double quick = m_glob * h * h / 8 + e;
      if (c.du.d + quick <= 0 && c.dv.d + quick <= 0) continue;  // certainly no violation
      if (c.m < 0) c.m = curvature(c.u, c.v);
      if (!std::isfinite(c.m)) return {INFINITY, INFINITY};  // no bound: not certified
      double curv = c.m * h * h / 8;
      double cc = curv + e;
      double upper = pos_linear_integral(c.du.d + cc, c.dv.d + cc, h);
      if (upper <= 0) continue;
      double lower = pos_linear_integral(c.du.d - cc, c.dv.d - cc, h);
      // Refinement gains a factor 8 per halving (second order); when many halvings would be
      // needed (small delta), closed forms are cheaper where the sign pattern is certain.
      if (upper - lower > 1e5 * per_length * h) {
        // (1) D >= chord - cc > 0 on the whole cell: the integral of D itself.
        if (c.du.d - cc > 0 && c.dv.d - cc > 0) {
          Val in = integral(c.u, c.v);
          total += in.d + in.err;
          total_lower += std::max(0.0, in.d - in.err);
          continue;
        }
        // (2) D changes sign once: opposite signs at the ends and D' bounded away from 0
        // (|D'(mid)| > M h / 2).  Bracket the crossing, integrate D exactly on the positive side
        // and charge the bracket's width times the largest |D| it can hide.
        bool up = c.du.d + e < 0 && c.dv.d - e > 0;
        bool down = c.du.d - e > 0 && c.dv.d + e < 0;
        if (up || down) {
          Val sl = eval_slope(0.5 * (c.u + c.v));
          if (std::fabs(sl.d) - sl.err > c.m * h / 2 && (sl.d > 0) == up) {
            // TOMS 748 on D brackets the crossing; the computed D is exact to within its
            // rounding bound, which can move the true crossing by err/|D'| beyond the bracket.
            const double slope_min = std::fabs(sl.d) - sl.err - c.m * h / 2;
            auto fn = [&](double x) { return eval(x).d; };
            boost::uintmax_t iters = 40;
            auto tolx = [&](double x, double y) { return std::fabs(x - y) <= 1e-12 * s; };
            auto br = boost::math::tools::toms748_solve(fn, c.u, c.v, c.du.d, c.dv.d, tolx, iters);
            double lo = std::max(c.u, br.first - 2 * e / slope_min);
            double hi = std::min(c.v, br.second + 2 * e / slope_min);
            // Positive side: [hi, v] if increasing, [u, lo] if decreasing.
            Val in = up ? integral(hi, c.v) : integral(c.u, lo);
            double slack = (hi - lo) * (std::fabs(sl.d) + c.m * h) * h + in.err;
            total += std::max(0.0, in.d) + slack;
            total_lower += std::max(0.0, in.d - in.err);
            continue;
          }
        }
      }
      // Halving helps only where the curvature term, not the rounding error, makes the slack.
      if (upper - lower > per_length * h && curv > e && h > 1e-12 * s && c.depth < 60) {
        double mid = 0.5 * (c.u + c.v);
        Val dm = eval(mid);
        stack.push_back({c.u, mid, c.du, dm, c.depth + 1, c.m});
        stack.push_back({mid, c.v, dm, c.dv, c.depth + 1, c.m});
        continue;
      }
      total += upper;
      total_lower += lower;
    }
    if (total_lower > stop_above) break;  // the bound is certainly above what the caller needs
  }
  // Summation of positive terms: relative rounding below 1e-13 for any realistic count.
  return {total * (1 + 1e-12), total_lower * (1 - 1e-12)};
}

// ---------------------------------------------------------------------------------------------
// The tabulated certificate (multi_gaussian.h, docs/multi_gaussian_certificate.md).
//
// Grid x_m = m / r; shifts phi = j / r.  Every component centre k is the grid point k r, so on each
// cell [x_m, x_{m+1}] every component n(x - k - phi) of f(x - phi) and n(x - k) of f is monotone:
//   sup_cell f(. - phi) = sum_{kr <= m - j} w_k n(x_m - phi - k) + sum_{kr >= m + 1 - j} w_k n(x_{m+1} - phi - k)
//                       = L(m - j) + R(m + 1 - j),
//   inf_cell f(. - phi) = Ls(m + 1 - j) + Rs(m - j)   (the same components, at the other end),
//   int_cell f(. - phi) = IL(m - j) + IR(m - j)       (closed form, erfc differences),
// and f itself with j = 0.  With D = f(. - phi) - E f (E = e^eps), Dup >= sup_cell D + c S,
// Dlow <= inf_cell D + c S (S is constant on the cell; rounding and truncation charged):
//   Dup <= 0: the cell contributes 0;
//   Dlow >= 0: int_cell D + c S h (closed form);
//   otherwise: the least of h Dup, int_cell D + c S h - h Dlow (as int g_+ = int g + int g_-), and
//   the second-order chord bound: D + c S <= chord + M h^2/8 + e, M >= sup_cell |D''| (paired form
//   of envelope_bound's curvature, from tables of sup |n''| and sup |n'''| per cell).
// S on a cell for the shift interval [ja / r, jb / r] (slack_S): the sum over the components of the
// sup of -n'' over {x - k - xi : x in cell, xi in [a, b]}, components where that is negative left out.
// Truncation: components beyond W >= Z sigma r grid steps of a point are left out (each below
// c0 e^{-Z^2/2} times its weight; weights sum to 1).  Outside the tabulated cells
// [x_mlo, x_mhi] = [-K - W/r, K + 1 + W/r] the integrand is at most f(. - phi) + c S with S = 0
// there (every -n'' term is negative beyond sqrt(3) sigma), of mass at most 2 Q(Z).
namespace {
constexpr double kTableZ = 12.0;  // truncation (in sigma) of the tabulated sums
}

LatticeTables::LatticeTables(const GaussLattice& g, int r) : g_(g), r_(r), K_(g.K()) {
  const double s = g.sigma();
  const double Z = kTableZ;
  W_ = static_cast<int>(std::ceil(Z * s * r * (1 + 1e-12))) + 1;  // W / r >= Z sigma
  mlo_ = -K_ * r - W_;
  mhi_ = K_ * r + r + W_;
  p0_ = mlo_ - r - 2;
  const int p1 = mhi_ + 3;
  const size_t n = static_cast<size_t>(p1 - p0_ + 1);
  E_ = std::exp(g.eps());
  c0_ = 1.0 / (kSqrt2Pi * s);
  h_ = 1.0 / r;
  const double ez = std::exp(-Z * Z / 2);
  tail_ = 2 * normal_upper_tail(Z) * (1 + 1e-12) + 1e-300;
  abs_pt_ = c0_ * ez * 1.01 + 1e-300;
  // -n''(y) = c0 (s^2 - y^2) / s^4 e^{-y^2/2s^2}: c0 / s^2 at 0, decreasing in |y| to its least value
  // at sqrt(3) sigma, then increasing towards 0 (negative beyond sigma).
  m2top_ = c0_ / (s * s) * (1 + 1e-12);
  // Components up to 4 sigma away enter S with their (negative) sup beyond sqrt(3) sigma, which
  // cancels the positive ones of the components nearest the cell (at the inflections of f);
  // those farther are left out (their sup is negative: an upper bound).
  D3_ = static_cast<int>(std::ceil(4 * s * r));
  m2_.resize(static_cast<size_t>(D3_ + r + 3));
  for (size_t d = 0; d < m2_.size(); ++d) {
    const double y = static_cast<double>(d) / r;
    m2_[d] = c0_ * (s * s - y * y) / (s * s * s * s) * std::exp(-y * y / (2 * s * s));
  }
  const double inv2s2 = 1.0 / (2 * s * s);
  // Base values: n(d / r) and the cell integrals N(d) of n over [d/r, (d+1)/r].
  std::vector<double> base(static_cast<size_t>(W_ + 1)), cell(static_cast<size_t>(W_ + 1));
  double qprev = 0.5, worst_rel = 0;
  for (int d = 0; d <= W_; ++d) {
    const double y = static_cast<double>(d) / r;
    const double ex = std::exp(-y * y * inv2s2);
    base[static_cast<size_t>(d)] = c0_ * ex;
    const double x1 = static_cast<double>(d + 1) / (r * s);
    const double q = normal_upper_tail(x1);
    const double N = qprev - q;
    cell[static_cast<size_t>(d)] = N;
    // erfc to ~1e-15 relative, and its argument to a few ulps (moving Q by x^2 ulps relative):
    // the absolute error of the difference is at most 1e-15 (1 + x^2) (Q(x0) + Q(x1)).
    if (N > 0) worst_rel = std::max(worst_rel, 1e-15 * (1 + x1 * x1) * (qprev + q) / N);
    else worst_rel = INFINITY;
    qprev = q;
  }
  base_ = base;
  // Sums of at most 2 Z sigma + 2 positive terms per entry, each with a relative error of a few
  // ulps (exp of an argument up to Z^2/2 with a relative error of a few ulps: <= 4e-14).
  const double terms = 2.0 * W_ / r + 2;
  rho_ = 1e-13 + 4e-16 * terms;
  rho_int_ = rho_ + worst_rel;
  for (auto* v : {&L_, &Ls_, &R_, &Rs_, &IL_, &IR_}) v->assign(n, 0.0);
  Kf_.assign(n, 0);
  for (int p = p0_; p <= p1; ++p) Kf_[static_cast<size_t>(p - p0_)] = p >= 0 ? p / r : -((-p + r - 1) / r);
  for (int k = -K_; k <= K_; ++k) {
    const double wk = g.weight(k);
    const long kr = static_cast<long>(k) * r;
    for (int d = 0; d <= W_; ++d) {
      const size_t du = static_cast<size_t>(d);
      const double bv = wk * base[du], cv = wk * cell[du];
      const long pr = kr + d, pl = kr - d, pi = kr - 1 - d;
      if (pr >= p0_ && pr <= p1) {
        const size_t i = static_cast<size_t>(pr - p0_);
        L_[i] += bv;
        if (d > 0) Ls_[i] += bv;
        IL_[i] += cv;  // p - kr = d >= 0
      }
      if (pl >= p0_ && pl <= p1) {
        const size_t i = static_cast<size_t>(pl - p0_);
        R_[i] += bv;
        if (d > 0) Rs_[i] += bv;
      }
      if (pi >= p0_ && pi <= p1) IR_[static_cast<size_t>(pi - p0_)] += cv;  // p - kr = -1 - d
    }
  }
  // Curvature tables.  Beyond Wc = 12 sigma each |n''| term is at most e^{-Wc^2/2s^2} Wc^2 c2 (|n''|
  // falls beyond sqrt(3) sigma), and the weights of every role sum to at most 1 (shifted), 1
  // (paired unshifted), E (unpaired unshifted): m_out_ as in envelope_bound.
  {
    const double Wc = 12 * s;
    Wc_ = static_cast<int>(std::ceil(Wc * r)) + 1;
    const double c2 = c0_ / (s * s * s * s), c3 = c0_ / (s * s * s * s * s * s);
    m_out_ = (2 + E_) * c2 * Wc * Wc * std::exp(-Wc * Wc / (2 * s * s));
    // Without the unpaired unshifted components (for D_in of point_D_paired, which leaves out
    // exactly those beyond Wc_ cells, so that its curvature has no E-weighted far terms).
    m_out_pair_ = 2 * c2 * Wc * Wc * std::exp(-Wc * Wc / (2 * s * s));
    a0_ = Wc_ + 3 * r + 70;
    const size_t na = static_cast<size_t>(2 * a0_ + 1);
    A2_.assign(na, 0.0);
    std::vector<double> a3(na, 0.0);
    for (int e = -a0_; e <= a0_; ++e) {
      Range y{static_cast<double>(e) / r, static_cast<double>(e + 1) / r};
      A2_[static_cast<size_t>(e + a0_)] = c2 * n2_sup(y, s);
      a3[static_cast<size_t>(e + a0_)] = c3 * n3_sup(y, s);
    }
    A3_.clear();
    A3_.push_back(std::move(a3));
    for (int lev = 1; (1 << lev) <= static_cast<int>(na); ++lev) {
      const std::vector<double>& prev = A3_.back();
      std::vector<double> cur(na, 0.0);
      const size_t half = static_cast<size_t>(1) << (lev - 1);
      for (size_t i = 0; i + half < na; ++i) cur[i] = std::max(prev[i], prev[i + half]);
      A3_.push_back(std::move(cur));
    }
    // Beyond Wc each |n'''| term is at most c3 (3 Wc s^2 + Wc^3) e^{-Wc^2/2s^2} (it falls beyond
    // ~2.3 sigma) times its weight (paired weights sum to at most 1).
    m_out3_ = c3 * (3 * Wc * s * s + Wc * Wc * Wc) * std::exp(-Wc * Wc / (2 * s * s));
    // Lattice sums of A2 over the paired (k = 0..K-1) and the negative (k < 0) components; terms
    // whose cell is Wc_ or more grid steps from the component (|y| >= 12 sigma) are left out
    // (m_out_ covers them).
    p1_ = p1;
    TA2pos_.assign(n, 0.0);
    TA2neg_.assign(n, 0.0);
    for (int k = -K_; k < K_; ++k) {
      const double wk = g.weight(k);
      std::vector<double>& T = k >= 0 ? TA2pos_ : TA2neg_;
      const long kr = static_cast<long>(k) * r;
      for (int e = -Wc_; e < Wc_; ++e) {
        const long p = kr + e;
        if (p >= p0_ && p <= p1) T[static_cast<size_t>(p - p0_)] += wk * A2(e);
      }
    }
  }
}

const std::vector<double>& LatticeTables::TY(int l) const {
  if (TY_.size() <= static_cast<size_t>(l)) TY_.resize(static_cast<size_t>(l) + 1);
  std::vector<double>& T = TY_[static_cast<size_t>(l)];
  if (!T.empty()) return T;
  const int len = 1 << l, r = r_;
  T.assign(static_cast<size_t>(p1_ - p0_ + 1), 0.0);
  // Windows of cells e .. e + len - 1 that reach within Wc_ of the component; the others lie
  // entirely at |y| >= 12 sigma (m_out3_ covers them).
  std::vector<double> win(static_cast<size_t>(2 * Wc_ + len + 1));
  for (int e = -Wc_ - len; e <= Wc_; ++e) win[static_cast<size_t>(e + Wc_ + len)] = A3max(e, e + len - 1);
  for (int k = 0; k < K_; ++k) {
    const double wk = g_.weight(k);
    const long kr = static_cast<long>(k) * r;
    for (int e = -Wc_ - len; e <= Wc_; ++e) {
      const long p = kr + e;
      if (p >= p0_ && p <= p1_) T[static_cast<size_t>(p - p0_)] += wk * win[static_cast<size_t>(e + Wc_ + len)];
    }
  }
  return T;
}

double LatticeTables::A3max(int e1, int e2) const {
  const int len = e2 - e1 + 1;
  int lev = 0;
  while ((2 << lev) <= len) ++lev;
  const std::vector<double>& t = A3_[static_cast<size_t>(lev)];
  return std::max(t[static_cast<size_t>(e1 + a0_)], t[static_cast<size_t>(e2 - (1 << lev) + 1 + a0_)]);
}

// sup |D''| on the cell [x_m, x_{m+1}] for the shift j / r: the curvature bound of
// GaussLattice::envelope_bound for a point interval, from lattice sums of per-cell bounds.
// Per component it is a sum of |n''| bounds (shifted components, and unshifted ones k <= 0 with
// weight E w_k), except that a shifted component k in 0..K-1 is paired with the unshifted k + 1
// (E w_{k+1} = w_k): min(X_k, Y_k) with X_k = |n''| bounds of both, Y_k = (1 - phi) sup |n'''| over
// [y_lo - 1, y_hi - phi].  Here sum_k min(X_k, Y_k) <= min(sum X_k, sum Y_k), and the |n'''| range
// (cells d - r .. d - j) is widened to 2^l >= r - j + 1 cells, so that every sum is a table.
double LatticeTables::curvature(int m, int j, bool paired_form) const {
  const int r = r_;
  const size_t im = static_cast<size_t>(m - p0_), ij = static_cast<size_t>(m - j - p0_),
               ir = static_cast<size_t>(m - r - p0_);
  double M = (paired_form ? m_out_pair_ : m_out_) + E_ * (TA2neg_[im] + g_.weight(0) * (std::abs(m) < a0_ ? A2(m) : 0.0)) + TA2neg_[ij];
  const int dK = m - j - K_ * r;  // the shifted component K, unpaired
  if (std::abs(dK) < a0_) M += g_.weight(K_) * A2(dK);
  double pair = TA2pos_[ij] + TA2pos_[ir];
  const int span = r - j + 1;
  if (span <= 64) {
    int l = 0;
    while ((1 << l) < span) ++l;
    const double phi = static_cast<double>(j) / r;
    pair = std::min(pair, (1 - phi) * (TY(l)[ir] + m_out3_));
  }
  return (M + pair) * (1 + 1e-12);
}

// D = f(. - j / r) - e^eps f at the grid point x_m, and a bound on how far the true D can exceed it
// (one-sided: the chord bound needs upper values only).  Terms left out of f only make e^eps f
// larger, so only those of f(. - j / r) (abs_pt_) count, besides the rounding.  (A two-sided
// e^eps abs_pt_ would be ~1e-9 per point at eps = 50.)
double LatticeTables::point_D(int m, int j, double* err) const {
  const double G = L(m - j) + Rs(m - j);
  const double F = E_ * (L(m) + Rs(m));
  *err = rho_ * (G + F) + abs_pt_;
  return G - F;
}

// D_{j/r}(x_m), 0 <= j <= r, written with E w_{k+1} = w_k (k >= 0; exact for the true weights):
//   D = sum_{k=0..K-1} w_k [n(a_k) - n(b_k)] + w_K n(a_K) + sum_{k<0} w_k n(a_k) - sum_{k<=0} E w_k n(b'_k),
// a_k = (m - j - k r) / r, b_k = a_k - (r - j) / r, b'_k = (m - k r) / r: offsets in grid steps are
// the integers da = m - j - k r, db = da - (r - j).  A pair is n(near) (1 - e^{-t}) with near the
// offset of smaller |.| and t = (dfar^2 - dnear^2) / (2 s^2 r^2) >= 0 from the exact integer
// dfar^2 - dnear^2, so that it costs one expm1 and carries a relative error of a few ulps
// (docs/multi_gaussian_certificate.md, "The paired form near phi = 1"):
//   * base_[d] = c0 exp(-d^2/(2 s^2 r^2)): argument to 6.1 ulps relative (d / r, its square, 1/(2 s s)
//     and the product), exp and c0 a few ulps: relative <= u (7 arg + 6), u = 2^-53 (we use 1.2e-16);
//   * -expm1(-t^): t^ = t (1 + th), |th| <= 4.1 u (1 / (2 s s) 2 u, / r^2 u, times the exact integer
//     u); |e^{-t^} - e^{-t}| <= e^{-t} e^{4.1 u t} 4.1 u t and t e^{-t} <= 1 - e^{-t}: relative
//     <= 4.2 u, plus expm1's own ulp: 8 u covers it;
//   * w_k: exp(-|k| eps) (argument 1 ulp, exp 1 ulp) over a sum of 2K + 1 such terms:
//     relative <= u (1.01 |k| eps + 3K + 10), plus (1 + E) c0 1e-320 absolute per term for
//     subnormal weights and products (2^-1074 < 1e-320 per rounding, a few roundings);
//   * E = exp(eps): 1 ulp; the products 3 ulps;
//   * the signed sum of n terms: (n + 1) u times the sum of |terms|.
// Left out: pairs with both offsets beyond W_ (12 sigma) and unpaired shifted terms beyond W_:
// each at most w_k n(a_k) <= w_k c0 e^{-72}, in all <= abs_pt_.  Unpaired unshifted terms (k <= 0,
// weight E w_k) are kept exactly when -Wc_ < m - k r < Wc_, i.e. when the component's cell offset is
// in [-Wc_, Wc_) for both cells m - 1 and m that x_m ends: the value returned then bounds
// D_in(x_m) = D(x_m) + (the unpaired unshifted terms whose offset from the cell is outside
// [-Wc_, Wc_)) >= D, whose |D_in''| curvature(m, j, true) bounds without the E-weighted m_out_ term.
double LatticeTables::point_D_paired(int m, int j, double* err) const {
  constexpr double u = 1.2e-16;
  const int r = r_, K = K_, W = W_;
  const long dl = r - j;
  const double eps = g_.eps(), E = E_;
  const double c = (1.0 / (2 * g_.sigma() * g_.sigma())) / (static_cast<double>(r) * r);
  double sum = 0, mag = 0, abs_sum = 0;
  long n = 0;
  const double rw_base = u * (3.0 * K + 10);
  // Subnormal weights and products: an absolute 2^-1074 per rounding, times at most E c0.
  const double tiny = (1 + E) * c0_ * 1e-320 + 1e-300;
  auto rho_b = [&](long d) { return u * (7 * (static_cast<double>(d) * d * c) * 1.01 + 6); };
  auto add = [&](double t, double rel) {
    sum += t;
    abs_sum += std::fabs(t);
    mag += std::fabs(t) * (rel + rw_base + 11 * u) + tiny;
    ++n;
  };
  // Offsets in grid steps of component k: shifted m - j - k r, unshifted m - k r.
  auto floordiv = [r](long p) { return p >= 0 ? p / r : -((-p + r - 1) / r); };
  // k with |m - j - k r| <= W + dl or |m - k r| <= W (others contribute nothing we keep).
  const long k_from = std::max<long>(-K, floordiv(m - j - W - dl) - 1);
  const long k_to = std::min<long>(K, floordiv(m + W) + 1);
  for (long k = k_from; k <= k_to; ++k) {
    const double wk = g_.weight(static_cast<int>(k));
    const double rw = u * 1.01 * std::fabs(static_cast<double>(k)) * eps;
    const long da = m - j - k * r;
    if (k >= 0 && k < K) {
      const long db = da - dl;
      const long an = std::min(std::labs(da), std::labs(db)), af = std::max(std::labs(da), std::labs(db));
      if (an > W) continue;  // both beyond W: left out (abs_pt_)
      const double t = static_cast<double>(af * af - an * an) * c;
      const double pair = base_[static_cast<size_t>(an)] * (-std::expm1(-t));  // >= 0
      const double term = wk * pair;
      add(std::labs(da) <= std::labs(db) ? term : -term, rw + rho_b(an));
    } else if (std::labs(da) <= W) {  // shifted k = K or k < 0, unpaired
      add(wk * base_[static_cast<size_t>(std::labs(da))], rw + rho_b(std::labs(da)));
    }
    if (k <= 0) {  // unshifted k <= 0, unpaired: only -Wc_ < db < Wc_ (see above)
      const long db = m - k * r;
      if (db > -Wc_ && db < Wc_) add(-E * wk * base_[static_cast<size_t>(std::labs(db))], rw + rho_b(std::labs(db)) + u);
    }
  }
  *err = (mag + static_cast<double>(n + 1) * u * abs_sum) * 1.01 + abs_pt_ + 1e-300;
  return sum;
}

// S on the cells [m1, m2) for shifts xi in [ja / r, jb / r], lo_p = m1 - jb, hi_p = m2 - ja: the sum
// over components k of sup -n'' over the offsets y in [(lo_p - k r) / r, (hi_p - k r) / r] (>= sup of
// -f''(x - xi) over the cells and the shifts), then its positive part.  -n'' is even, c0 / s^2 at 0,
// decreasing in |y| down to its (negative) least value at sqrt(3) sigma and increasing (negative)
// beyond: on a range containing 0 the sup is c0 / s^2, otherwise it is at an end (no interior maximum
// on either side).  Components whose range lies entirely beyond sqrt(3) sigma contribute a negative
// sup and are left out (an upper bound).  Positive and negative terms are summed apart so that
// rounding is charged on the safe side.
double LatticeTables::slack_S(int lo_p, int hi_p) const {
  double pos = 0, neg = 0;
  const int r = r_;
  auto floordiv = [r](int p) { return p >= 0 ? p / r : -((-p + r - 1) / r); };
  // Components with lo_p - k r < D3_ and hi_p - k r > -D3_ (the others lie beyond 4 sigma, where
  // -n'' < 0).
  const int k_from = std::max(-K_, floordiv(lo_p - D3_) + 1), k_to = std::min(K_, floordiv(hi_p + D3_ - 1));
  const int last = static_cast<int>(m2_.size()) - 1;
  for (int k = k_from; k <= k_to; ++k) {
    const int lo = lo_p - k * r, hi = hi_p - k * r;
    double v;
    if (lo <= 0 && 0 <= hi) {
      v = m2top_;
    } else {
      // Beyond the table (|y| > 4 sigma + 1) -n'' is negative: 0 bounds it.
      const int alo = std::abs(lo), ahi = std::abs(hi);
      const double vlo = alo <= last ? m2_[static_cast<size_t>(alo)] : 0.0;
      const double vhi = ahi <= last ? m2_[static_cast<size_t>(ahi)] : 0.0;
      v = std::max(vlo, vhi);
    }
    if (v >= 0) pos += g_.weight(k) * v;
    else neg -= g_.weight(k) * v;
  }
  // The table values of -n'' carry a few ulps of c0 / s^2 in absolute terms where they cross 0
  // (at |y| = sigma): 1e-14 m2top_ covers them (weights sum to 1).
  return std::max(0.0, pos * (1 + rho_) - neg * (1 - rho_) + 1e-14 * m2top_);
}

double LatticeTables::plateau(int pb, int pa) const {
  if (pa <= pb) return 0.0;
  const int k_from = std::max(-K_, Kf(pb) + 1), k_to = std::min(K_, Kf(pa));
  double s = 0;
  for (int k = k_from; k <= k_to; ++k) s += g_.weight(k);
  return s;
}

double LatticeTables::shift_upper(int j, double c, int ja, int jb, const std::vector<CellRange>& cells,
                                  std::vector<CellRange>* violating, double stop_above,
                                  double negligible) const {
  const double up = 1 + rho_, dn = 1 - rho_, upi = 1 + rho_int_, dni = 1 - rho_int_;
  const double E = E_, h = h_, absp = abs_pt_;
  const bool slack = c > 0;
  const bool near_one = 4 * (r_ - j) <= r_;  // phi >= 3/4: also try the paired form
  const double far_unpaired = (m_out_ - m_out_pair_) * h_ * h_ / 8;
  // c S on a block [m1, m2) (a single cell: m2 = m1 + 1), as an upper value (the lower value is the
  // same constant times 1 - 2e-15).
  auto cS = [&](int m1, int m2) {
    if (!slack) return 0.0;
    return c * slack_S(m1 - jb, m2 - ja) * (1 + 1e-15);
  };
  double total = tail_;
  int open_lo = -1;  // start of the current run of cells that may violate
  auto close_run = [&](int m) {
    if (open_lo >= 0 && violating) violating->push_back({open_lo, m});
    open_lo = -1;
  };
  for (size_t ci = 0; ci < cells.size(); ++ci) {
    const CellRange cr = cells[ci];
    int have_d = INT_MIN;  // the grid point whose D is in d_next / e_next
    double d_next = 0, e_next = 0;
    for (int m1 = cr.lo; m1 < cr.hi;) {
      // A block of up to kBlock cells with no lattice point strictly inside (so that every
      // component of f is monotone on it): one test for the whole block first.
      constexpr int kBlock = 16;
      const int next_lattice = (Kf(m1) + 1) * r_;
      const int m2 = std::min({m1 + kBlock, next_lattice, cr.hi});
      if (m2 - m1 > 1) {
        const double supG = L(m1 - j) + R(m2 - j) + c0_ * plateau(m1 - j, m2 - 1 - j);
        const double inff = Ls(m2) + Rs(m1);
        const double Dup = supG * up + absp + cS(m1, m2) - E * inff * dn;
        if (Dup <= 0) {  // D_j + c S <= 0 on the whole block
          close_run(m1);
          m1 = m2;
          continue;
        }
        if (h * Dup <= negligible) {  // each cell contributes at most h Dup
          if (open_lo < 0) open_lo = m1;
          total += (m2 - m1) * h * Dup;
          m1 = m2;
          continue;
        }
      }
      for (int m = m1; m < m2; ++m) {
        const int p = m - j;
        const double cs_up = cS(m, m + 1), cs_dn = cs_up * (1 - 2e-15);
        const double supG = L(p) + R(p + 1);
        const double inff = Ls(m + 1) + Rs(m);
        const double Dup = supG * up + absp + cs_up - E * inff * dn;
        if (Dup <= 0) {
          close_run(m);
          continue;
        }
        if (open_lo < 0) open_lo = m;
        if (h * Dup <= negligible) {
          total += h * Dup;
          continue;
        }
        const double infG = Ls(p + 1) + Rs(p);
        const double supf = L(m) + R(m + 1);
        const double Dlow = infG * dn + cs_dn - E * (supf * up + absp);
        const double IG = IL(p) + IR(p);
        const double If = IL(m) + IR(m);
        const double IDup = IG * upi + h * (absp + cs_up) - E * If * dni;
        double cb = (Dlow >= 0) ? IDup : std::min(h * Dup, IDup - h * Dlow);
        if (cb > 0 && Dlow < 0) {
          // Second order: D + c S <= chord + M h^2 / 8 + e on the cell.
          double e0, e1, d0;
          if (have_d == m) {
            d0 = d_next;
            e0 = e_next;
          } else {
            d0 = point_D(m, j, &e0);
          }
          const double d1 = point_D(m + 1, j, &e1);
          have_d = m + 1;
          d_next = d1;
          e_next = e1;
          const double cc = curvature(m, j) * h * h / 8 + std::max(e0, e1) + cs_up;
          if (d0 + cc <= 0 && d1 + cc <= 0) {  // D + c S <= 0 on the whole cell
            close_run(m);
            continue;
          }
          cb = std::min(cb, pos_linear_integral(d0 + cc, d1 + cc, h));
          // (Tried only where that rounding could matter against the limit at all: spread over
          // the whole range it would reach 1e-4 of the limit, i.e. 1e4 x the negligible charge
          // per unit length.  Either bound is valid; this only saves time at larger delta.)
          if (cb > 0 && near_one && (std::max(e0, e1) + far_unpaired) * h >= 0.5 * cb &&
              (std::max(e0, e1) + far_unpaired) * h >= 1e4 * negligible * h) {
            // Near phi = 1, where rounding (or, at large eps, the E-weighted curvature constant of
            // far unpaired components) makes at least half of the bound: the same chord bound
            // for D_in >= D in the paired form, whose rounding bound scales with the paired
            // residuals instead of G + F.  u0, u1 are upper values of D_in at the ends (the chord
            // through them is above the true chord).
            double f0, f1;
            const double u0 = point_D_paired(m, j, &f0) + f0, u1 = point_D_paired(m + 1, j, &f1) + f1;
            const double cp = curvature(m, j, true) * h * h / 8 + cs_up;
            if (u0 + cp <= 0 && u1 + cp <= 0) {
              close_run(m);
              continue;
            }
            cb = std::min(cb, pos_linear_integral(u0 + cp, u1 + cp, h));
          }
        }
        total += std::max(cb, 0.0);
      }
      m1 = m2;
    }
    close_run(cr.hi);
    if (total * (1 + 1e-12) > stop_above) {
      // Every cell not visited may still violate.
      if (violating)
        for (size_t cj = ci + 1; cj < cells.size(); ++cj) violating->push_back(cells[cj]);
      return total * (1 + 1e-12);
    }
  }
  // A sum of positive terms: relative rounding far below 1e-12.
  return total * (1 + 1e-12);
}

double LatticeTables::point_lower(int j) const {
  const double upi = 1 + rho_int_, dni = 1 - rho_int_;
  const double E = E_, h = h_, absp = abs_pt_;
  double total = 0;
  for (int m = mlo_; m < mhi_; ++m) {
    const int p = m - j;
    const double IG = IL(p) + IR(p);
    const double If = IL(m) + IR(m);
    const double lo = IG * dni - E * (If * upi + h * absp);
    if (lo > 0) total += lo;
  }
  return total * (1 - 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Fast approximate profile: f on a grid of step h = 1/r aligned with the lattice, so that
// f(x_i - j/r) = f(x_{i-j}); the trapezoid rule on (f_{i-j} - E f_i)_+ for every j.
namespace {
struct GridProfile {
  int r;
  double h;
  std::vector<double> f;  // f at x_i = x0 + i h
};
GridProfile grid_profile(const GaussLattice& g, int points_per_sigma) {
  GridProfile p;
  p.r = std::max(8, static_cast<int>(std::ceil(points_per_sigma / g.sigma())));
  // Keep the grid below ~2 million points whatever sigma and K are.
  p.r = std::min(p.r, std::max(8, 1000000 / (2 * g.K() + 2)));
  p.h = 1.0 / p.r;
  const int K = g.K();
  const double z = 12 * g.sigma();
  const int pad = static_cast<int>(std::ceil(z / p.h)) + p.r;
  const int n = 2 * K * p.r + 2 * pad + 1;  // x_i = (i - pad - K r) h
  // Base Gaussian at offsets m h, |m| <= zr (12 sigma): beyond, a term is below e^-72 of its peak
  // (this is an estimate, not a bound).
  const int zr = static_cast<int>(std::ceil(z / p.h));
  std::vector<double> base(static_cast<size_t>(2 * zr + 1));
  const double c0 = 1.0 / (kSqrt2Pi * g.sigma()), inv = 1.0 / (2 * g.sigma() * g.sigma());
  for (int m = -zr; m <= zr; ++m) {
    double y = m * p.h;
    base[static_cast<size_t>(m + zr)] = c0 * std::exp(-y * y * inv);
  }
  p.f.assign(static_cast<size_t>(n), 0.0);
  for (int k = -K; k <= K; ++k) {
    const double wk = g.weight(k);
    const int ic = pad + K * p.r + k * p.r;  // x_ic = k
    const int i0 = std::max(0, ic - zr), i1 = std::min(n - 1, ic + zr);
    for (int i = i0; i <= i1; ++i) p.f[static_cast<size_t>(i)] += wk * base[static_cast<size_t>(i - ic + zr)];
  }
  return p;
}
// Points i in [i_lo, i_hi] only (default: all): the caller knows f <= thr outside, so that each
// point left out contributes at most thr.
double grid_delta(const GridProfile& p, int j, double E, int i_lo = 0, int i_hi = INT_MAX) {
  // Four partial sums: independent chains of additions.
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const int n = std::min(static_cast<int>(p.f.size()), i_hi == INT_MAX ? INT_MAX : i_hi + j + 1);
  const double* f = p.f.data();
  int i = std::max(j, i_lo);  // below j the shifted profile is 0 and the difference negative
  for (; i + 3 < n; i += 4) {
    s0 += std::max(f[i - j] - E * f[i], 0.0);
    s1 += std::max(f[i + 1 - j] - E * f[i + 1], 0.0);
    s2 += std::max(f[i + 2 - j] - E * f[i + 2], 0.0);
    s3 += std::max(f[i + 3 - j] - E * f[i + 3], 0.0);
  }
  for (; i < n; ++i) s0 += std::max(f[i - j] - E * f[i], 0.0);
  return ((s0 + s1) + (s2 + s3)) * p.h;
}
}  // namespace

GaussLattice::Peak GaussLattice::approximate_sup(int points_per_sigma) const {
  GridProfile p = grid_profile(*this, points_per_sigma);
  const double E = std::exp(eps_);
  Peak best{0, 0};
  for (int j = 1; j <= p.r; ++j) {
    if ((j & 15) == 0) check_interrupt();
    double d = grid_delta(p, j, E);
    if (d > best.delta) best = {d, j * p.h};
  }
  return best;
}

double GaussLattice::approximate_at(double phi) const {
  GridProfile p = grid_profile(*this, 32);
  int j = static_cast<int>(std::lround(phi * p.r));
  return grid_delta(p, j, std::exp(eps_));
}

// ---------------------------------------------------------------------------------------------
namespace {

// The approximate sup of the profile over the shifts that matter, and where it is.  Real-valued:
// every 4th grid shift from phi = 1 down, then every shift around the best of those (the profile is
// smooth on the scale of 4 grid steps, sigma / 8); an estimate for the search, not a bound.
// `negligible` > 0: points where f is below negligible / (number of points) are left out (their
// contributions, together at most `negligible`, are in regions whose components weigh nothing:
// e.g. k >= 3 at eps = 10).
GaussLattice::Peak approx_profile_sup(double eps, int K, double sigma, int integer_shifts,
                                      double negligible = 0) {
  GaussLattice g(eps, K, sigma);
  GridProfile p = grid_profile(g, 32);
  const double E = std::exp(eps);
  int i_lo = 0, i_hi = static_cast<int>(p.f.size()) - 1;
  if (negligible > 0) {
    const double thr = negligible / (p.h * static_cast<double>(p.f.size()));
    while (i_lo < i_hi && p.f[static_cast<size_t>(i_lo)] <= thr) ++i_lo;
    while (i_hi > i_lo && p.f[static_cast<size_t>(i_hi)] <= thr) --i_hi;
  }
  GaussLattice::Peak best{0, 0};
  auto consider = [&](int j) {
    const double d = grid_delta(p, j, E, i_lo, i_hi);
    if (d > best.delta) best = {d, static_cast<double>(j) / p.r};
  };
  if (integer_shifts > 0) {
    for (int m = 1; m <= integer_shifts; ++m)
      consider(static_cast<int>(std::lround(static_cast<double>(m) / integer_shifts * p.r)));
    return best;
  }
  constexpr int kStride = 4;
  for (int j = p.r; j >= 1; j -= kStride) {
    if ((j & 63) == 0) check_interrupt();
    consider(j);
  }
  const int jb = static_cast<int>(std::lround(best.phi * p.r));
  for (int j = std::max(1, jb - kStride + 1); j <= std::min(p.r, jb + kStride - 1); ++j)
    if (j != jb) consider(j);
  return best;
}

}  // namespace

double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts) {
  return multi_gaussian_search_sigma(eps, delta, K, integer_shifts, 0.0);
}

double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts, double hint,
                                   double log_tol) {
  check_interrupt();
  // G(x) = log(approximate sup at sigma = e^x / delta), decreasing in x.  The analytic Gaussian's
  // sigma_AG is feasible for every component pair (mixtures of DP pairs are DP), so G(log sigma_AG)
  // <= 0 (up to the approximation; if not, sigma_AG is returned and certified as the fallback).
  auto G = [&](double x) {
    return std::log(approx_profile_sup(eps, K, std::exp(x), integer_shifts, 1e-5 * delta).delta + 1e-300) -
           std::log(delta);
  };
  const double x_ag = std::log(analytic_gaussian_sigma(eps, delta, 1.0));
  const double x_floor = std::log(kSigmaFloor);
  if (x_ag <= x_floor) return std::exp(x_ag);
  // Bracket: x_lo with G > 0, x_hi with G <= 0.  Start at the hint (the sigma of a neighbouring K)
  // or at sigma_AG; step towards the root by a secant in u = 1/sigma^2 (log delta(sigma) is nearly
  // linear in it), overshooting by half, so that a bracket is found in a few evaluations.
  double x1 = x_ag;
  if (hint > 0 && std::log(hint) < x_ag && std::log(hint) > x_floor) x1 = std::log(hint);
  double g1 = G(x1);
  const double first_step = (x1 == x_ag) ? std::log(2.0) : 0.02;
  double x0 = NAN, g0 = NAN;  // the previous point
  const double dir = (g1 <= 0) ? -1.0 : 1.0;  // move down in sigma while feasible, up while not
  for (int it = 0; it < 60; ++it) {
    if ((g1 <= 0) != (dir < 0)) break;  // the sign changed: bracketed
    double step = first_step;
    if (!std::isnan(x0)) {
      const double u0 = std::exp(-2 * x0), u1 = std::exp(-2 * x1);
      const double slope = (g1 - g0) / (u1 - u0);  // > 0: G grows with u
      if (slope > 0 && std::isfinite(slope)) {
        const double u = u1 - 1.5 * g1 / slope;
        if (u > 0) step = std::fabs(-0.5 * std::log(u) - x1);
      }
      step = std::min(std::max(step, 0.005), std::log(2.0));
    }
    double x2 = x1 + dir * step;
    if (dir < 0 && x2 <= x_floor) {
      if (x1 <= x_floor) return kSigmaFloor;  // feasible all the way down to the floor
      x2 = x_floor;
    }
    if (dir > 0 && x2 >= x_ag) {
      if (x1 >= x_ag) return std::exp(x_ag);
      x2 = x_ag;
    }
    x0 = x1;
    g0 = g1;
    x1 = x2;
    g1 = G(x1);
  }
  double lo = std::min(x0, x1), hi = std::max(x0, x1);
  double glo = (lo == x0) ? g0 : g1, ghi = (hi == x0) ? g0 : g1;
  if (!(glo > 0 && ghi <= 0)) return std::exp(x_ag);  // no bracket (not expected)
  boost::uintmax_t iters = 60;
  auto tol = [log_tol](double x, double y) { return std::fabs(x - y) <= log_tol; };
  auto r = boost::math::tools::toms748_solve(G, lo, hi, glo, ghi, tol, iters);
  return std::exp(r.second);
}

namespace {

// The envelope branch and bound (GaussLattice::envelope_bound) over [a0, b0], or over the single
// shift a0 when a0 == b0: the slow path, for what the tables leave undecided.
bool certify_envelope(const GaussLattice& g, double delta, double a0, double b0, int* used) {
  const double tol = 1e-3 * delta;
  const double limit = delta * (1 - 1e-9);
  if (a0 == b0) {
    ++*used;
    return g.envelope_bound(a0, a0, tol, limit).upper <= limit;
  }
  // Branch and bound over shift intervals, starting from 32 equal pieces of [a0, b0].  Each
  // interval is first bounded loosely; a bound whose lower side already exceeds the limit
  // splits the interval at once, an undecided one is recomputed with a finer tolerance.
  std::vector<std::pair<double, double>> work;
  const int start = 32;
  for (int i = start - 1; i >= 0; --i)
    work.push_back({a0 + (b0 - a0) * i / start, i + 1 == start ? b0 : a0 + (b0 - a0) * (i + 1) / start});
  while (!work.empty()) {
    auto [a, b] = work.back();
    work.pop_back();
    ++*used;
    if ((*used & 7) == 0) check_interrupt();
    if (*used > kMaxIntervals) return false;
    bool accepted = false, rejected = false;
    for (double t = 0.3 * delta; !accepted && !rejected; t *= 0.1) {
      GaussLattice::Bound u = g.envelope_bound(a, b, std::max(t, tol), limit);
      if (u.upper <= limit) accepted = true;
      else if (u.lower > limit || t <= tol) rejected = true;
    }
    if (accepted) continue;
    // The interval bound tends to delta(a) as the width shrinks; how fine it must get scales
    // with delta (just below phi = 1 at delta = 1e-12 it needs widths near 1e-10).
    if (b - a < std::max(1e-15, std::min(1e-9, 1e-3 * delta))) return false;
    double mid = 0.5 * (a + b);
    work.push_back({mid, b});
    work.push_back({a, mid});
  }
  return true;
}

// Grid resolution of the tables: kTablePerSigma points per sigma (at least 8 per unit), a
// multiple of `multiple`.
constexpr double kTablePerSigma = 48;
constexpr int kTableRefine = 4;       // each further level: kTableRefine times finer
constexpr int kTableLevels = 3;       // levels of tables before the envelope path
constexpr double kTableMaxCells = 6e6;  // larger tables: go to the envelope path

int table_r(double sigma, int multiple) {
  int r = std::max(8, static_cast<int>(std::ceil(kTablePerSigma / sigma)));
  return ((r + multiple - 1) / multiple) * multiple;
}

// The bound of one shift interval [ja / r, jb / r] (multi_gaussian.h): the three convex
// combinations of P(a, .) and P(b, .), cheapest first; P(j, 0) = the bound on delta(j / r) is
// cached per shift.
class IntervalCertifier {
 public:
  IntervalCertifier(const LatticeTables& T, double limit)
      : T_(T), limit_(limit), all_(T.all_cells()),
        negligible_(1e-8 * limit / (all_[0].hi - all_[0].lo)) {}
  // true: sup over [ja / r, jb / r] of delta <= limit, proved.
  bool accept(int ja, int jb) {
    const double pa = scan(ja, 0.0, ja, jb, INFINITY), pb = scan(jb, 0.0, ja, jb, INFINITY);
    if (!(pa <= limit_) || !(pb <= limit_)) return false;  // a NaN bound is never accepted
    if (ja == jb) return true;
    // c = w^2/8 and w^2/2 from integers with one rounding each, so that a parent's w^2/8 and its
    // halves' w^2/2 are the same double (and the parent's scans can be reused, below).
    const double d2 = static_cast<double>(jb - ja) * (jb - ja), r2 = static_cast<double>(T_.r()) * T_.r();
    const double c8 = d2 / (8 * r2) * (1 + 1e-14), c2 = d2 / (2 * r2) * (1 + 1e-14);
    if (scan(ja, c8, ja, jb, limit_) <= limit_ && scan(jb, c8, ja, jb, limit_) <= limit_) return true;
    if (scan(ja, c2, ja, jb, limit_) <= limit_) return true;  // and pb <= limit
    if (scan(jb, c2, ja, jb, limit_) <= limit_) return true;  // and pa <= limit
    return false;
  }

 private:
  // P(j, c) with S over [ja, jb] (c = 0: delta(j / r), cached).  Cells a previous scan at j
  // excluded are skipped when that scan dominates: its c S was at least this c S on every cell
  // (c' >= c and [ja', jb'] contains [ja, jb], so that S' >= S; any scan when c = 0).  On such a cell
  // D_j + c' S' <= 0 was proved, hence D_j + c S <= 0 for the true envelope S of [ja, jb], which
  // may be used there as the S of this bound (any S >= sup -f'' will do, cell by cell).
  struct Scan {
    double c;
    int ja, jb;
    double value;
    std::vector<LatticeTables::CellRange> cells;
    size_t count;
  };
  double scan(int j, double c, int ja, int jb, double stop_above) {
    std::vector<Scan>& list = scans_[j];
    const Scan* best = nullptr;
    for (const Scan& sc : list) {
      if (c == 0 && sc.c == 0) return sc.value;  // delta(j / r): computed in full before
      const bool dominates = (c == 0) || (sc.c >= c && sc.ja <= ja && sc.jb >= jb);
      if (dominates && (!best || sc.count < best->count)) best = &sc;
    }
    std::vector<LatticeTables::CellRange> cells = best ? best->cells : all_;
    std::vector<LatticeTables::CellRange> viol;
    const double v = T_.shift_upper(j, c, ja, jb, cells, &viol, stop_above, negligible_);
    size_t count = 0;
    for (const auto& cr : viol) count += static_cast<size_t>(cr.hi - cr.lo);
    list.push_back({c, ja, jb, v, std::move(viol), count});
    return v;
  }

  const LatticeTables& T_;
  double limit_;
  std::vector<LatticeTables::CellRange> all_;
  // A cell whose contribution is at most this is added as such (h Dup) without further work:
  // in all at most 1e-8 of the limit per bound.
  double negligible_;
  std::map<int, std::vector<Scan>> scans_;
};

}  // namespace

bool multi_gaussian_certify(double eps, double delta, int K, double sigma, int integer_shifts,
                            int* intervals_used) {
  GaussLattice g(eps, K, sigma);
  const double limit = delta * (1 - 1e-9);
  int used = 0;
  auto done = [&](bool ok) {
    if (intervals_used) *intervals_used = used;
    return ok;
  };
  // Level by level: branch and bound over grid-aligned shift intervals with the tables of step
  // 1 / r; an interval one grid step wide that is not accepted goes to the next level (r times
  // kTableRefine), and after the last level to the envelope path.  A grid shift whose rigorous
  // lower bound exceeds the limit ends it: not private.
  const int D = integer_shifts > 0 ? integer_shifts : 1;
  int r = table_r(sigma, D);
  std::vector<std::pair<int, int>> work;
  if (integer_shifts > 0) {
    for (int m = integer_shifts; m >= 1; --m) work.push_back({m * (r / D), m * (r / D)});
  } else {
    work.push_back({0, r});
  }
  // Integer shifts m / D need r to be a multiple of D; when that is far finer than sigma needs
  // (large sigma, large D), the envelope bound of the points is cheaper than the tables.
  const bool forced_fine = integer_shifts > 0 && r > 4 * table_r(sigma, 1);
  for (int level = 0; level < kTableLevels && !work.empty() && !forced_fine; ++level) {
    if ((2.0 * K + 3) * r + 2 * kTableZ * sigma * r > kTableMaxCells) break;
    LatticeTables T(g, r);
    IntervalCertifier cert(T, limit);
    std::vector<std::pair<int, int>> next;
    while (!work.empty()) {
      auto [ja, jb] = work.back();
      work.pop_back();
      ++used;
      if ((used & 7) == 0) check_interrupt();
      if (used > kMaxIntervals) return done(false);
      if (cert.accept(ja, jb)) continue;
      if (jb - ja <= 1) {
        if (T.point_lower(ja) > limit || T.point_lower(jb) > limit) return done(false);
        next.push_back({ja * kTableRefine, jb * kTableRefine});
        continue;
      }
      const int mid = ja + (jb - ja) / 2;
      work.push_back({mid, jb});
      work.push_back({ja, mid});
    }
    work = std::move(next);
    r *= kTableRefine;
  }
  // Whatever the tables left: the envelope path (shifts ja / r .. jb / r of the level reached).
  for (const auto& [ja, jb] : work) {
    // The double nearest to ja / r may lie inside the interval: widen outwards by two ulps so that
    // no shift between this interval and a tabulated neighbour is left out.
    double a = static_cast<double>(ja) / r, b = static_cast<double>(jb) / r;
    if (ja < jb) {
      a = std::max(0.0, std::nextafter(std::nextafter(a, -1.0), -1.0));
      b = std::min(1.0, std::nextafter(std::nextafter(b, 2.0), 2.0));
    }
    if (!certify_envelope(g, delta, a, b, &used)) return done(false);
  }
  return done(true);
}

MultiGaussianResult multi_gaussian_calibrate(double eps, double delta, int K, int integer_shifts,
                                             double hint) {
  MultiGaussianResult res{0, 0, 0, 0};
  double s0 = multi_gaussian_search_sigma(eps, delta, K, integer_shifts, hint);
  res.search_sigma = s0;
  res.worst_phi = approx_profile_sup(eps, K, s0, 0, 1e-5 * delta).phi;
  // Certify slightly above the search value; widen on failure.
  const double sigma_ag = analytic_gaussian_sigma(eps, delta, 1.0);
  for (double tau = 0.002; tau < 0.1; tau *= 2) {
    double s = std::max(s0 * (1 + tau), kSigmaFloor);
    if (s >= sigma_ag) break;
    int used = 0;
    if (multi_gaussian_certify(eps, delta, K, s, integer_shifts, &used)) {
      res.sigma = s;
      res.intervals = used;
      return res;
    }
  }
  // Fallback with a closed-form certificate: at sigma_AG(eps, delta) every pair of components
  // shifted by phi <= D is an (eps, delta)-DP Gaussian pair, and a mixture of DP pairs with the
  // same weights is DP (joint convexity of the hockey-stick divergence; docs/mixtures.md §1.3).
  res.sigma = sigma_ag;
  res.intervals = 0;
  return res;
}

}  // namespace dpagg
