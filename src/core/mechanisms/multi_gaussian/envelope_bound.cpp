// envelope_bound.cpp — GaussLattice::envelope_bound (lattice.h): a rigorous upper bound on the sup
// of the multi-Gaussian's privacy profile over a shift interval [a, b].  The general but slow path
// of the certificate: certifier.cpp uses it for whatever the tables (table_bounds.cpp) leave
// undecided.  Derived in docs/multi_gaussian_certificate.md, "The envelope bound for a shift
// interval".
//
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
#include "mechanisms/multi_gaussian/lattice.h"

#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "interrupt.h"
#include "math/gaussian.h"
#include "mechanisms/multi_gaussian/cell_bounds.h"

namespace dpagg {

using namespace mg_detail;

namespace {
// Beyond 38.6 sigma a Gaussian term is below e^-745 of its peak: it underflows to 0 in double.
constexpr double kWindow = 38.6;
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
  constexpr uint64_t kMaxCells = uint64_t{1} << 25;
  uint64_t cells = 0;
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
      // The subdivision may go 60 halvings deep: poll for a cancel (statement_timeout,
      // pg_cancel_backend) and give up past a bound on the work — not certified, which refuses
      // the calibration rather than spinning (an attack review found a calibration at epsilon 100,
      // delta 1e-10 running for more than 25 minutes, deaf to cancels).
      if ((++cells & 4095) == 0) {
        check_interrupt();
        if (cells > kMaxCells) return {INFINITY, INFINITY};
      }
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

}  // namespace dpagg
