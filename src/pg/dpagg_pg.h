/*
 * dpagg_pg.h — shared declarations of the PostgreSQL glue (C only; the C++ core is reached
 * through src/core/dpagg_core.h and never calls PostgreSQL itself).
 */
#ifndef DPAGG_PG_H
#define DPAGG_PG_H

#include "postgres.h"
#include "fmgr.h"
#include "nodes/nodes.h"

#include "../core/dpagg_core.h"

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
extern dpagg_request dpagg_scalar_request(double epsilon, double delta, double sensitivity,
										  bool integer_valued);
extern dpagg_request dpagg_vector_request(double epsilon, double delta, double l2_bound,
										  int dimension);

/*
 * Calibrate for a release (dpagg_calibrate_for_release: the core adds the release-grid allowance
 * and applies the objective) through a small per-backend cache, then the cluster's shared one
 * (calib_cache.c; the calibration is a pure function of its inputs).  Errors are reported with
 * ereport.
 */
extern void dpagg_calibrate_cached(const char *spec, const dpagg_request *req,
								   dpagg_calibration *out);

/* User input quoted for an error message, cut to a sensible length (dpagg.c). */
extern char *dpagg_quote_input(const char *s);

/* The calibrations shared by the cluster's backends (calib_cache.c). */
extern void dpagg_calib_cache_init(void);
extern bool dpagg_shared_calibration_get(const char *spec, const dpagg_request *req,
										 dpagg_calibration *out);
extern void dpagg_shared_calibration_put(const char *spec, const dpagg_request *req,
										 const dpagg_calibration *cal);

/* The text of a mechanism argument, or the GUC default when absent. */
extern void dpagg_mechanism_spec(text *arg, char *buf, size_t buflen);

/* Privacy budgets and the ledger (ledger_shmem.c; the files are listed in ledger.h). */
extern void dpagg_budget_init(void);

/* One part of a release, for the charge: its mechanism, (epsilon, delta) and zCDP rho
 * (NaN if the mechanism is not rho-zCDP). */
typedef struct DpChargePart
{
	const char *spec;
	double		epsilon;
	double		delta;
	double		rho;
} DpChargePart;

/* Whether an execution of an aggregation was charged, and in which loop of its Agg node. */
typedef struct DpChargeMark
{
	bool		charged;
	double		loop;			/* the node's instrumentation loop count when charged */
} DpChargeMark;

/* Charge one execution (once per loop of the Agg node; `mark` remembers; charge.c).
 * query_text: the statement that runs it, or NULL for the client's current one. */
struct AggState;
extern void dpagg_charge_at(struct AggState *as, DpChargeMark *mark, const char *aggregate,
							double epsilon, double delta, const DpChargePart *parts, int nparts,
							const char *query_text);

/* What the charge would refuse, checked without charging (when a call site is prepared, before
 * any row is read); `as` is the Agg node that will release. */
struct AggState;
extern void dpagg_charge_check_parts(struct AggState *as, const char *aggregate, double epsilon,
									 double delta, const DpChargePart *parts, int nparts);

/* The same, for one release planned on Citus (citus.c), before the workers read a row. */
/* A statement's call sites being prepared: their dry runs are admitted together (charge.c). */
extern void dpagg_charge_statement_begin(void);
extern void dpagg_charge_statement_end(void);
extern void dpagg_charge_precheck(const char *aggregate, double epsilon, double delta,
								  const DpChargePart *parts, int nparts);
extern void dpagg_charge_planned(const char *aggregate, double epsilon, double delta,
								 const DpChargePart *parts, int nparts, bool dry_run,
								 const char *query_text);

/* Call fn(arg) when cxt is reset or deleted (the callback is allocated in cxt): how dpagg forgets
 * what it kept for one query (protect.c, restrict.c, site.c, citus_grant.c). */
static inline void
dpagg_on_reset(MemoryContext cxt, MemoryContextCallbackFunction fn, void *arg)
{
	MemoryContextCallback *cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));

	cb->func = fn;
	cb->arg = arg;
	MemoryContextRegisterResetCallback(cxt, cb);
}

/* Refuse window use and direct calls; the aggregate memory context (aggregates.c). */
extern MemoryContext dpagg_aggregate_context(FunctionCallInfo fcinfo, const char *name);

#endif							/* DPAGG_PG_H */
