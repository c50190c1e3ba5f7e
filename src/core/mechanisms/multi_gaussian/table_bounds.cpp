// table_bounds.cpp — the bounds of the tabulated certificate (tables.h), read from the tables that
// tables.cpp fills: the curvature of D on a cell, D at grid points (plain and, near phi = 1, in the
// paired form), the interpolation slack S, and from these shift_upper (a rigorous upper bound on the
// profile at a grid shift, optionally with the slack c S of an interval) and point_lower (a lower
// bound).  The scheme is summarised at the top of tables.cpp and derived in
// docs/multi_gaussian_certificate.md, "The tabulated certificate".
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "mechanisms/multi_gaussian/cell_bounds.h"
#include "mechanisms/multi_gaussian/tables.h"

namespace dpagg {

using namespace mg_detail;

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

}  // namespace dpagg
