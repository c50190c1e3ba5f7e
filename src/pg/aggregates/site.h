/*
 * site.h — the privacy parameters of one aggregate call site (site.c).
 *
 * A call site is one transition state of one Agg node: the place where an aggregate call such as
 * dp_sum(x, 1.0, 1e-5, 0, 100) runs.  Its privacy parameters (everything but the value) are
 * evaluated ONCE, when the query starts (ExecutorStart, before any row is read), and every group,
 * every rescan and the charge of that Agg node use those same values; the transition states hold
 * only data.  So a parameter cannot differ between groups, nor depend on a row (docs/guides/
 * privacy-semantics.md, "The privacy parameters").
 *
 * The site lives in the fn_extra of the Agg node's per-transition FmgrInfo (pertrans->transfn,
 * which is the combine function in a finalizing Agg), allocated in the query's memory: the
 * transition function sees it as its own fn_extra, the final function finds it through
 * AggState->curperagg.  Nothing else in dpagg writes there.
 */
#ifndef DPAGG_SITE_H
#define DPAGG_SITE_H

#include "base/base.h"
#include "ledger/charge.h"
#include "labels/labels.h"

#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"

#define DPAGG_SITE_MAGIC 0x44505354u	/* "DPST" */

typedef enum DpSiteKind
{
	DP_SITE_SUM = 1,
	DP_SITE_COUNT = 2,
	DP_SITE_AVG = 3,
	DP_SITE_VECTOR = 4,
	/* The per-unit aggregates that bound.c rewrites dp_sum, dp_avg and dp_count into over a
	 * private relation, and its group selection; nobody else may call them. */
	DP_SITE_UNIT_SUM = 5,
	DP_SITE_UNIT_AVG = 6,
	DP_SITE_UNIT_COUNT = 7,
	DP_SITE_SELECT = 8,
	DP_SITE_UNIT_VECTOR = 9,
	/* dp_sum, dp_avg and dp_count whose values are partial states (dpagg_partial) made where the
	 * rows are (on Citus workers: citus.c), merged and released here. */
	DP_SITE_MERGE_SUM = 10,
	DP_SITE_MERGE_AVG = 11,
	DP_SITE_MERGE_COUNT = 12,
	DP_SITE_MERGE_VECTOR = 13,	/* dp_sum_vector over partial sums (vector.c) */
	/* dp_percentile, dp_median and dp_percentiles (percentile.c) */
	DP_SITE_PERCENTILE = 14,
	/* dp_var_pop, dp_var_samp, dp_stddev_pop and dp_stddev_samp (variance.c) */
	DP_SITE_VARIANCE = 15,
	/* ... over a private relation, per unit (bound.c; variance.c) */
	DP_SITE_UNIT_VARIANCE = 16,
	DP_SITE_UNIT_PERCENTILE = 17,	/* dp_percentile and its forms, per unit (percentile.c) */
	DP_SITE_AUTO_SUM = 18,		/* dp_sum(value, epsilon, delta): bounds chosen privately (auto_bounds.c) */
	DP_SITE_AUTO_PERCENTILE = 19,	/* dp_percentile(value, p, epsilon, delta) and its forms
									 * without bounds (percentile.c) */
	/* dp_var_pop(value, epsilon, delta) and its forms: bounds chosen privately (auto_variance.c) */
	DP_SITE_AUTO_VARIANCE = 20,
	/* ... over a private relation, per unit (bound.c; auto_bounds.c, auto_variance.c) */
	DP_SITE_UNIT_AUTO_SUM = 21,
	DP_SITE_UNIT_AUTO_VARIANCE = 22,
	/* dp_var_pop and its sibling forms over partial sums made where the rows are (on Citus
	 * workers: citus.c), merged and released here (variance.c) */
	DP_SITE_MERGE_VARIANCE = 23,
	/* dp_percentile, dp_median and dp_percentiles (with or without bounds) over partial counts of
	 * bins made where the rows are (on Citus workers: citus.c), merged and released here
	 * (percentile.c) */
	DP_SITE_MERGE_PERCENTILE = 24,
	/* dp_sum and dp_avg, the variances without bounds, over partial counts and exact sums per bin
	 * of magnitude made where the rows are (on Citus workers: citus.c), merged into the same state
	 * and released here (auto_bounds.c, auto_variance.c) */
	DP_SITE_MERGE_AUTO_SUM = 25,
	DP_SITE_MERGE_AUTO_VARIANCE = 26
} DpSiteKind;

#define DPAGG_KIND_IS_UNIT(k) (((k) >= DP_SITE_UNIT_SUM && (k) <= DP_SITE_UNIT_VECTOR) || \
							   (k) == DP_SITE_UNIT_VARIANCE || (k) == DP_SITE_UNIT_PERCENTILE || \
							   (k) == DP_SITE_UNIT_AUTO_SUM || (k) == DP_SITE_UNIT_AUTO_VARIANCE)
/* dp_sum and dp_avg, the variances without bounds: over the rows, per unit, or merged (Citus) */
#define DPAGG_KIND_IS_AUTO_SUM(k) ((k) == DP_SITE_AUTO_SUM || (k) == DP_SITE_UNIT_AUTO_SUM || \
								   (k) == DP_SITE_MERGE_AUTO_SUM)
#define DPAGG_KIND_IS_AUTO_VARIANCE(k) ((k) == DP_SITE_AUTO_VARIANCE || (k) == DP_SITE_UNIT_AUTO_VARIANCE || \
										(k) == DP_SITE_MERGE_AUTO_VARIANCE)
/* dp_percentile and its forms: with bounds, per unit, without bounds (percentile.c) */
#define DPAGG_KIND_IS_PERCENTILE(k) ((k) == DP_SITE_PERCENTILE || (k) == DP_SITE_UNIT_PERCENTILE || \
									 (k) == DP_SITE_AUTO_PERCENTILE || (k) == DP_SITE_MERGE_PERCENTILE)
#define DPAGG_KIND_IS_MERGE(k) ((k) >= DP_SITE_MERGE_SUM && (k) <= DP_SITE_MERGE_COUNT)
/* the scalar merges above, the vector one, the variances', the quantiles' or those without bounds */
#define DPAGG_KIND_IS_ANY_MERGE(k) (DPAGG_KIND_IS_MERGE(k) || (k) == DP_SITE_MERGE_VECTOR || \
									(k) == DP_SITE_MERGE_VARIANCE || (k) == DP_SITE_MERGE_PERCENTILE || \
									(k) == DP_SITE_MERGE_AUTO_SUM || (k) == DP_SITE_MERGE_AUTO_VARIANCE)

typedef struct DpSite
{
	uint32		magic;
	int			kind;			/* DpSiteKind */
	AggState   *aggstate;
	Aggref	   *argref;			/* the Aggref whose arguments are the parameters (the partial
								 * Aggref below a finalizing Agg) */
	List	   *args;			/* argref's whole argument list (dpagg_site_args) */
	MemoryContext cxt;			/* the query's memory: lives as long as the Agg node */
	bool		releases;		/* this Agg node finalizes: it releases and is charged */
	void	   *params;			/* the kind's evaluated, validated parameters */
	const char *name;			/* the aggregate's name in errors and the ledger (its kind's,
								 * or the one of the variance's four forms) */
	/* What one execution is charged (filled by the kind's builder). */
	double		epsilon;
	double		delta;
	DpChargePart parts[3];		/* dp_var_pop and the like have three */
	int			nparts;
	const char *query_text;		/* the statement's text, captured when it started (or NULL) */
	DpChargeMark mark;			/* charged in which loop of the Agg node */
} DpSite;

/* The kinds' builders describe the charge of one execution, and check it now (before any row):
 * everything the charge would refuse is refused here. */
extern void dpagg_site_set_charge(DpSite *site, double epsilon, double delta,
								  const DpChargePart *parts, int nparts);

/* Charge this execution of the site's aggregation (once per loop; a no-op when the Agg node's
 * wrapper charged it already, before reading its first row). */
extern void dpagg_site_charge(DpSite *site);

/* The site of a transition (or combine) function call; prepared on first use if the
 * ExecutorStart hook did not (e.g. an EvalPlanQual re-check). */
extern DpSite *dpagg_site_of_trans(FunctionCallInfo fcinfo, int kind);

/* The site of a final function call. */
extern DpSite *dpagg_site_of_final(FunctionCallInfo fcinfo, int kind);

/*
 * Argument i of the site's aggregate call, evaluated (for the kinds' parameter readers).  The
 * expression must be a constant, a query parameter ($n, a PL/pgSQL variable), or a built-in
 * immutable function or operator of those; anything else is refused (22023) before it is
 * evaluated.
 */
extern Datum dpagg_site_param(DpSite *site, int i, bool *isnull);
/* The rule dpagg_site_param applies, for an expression before the query runs (22023 if not). */
extern void dpagg_check_param_expr(Node *expr, const char *aggname, int i);

/* The SQL name of a kind ("dp_sum", ...), and the position of an Aggref's value argument (-1 for
 * dp_count(epsilon, delta)): one rule for site.c and the kinds. */
extern const char *dpagg_kind_name(int kind);
extern int	dpagg_value_position(Aggref *aggref, int kind);
/* Is argument i of the call data (its rows), not a privacy parameter? */
extern bool dpagg_data_argument(Aggref *aggref, int kind, int i);

/* Before the executor starts (hooks.c): check every dpagg parameter that is not a constant,
 * evaluate it once and replace it by a constant in a private copy of the plan. */
struct QueryDesc;
extern void dpagg_freeze_parameters(struct QueryDesc *qd);
extern List *dpagg_site_args(Aggref *aggref);
extern List *dpagg_data_args(Aggref *aggref, int kind);

/* Prepare every dpagg call site of a plan that has just been started (hooks.c), and make each
 * Agg node that releases charge before it reads its first input row in each loop. */
extern void dpagg_sites_prepare_tree(PlanState *ps, const char *query_text);

/* Does the expression tree contain a call of one of dpagg's aggregates? (hooks.c) */
extern bool dpagg_is_own_aggregate(Oid aggfnoid);

/* The DpSiteKind of one of dpagg's own aggregates, or 0 (site.c). */
extern int	dpagg_aggregate_kind(Oid aggfnoid);
/* The C function of an aggregate's final function (NULL if none or not a C function): the kinds
 * whose forms differ in their final functions only read their form from it. */
extern PGFunction dpagg_aggregate_finalfn(Oid aggfnoid);
/* Whether it is one of the report forms (dp_sum_report, ...: a dp_report row per release). */
extern bool dpagg_aggregate_is_report(Oid aggfnoid);
/* Whether it is dpagg_sum_inline, dp_sum as planned with its state inline (inline_sum.c). */
extern bool dpagg_aggregate_is_inline_sum(Oid aggfnoid);

/* Where the arguments of dp_sum, dp_avg and dp_count are (0-based; -1 when absent), from the
 * Aggref's argument types (aggregates.c). */
typedef struct DpArgLayout
{
	int			nargs;
	int			value;
	int			epsilon;
	int			delta;
	int			sensitivity;
	int			lower;
	int			upper;
	int			mechanism;
	int			max_groups;		/* per-unit kinds: L */
	int			max_rows;		/* dpagg_unit_count: the row cap C */
	int			strategy;		/* dpagg_unit_select */
	int			dimension;		/* dpagg_unit_vsum (its l2 bound is `upper`) */
	int			unit;			/* per-unit kinds: the privacy unit's name (for the ledger) */
	int			integer;		/* merged dp_sum: the values were of an integer type */
	int			quantile;		/* dp_percentile: p (dp_percentiles: the array of ps) */
} DpArgLayout;

/* The privacy unit's name of a per-unit call site, for the ledger ("" if absent). */
extern const char *dpagg_site_unit(DpSite *site, int i);
extern void dpagg_arg_layout(Aggref *aggref, int kind, DpArgLayout *out);

/* The site params of a group selection, and its decision for a group of n units (selection.c). */
extern void *dpagg_select_site_params(DpSite *site);
extern bool dpagg_select_keep(DpSite *site, int64 n_units);

/* The kinds' site builders (aggregates.c, vector.c): read and validate the parameters, return
 * the payload for site->params (allocated in site->cxt). */
extern void *dpagg_scalar_site_params(DpSite *site);
extern void *dpagg_vector_site_params(DpSite *site);
extern void *dpagg_percentile_site_params(DpSite *site);
extern void *dpagg_variance_site_params(DpSite *site);
extern void *dpagg_auto_sum_site_params(DpSite *site);
/* dp_sum and dp_avg without bounds (auto_bounds.c): a call's plan, for its site and dp_explain. */
typedef struct DpAutoPlan
{
	double		epsilon_bounds; /* the histogram's */
	double		epsilon_sum;	/* the rest */
	double		part_epsilon;	/* the sum's (dp_avg: and the count's, each half the rest) */
	double		part_delta;
	double		threshold;		/* a bin counts from this noisy count */
	char		mechanism[DPAGG_MECH_SPEC_LEN];
	dpagg_calibration bounds_cal;	/* discrete Laplace, sensitivity 1 */
	dpagg_calibration count_cal;	/* dp_avg */
	dpagg_request sum_request;	/* the release sets its sensitivity from the bounds */
} DpAutoPlan;
extern void dpagg_auto_plan(double epsilon, double delta, bool avg, DpAutoPlan *plan);
/* The histogram's part of such a plan (the calls without bounds share it): the mechanism, the
 * split of epsilon (epsilon_bounds, epsilon_sum: the rest), bounds_cal and threshold. */
extern void dpagg_auto_plan_bounds(double epsilon, DpAutoPlan *plan);
/* The histogram's part and the release's ("<what> <mechanism>") of such a call's charge. */
extern void dpagg_auto_charge_parts(MemoryContext cxt, const DpAutoPlan *plan, const char *what,
									DpChargePart *parts);
/* On Citus, while planning: a call without bounds' (epsilon, delta) checked as its site on one
 * node checks them, with the same errors, and its charge prechecked (auto_bounds.c); kind
 * DP_SITE_AUTO_SUM or DP_SITE_AUTO_VARIANCE. */
extern void dpagg_auto_precheck(Oid aggfnoid, int kind, double epsilon, double delta);
/* The variances without bounds (auto_variance.c): a call's plan (part_epsilon and part_delta are
 * the variance's release, all of the rest), checked at both extreme ranges; the form's name. */
extern void *dpagg_auto_variance_site_params(DpSite *site);
extern void dpagg_auto_variance_plan(double epsilon, double delta, const char *name, DpAutoPlan *plan);
extern const char *dpagg_auto_variance_form_name(Oid aggfnoid);
/* Whether one of them is dp_avg (by its final function). */
extern bool dpagg_auto_is_avg(Oid aggfnoid);
/* A call without bounds' site: its epsilon and delta (kind names it in refusals) and the plan of one
 * group, planner(epsilon, delta, arg, plan) — per unit at (epsilon / L, delta / L), its refusals
 * in a context naming L; returns L (1 over the rows).  Then the
 * group's charge parts scaled back to the call's, naming the unit (auto_bounds.c). */
typedef void (*DpAutoPlanner) (double epsilon, double delta, const void *arg, DpAutoPlan *plan);
extern int	dpagg_auto_site_plan(DpSite *site, int kind, double *epsilon, double *delta,
								 DpAutoPlanner planner, const void *arg, DpAutoPlan *plan);
extern void dpagg_auto_unit_parts(DpSite *site, int L, DpChargePart *parts, int nparts);
/* The histogram of a quantile without bounds at epsilon: its share of epsilon (and the rest, for
 * the release), its calibration (discrete Laplace, sensitivity 1) and threshold; refused (22023)
 * where a part is out of a calibration's range.  what names the call in the messages, rest what
 * the rest releases (auto_bounds.c). */
extern void dpagg_auto_histogram(double epsilon, const char *what, const char *rest,
								 double *epsilon_bounds, double *epsilon_rest,
								 dpagg_calibration *cal, double *threshold);
/* For dp_explain: the plans of a dp_var_pop call (its parts' shares of epsilon and delta) and of
 * one of its groups when its units contribute to at most L groups (1 where there are no units),
 * and that group's three calibrations (variance.c). */
struct dpagg_variance_plan;
extern void dpagg_variance_calibrations(double epsilon, double delta, double lower, double upper,
										text *mechanism, int L, struct dpagg_variance_plan *call,
										struct dpagg_variance_plan *plan, dpagg_calibration *cal);
/* "dp_var_pop", "dp_var_samp", "dp_stddev_pop" or "dp_stddev_samp" for one of those aggregates,
 * their report forms or their per-unit forms; NULL otherwise (variance.c). */
extern const char *dpagg_variance_form_name(Oid aggfnoid);
/* dp_percentile, dp_median or dp_percentiles, from a quantile call's arguments (percentile.c). */
extern const char *dpagg_percentile_form_name(Aggref *a, int kind);
/* On Citus, while planning: a quantile call's parameters (constants, NULL allowed) checked as its
 * release on one node checks them, with the same errors, and its charge prechecked (percentile.c). */
extern void dpagg_percentile_precheck(Aggref *a, int kind);
/* On Citus, while planning: a variance's parameters checked as its release checks them, and its
 * charge prechecked (variance.c). */
extern void dpagg_variance_precheck(const char *name, double epsilon, double delta, double lower,
									double upper, bool has_mechanism, text *mechanism);
/* A float8 parameter of a call site, refused (22023) if NULL: "<name> of <kind> must not be NULL". */
extern double dpagg_param_float8(DpSite *site, int i, const char *name, int kind);

/* x / L rounded down so that L shares never exceed x (aggregates.c). */
extern double dpagg_share(double x, int L);

/* For dp_explain: the calibration of a per-unit dp_sum_vector (vector.c). */
/* dp_sum_vector's mechanism argument as a C string, refused if it does not fit (vector.c). */
extern void dpagg_vector_mechanism(Datum d, char *buf, size_t buflen);
extern void dpagg_unit_vector_calibration(const char *mechanism, int dimension, double epsilon,
										  double delta, double l2_bound, int L,
										  dpagg_calibration *cal);

/* Which of dpagg's aggregates a finished plan (an expression tree) runs: DPAGG_RUNS_PLAIN
 * (dp_sum, dp_avg, dp_count, dp_sum_vector as written) and/or DPAGG_RUNS_UNIT (the per-unit
 * aggregates of query/bound.c; one that the rewrite did not make is refused, 42501). */
#define DPAGG_RUNS_PLAIN 1
#define DPAGG_RUNS_UNIT 2
extern int	dpagg_statement_aggregates(PlannedStmt *stmt);
extern int	dpagg_node_aggregates(Node *node);
extern bool dpagg_statement_has_own_aggregate(PlannedStmt *stmt);

/* Refuse window use and direct calls; the aggregate memory context (aggregates.c). */
extern MemoryContext dpagg_aggregate_context(FunctionCallInfo fcinfo, const char *name);

/* dp_explain's helpers (aggregates.c, selection.c): the calibrations of a per-unit call. */
extern int	dpagg_unit_calibrations(int site_kind, double epsilon, double delta, double lower,
									double upper, text *mechanism, int L, int C,
									bool integer_values, dpagg_calibration *cal,
									double *sensitivity, bool *joint);
struct dpagg_selection_plan;
extern void dpagg_selection_plan_for(const char *strategy, double epsilon, double delta, int L,
									 struct dpagg_selection_plan *plan);
/* Private group selection's settings (dpagg.selection_*), read when a statement starts: a
 * setting above 0 replaces the first aggregate's epsilon or delta; the strategy is the
 * setting's (selection.c).  Defined at load by dpagg_selection_init. */
extern void dpagg_selection_settings(double *epsilon, double *delta, const char **strategy);
/* The settings as set (0: not set), for query/statement_budget.c. */
extern void dpagg_selection_settings_raw(double *epsilon, double *delta, const char **strategy);
extern void dpagg_selection_init(void);

/* The rule for the clamping bounds of a call (22023 when they are unusable): the sensitivity B of
 * its sum; for a count the bounds are ignored and B is 1 (aggregates.c). */
extern double dpagg_check_bounds(int kind, double lower, double upper);

/* For merges: one clamped value's quanta lie in [lo, hi]; whole is the quanta of one unit where
 * the site's sum is integer-valued, else 0 (aggregates.c). */
extern void dpagg_site_quanta_rules(DpSite *site, int64 *lo, int64 *hi, int64 *whole);
extern __int128 dpagg_site_max_quanta(DpSite *site);

/* sum(dpagg_quanta_sum(x, lower, upper)) (or _avg) planned as one aggregate, on a node that reads
 * its own tables (partial.c). */
extern void dpagg_fuse_quanta_sums(Query *parse);
/* dp_sum with its state inline (inline_sum.c): put in a finished plan's Agg nodes that accumulate
 * and finalize in one process; and, when a site is prepared, the executing role's EXECUTE on the
 * dp_sum it stands for. */
extern void dpagg_inline_sums(PlannedStmt *stmt);
extern void dpagg_inline_sum_check_execute(Aggref *aggref);

#endif							/* DPAGG_SITE_H */
