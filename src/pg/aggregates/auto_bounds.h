/*
 * auto_bounds.h — the histogram of magnitudes that the aggregates without bounds share
 * (auto_bounds.c: dp_sum and dp_avg; auto_variance.c: the variances; docs/automatic_bounds.md).
 *
 * A group's state counts its values per bin of magnitude (src/core/bounds/dpagg_bounds.h) and
 * keeps each bin's exact sum in the quanta of the bin's upper edge; a variance's state also each
 * bin's exact sum of squares (every square rounded once to the quanta of the squared upper edge).
 * Up to ADENSE_AT occupied bins are a list, then all DPAGG_BOUNDS_BINS.  The sums' state does not
 * carry the squares: AVState extends AState (its version says which it is).
 */
#ifndef DPAGG_AUTO_BOUNDS_H
#define DPAGG_AUTO_BOUNDS_H

#include "aggregates/state.h"
#include "variance/dpagg_variance.h"

#define ASTATE_VERSION 1		/* dp_sum and dp_avg */
#define AVSTATE_VERSION 2		/* the variances: an AVState */
#define ADENSE_AT 8				/* occupied bins kept as a list up to this many (a state of 232 bytes, a 256-byte chunk; a variance's 368, a 512-byte one) */

typedef struct ABin
{
	int64		count;
	int64		sum_hi;			/* exact sum of the bin's quanta, 128 bits as halves */
	uint64		sum_lo;
} ABin;

typedef struct ASquares
{
	int64		hi;				/* exact sum of the bin's squares' quanta, 128 bits as halves */
	uint64		lo;
} ASquares;

typedef struct AState
{
	int32		version;
	int32		nlist;			/* occupied bins in list[], or -1 once dense */
	bool		released;
	bool		null_answer;	/* the released answer was NULL (the variances) */
	double		released_value;
	uint8		which[ADENSE_AT];	/* the list's bins */
	ABin		list[ADENSE_AT];
	ABin	   *dense;			/* DPAGG_BOUNDS_BINS entries, once dense */
} AState;

/* A variance's state: each bin's sum of squares at the place of its ABin in list or dense. */
typedef struct AVState
{
	AState		h;
	ASquares	list[ADENSE_AT];
	ASquares   *dense;
} AVState;

/* The state a final function of this kind (DP_SITE_AUTO_SUM or DP_SITE_AUTO_VARIANCE) is given,
 * or an empty one for an empty group. */
extern AState *dpagg_auto_state_of(FunctionCallInfo fcinfo, MemoryContext cxt, int kind);
/* Every bin's count and sums (squares 0 for a sum's state). */
extern void dpagg_auto_state_bins(const AState *st, dpagg_auto_variance_bin *bins);
/* The range of bins whose counts plus the histogram's noise (cal) reach the threshold (false:
 * none does); only the noise that decides it is drawn (dpagg_bounds_noisy_range). */
extern bool dpagg_auto_bounds_range(const dpagg_calibration *cal, double threshold,
									const int64 *counts, int *lo_bin, int *hi_bin);

#endif
