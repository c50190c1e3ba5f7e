/*
 * base.h — the lowest layer of the PostgreSQL glue (docs/architecture.md): what every other
 * folder may use and nothing of dpagg's own semantics.  C only; the C++ core is reached through
 * src/core/dpagg_core.h and never calls PostgreSQL itself.
 *
 *   calibrate.c       core errors as ereports, the mechanism GUCs, requests and calibrations
 *   calib_cache.c     the calibrations shared by the cluster's backends
 *   catalog.c         functions by name, the C address behind a function, plan walks, Aggrefs
 *   statement.c       where the backend is: statement nesting, a plain EXPLAIN being planned
 *   citus_metadata.c  what Citus's catalogs say
 *   version.c         the library's version and the SQL objects', dp_version()
 *   safe_date.c       dp_date_trunc and dp_extract, which never raise
 */
#ifndef DPAGG_BASE_H
#define DPAGG_BASE_H

#include "postgres.h"
#include "fmgr.h"
#include "nodes/nodes.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
#include "utils/relcache.h"
#include "access/htup.h"

#include "dpagg_core.h"

/* GUC dpagg.default_mechanism */
extern char *dpagg_default_mechanism;

/* GUC dpagg.objective: what auto minimises, a dpagg_objective (passed to the core typed, in the
 * dpagg_request of a release) */
extern int	dpagg_objective_setting;
extern double dpagg_report_confidence;	/* dpagg.report_confidence */

/* ereport(ERROR) for a core error; never returns. */
extern void dpagg_report(const dpagg_error *err) pg_attribute_noreturn();

/* The request of a scalar release (dimension 1) or of a vector release of dimension T, with the
 * objective of dpagg.objective. */
/* The text the ledger records for the releases of a statement whose own text is `source`: the
 * client's statement, and `source` after it when it differs (statement.c). */
extern const char *dpagg_statement_text(MemoryContext cxt, const char *source);

extern dpagg_request dpagg_scalar_request(double epsilon, double delta, double sensitivity,
										  bool integer_valued);
extern dpagg_request dpagg_vector_request(double epsilon, double delta, double l2_bound,
										  int dimension);

/* The accounting method (DPAGG_ACCOUNTING_*) of the budget this session's releases are charged
 * to, which auto weighs (core auto.h; requests carry it).  The ledger registers the source at
 * load; without one, basic. */
typedef int (*DpAccountingSource) (void);

/* dpagg.statement_epsilon and dpagg.statement_delta (0: off): the budget of one statement, split
 * among its releases (query/statement_budget.c). */
extern double dpagg_statement_epsilon;
extern double dpagg_statement_delta;
/* dpagg.statement_epsilon as it applies here: 0 inside a SECURITY DEFINER function, whose
 * owner's epsilons stand (calibrate.c). */
extern double dpagg_statement_epsilon_here(void);
extern void dpagg_set_accounting_source(DpAccountingSource source);
extern int	dpagg_session_accounting(void);

/*
 * Calibrate for a release (dpagg_calibrate_for_release: the core adds the release-grid allowance
 * and applies the objective) through a small per-backend cache, then the cluster's shared one
 * (calib_cache.c; the calibration is a pure function of its inputs).  Errors are reported with
 * ereport.
 */
extern void dpagg_calibrate_cached(const char *spec, const dpagg_request *req,
								   dpagg_calibration *out);

/* User input quoted for an error message, cut to a sensible length. */
extern char *dpagg_quote_input(const char *s);

/* The calibrations shared by the cluster's backends (calib_cache.c). */
extern void dpagg_calib_cache_init(void);
extern bool dpagg_shared_calibration_get(const char *spec, const dpagg_request *req,
										 dpagg_calibration *out);
extern void dpagg_shared_calibration_put(const char *spec, const dpagg_request *req,
										 const dpagg_calibration *cal);

/* The text of a mechanism argument, or the GUC default when absent. */
extern void dpagg_mechanism_spec(text *arg, char *buf, size_t buflen);

/* Call fn(arg) when cxt is reset or deleted (the callback is allocated in cxt): how dpagg forgets
 * what it kept for one query (private_statements.c, restrict.c, site.c, citus_grant.c). */
static inline void
dpagg_on_reset(MemoryContext cxt, MemoryContextCallbackFunction fn, void *arg)
{
	MemoryContextCallback *cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));

	cb->func = fn;
	cb->arg = arg;
	MemoryContextRegisterResetCallback(cxt, cb);
}


/* The GUCs of calibrate.c, defined at load (from _PG_init), and the core's interrupt check. */
extern void dpagg_calibrate_init(void);

/* ---- catalog.c: functions and plans ---------------------------------------------------------- */

/* A function by schema-qualified name and argument types (an error if it does not exist). */
extern Oid	dpagg_function_oid(const char *schema, const char *name, int nargs, const Oid *argtypes);
/* The C address behind a function's OID (NULL for none): how dpagg knows its own functions. */
extern PGFunction dpagg_fn_address(Oid fn);
/* A function by name and argument types in a schema (no USAGE check on it), or InvalidOid. */
extern Oid	dpagg_function_in(Oid nsp, const char *name, const Oid *argtypes, int nargs);
/* May the current role execute fn? */
extern bool dpagg_may_execute(Oid fn);
/* An Aggref as the parser would make it; location marks who made it (the rewrites' marks). */
extern Aggref *dpagg_make_aggref(Oid fnoid, List *args, bool star, Expr *filter, int location);
/* Visit every plan node of a statement (the main tree and the subplans). */
extern void dpagg_walk_statement(PlannedStmt *stmt, void (*visit) (Plan *plan, void *context),
								 void *context);
/* The plans below a node besides its left and right trees. */
extern List *dpagg_plan_children(Plan *plan);
/* An Agg that forms no group whatever the data (grouped, over a one-time filter that is false). */
extern bool dpagg_agg_forms_no_group(Agg *agg);

/*
 * The marks of nodes a rewrite made, in their `location` (no parser or stored tree produces a
 * location below -1).  The per-unit rewrite (query/bound.c) marks its per-unit Aggrefs and every
 * other function call, aggregate and window function it adds below them (the inner per-unit sums
 * and counts, the random rank, the casts) with DPAGG_BOUND_MARK: the restricted analyst's check of
 * the finished plan (query/restrict_plan.c) trusts these and nothing else it did not allow by
 * name, and only these per-unit aggregates may run.  The Citus split tags aggregates while Citus
 * plans, in (DPAGG_CITUS_TAG - DPAGG_CITUS_TAG_MAX, DPAGG_CITUS_TAG], and marks the per-unit ones
 * again once their parameters are back.
 */
#define DPAGG_BOUND_MARK (-0x4450)
static inline bool
dpagg_unit_aggref_is_ours(Aggref *aggref)
{
	return aggref->location == DPAGG_BOUND_MARK;
}

#define DPAGG_CITUS_TAG (-1000000)
#define DPAGG_CITUS_TAG_MAX 1000000
static inline bool
dpagg_citus_tagged(Aggref *a)
{
	return a->location <= DPAGG_CITUS_TAG && a->location > DPAGG_CITUS_TAG - DPAGG_CITUS_TAG_MAX;
}

/* ---- statement.c: where the backend is -------------------------------------------------------- */

/* The nesting of statements (utility commands and queries) being run, for the checks that must
 * know whether they look at the outermost one. */
extern void dpagg_statement_enter(void);
extern void dpagg_statement_leave(void);
extern int	dpagg_statement_depth(void);
/* Is a plain EXPLAIN (without ANALYZE) planning its query?  Set around it by the hooks. */
extern void dpagg_plain_explain_enter(void);
extern void dpagg_plain_explain_leave(void);
extern bool dpagg_planning_plain_explain(void);

/* ---- citus_metadata.c: what Citus's catalogs say ---------------------------------------------- */

/* A Citus catalog in pg_catalog (InvalidOid without Citus), and a column of one of its rows. */
extern Oid	dpagg_citus_catalog(const char *name);
extern Datum dpagg_citus_catalog_attr(HeapTuple tup, Relation rel, const char *name, bool *isnull);
/* The distributed table of shard shardid, or InvalidOid. */
extern Oid	dpagg_citus_shard_table(int64 shardid);
/* The Citus table whose shard relid is (named <table>_<shardid>), or InvalidOid. */
extern Oid	dpagg_citus_shard_of(Oid relid);
/* Is relid a Citus table (partition_rel: pg_dist_partition)?  *column: its hash distribution
 * column, else 0.  Whether its shards have one placement each. */
extern bool dpagg_citus_table_lookup(Oid relid, Oid partition_rel, AttrNumber *column);
extern bool dpagg_citus_is_table(Oid relid, Oid partition_rel);
extern bool dpagg_citus_single_placement(Oid relid);
/* Does the query read a Citus table (distributed, reference or Citus-managed local)? */
extern bool dpagg_citus_reads_citus_table(Query *q);
extern bool dpagg_citus_node_reads_table(Node *node, Oid partition_rel);
/* This node's Citus group (0: the coordinator, -1: no Citus), and whether it is a worker. */
extern int	dpagg_citus_local_group(void);
extern bool dpagg_citus_worker(void);

/* ---- version.c: the library's version and the SQL objects' ---------------------------------- */

/* Refuse a release (55000, hint: ALTER EXTENSION dpagg UPDATE) while the two differ. */
extern void dpagg_check_sql_version(void);

/* ---- safe_date.c ------------------------------------------------------------------------------ */

/* Is this a unit (extract: field) dp_date_trunc (dp_extract) knows? */
extern bool dpagg_safe_date_arg_ok(bool extract, const char *s);

#endif							/* DPAGG_BASE_H */
