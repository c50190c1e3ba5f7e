/*
 * bound.c — dpagg aggregates over private relations, bounded per privacy unit (docs/guides/privacy-units.md;
 * design notes in docs/privacy_units.md).
 *
 * Longer than 1 000 lines because the rewrite of one query level is one algorithm over one
 * context (LevelContext): finding each private relation's unit through joins and subqueries, the
 * inner per-unit query, the outer query over it, the public groups and the group selection all
 * read and extend it.  Finding units (find_in_level and the join checks) is the part that could
 * stand alone, once one analysis per statement carries the relations' facts
 * (docs/architecture.md, "Next").
 *
 * The planner hook hands every query to dpagg_bound_query before it is planned (views are
 * expanded by then, so what is planned is what runs).  A query level whose dpagg aggregates read
 * a private relation is rewritten, in place, from
 *
 *     SELECT g, dp_sum(v, eps, delta, lo, hi) FROM r ... WHERE w GROUP BY g HAVING h
 *
 * into
 *
 *     SELECT g, dpagg_unit_sum(s, eps, delta, lo, hi, mech, L)
 *       FROM (SELECT g, u, sum(v) AS s,                               -- one row per unit and group
 *                    row_number() OVER (PARTITION BY u ORDER BY dpagg_random()) AS k
 *               FROM r ... WHERE w AND u IS NOT NULL GROUP BY g, u) dpagg_per_unit
 *      WHERE k <= L                                                    -- at most L groups per unit
 *      GROUP BY g
 *     HAVING h AND dpagg_unit_select(eps_s, delta_s, L, strategy)      -- private group selection
 *
 * where u is the relation's privacy-unit column and L its max_groups_contributed.  Each unit's
 * contribution to a group is aggregated first (its sum, its average, its rows) and bounded by the
 * outer aggregate (clamped to [lo, hi]; a count takes 1 per unit, or at most max_rows_per_group
 * rows); each unit keeps a uniformly random set of at most L of its groups, drawn afresh from the
 * secure generator for every execution; each group is calibrated at (eps / L, delta / L), so the
 * L groups a unit can change compose to the (eps, delta) that is charged; and a group whose keys
 * come from the data is released only if a DP test on its number of units passes
 * (selection.c), charged as one more release.  A query without GROUP BY has one group: no
 * selection, no sampling, L = 1.
 *
 * What cannot be bounded is refused with 0A000 before anything runs: the private relation read
 * more than once (a self-join, a subquery on it in WHERE), reached through something other than
 * the FROM clause or a plain subquery or view that passes the unit column through, grouping
 * sets, sublinks among the outputs, other aggregates beside dpagg's, dp_sum_vector.
 *
 * The per-unit aggregates (dpagg_unit_sum, ...) mean "this row is one unit's contribution"; only
 * this rewrite may use them.  Each Aggref it makes carries a mark in its location field, which the
 * parser never produces (it writes a position >= 0, or -1) and stored node trees cannot carry
 * (locations are read back as -1); the ExecutorStart check (private_statements.c) refuses a plan with a
 * per-unit aggregate that lacks it, e.g. one inlined from a SQL function's body.  Queries that
 * name them are also refused when they are parsed and when they are planned.
 */
#include "query/query.h"

#include <math.h>

#include "access/nbtree.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "commands/defrem.h"
#include "utils/typcache.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "dpagg_core.h"

static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;

static int	restricted_state = -1;
static bool restricted_session(void);

/* 0A000; for a restricted analyst 42501, the code of every refusal of what they may not do. */
static void
unsupported(const char *msg, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(restricted_session() ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s", msg),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s", hint)));
}

/* ---- is this range-table entry a private source? ----------------------------------------- */

/* The view an RTE_SUBQUERY was expanded from (PostgreSQL 15 keeps the view's own entry, OLD, first
 * in the expanded query's range table, for its permission check), or InvalidOid. */
static Oid
expanded_view(RangeTblEntry *rte)
{
	RangeTblEntry *old;

	if (rte->rtekind != RTE_SUBQUERY || rte->subquery == NULL || rte->subquery->rtable == NIL)
		return InvalidOid;
	old = linitial_node(RangeTblEntry, rte->subquery->rtable);
	if (old->rtekind == RTE_RELATION && old->relkind == RELKIND_VIEW && !old->inFromCl)
		return old->relid;
	return InvalidOid;
}

/* A private relation read by this entry itself: a private table (or a partition of one), or a
 * private view.  Fills *prot and *rel (the relation as named in the query). */
static bool
rte_private(RangeTblEntry *rte, DpProtection *prot, Oid *rel)
{
	Oid			relid = InvalidOid;

	if (rte->rtekind == RTE_RELATION && rte->relkind != RELKIND_VIEW)
		relid = rte->relid;
	else if (rte->rtekind == RTE_SUBQUERY)
		relid = expanded_view(rte);
	if (!OidIsValid(relid) || !dpagg_relation_protection(relid, prot, NULL))
		return false;
	*rel = relid;
	return true;
}

static bool
is_unit_aggref(Node *node)
{
	return IsA(node, Aggref) && DPAGG_KIND_IS_UNIT(dpagg_aggregate_kind(((Aggref *) node)->aggfnoid));
}

static bool
has_unit_aggregate_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (is_unit_aggref(node))
		return true;
	if (IsA(node, Query))
		return false;			/* only this level */
	return expression_tree_walker(node, has_unit_aggregate_walker, context);
}

/* A level this file has bounded already (its private reads are its own business). */
static bool
level_is_bounded(Query *q)
{
	return q->hasAggs && (has_unit_aggregate_walker((Node *) q->targetList, NULL) ||
						  has_unit_aggregate_walker(q->havingQual, NULL));
}

/* ---- counting the private reads of a query level --------------------------------------------- */

typedef struct CountContext
{
	int			n;
	Oid			rel;
} CountContext;

static bool count_walker(Node *node, CountContext *c);

static bool
count_query(Query *q, CountContext *c)
{
	ListCell   *lc;

	if (level_is_bounded(q))
		return false;
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		DpProtection p;
		Oid			rel;

		if (rte_private(rte, &p, &rel))
		{
			c->n++;
			c->rel = rel;
			/* A private view's body is the view's; its row-security policies are not. */
			(void) expression_tree_walker((Node *) rte->securityQuals, count_walker, c);
			continue;
		}
		(void) range_table_entry_walker(rte, count_walker, c, 0);
	}
	return query_tree_walker(q, count_walker, c, QTW_IGNORE_RANGE_TABLE);
}

static bool
count_walker(Node *node, CountContext *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return count_query((Query *) node, c);
	return expression_tree_walker(node, count_walker, c);
}

static int
private_reads(Node *node, Oid *rel)
{
	CountContext c = {0, InvalidOid};

	(void) count_walker(node, &c);
	if (rel)
		*rel = c.rel;
	return c.n;
}

/* ---- where is the unit column? ------------------------------------------------------------ */

typedef struct Source
{
	int			rtindex;		/* the entry of the level's range table that brings it */
	AttrNumber	attno;			/* the unit column in that entry's output */
	Oid			type;
	int32		typmod;
	Oid			collation;
	DpProtection prot;
	Oid			rel;			/* the private relation, for messages */
} Source;

static const char *no_unit_hint =
"Aggregate the private relation in the FROM clause of the query with the dpagg aggregates, directly or through views and subqueries that keep its rows as they are and output its privacy-unit column.";

/*
 * The output column of a subquery that carries the unit column of the one private relation it
 * reads.  The subquery must keep that relation's rows as they are (each output row comes from one
 * of its rows, maybe joined with other data): no aggregation, window, DISTINCT, set operation,
 * LIMIT or set-returning function, which could mix units or choose rows by other units' data.
 */
static bool find_in_level(Query *q, Source *src);

static AttrNumber
passed_through(Query *sq, Source *src)
{
	Source		inner;
	ListCell   *lc;

	if (sq->commandType != CMD_SELECT || sq->hasAggs || sq->hasWindowFuncs ||
		sq->groupClause != NIL || sq->groupingSets != NIL || sq->havingQual != NULL ||
		sq->distinctClause != NIL || sq->setOperations != NULL || sq->limitCount != NULL ||
		sq->limitOffset != NULL || sq->hasTargetSRFs || sq->hasModifyingCTE)
		unsupported("dpagg cannot bound a private relation read through this subquery or view",
					"Between the private relation and the dpagg aggregates, rows must stay one per row of the relation: no aggregation, window function, DISTINCT, UNION, LIMIT or set-returning function.",
					no_unit_hint);
	if (!find_in_level(sq, &inner))
		unsupported("dpagg cannot find the private relation in this subquery or view",
					NULL, no_unit_hint);
	*src = inner;
	foreach(lc, sq->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Node	   *e = flatten_join_alias_vars(sq, (Node *) tle->expr);

		while (e && IsA(e, RelabelType))
			e = (Node *) ((RelabelType *) e)->arg;
		if (!tle->resjunk && e && IsA(e, Var) && ((Var *) e)->varlevelsup == 0 &&
			((Var *) e)->varno == inner.rtindex && ((Var *) e)->varattno == inner.attno)
			return tle->resno;
	}
	unsupported(psprintf("the privacy unit column \"%s\" of \"%s\" is not an output of the subquery or view that reads it",
						 inner.prot.unit, get_rel_name(inner.rel)),
				NULL, no_unit_hint);
	return 0;					/* not reached */
}

/* The unit column's type, typmod and collation, from the output column that carries it. */
static void
unit_type_from(Source *src, TargetEntry *tle)
{
	src->type = exprType((Node *) tle->expr);
	src->typmod = exprTypmod((Node *) tle->expr);
	src->collation = exprCollation((Node *) tle->expr);
}

/* The source of range-table entry i of q, a private relation or view itself. */
static void
direct_source(RangeTblEntry *rte, int i, DpProtection *p, Oid rel, Source *src)
{
	memset(src, 0, sizeof(*src));
	src->rtindex = i;
	src->prot = *p;
	src->rel = rel;
	if (rte->rtekind == RTE_RELATION)
	{
		src->attno = get_attnum(rte->relid, p->unit);
		if (src->attno == InvalidAttrNumber)
			unsupported(psprintf("the privacy unit column \"%s\" of \"%s\" does not exist",
								 p->unit, get_rel_name(rte->relid)),
						NULL, "Declare the relation's protection again with dp_protect.");
		get_atttypetypmodcoll(rte->relid, src->attno, &src->type, &src->typmod,
							  &src->collation);
	}
	else
	{
		TargetEntry *tle;

		src->attno = get_attnum(rel, p->unit);
		if (src->attno == InvalidAttrNumber ||
			src->attno > list_length(rte->subquery->targetList))
			unsupported(psprintf("the privacy unit column \"%s\" of \"%s\" does not exist",
								 p->unit, get_rel_name(rel)),
						NULL, "Declare the view's protection again with dp_protect.");
		tle = list_nth_node(TargetEntry, rte->subquery->targetList, src->attno - 1);
		unit_type_from(src, tle);
	}
}

/* Find the range-table entry of q that brings its one private read; false if none does. */
static bool
find_in_level(Query *q, Source *src)
{
	int			i = 0;
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		DpProtection p;
		Oid			rel;

		i++;
		if (rte_private(rte, &p, &rel))
		{
			direct_source(rte, i, &p, rel, src);
			return true;
		}
		if (rte->rtekind == RTE_SUBQUERY && private_reads((Node *) rte->subquery, NULL) > 0)
		{
			AttrNumber	at = passed_through(rte->subquery, src);

			src->rtindex = i;
			src->attno = at;
			unit_type_from(src, list_nth_node(TargetEntry, rte->subquery->targetList, at - 1));
			return true;
		}
	}
	return false;
}

/* ---- several private relations joined on their units ------------------------------------- */

/*
 * Private relations joined on their privacy-unit columns: FROM people p JOIN visits v ON p.uid =
 * v.uid (or USING (uid), or the equality in WHERE), inner joins only.  Every row of the join then
 * belongs to one unit, the same in every relation, and is bounded per unit like the rows of one
 * relation; the strictest of the relations' bounds applies (the least L, the least row cap).
 * Each private relation must be an entry of q's range table itself (not inside a subquery), and
 * the equalities must connect them all.  The DBA declares what the unit columns mean: joining on
 * them says they identify the same people.
 */
typedef struct JoinCheck
{
	bool		outer;			/* an outer or other non-inner join */
	List	   *quals;			/* the conjuncts of the inner joins' and WHERE's conditions */
} JoinCheck;

static void
collect_inner_quals(Node *node, JoinCheck *jc)
{
	if (node == NULL)
		return;
	if (IsA(node, FromExpr))
	{
		FromExpr   *f = (FromExpr *) node;
		ListCell   *lc;

		foreach(lc, f->fromlist)
			collect_inner_quals(lfirst(lc), jc);
		jc->quals = list_concat(jc->quals, make_ands_implicit((Expr *) f->quals));
	}
	else if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;

		if (j->jointype != JOIN_INNER)
			jc->outer = true;
		collect_inner_quals(j->larg, jc);
		collect_inner_quals(j->rarg, jc);
		if (j->jointype == JOIN_INNER)
			jc->quals = list_concat(jc->quals, make_ands_implicit((Expr *) j->quals));
	}
}

static int
unit_var_source(Node *e, Source *srcs, int n)
{
	int			k;

	/* The unit columns themselves, no cast: a cast could compare them more loosely than the
	 * units are told apart (text::bpchar ignores trailing blanks). */
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0)
		return -1;
	for (k = 0; k < n; k++)
		if (((Var *) e)->varno == srcs[k].rtindex && ((Var *) e)->varattno == srcs[k].attno)
			return k;
	return -1;
}

static int
find_root(int *parent, int k)
{
	while (parent[k] != k)
		k = parent[k];
	return k;
}

static bool
find_unit_join(Query *q, int n, Source *src)
{
	Source	   *srcs = palloc0(sizeof(Source) * n);
	int		   *parent = palloc(sizeof(int) * n);
	int			found = 0,
				i = 0,
				k,
				groups;
	ListCell   *lc;
	JoinCheck	jc = {false, NIL};

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		DpProtection p;
		Oid			rel;

		i++;
		if (rte_private(rte, &p, &rel) && found < n)
			direct_source(rte, i, &p, rel, &srcs[found++]);
	}
	if (found != n)
		return false;
	collect_inner_quals((Node *) q->jointree, &jc);
	if (jc.outer)
		unsupported("private relations joined by an outer join cannot be bounded together",
					NULL, "Join private relations with an inner join on their privacy-unit columns.");
	for (k = 0; k < n; k++)
		parent[k] = k;
	foreach(lc, jc.quals)
	{
		Node	   *c = (Node *) lfirst(lc);
		OpExpr	   *op;
		int			a,
					b;

		if (!IsA(c, OpExpr) || list_length(((OpExpr *) c)->args) != 2)
			continue;
		op = (OpExpr *) c;
		a = unit_var_source(linitial(op->args), srcs, n);
		b = unit_var_source(lsecond(op->args), srcs, n);
		/* The very equality the units are grouped by: the same type, its default equality
		 * operator, the same collation. */
		if (a < 0 || b < 0 || a == b || srcs[a].type != srcs[b].type ||
			srcs[a].collation != srcs[b].collation ||
			op->opno != lookup_type_cache(srcs[a].type, TYPECACHE_EQ_OPR)->eq_opr ||
			op->inputcollid != srcs[a].collation)
			continue;
		parent[find_root(parent, a)] = find_root(parent, b);
	}
	for (groups = 0, k = 0; k < n; k++)
		if (find_root(parent, k) == k)
			groups++;
	if (groups != 1)
		return false;
	*src = srcs[0];
	for (k = 1; k < n; k++)
	{
		src->prot.max_groups = Min(src->prot.max_groups, srcs[k].prot.max_groups);
		if (srcs[k].prot.max_rows_per_group > 0 &&
			(src->prot.max_rows_per_group == 0 ||
			 srcs[k].prot.max_rows_per_group < src->prot.max_rows_per_group))
			src->prot.max_rows_per_group = srcs[k].prot.max_rows_per_group;
	}
	return true;
}

/* ---- building blocks ------------------------------------------------------------------------ */


static Expr *
marked(Expr *e)
{
	if (e == NULL)
		return e;
	switch (nodeTag(e))
	{
		case T_FuncExpr:
			((FuncExpr *) e)->location = DPAGG_BOUND_MARK;
			break;
		case T_OpExpr:
			((OpExpr *) e)->location = DPAGG_BOUND_MARK;
			break;
		case T_Aggref:
			((Aggref *) e)->location = DPAGG_BOUND_MARK;
			break;
		case T_WindowFunc:
			((WindowFunc *) e)->location = DPAGG_BOUND_MARK;
			break;
		default:
			break;
	}
	return e;
}


static SortGroupClause *
sort_group_clause(Oid type, Index ref, bool need_sort, const char *what)
{
	SortGroupClause *sgc = makeNode(SortGroupClause);
	Oid			lt,
				eq;
	bool		hashable;

	get_sort_group_operators(type, need_sort, true, false, &lt, &eq, NULL, &hashable);
	if (need_sort && !OidIsValid(lt))
		unsupported(psprintf("the %s has no ordering", what), NULL,
					"Use a privacy unit column of a type with a btree operator class (integers, text, uuid, ...).");
	sgc->tleSortGroupRef = ref;
	sgc->eqop = eq;
	sgc->sortop = lt;
	sgc->nulls_first = false;
	sgc->hashable = hashable;
	return sgc;
}

static Expr *
cast_to_float8(Expr *e)
{
	Oid			t = exprType((Node *) e);
	Node	   *c;

	if (t == FLOAT8OID || t == NUMERICOID)
		return e;
	c = coerce_to_target_type(NULL, (Node *) e, t, FLOAT8OID, -1, COERCION_EXPLICIT,
							  COERCE_IMPLICIT_CAST, -1);
	if (c == NULL)
		elog(ERROR, "dpagg: cannot cast %s to double precision", format_type_be(t));
	return marked((Expr *) c);
}

/* ---- public groups ---------------------------------------------------------------------------- */

typedef struct OnlyContext
{
	int			varno;
	bool		ok;
} OnlyContext;

static bool
only_walker(Node *node, OnlyContext *oc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 && ((Var *) node)->varno != oc->varno)
		oc->ok = false;
	if (IsA(node, SubLink) || IsA(node, Query) || IsA(node, Aggref) || IsA(node, WindowFunc))
		oc->ok = false;
	if (!oc->ok)
		return true;
	return expression_tree_walker(node, only_walker, oc);
}

/* Does the expression read only columns of range-table entry varno (and no subquery)? */
static bool
reads_only(Node *node, int varno)
{
	OnlyContext oc = {varno, true};

	(void) only_walker(node, &oc);
	return oc.ok && !contain_volatile_functions(node);
}

/*
 * Public groups: the grouping keys come from a relation that is not private, every row of which is
 * kept — FROM pub LEFT JOIN <the private relation ...> ON ... [WHERE <only pub's columns>] GROUP BY
 * <expressions of pub's columns>.  Then the set of groups is public: every key is released (an
 * empty group with the noisy answer of no units) and no group selection is needed or charged.
 * Returns pub's range-table index, or 0.
 */
static int
public_groups_source(Query *q, Source *src)
{
	JoinExpr   *j;
	RangeTblEntry *pub;
	int			pubno;
	ListCell   *c;

	if (q->groupClause == NIL || list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), JoinExpr))
		return 0;
	j = (JoinExpr *) linitial(q->jointree->fromlist);
	if (j->jointype != JOIN_LEFT || !IsA(j->larg, RangeTblRef))
		return 0;
	pubno = ((RangeTblRef *) j->larg)->rtindex;
	if (pubno == src->rtindex)
		return 0;
	pub = rt_fetch(pubno, q->rtable);
	if (pub->rtekind != RTE_RELATION && pub->rtekind != RTE_SUBQUERY && pub->rtekind != RTE_VALUES)
		return 0;
	if (private_reads((Node *) pub->subquery, NULL) > 0 || pub->securityQuals != NIL)
		return 0;
	if (pub->rtekind == RTE_RELATION)
	{
		DpProtection p;
		Oid			rel;
		List	   *all;
		ListCell   *c2;

		if (rte_private(pub, &p, &rel))
			return 0;
		/* its partitions or children are read too */
		all = find_all_inheritors(pub->relid, NoLock, NULL);
		foreach(c2, all)
			if (dpagg_relation_protection(lfirst_oid(c2), NULL, NULL))
				return 0;
	}
	if (q->jointree->quals != NULL && !reads_only(q->jointree->quals, pubno))
		return 0;
	foreach(c, q->groupClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst_node(SortGroupClause, c), q->targetList);

		if (!reads_only((Node *) tle->expr, pubno))
			return 0;
	}
	return pubno;
}

/* SELECT <the grouping expressions> FROM pub WHERE <its quals> GROUP BY 1, 2, ...: the keys. */
static Query *
public_keys(Query *q, int pubno)
{
	Query	   *k = makeNode(Query);
	ListCell   *c;
	int			resno = 0;
	Node	   *quals = copyObject(q->jointree->quals);

	k->commandType = CMD_SELECT;
	k->querySource = QSRC_ORIGINAL;
	k->canSetTag = true;
	k->rtable = list_make1(copyObject(rt_fetch(pubno, q->rtable)));
	k->cteList = copyObject(q->cteList);
	k->hasRecursive = q->hasRecursive;
	if (quals)
		ChangeVarNodes(quals, pubno, 1, 0);
	k->jointree = makeFromExpr(list_make1(makeNode(RangeTblRef)), quals);
	((RangeTblRef *) linitial(k->jointree->fromlist))->rtindex = 1;
	foreach(c, q->groupClause)
	{
		SortGroupClause *sgc = copyObject(lfirst_node(SortGroupClause, c));
		TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);
		Node	   *e = copyObject((Node *) tle->expr);
		TargetEntry *ntle;

		ChangeVarNodes(e, pubno, 1, 0);
		resno++;
		ntle = makeTargetEntry((Expr *) e, resno, psprintf("dpagg_k%d", resno), false);
		ntle->ressortgroupref = resno;
		sgc->tleSortGroupRef = resno;
		k->targetList = lappend(k->targetList, ntle);
		k->groupClause = lappend(k->groupClause, sgc);
	}
	/* The keys' query sits one level below q: outer references reach one level more. */
	IncrementVarSublevelsUp((Node *) k, 1, 1);
	return k;
}

static RangeTblEntry *
subquery_rte(Query *sq, const char *name)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	List	   *colnames = NIL;
	ListCell   *c;

	foreach(c, sq->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, c);

		if (!tle->resjunk)
			colnames = lappend(colnames, makeString(pstrdup(tle->resname)));
	}
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sq;
	rte->alias = makeAlias(name, NIL);
	rte->eref = makeAlias(name, colnames);
	rte->inFromCl = true;
	rte->lateral = false;
	return rte;
}

/* ---- group keys that look the same whoever is in the group ------------------------------------ */

/*
 * Does equality of the type mean identical values?  A group's key is printed from one of its rows:
 * for numeric (10 and 10.000), float (0 and -0), interval ('1 day' and '24 hours') or a
 * nondeterministic collation ('Bob' and 'bob'), which spelling is printed would depend on which
 * units are in the group, and would tell that one of them is.  PostgreSQL's btree "equalimage"
 * support function answers exactly this question (it allows deduplication in indexes).
 */
static bool
equal_means_identical(Oid type, Oid collation)
{
	/* the default btree operator class's family and input type, cached per type (typcache) */
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_BTREE_OPFAMILY);
	Oid			opfamily = tc->btree_opf,
				opcintype = tc->btree_opintype,
				proc;

	if (!OidIsValid(opfamily))
		return false;
	proc = get_opfamily_proc(opfamily, opcintype, opcintype, BTEQUALIMAGE_PROC);
	if (!OidIsValid(proc))
		return false;
	return DatumGetBool(OidFunctionCall1Coll(proc, collation, ObjectIdGetDatum(opcintype)));
}

/*
 * GROUP BY the privacy unit itself: every group holds one unit, so group selection, which
 * releases a group only when enough units are in it, releases (almost) nothing, and the query is
 * charged all the same.  Said at once, from the query alone (a walk-through paid for empty
 * answers): a WARNING, not a refusal, as the analyst may mean it.
 */
static void
warn_unit_group_key(Query *q, Source *src)
{
	ListCell   *lc;

	foreach(lc, q->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node	   *e = (Node *) get_sortgroupclause_expr(sgc, q->targetList);

		while (e != NULL && IsA(e, RelabelType))
			e = (Node *) ((RelabelType *) e)->arg;
		if (e != NULL && IsA(e, Var) && ((Var *) e)->varno == src->rtindex &&
			((Var *) e)->varattno == src->attno && ((Var *) e)->varlevelsup == 0)
			ereport(WARNING,
					(errmsg("GROUP BY the privacy unit \"%s\": every group holds one unit, and group selection releases almost none of them",
							src->prot.unit),
					 errdetail("A group is released only when a DP test on its number of units passes; the query is charged all the same."),
					 errhint("Group by other columns; dp_explain shows how many units a group needs.")));
	}
}

static void
check_group_keys(Query *q)
{
	ListCell   *c;

	foreach(c, q->groupClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst_node(SortGroupClause, c), q->targetList);
		Oid			type = exprType((Node *) tle->expr);

		if (!equal_means_identical(type, exprCollation((Node *) tle->expr)))
			unsupported(psprintf("grouping by a value of type %s is not available over private relations",
								 format_type_be(type)),
						"Equal values of this type (or collation) can be written differently, and the key printed for a group would show which unit's value it came from.",
						"Group by an expression whose equal values are identical: cast to text, round to an integer, or use a deterministic collation.");
	}
}

/*
 * The released groups in the order of their keys.  A hash aggregation returns its groups in the
 * order of its hash table, whose layout depends on every group it holds, released or not: an
 * attack review chose keys whose order told whether a group that the selection dropped existed;
 * with public groups, which keys matched private rows shapes the table too.  So a grouped level
 * sorts its output by its group keys, after any order the analyst gave (as tie-breakers): the
 * order then depends on the released groups alone.
 */
static void
order_by_group_keys(Query *q)
{
	ListCell   *c,
			   *d;

	foreach(c, q->groupClause)
	{
		SortGroupClause *g = lfirst_node(SortGroupClause, c);
		bool		present = false;

		foreach(d, q->sortClause)
			if (lfirst_node(SortGroupClause, d)->tleSortGroupRef == g->tleSortGroupRef)
				present = true;
		if (present)
			continue;
		if (!OidIsValid(g->sortop))
			unsupported("grouping over a private relation needs keys that can be sorted",
						"The released groups are returned in the order of their keys, so that the order cannot tell about a group that was not released.",
						"Group by a column of a type with an ordering (cast it to text, say).");
		q->sortClause = lappend(q->sortClause, copyObject(g));
	}
}

/* ---- the rewrite of one level ----------------------------------------------------------------- */

typedef struct DpCall
{
	Aggref	   *orig;			/* as written */
	int			kind;
	DpArgLayout lo;
	int			column;			/* its per-unit column in the inner query (1-based) */
	bool		captured;		/* recorded for dp_explain */
} DpCall;

typedef struct LevelContext
{
	Query	   *q;
	List	   *calls;			/* DpCall * */
	List	   *gexprs;			/* the grouping expressions, as written */
	const char *schema;			/* dpagg's */
	int			L;
	int			C;
	int			ngroup;
	int			unit_column;
	Source	   *src;
	bool		public_groups;
} LevelContext;

/* restricted_state: -1 not asked yet in this statement; 0, 1: whether the session is restricted. */

/* dp_explain: what the rewrite made (dpagg_bound_capture). */
static bool capturing = false;
static List *captured = NIL;

static void
capture(LevelContext *lc, Aggref *aggref, int kind)
{
	DpBoundRelease *r;

	if (!capturing)
		return;
	r = palloc0(sizeof(DpBoundRelease));
	r->aggref = aggref;
	r->kind = kind;
	r->relid = lc->src->rel;
	strlcpy(r->unit, lc->src->prot.unit, NAMEDATALEN);
	r->max_groups = lc->L;
	r->max_rows = lc->C;
	r->public_groups = lc->public_groups;
	captured = lappend(captured, r);
}

static bool
collect_walker(Node *node, LevelContext *lc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		int			kind;
		ListCell   *c;
		DpCall	   *call;

		if (a->agglevelsup != 0)
			return false;
		kind = dpagg_aggregate_kind(a->aggfnoid);
		if (kind == 0)
			unsupported("dpagg aggregates over a private relation cannot be combined with other aggregates in the same query level",
						"Only dpagg's aggregates are bounded per privacy unit.",
						"Compute the other aggregates in a separate query.");
		if (DPAGG_KIND_IS_ANY_MERGE(kind))
			unsupported("dpagg's merges (dpagg_merge_sum, _avg, _count, _vector, the variances', the quantiles' and those without bounds) cannot read private relations",
						"They release partial sums as given, not bounded per privacy unit.",
						"Use dp_sum, dp_avg and dp_count over the private relation.");
		if (a->aggorder != NIL || a->aggdistinct != NIL)
			unsupported("dpagg aggregates over a private relation take no ORDER BY or DISTINCT",
						NULL, "Remove it: each privacy unit's contribution is aggregated first.");
		foreach(c, lc->calls)
			if (equal(((DpCall *) lfirst(c))->orig, a))
				return false;
		if (restricted_session())
			dpagg_restrict_check_aggref(a, kind == DP_SITE_COUNT ?
										dpagg_value_position(a, kind) : 0);
		call = palloc0(sizeof(DpCall));
		call->orig = a;
		call->kind = kind;
		if (kind == DP_SITE_VECTOR)
		{
			/* dp_sum_vector(value, dimension, epsilon, delta, l2_bound [, mechanism]) */
			memset(&call->lo, -1, sizeof(call->lo));
			call->lo.nargs = list_length(a->args);
			call->lo.value = 0;
			call->lo.epsilon = 2;
			call->lo.delta = 3;
			call->lo.mechanism = call->lo.nargs > 5 ? 5 : -1;
		}
		else
			dpagg_arg_layout(a, kind, &call->lo);
		{
			int			i = 0;

			/* A parameter moves to the outer query, where a column or a subquery would mean
			 * something else or nothing: refused here as site.c would refuse it (22023). */
			foreach(c, a->args)
			{
				if (!dpagg_data_argument(a, kind, i))
					dpagg_check_param_expr((Node *) lfirst_node(TargetEntry, c)->expr,
										   dpagg_kind_name(kind), i);
				i++;
			}
		}
		lc->calls = lappend(lc->calls, call);
		return false;			/* aggregates do not nest */
	}
	if (IsA(node, SubLink) || IsA(node, Query))
		unsupported("subqueries among the outputs or in HAVING of a dpagg query over a private relation are not supported",
					NULL, "Move the subquery into an outer query that reads the dpagg query's results.");
	if (IsA(node, GroupingFunc))
		unsupported("GROUPING() is not available over private relations", NULL,
					"Group by one set of columns.");
	return expression_tree_walker(node, collect_walker, lc);
}

static Expr *
arg_of(Aggref *a, int i)
{
	return (Expr *) copyObject(list_nth_node(TargetEntry, a->args, i)->expr);
}

/* The per-unit expression of one call: its contribution in the inner query. */
static Expr *
per_unit_expr(DpCall *call, const char *lc_schema)
{
	Aggref	   *a = call->orig;
	Expr	   *value = call->lo.value >= 0 ?
		(Expr *) copyObject(list_nth_node(TargetEntry, a->args, call->lo.value)->expr) : NULL;
	Expr	   *filter = (Expr *) copyObject(a->aggfilter);
	Oid			t;

	switch (call->kind)
	{
		case DP_SITE_SUM:
		case DP_SITE_AVG:
		case DP_SITE_VARIANCE:
		case DP_SITE_PERCENTILE:
		case DP_SITE_AUTO_PERCENTILE:
		case DP_SITE_AUTO_SUM:
		case DP_SITE_AUTO_VARIANCE:
			{
				/* a variance's or a quantile's per-unit value is the unit's average in the group,
				 * as dp_avg's; without bounds too (a double precision: the forms without bounds
				 * take one) */
				bool		total = call->kind == DP_SITE_SUM ||
					(call->kind == DP_SITE_AUTO_SUM && !dpagg_auto_is_avg(a->aggfnoid));
				bool		to_float8 = call->kind != DP_SITE_SUM && call->kind != DP_SITE_AVG;
				const char *name = total ? "sum" : "avg";
				Oid			f;

				t = exprType((Node *) value);
				if (t == FLOAT4OID || t == FLOAT8OID || t == NUMERICOID)
				{
					/*
					 * sum() and avg() of floats raise an overflow error past 1.8e308, and of
					 * numerics past 1e131072: whether one unit's values add up to that would show
					 * in an error.  dpagg_fsum saturates to +-Infinity instead (the per-unit
					 * aggregate clamps it), numerics reaching it through a conversion that
					 * saturates too; the average is that sum over the count.
					 */
					Oid			f8 = FLOAT8OID;
					Oid			num = NUMERICOID;
					Expr	   *arg = t == NUMERICOID ?
						marked((Expr *) makeFuncExpr(dpagg_function_oid(lc_schema, "dpagg_numeric_float8", 1, &num),
											  FLOAT8OID, list_make1(value), InvalidOid, InvalidOid,
											  COERCE_EXPLICIT_CALL)) :
						cast_to_float8(value);
					Expr	   *sum = (Expr *) dpagg_make_aggref(dpagg_function_oid(lc_schema, "dpagg_fsum", 1, &f8),
														   list_make1(arg), false, filter, DPAGG_BOUND_MARK);
					Expr	   *n;

					if (total)
						return sum;
					t = ANYOID;
					n = cast_to_float8((Expr *) dpagg_make_aggref(dpagg_function_oid("pg_catalog", "count", 1, &t),
															list_make1(copyObject(value)), false,
															(Expr *) copyObject(filter), DPAGG_BOUND_MARK));
					/* dpagg_fdiv, not float8div: the latter raises an underflow error when the
					 * sum is a subnormal and the count 2 or more, and whether it does would tell
					 * one unit's values apart (an attack review found it); dpagg_fdiv rounds to 0 */
					{
						Oid			div_types[2] = {FLOAT8OID, FLOAT8OID};

						return marked((Expr *) makeFuncExpr(dpagg_function_oid(lc_schema, "dpagg_fdiv", 2, div_types),
															FLOAT8OID, list_make2(sum, n), InvalidOid,
															InvalidOid, COERCE_EXPLICIT_CALL));
					}
				}
				f = dpagg_function_oid("pg_catalog", name, 1, &t);
				{
					Expr	   *r = cast_to_float8((Expr *) dpagg_make_aggref(f, list_make1(value), false, filter,
																		  DPAGG_BOUND_MARK));
					Oid			num = NUMERICOID;

					/* avg() of an integer type is a numeric: the variances' and quantiles'
					 * per-unit forms take a double precision (dp_sum's and dp_avg's have a
					 * numeric form too); an average of integers is far inside its range */
					if (to_float8 && exprType((Node *) r) == NUMERICOID)
						r = marked((Expr *) makeFuncExpr(dpagg_function_oid(lc_schema, "dpagg_numeric_float8", 1, &num),
														 FLOAT8OID, list_make1(r), InvalidOid, InvalidOid,
														 COERCE_EXPLICIT_CALL));
					return r;
				}
			}
		case DP_SITE_VECTOR:
			{
				/* The unit's vector sum in the group (the first `dimension` coordinates). */
				Oid			types[2] = {FLOAT8ARRAYOID, INT4OID};

				return (Expr *) dpagg_make_aggref(dpagg_function_oid(lc_schema, "dpagg_vadd", 2, types),
											list_make2(value, arg_of(a, 1)), false, filter, DPAGG_BOUND_MARK);
			}
		case DP_SITE_COUNT:
			if (value != NULL)
			{
				t = ANYOID;
				return (Expr *) dpagg_make_aggref(dpagg_function_oid("pg_catalog", "count", 1, &t),
											list_make1(value), false, filter, DPAGG_BOUND_MARK);
			}
			return (Expr *) dpagg_make_aggref(dpagg_function_oid("pg_catalog", "count", 0, NULL), NIL, true,
										filter, DPAGG_BOUND_MARK);
		default:
			elog(ERROR, "dpagg: unexpected aggregate kind %d", call->kind);
	}
	return NULL;
}


static Expr *
int4_const(int v)
{
	return (Expr *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(v), false, true);
}

/* The unit's name, a constant argument of the per-unit aggregates (the ledger shows it). */
static Expr *
unit_name(LevelContext *lc)
{
	return (Expr *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
							  CStringGetTextDatum(lc->src->prot.unit), false, false);
}

/* The outer, per-unit aggregate that replaces one call. */
static Aggref *
bounded_call(DpCall *call, LevelContext *lc, Expr *value)
{
	Aggref	   *a = call->orig;
	DpArgLayout *lo = &call->lo;
	Expr	   *mech = lo->mechanism >= 0 ? arg_of(a, lo->mechanism)
		: (Expr *) makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID);
	List	   *args;
	const char *name;
	Oid			types[10];
	ListCell   *c;
	int			n = 0;

	/* The per-unit forms take a NULL mechanism for an omitted one: one written NULL is refused
	 * here, as the call over the rows refuses it (a parameter's NULL is still the default). */
	if (IsA(mech, Const) && ((Const *) mech)->constisnull && lo->mechanism >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mechanism of %s must not be NULL", get_func_name(a->aggfnoid)),
				 errhint("Name a mechanism listed by dp_mechanisms(), or omit the argument to use dpagg.default_mechanism.")));
	if (call->kind == DP_SITE_VECTOR)
	{
		name = "dpagg_unit_vsum";
		args = list_make5(value, arg_of(a, 1), arg_of(a, 2), arg_of(a, 3), arg_of(a, 4));
		args = lappend(args, mech);
		args = lappend(args, int4_const(lc->L));
		args = lappend(args, unit_name(lc));
	}
	else if (call->kind == DP_SITE_AUTO_SUM || call->kind == DP_SITE_AUTO_VARIANCE)
	{
		/* without bounds: the per-unit form finds them from the units' values (auto_bounds.c) */
		name = call->kind == DP_SITE_AUTO_VARIANCE
			? psprintf("dpagg_unit_auto_%s", dpagg_auto_variance_form_name(a->aggfnoid) + strlen("dp_"))
			: dpagg_auto_is_avg(a->aggfnoid) ? "dpagg_unit_auto_avg" : "dpagg_unit_auto_sum";
		args = list_make5(value, arg_of(a, lo->epsilon), arg_of(a, lo->delta), int4_const(lc->L),
						  unit_name(lc));
	}
	else if (call->kind == DP_SITE_COUNT)
	{
		name = "dpagg_unit_count";
		args = list_make5(value, arg_of(a, lo->epsilon), arg_of(a, lo->delta), mech,
						  int4_const(lc->L));
		args = lappend(args, int4_const(lc->C));
		args = lappend(args, unit_name(lc));
	}
	else
	{
		Expr	   *lower,
				   *upper;

		name = call->kind == DP_SITE_SUM ? "dpagg_unit_sum"
			: call->kind == DP_SITE_AVG ? "dpagg_unit_avg"
			: DPAGG_KIND_IS_PERCENTILE(call->kind) ? psprintf("dpagg_unit_%s", get_func_name(a->aggfnoid) + strlen("dp_"))
			: psprintf("dpagg_unit_%s", dpagg_variance_form_name(a->aggfnoid) + strlen("dp_"));
		if (lo->sensitivity >= 0)
		{
			upper = arg_of(a, lo->sensitivity);
			lower = (Expr *) makeFuncExpr(F_FLOAT8UM, FLOAT8OID, list_make1(copyObject(upper)),
										  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
		}
		else if (lo->lower >= 0)
		{
			lower = arg_of(a, lo->lower);
			upper = arg_of(a, lo->upper);
		}
		else
		{
			/* a quantile without bounds: its per-unit form finds the range from the units'
			 * values (percentile.c; docs/automatic_bounds.md, "Quantiles") */
			lower = (Expr *) makeNullConst(FLOAT8OID, -1, InvalidOid);
			upper = (Expr *) makeNullConst(FLOAT8OID, -1, InvalidOid);
		}
		args = list_make5(value, arg_of(a, lo->epsilon), arg_of(a, lo->delta), lower, upper);
		if (lo->quantile >= 0)
			args = list_insert_nth(args, 1, arg_of(a, lo->quantile));	/* p or the ps */
		args = lappend(args, mech);
		args = lappend(args, int4_const(lc->L));
		args = lappend(args, unit_name(lc));
	}
	/* A report form (dp_sum_report, ...) becomes the per-unit report form of its kind. */
	if (dpagg_aggregate_is_report(a->aggfnoid))
		name = psprintf("%s_report", name);
	foreach(c, args)
		types[n++] = exprType((Node *) lfirst(c));
	{
		Aggref	   *made = dpagg_make_aggref(dpagg_function_oid(lc->schema, name, n, types), args, false, NULL,
									   DPAGG_BOUND_MARK);

		if (!call->captured)
		{
			call->captured = true;
			capture(lc, made, dpagg_aggregate_kind(made->aggfnoid));
		}
		return made;
	}
}

typedef struct OuterContext
{
	LevelContext *lc;
	List	   *inner_tlist;
	int			inner_varno;	/* the inner query's entry in the outer range table */
	int			keys_varno;		/* public groups: the keys' entry (their columns are the groups) */
} OuterContext;

static Var *
inner_var(OuterContext *oc, int column)
{
	TargetEntry *tle = list_nth_node(TargetEntry, oc->inner_tlist, column - 1);

	return makeVar(oc->inner_varno, column, exprType((Node *) tle->expr),
				   exprTypmod((Node *) tle->expr), exprCollation((Node *) tle->expr), 0);
}

/* The Var of grouping column i in the outer query. */
static Var *
group_var(OuterContext *oc, int i)
{
	Var		   *v = inner_var(oc, i);

	if (oc->keys_varno > 0)
		v->varno = oc->keys_varno;
	return v;
}

/* The outer query's expressions: grouping expressions become the inner query's columns, dpagg
 * calls the per-unit aggregates over them. */
static Node *
outer_mutator(Node *node, OuterContext *oc)
{
	ListCell   *c;
	int			i;

	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0)
	{
		foreach(c, oc->lc->calls)
		{
			DpCall	   *call = (DpCall *) lfirst(c);

			if (equal(call->orig, node))
				return (Node *) bounded_call(call, oc->lc, (Expr *) inner_var(oc, call->column));
		}
		elog(ERROR, "dpagg: an aggregate was not collected");
	}
	i = 0;
	foreach(c, oc->lc->gexprs)
	{
		i++;
		if (equal(lfirst(c), node))
			return (Node *) group_var(oc, i);
	}
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
		unsupported("a column of a private relation's query is used outside GROUP BY and the dpagg aggregates",
					"Over a private relation, each output must be a grouping expression, a dpagg aggregate, or an expression of those.",
					"Add the column to GROUP BY.");
	return expression_tree_mutator(node, outer_mutator, oc);
}

Query *
dpagg_grouped_inner(Query *q, List **gexprs, List **tlist, List **group)
{
	Query	   *inner = makeNode(Query);
	ListCell   *c;
	int			resno = 0;

	inner->commandType = CMD_SELECT;
	inner->querySource = QSRC_ORIGINAL;
	inner->canSetTag = true;
	inner->rtable = q->rtable;
	inner->jointree = q->jointree;
	inner->cteList = q->cteList;
	inner->hasRecursive = q->hasRecursive;
	inner->hasSubLinks = q->hasSubLinks;
	inner->hasAggs = true;
	foreach(c, q->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, c);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);
		TargetEntry *ntle;
		SortGroupClause *nsgc = copyObject(sgc);

		*gexprs = lappend(*gexprs, copyObject(tle->expr));
		resno++;
		ntle = makeTargetEntry(copyObject(tle->expr), resno, psprintf("dpagg_g%d", resno), false);
		ntle->ressortgroupref = resno;
		nsgc->tleSortGroupRef = resno;
		*tlist = lappend(*tlist, ntle);
		*group = lappend(*group, nsgc);
	}
	return inner;
}

static void
rewrite_level(Query *q, Source *src)
{
	LevelContext lc;
	OuterContext oc;
	Query	   *inner;
	List	   *tlist = NIL;
	List	   *inner_group = NIL;
	List	   *colnames = NIL;
	ListCell   *c;
	int			resno = 0;
	Var		   *unit;
	NullTest   *nt;
	RangeTblEntry *rte;
	Node	   *quals = NULL;
	Node	   *having;
	bool		grouped = q->groupClause != NIL;
	int			pubno;
	Query	   *keys = NULL;
	int			inner_varno = 1;

	if (q->commandType != CMD_SELECT)
		unsupported("dpagg aggregates over a private relation must be in a SELECT", NULL,
					"Write the dpagg query as a SELECT (it may be a subquery).");
	if (q->groupingSets != NIL)
		unsupported("GROUPING SETS, ROLLUP and CUBE are not available over private relations yet",
					NULL, "Run one query per grouping.");
	if (q->rowMarks != NIL)
		unsupported("FOR UPDATE and FOR SHARE are not available with dpagg aggregates", NULL,
					"Remove the locking clause.");
	if (q->hasModifyingCTE)
		unsupported("data-modifying WITH queries are not available with dpagg aggregates over private relations",
					NULL, "Run the modification separately.");

	/* A restricted analyst's expressions over private rows: the allow-list (restrict.c). */
	if (restricted_session())
		dpagg_restrict_check_level(q);
	memset(&lc, 0, sizeof(lc));
	lc.q = q;
	lc.L = grouped ? src->prot.max_groups : 1;
	lc.C = src->prot.max_rows_per_group;
	(void) collect_walker((Node *) q->targetList, &lc);
	(void) collect_walker(q->havingQual, &lc);
	if (lc.calls == NIL)
		return;
	lc.schema = get_namespace_name(get_func_namespace(((DpCall *) linitial(lc.calls))->orig->aggfnoid));
	lc.src = src;
	pubno = public_groups_source(q, src);
	lc.public_groups = pubno > 0;
	if (pubno == 0)
		check_group_keys(q);	/* public keys are printed from the public relation */
	if (pubno == 0 && grouped)
		warn_unit_group_key(q, src);
	if (pubno > 0)
	{
		keys = public_keys(q, pubno);
		inner_varno = 2;		/* keys LEFT JOIN inner */
	}

	/* The inner query: one row per group and unit. */
	inner = dpagg_grouped_inner(q, &lc.gexprs, &tlist, &inner_group);
	resno = list_length(tlist);
	lc.ngroup = resno;
	unit = makeVar(src->rtindex, src->attno, src->type, src->typmod, src->collation, 0);
	{
		TargetEntry *ntle = makeTargetEntry((Expr *) copyObject(unit), ++resno,
											pstrdup("dpagg_unit"), false);

		ntle->ressortgroupref = resno;
		tlist = lappend(tlist, ntle);
		inner_group = lappend(inner_group,
							  sort_group_clause(src->type, resno, grouped, "privacy unit column"));
		lc.unit_column = resno;
	}
	foreach(c, lc.calls)
	{
		DpCall	   *call = (DpCall *) lfirst(c);

		call->column = ++resno;
		tlist = lappend(tlist, makeTargetEntry(per_unit_expr(call, lc.schema), call->column,
											   psprintf("dpagg_c%d", resno), false));
	}
	if (grouped)
	{
		/* row_number() OVER (PARTITION BY unit ORDER BY dpagg_random()): the rank of each of a
		 * unit's groups in a fresh random order; the outer query keeps ranks 1..L. */
		WindowFunc *wf = makeNode(WindowFunc);
		WindowClause *wc = makeNode(WindowClause);
		TargetEntry *order;
		Oid			random_fn = dpagg_function_oid(lc.schema, "dpagg_random", 0, NULL);
		int			rank_column = ++resno;

		wf->winfnoid = F_ROW_NUMBER;
		wf->wintype = INT8OID;
		wf->winref = 1;
		wf->location = DPAGG_BOUND_MARK;
		tlist = lappend(tlist, makeTargetEntry((Expr *) wf, rank_column, pstrdup("dpagg_rank"), false));
		resno++;
		order = makeTargetEntry(marked((Expr *) makeFuncExpr(random_fn, FLOAT8OID, NIL, InvalidOid,
															 InvalidOid, COERCE_EXPLICIT_CALL)),
								resno, pstrdup("dpagg_order"), true);
		order->ressortgroupref = resno;
		tlist = lappend(tlist, order);
		wc->partitionClause = list_make1(sort_group_clause(src->type, lc.unit_column, true,
														   "privacy unit column"));
		wc->orderClause = list_make1(sort_group_clause(FLOAT8OID, resno, true, "order"));
		wc->frameOptions = FRAMEOPTION_DEFAULTS;
		wc->winref = 1;
		inner->windowClause = list_make1(wc);
		inner->hasWindowFuncs = true;
		/* The outer query keeps each unit's first L groups. */
		quals = (Node *) marked(make_opclause(LookupOperName(NULL, list_make2(makeString("pg_catalog"),
																	   makeString("<=")),
													  INT8OID, INT8OID, false, -1),
									   BOOLOID, false,
									   (Expr *) makeVar(inner_varno, rank_column, INT8OID, -1, InvalidOid, 0),
									   (Expr *) makeConst(INT8OID, -1, InvalidOid, 8,
														  Int64GetDatum(lc.L), false,
														  FLOAT8PASSBYVAL),
									   InvalidOid, InvalidOid));
	}
	inner->targetList = tlist;
	inner->groupClause = inner_group;
	/* Rows without a unit belong to nobody the query could protect: they are not released. */
	nt = makeNode(NullTest);
	nt->arg = (Expr *) unit;
	nt->nulltesttype = IS_NOT_NULL;
	nt->argisrow = false;
	nt->location = -1;
	inner->jointree = q->jointree;
	inner->jointree->quals = make_and_qual(inner->jointree->quals, (Node *) nt);
	/* The inner query sits one level deeper than q did: outer references reach one level more. */
	IncrementVarSublevelsUp((Node *) inner, 1, 1);

	/* The outer query reads the inner one. */
	foreach(c, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, c);

		if (!tle->resjunk)
			colnames = lappend(colnames, makeString(pstrdup(tle->resname)));
	}
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = inner;
	rte->alias = makeAlias("dpagg_per_unit", NIL);
	rte->eref = makeAlias("dpagg_per_unit", colnames);
	rte->inFromCl = true;
	rte->lateral = false;

	oc.lc = &lc;
	oc.inner_tlist = tlist;
	oc.inner_varno = inner_varno;
	oc.keys_varno = keys ? 1 : 0;
	{
		List	   *outer_tlist = NIL;

		foreach(c, q->targetList)
		{
			TargetEntry *tle = flatCopyTargetEntry(lfirst_node(TargetEntry, c));

			tle->expr = (Expr *) outer_mutator((Node *) tle->expr, &oc);
			tle->resorigtbl = InvalidOid;
			tle->resorigcol = 0;
			outer_tlist = lappend(outer_tlist, tle);
		}
		q->targetList = outer_tlist;
	}
	having = outer_mutator(q->havingQual, &oc);
	if (grouped && keys == NULL)
	{
		/* Private group selection: a group is released only if a DP test on its units passes. */
		DpCall	   *first = (DpCall *) linitial(lc.calls);
		/*
		 * The first aggregate's (epsilon, delta), and no strategy: dpagg.selection_epsilon,
		 * _delta and _strategy are read when the statement starts (dpagg_selection_settings), as
		 * dpagg.default_mechanism is, so that a cached plan follows a later SET.
		 */
		Expr	   *eps = arg_of(first->orig, first->lo.epsilon);
		Expr	   *del = arg_of(first->orig, first->lo.delta);
		Expr	   *strategy = (Expr *) makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID);
		List	   *args = list_make5(eps, del, int4_const(lc.L), strategy, unit_name(&lc));
		Oid			types[5] = {FLOAT8OID, FLOAT8OID, INT4OID, TEXTOID, TEXTOID};
		Aggref	   *sel = dpagg_make_aggref(dpagg_function_oid(lc.schema, "dpagg_unit_select", 5, types),
									  args, false, NULL, DPAGG_BOUND_MARK);

		/*
		 * The selection decides first, and the analyst's HAVING sees released groups only:
		 * CASE WHEN selected THEN <HAVING> ELSE false END.  (As separate AND-ed clauses, the
		 * planner would move those without aggregates into WHERE, below the aggregation, where
		 * they would run on every unit's row of groups the selection drops: an error there
		 * would tell that such a group exists.)
		 */
		if (having == NULL)
			having = (Node *) sel;
		else
		{
			CaseExpr   *ce = makeNode(CaseExpr);
			CaseWhen   *cw = makeNode(CaseWhen);

			cw->expr = (Expr *) sel;
			cw->result = (Expr *) having;
			cw->location = -1;
			ce->casetype = BOOLOID;
			ce->casecollid = InvalidOid;
			ce->args = list_make1(cw);
			ce->defresult = (Expr *) makeBoolConst(false, false);
			ce->location = -1;
			having = (Node *) ce;
		}
		capture(&lc, sel, DP_SITE_SELECT);
	}
	q->havingQual = having;
	if (grouped)
		order_by_group_keys(q); /* public groups too: which keys matched rows shapes a hash table */
	if (keys == NULL)
	{
		q->rtable = list_make1(rte);
		q->jointree = makeFromExpr(list_make1(makeNode(RangeTblRef)), quals);
		((RangeTblRef *) linitial(q->jointree->fromlist))->rtindex = 1;
	}
	else
	{
		/*
		 * Public groups: keys LEFT JOIN inner ON keys.g = inner.g AND inner.rank <= L.  Every key
		 * has a row; a key no unit kept has only the NULL-extended one, which the per-unit
		 * aggregates skip (the noisy answer of an empty group).  (A NULL key matches nothing: it
		 * is released as empty.)
		 */
		RangeTblEntry *krte = subquery_rte(keys, "dpagg_groups");
		RangeTblEntry *jrte = makeNode(RangeTblEntry);
		JoinExpr   *j = makeNode(JoinExpr);
		RangeTblRef *l = makeNode(RangeTblRef);
		RangeTblRef *r = makeNode(RangeTblRef);
		List	   *cols = NIL;
		Node	   *on = quals;
		int			i = 0;

		foreach(c, q->groupClause)
		{
			SortGroupClause *sgc = lfirst_node(SortGroupClause, c);
			Var		   *kv = group_var(&oc, ++i);
			Var		   *iv = inner_var(&oc, i);

			on = make_and_qual((Node *) make_opclause(sgc->eqop, BOOLOID, false, (Expr *) kv,
													  (Expr *) iv, InvalidOid, kv->varcollid),
							   on);
		}
		jrte->rtekind = RTE_JOIN;
		jrte->jointype = JOIN_LEFT;
		for (i = 1; i <= list_length(krte->eref->colnames); i++)
		{
			jrte->joinaliasvars = lappend(jrte->joinaliasvars, group_var(&oc, i));
			jrte->joinleftcols = lappend_int(jrte->joinleftcols, i);
		}
		for (i = 1; i <= list_length(rte->eref->colnames); i++)
		{
			jrte->joinaliasvars = lappend(jrte->joinaliasvars, inner_var(&oc, i));
			jrte->joinrightcols = lappend_int(jrte->joinrightcols, i);
		}
		cols = list_concat(list_copy(krte->eref->colnames), rte->eref->colnames);
		jrte->eref = makeAlias("dpagg_public_groups", cols);
		jrte->inFromCl = true;
		l->rtindex = 1;
		r->rtindex = 2;
		j->jointype = JOIN_LEFT;
		j->larg = (Node *) l;
		j->rarg = (Node *) r;
		j->quals = on;
		j->rtindex = 3;
		q->rtable = list_make3(krte, rte, jrte);
		q->jointree = makeFromExpr(list_make1(j), NULL);
	}
	q->cteList = NIL;
	q->hasRecursive = false;
	q->hasSubLinks = false;
	q->hasAggs = true;

	/*
	 * An optimisation fence: an outer query's WHERE is not pushed into this level (OFFSET 0 makes
	 * PostgreSQL leave a subquery's quals where they are), so post-processing runs on released
	 * groups only, never on the rows of groups the selection drops.
	 */
	if (q->limitOffset == NULL && q->limitCount == NULL)
		q->limitOffset = (Node *) makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(0), false,
											FLOAT8PASSBYVAL);
}


/* ---- the walk over a query ------------------------------------------------------------------ */

static bool
has_dpagg_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0 &&
		dpagg_is_own_aggregate(((Aggref *) node)->aggfnoid))
		return true;
	if (IsA(node, Query))
		return false;
	return expression_tree_walker(node, has_dpagg_walker, context);
}

/* Does this query level (its outputs or HAVING) call one of dpagg's aggregates? */
bool
dpagg_level_has_own_aggregate(Query *q)
{
	return has_dpagg_walker((Node *) q->targetList, NULL) || has_dpagg_walker(q->havingQual, NULL);
}

static void bound_level(Query *q);

static bool
bound_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		(void) query_tree_walker(q, bound_walker, context, 0);
		bound_level(q);
		return false;
	}
	return expression_tree_walker(node, bound_walker, context);
}

static void
bound_level(Query *q)
{
	Oid			rel;
	int			n;
	Source		src;

	if (!q->hasAggs || level_is_bounded(q))
		return;
	if (!dpagg_level_has_own_aggregate(q))
		return;
	n = private_reads((Node *) q, &rel);
	if (n == 0)
		return;
	if (n > 1)
	{
		if (!find_unit_join(q, n, &src))
			unsupported("dpagg cannot bound a query that reads private relations more than once",
						"Each privacy unit's rows must reach the dpagg aggregates through one reading of each private relation, and private relations must be joined on their privacy-unit columns.",
						"Read each private relation once, joined with the others on their privacy-unit columns (or only with relations that are not private).");
	}
	else if (!find_in_level(q, &src))
		unsupported(psprintf("dpagg cannot bound the private relation \"%s\" where this query reads it",
							 get_rel_name(rel)),
					"A private relation read in a WHERE subquery, a WITH query or a function cannot be bounded per unit.",
					no_unit_hint);
	rewrite_level(q, &src);
}

void
dpagg_bound_query(Query *parse)
{
	restricted_state = -1;
	(void) bound_walker((Node *) parse, NULL);
}

int
dpagg_unbounded_private_reads(Query *parse)
{
	return private_reads((Node *) parse, NULL);
}

/* Is the session restricted (restrict.c)?  Asked once per statement, when it reads private data. */
static bool
restricted_session(void)
{
	if (restricted_state < 0)
		restricted_state = dpagg_session_restricted() ? 1 : 0;
	return restricted_state == 1;
}

/* Rewrite (as the planner hook would) and return what was made: a list of DpBoundRelease. */
List *
dpagg_bound_capture(Query *parse)
{
	List	   *out;

	captured = NIL;
	capturing = true;
	PG_TRY();
	{
		dpagg_refuse_unit_aggregates(parse);
		dpagg_bound_query(parse);
	}
	PG_FINALLY();
	{
		capturing = false;
	}
	PG_END_TRY();
	out = captured;
	captured = NIL;
	return out;
}

/* ---- what the planner added -------------------------------------------------------------------- */

/*
 * The planner inlines SQL functions after the rewrite (a set-returning function in FROM, a
 * BEGIN ATOMIC body), so a query it bounded can end up reading a private relation a second time,
 * where the rewrite could not see it.  Every private relation a plan reads is an entry of its
 * flat range table, and every entry of the query handed to the planner is one too (the planner
 * keeps them all, for the permission checks); entries the planner adds for the partitions or
 * children of a table it expands are listed in appendRelations.  So a plan with dpagg aggregates
 * may have no more private entries, children aside, than its query had.
 */
static bool
count_entries_walker(Node *node, int *n)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, count_entries_walker, n, QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION && dpagg_relation_protection(rte->relid, NULL, NULL))
			(*n)++;
		return false;
	}
	return expression_tree_walker(node, count_entries_walker, n);
}

int
dpagg_private_entries_of_query(Query *parse)
{
	int			n = 0;

	(void) count_entries_walker((Node *) parse, &n);
	return n;
}

void
dpagg_check_planned_reads(PlannedStmt *stmt, int entries_before)
{
	Bitmapset  *children = NULL;
	ListCell   *lc;
	int			i = 0,
				n = 0;

	/* Children of a private parent were counted as their parent; a private child of a parent that
	 * is not private (which labels and ALTER TABLE refuse to make) counts as a read of its own. */
	foreach(lc, stmt->appendRelations)
	{
		AppendRelInfo *ai = lfirst_node(AppendRelInfo, lc);
		RangeTblEntry *parent = rt_fetch(ai->parent_relid, stmt->rtable);

		if (parent->rtekind != RTE_RELATION ||
			dpagg_relation_protection(parent->relid, NULL, NULL))
			children = bms_add_member(children, (int) ai->child_relid);
	}
	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		i++;
		if (rte->rtekind == RTE_RELATION && !bms_is_member(i, children) &&
			dpagg_relation_protection(rte->relid, NULL, NULL))
			n++;
	}
	if (n > entries_before && dpagg_statement_aggregates(stmt) != 0)
		unsupported("dpagg cannot bound a private relation read by a function inlined into the query",
					"PostgreSQL inlines SQL functions after dpagg has bounded the query, so their reads of private relations are not bounded per unit.",
					"Read the private relation in the query itself, not through a SQL function.");
}

/* ---- refusing the per-unit aggregates where the analyst wrote them ------------------------- */

static bool
refuse_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (is_unit_aggref(node) && dpagg_citus_tagged((Aggref *) node))
		dpagg_citus_refuse_units();	/* a Citus subplan of a level that citus.c tagged */
	if (is_unit_aggref(node) ||
		(IsA(node, WindowFunc) &&
		 DPAGG_KIND_IS_UNIT(dpagg_aggregate_kind(((WindowFunc *) node)->winfnoid))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg's per-unit aggregates cannot be called directly"),
				 errhint("Use dp_sum, dp_avg, dp_count, the quantiles and the variances: over a private relation they are bounded per privacy unit.")));
	if ((IsA(node, Aggref) && dpagg_aggregate_is_inline_sum(((Aggref *) node)->aggfnoid)) ||
		(IsA(node, WindowFunc) && dpagg_aggregate_is_inline_sum(((WindowFunc *) node)->winfnoid)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg_sum_inline cannot be called directly"),
				 errhint("Use dp_sum: dpagg plans it as dpagg_sum_inline where that is faster.")));
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, refuse_walker, context, 0);
	return expression_tree_walker(node, refuse_walker, context);
}

void
dpagg_refuse_unit_aggregates(Query *parse)
{
	(void) refuse_walker((Node *) parse, NULL);
}

static void
post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	dpagg_refuse_unit_aggregates(query);
}

/* ---- set-up ------------------------------------------------------------------------------------ */

void
dpagg_bound_init(void)
{
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = post_parse_analyze;
}

/* dpagg_random(): uniform on [0, 1) with 53 bits from the secure generator (the order in which a
 * unit keeps its groups; setseed() does not reach it). */
PG_FUNCTION_INFO_V1(dpagg_random);
Datum
dpagg_random(PG_FUNCTION_ARGS)
{
	/*
	 * Drawn 256 at a time from the secure pool (one call into the core per 256 rows), each value
	 * erased as it is used.  The buffer belongs to the process that filled it: a process with
	 * another MyProcPid (PostgreSQL sets it after every fork) discards it.
	 */
	static double buf[256];
	static int	pos = lengthof(buf);
	static int	owner = 0;
	double		u;

	if (pos >= (int) lengthof(buf) || owner != MyProcPid)
	{
		dpagg_error err;

		if (dpagg_secure_uniforms(buf, lengthof(buf), &err) != DPAGG_OK)
			dpagg_report(&err);
		pos = 0;
		owner = MyProcPid;
	}
	u = buf[pos];
	buf[pos++] = 0;
	PG_RETURN_FLOAT8(u);
}

/* The refusal of a query over a private relation that the Citus split cannot release (a level
 * it tagged whose per-unit rows would reach a worker; citus/citus.c refuses the same shapes). */
void
dpagg_citus_refuse_units(void)
{
	ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					errmsg("this query over a private relation cannot be released on Citus"),
					errdetail(DPAGG_CITUS_SPLIT_DETAIL),
					errhint("On Citus, a query over a private relation must be the outermost query (not a subquery), its privacy unit must be the distribution column and not one of its GROUP BY keys, and it may not be read by a scrollable cursor.")));
}

/* numeric to double precision, +-Infinity (not an error) beyond its range. */
PG_FUNCTION_INFO_V1(dpagg_numeric_float8);
Datum
dpagg_numeric_float8(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(numeric_float8_no_overflow, PG_GETARG_DATUM(0));
}

/* a / b in IEEE arithmetic, never an error: an underflow is 0, an overflow +-Infinity; NULL for
 * b = 0 (a unit's average: its sum over its count of values). */
PG_FUNCTION_INFO_V1(dpagg_fdiv);
Datum
dpagg_fdiv(PG_FUNCTION_ARGS)
{
	double		b = PG_GETARG_FLOAT8(1);

	if (b == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(PG_GETARG_FLOAT8(0) / b);
}

/* dpagg_fsum's transition and combine: a + b, +-Infinity past the largest double, no error. */
PG_FUNCTION_INFO_V1(dpagg_fsum_trans);
Datum
dpagg_fsum_trans(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(PG_GETARG_FLOAT8(0) + PG_GETARG_FLOAT8(1));
}
