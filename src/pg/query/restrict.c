/*
 * restrict.c — restricted analysts (docs/guides/restricted-analysts.md; docs/restricted.md).
 *
 * A DBA marks a role restricted the PostgreSQL way, with a security label of the provider dpagg
 * on the role:
 *
 *     SECURITY LABEL FOR dpagg ON ROLE analyst IS 'restricted';     -- or dp_restrict('analyst')
 *
 * (superusers only; labels on roles are cluster-wide).  A session is restricted when its login
 * role or its current role is a member of a restricted role (membership counts, superuser
 * privilege does not).  For a restricted session, a statement that reads a private relation is
 * accepted only if every read of private data is one that bound.c turned into dpagg's per-unit
 * aggregates, and every expression evaluated on private rows (in WHERE and ON, grouping keys,
 * aggregate arguments and FILTER, and in plain subqueries or views between the relation and the
 * aggregate) is built from an allow-list that cannot raise a data-dependent error, has no side
 * effect and takes bounded time.  Everything else is refused with 42501 before anything runs or is
 * charged: raw columns, other aggregates, window functions over private rows, writes, COPY,
 * CREATE TABLE AS / SELECT INTO / materialized views, INSERT ... SELECT, EXPLAIN ANALYZE (its row
 * counts are raw data), TABLESAMPLE, and any function or operator outside the list.
 *
 * The allow-list: PostgreSQL's LEAKPROOF built-in functions (the planner's own notion of "reveals
 * nothing about its arguments but through its result": comparisons of the common types, boolean
 * equality, ...), plus the functions named in extra_allowed below, each with a reason; the node
 * types of boolean logic, IS [NOT] NULL, CASE, COALESCE, NULLIF, GREATEST/LEAST, IN lists of
 * constants and binary-compatible casts.  Arithmetic is not in it: it can overflow or divide by
 * zero, and the error would tell about one row.
 */
#include "query/query.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_shseclabel.h"
#include "catalog/pg_type.h"
#include "commands/seclabel.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "optimizer/optimizer.h"
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/inval.h"
#include "utils/plancache.h"
#include "parser/parse_coerce.h"
#include "catalog/dependency.h"
#include "catalog/pg_language.h"
#include "utils/guc.h"
#include "utils/array.h"
#include "access/transam.h"
#include "commands/extension.h"
#include "funcapi.h"
#include "utils/tuplestore.h"


/* ---- expressions over private rows (the allow-list of functions: restrict_functions.c) --------- */

static void pg_attribute_noreturn()
refuse(const char *msg, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s", msg),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s", hint)));
}


typedef struct AllowContext
{
	const char *where;
	int			nodes;
	bool		plan;			/* a finished plan's expression (restrict_plan.c) */
	Bitmapset  *nest_params;	/* in a plan: the PARAM_EXEC ids nested loops set */
} AllowContext;

/* A node the per-unit rewrite made (bound.c marks them; nothing else can carry the mark). */
static bool
rewrite_made(int location)
{
	return location == DPAGG_BOUND_MARK;
}


/*
 * An operator the analyst made is refused even when its function is allowed: the planner calls
 * its commutator's or negator's selectivity estimator, and so the function behind that, on the
 * private column's most common values and histogram while it plans (an attack review built <<<
 * on float8lt with a commutator of its own, and read every statistic of the column).  Built-in
 * operators have built-in commutators, negators and estimators.
 */
static void
builtin_operator(Oid opno, AllowContext *ac)
{
	if (opno >= FirstGenbkiObjectId)
		refuse(psprintf("restricted roles cannot use an operator of their own (%s) on private data",
						get_opname(opno) ? get_opname(opno) : "?"),
			   "The planner runs the functions of an operator's commutator, negator and selectivity estimators on the private columns' statistics.",
			   "Use PostgreSQL's built-in operators.");
}

/* Bounds on the work one row can cause: constants of at most 1 kB, IN lists of at most 1000
 * elements, expressions of at most 500 nodes (a huge literal folded a dozen times around a CASE on
 * one row would otherwise time that row). */
#define MAX_CONST_BYTES 1024
#define MAX_IN_LIST 1000
#define MAX_NODES 500

static void
too_big(void)
{
	refuse("restricted roles cannot use constants over 1 kB, IN lists over 1000 elements or expressions over 500 nodes on private data",
		   "The time one row takes must not depend on its value by more than a small expression's work.",
		   "Use smaller constants and expressions.");
}

/*
 * A call of a built-in immutable function (or operator) on constants only, nested or not: the
 * planner folds it into a constant (eval_const_expressions) before any row is read, so nothing of
 * it runs per row, and an error it raises comes while planning, whatever the data.  So
 * `amount > 50 + 50` is `amount > 100` (a walk-through found such filters refused).  Stable
 * functions (now(), timestamptz arithmetic) are not folded and stay refused; the finished plan
 * is checked again (restrict_plan.c), with the constant the folding made (its size too).
 */
static bool
folds_before_rows(Node *node)
{
	Oid			fn;
	List	   *args;
	ListCell   *lc;

	if (node == NULL || IsA(node, Const))
		return true;
	if (IsA(node, RelabelType))
		return folds_before_rows((Node *) ((RelabelType *) node)->arg);
	if (IsA(node, FuncExpr))
	{
		if (((FuncExpr *) node)->funcretset)
			return false;
		fn = ((FuncExpr *) node)->funcid;
		args = ((FuncExpr *) node)->args;
	}
	else if (IsA(node, OpExpr))
	{
		if (((OpExpr *) node)->opretset || ((OpExpr *) node)->opno >= FirstGenbkiObjectId)
			return false;
		set_opfuncid((OpExpr *) node);
		fn = ((OpExpr *) node)->opfuncid;
		args = ((OpExpr *) node)->args;
	}
	else
		return false;
	if (fn >= FirstGenbkiObjectId || func_volatile(fn) != PROVOLATILE_IMMUTABLE)
		return false;
	foreach(lc, args)
		if (!folds_before_rows((Node *) lfirst(lc)))
			return false;
	return true;
}

static bool
allow_walker(Node *node, AllowContext *ac)
{
	if (node == NULL)
		return false;
	if (++ac->nodes > MAX_NODES)
		too_big();
	switch (nodeTag(node))
	{
		case T_Const:
			{
				Const	   *c = (Const *) node;

				if (!c->constisnull && !c->constbyval && c->constlen == -1 &&
					VARSIZE_ANY(DatumGetPointer(c->constvalue)) > MAX_CONST_BYTES)
					too_big();
				if (!c->constisnull && type_is_array(c->consttype) &&
					ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(c->constvalue)),
								   ARR_DIMS(DatumGetArrayTypeP(c->constvalue))) > MAX_IN_LIST)
					too_big();
				break;
			}
		case T_Var:
		case T_CaseTestExpr:
		case T_SQLValueFunction:
		case T_List:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_RelabelType:
		case T_TargetEntry:
			break;
		case T_MinMaxExpr:
			dpagg_restrict_collation(((MinMaxExpr *) node)->inputcollid, ((MinMaxExpr *) node)->args);
			break;
		case T_FuncExpr:
			if (ac->plan && rewrite_made(((FuncExpr *) node)->location))
				break;
			if (!ac->plan && folds_before_rows(node))
				return false;	/* a constant by the time any row is read */
			dpagg_restrict_function(((FuncExpr *) node)->funcid, ((FuncExpr *) node)->args,
							 ((FuncExpr *) node)->inputcollid, ac->where);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			if (ac->plan && rewrite_made(((OpExpr *) node)->location))
				break;
			if (!ac->plan && IsA(node, OpExpr) && folds_before_rows(node))
				return false;	/* a constant by the time any row is read */
			builtin_operator(((OpExpr *) node)->opno, ac);
			set_opfuncid((OpExpr *) node);
			dpagg_restrict_function(((OpExpr *) node)->opfuncid, ((OpExpr *) node)->args,
							 ((OpExpr *) node)->inputcollid, ac->where);
			break;
		case T_Param:
			/* In a plan, a PARAM_EXEC is a nested loop's outer value or the output of a sub-plan
			 * run on demand (an init plan), and so run only if a private row reaches it. */
			if (ac->plan && ((Param *) node)->paramkind == PARAM_EXEC &&
				!bms_is_member(((Param *) node)->paramid, ac->nest_params))
				refuse(psprintf("restricted roles cannot use a sub-query's value on private data (%s)", ac->where),
					   "The planner evaluates it the first time a private row reaches it.",
					   "Compute the value in a separate query and write it as a literal.");
			break;
		case T_CollateExpr:
			/* a deterministic collation: the comparisons under it are checked like any others */
			if (!get_collation_isdeterministic(((CollateExpr *) node)->collOid))
				refuse("restricted roles cannot use a nondeterministic collation on private data",
					   "Some operations (LIKE, starts_with, ...) fail under such a collation only for the rows they reach.",
					   "Use a deterministic collation, such as \"C\" or the database's default.");
			break;
		case T_Aggref:
		case T_WindowFunc:
			{
				/* In a plan: only the aggregates and the rank the per-unit rewrite made; of the
				 * per-unit (releasing) aggregates, only the value is evaluated per row (their
				 * privacy parameters are evaluated once, before any row is read: site.c). */
				Aggref	   *a = IsA(node, Aggref) ? (Aggref *) node : NULL;
				int			loc = a ? a->location : ((WindowFunc *) node)->location;

				if (!ac->plan || !rewrite_made(loc))
					refuse(psprintf("restricted roles cannot use this kind of expression on private data (%s)",
									ac->where),
						   "Expressions over private rows are limited to an allow-list (docs/guides/restricted-analysts.md).",
						   "Aggregate private rows with dpagg's aggregates only.");
				if (a != NULL && DPAGG_KIND_IS_UNIT(dpagg_aggregate_kind(a->aggfnoid)))
				{
					if (a->args != NIL)
						(void) allow_walker((Node *) linitial_node(TargetEntry, a->args)->expr, ac);
					return allow_walker((Node *) a->aggfilter, ac);
				}
				break;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *s = (ScalarArrayOpExpr *) node;

				builtin_operator(s->opno, ac);
				set_sa_opfuncid(s);
				dpagg_restrict_function(s->opfuncid, s->args, s->inputcollid, ac->where);
				/* a list written out (bounded); not an array taken from the data (any size) */
				if (!IsA(lsecond(s->args), Const) && !IsA(lsecond(s->args), ArrayExpr))
					refuse("restricted roles may compare private data only with IN lists written out",
						   NULL, "Write the list out: x IN (1, 2, 3) or x IN (a, b).");
				break;
			}
		case T_ArrayExpr:
			{
				/* ARRAY[...] of allowed expressions (dp_sum_vector's vectors, IN lists): one
				 * dimension only (nested arrays of different lengths would fail on some rows),
				 * and a bounded number of elements */
				if (((ArrayExpr *) node)->multidims)
					refuse("restricted roles cannot build multidimensional arrays from private data",
						   "Arrays of arrays fail when the inner arrays' lengths differ.",
						   "Build a one-dimensional ARRAY[a, b, ...] of the columns.");
				if (list_length(((ArrayExpr *) node)->elements) > MAX_IN_LIST)
					too_big();
				break;
			}
		default:
			/* including aggregates (a built-in one can fail on one row's value, a user-defined
			 * one print it) and window functions: the dpagg aggregates' own arguments are
			 * checked by dpagg_restrict_check_aggref, never as an Aggref */
			refuse(psprintf("restricted roles cannot use this kind of expression on private data (%s)",
							ac->where),
				   "Expressions over private rows are limited to an allow-list (docs/guides/restricted-analysts.md).",
				   "Use comparisons, boolean logic, IS NULL, CASE, COALESCE and IN lists of constants.");
	}
	return expression_tree_walker(node, allow_walker, ac);
}

static void
check_expr(Node *node, const char *where)
{
	AllowContext ac = {where, 0, false, NULL};

	(void) allow_walker(node, &ac);
}

/* An expression of a finished plan that runs while private rows are read (restrict_plan.c). */
void
dpagg_restrict_check_plan_expr(Node *node, const char *where, Bitmapset *nest_params)
{
	AllowContext ac = {where, 0, true, nest_params};

	(void) allow_walker(node, &ac);
}

/* The same refusal, for restrict_plan.c. */
void
dpagg_restrict_refuse(const char *msg, const char *detail, const char *hint)
{
	refuse(msg, detail, hint);
}

/* The join tree's conditions (WHERE and ON). */
static void
check_jointree(Node *node)
{
	if (node == NULL)
		return;
	if (IsA(node, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) node)->fromlist)
			check_jointree(lfirst(lc));
		check_expr(((FromExpr *) node)->quals, "WHERE");
	}
	else if (IsA(node, JoinExpr))
	{
		check_jointree(((JoinExpr *) node)->larg);
		check_jointree(((JoinExpr *) node)->rarg);
		check_expr(((JoinExpr *) node)->quals, "JOIN ... ON");
	}
}

static void check_source_query(Query *q);

/* A range-table entry between the private relation and the aggregate (owner: its query). */
static void
check_rte(Query *owner, RangeTblEntry *rte)
{
	DpProtection p;

	/* Row-security policies, added by the rewriter: run for every row they filter, which a
	 * nested loop makes once per private row (even on a table of the analyst's own). */
	check_expr((Node *) rte->securityQuals, "a row-security policy");
	if (rte->tablesample != NULL)
		refuse("restricted roles cannot use TABLESAMPLE on private data", NULL,
			   "Aggregate the whole relation with dpagg's aggregates.");
	if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
	{
		/* a private view's body is the DBA's: trusted; a plain view or subquery is checked */
		Oid			view = InvalidOid;

		if (rte->subquery->rtable != NIL)
		{
			RangeTblEntry *old = linitial_node(RangeTblEntry, rte->subquery->rtable);

			if (old->rtekind == RTE_RELATION && old->relkind == 'v' && !old->inFromCl)
				view = old->relid;
		}
		if (!(OidIsValid(view) && dpagg_relation_protection(view, &p, NULL)))
			check_source_query(rte->subquery);
	}
	else if (rte->rtekind == RTE_VALUES)
		check_expr((Node *) rte->values_lists, "VALUES");
	else if (rte->rtekind == RTE_CTE)
	{
		/* The planner may inline a WITH query, and evaluate its expressions once per private
		 * row that reaches them: its body is checked like a subquery's. */
		ListCell   *lc;
		bool		found = false;

		if (rte->ctelevelsup == 0)
			foreach(lc, owner->cteList)
			{
				CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

				if (strcmp(cte->ctename, rte->ctename) == 0)
				{
					check_source_query(castNode(Query, cte->ctequery));
					found = true;
				}
			}
		if (!found)
			refuse("restricted roles cannot use a WITH query of an outer query level beside private data",
				   NULL, "Define the WITH query at the level of the dpagg aggregates.");
	}
	else if (rte->rtekind == RTE_FUNCTION || rte->rtekind == RTE_TABLEFUNC)
		refuse("restricted roles cannot call a function in FROM, or XMLTABLE, beside private data",
			   "Its arguments could be evaluated on private rows (LATERAL).",
			   "Aggregate the private relation with dpagg's aggregates alone, or join a table.");
}

/*
 * UNION, INTERSECT and EXCEPT convert each branch's outputs to the combined column types while
 * planning, after this check: a conversion that fails on one value (numeric to double precision
 * out of range, timestamp to timestamptz) would fail for one private row.  Each branch's outputs
 * must already be of the combined types (or binary-coercible to them).
 */
static void
check_setop_types(Query *q, Node *node)
{
	if (IsA(node, SetOperationStmt))
	{
		SetOperationStmt *op = (SetOperationStmt *) node;
		Node	   *sides[2] = {op->larg, op->rarg};
		int			i;

		for (i = 0; i < 2; i++)
		{
			List	   *types = NIL;
			ListCell   *a,
					   *b;

			if (IsA(sides[i], SetOperationStmt))
			{
				types = ((SetOperationStmt *) sides[i])->colTypes;
				check_setop_types(q, sides[i]);
			}
			else if (IsA(sides[i], RangeTblRef))
			{
				RangeTblEntry *rte = rt_fetch(((RangeTblRef *) sides[i])->rtindex, q->rtable);
				ListCell   *t;

				if (rte->rtekind == RTE_SUBQUERY)
					foreach(t, rte->subquery->targetList)
						if (!lfirst_node(TargetEntry, t)->resjunk)
							types = lappend_oid(types, exprType((Node *) lfirst_node(TargetEntry, t)->expr));
			}
			forboth(a, types, b, op->colTypes)
				if (lfirst_oid(a) != lfirst_oid(b) && !IsBinaryCoercible(lfirst_oid(a), lfirst_oid(b)))
					refuse("restricted roles cannot combine branches of different column types (UNION, INTERSECT, EXCEPT) beside private data",
						   "The conversion to the combined type is added after this check and can fail on one value.",
						   "Cast each branch's outputs to the same type yourself, with casts that cannot fail.");
		}
	}
}

/*
 * LIMIT and OFFSET of a subquery beside private data: a negative value is an error, raised only
 * when some row reaches the subquery (a LATERAL one runs per private row), so even a constant
 * one would tell whether any row passes the filter.  Only non-negative constants (or none).
 */
static void
check_limit(Node *n)
{
	Node	   *v;

	if (n == NULL)
		return;
	v = eval_const_expressions(NULL, copyObject(n));
	if (IsA(v, Const) && exprType(v) == INT8OID &&
		(((Const *) v)->constisnull || DatumGetInt64(((Const *) v)->constvalue) >= 0))
		return;
	refuse("restricted roles may use only non-negative constants as LIMIT or OFFSET of a subquery beside private data",
		   "A negative or computed limit raises an error only when rows reach it.",
		   "Write the limit as a literal, or limit the outer query.");
}

/*
 * A subquery (or view, or WITH query) beside private data: a LATERAL one can refer to the private
 * row in any of its expressions, so every expression it has is checked — the join tree, the
 * outputs (ORDER BY, DISTINCT and GROUP BY refer to them), HAVING, LIMIT, OFFSET and window frame
 * offsets — and its range table, recursively (set operations' branches are subqueries in it).
 */
static void
check_source_query(Query *q)
{
	ListCell   *lc;

	if (q->rowMarks != NIL || q->hasForUpdate)
		refuse("restricted roles cannot lock rows (FOR UPDATE, FOR SHARE) in a query over private data",
			   "A lock a private row's values lead to stays on the locked row after the query.",
			   "Remove the locking clause.");
	if (q->setOperations != NULL)
		check_setop_types(q, q->setOperations);
	if (q->hasAggs || q->hasWindowFuncs || q->groupingSets != NIL || q->hasTargetSRFs)
		refuse("restricted roles cannot aggregate, use window functions or set-returning functions in a subquery beside private data",
			   "A LATERAL subquery evaluates them for each private row; an aggregate or window function is not on the allow-list of expressions.",
			   "Aggregate public data in a view or an outer query, and join the result.");
	check_jointree((Node *) q->jointree);
	foreach(lc, q->targetList)
		check_expr((Node *) lfirst_node(TargetEntry, lc)->expr, "a subquery's outputs");
	check_expr(q->havingQual, "a subquery's HAVING");
	check_limit(q->limitCount);
	check_limit(q->limitOffset);
	foreach(lc, q->windowClause)
	{
		WindowClause *w = lfirst_node(WindowClause, lc);

		check_expr(w->startOffset, "a window frame");
		check_expr(w->endOffset, "a window frame");
	}
	foreach(lc, q->rtable)
		check_rte(q, lfirst_node(RangeTblEntry, lc));
}

/*
 * The DP level's own outputs and HAVING run per released group in the order the aggregation
 * returns its groups, before the sort that puts them in key order (bound.c): a function there
 * that prints, writes or numbers rows would show a hash table's order, which depends on groups
 * the selection dropped (a third attack review: a NOTICE per group, row_number() OVER ()).
 * Built-in functions that are not volatile are allowed (arithmetic on the releases, rounding,
 * casts: at worst an error about a released value); window functions, volatile and user-defined
 * functions belong in an outer query, which sees the sorted releases.
 */
static bool
level_output_walker(Node *node, void *context)
{
	Oid			fn = InvalidOid;

	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && dpagg_aggregate_kind(((Aggref *) node)->aggfnoid) != 0)
		return false;			/* a release: its own arguments are checked apart */
	if (IsA(node, WindowFunc))
		refuse("restricted roles cannot use window functions beside dpagg's aggregates",
			   "They would number the groups in the order the aggregation returns them, before they are sorted.",
			   "Apply the window function in an outer query: SELECT ..., row_number() OVER (...) FROM (<the DP query>) s.");
	if (IsA(node, SubLink))
		refuse("restricted roles cannot use sub-selects beside dpagg's aggregates",
			   "They run per released group, in the order the aggregation returns the groups.",
			   "Move the sub-select to an outer query.");
	if (IsA(node, FuncExpr))
		fn = ((FuncExpr *) node)->funcid;
	else if (IsA(node, OpExpr) || IsA(node, DistinctExpr) || IsA(node, NullIfExpr))
	{
		set_opfuncid((OpExpr *) node);
		fn = ((OpExpr *) node)->opfuncid;
	}
	if (OidIsValid(fn) && (fn >= FirstGenbkiObjectId || func_volatile(fn) == PROVOLATILE_VOLATILE) &&
		!(func_volatile(fn) != PROVOLATILE_VOLATILE &&
		  getExtensionOfObject(ProcedureRelationId, fn) == get_extension_oid("dpagg", true)))
		refuse(psprintf("restricted roles cannot apply %s() beside dpagg's aggregates", get_func_name(fn)),
			   "Functions of your own and volatile ones run per released group, in the order the aggregation returns the groups, before they are sorted.",
			   "Apply it in an outer query: SELECT f(n) FROM (<the DP query>) s.");
	return expression_tree_walker(node, level_output_walker, context);
}

void
dpagg_restrict_check_level(Query *q)
{
	ListCell   *lc;

	/* window functions sit in the outputs (and ORDER BY, whose entries are outputs too) */
	(void) level_output_walker((Node *) q->targetList, NULL);
	(void) level_output_walker(q->havingQual, NULL);
	check_jointree((Node *) q->jointree);
	foreach(lc, q->groupClause)
		check_expr((Node *) get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc),
													q->targetList)->expr, "GROUP BY");
	foreach(lc, q->rtable)
		check_rte(q, lfirst_node(RangeTblEntry, lc));
}

void
dpagg_restrict_check_aggref(Aggref *a, int value)
{
	if (value >= 0)
		check_expr((Node *) list_nth_node(TargetEntry, a->args, value)->expr,
				   "an aggregate's argument");
	check_expr((Node *) a->aggfilter, "FILTER");
}

/* ---- whole statements ------------------------------------------------------------------------- */

static int	in_create_as = 0;	/* CREATE TABLE AS, SELECT INTO, materialized views, running */

/*
 * Settings any role may change that make the server print what happens to the rows: trace_sort
 * (sort sizes, also of groups the selection drops), debug_print_parse/rewritten/plan (the
 * planner's estimates, from the private columns' statistics), and messages below NOTICE to the
 * client.  A restricted session runs statements over private relations only without them.
 */
static void
check_settings(void)
{
	if (trace_sort || Debug_print_plan || Debug_print_parse || Debug_print_rewritten ||
		client_min_messages < NOTICE)
		refuse("restricted roles cannot read private relations with trace_sort, debug_print_* or client_min_messages below notice",
			   "These settings print what happens to the rows (sort sizes, plans with estimates from the statistics).",
			   "RESET trace_sort; RESET debug_print_plan; RESET client_min_messages;");
}

void
dpagg_restrict_check_statement(Query *parse, int unbounded_private_reads, bool reads_private)
{
	if (!reads_private || !dpagg_session_restricted())
		return;
	check_settings();
	if (unbounded_private_reads > 0)
		refuse("restricted roles may read private relations only through dpagg's aggregates",
			   "This statement reads private rows other than through dpagg's aggregates (a column in the output, another aggregate, a window function, DISTINCT, a subquery, a write, ...).",
			   "Aggregate the private relation with dpagg's aggregates, grouped by columns; post-process their results in an outer query.");
	if (parse->commandType != CMD_SELECT || in_create_as > 0 || parse->hasModifyingCTE)
		refuse("restricted roles cannot store or write the results of queries over private relations",
			   "INSERT ... SELECT, a data-modifying WITH, CREATE TABLE AS, SELECT INTO and materialized views over private relations are refused.",
			   "Run the query and keep its results on the client.");
}

/* ProcessUtility, before the statement: COPY of a private relation, and the CREATE ... AS flag. */
void
dpagg_restrict_utility_enter(Node *stmt)
{
	if (IsA(stmt, CopyStmt) && ((CopyStmt *) stmt)->relation != NULL)
		dpagg_restrict_check_copy(RangeVarGetRelid(((CopyStmt *) stmt)->relation, NoLock, true),
								  ((CopyStmt *) stmt)->is_from);
	/* EXECUTE's parameters and CALL's arguments are evaluated without a plan: literals only,
	 * and the objects a CALL names are checked like a query's (restrict_objects.c) */
	if ((IsA(stmt, ExecuteStmt) || IsA(stmt, CallStmt)) && dpagg_session_restricted())
	{
		ListCell   *lc;

		if (IsA(stmt, ExecuteStmt))
			foreach(lc, ((ExecuteStmt *) stmt)->params)
			{
				Node	   *p = (Node *) lfirst(lc);

				while (IsA(p, TypeCast))
					p = ((TypeCast *) p)->arg;
				if (!IsA(p, A_Const) && !IsA(p, ParamRef))
					refuse("restricted roles must pass literals as EXECUTE's parameters",
						   "EXECUTE evaluates its parameters without planning them, so dpagg could not check them.",
						   "Write each parameter as a literal, or compute it in a SELECT first.");
			}
		else if (((CallStmt *) stmt)->funcexpr != NULL)
			dpagg_restrict_check_expression((Node *) ((CallStmt *) stmt)->funcexpr);
	}
	if (IsA(stmt, CreateTableAsStmt) || IsA(stmt, RefreshMatViewStmt))
		in_create_as++;
}

void
dpagg_restrict_utility_leave(Node *stmt)
{
	if (IsA(stmt, CreateTableAsStmt) || IsA(stmt, RefreshMatViewStmt))
		in_create_as--;
}

/* ExecutorStart: EXPLAIN ANALYZE (and auto_explain with analyze) counts raw rows; plain EXPLAIN
 * shows the planner's estimates, which come from the private columns' statistics. */
/*
 * While a restricted session runs a statement over private relations, messages below NOTICE
 * (trace_sort's sort sizes, debug_print_plan's plans, other DEBUG and LOG output) do not go to the
 * client, even if a function changes the settings halfway through.  The server log is unchanged.
 */
static int	restricted_private_depth = 0;
static emit_log_hook_type prev_emit_log_hook = NULL;

static void
restrict_emit_log(ErrorData *edata)
{
	if (restricted_private_depth > 0 && edata->elevel < NOTICE)
		edata->output_to_client = false;
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

static void
restricted_statement_done(void *arg)
{
	if (restricted_private_depth > 0)
		restricted_private_depth--;
}

void
dpagg_restrict_track(MemoryContext query_cxt)
{
	dpagg_on_reset(query_cxt, restricted_statement_done, NULL);
	restricted_private_depth++;
}

void
dpagg_restrict_init(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = restrict_emit_log;
	dpagg_restrict_cache_init();
	dpagg_restrict_objects_init();
	dpagg_restrict_stats_init();
}

bool
dpagg_restrict_check_executor(PlannedStmt *stmt, bool explained, bool reads_private)
{
	if (!reads_private || !dpagg_session_restricted())
		return false;
	check_settings();			/* they can change between planning and running */

	if (explained)
		refuse("restricted roles cannot EXPLAIN a statement over private relations",
			   "Its row counts are computed from the raw rows, and its estimates from the private columns' statistics.",
			   "Use dp_explain to see how a query is bounded.");
	/*
	 * The planner hook checked the statement when it was planned.  A change of the restriction
	 * (the label, or a membership) drops every cached plan, so plans are made and checked again;
	 * what remains unchecked is a plan already running (an open cursor) or one kept without the
	 * plan cache, and SET ROLE to a restricted role.  One that reads private data without dpagg's
	 * per-unit aggregates is a raw read: refused.  (One that mixes them with raw reads cannot be
	 * told apart here: docs/guides/restricted-analysts.md.)
	 */
	if (in_create_as > 0)
		refuse("restricted roles cannot store or write the results of queries over private relations",
			   "CREATE TABLE AS EXECUTE of a prepared statement over private relations is refused too.",
			   "Run the query and keep its results on the client.");
	if (stmt->rowMarks != NIL)
		refuse("restricted roles cannot lock rows (FOR UPDATE, FOR SHARE) in a query over private data",
			   "A lock a private row's values lead to stays on the locked row after the query.",
			   "Remove the locking clause.");
	if ((dpagg_statement_aggregates(stmt) & DPAGG_RUNS_UNIT) == 0 || stmt->commandType != CMD_SELECT ||
		stmt->hasModifyingCTE)
		refuse("restricted roles may read private relations only through dpagg's aggregates",
			   "This plan reads private rows other than through them: it was planned before the session was restricted, or the planner dropped dpagg aggregates whose results the query does not use (SELECT count(*) FROM (<a DP query>) s).",
			   "Use the DP results in the outer query (count(s.c) rather than count(*)), or prepare the statement again.");
	/* Every expression that runs while private rows are read (restrict_plan.c). */
	dpagg_restrict_check_plan(stmt);
	return true;
}
