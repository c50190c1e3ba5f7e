/*
 * dpagg_variance.h — the C interface of private variances and standard deviations (dp_var_pop,
 * dp_var_samp, dp_stddev_pop, dp_stddev_samp; the argument is docs/variance.md and variance.h).
 *
 * A release is three noisy sums of the clamped values x in [lower, upper], centred on the middle
 * m = (lower + upper)/2 so that y = x - m lies in [-B, B], B = (upper - lower)/2:
 *   part 0, the sum of y^2 - B^2/2   (sensitivity B^2/2),
 *   part 1, the sum of y            (sensitivity B),
 *   part 2, the number of values    (sensitivity 1),
 * each calibrated by the glue with the call's mechanism at its share of epsilon and delta (the
 * shares, below, add up to less than the call's: basic composition).  The answer is
 * post-processing of the three noisy sums (dpagg_variance_estimate).  Nothing here draws noise
 * or can fail once the plan is made.
 */
#ifndef DPAGG_VARIANCE_H
#define DPAGG_VARIANCE_H

#include <stdint.h>

#include "dpagg_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DPAGG_VARIANCE_PARTS 3
#define DPAGG_VARIANCE_SQUARES 0
#define DPAGG_VARIANCE_SUM 1
#define DPAGG_VARIANCE_COUNT 2

/* The four statistics (PostgreSQL's var_pop, var_samp, stddev_pop, stddev_samp). */
typedef enum dpagg_variance_form
{
	DPAGG_VAR_POP = 0,
	DPAGG_VAR_SAMP = 1,
	DPAGG_STDDEV_POP = 2,
	DPAGG_STDDEV_SAMP = 3
} dpagg_variance_form;

typedef struct dpagg_variance_plan
{
	double		lower;
	double		upper;
	double		mid;			/* m = lower/2 + upper/2 */
	double		bound;			/* B = (upper - lower)/2 */
	double		sensitivity[DPAGG_VARIANCE_PARTS];	/* B^2/2, B, 1 */
	double		epsilon[DPAGG_VARIANCE_PARTS];	/* each part's share of the call's epsilon */
	double		delta[DPAGG_VARIANCE_PARTS];	/* ... and of its delta */
} dpagg_variance_plan;

/*
 * Check a call's parameters (epsilon in [4e-10, 1e9] and delta 0 or in [4e-290, 1), so that
 * each part's share is one a calibration takes; finite bounds with lower < upper and
 * 1e-70 <= B <= 1e70, so that B^2/2 is a sensitivity a calibration takes) and split epsilon and
 * delta into the three parts' shares.  DPAGG_INVALID_PARAMETER with a hint otherwise.  The
 * parts' calibrations check the rest (the mechanism, delta > 0 where it needs one).
 */
int			dpagg_variance_plan_init(double epsilon, double delta, double lower, double upper,
									 dpagg_variance_plan *plan, dpagg_error *err);

/*
 * The answer of one form from the noisy parts (squares: the noisy centred sum of squares, sum:
 * the noisy centred sum, count: the noisy count, already rounded and >= 0).  Returns 0 when the
 * answer is NULL: a noisy count below 1 (the population forms) or 2 (the sample forms), as
 * PostgreSQL's var_pop and var_samp return NULL without enough rows; else 1 with *out in
 * [0, B^2] (variance) or [0, B] (standard deviation), times n/(n - 1) (or its root) for the
 * sample forms.
 */
int			dpagg_variance_estimate(const dpagg_variance_plan *plan, int form, double squares,
									double sum, double count, double *out);

/*
 * The report forms' interval: given each part's noise half-width w[i] at confidence
 * 1 - (1 - c)/3, an interval [lo, hi] that holds the statistic of the clamped values with
 * probability at least c (docs/variance.md, "Intervals").  For a NULL answer (too small a noisy
 * count) the interval is the whole range the statistic can take.
 */
void		dpagg_variance_interval(const dpagg_variance_plan *plan, int form, double squares,
									double sum, double count, const double *w, double *lo,
									double *hi);

/*
 * Variances without bounds (docs/automatic_bounds.md, "Variances"): a group's values counted per
 * bin of magnitude (src/core/bounds/dpagg_bounds.h), each bin with the exact sum of its values in
 * the quanta 2^dpagg_bounds_quantum_exp(j) and of their squares in the quanta
 * 2^dpagg_bounds_squares_exp(j) (each square rounded once: dpagg_bounds_square_quanta).
 */
typedef struct dpagg_auto_variance_bin
{
	int64_t		count;
	__int128	sum;
	__int128	squares;
} dpagg_auto_variance_bin;

/*
 * The three integers the bounded variance's state would hold for the values clamped to the
 * plan's [lower, upper] (the lower edge of bin lo_bin and the upper edge of bin hi_bin): the
 * count, the centred sum sum(y) in the quanta of the plan's B (dpagg_quantum_for_bound) and the
 * centred squares sum(y^2 - h) in the quanta of h = the plan's B^2/2, y = clamp(x) - m with the
 * exact middle m = (lower + upper)/2.  Each bin's contribution is computed exactly (big
 * integers): a bin between lo_bin and hi_bin from its sums, a bin above hi_bin as its count times
 * y = upper - m, below lo_bin times lower - m; then rounded once (half to even) to the coarse
 * quanta.  One value moves the sums by at most B (1 + 2^-45) and h (1 + 2^-45) (the argument is
 * in the document).  bins: DPAGG_BOUNDS_BINS entries.  DPAGG_INVALID_PARAMETER when the plan's
 * bounds are not those bins' edges; DPAGG_INTERNAL if a result does not fit in 127 bits.
 */
int			dpagg_auto_variance_sums(const dpagg_auto_variance_bin *bins, int lo_bin, int hi_bin,
									 const dpagg_variance_plan *plan, __int128 *squares,
									 __int128 *sum, int64_t *count, dpagg_error *err);

#ifdef __cplusplus
}
#endif

#endif
