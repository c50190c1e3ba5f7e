/*
 * citus_metadata.c — what Citus's catalogs say, read without Citus's headers (docs/citus.md): its
 * metadata tables in pg_catalog, which relations are Citus tables and how they are distributed,
 * the table of a shard, this node's group (a worker or the coordinator).  Facts only: the
 * rewrite of queries for Citus is citus/citus.c, the grants to workers citus/citus_grant.c.
 * Without Citus in the database every answer is "no" (InvalidOid, false, -1).
 */
#include "base/base.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/* ---- what Citus knows ------------------------------------------------------------------------- */

/* The OID of a Citus metadata table in pg_catalog, or InvalidOid without Citus here. */
Oid
dpagg_citus_catalog(const char *name)
{
	return get_relname_relid(name, PG_CATALOG_NAMESPACE);
}

/* A column of a Citus catalog's row by name (isnull where the column does not exist). */
Datum
dpagg_citus_catalog_attr(HeapTuple tup, Relation rel, const char *name, bool *isnull)
{
	AttrNumber	att = get_attnum(RelationGetRelid(rel), name);

	*isnull = true;
	if (att <= 0)
		return (Datum) 0;
	return heap_getattr(tup, att, RelationGetDescr(rel), isnull);
}

/*
 * One value of the first row of a Citus catalog whose key column equals key (no key when keyatt is
 * NULL), or false.
 */
static bool
citus_catalog_value(const char *catalog, const char *keyatt, RegProcedure eqproc, Datum key,
			  const char *att, Datum *out)
{
	Oid			catalog_rel = dpagg_citus_catalog(catalog);
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData skey;
	HeapTuple	tup;
	bool		found = false;

	if (!OidIsValid(catalog_rel))
		return false;
	rel = table_open(catalog_rel, AccessShareLock);
	if (keyatt != NULL)
		ScanKeyInit(&skey, get_attnum(catalog_rel, keyatt), BTEqualStrategyNumber, eqproc, key);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, keyatt != NULL ? 1 : 0,
							  keyatt != NULL ? &skey : NULL);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;

		*out = dpagg_citus_catalog_attr(tup, rel, att, &isnull);
		found = !isnull;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/* The distributed table of shard shardid, or InvalidOid. */
Oid
dpagg_citus_shard_table(int64 shardid)
{
	Datum		d;

	return citus_catalog_value("pg_dist_shard", "shardid", F_INT8EQ, Int64GetDatum(shardid), "logicalrelid", &d)
		? DatumGetObjectId(d) : InvalidOid;
}

/*
 * Is relid a Citus table (distributed, reference or Citus-managed local)?  If so and column is not
 * NULL, *column is its distribution column when it is hash-distributed, else 0.
 */
bool
dpagg_citus_table_lookup(Oid relid, Oid partition_rel, AttrNumber *column)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	bool		found;

	if (column)
		*column = 0;
	rel = table_open(partition_rel, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(tup = systable_getnext(scan));
	if (found && column)
	{
		bool		method_null,
					key_null;
		Datum		method = dpagg_citus_catalog_attr(tup, rel, "partmethod", &method_null);
		Datum		keytext = dpagg_citus_catalog_attr(tup, rel, "partkey", &key_null);

		if (!method_null && !key_null && DatumGetChar(method) == 'h')
		{
			Node	   *n = stringToNode(TextDatumGetCString(keytext));

			if (n != NULL && IsA(n, Var))
				*column = ((Var *) n)->varattno;
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/* Is relid a Citus table whose shards each have one placement (repmodel 's', streaming, the
 * default since Citus 11)?  With statement replication Citus could run a shard query again on
 * another placement after a failure: the worker form is not used for such a table. */
bool
dpagg_citus_single_placement(Oid relid)
{
	Datum		d;

	return citus_catalog_value("pg_dist_partition", "logicalrelid", F_OIDEQ,
									 ObjectIdGetDatum(relid), "repmodel", &d) &&
		DatumGetChar(d) == 's';
}

bool
dpagg_citus_is_table(Oid relid, Oid partition_rel)
{
	return dpagg_citus_table_lookup(relid, partition_rel, NULL);
}

/* This node's Citus group (0: the coordinator), or -1 without Citus metadata. */
int
dpagg_citus_local_group(void)
{
	Datum		d;

	return citus_catalog_value("pg_dist_local_group", NULL, InvalidOid, (Datum) 0, "groupid", &d)
		? DatumGetInt32(d) : -1;
}

bool
dpagg_citus_worker(void)
{
	return dpagg_citus_local_group() > 0;	/* group 0 is the coordinator; -1: no Citus */
}

Oid
dpagg_citus_shard_of(Oid relid)
{
	char	   *name;
	char	   *us;
	char	   *end;
	char	   *lname;
	int64		shardid;
	Oid			logical;

	if ((name = get_rel_name(relid)) == NULL ||
		(us = strrchr(name, '_')) == NULL || us[1] < '0' || us[1] > '9')
		return InvalidOid;
	errno = 0;
	shardid = strtoll(us + 1, &end, 10);
	if (errno != 0 || *end != '\0')
		return InvalidOid;
	logical = dpagg_citus_shard_table(shardid);
	lname = OidIsValid(logical) ? get_rel_name(logical) : NULL;
	/* the shard is named after its table, in its table's schema */
	if (lname && strlen(lname) == (size_t) (us - name) && strncmp(lname, name, us - name) == 0 &&
		get_rel_namespace(logical) == get_rel_namespace(relid))
		return logical;
	return InvalidOid;
}

typedef struct ReadsContext
{
	Oid			partition_rel;
	bool		found;
} ReadsContext;

static bool
reads_citus_walker(Node *node, ReadsContext *rc)
{
	if (node == NULL || rc->found)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION && dpagg_citus_is_table(rte->relid, rc->partition_rel))
			rc->found = true;
		if (rte->rtekind == RTE_SUBQUERY)
			return reads_citus_walker((Node *) rte->subquery, rc);
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_citus_walker, rc, QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, reads_citus_walker, rc);
}

/* Does this node (a range-table entry, a query, an expression) read a Citus table? */
bool
dpagg_citus_node_reads_table(Node *node, Oid partition_rel)
{
	ReadsContext rc = {partition_rel, false};

	(void) reads_citus_walker(node, &rc);
	return rc.found;
}

bool
dpagg_citus_reads_citus_table(Query *q)
{
	ReadsContext rc = {dpagg_citus_catalog("pg_dist_partition"), false};

	if (!OidIsValid(rc.partition_rel))
		return false;			/* no Citus in this database */
	(void) reads_citus_walker((Node *) q, &rc);
	return rc.found;
}

