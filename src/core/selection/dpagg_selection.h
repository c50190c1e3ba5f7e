/*
 * dpagg_selection.h — the C interface of private group (partition) selection.
 *
 * When the keys of a GROUP BY come from private data, a group may appear in the answer only if a
 * differentially private test on its number of distinct privacy units n passes.  The glue counts
 * n per group and asks "keep this group?"; the core answers with a fresh draw from the secure
 * generator.  Each unit contributes to at most max_groups (L) groups, and the whole selection is
 * (epsilon, delta)-DP per unit.  The strategies and their proofs: docs/partition_selection.md.
 *
 * Like dpagg_core.h: every function is implemented in C++ behind a try/catch, nothing is
 * thrown across this boundary, PostgreSQL is never called, and the plan is plain data (no
 * pointers), so the glue may copy it into PostgreSQL memory and cache it.
 */
#ifndef DPAGG_SELECTION_H
#define DPAGG_SELECTION_H

#include <stddef.h>
#include <stdint.h>

#include "dpagg_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dpagg_selection_strategy
{
	DPAGG_SELECT_OPTIMAL = 0,	/* Desfontaines et al.'s optimal mechanism, eps/L per group */
	DPAGG_SELECT_LAPLACE = 1,	/* n + Laplace(L/eps) >= threshold */
	DPAGG_SELECT_GAUSSIAN = 2	/* n + N(0, sigma^2) >= threshold, l2 sensitivity sqrt(L) */
} dpagg_selection_strategy;

/*
 * A prepared selection: everything needed to decide and to explain.  Produced only by
 * dpagg_selection_prepare().  Fields that do not apply to the strategy are 0 (counts) or NaN.
 */
typedef struct dpagg_selection_plan
{
	int32_t		strategy;		/* a dpagg_selection_strategy */
	int32_t		version;		/* layout version of this struct (1) */
	int64_t		max_groups;		/* L: groups one unit may contribute to */
	double		epsilon;		/* the selection's (epsilon, delta) per unit, as requested */
	double		delta;

	/*
	 * Per-group guarantee (optimal, laplace): each group's keep/drop decision is
	 * (group_epsilon, group_delta)-DP in its number of units, and L of them compose to
	 * (epsilon, delta): group_epsilon = epsilon / L, group_delta = 1 - (1 - delta)^(1/L).
	 * Gaussian: group_epsilon is NaN (the noise is calibrated jointly over the L groups) and
	 * group_delta is the per-group share of threshold_delta.
	 */
	double		group_epsilon;
	double		group_delta;

	/* The slightly smaller parameters the probabilities are computed for (the margin absorbs
	 * floating-point rounding; see docs/partition_selection.md, "Numerics"). */
	double		work_epsilon;	/* optimal, laplace: per group; gaussian: joint epsilon */
	double		work_delta;		/* optimal, laplace: per group; gaussian: per-group threshold delta */

	double		noise_scale;	/* laplace: b of Laplace(b); gaussian: sigma; optimal: NaN */
	double		threshold;		/* laplace, gaussian: keep iff n + noise >= threshold; optimal: NaN */
	double		noise_delta;	/* gaussian: delta spent by the noise (delta / 2); else NaN */
	double		threshold_delta;	/* gaussian: delta spent by the threshold (delta / 2); else NaN */

	int64_t		crossover;		/* optimal: last n of the geometric (first) regime, as computed; else 0 */
	double		anchor_drop;	/* optimal: drop probability at crossover + 1, rounded up; else NaN */
	int64_t		certain_from;	/* smallest n kept with probability 1; -1 if none (laplace, gaussian) */
} dpagg_selection_plan;

/* "optimal", "laplace" or "gaussian" (case and surrounding blanks ignored). */
int			dpagg_selection_strategy_parse(const char *name, int32_t *strategy, dpagg_error *err);
/* The canonical name, or NULL for an unknown value. */
const char *dpagg_selection_strategy_name(int32_t strategy);

/*
 * Validate and prepare.  epsilon in [1e-10, 1e9] with epsilon / max_groups >= 1e-10,
 * delta in [1e-290, 1), max_groups in [1, 1e9].  Errors are DPAGG_INVALID_PARAMETER with a hint.
 */
int			dpagg_selection_prepare(int32_t strategy, double epsilon, double delta,
									int64_t max_groups, dpagg_selection_plan *plan,
									dpagg_error *err);

/*
 * Decide whether a group with n_units distinct units (n_units >= 0) is released, with one
 * fresh uniform draw from the secure generator.  *keep is set to 1 or 0.
 */
int			dpagg_selection_keep(const dpagg_selection_plan *plan, int64_t n_units, int *keep,
								 dpagg_error *err);

/*
 * The probability that dpagg_selection_keep keeps a group of n_units units, rounded to the
 * nearest double (for display and tests; the decision uses the exact value).  NaN if the plan
 * or n_units is invalid.
 */
double		dpagg_selection_probability(const dpagg_selection_plan *plan, int64_t n_units);

/*
 * The smallest n_units >= 1 whose keep probability is >= probability (in (0, 1]); *n_units is
 * -1 if there is none (probability 1 with a noise-threshold strategy).
 */
int			dpagg_selection_min_units(const dpagg_selection_plan *plan, double probability,
									  int64_t *n_units, dpagg_error *err);

/* The plan as a JSON object for dp_explain (NUL-terminated, truncated to buflen). */
int			dpagg_selection_describe(const dpagg_selection_plan *plan, char *buf, size_t buflen,
									 dpagg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* DPAGG_SELECTION_H */
