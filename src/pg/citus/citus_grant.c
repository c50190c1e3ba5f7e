/*
 * citus_grant.c — worker-side releases on Citus, authorised by the coordinator (docs/citus.md,
 * §6 "Worker-side releases").
 *
 * A query level that reads one hash-distributed table alone, groups by its distribution column
 * and is the whole query can release on the workers, where Citus runs it whole (citus.c, "the
 * worker form").  The coordinator does what it does for every release: it charges the ledger
 * before a row is read.  It then seals a grant (src/core/grant): a random nonce, when it was
 * issued and when it expires, the database, the role, the table, each release as charged
 * (aggregate, epsilon, delta, parts), and the table's shards with the node group holding each,
 * under HMAC-SHA256 with the key in dpagg.citus_key_file, which every node holds.  The grant
 * travels to the workers as a bound parameter of the shard queries, in the qual
 * dpagg_citus_grant($n), which does nothing itself.
 *
 * A node (a worker, or the coordinator running a shard locally) releases under the grant only if:
 *   - it is not in recovery, the seal verifies under its own key, the grant has not expired, it
 *     was issued after this node's record of used grants began (a crash restart or a promotion
 *     starts a new record), and it was made for this database and this role;
 *   - the plan reads one relation, once, through scans, sorts, gathers and aggregations only (no
 *     subplan, join, set operation, set-returning function, window or grouping set): each row
 *     lies in at most one group of each release;
 *   - that relation is the shard the grant assigns to this node's group (by Citus's own shard
 *     naming, owned by the table's owner): a moved or split shard, a look-alike table, a standby
 *     or another node cannot use the grant;
 *   - this node has not used the grant on that shard before (shared memory, until it expires:
 *     grant_record.c, which also bounds the grants one role holds);
 *   - each release matches one call of the grant, exactly (bit for bit in its epsilon, delta and
 *     parts), and each call is used once: a release the coordinator did not charge is refused.
 * So whatever the grant is used for, even by someone who learned it, each row of the table is
 * released at most once per charged call: parallel composition over the shards and the groups
 * keeps the analyst within what the coordinator charged.  The grant is not in the query text
 * (pg_stat_activity shows $n) nor in error messages (log_parameter_max_length_on_error is
 * disarmed for the query), but its secrecy is a second line only.
 */
#include "citus/citus.h"
#include "citus/grant_record.h"

#include <math.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/pg_am.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_namespace.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "dpagg_core.h"

PG_FUNCTION_INFO_V1(dpagg_citus_grant);
PG_FUNCTION_INFO_V1(dpagg_citus_release);

static char *citus_key_file = NULL;
static int	grant_lifetime = 300;

/* ---- the key ------------------------------------------------------------------------------------ */

bool
dpagg_citus_key_configured(void)
{
	return citus_key_file != NULL && citus_key_file[0] != '\0';
}

/* The key, read at each use (a changed file is seen without a restart). */
static void
read_key(unsigned char *key)
{
	char	   *path;
	int			fd;
	struct stat st;
	char		buf[256];
	ssize_t		n;
	dpagg_error err;

	if (!dpagg_citus_key_configured())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg.citus_key_file is not set on this node"),
				 errhint("Set it to the same key file on the coordinator and every worker (docs/guides/citus.md).")));
	path = is_absolute_path(citus_key_file) ? pstrdup(citus_key_file)
		: psprintf("%s/%s", DataDir, citus_key_file);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open dpagg.citus_key_file \"%s\": %m", path)));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
	{
		CloseTransientFile(fd);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("dpagg.citus_key_file \"%s\" must be a regular file that only its owner can read", path),
				 errhint("chmod 600 the file; it is a secret like a server key.")));
	}
	n = read(fd, buf, sizeof(buf) - 1);
	CloseTransientFile(fd);
	if (n < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read dpagg.citus_key_file \"%s\": %m", path)));
	buf[n] = '\0';
	if (dpagg_grant_parse_key(buf, key, &err) != DPAGG_OK)
		dpagg_report(&err);
	explicit_bzero(buf, sizeof(buf));
}

/* ---- what Citus knows of shards ---------------------------------------------------------------- */

/* The shards of a distributed table and the group of each one's placement, into g; refused
 * (before anything is charged) if a shard has more or fewer than one placement, or too many. */
static void
table_shards(Oid relid, dpagg_grant *g)
{
	Oid			shard_rel = dpagg_citus_catalog("pg_dist_shard");
	Oid			placement_rel = dpagg_citus_catalog("pg_dist_placement");
	Relation	srel,
				prel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	int			i;

	g->nshards = 0;
	if (!OidIsValid(shard_rel) || !OidIsValid(placement_rel))
		elog(ERROR, "dpagg: Citus metadata not found");
	srel = table_open(shard_rel, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(srel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = dpagg_citus_catalog_attr(tup, srel, "shardid", &isnull);

		if (isnull)
			continue;
		if (g->nshards >= DPAGG_GRANT_MAX_SHARDS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("dpagg: a table with more than %d shards cannot release on the Citus workers",
							DPAGG_GRANT_MAX_SHARDS),
					 errdetail("Nothing was charged."),
					 errhint("Unset dpagg.citus_key_file on the coordinator to release on the coordinator.")));
		g->shards[g->nshards].shardid = DatumGetInt64(d);
		g->shards[g->nshards].groupid = -1;
		g->nshards++;
	}
	systable_endscan(scan);
	table_close(srel, AccessShareLock);

	prel = table_open(placement_rel, AccessShareLock);
	for (i = 0; i < g->nshards; i++)
	{
		int			placements = 0;

		ScanKeyInit(&key, get_attnum(placement_rel, "shardid"), BTEqualStrategyNumber, F_INT8EQ,
					Int64GetDatum(g->shards[i].shardid));
		scan = systable_beginscan(prel, InvalidOid, false, NULL, 1, &key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			bool		isnull;
			Datum		d = dpagg_citus_catalog_attr(tup, prel, "groupid", &isnull);

			if (!isnull)
				g->shards[i].groupid = DatumGetInt32(d);
			placements++;
		}
		systable_endscan(scan);
		if (placements != 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dpagg: shard " INT64_FORMAT " has %d placements; releases on the Citus workers need one",
							g->shards[i].shardid, placements),
					 errdetail("Nothing was charged."),
					 errhint("Unset dpagg.citus_key_file on the coordinator to release on the coordinator.")));
	}
	table_close(prel, AccessShareLock);
}

/* The schema-qualified name Citus gives shard shardid of table logical (its own shard_name()). */
static char *
citus_shard_name(Oid logical, int64 shardid)
{
	List	   *name = list_make2(makeString("pg_catalog"), makeString("shard_name"));
	Oid			types[3] = {REGCLASSOID, INT8OID, BOOLOID};
	Oid			fn = LookupFuncName(name, 3, types, true);

	if (!OidIsValid(fn))
		return NULL;
	return TextDatumGetCString(OidFunctionCall3(fn, ObjectIdGetDatum(logical), Int64GetDatum(shardid),
												BoolGetDatum(false)));
}

/* ---- the SQL functions ------------------------------------------------------------------------- */

/* The qual of a shard query that carries the grant: true; everything is checked when the query
 * starts (dpagg_citus_grant_authorize), so calling it tells nothing. */
Datum
dpagg_citus_grant(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(true);
}

/* The coordinator's one-time filter above a query released on the workers: it runs only if the
 * executor was given the grant, which the ExecutorStart hook makes after the charge. */
Datum
dpagg_citus_release(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) ||
		strncmp(text_to_cstring(PG_GETARG_TEXT_PP(0)), "dpagg-grant-1:", 14) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg: a query planned to release on the Citus workers ran without its charge"),
				 errdetail("Nothing was released.")));
	PG_RETURN_BOOL(true);
}

/*
 * Is fn dpagg_citus_grant (DPAGG_FN_GRANT) or dpagg_citus_release (DPAGG_FN_RELEASE)?  Asked for
 * every function call in the plan of every query that starts, so answered from a small per-backend
 * memo (an OID is not reused while the backend could still hold it in a plan: site.c's rule).
 */
#define DPAGG_FN_GRANT 1
#define DPAGG_FN_RELEASE 2
#define FN_MEMO 64
static struct
{
	Oid			oid;
	int			which;
} fn_memo[FN_MEMO];

static int
which_function(Oid fn)
{
	int			slot = fn % FN_MEMO;
	int			which = 0;
	FmgrInfo	f;

	if (!OidIsValid(fn))
		return 0;
	if (fn_memo[slot].oid == fn)
		return fn_memo[slot].which;
	if (get_func_nargs(fn) >= 1)
	{
		fmgr_info(fn, &f);
		which = f.fn_addr == dpagg_citus_grant ? DPAGG_FN_GRANT
			: f.fn_addr == dpagg_citus_release ? DPAGG_FN_RELEASE : 0;
	}
	fn_memo[slot].oid = fn;
	fn_memo[slot].which = which;
	return which;
}

bool
dpagg_is_citus_grant_function(Oid fn)
{
	return which_function(fn) == DPAGG_FN_GRANT;
}

bool
dpagg_is_citus_release_function(Oid fn)
{
	return which_function(fn) == DPAGG_FN_RELEASE;
}

static bool
role_can_login(Oid role)
{
	HeapTuple	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(role));
	bool		can;

	if (!HeapTupleIsValid(tup))
		return false;
	can = ((Form_pg_authid) GETSTRUCT(tup))->rolcanlogin;
	ReleaseSysCache(tup);
	return can;
}

/* ---- the coordinator: charge, seal, hand the grant to the executor ------------------------------ */

/* The marker above a plan released on the workers (citus.c), or NULL. */
static FuncExpr *
release_marker(PlannedStmt *stmt)
{
	Result	   *r;
	ListCell   *lc;

	if (stmt->planTree == NULL || !IsA(stmt->planTree, Result))
		return NULL;
	r = (Result *) stmt->planTree;
	if (r->resconstantqual == NULL || !IsA(r->resconstantqual, List))
		return NULL;
	foreach(lc, (List *) r->resconstantqual)
	{
		Node	   *n = lfirst(lc);

		/* as citus.c makes it: ($n, 'template') above the plan, whose rows it passes on (the
		 * function is volatile, so no analyst's qual becomes a one-time filter like it) */
		if (IsA(n, FuncExpr) && list_length(((FuncExpr *) n)->args) == 2 &&
			dpagg_is_citus_release_function(((FuncExpr *) n)->funcid) &&
			IsA(linitial(((FuncExpr *) n)->args), Param) &&
			((Param *) linitial(((FuncExpr *) n)->args))->paramkind == PARAM_EXTERN &&
			IsA(lsecond(((FuncExpr *) n)->args), Const) && r->plan.lefttree != NULL)
			return (FuncExpr *) n;
	}
	return NULL;
}

static void
charge_calls(const dpagg_grant *g, bool dry_run, const char *query_text)
{
	int			i,
				j;

	for (i = 0; i < g->ncalls; i++)
	{
		DpChargePart parts[2];

		for (j = 0; j < g->calls[i].nparts; j++)
		{
			parts[j].spec = g->calls[i].parts[j].spec;
			parts[j].epsilon = g->calls[i].parts[j].epsilon;
			parts[j].delta = g->calls[i].parts[j].delta;
			parts[j].rho = g->calls[i].parts[j].rho;
		}
		dpagg_charge_planned(g->calls[i].aggregate, g->calls[i].epsilon, g->calls[i].delta, parts,
							 g->calls[i].nparts, dry_run, query_text);
	}
}

void
dpagg_citus_grant_start(QueryDesc *qd, int eflags)
{
	FuncExpr   *marker = release_marker(qd->plannedstmt);
	Param	   *p;
	Const	   *tmpl;
	char	   *grant_text;
	ParamListInfo old = qd->params;
	ParamListInfo np;
	int			n;

	if (marker == NULL)
		return;
	p = linitial_node(Param, marker->args);
	tmpl = lsecond_node(Const, marker->args);
	if (p->paramkind != PARAM_EXTERN || p->paramid < 1 || tmpl->constisnull)
		elog(ERROR, "dpagg: malformed Citus release marker");
	/* dynamic parameters (PL/pgSQL's variables under a generic plan) are fetched into a copy */
	if (old != NULL && old->paramFetch != NULL)
		old = copyParamList(old);
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		grant_text = "explain-only";	/* no charge, no grant: nothing runs */
	else
	{
		dpagg_grant *g = palloc0(sizeof(dpagg_grant));
		dpagg_error err;
		unsigned char key[DPAGG_GRANT_KEY_LEN];
		char	   *buf = palloc(DPAGG_GRANT_TEXT_MAX);
		char	   *db = get_database_name(MyDatabaseId);
		char	   *role = GetUserNameFromId(GetUserId(), false);
		Oid			relid;

		if (dpagg_grant_from_template(TextDatumGetCString(tmpl->constvalue), g, &err) != DPAGG_OK)
			dpagg_report(&err);
		/* Everything that could refuse is done before anything is charged: the permissions
		 * (standard_ExecutorStart checks them only after this), the key, the shards. */
		(void) ExecCheckRTPerms(qd->plannedstmt->rtable, true);
		/* Citus connects to the workers as the current role: one that cannot log in (SET ROLE to
		 * a group role) would be refused there, after the charge */
		if (!role_can_login(GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("role \"%s\" cannot log in, and Citus would connect to the workers as it", role),
					 errdetail("This query would release on the Citus workers, which Citus reaches as the current role. Nothing was charged."),
					 errhint("RESET ROLE (or SET ROLE to a role that can log in) and run it again.")));
		read_key(key);
		relid = RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(g->table)),
								 AccessShareLock, false);
		table_shards(relid, g);
		if (db == NULL || strlen(db) >= sizeof(g->database) || strlen(role) >= sizeof(g->role))
			elog(ERROR, "dpagg: database or role name too long for a Citus grant");
		/* The grant's place in the role's share of the workers' records, before the charge. */
		if (dpagg_secure_bytes(g->nonce, sizeof(g->nonce), &err) != DPAGG_OK)
			dpagg_report(&err);
		g->issued_us = dpagg_unix_now_us();
		g->expires_us = g->issued_us + (int64) grant_lifetime * USECS_PER_SEC;
		dpagg_grant_record_issue(g->nonce, g->expires_us);
		/* The releases of the statement are admitted together, then charged (charge.c). */
		PG_TRY();
		{
			dpagg_charge_statement_begin();
			PG_TRY();
			{
				charge_calls(g, true, NULL);
			}
			PG_FINALLY();
			{
				dpagg_charge_statement_end();
			}
			PG_END_TRY();
			charge_calls(g, false, dpagg_statement_text(CurrentMemoryContext, qd->sourceText));
		}
		PG_CATCH();
		{
			dpagg_grant_record_forget_issued(g->nonce);
			PG_RE_THROW();
		}
		PG_END_TRY();
		strlcpy(g->database, db, sizeof(g->database));
		strlcpy(g->role, role, sizeof(g->role));
		if (dpagg_grant_seal(key, g, buf, DPAGG_GRANT_TEXT_MAX, &err) != DPAGG_OK)
			dpagg_report(&err);
		explicit_bzero(key, sizeof(key));
		grant_text = buf;
	}
	/* The executor's parameters, with the grant as $n: Citus sends every parameter with the shard
	 * queries (and marks those they do not use). */
	n = Max(p->paramid, old ? old->numParams : 0);
	np = makeParamList(n);
	if (old != NULL)
		memcpy(np->params, old->params, sizeof(ParamExternData) * old->numParams);
	np->params[p->paramid - 1].value = CStringGetTextDatum(grant_text);
	np->params[p->paramid - 1].isnull = false;
	np->params[p->paramid - 1].pflags = PARAM_FLAG_CONST;
	np->params[p->paramid - 1].ptype = TEXTOID;
	qd->params = np;
}

/* ---- a node that runs a shard query: check the grant, the plan, and the single use -------------- */

typedef struct Authorization
{
	struct Authorization *next;
	EState	   *estate;
	dpagg_grant grant;
	bool		used[DPAGG_GRANT_MAX_CALLS];
} Authorization;

static Authorization *authorizations = NULL;

static void
forget_authorization(void *arg)
{
	Authorization **pp;

	for (pp = &authorizations; *pp != NULL; pp = &(*pp)->next)
		if (*pp == (Authorization *) arg)
		{
			*pp = (*pp)->next;
			return;
		}
}

typedef struct GrantFind
{
	List	   *found;			/* FuncExpr * */
} GrantFind;

static bool
find_grant_walker(Node *node, GrantFind *gf)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr) && dpagg_is_citus_grant_function(((FuncExpr *) node)->funcid))
		gf->found = lappend(gf->found, node);
	return expression_tree_walker(node, find_grant_walker, gf);
}

static void
find_grant_visit(Plan *plan, void *context)
{
	GrantFind  *gf = (GrantFind *) context;

	(void) find_grant_walker((Node *) plan->targetlist, gf);
	(void) find_grant_walker((Node *) plan->qual, gf);
	if (IsA(plan, Result))
		(void) find_grant_walker(((Result *) plan)->resconstantqual, gf);
	if (IsA(plan, IndexScan))
		(void) find_grant_walker((Node *) ((IndexScan *) plan)->indexqualorig, gf);
	if (IsA(plan, BitmapHeapScan))
		(void) find_grant_walker((Node *) ((BitmapHeapScan *) plan)->bitmapqualorig, gf);
}

/* The calls of dpagg_citus_grant() in a plan's expressions (FuncExpr *): where a shard query
 * carries its grant (here), and what must not be left in the coordinator's plan (citus.c). */
List *
dpagg_citus_grant_calls(PlannedStmt *stmt)
{
	GrantFind	gf = {NIL};

	dpagg_walk_statement(stmt, find_grant_visit, &gf);
	return gf.found;
}

typedef struct ShapeContext
{
	PlannedStmt *stmt;
	Oid			relid;			/* the one relation scanned */
	int			scans;
	const char *refusal;
} ShapeContext;

/* Each input row in at most one group: a whitelist of plan nodes. */
static void
check_shape(Plan *plan, ShapeContext *sc)
{
	Index		scanrelid = 0;

	if (plan == NULL || sc->refusal != NULL)
		return;
	switch (nodeTag(plan))
	{
		case T_Result:
		case T_Sort:
		case T_IncrementalSort:
		case T_Gather:
		case T_GatherMerge:
		case T_Material:
		case T_Limit:
		case T_Unique:
			break;
		case T_Agg:
			if (((Agg *) plan)->groupingSets != NIL || ((Agg *) plan)->chain != NIL)
				sc->refusal = "grouping sets";
			break;
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
			scanrelid = ((Scan *) plan)->scanrelid;
			break;
		case T_BitmapIndexScan:
			return;				/* an index of the scan above it */
		case T_BitmapAnd:
		case T_BitmapOr:
			{
				/* index conditions combined for the bitmap heap scan above */
				ListCell   *lc;
				List	   *plans = IsA(plan, BitmapAnd) ? ((BitmapAnd *) plan)->bitmapplans
					: ((BitmapOr *) plan)->bitmapplans;

				foreach(lc, plans)
					if (!IsA(lfirst(lc), BitmapIndexScan) && !IsA(lfirst(lc), BitmapAnd) &&
						!IsA(lfirst(lc), BitmapOr))
						sc->refusal = "an unexpected bitmap plan";
				return;
			}
		case T_SubqueryScan:
			check_shape(((SubqueryScan *) plan)->subplan, sc);
			break;
		default:
			sc->refusal = "a join, set operation, function scan, window or set-returning function";
			return;
	}
	if (scanrelid != 0)
	{
		RangeTblEntry *rte = rt_fetch(scanrelid, sc->stmt->rtable);

		if (rte->rtekind != RTE_RELATION)
			sc->refusal = "a scan that is not of a table";
		else if (sc->scans > 0)
			sc->refusal = "more than one scan";
		else
			sc->relid = rte->relid;
		sc->scans++;
	}
	check_shape(plan->lefttree, sc);
	check_shape(plan->righttree, sc);
}

static void
refuse_grant(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("dpagg: this query cannot release under a Citus grant"),
			 errdetail("%s. Nothing was released.", why)));
}

void
dpagg_citus_grant_authorize(QueryDesc *qd, int eflags)
{
	GrantFind	gf = {NIL};
	FuncExpr   *f;
	Node	   *arg;
	char	   *text_value = NULL;
	unsigned char key[DPAGG_GRANT_KEY_LEN];
	dpagg_error err;
	Authorization *a;
	ShapeContext sc;
	int			group;
	int			index = -1;
	int			i;
	char	   *scanned;

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || IsParallelWorker() || qd->estate == NULL)
		return;
	gf.found = dpagg_citus_grant_calls(qd->plannedstmt);
	if (gf.found == NIL)
		return;
	/*
	 * The parameters' text that PostgreSQL prepared, when log_parameter_max_length_on_error is
	 * set (the role may set it), for the CONTEXT of any error of this query, which Citus relays to
	 * the coordinator's client: the grant would be in it.  Dropped first, before anything here can
	 * fail.
	 */
	if (qd->params != NULL)
		qd->params->paramValuesStr = NULL;
	if (list_length(gf.found) != 1)
		refuse_grant("The query holds more than one grant");
	if (RecoveryInProgress())
		refuse_grant("This server is in recovery");
	f = linitial_node(FuncExpr, gf.found);
	arg = linitial(f->args);
	if (IsA(arg, Const) && !((Const *) arg)->constisnull)
		text_value = TextDatumGetCString(((Const *) arg)->constvalue);
	else if (IsA(arg, Param) && ((Param *) arg)->paramkind == PARAM_EXTERN && qd->params != NULL &&
			 ((Param *) arg)->paramid >= 1 && ((Param *) arg)->paramid <= qd->params->numParams)
	{
		ParamExternData tmp;
		ParamExternData *d = qd->params->paramFetch != NULL
			? qd->params->paramFetch(qd->params, ((Param *) arg)->paramid, false, &tmp)
			: &qd->params->params[((Param *) arg)->paramid - 1];

		if (d != NULL && !d->isnull && d->ptype == TEXTOID)
			text_value = TextDatumGetCString(d->value);
	}
	if (text_value == NULL)
		refuse_grant("Its grant is not a text value");

	read_key(key);
	a = MemoryContextAllocZero(qd->estate->es_query_cxt, sizeof(Authorization));
	if (dpagg_grant_open(key, text_value, dpagg_unix_now_us(), &a->grant, &err) != DPAGG_OK)
		dpagg_report(&err);
	explicit_bzero(key, sizeof(key));
	if (strcmp(a->grant.database, get_database_name(MyDatabaseId)) != 0 ||
		strcmp(a->grant.role, GetUserNameFromId(GetUserId(), false)) != 0)
		refuse_grant("The grant was made for another database or role");

	memset(&sc, 0, sizeof(sc));
	sc.stmt = qd->plannedstmt;
	if (qd->plannedstmt->commandType != CMD_SELECT || qd->plannedstmt->subplans != NIL ||
		qd->plannedstmt->rowMarks != NIL)
		refuse_grant("The query has subqueries, locks rows or is not a SELECT");
	check_shape(qd->plannedstmt->planTree, &sc);
	if (sc.refusal != NULL)
		refuse_grant(psprintf("Its plan has %s", sc.refusal));
	if (sc.scans != 1)
		refuse_grant("Its plan does not read exactly one shard");

	/*
	 * The relation is the shard the grant gives this node: among the grant's shards placed on this
	 * node's group, the one Citus names so (its shard_name()), of the grant's table, owned by the
	 * table's owner, a plain heap table.
	 */
	group = dpagg_citus_local_group();
	scanned = quote_qualified_identifier(get_namespace_name(get_rel_namespace(sc.relid)),
										 get_rel_name(sc.relid));
	for (i = 0; group >= 0 && i < a->grant.nshards; i++)
	{
		Oid			logical;
		char	   *name;

		if (a->grant.shards[i].groupid != group)
			continue;
		logical = dpagg_citus_shard_table(a->grant.shards[i].shardid);
		if (!OidIsValid(logical) ||
			strcmp(quote_qualified_identifier(get_namespace_name(get_rel_namespace(logical)),
											  get_rel_name(logical)), a->grant.table) != 0)
			continue;
		name = citus_shard_name(logical, a->grant.shards[i].shardid);
		if (name != NULL && strcmp(name, scanned) == 0)
		{
			HeapTuple	lt = SearchSysCache1(RELOID, ObjectIdGetDatum(logical));
			HeapTuple	st = SearchSysCache1(RELOID, ObjectIdGetDatum(sc.relid));
			bool		same = HeapTupleIsValid(lt) && HeapTupleIsValid(st) &&
				((Form_pg_class) GETSTRUCT(lt))->relowner == ((Form_pg_class) GETSTRUCT(st))->relowner &&
				((Form_pg_class) GETSTRUCT(st))->relkind == RELKIND_RELATION &&
				((Form_pg_class) GETSTRUCT(st))->relam == HEAP_TABLE_AM_OID;

			if (HeapTupleIsValid(lt))
				ReleaseSysCache(lt);
			if (HeapTupleIsValid(st))
				ReleaseSysCache(st);
			if (same)
				index = i;
			break;
		}
	}
	if (index < 0)
		refuse_grant("It does not read a shard the grant places on this node");

	dpagg_grant_record_use(&a->grant, index);
	a->estate = qd->estate;
	a->next = authorizations;
	authorizations = a;
	dpagg_on_reset(qd->estate->es_query_cxt, forget_authorization, a);
}

static bool
same_double(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static bool
call_matches(const dpagg_grant_call *c, const char *aggregate, double epsilon, double delta,
			 const DpChargePart *parts, int nparts)
{
	int			j;

	if (strcmp(c->aggregate, aggregate) != 0 || !same_double(c->epsilon, epsilon) ||
		!same_double(c->delta, delta) || c->nparts != nparts)
		return false;
	for (j = 0; j < nparts; j++)
		if (strcmp(c->parts[j].spec, parts[j].spec) != 0 ||
			!same_double(c->parts[j].epsilon, parts[j].epsilon) ||
			!same_double(c->parts[j].delta, parts[j].delta) ||
			!same_double(c->parts[j].rho, parts[j].rho))
			return false;
	return true;
}

static bool
citus_granted(EState *estate, const char *aggregate, int sets, double epsilon, double delta,
					const DpChargePart *parts, int nparts, bool consume)
{
	Authorization *a;
	int			i;

	if (estate == NULL)
		return false;
	for (a = authorizations; a != NULL; a = a->next)
		if (a->estate == estate)
			break;
	if (a == NULL)
		return false;
	if (sets == 1)
		for (i = 0; i < a->grant.ncalls; i++)
			if (!a->used[i] && call_matches(&a->grant.calls[i], aggregate, epsilon, delta, parts, nparts))
			{
				if (consume)
					a->used[i] = true;
				return true;
			}
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("dpagg: this release of %s is not in the coordinator's grant", aggregate),
			 errdetail("Under a Citus grant a node makes only the releases the coordinator charged, each once. Nothing was released.")));
	pg_unreachable();
}

void
dpagg_citus_grant_init(void)
{
	/* the charge matches a worker-side release against its grant (ledger/charge.c) */
	dpagg_charge_set_grant_check(citus_granted);
	DefineCustomStringVariable("dpagg.citus_key_file",
							   "The key by which a Citus coordinator lets its workers release (empty: releases stay on the coordinator).",
							   "64 hexadecimal digits in a file only the server's user can read, the same on every node; relative to the data directory.",
							   &citus_key_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomIntVariable("dpagg.citus_grant_lifetime",
							"How long a Citus grant stays valid after its charge, in seconds.",
							NULL, &grant_lifetime, 300, 10, 86400, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	dpagg_grant_record_init();
}
