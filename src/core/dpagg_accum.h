/*
 * dpagg_accum.h — exact, order-independent accumulation of clamped values.
 *
 * Plain C99 (usable from the C glue, where it is inlined into the per-row transition function,
 * and from the C++ unit tests).  No PostgreSQL headers.
 *
 * A value is clamped to [lower, upper] and then rounded to the nearest multiple of a quantum
 * q = 2^(floor(log2 B) - 52), B = max(|lower|, |upper|).  B itself is a multiple of q, so the
 * rounded value still lies in [-B, B]: the add/remove-one sensitivity B holds exactly.  The
 * rounded values are integers (in units of q) below 2^53 in magnitude and are summed in a
 * 128-bit integer: the total is exact, so it does not depend on the order of rows or on how
 * partial aggregates are combined.  The rounding error is at most q/2 = B * 2^-53 per row.
 *
 * NaN inputs are treated as 0 and then clamped; +/-infinity clamp to the bounds.
 */
#ifndef DPAGG_ACCUM_H
#define DPAGG_ACCUM_H

#include <math.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The quantum for values bounded by B > 0 (finite). */
static inline double
dpagg_quantum_for_bound(double bound)
{
	return ldexp(1.0, ilogb(bound) - 52);
}

/* Clamp x into [lower, upper]; NaN counts as 0 before clamping. */
static inline double
dpagg_clamp(double x, double lower, double upper)
{
	if (isnan(x))
		x = 0.0;
	if (x < lower)
		return lower;
	if (x > upper)
		return upper;
	return x;
}

/* Clamp and quantize: the number of quanta (|result| <= 2^53) that the row contributes. */
static inline int64_t
dpagg_quantize(double x, double lower, double upper, double inv_quantum)
{
	/* x * inv_quantum is exact (a power of two scaling without overflow or underflow here),
	 * and both roundings below are half-to-even in the default rounding mode, which is all that
	 * order independence needs (the same value always gives the same integer). */
	double		y = dpagg_clamp(x, lower, upper) * inv_quantum;
#if defined(__SSE2__)
	return (int64_t) _mm_cvtsd_si64(_mm_set_sd(y));	/* one instruction; |y| <= 2^53 */
#else
	return (int64_t) nearbyint(y);
#endif
}

/*
 * Integer values with whole-number bounds: the same quanta as the floating-point path, computed
 * without leaving the integers (no conversion, no NaN test).
 *
 * Not centred (dp_sum): quanta = clamp(x) / q, the value dpagg_quantize(x, lower, upper, 1/q)
 * gives.  Centred (dp_avg): quanta = (clamp(x) - m) / q with m = lower/2 + upper/2 and q the
 * quantum of B = (upper - lower)/2, the value dpagg_quantize(dpagg_clamp(x, lower, upper) - m,
 * -B, B, 1/q) gives.  Both are computed as (2 clamp(x) - offset) * half, offset = 0 or
 * lower + upper and half = 1/(2q).  Why they are the same integers: with |lower|, |upper| <=
 * 2^50 every double involved is exact (an integer x converts exactly once clamped, since an
 * int64 outside the bounds converts to a double outside them too; m and x - m are multiples of
 * 1/2 below 2^51; B <= 2^50 gives 1/q = 2^(52 - ilogb B) >= 4, a power of two, so the products
 * are exact integers below 2^53 and the final rounding does nothing).  In the integers, |2
 * clamp(x) - offset| <= 2B and (2B) * half = B / q < 2^53: nothing overflows.
 */
typedef struct dpagg_int_quantizer
{
	int64_t		lower;			/* clamping bounds */
	int64_t		upper;
	int64_t		offset;			/* 0, or lower + upper when centred */
	int64_t		half;			/* 1 / (2q) */
} dpagg_int_quantizer;

#define DPAGG_INT_QUANTIZER_MAX 0x1p50

/* Set up the integer path for these bounds; false when it does not apply (then use the
 * floating-point path).  Requires lower <= upper, and lower < upper when centred. */
static inline int
dpagg_int_quantizer_init(dpagg_int_quantizer *iq, double lower, double upper, int centred)
{
	double		bound,
				inv;

	if (!(lower == floor(lower) && upper == floor(upper) &&
		  fabs(lower) <= DPAGG_INT_QUANTIZER_MAX && fabs(upper) <= DPAGG_INT_QUANTIZER_MAX &&
		  (centred ? lower < upper : lower <= upper)))
		return 0;
	bound = centred ? (upper - lower) / 2.0 : fmax(fabs(lower), fabs(upper));
	if (!(bound > 0))
		return 0;
	inv = 1.0 / dpagg_quantum_for_bound(bound);
	if (!(inv >= 4.0))
		return 0;				/* not reached for these bounds (bound <= 2^50) */
	iq->lower = (int64_t) lower;
	iq->upper = (int64_t) upper;
	iq->offset = centred ? iq->lower + iq->upper : 0;
	iq->half = (int64_t) (inv / 2);
	return 1;
}

/* The quanta of one integer value (see above). */
static inline int64_t
dpagg_quantize_int(int64_t x, const dpagg_int_quantizer *iq)
{
	x = x < iq->lower ? iq->lower : x;
	x = x > iq->upper ? iq->upper : x;
	return (2 * x - iq->offset) * iq->half;
}

#endif							/* DPAGG_ACCUM_H */
