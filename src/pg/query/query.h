/*
 * query.h — the planner's side of dpagg (docs/architecture.md): the per-unit rewrite of dpagg's
 * aggregates over private relations (bound.c), the refusal of statements that mix unbounded
 * aggregates with private reads (private_statements.c), the restricted analyst's checks
 * (restrict.c: the allow-list and whole statements; restrict_objects.c: what may be read at all;
 * restrict_plan.c: the finished plan; restrict_stats.c: blind planning), and dp_explain
 * (explain.c).  The hooks (src/pg/hooks.c) run them in order.
 */
#ifndef DPAGG_QUERY_H
#define DPAGG_QUERY_H

#include "aggregates/site.h"
#include "labels/labels.h"

/* ---- bound.c: the per-unit rewrite ------------------------------------------------------------ */

/* Called by the planner hook on every query before it is planned; rewrites it in place, or
 * refuses it. */
extern void dpagg_bound_query(Query *parse);
/* Refuse a query that calls the per-unit aggregates itself (post-parse-analysis and planner). */
extern void dpagg_refuse_unit_aggregates(Query *parse);
/* The private relations' range-table entries of a query before planning, and the check that the
 * plan reads no more of them (functions inlined by the planner). */
extern int	dpagg_private_entries_of_query(Query *parse);
extern void dpagg_check_planned_reads(PlannedStmt *stmt, int entries_before);
/* Private reads of a query outside the levels bound.c bounded. */
extern int	dpagg_unbounded_private_reads(Query *parse);
extern void dpagg_bound_init(void);
/* Building blocks the Citus split shares: a query level's FROM, WHERE and WITH under a new
 * grouped query whose first outputs are the level's grouping expressions (dpagg_g1, ...), with
 * copies of those expressions appended to *gexprs; whether a level calls dpagg's aggregates. */
extern Query *dpagg_grouped_inner(Query *q, List **gexprs, List **tlist, List **group);
extern bool dpagg_level_has_own_aggregate(Query *q);
/* The refusal of a query over a private relation that Citus cannot release; the DETAIL of every
 * refusal of the Citus split (citus/citus.c and this one). */
#define DPAGG_CITUS_SPLIT_DETAIL "On Citus tables, dpagg's aggregates are split into partial states made on the workers and one release on the coordinator."
extern void dpagg_citus_refuse_units(void) pg_attribute_noreturn();

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
	int			sets;			/* dp_explain: grouping sets of its level (0 or 1: one) */
} DpBoundRelease;
extern List *dpagg_bound_capture(Query *parse);

/* ---- private_statements.c ----------------------------------------------------------------------- */

/* Refuse a statement that runs one of dpagg's aggregates as written and reads a private relation,
 * also across nested statements.  check_start before the executor starts (it returns the
 * statement's flags), track once it has started, enter/leave around running and finishing it. */
#define DPAGG_READS_PRIVATE 1
#define DPAGG_HAS_DPAGG 2
struct QueryDesc;
extern int	dpagg_protect_check_start(struct QueryDesc *qd);
extern void dpagg_protect_track(struct QueryDesc *qd, int flags);
extern int	dpagg_protect_enter(struct QueryDesc *qd);
extern void dpagg_protect_leave(int flags);

/* ---- restrict*.c: restricted analysts --------------------------------------------------------- */

extern void dpagg_restrict_check_level(Query *q);
extern void dpagg_restrict_check_aggref(Aggref *a, int value);
extern void dpagg_restrict_check_statement(Query *parse, int unbounded_private_reads,
										   bool reads_private);
extern void dpagg_restrict_utility_enter(Node *stmt);
extern void dpagg_restrict_utility_leave(Node *stmt);
extern bool dpagg_restrict_check_executor(PlannedStmt *stmt, bool instrumented, bool reads_private);
extern void dpagg_restrict_track(MemoryContext query_cxt);
extern void dpagg_restrict_init(void);
extern void dpagg_restrict_check_plan_expr(Node *node, const char *where, Bitmapset *nest_params);
extern void dpagg_restrict_refuse(const char *msg, const char *detail, const char *hint) pg_attribute_noreturn();

/* ---- statement_budget.c: one budget per statement (dpagg.statement_epsilon) -------------------- */

/* Scale the epsilons (and deltas) of a statement's releases to the settings, after the per-unit
 * rewrite; and refuse, when a statement starts, a plan whose releases add up to more. */
extern bool dpagg_split_statement_budget(Query *parse, ParamListInfo params);
/* An identical call among these (one state, one release; not with volatile arguments)? */
extern bool dpagg_same_release_in(List *seen, Aggref *a);
extern void dpagg_check_statement_budget(PlannedStmt *stmt, ParamListInfo params);

/* ---- restrict_functions.c: the allow-list of functions on private rows ---------------------- */

/* Refuse (42501) a call of fn on private rows (`where` names the place) that is not allowed, its
 * constant arguments checked; and a collation a call cannot be trusted with. */
extern void dpagg_restrict_function(Oid fn, List *args, Oid inputcollid, const char *where);
extern void dpagg_restrict_collation(Oid inputcollid, List *args);
/* What a restricted role may read at all (restrict_objects.c). */
extern void dpagg_restrict_check_objects(Query *parse);
extern void dpagg_restrict_check_copy(Oid relid, bool is_from);
extern void dpagg_restrict_check_expression(Node *expr);
extern void dpagg_restrict_objects_init(void);
/* The planner plans private relations blind in a restricted session (restrict_stats.c). */
extern void dpagg_restrict_stats_init(void);
/* A restricted statement's finished plan, and the plan's choices (restrict_plan.c). */
extern void dpagg_restrict_check_plan(PlannedStmt *stmt);
extern void dpagg_restrict_plan_choices(PlannedStmt *stmt, ParamListInfo params, bool has_params);
extern bool dpagg_query_has_params(Query *parse);

#endif							/* DPAGG_QUERY_H */
