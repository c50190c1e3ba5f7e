// tables.h — the tabulated certificate of the multi-Gaussian: lattice-aligned tables of partial
// lattice sums (built in tables.cpp) from which table_bounds.cpp bounds the privacy profile at grid
// shifts and, with a second-order interpolation bound, over intervals between them.  The certifier
// (certifier.cpp) runs its branch and bound over shift intervals on these bounds and hands
// whatever they leave undecided to the envelope bound (lattice.h).
#pragma once

#include <vector>

#include "mechanisms/multi_gaussian/lattice.h"

namespace dpagg {

// Truncation (in sigma) of the tabulated sums.
constexpr double kTableZ = 12.0;

// The tabulated certificate (docs/multi_gaussian_certificate.md, "The tabulated certificate").
// Grid x_m = m / r, lattice-aligned (every component centre k is the grid point k r); shifts on the
// same grid, phi = j / r.  On each grid cell [x_m, x_{m+1}] every component of f(. - j / r) and of
// f is monotone (its peak is a grid point), so the sup and inf of both on a cell, and their exact
// integrals over it, are partial lattice sums that depend on one index (m - j or m): tables filled
// once per sigma; a bound is then a sum over cells of a few table lookups (no exp).
//
// Between grid shifts: for phi = a + lambda (b - a) in [a, b] and every x,
//   D_phi(x) <= (1 - lambda) D_a(x) + lambda D_b(x) + lambda (1 - lambda) (b - a)^2 / 2 S(x)
// with D_phi = f(. - phi) - e^eps f and S(x) >= sup_{phi in [a, b]} -f''(x - phi), S >= 0 (the
// concavity of phi -> D_phi(x), whose second derivative is f''(x - phi)).  With
// lambda (1 - lambda) <= 1/4, <= 1 - lambda or <= lambda the right side is linear in lambda, so the
// integral of its positive part is convex in lambda and
//   sup_{[a,b]} delta <= max(P(a, w^2/8), P(b, w^2/8)),  max(P(a, w^2/2), P(b, 0)),
//                        max(P(a, 0), P(b, w^2/2)),   P(j, c) = integral (D_j + c S)_+,  w = b - a.
class LatticeTables {
 public:
  LatticeTables(const GaussLattice& g, int r);
  int r() const { return r_; }
  struct CellRange {
    int lo, hi;  // cells m in [lo, hi)
  };
  std::vector<CellRange> all_cells() const { return {{mlo_, mhi_}}; }
  // A rigorous upper bound on P(j / r, c) = integral (D_{j/r} + c S)_+ dx, 0 <= j <= r, c >= 0,
  // with S >= sup of -f''(x - xi) over shifts xi in [ja / r, jb / r] (unused when c = 0).  Only the
  // cells in `cells` are visited: the caller guarantees D_{j/r} + c S <= 0 on every other one.
  // `violating` (optional) receives the cells where that could not be excluded.  Stops once the
  // bound exceeds stop_above (then `violating` also receives every cell not yet visited).
  // A cell (or block) whose contribution is at most h Dup <= `negligible` per cell is charged
  // h Dup without further work (it stays in `violating`).
  double shift_upper(int j, double c, int ja, int jb, const std::vector<CellRange>& cells,
                     std::vector<CellRange>* violating, double stop_above, double negligible = 0) const;
  // A rigorous lower bound on delta(j / r).
  double point_lower(int j) const;

 private:
  const GaussLattice& g_;
  int r_, K_, W_, mlo_, mhi_, p0_;
  double E_, c0_, h_, tail_, abs_pt_, m2top_, rho_, rho_int_;
  int D3_;                  // ceil(4 sigma r): the components S sums over, in grid steps
  std::vector<double> m2_;  // -n''(d / r), d = 0..D3_ + r + 2
  // Indexed by p - p0_: L (k r <= p), Ls (k r < p), R (k r >= p), Rs (k r > p) of
  // sum w_k n(p / r - k); IL (k r <= p), IR (k r > p) of sum w_k times the integral of n(. - k)
  // over [p / r, (p + 1) / r]; Kf = floor(p / r).
  std::vector<double> L_, Ls_, R_, Rs_, IL_, IR_;
  std::vector<int> Kf_;
  double L(int p) const { return L_[static_cast<size_t>(p - p0_)]; }
  double Ls(int p) const { return Ls_[static_cast<size_t>(p - p0_)]; }
  double R(int p) const { return R_[static_cast<size_t>(p - p0_)]; }
  double Rs(int p) const { return Rs_[static_cast<size_t>(p - p0_)]; }
  double IL(int p) const { return IL_[static_cast<size_t>(p - p0_)]; }
  double IR(int p) const { return IR_[static_cast<size_t>(p - p0_)]; }
  int Kf(int p) const { return Kf_[static_cast<size_t>(p - p0_)]; }
  double plateau(int pb, int pa) const;  // sum of w_k over k r in (pb, pa]
  // S of the cells [m1, m2) for the shift interval [ja / r, jb / r] (lo_p = m1 - jb, hi_p = m2 - ja):
  // >= sup of -f''(x - xi) over them, >= 0.
  double slack_S(int lo_p, int hi_p) const;
  // Curvature (the second-order chord bound of a cell): A2[e] >= sup |n''| on the cell
  // [e / r, (e + 1) / r] and A3 (a sparse table for range maxima) of sup |n'''|, for
  // |e| <= a0_; m_out_ bounds the components beyond Wc_ grid steps (12 sigma).
  int Wc_, a0_;
  double m_out_, m_out_pair_;
  std::vector<double> A2_;
  std::vector<std::vector<double>> A3_;
  double A2(int e) const { return A2_[static_cast<size_t>(e + a0_)]; }
  double A3max(int e1, int e2) const;  // max of A3 over cells e1..e2
  // Lattice sums of those, indexed like L: TA2pos (k = 0..K-1) and TA2neg (k = -K..-1) of
  // w_k A2(p - k r); TY[l] (k = 0..K-1) of w_k max(A3 over cells p - k r .. p - k r + 2^l - 1),
  // filled when first needed; m_out3_ bounds the A3 terms of components beyond Wc_.
  int p1_;
  double m_out3_;
  std::vector<double> TA2pos_, TA2neg_;
  mutable std::vector<std::vector<double>> TY_;
  const std::vector<double>& TY(int l) const;
  // >= sup |D_{j/r}''| on cell m; paired_form: of D_in (point_D_paired), without the E-weighted
  // bound of the unpaired unshifted components beyond Wc_ (which D_in leaves out).
  double curvature(int m, int j, bool paired_form = false) const;
  double point_D(int m, int j, double* err) const;  // D_{j/r}(x_m) and how much more the true D can be
  // The same value in the paired form (shifted k with unshifted k + 1), with a rounding bound that
  // scales with the size of each term, not with f(. - j / r) + e^eps f (used near phi = 1).
  double point_D_paired(int m, int j, double* err) const;
  std::vector<double> base_;  // n(d / r), d = 0..W_
};

}  // namespace dpagg
