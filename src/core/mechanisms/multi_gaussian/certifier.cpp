// certifier.cpp — multi_gaussian_certify (multi_gaussian.h): the proof that a given sigma is
// private.  A branch and bound over shift intervals covering [0, 1] (or over the integer shifts of
// an integer-valued query): each interval is accepted only if a rigorous upper bound of the sup of
// the profile over it is <= delta (1 - 1e-9).  The bounds come first from the lattice tables
// (tables.h, table_bounds.cpp), level by level on finer grids, and for whatever they leave from
// the envelope bound (GaussLattice::envelope_bound, envelope_bound.cpp).  A grid shift whose
// rigorous lower bound exceeds the limit ends the search: sigma is not private.  The argument is in
// docs/multi_gaussian_certificate.md.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "interrupt.h"
#include "mechanisms/multi_gaussian/multi_gaussian.h"

namespace dpagg {

namespace {
// Work limit of one certification; beyond it the closed-form fallback is used.
constexpr int kMaxIntervals = 20000;
}  // namespace

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

// The bound of one shift interval [ja / r, jb / r] (tables.h): the three convex
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

}  // namespace dpagg
