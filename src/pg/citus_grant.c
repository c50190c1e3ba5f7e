/*
 * citus_grant.c — worker-side releases on Citus, authorised by the coordinator (docs/citus.md,
 * §6 "Worker-side releases").
 *
 * A query level that reads one hash-distributed table alone, groups by its distribution column
 * and is the whole query can release on the workers, where Citus runs it whole (citus.c, "the
 * worker form").  The coordinator does what it does for every release: it charges the ledger
 * before a row is read.  It then seals a grant (src/core/grant): a random nonce, an expiry, the
 * database, the role, the table, and each release as charged (aggregate, epsilon, delta, parts),
 * under HMAC-SHA256 with the key in dpagg.citus_key_file, which every node holds.  The grant
 * travels to the workers as a bound parameter of the shard queries (Citus sends parameters with
 * the query, not in its text), in the qual dpagg_citus_grant($n), which does nothing itself.
 *
 * A worker (or the coordinator running a shard locally) releases under the grant only if:
 *   - the seal verifies under its own key, the grant has not expired, and it was made for this
 *     database and this role (Citus connects as the coordinator's current role);
 *   - the plan reads one relation, a shard of the grant's table, once, through scans, sorts,
 *     gathers and aggregations only, with no subplan, join, set operation, set-returning
 *     function, window or grouping set: so each row of the shard lies in at most one group of each
 *     release (a row is released once per call, as the one charge of a GROUP BY assumes);
 *   - the pair (nonce, shard) was not used before on this node (shared memory, kept until the
 *     grant expires): the rows of a shard are released once per grant;
 *   - each release matches one call of the grant, exactly (bit for bit in its epsilon, delta and
 *     parts), and each call is used once: a release the coordinator did not charge is refused.
 * So whatever the grant is used for, even by someone who learned it, each row of the table is
 * released at most once per charged call: parallel composition over the shards and the groups
 * keeps the analyst within what the coordinator charged.  The grant is not in the query text
 * (pg_stat_activity shows $n), but its secrecy is a second line only.
 */
#include "site.h"

#include <math.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "access/parallel.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "parser/parsetree.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "dpagg_core.h"

PG_FUNCTION_INFO_V1(dpagg_citus_grant);
PG_FUNCTION_INFO_V1(dpagg_citus_release);

static char *citus_key_file = NULL;
static int	grant_lifetime = 600;
static int	grant_slots = 8192;

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
				 errhint("Set it to the same key file on the coordinator and every worker (README, \"dpagg on Citus\").")));
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

static int64
unix_now_us(void)
{
	return (int64) GetCurrentTimestamp() +
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC;
}

/* ---- the used grants, per node ----------------------------------------------------------------- */

typedef struct GrantSlot
{
	unsigned char nonce[DPAGG_GRANT_NONCE_LEN];
	int64		expires_us;		/* 0: free */
	Oid			database;
	Oid			relid;			/* the shard */
} GrantSlot;

typedef struct GrantShared
{
	LWLock	   *lock;
	int			nslots;
	GrantSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} GrantShared;

static GrantShared *gshared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
grant_shmem_size(void)
{
	return add_size(offsetof(GrantShared, slots), mul_size(grant_slots, sizeof(GrantSlot)));
}

static void
grant_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(grant_shmem_size());
	RequestNamedLWLockTranche("dpagg_citus_grants", 1);
}

static void
grant_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gshared = ShmemInitStruct("dpagg citus grants", grant_shmem_size(), &found);
	if (!found)
	{
		memset(gshared, 0, grant_shmem_size());
		gshared->lock = &(GetNamedLWLockTranche("dpagg_citus_grants"))[0].lock;
		gshared->nslots = grant_slots;
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * Record the use of a grant on a shard; refuse a second.  (Used slots are freed only when their
 * grant has expired, when the grant itself is refused anyway; a full table refuses, it never
 * forgets a use.)  After a restart the table is empty: a grant outlives a restart only if the
 * restart is quicker than dpagg.citus_grant_lifetime (docs/citus.md).
 */
static void
use_grant(const dpagg_grant *g, Oid relid)
{
	int64		now = unix_now_us();
	int			free_slot = -1;
	int			i;

	if (gshared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg must be loaded by shared_preload_libraries to release under a Citus grant")));
	LWLockAcquire(gshared->lock, LW_EXCLUSIVE);
	for (i = 0; i < gshared->nslots; i++)
	{
		GrantSlot  *s = &gshared->slots[i];

		if (s->expires_us != 0 && s->expires_us <= now)
			s->expires_us = 0;	/* its grant is refused from now on anyway */
		if (s->expires_us == 0)
		{
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (s->relid == relid && s->database == MyDatabaseId &&
			memcmp(s->nonce, g->nonce, sizeof(s->nonce)) == 0)
		{
			LWLockRelease(gshared->lock);
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("dpagg: this Citus grant was already used on this shard"),
					 errdetail("A grant lets each shard release once; this is a second use. Nothing was released."),
					 errhint("Run the query on the coordinator again: each execution is charged and granted anew.")));
		}
	}
	if (free_slot < 0)
	{
		LWLockRelease(gshared->lock);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("dpagg: too many Citus grants in use on this node"),
				 errdetail("Nothing was released."),
				 errhint("Raise dpagg.citus_grant_slots (a restart) or lower dpagg.citus_grant_lifetime.")));
	}
	memcpy(gshared->slots[free_slot].nonce, g->nonce, sizeof(g->nonce));
	gshared->slots[free_slot].expires_us = g->expires_us;
	gshared->slots[free_slot].database = MyDatabaseId;
	gshared->slots[free_slot].relid = relid;
	LWLockRelease(gshared->lock);
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

static bool
is_function(Oid fn, PGFunction addr)
{
	FmgrInfo	f;

	if (!OidIsValid(fn) || get_func_nargs(fn) < 1)
		return false;
	fmgr_info(fn, &f);
	return f.fn_addr == addr;
}

bool
dpagg_is_citus_grant_function(Oid fn)
{
	return is_function(fn, dpagg_citus_grant);
}

bool
dpagg_is_citus_release_function(Oid fn)
{
	return is_function(fn, dpagg_citus_release);
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

		/* as citus.c makes it: ($n, 'template') above Citus's scan, whose rows it passes on */
		if (IsA(n, FuncExpr) && list_length(((FuncExpr *) n)->args) == 2 &&
			dpagg_is_citus_release_function(((FuncExpr *) n)->funcid) &&
			IsA(linitial(((FuncExpr *) n)->args), Param) &&
			((Param *) linitial(((FuncExpr *) n)->args))->paramkind == PARAM_EXTERN &&
			IsA(lsecond(((FuncExpr *) n)->args), Const) &&
			r->plan.lefttree != NULL && IsA(r->plan.lefttree, CustomScan))
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
	if (old != NULL && old->paramFetch != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg cannot run this plan with dynamic parameters"),
				 errhint("Run the query outside PL/pgSQL, or with citus.enable_... defaults.")));
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		grant_text = "explain-only";	/* no charge, no grant: nothing runs */
	else
	{
		dpagg_grant g;
		dpagg_error err;
		unsigned char key[DPAGG_GRANT_KEY_LEN];
		char	   *buf = palloc(DPAGG_GRANT_TEXT_MAX);
		char	   *db = get_database_name(MyDatabaseId);
		char	   *role = GetUserNameFromId(GetUserId(), false);

		if (dpagg_grant_from_template(TextDatumGetCString(tmpl->constvalue), &g, &err) != DPAGG_OK)
			dpagg_report(&err);
		read_key(key);			/* refused before anything is charged */
		/* The releases of the statement are admitted together, then charged (charge.c). */
		dpagg_charge_statement_begin();
		PG_TRY();
		{
			charge_calls(&g, true, NULL);
		}
		PG_FINALLY();
		{
			dpagg_charge_statement_end();
		}
		PG_END_TRY();
		charge_calls(&g, false, qd->sourceText);
		if (dpagg_secure_bytes(g.nonce, sizeof(g.nonce), &err) != DPAGG_OK)
			dpagg_report(&err);
		g.expires_us = unix_now_us() + (int64) grant_lifetime * USECS_PER_SEC;
		if (db == NULL || strlen(db) >= sizeof(g.database) || strlen(role) >= sizeof(g.role))
			elog(ERROR, "dpagg: database or role name too long for a Citus grant");
		strlcpy(g.database, db, sizeof(g.database));
		strlcpy(g.role, role, sizeof(g.role));
		if (dpagg_grant_seal(key, &g, buf, DPAGG_GRANT_TEXT_MAX, &err) != DPAGG_OK)
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
	Oid			logical;
	char	   *table;
	MemoryContextCallback *cb;

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || IsParallelWorker() || qd->estate == NULL)
		return;
	dpagg_walk_statement(qd->plannedstmt, find_grant_visit, &gf);
	if (gf.found == NIL)
		return;
	if (list_length(gf.found) != 1)
		refuse_grant("The query holds more than one grant");
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
	if (dpagg_grant_open(key, text_value, unix_now_us(), &a->grant, &err) != DPAGG_OK)
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
	logical = dpagg_citus_shard_of(sc.relid);
	table = OidIsValid(logical)
		? quote_qualified_identifier(get_namespace_name(get_rel_namespace(logical)), get_rel_name(logical))
		: NULL;
	if (table == NULL || strcmp(table, a->grant.table) != 0)
		refuse_grant("It does not read a shard of the grant's table");

	use_grant(&a->grant, sc.relid);
	a->estate = qd->estate;
	a->next = authorizations;
	authorizations = a;
	cb = MemoryContextAllocZero(qd->estate->es_query_cxt, sizeof(MemoryContextCallback));
	cb->func = forget_authorization;
	cb->arg = a;
	MemoryContextRegisterResetCallback(qd->estate->es_query_cxt, cb);
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

bool
dpagg_citus_granted(EState *estate, const char *aggregate, int sets, double epsilon, double delta,
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
	DefineCustomStringVariable("dpagg.citus_key_file",
							   "The key by which a Citus coordinator lets its workers release (empty: releases stay on the coordinator).",
							   "64 hexadecimal digits in a file only the server's user can read, the same on every node; relative to the data directory.",
							   &citus_key_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomIntVariable("dpagg.citus_grant_lifetime",
							"How long a Citus grant stays valid after its charge, in seconds.",
							NULL, &grant_lifetime, 600, 10, 86400, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("dpagg.citus_grant_slots",
							"Uses of Citus grants (one per shard and query) a node remembers until they expire.",
							NULL, &grant_slots, 8192, 64, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = grant_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = grant_shmem_startup;
}
