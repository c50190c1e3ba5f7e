/*
 * protect.c — which relations are private, and for whom (docs/guides/privacy-units.md).
 *
 * A DBA declares a relation private with PostgreSQL's own mechanism for it, a security label of
 * the provider "dpagg":
 *
 *     SECURITY LABEL FOR dpagg ON TABLE visits
 *         IS 'privacy_unit = user_id, max_groups_contributed = 3, max_rows_per_group = 10';
 *
 * or with dp_protect(relation, privacy_unit, ...), which writes the same label.  Labels live in
 * pg_seclabel (per database), so pg_dump dumps them and a restore re-applies them through this
 * provider, which checks them again.  This file owns:
 *   - the label's grammar and its checks (the provider's relabel hook: superusers only, relations
 *     only, the unit column must exist and be groupable);
 *   - the per-backend lookup "is this relation private, and how" (a partition is private when an
 *     ancestor is), cached and dropped on relcache invalidation: setting or clearing a label
 *     invalidates the relation, so cached plans that read it are planned again;
 *   - dp_protect, dp_unprotect and the function behind the dp_protected view.
 *
 * What a query over a private relation means is the per-unit rewrite (query/bound.c,
 * docs/privacy_units.md); a statement that runs one of dpagg's aggregates the rewrite could not
 * bound and reads a private relation is refused (query/private_statements.c): an answer bounded
 * per row over data declared per person would promise less than the DBA asked for.
 */
#include "labels/labels.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/partition.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_seclabel.h"
#include "commands/seclabel.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "parser/scansup.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"


#define PROVIDER "dpagg"

/* ---- the label ------------------------------------------------------------------------------ */

static const char *const label_keys = "privacy_unit, max_groups_contributed, max_rows_per_group";

static void
label_error(int code, const char *label, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid dpagg protection label %s: %s", dpagg_quote_input(label), msg),
			 errhint("%s", hint)));
}

static const char *
skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* An SQL identifier: "quoted" (with "" for a quote) or plain (folded to lower case).  Returns the
 * position after it, or NULL if there is none. */
static const char *
read_identifier(const char *p, char *out)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (*p == '"')
	{
		p++;
		for (;;)
		{
			if (*p == '\0')
				return NULL;
			if (*p == '"')
			{
				if (p[1] != '"')
					break;
				p++;
			}
			appendStringInfoChar(&buf, *p++);
		}
		p++;
		if (buf.len == 0)
			return NULL;
	}
	else
	{
		const char *start = p;
		char	   *folded;

		while (*p != '\0' && (isalnum((unsigned char) *p) || *p == '_' || *p == '$' ||
							  IS_HIGHBIT_SET(*p)))
			p++;
		if (p == start || isdigit((unsigned char) *start) || *start == '$')
			return NULL;
		folded = downcase_identifier(start, p - start, false, false);
		appendStringInfoString(&buf, folded);
	}
	if (buf.len >= NAMEDATALEN)
		return NULL;
	strlcpy(out, buf.data, NAMEDATALEN);
	return p;
}

/* A whole number in [lo, hi]. */
static const char *
read_count(const char *label, const char *p, const char *key, int lo, int hi, int *out)
{
	char	   *end;
	long		v;

	errno = 0;
	if (!isdigit((unsigned char) *p) && *p != '-' && *p != '+')
		label_error(ERRCODE_SYNTAX_ERROR, label, psprintf("%s needs a whole number", key),
					"Write for example max_groups_contributed = 3.");
	v = strtol(p, &end, 10);
	if (end == p || (*end != '\0' && *end != ',' && *end != ' ' && *end != '\t' &&
					 *end != '\n' && *end != '\r'))
		label_error(ERRCODE_SYNTAX_ERROR, label, psprintf("%s needs a whole number", key),
					"Write for example max_groups_contributed = 3.");
	if (errno != 0 || v < lo || v > hi)
		label_error(ERRCODE_INVALID_PARAMETER_VALUE, label,
					psprintf("%s must be between %d and %d", key, lo, hi),
					psprintf("%s is the most a privacy unit may contribute; it must be at least %d.",
							 key, lo));
	*out = (int) v;
	return end;
}

void
dpagg_parse_protection(const char *label, DpProtection *out)
{
	const char *p = skip_blanks(label);
	bool		seen_groups = false,
				seen_rows = false;

	memset(out, 0, sizeof(*out));
	out->max_groups = 1;
	if (*p == '\0')
		label_error(ERRCODE_SYNTAX_ERROR, label, "it is empty",
					"Write privacy_unit = <column>, optionally followed by max_groups_contributed = <n> and max_rows_per_group = <n>.");
	for (;;)
	{
		char		key[NAMEDATALEN];

		p = read_identifier(p, key);
		if (p == NULL)
			label_error(ERRCODE_SYNTAX_ERROR, label, "expected a setting name",
						psprintf("The settings are %s, written name = value and separated by commas.",
								 label_keys));
		p = skip_blanks(p);
		if (*p != '=')
			label_error(ERRCODE_SYNTAX_ERROR, label, psprintf("expected \"=\" after %s", key),
						psprintf("The settings are %s, written name = value and separated by commas.",
								 label_keys));
		p = skip_blanks(p + 1);
		if (strcmp(key, "privacy_unit") == 0)
		{
			if (out->unit[0] != '\0')
				label_error(ERRCODE_SYNTAX_ERROR, label, "privacy_unit is given twice",
							"A relation has one privacy-unit column.");
			p = read_identifier(p, out->unit);
			if (p == NULL)
				label_error(ERRCODE_SYNTAX_ERROR, label, "privacy_unit needs a column name",
							"Write the column as an SQL identifier, double-quoted if it has upper-case letters or blanks.");
		}
		else if (strcmp(key, "max_groups_contributed") == 0)
		{
			if (seen_groups)
				label_error(ERRCODE_SYNTAX_ERROR, label, "max_groups_contributed is given twice",
							"Give each setting once.");
			seen_groups = true;
			p = read_count(label, p, key, 1, DPAGG_MAX_GROUPS_CONTRIBUTED, &out->max_groups);
		}
		else if (strcmp(key, "max_rows_per_group") == 0)
		{
			if (seen_rows)
				label_error(ERRCODE_SYNTAX_ERROR, label, "max_rows_per_group is given twice",
							"Give each setting once.");
			seen_rows = true;
			p = read_count(label, p, key, 1, DPAGG_MAX_ROWS_PER_GROUP, &out->max_rows_per_group);
		}
		else
			label_error(ERRCODE_SYNTAX_ERROR, label,
						psprintf("unknown setting \"%s\"", key),
						psprintf("The settings are %s.", label_keys));
		p = skip_blanks(p);
		if (*p == '\0')
			break;
		if (*p != ',')
			label_error(ERRCODE_SYNTAX_ERROR, label, "expected \",\" between settings",
						"Separate the settings with commas.");
		p = skip_blanks(p + 1);
	}
	if (out->unit[0] == '\0')
		label_error(ERRCODE_SYNTAX_ERROR, label, "privacy_unit is missing",
					"Name the column that identifies a person (or other privacy unit), e.g. privacy_unit = user_id.");
}

/* The label dp_protect writes: every setting, in a fixed order. */
static char *
canonical_label(const DpProtection *p)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "privacy_unit = %s, max_groups_contributed = %d",
					 quote_identifier(p->unit), p->max_groups);
	if (p->max_rows_per_group > 0)
		appendStringInfo(&buf, ", max_rows_per_group = %d", p->max_rows_per_group);
	return buf.data;
}

/* ---- checks when a label is set (the provider's hook) ----------------------------------------- */

static const char *
relkind_word(char relkind)
{
	switch (relkind)
	{
		case RELKIND_RELATION:
		case RELKIND_PARTITIONED_TABLE:
			return "TABLE";
		case RELKIND_VIEW:
			return "VIEW";
		case RELKIND_MATVIEW:
			return "MATERIALIZED VIEW";
		case RELKIND_FOREIGN_TABLE:
			return "FOREIGN TABLE";
		default:
			return NULL;
	}
}

static void
check_unit_column(Oid relid, const DpProtection *p)
{
	AttrNumber	att = get_attnum(relid, p->unit);
	Oid			type;
	TypeCacheEntry *tc;

	if (att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist", p->unit,
						get_rel_name(relid)),
				 errhint("privacy_unit names the column that identifies a person (or other privacy unit) in each row.")));
	if (att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a system column cannot be a privacy unit"),
				 errhint("Name a column of the relation that identifies a person.")));
	type = get_atttype(relid, att);
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR);
	if (!OidIsValid(tc->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("privacy unit column \"%s\" has type %s, which has no equality operator",
						p->unit, format_type_be(type)),
				 errhint("Rows are grouped by their privacy unit: use a column of a type that can be compared for equality, e.g. integer, bigint, text or uuid.")));
}

static void
relabel(const ObjectAddress *object, const char *seclabel)
{
	char		relkind;
	DpProtection p;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers can declare or clear dpagg protection"),
				 errhint("Ask a superuser to run dp_protect or SECURITY LABEL FOR dpagg.")));
	if (object->classId == AuthIdRelationId)
	{
		dpagg_relabel_role(object, seclabel);	/* restricted roles (roles.c) */
		return;
	}
	if (object->classId == ProcedureRelationId)
	{
		/* a function restricted roles may call although it is written in C (restrict_objects.c) */
		if (seclabel != NULL && !dpagg_label_is_public(seclabel))
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("invalid dpagg label for a function: %s", dpagg_quote_input(seclabel)),
					 errhint("The only label for a function is 'public'.")));
		return;
	}
	if (object->classId != RelationRelationId)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg labels apply to tables, views and materialized views, roles and functions only"),
				 errhint("Label the relation, naming its privacy-unit column in the label, or 'public'.")));
	if (object->objectSubId != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg labels apply to whole relations, not to columns"),
				 errhint("Label the relation: SECURITY LABEL FOR dpagg ON TABLE t IS 'privacy_unit = <column>'.")));
	relkind = get_rel_relkind(object->objectId);
	if (relkind_word(relkind) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" cannot be private", get_rel_name(object->objectId)),
				 errhint("Tables, partitioned tables, views, materialized views and foreign tables can be declared private.")));
	if (relkind != RELKIND_PARTITIONED_TABLE &&
		(has_subclass(object->objectId) || has_superclass(object->objectId)) &&
		!get_rel_relispartition(object->objectId))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" uses table inheritance, which dpagg protection does not support",
						get_rel_name(object->objectId)),
				 errhint("Use declarative partitioning, and label the partitioned table.")));
	if (seclabel != NULL && get_rel_relispartition(object->objectId))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is a partition: label its partitioned table instead",
						get_rel_name(object->objectId)),
				 errdetail("A private partition of a table that is not private would be read, unbounded, through that table."),
				 errhint("Label the root of the partitioned table; its partitions are private with it.")));
	if (seclabel != NULL && !dpagg_label_is_public(seclabel))
	{
		dpagg_parse_protection(seclabel, &p);
		check_unit_column(object->objectId, &p);
	}
	/*
	 * Plans that read the relation are made again, with or without the protection, and every
	 * backend forgets what it knew of the relation and of its partitions (whose protection is
	 * their ancestors').
	 */
	{
		List	   *all = find_all_inheritors(object->objectId, NoLock, NULL);
		ListCell   *lc;

		foreach(lc, all)
			CacheInvalidateRelcacheByRelid(lfirst_oid(lc));
		list_free(all);
		/* A Citus table's shards (and reference-table copies) are other relations whose
		 * protection is the table's (citus.c): with Citus here, every backend forgets all. */
		if (OidIsValid(get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE)))
			CacheInvalidateRelcacheAll();
	}
}

/* ---- lookup, cached per backend ------------------------------------------------------------- */

typedef struct CacheEntry
{
	Oid			relid;			/* hash key */
	bool		valid;
	bool		public;			/* labelled 'public' (itself or an ancestor) */
	bool		private;
	Oid			labelled;		/* the relation carrying the label (itself or an ancestor) */
	DpProtection protection;
} CacheEntry;

static HTAB *protection_cache = NULL;

static void
invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	CacheEntry *e;

	if (protection_cache == NULL)
		return;
	/* A partition's answer depends on its ancestors' labels: drop everything on any change of a
	 * relation we know about (rare: DDL), one entry otherwise. */
	hash_seq_init(&seq, protection_cache);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (!OidIsValid(relid) || e->relid == relid || e->private)
			e->valid = false;
}

/*
 * 'public': a relation a restricted role may read raw (restrict_objects.c), or a function it may
 * call; any other label of a relation is a protection.
 */
bool
dpagg_label_is_public(const char *label)
{
	const char *p = skip_blanks(label);
	size_t		n = strlen(p);

	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	return n == 6 && pg_strncasecmp(p, "public", 6) == 0;
}

/* The relation's own label: 1 a protection (in *out), 2 'public', 0 none. */
static int
label_of(Oid relid, DpProtection *out)
{
	ObjectAddress obj;
	char	   *label;

	ObjectAddressSet(obj, RelationRelationId, relid);
	label = GetSecurityLabel(&obj, PROVIDER);
	if (label == NULL)
		return 0;
	if (dpagg_label_is_public(label))
		return 2;
	dpagg_parse_protection(label, out);
	return 1;
}

static CacheEntry *lookup(Oid relid);

/* Is the relation declared public (or a partition of one)? */
bool
dpagg_relation_public(Oid relid)
{
	return lookup(relid)->public;
}

static CacheEntry *
lookup(Oid relid)
{
	CacheEntry *e;
	bool		found;

	if (protection_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(CacheEntry);
		ctl.hcxt = TopMemoryContext;
		protection_cache = hash_create("dpagg protection", 64, &ctl,
									   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(invalidate, (Datum) 0);
	}
	e = hash_search(protection_cache, &relid, HASH_ENTER, &found);
	if (!found || !e->valid)
	{
		DpProtection p;
		Oid			at = InvalidOid;

		int			kind;

		e->valid = false;
		e->private = false;
		e->public = false;
		if ((kind = label_of(relid, &p)) != 0)
			at = relid;
		else if (get_rel_relispartition(relid))
		{
			List	   *ancestors = get_partition_ancestors(relid);
			ListCell   *lc;

			foreach(lc, ancestors)
			{
				if ((kind = label_of(lfirst_oid(lc), &p)) != 0)
				{
					at = lfirst_oid(lc);
					break;
				}
			}
			list_free(ancestors);
		}
		else
		{
			/* A Citus shard (or a node's copy of a reference table) of a private relation is
			 * private: its rows are the relation's (citus.c). */
			Oid			logical = dpagg_citus_shard_of(relid);

			if (OidIsValid(logical) && (kind = label_of(logical, &p)) != 0)
				at = logical;
		}
		e->public = kind == 2;
		if (e->public)
			at = InvalidOid;
		e->private = OidIsValid(at);
		e->labelled = at;
		if (e->private)
			e->protection = p;
		e->valid = true;
	}
	return e;
}

bool
dpagg_relation_protection(Oid relid, DpProtection *out, Oid *labelled)
{
	CacheEntry *e = lookup(relid);

	if (e->private)
	{
		if (out)
			*out = e->protection;
		if (labelled)
			*labelled = e->labelled;
	}
	return e->private;
}

/* ---- plans that read private relations ---------------------------------------------------------- */

/* The first private relation a finished plan reads (its range table), or InvalidOid. */
Oid
dpagg_plan_first_private(PlannedStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_RELATION && dpagg_relation_protection(rte->relid, NULL, NULL))
			return rte->relid;
	}
	return InvalidOid;
}

bool
dpagg_plan_reads_private(PlannedStmt *stmt)
{
	return OidIsValid(dpagg_plan_first_private(stmt));
}

/* ---- SQL ------------------------------------------------------------------------------------- */

static void
run_label_command(Oid relid, const char *label)
{
	const char *word = relkind_word(get_rel_relkind(relid));
	char	   *name;

	if (word == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" cannot be private", get_rel_name(relid)),
				 errhint("Tables, partitioned tables, views, materialized views and foreign tables can be declared private.")));
	name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
	dpagg_set_label(psprintf("%s %s", word, name), label);
}

/* SECURITY LABEL FOR dpagg ON <object> IS <label or NULL>, through SPI: the provider's hook
 * checks it as if the DBA had written it (restrict.c uses it for roles). */
void
dpagg_set_label(const char *object, const char *label)
{
	char	   *cmd = psprintf("SECURITY LABEL FOR dpagg ON %s IS %s", object,
							   label ? quote_literal_cstr(label) : "NULL");

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "dpagg: SPI_connect failed");
	if (SPI_execute(cmd, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "dpagg: could not set the label");
	SPI_finish();
}

static void
relation_exists(Oid relid)
{
	if (get_rel_name(relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
}

PG_FUNCTION_INFO_V1(dpagg_protect);
Datum
dpagg_protect(PG_FUNCTION_ARGS)
{
	Oid			relid;
	DpProtection p;
	char	   *unit;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_protect needs a relation and its privacy-unit column"),
				 errhint("For example: SELECT dp_protect('visits', 'user_id');")));
	relid = PG_GETARG_OID(0);
	relation_exists(relid);
	memset(&p, 0, sizeof(p));
	unit = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strlen(unit) == 0 || strlen(unit) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("privacy_unit must name a column"),
				 errhint("Give the column's name as it is stored (no quotes), e.g. 'user_id'.")));
	strlcpy(p.unit, unit, NAMEDATALEN);
	p.max_groups = 1;
	/* Protected again with the same unit: an argument left out keeps its current value (as
	 * dp_set_budget does), so that a call that changes L does not drop the row cap. */
	{
		DpProtection now;
		Oid			labelled;

		if (dpagg_relation_protection(relid, &now, &labelled) && labelled == relid &&
			strcmp(now.unit, p.unit) == 0)
		{
			p.max_groups = now.max_groups;
			p.max_rows_per_group = now.max_rows_per_group;
		}
	}
	if (!PG_ARGISNULL(2))
	{
		int32		l = PG_GETARG_INT32(2);

		if (l < 1 || l > DPAGG_MAX_GROUPS_CONTRIBUTED)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_groups_contributed must be between 1 and %d",
							DPAGG_MAX_GROUPS_CONTRIBUTED),
					 errhint("It is the most groups one privacy unit may contribute to.")));
		p.max_groups = l;
	}
	if (!PG_ARGISNULL(3))
	{
		int32		c = PG_GETARG_INT32(3);

		if (c < 0 || c > DPAGG_MAX_ROWS_PER_GROUP)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_rows_per_group must be between 1 and %d, or 0 for none", DPAGG_MAX_ROWS_PER_GROUP),
					 errhint("It is the most rows one privacy unit may contribute to a count in one group; 0 removes it (counts count units).")));
		p.max_rows_per_group = c;
	}
	run_label_command(relid, canonical_label(&p));
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(dpagg_unprotect);
Datum
dpagg_unprotect(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ObjectAddress obj;
	bool		had;

	relation_exists(relid);
	ObjectAddressSet(obj, RelationRelationId, relid);
	had = GetSecurityLabel(&obj, PROVIDER) != NULL;
	if (had)
		run_label_command(relid, NULL);
	PG_RETURN_BOOL(had);
}

/* dpagg_protection_fields(label): the settings of a label, for the dp_protected view. */
PG_FUNCTION_INFO_V1(dpagg_protection_fields);
Datum
dpagg_protection_fields(PG_FUNCTION_ARGS)
{
	char	   *label = text_to_cstring(PG_GETARG_TEXT_PP(0));
	DpProtection p;
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dpagg: return type must be a row type");
	dpagg_parse_protection(label, &p);
	values[0] = CStringGetTextDatum(p.unit);
	values[1] = Int32GetDatum(p.max_groups);
	if (p.max_rows_per_group > 0)
		values[2] = Int32GetDatum(p.max_rows_per_group);
	else
		nulls[2] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/* ---- the unit column stays what the label names ------------------------------------------ */

/*
 * The label names its unit column.  Dropping that column, or renaming it (after which another
 * column could take the name), would change what the protection means without a word from the
 * label's owner, a superuser: both are refused while the label is there.
 */
static object_access_hook_type prev_object_access = NULL;

static void
unit_column_changed(Oid relid, const char *column, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("cannot %s column \"%s\" of \"%s\": it is the relation's privacy unit",
					what, column, get_rel_name(relid)),
			 errhint("Remove the protection first (dp_unprotect), or declare another unit column with dp_protect.")));
}

static void
unit_column_drop_guard(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access == OAT_DROP && classId == RelationRelationId && subId > 0)
	{
		DpProtection p;
		char	   *name;

		if (label_of(objectId, &p) != 1)
			return;
		name = get_attname(objectId, (AttrNumber) subId, true);
		if (name != NULL && strcmp(name, p.unit) == 0)
			unit_column_changed(objectId, name, "drop");
	}
}

static void
inherit_guard(RangeVar *parent, bool as_child)
{
	Oid			relid = RangeVarGetRelid(parent, NoLock, true);

	if (OidIsValid(relid) && dpagg_relation_protection(relid, NULL, NULL) &&
		get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg(as_child ? "\"%s\" is private and cannot inherit from another table"
						: "\"%s\" is private and cannot be inherited from", get_rel_name(relid)),
				 errdetail("A child table would not be private itself, and its rows would escape the protection."),
				 errhint("Use partitioning, whose partitions are private with their table, or remove the protection first.")));
}

/* A table with its own label cannot become a partition: read through its new parent (private or
 * not), its rows would be bounded by another label, or not at all. */
static void
attach_guard(RangeVar *child)
{
	Oid			relid = RangeVarGetRelid(child, NoLock, true);
	DpProtection p;

	if (OidIsValid(relid) && label_of(relid, &p) == 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is private and cannot be attached as a partition",
						get_rel_name(relid)),
				 errhint("Remove its protection first (dp_unprotect); a partition of a private table is private with it.")));
}

/* The DDL that would weaken a protection, refused before it runs (from the hooks' utility hook,
 * src/pg/hooks.c). */
void
dpagg_protect_check_utility(Node *node)
{

	/*
	 * A label refuses tables with legacy inheritance; a child added later would escape the
	 * protection when queried by its own name (only partitions inherit it): refused too.
	 */
	if (IsA(node, CreateStmt) && !((CreateStmt *) node)->partbound)
	{
		ListCell   *lc;

		foreach(lc, ((CreateStmt *) node)->inhRelations)
			inherit_guard((RangeVar *) lfirst(lc), false);
	}
	if (IsA(node, AlterTableStmt))
	{
		ListCell   *lc;

		foreach(lc, ((AlterTableStmt *) node)->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

			if (cmd->subtype == AT_AddInherit)
			{
				inherit_guard((RangeVar *) cmd->def, false);
				/* a private child would be read, unbounded, through its parent */
				inherit_guard(((AlterTableStmt *) node)->relation, true);
			}
			if (cmd->subtype == AT_AttachPartition)
				attach_guard(((PartitionCmd *) cmd->def)->name);
		}
	}
	if (IsA(node, RenameStmt) && ((RenameStmt *) node)->renameType == OBJECT_COLUMN &&
		((RenameStmt *) node)->relation != NULL)
	{
		RenameStmt *stmt = (RenameStmt *) node;
		Oid			relid = RangeVarGetRelid(stmt->relation, NoLock, true);
		DpProtection p;

		if (OidIsValid(relid) && label_of(relid, &p) == 1 && strcmp(stmt->subname, p.unit) == 0)
			unit_column_changed(relid, stmt->subname, "rename");
	}
}

void
dpagg_protect_init(void)
{
	register_label_provider(PROVIDER, relabel);
	prev_object_access = object_access_hook;
	object_access_hook = unit_column_drop_guard;
}
