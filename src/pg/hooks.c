/*
 * hooks.c — dpagg's executor, planner, explain and utility hooks: the one place that runs the
 * layers of the glue in order for each statement (docs/architecture.md, "A statement's path").
 *
 * ExecutorStart: before the plan is initialised, every dpagg parameter that is not a constant is
 * evaluated once and frozen into a private copy of the plan (so every process of a parallel plan
 * reads the same values); once it is initialised, and before any row is read, every dpagg call
 * site in it reads its privacy parameters (site.c).  Not for EXPLAIN without ANALYZE, which runs
 * nothing.  Before all that, a statement that would aggregate a private relation with dpagg's
 * aggregates is refused (query/private_statements.c); ExecutorRun and ExecutorFinish tell it
 * which statements are running, for the same rule across nested statements.
 *
 * planner: partitionwise aggregation (enable_partitionwise_aggregate, settable by any user) makes
 * one Agg node per partition, each finalizing and charging its own groups, and partial
 * per-partition Aggs below a finalizing Agg outside any parallel plan.  dpagg wants one
 * aggregation per call: when the setting is on and the finished plan contains one of dpagg's
 * aggregates, the query is planned again with it off.  Other queries are untouched.  Before it
 * plans, the hook rewrites dpagg's aggregates over private relations (bound.c) and over Citus
 * tables (citus.c); a Citus level rewritten in the direct form is planned again in the safe form
 * if its finished plan does not run every merge on the coordinator (plan_citus).
 *
 * ExplainOneQuery (set over Citus's only): a plain EXPLAIN, which runs nothing, may plan a dp
 * query on Citus although Citus turned local execution off for it.
 */
#include "hooks.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/cost.h"
#include "optimizer/planner.h"
#include "tcop/utility.h"

static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorRun_hook_type prev_executor_run = NULL;
static ExecutorFinish_hook_type prev_executor_finish = NULL;
static planner_hook_type prev_planner = NULL;
static ExplainOneQuery_hook_type prev_explain_one_query = NULL;
static ProcessUtility_hook_type prev_utility = NULL;

/*
 * Can a backward fetch reach an Agg that releases?  A backward scan goes down the plan until it
 * meets a node that reads back what it stored (Material, Sort); an Agg cannot run backwards, and
 * run so over an input that can (a Custom Scan's stored rows), it would aggregate the input again
 * and release every group afresh within the one execution that was charged.  PostgreSQL's planner
 * puts a Material node on top of a scrollable cursor's plan that cannot go backwards, but a
 * planner that builds the finished plan itself (Citus's, for its coordinator's part) need not.
 * Every path from the top is followed (custom scans' children too) except through those two
 * nodes; subplans always run forwards.
 */
static bool
backward_reaches_release(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	check_stack_depth();
	switch (nodeTag(plan))
	{
		case T_Material:
		case T_Sort:
			return false;
		case T_Agg:
			{
				if (dpagg_node_aggregates((Node *) plan->targetlist) != 0 ||
					dpagg_node_aggregates((Node *) plan->qual) != 0)
					return true;
				break;
			}
		default:
			break;
	}
	foreach(lc, dpagg_plan_children(plan))
		if (backward_reaches_release((Plan *) lfirst(lc)))
			return true;
	return backward_reaches_release(plan->lefttree) || backward_reaches_release(plan->righttree);
}

static void
executor_start(QueryDesc *qd, int eflags)
{
	int			protect_flags = 0;
	bool		restricted = false;

	if ((eflags & EXEC_FLAG_BACKWARD) && backward_reaches_release(qd->plannedstmt->planTree))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("this scrollable cursor could fetch dpagg's releases backwards by running the aggregation again"),
				 errhint("Declare the cursor without SCROLL, or add ORDER BY to the query.")));
	/* a cached plan made under another dpagg.statement_epsilon (statement_budget.c) */
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && !IsParallelWorker())
		dpagg_check_statement_budget(qd->plannedstmt, qd->params);
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		(void) dpagg_restrict_check_executor(qd->plannedstmt, true,
											 dpagg_plan_reads_private(qd->plannedstmt));
	else
	{
		protect_flags = dpagg_protect_check_start(qd);
		/* A parallel worker runs a piece of a plan its leader checked whole (and charged for):
		 * the piece alone (a per-unit rewrite's partial count, say) is not checked again.  Only
		 * that piece, the worker's outermost statement: what a function runs inside it (an
		 * EXPLAIN ANALYZE through SPI, in an attack review) is checked like any statement. */
		if (!IsParallelWorker() || dpagg_statement_depth() > 1)
			restricted = dpagg_restrict_check_executor(qd->plannedstmt, qd->instrument_options != 0,
													   (protect_flags & DPAGG_READS_PRIVATE) != 0);
		dpagg_freeze_parameters(qd);
	}
	/* A query released on the Citus workers: charged here, and its grant handed to the executor
	 * as a parameter of the shard queries (citus_grant.c); last, so that nothing refuses after. */
	dpagg_citus_grant_start(qd, eflags);
	if (prev_executor_start)
		prev_executor_start(qd, eflags);
	else
		standard_ExecutorStart(qd, eflags);
	dpagg_protect_track(qd, protect_flags);
	if (restricted && qd->estate != NULL)
		dpagg_restrict_track(qd->estate->es_query_cxt);	/* no DEBUG/LOG to the client meanwhile */
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && qd->planstate != NULL)
	{
		ListCell   *lc;

		/* a shard query under a coordinator's grant: checked before its sites are prepared */
		dpagg_citus_grant_authorize(qd, eflags);
		/* the statement's releases are admitted together (charge.c) */
		dpagg_charge_statement_begin();
		PG_TRY();
		{
			const char *text = dpagg_statement_text(qd->estate->es_query_cxt, qd->sourceText);

			dpagg_sites_prepare_tree(qd->planstate, text);
			foreach(lc, qd->estate->es_subplanstates)
				dpagg_sites_prepare_tree((PlanState *) lfirst(lc), text);
		}
		PG_FINALLY();
		{
			dpagg_charge_statement_end();
		}
		PG_END_TRY();
	}
}

/* Every hook counts itself as inside a statement, for the fast-path check (restrict_objects.c). */
static void
dpagg_executor_start(QueryDesc *qd, int eflags)
{
	dpagg_statement_enter();
	PG_TRY();
	{
		executor_start(qd, eflags);
	}
	PG_FINALLY();
	{
		dpagg_statement_leave();
	}
	PG_END_TRY();
}

/* Running and finishing (AFTER triggers) a statement: the nesting query/private_statements.c watches. */
static void
dpagg_executor_run(QueryDesc *qd, ScanDirection direction, uint64 count, bool execute_once)
{
	int			flags = dpagg_protect_enter(qd);

	dpagg_statement_enter();
	PG_TRY();
	{
		if (prev_executor_run)
			prev_executor_run(qd, direction, count, execute_once);
		else
			standard_ExecutorRun(qd, direction, count, execute_once);
	}
	PG_FINALLY();
	{
		dpagg_statement_leave();
		dpagg_protect_leave(flags);
	}
	PG_END_TRY();
}

static void
dpagg_executor_finish(QueryDesc *qd)
{
	int			flags = dpagg_protect_enter(qd);

	dpagg_statement_enter();
	PG_TRY();
	{
		if (prev_executor_finish)
			prev_executor_finish(qd);
		else
			standard_ExecutorFinish(qd);
	}
	PG_FINALLY();
	{
		dpagg_statement_leave();
		dpagg_protect_leave(flags);
	}
	PG_END_TRY();
}

static PlannedStmt *
plan_once(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	if (prev_planner)
		return prev_planner(parse, query_string, options, params);
	return standard_planner(parse, query_string, options, params);
}

static void
setting_changed_while_planning(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("enable_partitionwise_aggregate changed while a query with dpagg aggregates was planned"),
			 errdetail("A function evaluated by the planner changed the setting."),
			 errhint("dpagg's aggregates are planned without partitionwise aggregation; do not change the setting from inside the query.")));
}

static PlannedStmt *plan_rewritten(Query *parse, const char *query_string, int options,
									ParamListInfo params, DpCitusRewrite *cr);

/*
 * On Citus tables: partial sums on the workers, one release on the coordinator (citus.c).  A level
 * grouped by the distribution column is first rewritten in the direct form, whose finished plan
 * must run every merge on the coordinator; if it does not, the query is planned again in the safe
 * form.
 */
static PlannedStmt *
plan_citus(Query *parse, const char *query_string, int options, ParamListInfo params, int mode)
{
	/* Not for a scrollable cursor: Citus builds the direct form's top plan without the Material
	 * node that would let it go backwards (an attack review fetched a group back and forth,
	 * each time freshly released, for one charge). */
	DpCitusRewrite *cr = dpagg_citus_query(parse, (options & CURSOR_OPT_SCROLL) ? DPAGG_CITUS_SAFE : mode,
										   params);
	PlannedStmt *stmt = plan_rewritten(parse, query_string, options,
									   dpagg_citus_planning_params(cr, params), cr);

	/* The worker form, then the direct form, then the safe form (citus.c). */
	if (stmt == NULL)
		return plan_citus(dpagg_citus_original(cr), query_string, options, params,
						  mode > DPAGG_CITUS_DIRECT ? DPAGG_CITUS_DIRECT : DPAGG_CITUS_SAFE);
	return stmt;
}

static PlannedStmt *
planner(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	PlannedStmt *stmt;
	bool		unsplit;
	bool		has_params = params == NULL && dpagg_session_restricted() &&
		dpagg_query_has_params(parse);

	/* Per-unit bounding over private relations (bound.c): the analyst's query may not name the
	 * per-unit aggregates; dpagg's aggregates over private relations are rewritten into them. */
	dpagg_refuse_unit_aggregates(parse);
	/* a restricted session reads only what is allowed (restrict_objects.c) */
	dpagg_restrict_check_objects(parse);
	dpagg_bound_query(parse);
	/* dpagg.statement_epsilon: the releases' epsilons scaled to it (statement_budget.c); a
	 * generic plan it cannot split costs more than any plan cache would pick */
	unsplit = dpagg_split_statement_budget(parse, params);
	stmt = plan_citus(parse, query_string, options, params, DPAGG_CITUS_WORKER);
	if (unsplit && stmt != NULL && stmt->planTree != NULL)
		stmt->planTree->total_cost = Max(stmt->planTree->total_cost, 1e30);
	/* Last, on the finished plan that every check above has seen. */
	dpagg_inline_sums(stmt);
	dpagg_restrict_plan_choices(stmt, params, has_params);
	return stmt;
}

static PlannedStmt *
dpagg_planner(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	PlannedStmt *volatile stmt = NULL;

	dpagg_statement_enter();
	PG_TRY();
	{
		stmt = planner(parse, query_string, options, params);
	}
	PG_FINALLY();
	{
		dpagg_statement_leave();
	}
	PG_END_TRY();
	return stmt;
}

/* Planned once; a direct form's finished plan completed (citus.c), or NULL if it cannot be. */
static PlannedStmt *
plan_finished(Query *parse, const char *query_string, int options, ParamListInfo params,
			  DpCitusRewrite *cr)
{
	PlannedStmt *stmt = plan_once(parse, query_string, options, params);

	/*
	 * Citus's answer to a generic plan it cannot make (parameters without values): a lone Custom
	 * Scan that raises Citus's deferred error if it is ever run, with a cost no plan cache picks
	 * over a custom plan.  It runs nothing of dpagg's: kept as it is, so that the plan cache
	 * goes on with custom plans (refusing it would fail the sixth EXECUTE of a statement).
	 */
	if (cr != NULL && !dpagg_citus_finish_plan(stmt, cr))
		return IsA(stmt->planTree, CustomScan) && stmt->planTree->total_cost >= 1e30 &&
			!dpagg_statement_has_own_aggregate(stmt) ? stmt : NULL;
	return stmt;
}

static PlannedStmt *
plan_rewritten(Query *parse, const char *query_string, int options, ParamListInfo params,
			   DpCitusRewrite *cr)
{
	bool		at_entry = enable_partitionwise_aggregate;
	bool		flipped = false;
	Query	   *copy = NULL;
	PlannedStmt *stmt;
	int			private_entries;

	private_entries = dpagg_private_entries_of_query(parse);
	if (private_entries > 0)
		dpagg_restrict_check_statement(parse, dpagg_unbounded_private_reads(parse), true);
	else
		dpagg_fuse_quanta_sums(parse);	/* after every check, on a query of no private relation */
	if (at_entry)
		copy = copyObject(parse);	/* the planner scribbles on its input */
	stmt = plan_finished(parse, query_string, options, params, cr);
	if (stmt == NULL)
		return NULL;
	dpagg_check_planned_reads(stmt, private_entries);
	/* The usual case, the setting off before and after planning: nothing to look at. */
	if ((!at_entry && !enable_partitionwise_aggregate) || !dpagg_statement_has_own_aggregate(stmt))
		return stmt;
	/* A function the planner folds into a constant can change the setting halfway through. */
	if (enable_partitionwise_aggregate != at_entry)
		setting_changed_while_planning();
	if (!at_entry)
		return stmt;
	enable_partitionwise_aggregate = false;
	PG_TRY();
	{
		stmt = plan_finished(copy, query_string, options, params, cr);
		if (stmt != NULL)
			dpagg_check_planned_reads(stmt, private_entries);
		flipped = enable_partitionwise_aggregate;
	}
	PG_FINALLY();
	{
		enable_partitionwise_aggregate = true;
	}
	PG_END_TRY();
	if (flipped)
		setting_changed_while_planning();
	return stmt;
}

/*
 * EXPLAIN without ANALYZE plans and runs nothing.  Citus turns citus.enable_local_execution off for
 * every EXPLAIN, and the Citus rewrite refuses to plan without it (citus.c); while a plain EXPLAIN
 * plans its query, that refusal is not needed: nothing is released.  (A release in a backend that
 * Citus opened is refused anyway, when it would happen.)  Citus insists on being loaded first, so
 * this hook is only set over Citus's.
 */
static void
dpagg_explain_one_query(Query *query, int cursorOptions, IntoClause *into, ExplainState *es,
						const char *queryString, ParamListInfo params, QueryEnvironment *queryEnv)
{
	bool		plain = !es->analyze;

	if (plain)
		dpagg_plain_explain_enter();
	PG_TRY();
	{
		prev_explain_one_query(query, cursorOptions, into, es, queryString, params, queryEnv);
	}
	PG_FINALLY();
	{
		if (plain)
			dpagg_plain_explain_leave();
	}
	PG_END_TRY();
}

/*
 * Utility commands: the DDL that would weaken a protection is refused first (protect.c); a
 * restricted session's command is checked and followed (restrict.c), and counted as a statement
 * (base/statement.c); after it, a new member of a restricted role loads dpagg at session start, as
 * the role does (GRANT, CREATE ROLE ... IN ROLE, ALTER GROUP ... ADD USER), and a setting of
 * session_preload_libraries for a restricted role (ALTER ROLE ... [IN DATABASE ...] SET) keeps
 * dpagg in it (preload.c).
 */
static void
dpagg_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			  ProcessUtilityContext context, ParamListInfo params,
			  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *node = pstmt->utilityStmt;

	dpagg_protect_check_utility(node);
	dpagg_restrict_utility_enter(node);
	dpagg_statement_enter();
	PG_TRY();
	{
		if (prev_utility)
			prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv,
									dest, qc);
	}
	PG_FINALLY();
	{
		dpagg_statement_leave();
		dpagg_restrict_utility_leave(node);
	}
	PG_END_TRY();
	if ((IsA(node, GrantRoleStmt) && ((GrantRoleStmt *) node)->is_grant) ||
		IsA(node, CreateRoleStmt) || IsA(node, AlterRoleStmt) || IsA(node, AlterRoleSetStmt))
		dpagg_preload_after_membership_change();
}

void
dpagg_hooks_init(void)
{
	if (ExplainOneQuery_hook != NULL)
	{
		prev_explain_one_query = ExplainOneQuery_hook;
		ExplainOneQuery_hook = dpagg_explain_one_query;
	}
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = dpagg_executor_start;
	prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = dpagg_executor_run;
	prev_executor_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = dpagg_executor_finish;
	prev_planner = planner_hook;
	planner_hook = dpagg_planner;
	prev_utility = ProcessUtility_hook;
	ProcessUtility_hook = dpagg_utility;
}
