// tables.cpp — construction of LatticeTables (tables.h): the lattice sums and curvature tables of
// the tabulated certificate, filled once per (sigma, grid).  The bounds read from them are in
// table_bounds.cpp; the certifier (certifier.cpp) builds one set of tables per refinement level.
//
// The tabulated certificate (tables.h, docs/multi_gaussian_certificate.md).
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
#include "mechanisms/multi_gaussian/tables.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "math/gaussian.h"
#include "mechanisms/multi_gaussian/cell_bounds.h"

namespace dpagg {

using namespace mg_detail;

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

}  // namespace dpagg
