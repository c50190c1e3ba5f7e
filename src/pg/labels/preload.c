/*
 * preload.c — dpagg fails closed when it is not in shared_preload_libraries (docs/guides/budgets.md, "Install and setup";
 * docs/restricted.md, "What fails closed").
 *
 * dpagg's ledger and its calibration cache live in shared memory, and its checks of restricted
 * roles are hooks in every backend: both need the library loaded when the server starts.  Loaded
 * later (by a call of one of its functions, CREATE EXTENSION, or session_preload_libraries),
 * _PG_init must not define its server-start settings (PostgreSQL ends the session with FATAL for
 * that) and installs only these hooks instead, which:
 *   - refuse every statement of a restricted session (55000): its private relations would be
 *     read with nothing to check them;
 *   - refuse every statement that calls one of dpagg's functions (55000), with a hint.
 * CREATE EXTENSION dpagg is refused by the first statement of the extension's script
 * (dpagg_require_preload).
 *
 * A restricted role's sessions do not load dpagg unless something makes them: labelling a role
 * restricted (and granting a restricted role to another) adds dpagg to the role's
 * session_preload_libraries (for every database; a setting only a superuser may change), so that
 * a restricted session started on a server without the preload loads dpagg late, and is refused.
 */
#include "labels/labels.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_auth_members.h"
#include "catalog/pg_db_role_setting.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/varlena.h"

static bool loaded_late = false;
static planner_hook_type prev_planner = NULL;
static ProcessUtility_hook_type prev_utility = NULL;

static void pg_attribute_noreturn()
refuse_not_preloaded(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("dpagg is not in shared_preload_libraries"),
			 errdetail("%s", detail),
			 errhint("Add dpagg to shared_preload_libraries in postgresql.conf and restart the server.")));
}

static void
refuse_restricted(void)
{
	if (dpagg_session_restricted())
		refuse_not_preloaded("Restricted roles can run nothing until it is: their private relations would be read unchecked.");
}

/* Does the query call a function of the dpagg extension? */
static bool
calls_dpagg_walker(Node *node, Oid *ext)
{
	Oid			fn = InvalidOid;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, calls_dpagg_walker, ext, 0);
	if (IsA(node, FuncExpr))
		fn = ((FuncExpr *) node)->funcid;
	else if (IsA(node, Aggref))
		fn = ((Aggref *) node)->aggfnoid;
	else if (IsA(node, WindowFunc))
		fn = ((WindowFunc *) node)->winfnoid;
	else if (IsA(node, OpExpr))
	{
		set_opfuncid((OpExpr *) node);
		fn = ((OpExpr *) node)->opfuncid;
	}
	if (OidIsValid(fn) && getExtensionOfObject(ProcedureRelationId, fn) == *ext)
		return true;
	return expression_tree_walker(node, calls_dpagg_walker, ext);
}

static PlannedStmt *
late_planner(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	Oid			ext;

	refuse_restricted();
	ext = get_extension_oid("dpagg", true);
	if (OidIsValid(ext) && calls_dpagg_walker((Node *) parse, &ext))
		refuse_not_preloaded("dpagg's functions need the ledger in shared memory, set up when the server starts.");
	if (prev_planner)
		return prev_planner(parse, query_string, options, params);
	return standard_planner(parse, query_string, options, params);
}

static void
late_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			 ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *queryEnv,
			 DestReceiver *dest, QueryCompletion *qc)
{
	/* transaction control too: a restricted session is refused from its first statement */
	if (IsTransactionState())
		refuse_restricted();
	if (prev_utility)
		prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
dpagg_preload_late_init(void)
{
	loaded_late = true;
	dpagg_restrict_cache_init();
	prev_planner = planner_hook;
	planner_hook = late_planner;
	prev_utility = ProcessUtility_hook;
	ProcessUtility_hook = late_utility;
}

/* dpagg_require_preload(): the first statement of the extension's script. */
PG_FUNCTION_INFO_V1(dpagg_require_preload);
Datum
dpagg_require_preload(PG_FUNCTION_ARGS)
{
	if (loaded_late)
		refuse_not_preloaded("CREATE EXTENSION dpagg needs the library loaded when the server starts (its ledger lives in shared memory).");
	PG_RETURN_VOID();
}

/* ---- restricted roles load dpagg at every session start ------------------------------------ */

/*
 * The role's session_preload_libraries settings: for every database (setdatabase 0) and for each
 * database of its own (ALTER ROLE ... IN DATABASE, which takes precedence there).  Returns the
 * databases (0 first) with the setting's value, NULL where the role has settings but not this one.
 */
typedef struct PreloadSetting
{
	Oid			database;
	char	   *value;
} PreloadSetting;

static List *
role_preload_settings(Oid role)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *out = NIL;
	PreloadSetting *all = palloc0(sizeof(PreloadSetting));

	all->database = InvalidOid;
	out = lappend(out, all);
	rel = table_open(DbRoleSettingRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_db_role_setting f = (Form_pg_db_role_setting) GETSTRUCT(tup);
		bool		isnull;
		Datum		d;
		PreloadSetting *ps;

		if (f->setrole != role)
			continue;
		d = heap_getattr(tup, Anum_pg_db_role_setting_setconfig, RelationGetDescr(rel), &isnull);
		if (isnull)
			continue;
		{
			ArrayType  *a = DatumGetArrayTypeP(d);
			Datum	   *items;
			int			n,
						i;
			char	   *value = NULL;

			deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &items, NULL, &n);
			for (i = 0; i < n; i++)
			{
				char	   *s = TextDatumGetCString(items[i]);

				if (strncmp(s, "session_preload_libraries=", 26) == 0)
					value = pstrdup(s + 26);
			}
			if (!OidIsValid(f->setdatabase))
				all->value = value;
			else if (value != NULL)
			{
				ps = palloc0(sizeof(PreloadSetting));
				ps->database = f->setdatabase;
				ps->value = value;
				out = lappend(out, ps);
			}
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return out;
}

static Node *
string_const(const char *str)
{
	A_Const    *c = makeNode(A_Const);

	c->val.sval.type = T_String;
	c->val.sval.sval = pstrdup(str);
	c->isnull = false;
	c->location = -1;
	return (Node *) c;
}

/* Add dpagg to one session_preload_libraries setting of the role (kept with what is there). */
static void
ensure_setting_loads_dpagg(Oid role, Oid database, const char *current)
{
	List	   *libs = NIL;
	List	   *args = NIL;
	ListCell   *lc;
	VariableSetStmt *set;

	if (current != NULL)
	{
		if (!SplitDirectoriesString(pstrdup(current), ',', &libs))
			libs = NIL;			/* unreadable: replaced by dpagg alone */
		foreach(lc, libs)
			if (pg_strcasecmp((char *) lfirst(lc), "dpagg") == 0 ||
				pg_strcasecmp((char *) lfirst(lc), "$libdir/dpagg") == 0)
				return;
	}
	foreach(lc, libs)
		if (((char *) lfirst(lc))[0] != '\0')
			args = lappend(args, string_const((char *) lfirst(lc)));
	args = lappend(args, string_const("dpagg"));
	set = makeNode(VariableSetStmt);
	set->kind = VAR_SET_VALUE;
	set->name = "session_preload_libraries";
	set->args = args;
	AlterSetting(database, role, set);
}

/* Every session of the role loads dpagg, in every database: its own setting for all databases,
 * and any it has for one database (which would take precedence there). */
static void
ensure_role_loads_dpagg(Oid role)
{
	ListCell   *lc;

	foreach(lc, role_preload_settings(role))
	{
		PreloadSetting *ps = (PreloadSetting *) lfirst(lc);

		ensure_setting_loads_dpagg(role, ps->database, ps->value);
	}
}

/* The role and every role that is a member of it, directly or not. */
static void
ensure_members_load_dpagg(Oid role, List **seen)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key[1];
	HeapTuple	tup;
	List	   *members = NIL;
	ListCell   *lc;

	if (list_member_oid(*seen, role))
		return;
	*seen = lappend_oid(*seen, role);
	if (superuser_arg(role))
		return;					/* never restricted */
	ensure_role_loads_dpagg(role);
	rel = table_open(AuthMemRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_auth_members_roleid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(role));
	scan = systable_beginscan(rel, AuthMemRoleMemIndexId, true, NULL, 1, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
		members = lappend_oid(members, ((Form_pg_auth_members) GETSTRUCT(tup))->member);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	foreach(lc, members)
		ensure_members_load_dpagg(lfirst_oid(lc), seen);
}

/* A role is being labelled restricted: it and its members load dpagg at session start. */
void
dpagg_preload_for_restricted(Oid role)
{
	List	   *seen = NIL;

	ensure_members_load_dpagg(role, &seen);
	CommandCounterIncrement();
}

/* After GRANT role TO member (or CREATE ROLE ... IN ROLE): members of restricted roles too. */
void
dpagg_preload_after_membership_change(void)
{
	List	   *seen = NIL;
	List	   *restricted = dpagg_restricted_role_labels();
	ListCell   *lc;

	foreach(lc, restricted)
		ensure_members_load_dpagg(lfirst_oid(lc), &seen);
	CommandCounterIncrement();
}
