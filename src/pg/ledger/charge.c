/*
 * charge.c — the charge of a release: one per execution of an aggregation, taken before its Agg
 * node reads a row, appended to the ledger (a WAL record) and flushed before any value is
 * returned.  The rest
 * of the glue calls dpagg_charge_check_parts (when a call site is prepared) and dpagg_charge_at
 * (site.c); ledger.h lists the other files of the ledger.
 *
 *  - A release is charged before the Agg node that makes it reads its first input row (site.c
 *    wraps the node; the final function finds it charged), so nothing that stops the query later
 *    — a refusal, a cancel, a cursor left unread — leaves a scan unpaid.  The charge: under an
 *    exclusive lock the budget is checked against the shared totals (the composition maths is
 *    core/accounting.h), the record is appended (a page change and its WAL record) and the
 *    totals updated; then, outside that lock, the WAL is flushed to it, and synchronous standbys
 *    confirm it (ledger_store.c).
 *    Only then is noise drawn and the value returned.  The record does not belong to the
 *    analyst's transaction, so ROLLBACK, savepoints, caught exceptions, later errors, cursors,
 *    disconnects, SIGKILL and an immediate shutdown cannot undo it; and since each release
 *    appends exactly one record, which is replayed exactly once, none is counted twice.  A
 *    backend that dies between the append and the flush leaves a record that is durable only if
 *    the OS kept it: then it is counted without its value having been seen — the safe direction.
 *  - The charge is per execution of an aggregation (one Aggref of one Agg node): the groups of
 *    one grouping are disjoint, so they share it.  A rescan of the Agg node (correlated subquery,
 *    nested loop, ...) is a new execution and is charged again (dpagg_charge_at detects it),
 *    also when it re-reads states already released (which return their released values, or for
 *    dp_count, whose state is a bare count, fresh noise).  An
 *    execution that produces no group is charged too.  Each grouping set is charged as a release.
 *  - The role charged is the session user (the login role), so SET ROLE and SECURITY DEFINER
 *    functions cannot move a release onto another role's budget.
 *  - Releases happen only where the login role asked for them (check_release_context, before
 *    anything is appended): in a client backend, or a parallel worker of one; never in
 *    autovacuum, a background worker or a walsender, which would evaluate (say) an analyst's
 *    index or statistics expression on nobody's behalf.  Inside a security-restricted operation
 *    (ANALYZE, VACUUM, CREATE INDEX, REINDEX, CLUSTER, REFRESH MATERIALIZED VIEW, ...) the code
 *    run is the object owner's: a release there is allowed only when that owner is the login
 *    role itself and no SECURITY DEFINER function has switched the user since (otherwise a DBA's
 *    ANALYZE would pay, from the DBA's budget, for a trojan expression).
 *  - Superusers are limited like anyone by default (dpagg.limit_superusers = on) and need a
 *    budget.
 */
#include "ledger/ledger.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "common/hashfn.h"
#include "executor/instrument.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/proc.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

/* SQLSTATEs of dpagg's own refusals (documented in docs/guides/budgets.md, "Refusals"). */
#define ERRCODE_DPAGG_BUDGET_EXHAUSTED MAKE_SQLSTATE('5','3','D','P','1')
#define ERRCODE_DPAGG_RELEASE_CAP MAKE_SQLSTATE('5','3','D','P','2')
#define ERRCODE_DPAGG_RELEASE_FLOOR MAKE_SQLSTATE('5','3','D','P','3')

/*
 * Is this process the parallel worker of a client backend?  A parallel worker runs part of its
 * leader's query, with the leader's session user, current user and security context restored
 * (so the security-restricted-operation rule below applies to it as to the leader).  A release
 * can be finalized in a worker: a whole aggregation under a Gather (a correlated subquery, a
 * function running a DP query, debug force_parallel_mode), or an index expression in a parallel
 * CREATE INDEX.  Its leader must be a client backend, not a background worker, an autovacuum
 * worker or a walsender.
 */
static bool
parallel_worker_of_client(void)
{
	PGPROC	   *leader;
	int			i;

	if (!IsParallelWorker() || MyProc == NULL)
		return false;
	leader = MyProc->lockGroupLeader;
	if (leader == NULL || leader == MyProc)
		return false;
	if (leader->isBackgroundWorker || (leader->statusFlags & PROC_IS_AUTOVACUUM) != 0)
		return false;
	if (WalSndCtl != NULL)
		for (i = 0; i < max_wal_senders; i++)
		{
			WalSnd	   *w = &WalSndCtl->walsnds[i];
			pid_t		pid;

			SpinLockAcquire(&w->mutex);
			pid = w->pid;
			SpinLockRelease(&w->mutex);
			if (pid != 0 && pid == leader->pid)
				return false;
		}
	return true;
}

/* The Citus layer's check of a worker-side release against its grant (charge.h). */
static DpChargeGrantCheck grant_check = NULL;

void
dpagg_charge_set_grant_check(DpChargeGrantCheck check)
{
	grant_check = check;
}

/* Releases happen on the Citus coordinator only, in the backend of the session that asked
 * (docs/citus.md). */
static void
refuse_on_citus_worker(void)
{
	/*
	 * A backend Citus opened itself to run part of a query (its application_name says so): a
	 * release there would be charged to whichever role Citus logged in as (the current role of
	 * the session that asked, e.g. after SET ROLE), not to the session's login role.  dpagg's
	 * merges run in the asking backend (local execution, which the rewrite requires).  (Setting
	 * this name on one's own session only refuses one's own releases.)
	 */
	if (application_name != NULL && strncmp(application_name, "citus_internal", 14) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg does not release in a backend Citus opened for part of a query"),
				 errhint("Keep citus.enable_local_execution on.")));
	if (dpagg_citus_worker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg releases only on the Citus coordinator"),
				 errdetail("This server is a Citus worker: its shards' rows reach dpagg's releases as partial states sent to the coordinator, which keeps the ledger and charges each release once."),
				 errhint("Run the query on the coordinator (the node of group 0 in pg_dist_node).")));
}

/*
 * A release is made only where the login role asked for it (docs/guides/
 * budgets.md, "Where releases are refused"); called before anything is appended, so a refusal charges nothing.
 *
 * (a) Only client backends and their parallel workers release.  Autovacuum's ANALYZE evaluates
 *     the expressions of indexes and extended statistics once per sampled row, as a superuser
 *     session, on behalf of nobody; so would a background worker or a walsender.
 * (b) A security-restricted operation (ANALYZE, VACUUM, CREATE INDEX, REINDEX, CLUSTER,
 *     REFRESH MATERIALIZED VIEW, ...) runs as the object's owner the code that owner put in
 *     the object (index and statistics expressions, a materialized view's query).  A release
 *     there is charged to the login role, so it is allowed only when the owner is the login role
 *     (GetUserId() == GetSessionUserId()) and no SECURITY DEFINER function has changed the user
 *     since (SECURITY_LOCAL_USERID_CHANGE): otherwise a DBA's ANALYZE of an analyst's table
 *     would pay for the analyst's trojan expression, directly or through the DBA's own SECURITY
 *     DEFINER wrapper (which runs as the login role again).
 */
static void
check_release_context(void)
{
	Oid			uid;
	int			sec;

	if (MyBackendType != B_BACKEND && !parallel_worker_of_client())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg releases values only in client sessions, not in a process of type \"%s\"",
						GetBackendTypeDesc(MyBackendType)),
				 errdetail("Autovacuum and background workers evaluate expressions (of indexes, extended statistics, ...) on nobody's behalf. Nothing was released and nothing was charged."),
				 errhint("Do not put DP aggregates in index, statistics or other expressions that maintenance evaluates; run DP queries in a client session.")));
	GetUserIdAndSecContext(&uid, &sec);
	if ((sec & SECURITY_RESTRICTED_OPERATION) != 0 &&
		(uid != GetSessionUserId() || (sec & SECURITY_LOCAL_USERID_CHANGE) != 0))
	{
		const char *un = GetUserNameFromId(uid, true);
		const char *sn = GetUserNameFromId(GetSessionUserId(), true);

		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg does not release values inside a maintenance command that runs another role's code"),
				 errdetail("A security-restricted operation (ANALYZE, VACUUM, CREATE INDEX, REINDEX, CLUSTER, REFRESH MATERIALIZED VIEW, ...) is running as role \"%s\"%s in the session of role \"%s\", whose budget would be charged. Nothing was released and nothing was charged.",
						   un ? un : "?",
						   (sec & SECURITY_LOCAL_USERID_CHANGE) != 0 ? " (through a SECURITY DEFINER function)" : "",
						   sn ? sn : "?"),
				 errhint("Only the owner of the object, logged in as itself and without SECURITY DEFINER functions, may release from such a command (and is charged). Keep DP aggregates out of index and statistics expressions.")));
	}
	/* the SQL objects of the library's version (base/version.c): else refused before any charge */
	dpagg_check_sql_version();
}

/*
 * The releases of one statement, checked together: while the executor prepares a statement's
 * call sites (dpagg_charge_statement_begin/end, from the ExecutorStart hook), each site's dry run
 * is admitted against the budget as it stands plus the sites checked before it, and added to
 * them.  Otherwise a statement whose releases fit one by one but not together would pay the first
 * ones and then be refused, nothing released (an attack review).  A rescanned aggregation is
 * still charged, and may still be refused, at each later execution.
 */
#define STATEMENT_PENDING_MAX 64	/* beyond: each checked alone, as before */
static bool statement_active = false;
static int	statement_npending = 0;
static dpagg_release_cost statement_pending[STATEMENT_PENDING_MAX];

void
dpagg_charge_statement_begin(void)
{
	statement_npending = 0;
	statement_active = true;
}

void
dpagg_charge_statement_end(void)
{
	statement_active = false;
}

/*
 * The refusal of a release that does not fit the budget (53DP1), saying which limit is short and
 * by how much (docs/guides/budgets.md, "Refusals"): "exhausted" when that limit is used up, else
 * what the release needs and what is left, with a hint at what fits.  Called with the ledger lock
 * held; releases it.  `with` is the account with the statement's other releases added.
 */
static void pg_attribute_noreturn()
refuse_overspending(const dpagg_account *acct, const dpagg_account *with, const dpagg_release_cost *cost,
					double epsilon, const char *role, bool with_others, bool dry_run)
{
	dpagg_account acc = *acct;
	dpagg_spent now = dpagg_spent_with(with, NULL);
	dpagg_spent after = dpagg_spent_with(with, cost);
	bool		zcdp = acc.method == DPAGG_ACCOUNTING_ZCDP;
	double		te = acc.epsilon_total,
				td = zcdp ? acc.delta_total / 2 : acc.delta_total;
	bool		eps_short = !dpagg_within(after.epsilon, te);
	double		d_now = zcdp ? now.delta_approx : now.delta,
				d_after = zcdp ? after.delta_approx : after.delta;
	double		left = eps_short ? te - now.epsilon : td - d_now;
	const char *others = with_others ? " (with the statement's other releases)" : "";
	char		detail[512];

	LWLockRelease(ledger->lock);
	snprintf(detail, sizeof(detail),
			 "Spent epsilon %g and delta %g of %g and %g (%s accounting)%s. %s",
			 dpagg_spent_with(&acc, NULL).epsilon, dpagg_spent_with(&acc, NULL).delta,
			 acc.epsilon_total, acc.delta_total, ledger_method_name(acc.method), others,
			 dry_run ? "Nothing was released and nothing was charged."
			 : "This execution released and was charged nothing; the statement's earlier releases (e.g. earlier executions of a correlated subquery) stay charged.");
	if (!(left > (eps_short ? te : td) * DPAGG_BUDGET_SLACK))
		ereport(ERROR, (errcode(ERRCODE_DPAGG_BUDGET_EXHAUSTED),
						errmsg("privacy budget of role \"%s\" exhausted: its %s is used up", role,
							   eps_short ? "epsilon" : (zcdp ? "delta for approximate releases" : "delta")),
						errdetail("%s", detail),
						!eps_short && te - now.epsilon > te * DPAGG_BUDGET_SLACK
						? errhint("Epsilon %g is left: request delta 0 with a mechanism that needs none (e.g. 'laplace'), or ask an administrator to raise the total.",
								  te - now.epsilon)
						: errhint("Ask an administrator to raise the total with dp_set_budget(role, epsilon, delta).")));
	if (eps_short && zcdp)
		ereport(ERROR, (errcode(ERRCODE_DPAGG_BUDGET_EXHAUSTED),
						errmsg("privacy budget of role \"%s\" too small for this release: converted from zCDP, its epsilon would reach %g of %g",
							   role, after.epsilon, te),
						errdetail("%s Under zcdp accounting this release (epsilon %g) is charged rho %g%s.",
								  detail, epsilon, cost->rho,
								  cost->delta_nz > 0 ? " and its delta, as an approximate zCDP release" : ""),
						cost->delta_nz > 0
						? errhint("Request a smaller epsilon, or a Gaussian mechanism ('analytic_gaussian', 'multi_gaussian'), which zcdp accounting charges less.")
						: errhint("Request a smaller epsilon, or ask an administrator to raise the total.")));
	if (eps_short)
		ereport(ERROR, (errcode(ERRCODE_DPAGG_BUDGET_EXHAUSTED),
						errmsg("privacy budget of role \"%s\" too small for this release: it needs epsilon %g, %g is left",
							   role, cost->epsilon, left),
						errdetail("%s", detail),
						errhint("Request epsilon %g or less, or ask an administrator to raise the total.", left)));
	ereport(ERROR, (errcode(ERRCODE_DPAGG_BUDGET_EXHAUSTED),
					errmsg("privacy budget of role \"%s\" too small for this release: it needs delta %g, %g is left%s",
						   role, d_after - d_now, left, zcdp ? " for approximate releases" : ""),
					errdetail("%s", detail),
					errhint("Request delta %g or less, or delta 0 with a mechanism that needs none (e.g. 'laplace').", left)));
}

static void
ledger_charge(const char *aggregate, int sets, double epsilon, double delta,
			  const DpChargePart *parts, int nparts, bool dry_run, const char *query_text,
			  EState *estate)
{
	Oid			role = GetSessionUserId();
	bool		unlimited = superuser_arg(role) && !dpagg_limit_superusers;
	char		buf[LEDGER_RECORD_MAX];
	LedgerRecord *r = (LedgerRecord *) buf;
	RoleAccount *a;
	dpagg_charge_part *costs;
	dpagg_release_cost cost;
	XLogRecPtr	end;
	int			i;

	check_release_context();
	/* A shard query released under its coordinator's grant (citus_grant.c): the coordinator
	 * charged it; here it is matched against the grant, and used up, instead. */
	if (grant_check != NULL && grant_check(estate, aggregate, sets, epsilon, delta, parts, nparts, !dry_run))
		return;
	/* A session whose login role was dropped meanwhile: its account is gone, and a new one would
	 * pass, spending and all, to a later role given the same OID. */
	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
						errmsg("the login role of this session was dropped"),
						errdetail("Nothing was released.")));
	refuse_on_citus_worker();
	ledger_store_check_writable();
	ledger_require();
	ledger_record_init(r, REC_RELEASE, role);
	r->query_id = pgstat_get_my_query_id();
	/* the key that ties the releases of one client statement together (dp_ledger.statement_id):
	 * the session's pid (a parallel worker's leader's) and the statement's start time, which a
	 * parallel worker shares with its leader */
	{
		struct
		{
			int64		start;
			int32		pid;
			int32		zero;
		}			k;
		uint64		h;

		memset(&k, 0, sizeof(k));
		k.start = GetCurrentStatementStartTimestamp();
		k.pid = IsParallelWorker() && MyProc != NULL && MyProc->lockGroupLeader != NULL
			? MyProc->lockGroupLeader->pid : MyProcPid;
		h = DatumGetUInt64(hash_any_extended((const unsigned char *) &k, sizeof(k), 0));
		r->statement_key = h != 0 ? h : 1;	/* 0: a record without a key (1.0.0) */
	}
	/* the bare name; the views show "name xN" for N > 1 grouping sets */
	Assert(strlen(aggregate) < sizeof(r->aggregate));
	strlcpy(r->aggregate, aggregate, sizeof(r->aggregate));
	r->sets = sets;
	costs = palloc(sizeof(dpagg_charge_part) * Max(nparts, 1));
	for (i = 0; i < nparts; i++)
	{
		/* a part whose spec is empty is named by an earlier one (variance.c) */
		if (i > 0 && parts[i].spec[0] != '\0')
			strlcat(r->mechanism, " + ", sizeof(r->mechanism));
		strlcat(r->mechanism, parts[i].spec, sizeof(r->mechanism));
		costs[i].epsilon = parts[i].epsilon;
		costs[i].delta = parts[i].delta;
		costs[i].rho = parts[i].rho;
	}
	/*
	 * What it costs: epsilon and delta times the sets, and for zcdp accounting each part's rho
	 * (or epsilon^2 / 2 and its delta: core/accounting.h).  The delta is that of the parts, never
	 * more than the call's: a part whose mechanism is pure carries none (dpagg_charged_delta),
	 * so a release that uses no delta is charged none (docs/guides/budgets.md, "What is
	 * charged"); which mechanism a call uses depends on its public parameters only.
	 */
	if (nparts > 0)
	{
		double		used = 0;

		for (i = 0; i < nparts; i++)
			used += costs[i].delta;
		if (used < delta)
			delta = used;
	}
	dpagg_release_cost_of(sets, epsilon, delta, costs, nparts, &cost);
	pfree(costs);
	r->epsilon = cost.epsilon;
	r->delta = cost.delta;
	r->rho = cost.rho;
	r->delta_nz = cost.delta_nz;
	/* The text of the query that runs the aggregation (captured when it started; a cursor's
	 * release is charged at a FETCH, whose own text says nothing), else the client's. */
	if (query_text == NULL)
		query_text = debug_query_string;
	if (query_text)
	{
		int			len = strlen(query_text);

		if (len > QUERY_TEXT_MAX)
			len = pg_mbcliplen(query_text, len, QUERY_TEXT_MAX);
		memcpy(buf + sizeof(LedgerRecord), query_text, len);
		r->query_len = len;
		r->length = sizeof(LedgerRecord) + TYPEALIGN(8, len);
		memset(buf + sizeof(LedgerRecord) + len, 0, r->length - sizeof(LedgerRecord) - len);
	}

	LWLockAcquire(ledger->lock, dry_run ? LW_SHARED : LW_EXCLUSIVE);
	ledger_check_usable_locked();
	a = ledger_find_account(role, false);
	if (!unlimited && dpagg_require_budget && (a == NULL || !a->acct.has_budget))
	{
		LWLockRelease(ledger->lock);
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("role \"%s\" has no privacy budget", NameStr(r->role_name)),
						errdetail("Nothing was released."),
						errhint("An administrator grants one with dp_set_budget().")));
	}
	if (dry_run && (a == NULL || unlimited || !a->acct.has_budget))
	{
		LWLockRelease(ledger->lock);
		return;					/* nothing more to check */
	}
	/* Created only now, for a release that will be recorded: a refused one must not use up
	 * dpagg.max_roles. */
	if (a == NULL)
		a = ledger_account_locked(role);
	if (unlimited)
		r->flags |= FLAG_UNLIMITED;
	else if (!a->acct.has_budget)
		r->flags |= FLAG_NO_BUDGET;
	else
	{
		/* the cap and the floor apply to the epsilon of one grouping set; a dry run of a statement
		 * being prepared counts the releases checked before it */
		dpagg_account with = a->acct;
		dpagg_admission verdict;

		if (dry_run && statement_active)
			for (i = 0; i < statement_npending; i++)
				dpagg_account_add(&with, &statement_pending[i]);
		verdict = dpagg_admit(&with, &cost, epsilon, dpagg_min_release_epsilon);

		if (verdict == DPAGG_REFUSE_CAP)
		{
			double		cap = a->acct.cap;

			LWLockRelease(ledger->lock);
			ereport(ERROR, (errcode(ERRCODE_DPAGG_RELEASE_CAP),
							errmsg("epsilon %g exceeds the per-release cap %g of role \"%s\"", epsilon, cap, NameStr(r->role_name)),
							errdetail("Nothing was released and nothing was charged."),
							errhint("Request a smaller epsilon.")));
		}
		if (verdict == DPAGG_REFUSE_FLOOR)
		{
			double		floor = dpagg_min_release_epsilon;

			LWLockRelease(ledger->lock);
			ereport(ERROR, (errcode(ERRCODE_DPAGG_RELEASE_FLOOR),
							errmsg("epsilon %g is below dpagg.min_release_epsilon (%g)", epsilon, floor),
							errdetail("Nothing was released and nothing was charged."),
							errhint("Request an epsilon of at least %g.", floor)));
		}
		if (verdict != DPAGG_ADMIT)
			refuse_overspending(&a->acct, &with, &cost, epsilon, NameStr(r->role_name),
								dry_run && statement_active && statement_npending > 0, dry_run);
	}
	if (dry_run)
	{
		if (statement_active && a->acct.has_budget && !unlimited &&
			statement_npending < STATEMENT_PENDING_MAX)
			statement_pending[statement_npending++] = cost;
		LWLockRelease(ledger->lock);
		return;
	}
	end = ledger_store_append_locked(r);
	dpagg_account_add(&a->acct, &cost);
	LWLockRelease(ledger->lock);
	ledger_store_flush(end);
}

/*
 * How many grouping sets the Agg node computes (1 without GROUPING SETS): each set releases its
 * groups with the full epsilon, so the execution is charged that many releases at once, before
 * the first value of any set is returned.  Identical sets count separately; a set that turns
 * out to have no groups is charged all the same.
 */
static int
grouping_sets_of(AggState *as)
{
	Agg		   *agg = (Agg *) as->ss.ps.plan;
	int			n = list_length(agg->groupingSets);
	ListCell   *lc;

	foreach(lc, agg->chain)
		n += list_length(((Agg *) lfirst(lc))->groupingSets);
	return n > 0 ? n : 1;
}

/*
 * Everything a charge would refuse, checked without charging, when a call site is prepared
 * (before any row is read): the release context, the ledger, the budget's existence, the cap,
 * the floor and whether the release would overspend the budget as it stands.  A refusal that
 * came only at the first group's release would tell whether the data produced a group, free of
 * charge.  (The charge itself checks again: another session may spend in between.)
 */
void
dpagg_charge_check_parts(AggState *as, const char *aggregate, double epsilon, double delta,
						 const DpChargePart *parts, int nparts)
{
	ledger_charge(aggregate, grouping_sets_of(as), epsilon, delta, parts, nparts, true, NULL,
				  as->ss.ps.state);
}

void
dpagg_charge_precheck(const char *aggregate, double epsilon, double delta,
					  const DpChargePart *parts, int nparts)
{
	ledger_charge(aggregate, 1, epsilon, delta, parts, nparts, true, NULL, NULL);
}

/* One release planned to run on the Citus workers, charged (or dry-run) when its statement starts
 * on the coordinator (citus_grant.c). */
void
dpagg_charge_planned(const char *aggregate, double epsilon, double delta,
					 const DpChargePart *parts, int nparts, bool dry_run, const char *query_text)
{
	ledger_charge(aggregate, 1, epsilon, delta, parts, nparts, dry_run, query_text, NULL);
}

/*
 * The charge of one execution of an aggregation, keyed by `mark`.  An execution ends with a
 * rescan of the Agg node (ExecReScan), never inside one; the groups of one execution share the
 * charge.  The obvious detector, a shutdown callback on the node's output ExprContext, does not
 * work: a sorted aggregation rescans that context at every group boundary too.  What ExecReScan
 * alone does is close a loop of the node's instrumentation (InstrEndLoop, which counts nloops if
 * the node ran since the last one).  So the charge is keyed by the node's loop count: EXPLAIN
 * ANALYZE or auto_explain provide instrumentation, whose loop count is read only; otherwise dpagg
 * attaches a zeroed, timer-less one (no counters are collected) and marks it running at every
 * charge attempt, so that the next rescan counts.  A later loop is a new execution and is charged.
 */
void
dpagg_charge_at(AggState *as, DpChargeMark *mark, const char *aggregate, double epsilon,
				double delta, const DpChargePart *parts, int nparts, const char *query_text)
{
	Instrumentation *instr = as->ss.ps.instrument;

	if (instr == NULL)
	{
		instr = MemoryContextAllocZero(as->ss.ps.state->es_query_cxt, sizeof(Instrumentation));
		as->ss.ps.instrument = instr;
	}
	/* Without EXPLAIN ANALYZE / auto_explain (es_instrument == 0) the instrumentation is dpagg's:
	 * mark it running, so that the next ExecReScan closes this loop. */
	if (as->ss.ps.state->es_instrument == 0)
		instr->running = true;
	if (mark->charged && mark->loop == instr->nloops)
		return;
	ledger_charge(aggregate, grouping_sets_of(as), epsilon, delta, parts, nparts, false, query_text,
				  as->ss.ps.state);
	mark->charged = true;
	mark->loop = instr->nloops;
}
