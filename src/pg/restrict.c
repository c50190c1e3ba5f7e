/*
 * restrict.c — restricted analysts (README, "Restricted analysts"; issue 11).
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
#include "site.h"
#include "protect.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_shseclabel.h"
#include "catalog/pg_type.h"
#include "commands/seclabel.h"
#include "executor/spi.h"
#include "miscadmin.h"
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

#define PROVIDER "dpagg"
#define RESTRICTED_LABEL "restricted"

/* ---- the role label --------------------------------------------------------------------------- */

void
dpagg_relabel_role(const ObjectAddress *object, const char *seclabel)
{
	char	   *s;

	if (seclabel == NULL)
		return;					/* clearing: always fine */
	s = pstrdup(seclabel);
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	{
		char	   *e = s + strlen(s);

		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
			*--e = '\0';
	}
	if (pg_strcasecmp(s, RESTRICTED_LABEL) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("invalid dpagg label for a role: %s", dpagg_quote_input(seclabel)),
				 errhint("The only label for a role is 'restricted'.")));
	if (object->objectId == BOOTSTRAP_SUPERUSERID || superuser_arg(object->objectId))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a superuser cannot be restricted"),
				 errhint("Restrict roles without superuser privilege; a superuser can remove any restriction.")));
}

/* The roles labelled restricted (scanned from pg_shseclabel: a small shared catalog). */
static List *
restricted_roles(void)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key[1];
	HeapTuple	tup;
	List	   *out = NIL;

	rel = table_open(SharedSecLabelRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_shseclabel_classoid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(AuthIdRelationId));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_shseclabel l = (Form_pg_shseclabel) GETSTRUCT(tup);
		bool		isnull;
		Datum		provider = heap_getattr(tup, Anum_pg_shseclabel_provider,
										   RelationGetDescr(rel), &isnull);

		if (!isnull && strcmp(TextDatumGetCString(provider), PROVIDER) == 0)
			out = lappend_oid(out, l->objoid);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return out;
}

static bool
role_restricted(Oid role, List *labelled)
{
	ListCell   *lc;

	if (!OidIsValid(role) || superuser_arg(role))
		return false;
	foreach(lc, labelled)
		if (is_member_of_role_nosuper(role, lfirst_oid(lc)))
			return true;
	return false;
}

bool
dpagg_session_restricted(void)
{
	List	   *labelled = restricted_roles();
	bool		r;

	if (labelled == NIL)
		return false;
	r = role_restricted(GetSessionUserId(), labelled) || role_restricted(GetUserId(), labelled);
	list_free(labelled);
	return r;
}

/* dp_restricted(role): is the role restricted (itself or through membership)? */
PG_FUNCTION_INFO_V1(dpagg_role_restricted_sql);
Datum
dpagg_role_restricted_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(role_restricted(PG_GETARG_OID(0), restricted_roles()));
}

static void
set_role_label(Oid role, const char *label)
{
	char	   *cmd;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers can restrict roles or lift a restriction"),
				 errhint("Ask a superuser to run dp_restrict or SECURITY LABEL FOR dpagg ON ROLE.")));
	if (GetUserNameFromId(role, true) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	cmd = psprintf("SECURITY LABEL FOR dpagg ON ROLE %s IS %s",
				   quote_identifier(GetUserNameFromId(role, false)),
				   label ? quote_literal_cstr(label) : "NULL");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "dpagg: SPI_connect failed");
	if (SPI_execute(cmd, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "dpagg: could not set the label");
	SPI_finish();
}

PG_FUNCTION_INFO_V1(dpagg_restrict_sql);
Datum
dpagg_restrict_sql(PG_FUNCTION_ARGS)
{
	set_role_label(PG_GETARG_OID(0), RESTRICTED_LABEL);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(dpagg_unrestrict_sql);
Datum
dpagg_unrestrict_sql(PG_FUNCTION_ARGS)
{
	Oid			role = PG_GETARG_OID(0);
	ObjectAddress obj;
	bool		had;

	ObjectAddressSet(obj, AuthIdRelationId, role);
	had = GetSecurityLabel(&obj, PROVIDER) != NULL;
	if (had)
		set_role_label(role, NULL);
	PG_RETURN_BOOL(had);
}

/* ---- the allow-list --------------------------------------------------------------------------- */

static void
refuse(const char *msg, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s", msg),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s", hint)));
}

/*
 * Functions outside LEAKPROOF that are allowed on private rows, and why.  Each is immutable (or
 * stable only through the session's settings), raises no error that a row's value could cause
 * once its other arguments are constants, and takes time linear in its input.
 */
static const char *const extra_allowed[] = {
	"lower", "upper",			/* case mapping of text: no error for valid text */
	"date_trunc",				/* to a constant unit: an invalid unit is a constant's error */
	"date_part", "extract",		/* fields of dates and times (constant field name) */
	"substring", "substr", "left", "right",	/* constant positions and lengths */
	"textlike", "textnlike", "texticlike", "texticnlike",	/* LIKE with a constant pattern */
	"length", "char_length", "character_length", "octet_length",
	"btrim", "ltrim", "rtrim",
	"int48", "int84", "int24", "int42", "int4_numeric", "int8_numeric", "int2_numeric",
	"int4_float8", "int2_float8", "float4_float8", "i4tod", "i2tod", "ftod",	/* widening casts */
	"date", "timestamptz_date", "timestamp_date",	/* to a date: never out of range */
	NULL
};

/* Argument positions that must be constants for the function to be safe (0-based), or -1. */
static int
must_be_constant(const char *name, int nargs, int i)
{
	if (strcmp(name, "date_trunc") == 0 || strcmp(name, "date_part") == 0 ||
		strcmp(name, "extract") == 0)
		return i == 0;
	if (strcmp(name, "textlike") == 0 || strcmp(name, "textnlike") == 0 ||
		strcmp(name, "texticlike") == 0 || strcmp(name, "texticnlike") == 0)
		return i == 1;
	if (strcmp(name, "substring") == 0 || strcmp(name, "substr") == 0 ||
		strcmp(name, "left") == 0 || strcmp(name, "right") == 0 ||
		strcmp(name, "btrim") == 0 || strcmp(name, "ltrim") == 0 || strcmp(name, "rtrim") == 0)
		return i >= 1;
	return false;
}

typedef struct AllowContext
{
	const char *where;
} AllowContext;

static void
function_allowed(Oid fn, List *args, AllowContext *ac)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	bool		ok = false;
	char	   *name;
	int			i;
	ListCell   *lc;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fn);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	name = pstrdup(NameStr(proc->proname));
	if (proc->pronamespace == PG_CATALOG_NAMESPACE && proc->proretset == false &&
		proc->provolatile != PROVOLATILE_VOLATILE)
	{
		if (proc->proleakproof)
			ok = true;
		for (i = 0; !ok && extra_allowed[i] != NULL; i++)
			if (strcmp(name, extra_allowed[i]) == 0)
				ok = true;
	}
	ReleaseSysCache(tup);
	if (!ok)
		refuse(psprintf("restricted roles cannot apply %s() to private data", name),
			   psprintf("Expressions over private rows (%s) may use only functions and operators that cannot raise an error that depends on the data, have no side effects and take bounded time (README, \"Restricted analysts\").",
						ac->where),
			   "Use comparisons, boolean logic, IS NULL, CASE, COALESCE, IN lists of constants, lower/upper, date_trunc, extract, substring and LIKE with constant patterns; do arithmetic on the dpagg outputs instead.");
	i = 0;
	foreach(lc, args)
	{
		if (must_be_constant(name, list_length(args), i) &&
			!IsA(lfirst(lc), Const) && !IsA(lfirst(lc), Param))
			refuse(psprintf("restricted roles must pass argument %d of %s() as a constant", i + 1, name),
				   NULL, "Write the pattern, unit or position as a literal.");
		i++;
	}
}

static bool
allow_walker(Node *node, AllowContext *ac)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_CaseTestExpr:
		case T_SQLValueFunction:
		case T_List:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_RelabelType:
		case T_TargetEntry:
			break;
		case T_FuncExpr:
			function_allowed(((FuncExpr *) node)->funcid, ((FuncExpr *) node)->args, ac);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			function_allowed(((OpExpr *) node)->opfuncid, ((OpExpr *) node)->args, ac);
			break;
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *s = (ScalarArrayOpExpr *) node;

				set_sa_opfuncid(s);
				function_allowed(s->opfuncid, NIL, ac);
				if (!IsA(lsecond(s->args), Const) && !IsA(lsecond(s->args), ArrayExpr))
					refuse("restricted roles may compare private data only with IN lists of constants",
						   NULL, "Write the list as literals: x IN (1, 2, 3).");
				break;
			}
		case T_ArrayExpr:
			{
				ListCell   *lc;

				foreach(lc, ((ArrayExpr *) node)->elements)
					if (!IsA(lfirst(lc), Const))
						refuse("restricted roles may compare private data only with IN lists of constants",
							   NULL, "Write the list as literals: x IN (1, 2, 3).");
				break;
			}
		case T_Aggref:
			/* the dpagg aggregate itself: its arguments are checked (the parameters are constants) */
			break;
		default:
			refuse(psprintf("restricted roles cannot use this kind of expression on private data (%s)",
							ac->where),
				   "Expressions over private rows are limited to an allow-list (README, \"Restricted analysts\").",
				   "Use comparisons, boolean logic, IS NULL, CASE, COALESCE and IN lists of constants.");
	}
	return expression_tree_walker(node, allow_walker, ac);
}

static void
check_expr(Node *node, const char *where)
{
	AllowContext ac = {where};

	(void) allow_walker(node, &ac);
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

/* A range-table entry between the private relation and the aggregate. */
static void
check_rte(RangeTblEntry *rte)
{
	DpProtection p;

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
	else if (rte->rtekind == RTE_FUNCTION || rte->rtekind == RTE_TABLEFUNC)
		check_expr((Node *) rte->functions, "FROM");
}

static void
check_source_query(Query *q)
{
	ListCell   *lc;

	check_jointree((Node *) q->jointree);
	foreach(lc, q->targetList)
		check_expr((Node *) lfirst_node(TargetEntry, lc)->expr, "a subquery's outputs");
	foreach(lc, q->rtable)
		check_rte(lfirst_node(RangeTblEntry, lc));
}

void
dpagg_restrict_check_level(Query *q)
{
	ListCell   *lc;

	check_jointree((Node *) q->jointree);
	foreach(lc, q->groupClause)
		check_expr((Node *) get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc),
													q->targetList)->expr, "GROUP BY");
	foreach(lc, q->rtable)
		check_rte(lfirst_node(RangeTblEntry, lc));
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

void
dpagg_restrict_check_statement(Query *parse, int unbounded_private_reads, bool reads_private)
{
	if (!reads_private || !dpagg_session_restricted())
		return;
	if (unbounded_private_reads > 0)
		refuse("restricted roles may read private relations only through dpagg's aggregates",
			   "This statement reads private rows other than through dp_sum, dp_avg, dp_count or dp_sum_vector (a column in the output, another aggregate, a window function, DISTINCT, a subquery, a write, ...).",
			   "Aggregate the private relation with dpagg's aggregates, grouped by columns; post-process their results in an outer query.");
	if (parse->commandType != CMD_SELECT || in_create_as > 0)
		refuse("restricted roles cannot store or write the results of queries over private relations",
			   "INSERT ... SELECT, CREATE TABLE AS, SELECT INTO and materialized views over private relations are refused.",
			   "Run the query and keep its results on the client.");
}

/* ProcessUtility, before the statement: COPY of a private relation, and the CREATE ... AS flag. */
void
dpagg_restrict_utility_enter(Node *stmt)
{
	if (IsA(stmt, CopyStmt) && ((CopyStmt *) stmt)->relation != NULL)
	{
		Oid			relid = RangeVarGetRelid(((CopyStmt *) stmt)->relation, NoLock, true);

		if (OidIsValid(relid) && dpagg_relation_protection(relid, NULL, NULL) &&
			dpagg_session_restricted())
			refuse("restricted roles cannot COPY a private relation", NULL,
				   "Aggregate it with dpagg's aggregates.");
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
void
dpagg_restrict_check_executor(bool explained, bool reads_private)
{
	if (explained && reads_private && dpagg_session_restricted())
		refuse("restricted roles cannot EXPLAIN a statement over private relations",
			   "Its row counts are computed from the raw rows, and its estimates from the private columns' statistics.",
			   "Use dp_explain to see how a query is bounded.");
}

/*
 * The planner's statistics of private columns (most common values and their frequencies,
 * histograms) are readable through pg_stats by any role that may SELECT the column: a restricted
 * session may not read the statistics views at all.
 */
static bool
stats_view_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, stats_view_walker, context, QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION && get_rel_namespace(rte->relid) == PG_CATALOG_NAMESPACE)
		{
			const char *name = get_rel_name(rte->relid);

			if (name && (strcmp(name, "pg_stats") == 0 || strcmp(name, "pg_stats_ext") == 0 ||
						 strcmp(name, "pg_stats_ext_exprs") == 0 || strcmp(name, "pg_statistic") == 0 ||
						 strcmp(name, "pg_statistic_ext_data") == 0))
				return true;
		}
		return false;
	}
	return expression_tree_walker(node, stats_view_walker, context);
}

void
dpagg_restrict_check_catalog(Query *parse)
{
	if (stats_view_walker((Node *) parse, NULL) && dpagg_session_restricted())
		refuse("restricted roles cannot read the planner's statistics",
			   "pg_stats and pg_stats_ext show the most common values, their frequencies and histograms of columns, private ones included.",
			   "Ask a DBA for what you need; query private relations with dpagg's aggregates.");
}
