/*
 * citus.h — dpagg on Citus (docs/citus.md, docs/guides/citus.md): the split of dpagg's aggregates
 * over Citus tables into partial states on the workers and one release on the coordinator
 * (citus.c), and worker-side releases under a grant of the coordinator (citus_grant.c).  Above the
 * query pipeline: the split reuses the per-unit rewrite's building blocks.
 */
#ifndef DPAGG_CITUS_H
#define DPAGG_CITUS_H

#include "query/query.h"

/* The rewrite of dpagg's aggregates over Citus tables (planner hook, before Citus plans).  NULL
 * unless a level was rewritten in the direct form, whose finished plan must then go through
 * dpagg_citus_finish_plan; if that says false, plan dpagg_citus_original() again in the safe
 * form.  mode: DPAGG_CITUS_WORKER (worker form allowed), DPAGG_CITUS_DIRECT, DPAGG_CITUS_SAFE. */
typedef struct DpCitusRewrite DpCitusRewrite;
#define DPAGG_CITUS_SAFE 0
#define DPAGG_CITUS_DIRECT 1
#define DPAGG_CITUS_WORKER 2
extern DpCitusRewrite *dpagg_citus_query(Query *parse, int mode, ParamListInfo params);
extern bool dpagg_citus_finish_plan(PlannedStmt *stmt, DpCitusRewrite *cr);
extern Query *dpagg_citus_original(DpCitusRewrite *cr);
/* The parameters the planner (Citus) is given for a query rewritten in the worker form: the
 * analyst's, and the grant's $n typed text without a value. */
extern ParamListInfo dpagg_citus_planning_params(DpCitusRewrite *cr, ParamListInfo params);

/* Worker-side releases under a grant of the coordinator (citus_grant.c). */
struct QueryDesc;
extern bool dpagg_citus_key_configured(void);
extern bool dpagg_is_citus_grant_function(Oid fn);
extern bool dpagg_is_citus_release_function(Oid fn);
extern void dpagg_citus_grant_start(struct QueryDesc *qd, int eflags);
extern List *dpagg_citus_grant_calls(PlannedStmt *stmt);
extern void dpagg_citus_grant_authorize(struct QueryDesc *qd, int eflags);
extern void dpagg_citus_grant_init(void);

#endif							/* DPAGG_CITUS_H */
