/*
 * inline_sum.c — dp_sum planned with its state in the group's hash entry.
 *
 * Why.  dp_sum's state (aggregates.c) is a 32-byte dpagg_state, passed by reference: in a hashed
 * aggregation each group's entry points to it, so every row follows one more pointer to a
 * random place, and every group allocates and copies one more chunk.  Native sum(float8) keeps its
 * sum in the entry.  At a million groups that pointer was the largest cost of dp_sum over sum
 * (docs/benchmarks.md).  dpagg_sum_inline (aggregates.c) has the same transition, parameters,
 * charge and release, with a bigint state: the exact sum inline while it fits in 62 bits (every
 * group of up to 2^9 rows at the bound, so nearly every group of a GROUP BY with many groups), a
 * pointer to a full state past that.
 *
 * Where.  A pointer must never leave the process, nor the memory, it was made in.  A by-value
 * state leaves its Agg node only in a split aggregation: a partial Agg hands its states up, through
 * a Gather to other processes or a Sort that outlives the batch that made them.  So this file puts
 * dpagg_sum_inline in place of dp_sum only in finished plans, and only in Agg nodes that both
 * accumulate and finalize (AGGSPLIT_SIMPLE), after every check of the plan (hooks.c).  A plan
 * with partial aggregation keeps dp_sum there.  Two more guards make it hold whoever writes the
 * aggregate: it has no combine function (the planner cannot split it), and its transition refuses
 * a split Agg on the first row of every group (aggregates.c).
 *
 * Privacy.  Nothing changes: the site (site.c) is prepared from the same arguments, the kind is
 * dp_sum's, the release is charged at the same point and drawn by the same code from the same
 * exact sum.  The state has no "released" mark, as dp_count's has none: a state is finalized again
 * only when its Agg node is rescanned, which is a new execution, charged again (charge.c).
 *
 * Privileges.  The executor checks EXECUTE on the aggregate in the plan.  So the replacement is
 * made only while everyone (PUBLIC) may execute dpagg_sum_inline, as the extension script leaves
 * it, and for a planning role that may execute dp_sum; the plan depends on dpagg_sum_inline's
 * catalog row, so a REVOKE on it invalidates the plans that use it (they are made again as
 * written; an attack review).  Every execution checks the executing role's EXECUTE on the dp_sum
 * it stands for, when the site is prepared: a plan made for one role and run by another, or a
 * grant revoked through a role's membership since, is checked as the query was written.
 *
 * Named by an analyst.  The parse-analysis hook refuses dpagg_sum_inline in a query (bound.c), and
 * a finished plan that holds one this file did not put there (an inlined SQL function's body is
 * not analysed by that hook) is refused here too.
 *
 * Side channel.  Only a group whose exact sum leaves the inline range allocates a state, which
 * shows in a hash aggregation's memory (EXPLAIN ANALYZE): whether that sum reached 2^62 quanta, at
 * any threshold an analyst sets with bounds and rows of their own (an attack review).  So a plan
 * that reads a private relation is left as it is (there dp_sum is rewritten per unit anyway,
 * bound.c): the channel is open only on tables that are not private (docs/guides/restricted-analysts.md, "What it does not protect").
 */
#include "aggregates/site.h"


#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* The aggregate of this name with aggfnoid's argument types in aggfnoid's schema, or InvalidOid. */
static Oid
partner_named(Oid aggfnoid, const char *name)
{
	Oid		   *argtypes;
	int			nargs;

	(void) get_func_signature(aggfnoid, &argtypes, &nargs);
	return dpagg_function_in(get_func_namespace(aggfnoid), name, argtypes, nargs);
}

/* A small per-backend memo, as site.c's: the partner of an OID never changes while it exists. */
#define PARTNER_MEMO 64
static struct
{
	Oid			oid;
	Oid			partner;
} memo[PARTNER_MEMO];

/*
 * dp_sum's inline twin (for a plain dp_sum) or the dp_sum a twin stands for (for a twin), checked
 * to be dpagg's own by its support functions (site.c: one that anyone who may create in the
 * schema made is never used); InvalidOid for anything else.
 */
static Oid
partner_of(Oid aggfnoid)
{
	int			slot = aggfnoid % PARTNER_MEMO;
	Oid			partner = InvalidOid;

	if (OidIsValid(aggfnoid) && memo[slot].oid == aggfnoid)
		return memo[slot].partner;
	if (dpagg_aggregate_kind(aggfnoid) == DP_SITE_SUM && !dpagg_aggregate_is_report(aggfnoid))
	{
		if (dpagg_aggregate_is_inline_sum(aggfnoid))
		{
			partner = partner_named(aggfnoid, "dp_sum");
			if (dpagg_aggregate_kind(partner) != DP_SITE_SUM || dpagg_aggregate_is_report(partner) ||
				dpagg_aggregate_is_inline_sum(partner))
				partner = InvalidOid;
		}
		else
		{
			partner = partner_named(aggfnoid, "dpagg_sum_inline");
			if (!dpagg_aggregate_is_inline_sum(partner))
				partner = InvalidOid;
		}
	}
	memo[slot].oid = aggfnoid;
	memo[slot].partner = partner;
	return partner;
}

/* May PUBLIC, hence every role that may run a plan made now, execute fn? */
static bool
public_may_execute(Oid fn)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	Datum		d;
	bool		isnull;
	bool		ok = false;

	if (!HeapTupleIsValid(tup))
		return false;
	d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_proacl, &isnull);
	if (isnull)
		ok = true;				/* the default: EXECUTE for PUBLIC */
	else
	{
		Acl		   *acl = DatumGetAclP(d);
		AclItem    *items = ACL_DAT(acl);
		int			i;

		for (i = 0; i < ACL_NUM(acl); i++)
			if (items[i].ai_grantee == ACL_ID_PUBLIC && (ACLITEM_GET_PRIVS(items[i]) & ACL_EXECUTE))
				ok = true;
		if ((Pointer) acl != DatumGetPointer(d))
			pfree(acl);
	}
	ReleaseSysCache(tup);
	return ok;
}

typedef struct InlineContext
{
	PlannedStmt *stmt;
	bool		replace;		/* false: the look for one named by the query */
	Bitmapset  *replaced;		/* the transition states replaced in the current Agg node */
	int32		state_space;	/* what the planner counted for each */
} InlineContext;

static bool
inline_walker(Node *node, InlineContext *ic)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (!ic->replace)
		{
			if (dpagg_aggregate_is_inline_sum(a->aggfnoid))
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("dpagg_sum_inline cannot be called directly"),
						 errhint("Use dp_sum: dpagg plans it as dpagg_sum_inline where that is faster.")));
		}
		else if (a->aggsplit == AGGSPLIT_SIMPLE)
		{
			Oid			twin = partner_of(a->aggfnoid);

			if (OidIsValid(twin) && !dpagg_aggregate_is_inline_sum(a->aggfnoid) &&
				dpagg_may_execute(a->aggfnoid) && public_may_execute(twin))
			{
				PlanInvalItem *item = makeNode(PlanInvalItem);

				/* as get_agg_clause_costs counts a by-reference state: its width and palloc's overhead */
				ic->state_space = MAXALIGN(get_typavgwidth(a->aggtranstype, -1)) + 2 * sizeof(void *);
				ic->replaced = bms_add_member(ic->replaced, a->aggtransno);
				a->aggfnoid = twin;
				a->aggtranstype = INT8OID;
				item->cacheId = PROCOID;
				item->hashValue = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(twin));
				ic->stmt->invalItems = lappend(ic->stmt->invalItems, item);
			}
		}
		/* arguments hold no aggregate of this Agg node: nothing below to replace */
		return false;
	}
	return expression_tree_walker(node, inline_walker, ic);
}

static void
inline_visit(Plan *plan, void *context)
{
	InlineContext *ic = (InlineContext *) context;

	if (IsA(plan, Agg) && (!ic->replace || ((Agg *) plan)->aggsplit == AGGSPLIT_SIMPLE))
	{
		Agg		   *agg = (Agg *) plan;

		ic->replaced = NULL;
		(void) inline_walker((Node *) plan->targetlist, ic);
		(void) inline_walker((Node *) plan->qual, ic);
		/* A by-value state takes no space of its own: the executor sizes a hash aggregation's
		 * table and its spill partitions by the space per group the planner counted. */
		{
			uint64		freed = (uint64) bms_num_members(ic->replaced) * (uint64) ic->state_space;

			agg->transitionSpace = agg->transitionSpace > freed ? agg->transitionSpace - freed : 0;
		}
		bms_free(ic->replaced);
		ic->replaced = NULL;
	}
}

/* Does the plan read a private relation? */
static bool
reads_private_relation(PlannedStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION && dpagg_relation_protection(rte->relid, NULL, NULL))
			return true;
	}
	return false;
}

void
dpagg_inline_sums(PlannedStmt *stmt)
{
	InlineContext ic = {stmt, false, NULL, 0};

	/* first refuse one the query named, then replace: never both on one node */
	dpagg_walk_statement(stmt, inline_visit, &ic);
	if (reads_private_relation(stmt))
		return;
	ic.replace = true;
	dpagg_walk_statement(stmt, inline_visit, &ic);
}

void
dpagg_inline_sum_check_execute(Aggref *aggref)
{
	Oid			orig;
	AclResult	acl;

	if (!dpagg_aggregate_is_inline_sum(aggref->aggfnoid))
		return;
	orig = partner_of(aggref->aggfnoid);
	if (!OidIsValid(orig))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("dp_sum is missing from dpagg's schema"),
				 errhint("Recreate the extension.")));
	acl = pg_proc_aclcheck(orig, GetUserId(), ACL_EXECUTE);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_AGGREGATE, get_func_name(orig));
}
