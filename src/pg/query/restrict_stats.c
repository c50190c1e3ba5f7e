/*
 * restrict_stats.c — a restricted session's planner sees no statistics and no sizes of private
 * relations (docs/restricted.md, "The plan's choices").
 *
 * The planner's estimates come from the private columns' statistics (most common values,
 * histograms, distinct counts) and from the relations' sizes (pages, rows); the plan it picks
 * follows them, and a plan's shape shows in ways no check of expressions can close: whether an
 * expression over a public table that fails runs before or after a DP subquery that returns
 * nothing (a fifth attack review read a private value through an error that way), how often a
 * prepared statement is planned, how long JIT takes.  So for a restricted session the planner
 * plans blind every relation that is not public, temporary or the catalog's (private relations,
 * and the tables under private views): no statistics tuple for any of their columns or index
 * expressions, no extended statistics, no average widths (the types' instead), fixed sizes.  The plan then depends on the query and
 * on public data only.  Plans may be worse; answers are the same.
 */
#include "query/query.h"

#include "nodes/pathnodes.h"
#include "optimizer/plancat.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "access/transam.h"

/* The sizes every private relation (and each of its indexes) is planned with. */
#define BLIND_PAGES 100
#define BLIND_TUPLES 10000

static get_relation_info_hook_type prev_relation_info = NULL;
static get_relation_stats_hook_type prev_relation_stats = NULL;
static get_index_stats_hook_type prev_index_stats = NULL;

/*
 * Every relation but a public one, one of the session's temporary ones and the catalog: private
 * relations, and the tables under a private view, which need no label of their own (a sixth
 * attack review planned a private view's base table with its real statistics).
 */
static bool
blind(Oid relid)
{
	Oid			nsp;

	if (!OidIsValid(relid) || !dpagg_session_restricted())
		return false;
	if (dpagg_relation_protection(relid, NULL, NULL))
		return true;
	nsp = get_rel_namespace(relid);
	return !(dpagg_relation_public(relid) || isTempNamespace(nsp) || relid < FirstNormalObjectId ||
			 nsp == PG_CATALOG_NAMESPACE);
}

static void
blind_relation_info(PlannerInfo *root, Oid relid, bool inhparent, RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_relation_info)
		prev_relation_info(root, relid, inhparent, rel);
	if (!blind(relid))
		return;
	rel->pages = BLIND_PAGES;
	rel->tuples = BLIND_TUPLES;
	rel->allvisfrac = 0;
	rel->statlist = NIL;		/* no extended statistics */
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		index->pages = 1;
		index->tuples = BLIND_TUPLES;
		index->tree_height = 1;
		/* no metapage read either: BRIN's revmap size follows the table's real pages, GIN keeps
		 * entry counts (a seventh attack review tipped a plan on BRIN's); as hypothetical, the
		 * index is estimated from the sizes above, and not probed for actual ranges */
		index->hypothetical = true;
	}
}

static bool
blind_relation_stats(PlannerInfo *root, RangeTblEntry *rte, AttrNumber attnum,
					 VariableStatData *vardata)
{
	if (rte->rtekind == RTE_RELATION && blind(rte->relid))
	{
		vardata->statsTuple = NULL;		/* "no statistics": the planner's defaults */
		return true;
	}
	return prev_relation_stats ? prev_relation_stats(root, rte, attnum, vardata) : false;
}

static bool
blind_index_stats(PlannerInfo *root, Oid indexOid, AttrNumber indexattnum,
				  VariableStatData *vardata)
{
	if (blind(IndexGetRelation(indexOid, true)))
	{
		vardata->statsTuple = NULL;
		return true;
	}
	return prev_index_stats ? prev_index_stats(root, indexOid, indexattnum, vardata) : false;
}

/* Column widths: the type's, not the average the statistics keep (one long value moves it;
 * a sixth attack review padded a DP query's output until the width tipped the join order). */
static get_attavgwidth_hook_type prev_attavgwidth = NULL;

static int32
blind_attavgwidth(Oid relid, AttrNumber attnum)
{
	Oid			type,
				collation;
	int32		typmod;

	if (blind(relid))
	{
		get_atttypetypmodcoll(relid, attnum, &type, &typmod, &collation);
		return OidIsValid(type) ? Max(get_typavgwidth(type, typmod), 1) : 32;
	}
	return prev_attavgwidth ? prev_attavgwidth(relid, attnum) : 0;
}

void
dpagg_restrict_stats_init(void)
{
	prev_attavgwidth = get_attavgwidth_hook;
	get_attavgwidth_hook = blind_attavgwidth;
	prev_relation_info = get_relation_info_hook;
	get_relation_info_hook = blind_relation_info;
	prev_relation_stats = get_relation_stats_hook;
	get_relation_stats_hook = blind_relation_stats;
	prev_index_stats = get_index_stats_hook;
	get_index_stats_hook = blind_index_stats;
}
