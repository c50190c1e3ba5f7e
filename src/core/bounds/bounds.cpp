// bounds.cpp — automatic bounds from a private histogram of magnitudes (dpagg_bounds.h;
// docs/automatic_bounds.md).
#include <cmath>

#include "dpagg_bounds.h"
#include "errors.h"
#include "guarded.h"

namespace dpagg {

namespace {

void edges(int j, double* lo, double* hi) {
  if (j < 0 || j >= DPAGG_BOUNDS_BINS) throw Error(DPAGG_INTERNAL, "dpagg: a bounds bin out of range");
  if (j == DPAGG_BOUNDS_ZERO) {
    *lo = -std::ldexp(1.0, DPAGG_BOUNDS_KMIN);
    *hi = std::ldexp(1.0, DPAGG_BOUNDS_KMIN);
    return;
  }
  const int k = j > DPAGG_BOUNDS_ZERO ? j - DPAGG_BOUNDS_ZERO - 1 + DPAGG_BOUNDS_KMIN
                                      : DPAGG_BOUNDS_ZERO - 1 - j + DPAGG_BOUNDS_KMIN;
  const double a = std::ldexp(1.0, k), b = std::ldexp(1.0, k + 1);
  if (j > DPAGG_BOUNDS_ZERO) {
    *lo = a;
    *hi = b;
  } else {
    *lo = -b;
    *hi = -a;
  }
}

// The least whole t >= 1 with BINS * p^t / (1 + p) <= beta, p = exp(-1/s): t >= ln(BINS / (beta
// (1 + p))) * s, rounded up, then checked (and raised) in long double against the rounding of
// the logarithms, so that it is never too small.
double threshold(double s, double beta) {
  if (!(std::isfinite(s) && s > 0))
    invalid("the noise scale of the bounds' histogram must be finite and > 0",
            "Pass a positive epsilon for the bounds.");
  if (!(beta > 0 && beta < 1))
    invalid("the failure probability of the bounds must lie in (0, 1)", "Pass, e.g., 1e-9.");
  const long double lp = -1.0L / s;  // ln p
  const long double p = std::exp(lp);
  long double t = std::ceil(std::log(DPAGG_BOUNDS_BINS / (beta * (1 + p))) * s);
  if (t < 1) t = 1;
  while (DPAGG_BOUNDS_BINS * std::exp(lp * t) / (1 + p) > beta) t += 1;
  return static_cast<double>(t);
}

void bin_cells(int j, int* first, int* last) {
  if (j < 0 || j >= DPAGG_BOUNDS_BINS) throw Error(DPAGG_INTERNAL, "dpagg: a bounds bin out of range");
  if (j == DPAGG_BOUNDS_ZERO) {
    *first = *last = DPAGG_BOUNDS_ZERO_CELL;
  } else if (j > DPAGG_BOUNDS_ZERO) {
    *first = DPAGG_BOUNDS_ZERO_CELL + 1 + (j - DPAGG_BOUNDS_ZERO - 1) * DPAGG_BOUNDS_SUB;
    *last = *first + DPAGG_BOUNDS_SUB - 1;
  } else {
    *last = DPAGG_BOUNDS_ZERO_CELL - 1 - (DPAGG_BOUNDS_ZERO - 1 - j) * DPAGG_BOUNDS_SUB;
    *first = *last - DPAGG_BOUNDS_SUB + 1;
  }
}

void cell_edges(int c, double* lo, double* hi) {
  if (c < 0 || c >= DPAGG_BOUNDS_CELLS) throw Error(DPAGG_INTERNAL, "dpagg: a cell out of range");
  if (c == DPAGG_BOUNDS_ZERO_CELL) {
    edges(DPAGG_BOUNDS_ZERO, lo, hi);
    return;
  }
  const int a = c > DPAGG_BOUNDS_ZERO_CELL ? c - DPAGG_BOUNDS_ZERO_CELL - 1 : DPAGG_BOUNDS_ZERO_CELL - 1 - c;
  const int k = a / DPAGG_BOUNDS_SUB + DPAGG_BOUNDS_KMIN, s = a % DPAGG_BOUNDS_SUB;
  // 2^k (1 + s / SUB) and 2^k (1 + (s + 1) / SUB): exact in binary
  const double m0 = std::ldexp(1.0 + static_cast<double>(s) / DPAGG_BOUNDS_SUB, k);
  const double m1 = std::ldexp(1.0 + static_cast<double>(s + 1) / DPAGG_BOUNDS_SUB, k);
  if (c > DPAGG_BOUNDS_ZERO_CELL) {
    *lo = m0;
    *hi = m1;
  } else {
    *lo = -m1;
    *hi = -m0;
  }
}

}  // namespace

}  // namespace dpagg

extern "C" {

void dpagg_bounds_bin_edges(int j, double* lo, double* hi) {
  dpagg_error err;
  if (dpagg::guarded(&err, [&] { dpagg::edges(j, lo, hi); }) != DPAGG_OK) *lo = *hi = NAN;
}

int dpagg_bounds_threshold(double scale, double beta, double* t, dpagg_error* err) {
  return dpagg::guarded(err, [&] { *t = dpagg::threshold(scale, beta); });
}

void dpagg_bounds_bin_cells(int j, int* first, int* last) {
  dpagg_error err;
  if (dpagg::guarded(&err, [&] { dpagg::bin_cells(j, first, last); }) != DPAGG_OK) *first = *last = -1;
}

void dpagg_bounds_cell_edges(int c, double* lo, double* hi) {
  dpagg_error err;
  if (dpagg::guarded(&err, [&] { dpagg::cell_edges(c, lo, hi); }) != DPAGG_OK) *lo = *hi = NAN;
}

int dpagg_bounds_range(const double* noisy, double t, int* lo_bin, int* hi_bin) {
  *lo_bin = *hi_bin = -1;
  for (int j = 0; j < DPAGG_BOUNDS_BINS; ++j)
    if (noisy[j] >= t) {
      if (*lo_bin < 0) *lo_bin = j;
      *hi_bin = j;
    }
  return *lo_bin >= 0 ? 1 : 0;
}

int dpagg_bounds_widen(int lo, int hi, double* lower, double* upper) {
  double a, b;
  if (lo < 0) {
    dpagg_bounds_bin_edges(DPAGG_BOUNDS_ZERO, lower, upper);
    return 0;
  }
  dpagg_bounds_bin_edges(lo, lower, &b);
  dpagg_bounds_bin_edges(hi, &a, upper);
  if (*lower > 0) *lower = 0;
  if (*upper < 0) *upper = 0;
  return 1;
}

int dpagg_bounds_choose(const double* noisy, double t, double* lower, double* upper) {
  int lo, hi;
  (void) dpagg_bounds_range(noisy, t, &lo, &hi);
  return dpagg_bounds_widen(lo, hi, lower, upper);
}

}  // extern "C"
