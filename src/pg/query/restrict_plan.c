/*
 * restrict_plan.c — a restricted analyst's finished plan, checked before it runs (docs/guides/
 * restricted-analysts.md; docs/restricted.md, "What runs beside private rows").
 *
 * restrict.c checks the query as the analyst wrote it and as the rewriter expanded it.  What runs
 * is the plan, and the planner adds to it: row-security policies become scan quals, a nested loop
 * runs its inner side once per outer row (so a filter on the analyst's own table runs once per
 * private row), index conditions are copies of the join's, init plans run the first time a row
 * reaches their value.  The rule that must hold: while a restricted statement reads private rows,
 * nothing runs that is not on the allow-list.  So, before any row is read or anything is charged:
 *
 *  - the "private phase" of a plan is everything below an Agg node that releases per-unit
 *    aggregates (bound.c's rewrite), the init plans attached there and the CTEs scanned there;
 *    every expression of every node in it (targets, quals, join and index conditions, hash keys,
 *    cache keys, limits, window run conditions, partition pruning steps) must pass restrict.c's
 *    allow-list, where the only aggregates, window functions and functions beyond the list are
 *    those the rewrite made (they carry its mark), and the only PARAM_EXEC values are a nested
 *    loop's outer values;
 *  - node kinds that run code the list cannot see (function scans, foreign and custom scans,
 *    sample scans, recursive unions, row locks, writes) are refused there;
 *  - outside it, the releasing Agg's own per-row inputs are checked the same way, and a scan of a
 *    private relation that no releasing Agg covers is refused (a backstop for restrict.c).
 *
 * The checks depend on the plan only, never on the data: a refused statement is refused before its
 * charge, alike for every database.  Parallel workers run a piece of a plan the leader checked
 * whole, and are not checked again (hooks.c).
 */
#include "query/query.h"

#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "jit/jit.h"

typedef struct PlanCheck
{
	PlannedStmt *stmt;
	Bitmapset  *private_rels;	/* range-table indexes of private relations (and their children) */
	Bitmapset  *nest_params;	/* PARAM_EXEC ids set by nested loops */
	Bitmapset  *private_subplans;	/* sub-plans already walked as private (1-based ids) */
} PlanCheck;

static void walk_plan(Plan *plan, PlanCheck *pc, bool private_phase);

static void
expr(Node *node, const char *where, PlanCheck *pc)
{
	ListCell   *lc;

	if (node == NULL)
		return;
	/* one list item at a time: the size bound is per expression, as in restrict.c */
	if (IsA(node, List))
	{
		foreach(lc, (List *) node)
			expr((Node *) lfirst(lc), where, pc);
		return;
	}
	dpagg_restrict_check_plan_expr(node, where, pc->nest_params);
}

static void
refuse_node(const char *what)
{
	dpagg_restrict_refuse(psprintf("restricted roles cannot run a plan with %s over private data", what),
						  "It would run code the allow-list of expressions over private rows cannot see.",
						  "Aggregate the private relation with dpagg's aggregates, joined only to tables and views.");
}

/* Does this Agg release per-unit aggregates (the top of a private phase)? */
static bool
unit_aggref_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && DPAGG_KIND_IS_UNIT(dpagg_aggregate_kind(((Aggref *) node)->aggfnoid)))
	{
		*(List **) context = lappend(*(List **) context, node);
		return false;			/* its arguments are checked as an expression */
	}
	return expression_tree_walker(node, unit_aggref_walker, context);
}

static List *
unit_aggrefs(Plan *plan)
{
	List	   *found = NIL;

	(void) unit_aggref_walker((Node *) plan->targetlist, &found);
	(void) unit_aggref_walker((Node *) plan->qual, &found);
	return found;
}

static void
walk_subplan(int plan_id, PlanCheck *pc, bool private_phase)
{
	Plan	   *sub = (Plan *) list_nth(pc->stmt->subplans, plan_id - 1);

	if (private_phase)
	{
		if (bms_is_member(plan_id, pc->private_subplans))
			return;
		pc->private_subplans = bms_add_member(pc->private_subplans, plan_id);
	}
	walk_plan(sub, pc, private_phase);
}

static void
walk_list(List *plans, PlanCheck *pc, bool private_phase)
{
	ListCell   *lc;

	foreach(lc, plans)
		walk_plan((Plan *) lfirst(lc), pc, private_phase);
}

static void
prune_steps(PartitionPruneInfo *info, PlanCheck *pc)
{
	ListCell   *a,
			   *b,
			   *c;

	if (info == NULL)
		return;
	foreach(a, info->prune_infos)
		foreach(b, (List *) lfirst(a))
		{
			PartitionedRelPruneInfo *pinfo = lfirst_node(PartitionedRelPruneInfo, b);
			List	   *steps = list_concat_copy(pinfo->initial_pruning_steps, pinfo->exec_pruning_steps);

			foreach(c, steps)
				if (IsA(lfirst(c), PartitionPruneStepOp))
					expr((Node *) ((PartitionPruneStepOp *) lfirst(c))->exprs, "partition pruning", pc);
		}
}

/* The expressions and children of one node of a private phase. */
static void
walk_private(Plan *plan, PlanCheck *pc)
{
	ListCell   *lc;

	expr((Node *) plan->targetlist, "the plan's targets", pc);
	expr((Node *) plan->qual, "the plan's filters", pc);
	foreach(lc, plan->initPlan)
		walk_subplan(lfirst_node(SubPlan, lc)->plan_id, pc, true);

	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_Material:
		case T_Sort:
		case T_IncrementalSort:
		case T_Group:
		case T_Unique:
		case T_Gather:
		case T_GatherMerge:
		case T_SetOp:
		case T_BitmapAnd:
		case T_BitmapOr:
			break;
		case T_IndexScan:
			expr((Node *) ((IndexScan *) plan)->indexqual, "an index condition", pc);
			expr((Node *) ((IndexScan *) plan)->indexqualorig, "an index condition", pc);
			expr((Node *) ((IndexScan *) plan)->indexorderby, "an index order", pc);
			expr((Node *) ((IndexScan *) plan)->indexorderbyorig, "an index order", pc);
			break;
		case T_IndexOnlyScan:
			expr((Node *) ((IndexOnlyScan *) plan)->indexqual, "an index condition", pc);
			expr((Node *) ((IndexOnlyScan *) plan)->recheckqual, "an index condition", pc);
			expr((Node *) ((IndexOnlyScan *) plan)->indexorderby, "an index order", pc);
			break;
		case T_BitmapIndexScan:
			expr((Node *) ((BitmapIndexScan *) plan)->indexqual, "an index condition", pc);
			expr((Node *) ((BitmapIndexScan *) plan)->indexqualorig, "an index condition", pc);
			break;
		case T_BitmapHeapScan:
			expr((Node *) ((BitmapHeapScan *) plan)->bitmapqualorig, "an index condition", pc);
			break;
		case T_TidScan:
			expr((Node *) ((TidScan *) plan)->tidquals, "a ctid condition", pc);
			break;
		case T_TidRangeScan:
			expr((Node *) ((TidRangeScan *) plan)->tidrangequals, "a ctid condition", pc);
			break;
		case T_SubqueryScan:
			break;
		case T_ValuesScan:
			expr((Node *) ((ValuesScan *) plan)->values_lists, "VALUES", pc);
			break;
		case T_CteScan:
			walk_subplan(((CteScan *) plan)->ctePlanId, pc, true);
			break;
		case T_Result:
			expr(((Result *) plan)->resconstantqual, "a constant filter", pc);
			break;
		case T_Append:
			prune_steps(((Append *) plan)->part_prune_info, pc);
			break;
		case T_MergeAppend:
			prune_steps(((MergeAppend *) plan)->part_prune_info, pc);
			break;
		case T_NestLoop:
			expr((Node *) ((Join *) plan)->joinqual, "a join condition", pc);
			foreach(lc, ((NestLoop *) plan)->nestParams)
				expr((Node *) lfirst_node(NestLoopParam, lc)->paramval, "a join condition", pc);
			break;
		case T_MergeJoin:
			expr((Node *) ((Join *) plan)->joinqual, "a join condition", pc);
			expr((Node *) ((MergeJoin *) plan)->mergeclauses, "a join condition", pc);
			break;
		case T_HashJoin:
			expr((Node *) ((Join *) plan)->joinqual, "a join condition", pc);
			expr((Node *) ((HashJoin *) plan)->hashclauses, "a join condition", pc);
			expr((Node *) ((HashJoin *) plan)->hashkeys, "a join condition", pc);
			break;
		case T_Hash:
			expr((Node *) ((Hash *) plan)->hashkeys, "a join condition", pc);
			break;
		case T_Memoize:
			expr((Node *) ((Memoize *) plan)->param_exprs, "a join condition", pc);
			break;
		case T_Agg:
			if (((Agg *) plan)->groupingSets != NIL)
				refuse_node("grouping sets");
			break;
		case T_WindowAgg:
			expr(((WindowAgg *) plan)->startOffset, "a window frame", pc);
			expr(((WindowAgg *) plan)->endOffset, "a window frame", pc);
			expr((Node *) ((WindowAgg *) plan)->runCondition, "a window condition", pc);
			break;
		case T_Limit:
			expr(((Limit *) plan)->limitOffset, "OFFSET", pc);
			expr(((Limit *) plan)->limitCount, "LIMIT", pc);
			break;
		case T_FunctionScan:
			refuse_node("a function in FROM");
			break;
		case T_TableFuncScan:
			refuse_node("XMLTABLE");
			break;
		case T_ForeignScan:
			refuse_node("a foreign table");
			break;
		case T_CustomScan:
			refuse_node("a custom scan");
			break;
		case T_SampleScan:
			refuse_node("TABLESAMPLE");
			break;
		case T_RecursiveUnion:
		case T_WorkTableScan:
			refuse_node("a recursive WITH query");
			break;
		case T_LockRows:
			refuse_node("row locks");
			break;
		case T_ModifyTable:
			refuse_node("a write");
			break;
		default:
			refuse_node(psprintf("a plan node of kind %d", (int) nodeTag(plan)));
	}
	walk_plan(plan->lefttree, pc, true);
	walk_plan(plan->righttree, pc, true);
	walk_list(dpagg_plan_children(plan), pc, true);	/* a bitmap's index scans too */
}

/* Scans of a private relation (the backstop outside a private phase). */
static bool
scans_private(Plan *plan, PlanCheck *pc)
{
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ForeignScan:
		case T_CustomScan:
			return bms_is_member((int) ((Scan *) plan)->scanrelid, pc->private_rels);
		default:
			return false;
	}
}

static void
walk_plan(Plan *plan, PlanCheck *pc, bool private_phase)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();
	if (private_phase)
	{
		walk_private(plan, pc);
		return;
	}
	if (scans_private(plan, pc))
		dpagg_restrict_refuse("restricted roles may read private relations only through dpagg's aggregates",
							  "The finished plan reads private rows outside every per-unit aggregation.",
							  "Aggregate the private relation with dpagg's aggregates.");
	if (IsA(plan, Agg))
	{
		List	   *units = unit_aggrefs(plan);

		if (units != NIL)
		{
			/* the releasing aggregates' values and filters run per (unit, group) row */
			foreach(lc, units)
				expr((Node *) lfirst(lc), "an aggregate's argument", pc);
			foreach(lc, plan->initPlan)
				walk_subplan(lfirst_node(SubPlan, lc)->plan_id, pc, false);
			walk_plan(plan->lefttree, pc, true);
			return;
		}
	}
	/* post-processing (or public data): only the private phases below it are checked */
	walk_plan(plan->lefttree, pc, false);
	walk_plan(plan->righttree, pc, false);
	walk_list(dpagg_plan_children(plan), pc, false);
}

static void
collect_nest_params(Plan *plan, void *context)
{
	PlanCheck  *pc = (PlanCheck *) context;
	ListCell   *lc;

	if (IsA(plan, NestLoop))
		foreach(lc, ((NestLoop *) plan)->nestParams)
			pc->nest_params = bms_add_member(pc->nest_params,
											 lfirst_node(NestLoopParam, lc)->paramno);
}

void
dpagg_restrict_check_plan(PlannedStmt *stmt)
{
	PlanCheck	pc;
	ListCell   *lc;
	int			i = 0;
	bool		changed = true;

	memset(&pc, 0, sizeof(pc));
	pc.stmt = stmt;
	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		i++;
		if (rte->rtekind == RTE_RELATION && dpagg_relation_protection(rte->relid, NULL, NULL))
			pc.private_rels = bms_add_member(pc.private_rels, i);
	}
	/* partitions and inheritance children of a private parent, at any depth */
	while (changed)
	{
		changed = false;
		foreach(lc, stmt->appendRelations)
		{
			AppendRelInfo *ai = lfirst_node(AppendRelInfo, lc);

			if (bms_is_member((int) ai->parent_relid, pc.private_rels) &&
				!bms_is_member((int) ai->child_relid, pc.private_rels))
			{
				pc.private_rels = bms_add_member(pc.private_rels, (int) ai->child_relid);
				changed = true;
			}
		}
	}
	dpagg_walk_statement(stmt, collect_nest_params, &pc);
	walk_plan(stmt->planTree, &pc, false);
	walk_list(stmt->subplans, &pc, false);
}

/*
 * Choices the planner made from the private columns' statistics that a restricted session could
 * observe without EXPLAIN (a fourth attack review):
 *  - JIT: compiling takes a large, steady time above jit_above_cost, a setting any user may
 *    change, so the time told the plan's estimated cost: never for such a statement;
 *  - the plan cache's choice between a generic and a custom plan, which follows the estimated
 *    costs and shows in how often a statement is planned (a function of the analyst's, folded
 *    into a constant, runs at each planning): a generic plan of such a statement is given a cost
 *    no custom plan reaches, so the cache always plans afresh (unless the analyst forces generic
 *    plans, which then are always used).  Either way the choice no longer depends on the data.
 */
static bool
extern_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, extern_param_walker, context, 0);
	return expression_tree_walker(node, extern_param_walker, context);
}

/* Does the query (before it is planned) have parameters ($1, ...)? */
bool
dpagg_query_has_params(Query *parse)
{
	return extern_param_walker((Node *) parse, NULL);
}

void
dpagg_restrict_plan_choices(PlannedStmt *stmt, ParamListInfo params, bool has_params)
{
	if (stmt == NULL || stmt->commandType == CMD_UTILITY || !dpagg_session_restricted() ||
		!dpagg_plan_reads_private(stmt))
		return;
	stmt->jitFlags = PGJIT_NONE;
	/* a generic plan: planned without the parameters' values */
	if (params == NULL && has_params && stmt->planTree != NULL)
		stmt->planTree->total_cost = 1e30;
}
