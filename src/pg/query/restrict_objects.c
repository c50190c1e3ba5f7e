/*
 * restrict_objects.c — what a restricted role may read at all (docs/guides/restricted-analysts.md;
 * docs/restricted.md, "What a restricted role can read").
 *
 * Deny by default, as pg_diffix does (its allowed_objects.c): in every statement of a restricted
 * session, each relation the statement reads must be
 *   - private (labelled with a protection: read only through dpagg's aggregates, restrict.c),
 *   - declared public by a superuser (SECURITY LABEL FOR dpagg ON TABLE t IS 'public'),
 *   - one of the session's own temporary relations,
 *   - dpagg's own views (budgets, ledger, protections), or
 *   - the system catalog (pg_catalog, information_schema), except what counts rows: the
 *     statistics and activity views and tables (pg_stat*, pg_statio*, pg_statistic*), the size
 *     columns of pg_class (reltuples, relpages, relallvisible) and the size functions;
 * and each function it calls that is written in C (or internal) must be built in, dpagg's, or
 * declared public: another extension's C code can read what the executor never sees
 * (pg_stat_statements' per-statement buffer counts, pg_stat_monitor, pg_stat_kcache,
 * pg_qualstats).  Functions in SQL or a procedural language are not refused here: the statements
 * they run are checked by the same rule.  Everything else is refused with 42501 and a hint naming
 * the label to set, before the statement is planned.  So a table restored without its labels by a
 * non-superuser (labels need one), or one nobody declared, cannot be read by a restricted role.
 *
 * The bodies of views declared private or public are the DBA's and are not walked; a temporary
 * view's body is walked like the query.
 */
#include "query/query.h"

#include "access/sysattr.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "commands/extension.h"
#include "commands/seclabel.h"
#include "miscadmin.h"
#include "utils/backend_status.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#define PROVIDER "dpagg"

static void pg_attribute_noreturn()
refuse_relation(Oid relid, const char *why)
{
	const char *name = get_rel_name(relid);
	const char *nsp = get_namespace_name(get_rel_namespace(relid));

	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("restricted roles cannot use \"%s.%s\"", nsp ? nsp : "?", name ? name : "?"),
			 errdetail("%s", why),
			 errhint("A superuser may declare it public (SECURITY LABEL FOR dpagg ON TABLE %s IS 'public') or private (dp_protect).",
					 quote_qualified_identifier(nsp, name))));
}

/* Statistics and counters by name, in any schema and whatever their label: the catalog's
 * (pg_stats, pg_stat_*, pg_statio_*, pg_statistic*) and the extensions' that count per statement
 * (pg_stat_statements, pg_stat_monitor, pg_stat_kcache, pg_qualstats). */
static bool
stats_name(const char *name)
{
	if (name == NULL || strcmp(name, "pg_statistic_ext") == 0)
		return false;			/* extended statistics' definitions (psql's \d reads them), not their data */
	return strncmp(name, "pg_stat", 7) == 0 || strncmp(name, "pg_qualstats", 12) == 0;
}

static void pg_attribute_noreturn()
refuse_stats(void)
{
	dpagg_restrict_refuse("restricted roles cannot read statistics or counters of statements, relations or columns",
						  "pg_stats and pg_stats_ext show the most common values, their frequencies and histograms of columns, private ones included; pg_stat_*, pg_statio_*, pg_stat_statements and their like count the rows and buffers each query read.",
						  "Ask a DBA for what you need; query private relations with dpagg's aggregates.");
}

static void pg_attribute_noreturn()
refuse_prepared(void)
{
	dpagg_restrict_refuse("restricted roles cannot read pg_prepared_statements",
								  "Its counts of generic and custom plans follow the planner's estimates, made from the private columns' statistics.",
								  "Keep track of your prepared statements on the client.");
}

static Oid
dpagg_extension(void)
{
	return get_extension_oid("dpagg", true);
}

/*
 * May a restricted role read this relation?  *walk_body: a view whose body must be checked too
 * (a temporary one); false for views a superuser declared, the catalog's and dpagg's.
 */
static void
check_relation(RangeTblEntry *rte, bool *walk_body)
{
	Oid			relid = rte->relid;
	Oid			nsp = get_rel_namespace(relid);

	*walk_body = false;
	if (stats_name(get_rel_name(relid)))
		refuse_stats();
	if (dpagg_relation_protection(relid, NULL, NULL) || dpagg_relation_public(relid))
		return;
	if (isTempNamespace(nsp))
	{
		*walk_body = true;
		return;
	}
	if (nsp == PG_CATALOG_NAMESPACE || relid < FirstNormalObjectId ||
		nsp == get_namespace_oid("information_schema", true))
	{
		/* a catalog view's body is walked too: pg_sequences calls pg_sequence_last_value */
		*walk_body = true;
		/* the plan cache's choices between generic and custom plans follow the statistics */
		if (relid == get_relname_relid("pg_prepared_statements", PG_CATALOG_NAMESPACE))
			refuse_prepared();
		if (relid == RelationRelationId || relid == DatabaseRelationId)
		{
			/* the planner's size estimates of every relation (rows and pages), and the oldest
			 * unfrozen transaction, which a plain VACUUM moves when a row was written since the
			 * last freeze (a seventh attack review) */
			static const AttrNumber class_cols[] = {Anum_pg_class_reltuples, Anum_pg_class_relpages,
				Anum_pg_class_relallvisible, Anum_pg_class_relfrozenxid, Anum_pg_class_relminmxid,
			InvalidAttrNumber};
			static const AttrNumber database_cols[] = {Anum_pg_database_datfrozenxid,
			Anum_pg_database_datminmxid, InvalidAttrNumber};
			const AttrNumber *cols = relid == RelationRelationId ? class_cols : database_cols;
			int			n = relid == RelationRelationId ? lengthof(class_cols) : lengthof(database_cols);
			int			i;

			for (i = 0; i < n; i++)
				if (bms_is_member(cols[i] - FirstLowInvalidHeapAttributeNumber, rte->selectedCols))
					dpagg_restrict_refuse("restricted roles cannot read the sizes and freeze horizons in pg_class and pg_database (reltuples, relpages, relallvisible, relfrozenxid, relminmxid, datfrozenxid, datminmxid)",
										  "They tell how many rows each relation has, and whether a row was written since the last freeze, private ones included.",
										  "Name the columns you need; query private relations with dpagg's aggregates.");
		}
		return;
	}
	if (OidIsValid(dpagg_extension()) &&
		getExtensionOfObject(RelationRelationId, relid) == dpagg_extension())
		return;
	refuse_relation(relid, "Restricted roles read (and write) only relations declared private or public, their own temporary relations and the system catalog.");
}

/* Size functions of the catalog: how big each relation is, private ones included. */
static bool
size_function(const char *name)
{
	static const char *const names[] = {"pg_relation_size", "pg_table_size", "pg_total_relation_size",
		"pg_indexes_size", "pg_database_size", "pg_tablespace_size",
	"currtid2", "currtid_byrelname", NULL};	/* a tid valid or not: the number of pages */
	int			i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}


/*
 * Functions that count or measure: statistics and counters by name, in any schema; of the
 * catalog's, the size functions and the plan cache's counts.  Checked when a query is planned and
 * again when any function runs (check_function_at_run).
 */
static void
check_catalog_function(Oid fn, Oid nsp, const char *name)
{
	if (stats_name(name))
		refuse_stats();
	if (fn >= FirstGenbkiObjectId || nsp != PG_CATALOG_NAMESPACE)
		return;
	if (fn == F_PG_PREPARED_STATEMENT)
		refuse_prepared();
	if (size_function(name))
		dpagg_restrict_refuse(psprintf("restricted roles cannot call %s()", name),
							  "The size of a relation tells how many rows it has, private ones included.",
							  "Query private relations with dpagg's aggregates.");
}

static bool
function_labelled_public(Oid fn)
{
	ObjectAddress obj;
	char	   *label;

	ObjectAddressSet(obj, ProcedureRelationId, fn);
	label = GetSecurityLabel(&obj, PROVIDER);
	return label != NULL && dpagg_label_is_public(label);
}

static void check_function(Oid fn);

/*
 * Functions that read data outside the relations the statement names: a sequence's state (how
 * many rows were ever inserted, for a table's serial column) unless the sequence is one of the
 * session's temporary ones, named by a literal; large objects.
 */
static void
check_data_function(Oid fn, List *args)
{
	switch (fn)
	{
		case F_NEXTVAL:
		case F_CURRVAL:
		case F_SETVAL_REGCLASS_INT8:
		case F_SETVAL_REGCLASS_INT8_BOOL:
		case F_PG_SEQUENCE_LAST_VALUE:
		case F_PG_SEQUENCE_PARAMETERS:
			{
				Node	   *arg = args ? (Node *) linitial(args) : NULL;

				if (arg && IsA(arg, Const) && !((Const *) arg)->constisnull &&
					((Const *) arg)->consttype == REGCLASSOID &&
					isTempNamespace(get_rel_namespace(DatumGetObjectId(((Const *) arg)->constvalue))))
					return;
				dpagg_restrict_refuse("restricted roles may use only their own temporary sequences",
									  "A sequence's value counts the rows inserted with it, private ones included.",
									  "Create a temporary sequence, and name it as a literal.");
			}
		case F_LO_GET_OID:
		case F_LO_GET_OID_INT8_INT4:
		case F_LO_OPEN:
		case F_LOREAD:
		case F_LO_EXPORT:
			dpagg_restrict_refuse("restricted roles cannot read large objects",
								  "Large objects are not relations a superuser declared public.",
								  "Ask a DBA to copy what you need into a public relation.");
		default:
			break;
	}
}

static void
check_support_function(Oid fn)
{
	if (OidIsValid(fn))
		check_function(fn);
}

static void
check_function(Oid fn)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	Oid			lang;
	char		kind;
	char	   *name;
	Oid			nsp;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		return;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	lang = proc->prolang;
	kind = proc->prokind;
	nsp = proc->pronamespace;
	name = pstrdup(NameStr(proc->proname));
	ReleaseSysCache(tup);

	check_catalog_function(fn, nsp, name);
	if (fn < FirstGenbkiObjectId)
		return;
	if (kind == PROKIND_AGGREGATE)
	{
		/* an aggregate runs its support functions: each is checked */
		HeapTuple	at = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(fn));

		if (HeapTupleIsValid(at))
		{
			Form_pg_aggregate agg = (Form_pg_aggregate) GETSTRUCT(at);
			Oid			support[] = {agg->aggtransfn, agg->aggfinalfn, agg->aggcombinefn,
				agg->aggserialfn, agg->aggdeserialfn, agg->aggmtransfn, agg->aggminvtransfn,
			agg->aggmfinalfn};
			int			i;

			ReleaseSysCache(at);
			if (OidIsValid(dpagg_extension()) &&
				getExtensionOfObject(ProcedureRelationId, fn) == dpagg_extension())
				return;
			for (i = 0; i < lengthof(support); i++)
				check_support_function(support[i]);
		}
		return;
	}
	if (lang != ClanguageId && lang != INTERNALlanguageId)
		return;					/* SQL or a procedural language: its statements are checked */
	if (OidIsValid(dpagg_extension()) &&
		getExtensionOfObject(ProcedureRelationId, fn) == dpagg_extension())
		return;
	if (function_labelled_public(fn))
		return;
	dpagg_restrict_refuse(psprintf("restricted roles cannot call %s(), written in C (or internal) outside PostgreSQL and dpagg", name),
						  "Such a function can read what queries never see (per-statement counters of pg_stat_statements, say).",
						  psprintf("A superuser may declare it public: SECURITY LABEL FOR dpagg ON FUNCTION %s IS 'public'.",
								   format_procedure_qualified(fn)));
}

static void check_query(Query *q);
static bool statement_releases = false;	/* the statement being checked has dpagg's aggregates */

static bool
objects_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		check_query((Query *) node);
		return false;
	}
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			check_function(((FuncExpr *) node)->funcid);
			check_data_function(((FuncExpr *) node)->funcid, ((FuncExpr *) node)->args);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			check_function(((OpExpr *) node)->opfuncid);
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			check_function(((ScalarArrayOpExpr *) node)->opfuncid);
			break;
		case T_Aggref:
			check_function(((Aggref *) node)->aggfnoid);
			break;
		case T_WindowFunc:
			check_function(((WindowFunc *) node)->winfnoid);
			break;
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_CoerceToDomain:
		case T_RowCompareExpr:
		case T_SubscriptingRef:
			/* their functions are the types' (I/O, subscripting, comparison): types in C are a
			 * superuser's, and an analyst's own types are built from them */
			break;
		default:
			break;
	}
	return expression_tree_walker(node, objects_walker, context);
}

static void
check_query(Query *q)
{
	ListCell   *lc;

	check_stack_depth();
	/* the expressions of the level, its WITH queries and sublinks (not its range table) */
	(void) query_tree_walker(q, objects_walker, NULL, QTW_IGNORE_RANGE_TABLE);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		bool		walk_body = true;

		switch (rte->rtekind)
		{
			case RTE_RELATION:
				/* written ones too: an affected-row count, a unique violation or ON CONFLICT
				 * tells what a relation holds */
				check_relation(rte, &walk_body);
				break;
			case RTE_SUBQUERY:
				{
					/* a view, expanded: its own entry comes first in its body (PostgreSQL 15) */
					Query	   *sub = rte->subquery;
					RangeTblEntry *old = sub && sub->rtable ? linitial_node(RangeTblEntry, sub->rtable) : NULL;

					if (old && old->rtekind == RTE_RELATION && old->relkind == RELKIND_VIEW &&
						!old->inFromCl)
						check_relation(old, &walk_body);
					if (walk_body && sub)
						check_query(sub);
					break;
				}
			case RTE_FUNCTION:
				/*
				 * A function of the analyst's in FROM is not inlined (restrict_needs_fmgr): its
				 * body runs as statements of its own, checked when they run, after a DP release
				 * in the same statement was charged.  Refused up front beside dpagg's aggregates.
				 */
				if (statement_releases)
				{
					ListCell   *f;

					foreach(f, rte->functions)
					{
						Node	   *fe = lfirst_node(RangeTblFunction, f)->funcexpr;

						if (IsA(fe, FuncExpr) && ((FuncExpr *) fe)->funcid >= FirstNormalObjectId)
							dpagg_restrict_refuse("restricted roles cannot read a function of their own in FROM in a statement with dpagg's aggregates",
												  "Its body runs as statements of its own, checked only when they run: after the release was charged.",
												  "Query tables and views, or call the function in a statement of its own.");
					}
				}
				(void) objects_walker((Node *) rte->functions, NULL);
				break;
			case RTE_TABLEFUNC:
				(void) objects_walker((Node *) rte->tablefunc, NULL);
				break;
			case RTE_VALUES:
				(void) objects_walker((Node *) rte->values_lists, NULL);
				break;
			default:
				break;
		}
		(void) objects_walker((Node *) rte->securityQuals, NULL);
		if (rte->tablesample)
			(void) objects_walker((Node *) rte->tablesample, NULL);
	}
}

/*
 * The fast-path function call of the protocol (libpq's PQfn) runs a function by OID without
 * parsing or planning, so none of the checks above see it (an attack review read
 * pg_stat_get_live_tuples of a private table through it).  PostgreSQL calls the object access
 * hook before every function it runs, the fast path's included, and reports the session's state
 * as "fastpath function call" meanwhile: a restricted session may not call a function that way.
 * (Statements the function runs are inside dpagg's hooks, which count dpagg_statement_depth, and are
 * checked like any other.)
 */
static object_access_hook_type prev_object_access = NULL;

/*
 * Functions evaluated where no query is planned: a prepared statement's parameters in EXECUTE, a
 * CALL's arguments, a column's DEFAULT or a USING clause in ALTER TABLE, a partition bound, a
 * domain's or a table's CHECK (a third attack review read pg_stat_get_live_tuples through each).
 * PostgreSQL calls the object access hook before it runs any function: in a restricted session
 * the counters and sizes are refused there too, wherever they are called from.
 */
static void
check_function_at_run(Oid fn)
{
	char	   *name = get_func_name(fn);

	if (name == NULL)
		return;
	check_catalog_function(fn, get_func_namespace(fn), name);
}

static void
restrict_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access != OAT_FUNCTION_EXECUTE || !IsTransactionState() || !dpagg_session_restricted())
		return;
	/* outside every statement, with the session's state "fastpath function call" (or unknown:
	 * track_activities off, which only a superuser can set) */
	if (dpagg_statement_depth() == 0 && MyBEEntry != NULL &&
		(MyBEEntry->st_state == STATE_FASTPATH || MyBEEntry->st_state == STATE_DISABLED))
		dpagg_restrict_refuse("restricted roles cannot call functions through the fast-path protocol",
							  "A fast-path call runs a function without the checks of a statement.",
							  "Call the function in a SELECT.");
	check_function_at_run(objectId);
}

/*
 * SQL functions of a restricted session's own are not inlined: the planner inlines a SQL function
 * after dpagg checked the query, so the relations its body reads (pg_stats, an undeclared table)
 * would never be checked (a third attack review).  PostgreSQL inlines no function for which
 * needs_fmgr_hook says yes; run as a function, its body's statements are planned, and checked,
 * as statements of their own.  The fmgr hook itself does nothing.
 */
static needs_fmgr_hook_type prev_needs_fmgr = NULL;
static fmgr_hook_type prev_fmgr = NULL;

static bool
restrict_needs_fmgr(Oid fn)
{
	HeapTuple	tup;
	bool		sql;

	if (prev_needs_fmgr && prev_needs_fmgr(fn))
		return true;
	if (fn < FirstNormalObjectId || !IsTransactionState() || !dpagg_session_restricted())
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		return false;
	sql = ((Form_pg_proc) GETSTRUCT(tup))->prolang == SQLlanguageId;
	ReleaseSysCache(tup);
	return sql;
}

static void
restrict_fmgr(FmgrHookEventType event, FmgrInfo *flinfo, Datum *private)
{
	if (prev_fmgr)
		prev_fmgr(event, flinfo, private);
}

void
dpagg_restrict_objects_init(void)
{
	prev_object_access = object_access_hook;
	object_access_hook = restrict_object_access;
	prev_needs_fmgr = needs_fmgr_hook;
	needs_fmgr_hook = restrict_needs_fmgr;
	prev_fmgr = fmgr_hook;
	fmgr_hook = restrict_fmgr;
}

/* An expression evaluated outside a query (a CALL's arguments): its objects, as a query's. */
void
dpagg_restrict_check_expression(Node *expr)
{
	(void) objects_walker(expr, NULL);
}

static bool
releases_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, releases_walker, context, 0);
	if (IsA(node, Aggref) && dpagg_aggregate_kind(((Aggref *) node)->aggfnoid) != 0)
		return true;
	return expression_tree_walker(node, releases_walker, context);
}

void
dpagg_restrict_check_objects(Query *parse)
{
	if (!dpagg_session_restricted())
		return;
	statement_releases = releases_walker((Node *) parse, NULL);
	check_query(parse);
}

/* COPY of a relation (not of a query, which is planned and checked like any other). */
void
dpagg_restrict_check_copy(Oid relid, bool is_from)
{
	RangeTblEntry rte;
	bool		walk_body;

	if (is_from || !OidIsValid(relid) || !dpagg_session_restricted())
		return;
	if (dpagg_relation_protection(relid, NULL, NULL))
		dpagg_restrict_refuse("restricted roles cannot COPY a private relation", NULL,
							  "Aggregate it with dpagg's aggregates.");
	memset(&rte, 0, sizeof(rte));
	rte.type = T_RangeTblEntry;
	rte.rtekind = RTE_RELATION;
	rte.relid = relid;
	rte.selectedCols = bms_make_singleton(0 - FirstLowInvalidHeapAttributeNumber);
	check_relation(&rte, &walk_body);
}
