/*
 * site.h — the privacy parameters of one aggregate call site (site.c).
 *
 * A call site is one transition state of one Agg node: the place where an aggregate call such as
 * dp_sum(x, 1.0, 1e-5, 0, 100) runs.  Its privacy parameters (everything but the value) are
 * evaluated ONCE, when the query starts (ExecutorStart, before any row is read), and every group,
 * every rescan and the charge of that Agg node use those same values; the transition states hold
 * only data.  So a parameter cannot differ between groups, nor depend on a row (README, "The
 * privacy parameters").
 *
 * The site lives in the fn_extra of the Agg node's per-transition FmgrInfo (pertrans->transfn,
 * which is the combine function in a finalizing Agg), allocated in the query's memory: the
 * transition function sees it as its own fn_extra, the final function finds it through
 * AggState->curperagg.  Nothing else in dpagg writes there.
 */
#ifndef DPAGG_SITE_H
#define DPAGG_SITE_H

#include "dpagg_pg.h"

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
	DP_SITE_MERGE_VECTOR = 13	/* dp_sum_vector over partial sums (vector.c) */
} DpSiteKind;

#define DPAGG_KIND_IS_UNIT(k) ((k) >= DP_SITE_UNIT_SUM && (k) <= DP_SITE_UNIT_VECTOR)
#define DPAGG_KIND_IS_MERGE(k) ((k) >= DP_SITE_MERGE_SUM && (k) <= DP_SITE_MERGE_COUNT)
/* the scalar merges above, or the vector one */
#define DPAGG_KIND_IS_ANY_MERGE(k) (DPAGG_KIND_IS_MERGE(k) || (k) == DP_SITE_MERGE_VECTOR)

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
	/* What one execution is charged (filled by the kind's builder). */
	double		epsilon;
	double		delta;
	DpChargePart parts[2];
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

/* Visit every plan node of a statement (the main tree and the subplans). */
extern void dpagg_walk_statement(PlannedStmt *stmt, void (*visit) (Plan *plan, void *context),
								 void *context);

/* Prepare every dpagg call site of a plan that has just been started (hooks.c), and make each
 * Agg node that releases charge before it reads its first input row in each loop. */
extern void dpagg_sites_prepare_tree(PlanState *ps, const char *query_text);

/* Does the expression tree contain a call of one of dpagg's aggregates? (hooks.c) */
extern bool dpagg_is_own_aggregate(Oid aggfnoid);

/* The DpSiteKind of one of dpagg's own aggregates, or 0 (site.c). */
extern int	dpagg_aggregate_kind(Oid aggfnoid);
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

/* x / L rounded down so that L shares never exceed x (aggregates.c). */
extern double dpagg_share(double x, int L);

/* For dp_explain: the calibration of a per-unit dp_sum_vector (vector.c). */
/* dp_sum_vector's mechanism argument as a C string, refused if it does not fit (vector.c). */
extern void dpagg_vector_mechanism(Datum d, char *buf, size_t buflen);
extern void dpagg_unit_vector_calibration(const char *mechanism, int dimension, double epsilon,
										  double delta, double l2_bound, int L,
										  dpagg_calibration *cal);

/* Does a finished plan aggregate with one of dpagg's aggregates? (hooks.c) */
extern bool dpagg_statement_has_own_aggregate(PlannedStmt *stmt);

/* Which of dpagg's aggregates a finished plan runs: DPAGG_RUNS_PLAIN (dp_sum, dp_avg, dp_count,
 * dp_sum_vector as written) and/or DPAGG_RUNS_UNIT (the per-unit aggregates of bound.c). */
#define DPAGG_RUNS_PLAIN 1
#define DPAGG_RUNS_UNIT 2
extern int	dpagg_statement_aggregates(PlannedStmt *stmt);

/* Per-unit bounding of dpagg aggregates over private relations (bound.c): called by the planner
 * hook on every query before it is planned; rewrites it in place, or refuses it. */
extern void dpagg_bound_query(Query *parse);
/* Refuse a query that calls the per-unit aggregates itself (post-parse-analysis and planner). */
extern void dpagg_refuse_unit_aggregates(Query *parse);
/* The private relations' range-table entries of a query before planning, and the check that the
 * plan reads no more of them (functions inlined by the planner). */
extern int	dpagg_private_entries_of_query(Query *parse);
extern void dpagg_check_planned_reads(PlannedStmt *stmt, int entries_before);
/* Did bound.c make this per-unit Aggref (it carries bound.c's mark)? */
extern bool dpagg_unit_aggref_is_ours(Aggref *aggref);
extern void dpagg_bound_init(void);
extern void dpagg_selection_settings(double *epsilon, double *delta, const char **strategy);

/* Restricted analysts (restrict.c). */
struct ObjectAddress;
extern void dpagg_relabel_role(const struct ObjectAddress *object, const char *seclabel);
extern bool dpagg_session_restricted(void);
extern void dpagg_restrict_check_level(Query *q);
extern void dpagg_restrict_check_aggref(Aggref *a, int value);
extern void dpagg_restrict_check_statement(Query *parse, int unbounded_private_reads,
										   bool reads_private);
extern void dpagg_restrict_utility_enter(Node *stmt);
extern void dpagg_restrict_utility_leave(Node *stmt);
extern bool dpagg_restrict_check_executor(PlannedStmt *stmt, bool instrumented, bool reads_private);
extern void dpagg_restrict_track(MemoryContext query_cxt);
extern void dpagg_restrict_init(void);
extern void dpagg_restrict_cache_init(void);
/* What a restricted role may read at all (restrict_objects.c). */
extern void dpagg_restrict_check_objects(Query *parse);
extern void dpagg_restrict_check_copy(Oid relid, bool is_from);
extern void dpagg_restrict_check_expression(Node *expr);
extern void dpagg_restrict_objects_init(void);
/* The planner plans private relations blind in a restricted session (restrict_stats.c). */
extern void dpagg_restrict_stats_init(void);
extern void dpagg_restrict_statement_enter(void);
extern void dpagg_restrict_statement_leave(void);
extern int	dpagg_restrict_statement_depth(void);
extern void dpagg_restrict_check_plan_expr(Node *node, const char *where, Bitmapset *nest_params);
extern void dpagg_restrict_refuse(const char *msg, const char *detail, const char *hint) pg_attribute_noreturn();
extern List *dpagg_restricted_role_labels(void);
/* Without shared_preload_libraries (preload.c). */
extern void dpagg_preload_late_init(void);
extern void dpagg_preload_for_restricted(Oid role);
extern void dpagg_preload_after_membership_change(void);
/* A restricted statement's finished plan (restrict_plan.c). */
extern void dpagg_restrict_check_plan(PlannedStmt *stmt);
/* The plans below a node besides its left and right trees (site.c). */
extern List *dpagg_plan_children(Plan *plan);
extern void dpagg_restrict_plan_choices(PlannedStmt *stmt, ParamListInfo params, bool has_params);
extern bool dpagg_query_has_params(Query *parse);
/* Is this a unit (extract: field) dp_date_trunc (dp_extract) knows? (safe_date.c) */
extern bool dpagg_safe_date_arg_ok(bool extract, const char *s);
/* Private reads of a query outside the levels bound.c bounded (bound.c). */
extern int	dpagg_unbounded_private_reads(Query *parse);

/* What bound.c made of one dpagg call (or of a level's group selection), for dp_explain: the
 * per-unit Aggref, and how its relation is protected.  Collected while dpagg_bound_capture is
 * on. */
typedef struct DpBoundRelease
{
	Aggref	   *aggref;			/* the per-unit aggregate (kind 5..8) */
	int			kind;
	Oid			relid;			/* the private relation */
	char		unit[NAMEDATALEN];
	int			max_groups;		/* L used (1 without GROUP BY) */
	int			max_rows;
	bool		public_groups;
} DpBoundRelease;
extern List *dpagg_bound_capture(Query *parse);

/* explain.c's helpers in aggregates.c and selection.c */
extern int	dpagg_unit_calibrations(int site_kind, double epsilon, double delta, double lower,
									double upper, text *mechanism, int L, int C,
									bool integer_values, dpagg_calibration *cal,
									double *sensitivity, bool *joint);
struct dpagg_selection_plan;
extern void dpagg_selection_plan_for(const char *strategy, double epsilon, double delta, int L,
									 struct dpagg_selection_plan *plan);

/* The rule for the clamping bounds of a call (22023 when they are unusable): the sensitivity B of
 * its sum; for a count the bounds are ignored and B is 1 (aggregates.c). */
extern double dpagg_check_bounds(int kind, double lower, double upper);

/* Building blocks of the rewrites (bound.c, used by citus.c too): a function by schema-qualified
 * name and argument types; an Aggref as the parser would make it; and a query level's FROM,
 * WHERE and WITH under a new grouped query whose first outputs are the level's grouping
 * expressions (dpagg_g1, ...), with copies of those expressions appended to *gexprs. */
extern Oid	dpagg_function_oid(const char *schema, const char *name, int nargs, const Oid *argtypes);
/* The C address behind a function's OID (NULL for none): how dpagg knows its own functions (site.c). */
extern PGFunction dpagg_fn_address(Oid fn);
/* A function by name and argument types in a schema (no USAGE check on it), or InvalidOid (site.c). */
extern Oid	dpagg_function_in(Oid nsp, const char *name, const Oid *argtypes, int nargs);
/* May the current role execute fn? (site.c) */
extern bool dpagg_may_execute(Oid fn);
extern Aggref *dpagg_make_aggref(Oid fnoid, List *args, bool star, Expr *filter, int location);
/* For merges: one clamped value's quanta lie in [lo, hi]; whole is the quanta of one unit where
 * the site's sum is integer-valued, else 0 (aggregates.c). */
extern void dpagg_site_quanta_rules(DpSite *site, int64 *lo, int64 *hi, int64 *whole);
extern __int128 dpagg_site_max_quanta(DpSite *site);
extern Query *dpagg_grouped_inner(Query *q, List **gexprs, List **tlist, List **group);
extern bool dpagg_level_has_own_aggregate(Query *q);

/* Citus (citus.c): the rewrite of dpagg's aggregates over Citus tables into partial states and a
 * release on the coordinator (planner hook, before Citus plans); whether this server is a Citus
 * worker, and the refusal of releases there (the charge). */
typedef struct DpCitusRewrite DpCitusRewrite;
/* NULL unless a level was rewritten in the direct form (citus.c), whose finished plan must then go
 * through dpagg_citus_finish_plan; if that says false, plan dpagg_citus_original() again with
 * direct_allowed false. */
/* mode: DPAGG_CITUS_WORKER (worker form allowed), DPAGG_CITUS_DIRECT, DPAGG_CITUS_SAFE. */
#define DPAGG_CITUS_SAFE 0
#define DPAGG_CITUS_DIRECT 1
#define DPAGG_CITUS_WORKER 2
extern DpCitusRewrite *dpagg_citus_query(Query *parse, int mode, ParamListInfo params);
extern bool dpagg_citus_finish_plan(PlannedStmt *stmt, DpCitusRewrite *cr);
extern int	dpagg_unit_mark(void);
/* An aggregate citus.c tagged while Citus plans (in bound.c: a per-unit one); the refusal of a plan
 * that takes a tagged per-unit aggregate to a worker (citus.c). */
extern bool dpagg_citus_tagged(Aggref *a);
extern void dpagg_citus_refuse_units(void) pg_attribute_noreturn();
extern Query *dpagg_citus_original(DpCitusRewrite *cr);
extern bool dpagg_citus_worker(void);
/* Does the query read a Citus table (distributed, reference or Citus-managed local)? */
extern bool dpagg_citus_reads_citus_table(Query *q);
/* sum(dpagg_quanta_sum(x, lower, upper)) (or _avg) planned as one aggregate, on a node that reads
 * its own tables (partial.c). */
extern void dpagg_fuse_quanta_sums(Query *parse);
/* dp_sum with its state inline (inline_sum.c): put in a finished plan's Agg nodes that accumulate
 * and finalize in one process; and, when a site is prepared, the executing role's EXECUTE on the
 * dp_sum it stands for. */
extern void dpagg_inline_sums(PlannedStmt *stmt);
extern void dpagg_inline_sum_check_execute(Aggref *aggref);
extern void dpagg_citus_refuse_on_worker(void);
/* The Citus table whose shard relid is (named <table>_<shardid>), or InvalidOid. */
extern Oid	dpagg_citus_shard_of(Oid relid);

/* Worker-side releases under a grant of the coordinator (citus_grant.c). */
struct QueryDesc;
extern bool dpagg_citus_key_configured(void);
extern int	dpagg_citus_local_group(void);
/* A Citus catalog in pg_catalog (InvalidOid without Citus), and one value of its first row whose
 * key column equals key (no key when keyatt is NULL), or false (citus.c, citus_grant.c). */
extern Oid	dpagg_citus_catalog(const char *name);
extern bool dpagg_citus_catalog_value(const char *catalog, const char *keyatt, RegProcedure eqproc,
									  Datum key, const char *att, Datum *out);
extern bool dpagg_is_citus_grant_function(Oid fn);
extern bool dpagg_is_citus_release_function(Oid fn);
extern void dpagg_citus_grant_start(struct QueryDesc *qd, int eflags);
extern Oid	dpagg_citus_shard_table(int64 shardid);
extern Datum dpagg_citus_catalog_attr(HeapTuple tup, Relation rel, const char *name, bool *isnull);
extern List *dpagg_citus_grant_calls(PlannedStmt *stmt);
extern void dpagg_citus_grant_authorize(struct QueryDesc *qd, int eflags);
extern bool dpagg_citus_granted(struct EState *estate, const char *aggregate, int sets,
								double epsilon, double delta, const DpChargePart *parts,
								int nparts, bool consume);
extern void dpagg_citus_grant_init(void);
/* The parameters the planner (Citus) is given for a query rewritten in the worker form: the
 * analyst's, and the grant's $n typed text without a value (citus.c). */
extern ParamListInfo dpagg_citus_planning_params(DpCitusRewrite *cr, ParamListInfo params);

extern void dpagg_hooks_init(void);
/* Is a plain EXPLAIN (without ANALYZE) planning its query? (hooks.c) */
extern bool dpagg_planning_plain_explain(void);

#endif							/* DPAGG_SITE_H */
