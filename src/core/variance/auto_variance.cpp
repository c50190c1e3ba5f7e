// auto_variance.cpp — the exact sums of a variance without bounds (dpagg_variance.h,
// dpagg_auto_variance_sums; the argument is docs/automatic_bounds.md, "Variances").
//
// Every number here is a multiple of 2^-kFine (values) or 2^-2kFine (squares): the bins' quanta
// (down to 2^-84 and 2^-116), the bounds and the middle (powers of two down to 2^-33) and the
// plan's B and B^2/2 (doubles of at least 2^-33 and 2^-67).  So each bin's contribution is an
// exact big integer in those units, rounded once to the coarse quanta.
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>

#include "bounds/dpagg_bounds.h"
#include "dpagg_accum.h"
#include "dpagg_variance.h"
#include "errors.h"
#include "guarded.h"

namespace dpagg {

namespace {

using boost::multiprecision::cpp_int;

constexpr int kFine = 256;

cpp_int from_i128(__int128 v) {
  const bool neg = v < 0;
  const unsigned __int128 a = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  cpp_int r = static_cast<uint64_t>(a >> 64);
  r <<= 64;
  r += static_cast<uint64_t>(a);
  return neg ? cpp_int(-r) : r;
}

__int128 to_i128(const cpp_int& v) {
  const cpp_int a = abs(v);
  if (a != 0 && msb(a) >= 127) throw Error(DPAGG_INTERNAL, "dpagg: a variance's sum beyond 127 bits");
  const uint64_t hi = static_cast<uint64_t>(a >> 64);
  const uint64_t lo = static_cast<uint64_t>(a & cpp_int(UINT64_MAX));
  const __int128 r = static_cast<__int128>((static_cast<unsigned __int128>(hi) << 64) | lo);
  return v < 0 ? -r : r;
}

// v times 2^scale, which must be an integer (checked).
cpp_int exact(double v, int scale) {
  if (v == 0) return 0;
  if (!std::isfinite(v)) throw Error(DPAGG_INTERNAL, "dpagg: a variance's bound is not finite");
  int e;
  const double f = std::frexp(std::fabs(v), &e);
  cpp_int m = static_cast<uint64_t>(std::ldexp(f, 53));  // exact
  const int sh = e - 53 + scale;
  if (sh >= 0) {
    m <<= sh;
  } else {
    if (lsb(m) < static_cast<unsigned>(-sh))
      throw Error(DPAGG_INTERNAL, "dpagg: a variance's bound finer than its fixed point");
    m >>= -sh;
  }
  return v < 0 ? cpp_int(-m) : m;
}

// v / 2^sh (sh >= 0) rounded half to even.
cpp_int round_shift(const cpp_int& v, int sh) {
  if (sh == 0) return v;
  const bool neg = v < 0;
  const cpp_int a = abs(v);
  cpp_int q = a >> sh;
  const cpp_int r = a - (q << sh);
  const cpp_int half = cpp_int(1) << (sh - 1);
  if (r > half || (r == half && bit_test(q, 0))) q += 1;
  return neg ? cpp_int(-q) : q;
}

void sums(const dpagg_auto_variance_bin* bins, int lo_bin, int hi_bin, const dpagg_variance_plan& p,
          __int128* squares, __int128* sum, int64_t* count) {
  if (lo_bin < 0 || hi_bin >= DPAGG_BOUNDS_BINS || lo_bin > hi_bin)
    throw Error(DPAGG_INTERNAL, "dpagg: a variance's range of bins out of order");
  double lower, upper, a, b;
  dpagg_bounds_bin_edges(lo_bin, &lower, &a);
  dpagg_bounds_bin_edges(hi_bin, &b, &upper);
  if (lower != p.lower || upper != p.upper)
    invalid("the variance's plan is not for the bounds of these bins",
            "Make the plan for the lower edge of the lowest bin and the upper edge of the highest.");
  const int qy = ilogb(p.bound) - 52;  // dpagg_quantum_for_bound(B) = 2^qy
  const double h = p.sensitivity[DPAGG_VARIANCE_SQUARES];
  const int qq = ilogb(h) - 52;
  const cpp_int L = exact(lower, kFine), U = exact(upper, kFine);
  const cpp_int m = (L + U) / 2;  // exact: L and U are multiples of 2^(kFine - 32)
  const cpp_int h2 = exact(h, 2 * kFine);
  const cpp_int yU = U - m, yL = L - m;  // +-B exactly
  const cpp_int qU = yU * yU - h2, qL = yL * yL - h2;
  cpp_int s = 0, q = 0;
  int64_t n = 0;
  for (int j = 0; j < DPAGG_BOUNDS_BINS; ++j) {
    const dpagg_auto_variance_bin& bin = bins[j];
    if (bin.count == 0) continue;
    if (bin.count < 0) throw Error(DPAGG_INTERNAL, "dpagg: a negative count in a variance's bin");
    n += bin.count;
    const cpp_int c = bin.count;
    cpp_int ys, qs;  // the bin's sum(y) at 2^-kFine and sum(y^2 - h) at 2^-2kFine, exact
    if (j > hi_bin) {
      ys = c * yU;
      qs = c * qU;
    } else if (j < lo_bin) {
      ys = c * yL;
      qs = c * qL;
    } else {
      const cpp_int sx = from_i128(bin.sum) << (dpagg_bounds_quantum_exp(j) + kFine);
      const cpp_int sq = from_i128(bin.squares) << (dpagg_bounds_squares_exp(j) + 2 * kFine);
      ys = sx - c * m;
      // sum (x - m)^2 - h = sum x^2 - 2 m sum x + n m^2 - n h
      qs = sq - 2 * m * sx + c * m * m - c * h2;
    }
    s += round_shift(ys, kFine + qy);
    q += round_shift(qs, 2 * kFine + qq);
  }
  *sum = to_i128(s);
  *squares = to_i128(q);
  *count = n;
}

}  // namespace

}  // namespace dpagg

extern "C" {

int dpagg_auto_variance_sums(const dpagg_auto_variance_bin* bins, int lo_bin, int hi_bin,
                             const dpagg_variance_plan* plan, __int128* squares, __int128* sum,
                             int64_t* count, dpagg_error* err) {
  return dpagg::guarded(err, [&] { dpagg::sums(bins, lo_bin, hi_bin, *plan, squares, sum, count); });
}

}  // extern "C"
