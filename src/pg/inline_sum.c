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
 * made only for a planning role that may execute both dp_sum and dpagg_sum_inline, and every
 * execution checks the executing role's EXECUTE on the dp_sum it stands for, when the site is
 * prepared: a plan made for one role and run by another, or a grant revoked since, is checked as
 * the query was written.
 */
#include "site.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

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

static bool
may_execute(Oid fn)
{
	return pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
}

static bool
inline_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (a->aggsplit == AGGSPLIT_SIMPLE && !dpagg_aggregate_is_inline_sum(a->aggfnoid))
		{
			Oid			twin = partner_of(a->aggfnoid);

			if (OidIsValid(twin) && may_execute(a->aggfnoid) && may_execute(twin))
			{
				a->aggfnoid = twin;
				a->aggtranstype = INT8OID;
			}
		}
		/* arguments hold no aggregate of this Agg node: nothing below to replace */
		return false;
	}
	return expression_tree_walker(node, inline_walker, context);
}

static void
inline_visit(Plan *plan, void *context)
{
	if (IsA(plan, Agg) && ((Agg *) plan)->aggsplit == AGGSPLIT_SIMPLE)
	{
		(void) inline_walker((Node *) plan->targetlist, context);
		(void) inline_walker((Node *) plan->qual, context);
	}
}

void
dpagg_inline_sums(PlannedStmt *stmt)
{
	dpagg_walk_statement(stmt, inline_visit, NULL);
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
