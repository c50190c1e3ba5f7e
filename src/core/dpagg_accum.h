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

#endif							/* DPAGG_ACCUM_H */
