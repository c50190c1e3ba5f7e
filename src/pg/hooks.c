/*
 * hooks.c — dpagg's executor and planner hooks.
 *
 * ExecutorStart: once a plan is initialised, and before any row is read, every dpagg call site
 * in it reads its privacy parameters (site.c).  Not for EXPLAIN without ANALYZE, which runs
 * nothing.
 *
 * planner: partitionwise aggregation (enable_partitionwise_aggregate, settable by any user) makes
 * one Agg node per partition, each finalizing and charging its own groups, and partial
 * per-partition Aggs below a finalizing Agg outside any parallel plan.  dpagg wants one
 * aggregation per call: when the setting is on and the finished plan contains one of dpagg's
 * aggregates, the query is planned again with it off.  Other queries are untouched.
 */
#include "site.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/cost.h"
#include "optimizer/planner.h"

static ExecutorStart_hook_type prev_executor_start = NULL;
static planner_hook_type prev_planner = NULL;

static void
dpagg_executor_start(QueryDesc *qd, int eflags)
{
	if (prev_executor_start)
		prev_executor_start(qd, eflags);
	else
		standard_ExecutorStart(qd, eflags);
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && qd->planstate != NULL)
	{
		ListCell   *lc;

		dpagg_sites_prepare_tree(qd->planstate);
		foreach(lc, qd->estate->es_subplanstates)
			dpagg_sites_prepare_tree((PlanState *) lfirst(lc));
	}
}

/* ---- does a finished plan aggregate with one of dpagg's aggregates? ---- */
static bool
own_aggref_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && dpagg_is_own_aggregate(((Aggref *) node)->aggfnoid))
		return true;
	return expression_tree_walker(node, own_aggref_walker, context);
}

static bool plan_has_own_aggregate(Plan *plan);

static bool
plans_have_own_aggregate(List *plans)
{
	ListCell   *lc;

	foreach(lc, plans)
		if (plan_has_own_aggregate((Plan *) lfirst(lc)))
			return true;
	return false;
}

static bool
plan_has_own_aggregate(Plan *plan)
{
	if (plan == NULL)
		return false;
	check_stack_depth();
	if (IsA(plan, Agg) &&
		(own_aggref_walker((Node *) plan->targetlist, NULL) ||
		 own_aggref_walker((Node *) plan->qual, NULL)))
		return true;
	if (plan_has_own_aggregate(plan->lefttree) || plan_has_own_aggregate(plan->righttree))
		return true;
	switch (nodeTag(plan))
	{
		case T_Append:
			return plans_have_own_aggregate(((Append *) plan)->appendplans);
		case T_MergeAppend:
			return plans_have_own_aggregate(((MergeAppend *) plan)->mergeplans);
		case T_SubqueryScan:
			return plan_has_own_aggregate(((SubqueryScan *) plan)->subplan);
		case T_CustomScan:
			return plans_have_own_aggregate(((CustomScan *) plan)->custom_plans);
		case T_BitmapAnd:
			return plans_have_own_aggregate(((BitmapAnd *) plan)->bitmapplans);
		case T_BitmapOr:
			return plans_have_own_aggregate(((BitmapOr *) plan)->bitmapplans);
		default:
			return false;
	}
}

static PlannedStmt *
plan_once(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	if (prev_planner)
		return prev_planner(parse, query_string, options, params);
	return standard_planner(parse, query_string, options, params);
}

static PlannedStmt *
dpagg_planner(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	Query	   *copy;
	PlannedStmt *stmt;

	if (!enable_partitionwise_aggregate)
		return plan_once(parse, query_string, options, params);
	copy = copyObject(parse);	/* the planner scribbles on its input */
	stmt = plan_once(parse, query_string, options, params);
	if (!plan_has_own_aggregate(stmt->planTree) && !plans_have_own_aggregate(stmt->subplans))
		return stmt;
	enable_partitionwise_aggregate = false;
	PG_TRY();
	{
		stmt = plan_once(copy, query_string, options, params);
	}
	PG_FINALLY();
	{
		enable_partitionwise_aggregate = true;
	}
	PG_END_TRY();
	return stmt;
}

void
dpagg_hooks_init(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = dpagg_executor_start;
	prev_planner = planner_hook;
	planner_hook = dpagg_planner;
}
