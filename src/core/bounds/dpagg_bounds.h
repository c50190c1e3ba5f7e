/*
 * dpagg_bounds.h — the C interface of automatic bounds: a private histogram of the values'
 * magnitudes, from which a call without bounds chooses its clamping bounds (docs/automatic_bounds.md;
 * the method of Google's ApproxBounds, Wilson et al., "Differentially Private SQL with Bounded User
 * Contribution", PoPETs 2020, Section 5.1).
 *
 * The glue counts a group's values in DPAGG_BOUNDS_BINS bins by dpagg_bounds_bin (a rule that
 * depends on the value alone) and asks dpagg_bounds_noisy_range for the lowest and the highest
 * bin whose count plus noise (the discrete Laplace mechanism at sensitivity 1: one value is in one
 * bin) reaches the threshold; dpagg_bounds_widen turns them into bounds that contain 0.
 * Everything after the noise is post-processing.  Only dpagg_bounds_noisy_range draws noise
 * (noisy_range.cpp); the rest is arithmetic.
 */
#ifndef DPAGG_BOUNDS_H
#define DPAGG_BOUNDS_H

#include <math.h>
#include <stdint.h>

#include "dpagg_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Magnitudes 2^k for k in [KMIN, KMAX]: |x| below 2^KMIN counts as 0, above 2^(KMAX + 1) as
 * 2^(KMAX + 1) (beyond every bigint). */
#define DPAGG_BOUNDS_KMIN (-32)
#define DPAGG_BOUNDS_KMAX 62
#define DPAGG_BOUNDS_PER_SIDE (DPAGG_BOUNDS_KMAX - DPAGG_BOUNDS_KMIN + 1)
/* bins in signed order: the negative magnitudes (largest first), the zero bin, the positive */
#define DPAGG_BOUNDS_BINS (2 * DPAGG_BOUNDS_PER_SIDE + 1)
#define DPAGG_BOUNDS_ZERO DPAGG_BOUNDS_PER_SIDE

/*
 * The bin of x: the zero bin for |x| < 2^KMIN and for NaN (which dp_sum counts as 0); for
 * 2^k <= |x| < 2^(k + 1) the bin of k on x's side, k capped at KMAX (so +-Infinity go to the
 * outermost bins).  A deterministic function of x alone, monotone in x.
 */
static inline int
dpagg_bounds_bin(double x)
{
	double		m = fabs(x);
	int			k;

	if (isnan(x) || m < ldexp(1.0, DPAGG_BOUNDS_KMIN))
		return DPAGG_BOUNDS_ZERO;
	k = isinf(m) ? DPAGG_BOUNDS_KMAX : ilogb(m);
	if (k > DPAGG_BOUNDS_KMAX)
		k = DPAGG_BOUNDS_KMAX;
	return x > 0 ? DPAGG_BOUNDS_ZERO + 1 + (k - DPAGG_BOUNDS_KMIN)
		: DPAGG_BOUNDS_ZERO - 1 - (k - DPAGG_BOUNDS_KMIN);
}

/* A value as the histogram keeps it: NaN as 0 (as dp_sum counts it), magnitudes beyond
 * 2^(KMAX + 1) (and +-Infinity) as +-2^(KMAX + 1). */
static inline double
dpagg_bounds_value(double x)
{
	double		top = ldexp(1.0, DPAGG_BOUNDS_KMAX + 1);

	if (isnan(x))
		return 0;
	return x > top ? top : x < -top ? -top : x;
}

/* The exponent e of bin j's quantum 2^e: that of its upper edge's magnitude 2^(k+1), 2^(k+1-52)
 * (the zero bin's: 2^(KMIN-52)).  A value of the bin (dpagg_bounds_value) is below 2^53 quanta. */
static inline int
dpagg_bounds_quantum_exp(int j)
{
	int			k;

	if (j == DPAGG_BOUNDS_ZERO)
		return DPAGG_BOUNDS_KMIN - 52;
	k = j > DPAGG_BOUNDS_ZERO ? j - DPAGG_BOUNDS_ZERO - 1 + DPAGG_BOUNDS_KMIN
		: DPAGG_BOUNDS_ZERO - 1 - j + DPAGG_BOUNDS_KMIN;
	return k + 1 - 52;
}

/* The exponent of the quantum of bin j's squares: that of its squared upper edge,
 * 2^(2(k+1)-52).  A square of the bin's values is at most 2^52 of them. */
static inline int
dpagg_bounds_squares_exp(int j)
{
	return 2 * (dpagg_bounds_quantum_exp(j) + 52) - 52;
}

/*
 * x^2 (x in bin j, as dpagg_bounds_value keeps it) in the quanta of dpagg_bounds_squares_exp(j),
 * rounded once (half to even) from the exact square: x = m 2^e with the integer m below 2^53
 * (exact), so x^2 = m^2 2^(2e) is exact in 128 bits and shifted right once.  At most 2^52.
 */
static inline int64_t
dpagg_bounds_square_quanta(double x, int j)
{
	double		a = fabs(x);
	int			e,
				shift;
	unsigned __int128 m2,
				q,
				r,
				half;

	if (a == 0)
		return 0;
	e = ilogb(a) - 52;
	m2 = (unsigned __int128) (uint64_t) ldexp(a, -e);	/* exact: a has 53 bits from 2^(e+52) */
	m2 *= m2;
	shift = dpagg_bounds_squares_exp(j) - 2 * e;	/* >= 52 for every bin */
	if (shift >= 108)
		return 0;				/* m^2 < 2^106 is below half a quantum */
	q = m2 >> shift;
	r = m2 - (q << shift);
	half = (unsigned __int128) 1 << (shift - 1);
	if (r > half || (r == half && (q & 1)))
		q += 1;
	return (int64_t) q;
}

/* The edges of bin j: every value of the bin, once clamped to [-2^(KMAX+1), 2^(KMAX+1)], lies
 * in [*lo, *hi]; the zero bin is [-2^KMIN, 2^KMIN]. */
void		dpagg_bounds_bin_edges(int j, double *lo, double *hi);

/*
 * The threshold a noisy count must reach for its bin to count: the least whole t such that an
 * empty bin's noisy count reaches it with probability at most beta / DPAGG_BOUNDS_BINS, for
 * discrete Laplace noise of scale s (P(X >= t) = p^t / (1 + p), p = exp(-1/s)); so with
 * probability at least 1 - beta no empty bin counts.  DPAGG_INVALID_PARAMETER for s not finite
 * and > 0 or beta outside (0, 1).
 */
int			dpagg_bounds_threshold(double scale, double beta, double *t, dpagg_error *err);

/*
 * The bounds from the noisy counts of the DPAGG_BOUNDS_BINS bins: from the lower edge of the
 * lowest bin whose noisy count reaches t to the upper edge of the highest, widened to contain 0
 * (values are never pushed away from 0).  Returns 1; or 0 when no bin reaches t, with the zero
 * bin's edges.
 */
int			dpagg_bounds_choose(const double *noisy, double t, double *lower, double *upper);
/* The same bounds from the range of bins that reach t (lo_bin < 0: none; the zero bin's edges
 * and 0 returned). */
int			dpagg_bounds_widen(int lo_bin, int hi_bin, double *lower, double *upper);
/*
 * The lowest and the highest bin whose count plus discrete Laplace noise of the calibration `cal`
 * (discrete_laplace at sensitivity 1) reaches t, with the law of drawing every bin's noise and
 * calling dpagg_bounds_range, but drawing only the noise that decides them: each occupied bin
 * visited, and one geometric draw per run of empty bins visited (the number of them passed
 * before the first that reaches t; docs/automatic_bounds.md §2).  *lo_bin = *hi_bin = -1 when
 * none reaches t.  DPAGG_OK, or DPAGG_INTERNAL for a calibration of another mechanism.
 */
int			dpagg_bounds_noisy_range(const dpagg_calibration *cal, const int64_t *counts, double t,
									 int *lo_bin, int *hi_bin, dpagg_error *err);

/*
 * The range of bins from the noisy counts, not widened: the lowest and the highest bin whose
 * noisy count reaches t (*lo_bin <= *hi_bin).  Returns 1; or 0 when no bin reaches t (then
 * *lo_bin = *hi_bin = -1).  For the statistics that do not depend on where 0 is: the quantiles
 * and the variances (docs/automatic_bounds.md, "Quantiles and variances").
 */
int			dpagg_bounds_range(const double *noisy, double t, int *lo_bin, int *hi_bin);

/*
 * A finer grid for the quantiles without bounds: every bin of magnitude but the zero bin split
 * into DPAGG_BOUNDS_SUB cells of equal width (relative width at most 1/DPAGG_BOUNDS_SUB), in
 * signed order like the bins.  A cell lies in one bin; the zero bin is one cell.
 */
#define DPAGG_BOUNDS_SUB 32
#define DPAGG_BOUNDS_CELLS (2 * DPAGG_BOUNDS_PER_SIDE * DPAGG_BOUNDS_SUB + 1)
#define DPAGG_BOUNDS_ZERO_CELL (DPAGG_BOUNDS_PER_SIDE * DPAGG_BOUNDS_SUB)

/*
 * The cell of x for a quantile: the zero cell for |x| < 2^KMIN; NaN (which PostgreSQL sorts above
 * every number) and +Infinity in the top cell, -Infinity in the bottom one; magnitudes beyond
 * 2^(KMAX + 1) in the outermost cells.  A deterministic function of x alone, monotone in x
 * (NaN above all).
 */
static inline int
dpagg_bounds_cell(double x)
{
	double		m = fabs(x);
	int			k,
				s;

	if (isnan(x))
		return DPAGG_BOUNDS_CELLS - 1;
	if (m < ldexp(1.0, DPAGG_BOUNDS_KMIN))
		return DPAGG_BOUNDS_ZERO_CELL;
	k = isinf(m) ? DPAGG_BOUNDS_KMAX + 1 : ilogb(m);
	if (k > DPAGG_BOUNDS_KMAX)
		s = DPAGG_BOUNDS_SUB - 1;
	else
	{
		/* m / 2^k in [1, 2): exact; its first five fraction bits are the cell */
		s = (int) ((ldexp(m, -k) - 1.0) * DPAGG_BOUNDS_SUB);
		if (s > DPAGG_BOUNDS_SUB - 1)
			s = DPAGG_BOUNDS_SUB - 1;
	}
	if (k > DPAGG_BOUNDS_KMAX)
		k = DPAGG_BOUNDS_KMAX;
	s += (k - DPAGG_BOUNDS_KMIN) * DPAGG_BOUNDS_SUB;
	return x > 0 ? DPAGG_BOUNDS_ZERO_CELL + 1 + s : DPAGG_BOUNDS_ZERO_CELL - 1 - s;
}

/* The bin of magnitude a cell lies in. */
static inline int
dpagg_bounds_cell_bin(int c)
{
	if (c == DPAGG_BOUNDS_ZERO_CELL)
		return DPAGG_BOUNDS_ZERO;
	return c > DPAGG_BOUNDS_ZERO_CELL
		? DPAGG_BOUNDS_ZERO + 1 + (c - DPAGG_BOUNDS_ZERO_CELL - 1) / DPAGG_BOUNDS_SUB
		: DPAGG_BOUNDS_ZERO - 1 - (DPAGG_BOUNDS_ZERO_CELL - 1 - c) / DPAGG_BOUNDS_SUB;
}

/* The first and the last cell of bin j. */
void		dpagg_bounds_bin_cells(int j, int *first, int *last);

/* The edges of cell c: every value of the cell (its magnitude capped at 2^(KMAX + 1)) lies in
 * [*lo, *hi]. */
void		dpagg_bounds_cell_edges(int c, double *lo, double *hi);

#ifdef __cplusplus
}
#endif

#endif
