/*
 * dpagg_quantile.h — the C interface of private quantiles (dp_percentile, dp_median,
 * dp_percentiles; the argument is docs/quantiles.md and quantile.h).
 *
 * The glue keeps, per group, the number of values in each of DPAGG_QUANTILE_BINS equal bins of
 * [lower, upper] (dpagg_quantile_bin puts a value in its bin: the same rule for every row, inlined
 * into the transition function) and asks the core for a release: a bin is selected by the
 * permute-and-flip mechanism on its distance in rank from the asked quantile, sampled exactly
 * (rational arithmetic, no floating point in the choice), and the answer is a uniform point of
 * that bin.  Every function is C++ behind a try/catch, as in dpagg_core.h.
 */
#ifndef DPAGG_QUANTILE_H
#define DPAGG_QUANTILE_H

#include <math.h>
#include <stdint.h>

#include "dpagg_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The resolution: (upper - lower) / 1024 (docs/quantiles.md, "Resolution and memory"). */
#define DPAGG_QUANTILE_BINS 1024

/* The most quantiles one dp_percentiles call releases. */
#define DPAGG_QUANTILE_MAX_K 64

/*
 * The bin of value x in [lower, upper] (lower < upper, upper - lower finite): values below lower
 * (and -infinity) go to bin 0, values above upper (+infinity, and NaN, which PostgreSQL sorts
 * above every number) to the last bin.  A deterministic function of x alone: the privacy
 * argument holds for any such rule.
 */
static inline int
dpagg_quantile_bin(double x, double lower, double upper)
{
	double		r;
	int			j;

	if (isnan(x) || x >= upper)
		return DPAGG_QUANTILE_BINS - 1;
	if (!(x > lower))
		return 0;
	r = (x - lower) / (upper - lower) * DPAGG_QUANTILE_BINS;
	j = (int) r;
	if (j < 0)
		j = 0;
	if (j > DPAGG_QUANTILE_BINS - 1)
		j = DPAGG_QUANTILE_BINS - 1;
	return j;
}

/* Check one call's parameters: 0 <= p <= 1 for each of the k quantiles, epsilon finite and > 0,
 * lower < upper finite with a finite width.  DPAGG_INVALID_PARAMETER with a hint otherwise. */
int			dpagg_quantile_check(const double *ps, int k, double epsilon, double lower,
								 double upper, dpagg_error *err);

/*
 * Release k quantiles ps[0..k-1] of the values counted in counts[DPAGG_QUANTILE_BINS], together
 * epsilon-DP (each at epsilon / k, exactly); out[i] answers ps[i].  The answers are sorted to
 * follow the order of the ps (post-processing).  Draws from the secure generator.
 */
int			dpagg_quantile_release(const uint64_t *counts, double lower, double upper,
								   const double *ps, int k, double epsilon, double *out,
								   dpagg_error *err);

/* The same from the occupied bins only: bins[0..m-1] strictly increasing in [0,
 * DPAGG_QUANTILE_BINS), counts[i] values in bins[i] (the glue's form for a small group). */
int			dpagg_quantile_release_sparse(const int32_t *bins, const uint64_t *counts, int m,
										  double lower, double upper, const double *ps, int k,
										  double epsilon, double *out, dpagg_error *err);

/* The same over the cells first..last of the grid of automatic bounds (bounds/dpagg_bounds.h):
 * cells[0..m-1] strictly increasing, counts[i] values in cells[i]; cells outside the range count
 * in the nearer end cell (docs/automatic_bounds.md, "Quantiles"). */
int			dpagg_quantile_release_cells(const int32_t *cells, const uint64_t *counts, int m,
										 int first, int last, const double *ps, int k,
										 double epsilon, double *out, dpagg_error *err);

#ifdef __cplusplus
}
#endif

#endif
