/*
 * version.c — the versions of dpagg (docs/versions.md): the library's, compiled in from
 * dpagg.control's default_version (DPAGG_VERSION), and the SQL objects' in the current database
 * (pg_extension.extversion, changed by ALTER EXTENSION dpagg UPDATE).
 *
 * A library newer (or older) than the SQL objects it serves would run aggregates declared for
 * another version: their signatures, defaults and the C functions behind them may differ.  So
 * every release is refused (55000, with the hint to run ALTER EXTENSION dpagg UPDATE) while the
 * two differ: the charge asks (ledger/charge.c) before anything is charged.  Administration
 * (budgets, labels) and dp_version() keep working, so a DBA can see and fix the state.  Read once
 * per statement: one index lookup in pg_extension.
 */
#include "base/base.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#ifndef DPAGG_VERSION
#error "DPAGG_VERSION must be defined by the build (the Makefile reads it from dpagg.control)"
#endif

/* extversion of the extension dpagg in the current database, or NULL if it is not created. */
static char *
sql_version(void)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	char	   *out = NULL;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("dpagg"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_extension_extversion, RelationGetDescr(rel), &isnull);

		if (!isnull)
			out = text_to_cstring(DatumGetTextPP(d));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return out;
}

/*
 * Refuse a release while the SQL objects are of another version than the library.  The answer is
 * kept for the rest of the statement (same database, same statement start).
 */
void
dpagg_check_sql_version(void)
{
	static TimestampTz checked_at = 0;
	static Oid	checked_db = InvalidOid;
	char	   *v;

	if (checked_at == GetCurrentStatementStartTimestamp() && checked_db == MyDatabaseId)
		return;
	v = sql_version();
	if (v == NULL || strcmp(v, DPAGG_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg's SQL objects in this database are version %s, its library is version %s",
						v ? v : "(none)", DPAGG_VERSION),
				 errdetail("Nothing was released or charged: a release needs the SQL objects of the library's version."),
				 errhint("Run ALTER EXTENSION dpagg UPDATE in this database.")));
	checked_at = GetCurrentStatementStartTimestamp();
	checked_db = MyDatabaseId;
}

/* dp_version(): the library's version and the SQL objects'. */
PG_FUNCTION_INFO_V1(dpagg_version_sql);
Datum
dpagg_version_sql(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	char	   *v = sql_version();

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dpagg: dp_version must return a record");
	values[0] = CStringGetTextDatum(DPAGG_VERSION);
	if (v != NULL)
		values[1] = CStringGetTextDatum(v);
	else
		nulls[1] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
