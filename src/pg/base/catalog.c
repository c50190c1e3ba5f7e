/*
 * catalog.c — small helpers every layer of the glue uses (base.h): functions by name or by OID
 * and whether the current role may execute them, Aggrefs built as the parser would, walks over
 * a finished plan's nodes, and whether an Agg of one can form a group at all.
 */
#include "base/base.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* A function by schema-qualified name and argument types (an error if there is none). */
Oid
dpagg_function_oid(const char *schema, const char *name, int nargs, const Oid *argtypes)
{
	return LookupFuncName(list_make2(makeString(pstrdup(schema)), makeString(pstrdup(name))),
						  nargs, argtypes, false);
}

/* An Aggref of `fnoid` over `args` (expressions), as the parser would make it. */
Aggref *
dpagg_make_aggref(Oid fnoid, List *args, bool star, Expr *filter, int location)
{
	Aggref	   *a = makeNode(Aggref);
	ListCell   *lc;
	int			i = 0;

	a->aggfnoid = fnoid;
	a->aggtype = get_func_rettype(fnoid);
	a->aggcollid = InvalidOid;
	a->inputcollid = InvalidOid;
	a->aggtranstype = InvalidOid;
	foreach(lc, args)
	{
		Expr	   *e = (Expr *) lfirst(lc);

		a->aggargtypes = lappend_oid(a->aggargtypes, exprType((Node *) e));
		a->args = lappend(a->args, makeTargetEntry(e, ++i, NULL, false));
		if (i == 1 && OidIsValid(exprCollation((Node *) e)))
			a->inputcollid = exprCollation((Node *) e);
	}
	a->aggstar = star;
	a->aggfilter = filter;
	a->aggkind = AGGKIND_NORMAL;
	a->agglevelsup = 0;
	a->aggsplit = AGGSPLIT_SIMPLE;
	a->aggno = -1;
	a->aggtransno = -1;
	a->location = location;
	return a;
}

PGFunction
dpagg_fn_address(Oid fn)
{
	FmgrInfo	finfo;

	if (!OidIsValid(fn))
		return NULL;
	fmgr_info(fn, &finfo);
	return finfo.fn_addr;
}

/* A function of dpagg's by name and argument types in a schema, without the schema's USAGE check
 * that a lookup by qualified name makes (a view may use dpagg's functions in a schema its reader
 * cannot use: an attack review), or InvalidOid. */
Oid
dpagg_function_in(Oid nsp, const char *name, const Oid *argtypes, int nargs)
{
	HeapTuple	tup = SearchSysCache3(PROCNAMEARGSNSP, CStringGetDatum(name),
									  PointerGetDatum(buildoidvector(argtypes, nargs)),
									  ObjectIdGetDatum(nsp));
	Oid			fn;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	fn = ((Form_pg_proc) GETSTRUCT(tup))->oid;
	ReleaseSysCache(tup);
	return fn;
}

/* May the current role execute fn? */
bool
dpagg_may_execute(Oid fn)
{
	return pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
}

typedef void (*PlanVisitor) (Plan *plan, void *context);

static void walk_plan(Plan *plan, PlanVisitor visit, void *context);

static void
walk_plans(List *plans, PlanVisitor visit, void *context)
{
	ListCell   *lc;

	foreach(lc, plans)
		walk_plan((Plan *) lfirst(lc), visit, context);
}

/* The plans below a node besides its left and right trees (an Append's, a subquery's, ...). */
List *
dpagg_plan_children(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_Append:
			return ((Append *) plan)->appendplans;
		case T_MergeAppend:
			return ((MergeAppend *) plan)->mergeplans;
		case T_SubqueryScan:
			return list_make1(((SubqueryScan *) plan)->subplan);
		case T_CustomScan:
			return ((CustomScan *) plan)->custom_plans;
		case T_BitmapAnd:
			return ((BitmapAnd *) plan)->bitmapplans;
		case T_BitmapOr:
			return ((BitmapOr *) plan)->bitmapplans;
		default:
			return NIL;
	}
}

static void
walk_plan(Plan *plan, PlanVisitor visit, void *context)
{
	if (plan == NULL)
		return;
	check_stack_depth();
	visit(plan, context);
	walk_plan(plan->lefttree, visit, context);
	walk_plan(plan->righttree, visit, context);
	walk_plans(dpagg_plan_children(plan), visit, context);
}

/* Every plan tree of a statement: the main one and the subplans. */
void
dpagg_walk_statement(PlannedStmt *stmt, void (*visit) (Plan *plan, void *context), void *context)
{
	walk_plan(stmt->planTree, visit, context);
	walk_plans(stmt->subplans, visit, context);
}

/* A one-time filter that is false whatever the data: a false constant, or an AND (explicit, or a
 * qual list's implicit one) with such an argument. */
static bool
const_false(Node *n)
{
	ListCell   *lc;

	if (n == NULL)
		return false;
	if (IsA(n, Const))
		return !((Const *) n)->constisnull && !DatumGetBool(((Const *) n)->constvalue);
	if (IsA(n, List) || (IsA(n, BoolExpr) && ((BoolExpr *) n)->boolop == AND_EXPR))
	{
		foreach(lc, IsA(n, List) ? (List *) n : ((BoolExpr *) n)->args)
			if (const_false(lfirst(lc)))
				return true;
	}
	return false;
}

/*
 * An Agg that can form no group whatever the data: grouped (no grouping sets, whose empty set
 * makes a group of no rows), over a Result whose one-time filter is false (what the planner makes
 * of WHERE false; through sorts).  It releases nothing, so it is not charged before its first row
 * (a Citus query pruned to no shard runs such a task beside its grant: docs/citus.md §6); should
 * it ever finalize a group, the final function charges first, as every final does (site.c).
 */
bool
dpagg_agg_forms_no_group(Agg *agg)
{
	Plan	   *in = outerPlan(agg);

	if (agg->aggstrategy == AGG_PLAIN || agg->aggstrategy == AGG_MIXED || agg->numCols == 0 ||
		agg->groupingSets != NIL)
		return false;
	while (in != NULL && (IsA(in, Sort) || IsA(in, IncrementalSort) || IsA(in, Material)))
		in = outerPlan(in);
	return in != NULL && IsA(in, Result) && const_false(((Result *) in)->resconstantqual);
}
