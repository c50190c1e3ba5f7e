/*
 * budget_admin.c — administering budgets: dp_set_budget and dp_drop_budget, and DROP ROLE, which
 * removes the role's account.  Each change is a record appended to the journal
 * (ledger_store.c) and applied to the shared accounts (ledger_shmem.c) under the ledger lock,
 * then flushed; ledger.h lists the other files.
 *
 * Budgets are keyed by role OID, and an OID can be reused by a later role: so the journal keeps
 * a "role dropped" record, and the views (budget_views.c) never show the records of a dropped
 * role as those of a later role with the same OID.  PREPARE TRANSACTION of a transaction that
 * dropped a role with an account is refused: the "role dropped" record is written at commit in
 * the dropping session, which COMMIT PREPARED is not.
 */
#include "ledger/ledger.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/catcache.h"
#include "utils/syscache.h"

static object_access_hook_type prev_object_access_hook = NULL;

/* A budget record: appended and applied under the lock, then flushed. */
static void
budget_record(RecordType type, Oid role, double epsilon, double delta, int method, double cap,
			  const char *role_name)
{
	char		buf[sizeof(LedgerRecord)];
	LedgerRecord *r = (LedgerRecord *) buf;
	XLogRecPtr	end;

	ledger_store_check_writable();
	ledger_require();
	ledger_record_init(r, type, role);
	if (role_name != NULL)
		namestrcpy(&r->role_name, role_name);	/* a dropped role's: its row is gone by now */
	r->epsilon = epsilon;
	r->delta = delta;
	r->method = method;
	r->cap = cap;
	if (type == REC_ROLE_DROPPED)
		r->query_id = (int64) GetCurrentTransactionId();	/* applied if it commits */
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	ledger_check_usable_locked();
	if (type == REC_ROLE_DROPPED && !ledger_pending_room_locked())
	{
		LWLockRelease(ledger->lock);
		ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
						errmsg("too many roles with privacy accounts are being dropped at once"),
						errdetail("Each waits for its transaction to commit before its account is removed; at most %d can wait.",
								  LEDGER_MAX_PENDING_DROPS),
						errhint("Drop fewer roles with accounts per transaction.")));
	}
	(void) ledger_account_locked(role);	/* room for the record's role (apply needs it) */
	end = ledger_store_append_locked(r);
	ledger_apply_record(r);
	LWLockRelease(ledger->lock);
	ledger_store_flush(end);
}

/*
 * DROP ROLE: budgets are keyed by role OID, and an OID can be reused by a later role.  A dropped
 * role's account is removed by a record appended when the dropping transaction commits (just
 * before: an error there aborts the DROP).  A DROP undone by a rolled-back savepoint is
 * forgotten; if the commit itself failed after this point, the role would keep existing without
 * a budget (fail closed).
 *
 * PREPARE TRANSACTION of a transaction that dropped a role with an account is refused: the
 * commit happens later (COMMIT PREPARED, maybe in another session or after a restart), where no
 * callback of this backend sees it, so the account would outlive the role and pass, budget and
 * spending, to a later role given the same OID.  A dropped role without an account needs no
 * record; dp_set_budget waits for the DROP's lock on the role (held by the prepared transaction)
 * and then finds the role gone, so none can be created in between.
 */
typedef struct PendingDrop
{
	Oid			role;
	int			level;			/* transaction nesting level of the DROP */
	NameData	name;			/* the role's name (its row is gone by PRE_PREPARE) */
} PendingDrop;
static List *pending_drops = NIL;

static void
role_drop_hook(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access == OAT_DROP && classId == AuthIdRelationId && ledger != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
		PendingDrop *p = palloc(sizeof(PendingDrop));
		const char *name = GetUserNameFromId(objectId, true);

		p->role = objectId;
		namestrcpy(&p->name, name ? name : "");
		p->level = GetCurrentTransactionNestLevel();
		pending_drops = lappend(pending_drops, p);
		MemoryContextSwitchTo(old);
	}
}

static void
role_drop_xact(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_PREPARE && pending_drops != NIL)
	{
		ListCell   *lc;

		foreach(lc, pending_drops)
		{
			PendingDrop *p = (PendingDrop *) lfirst(lc);

			if (ledger_has_account(p->role))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that dropped role \"%s\", which has a dpagg privacy account",
								NameStr(p->name)),
						 errdetail("Its account (budget and spending, keyed by OID %u) is removed only when the DROP commits in the session that made it; nothing was prepared.", p->role),
						 errhint("Drop the role in an ordinary transaction, not in a prepared one.")));
		}
	}
	else if (event == XACT_EVENT_PRE_COMMIT && pending_drops != NIL)
	{
		ListCell   *lc;
		List	   *todo = pending_drops;

		pending_drops = NIL;
		foreach(lc, todo)
		{
			PendingDrop *p = (PendingDrop *) lfirst(lc);

			if (ledger_has_account(p->role))
				budget_record(REC_ROLE_DROPPED, p->role, 0, 0, DPAGG_ACCOUNTING_BASIC, NAN, NameStr(p->name));
		}
	}
	else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
			 event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
			 event == XACT_EVENT_PREPARE)
		pending_drops = NIL;
}

static void
role_drop_subxact(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && pending_drops != NIL)
	{
		int			level = GetCurrentTransactionNestLevel();
		List	   *keep = NIL;
		ListCell   *lc;

		foreach(lc, pending_drops)
		{
			PendingDrop *p = (PendingDrop *) lfirst(lc);

			if (p->level < level)
				keep = lappend(keep, p);
		}
		pending_drops = keep;
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB && pending_drops != NIL)
	{
		int			level = GetCurrentTransactionNestLevel();
		ListCell   *lc;

		foreach(lc, pending_drops)
		{
			PendingDrop *p = (PendingDrop *) lfirst(lc);

			if (p->level >= level)
				p->level = level - 1;
		}
	}
}

/*
 * dp_set_budget(role, epsilon, delta, method, max_release_epsilon): an argument left out (NULL)
 * keeps the role's current value, so that raising a total never resets the accounting method
 * or the per-release cap (docs/guides/budgets.md, "Budgets").  A new budget needs epsilon; its
 * delta is then 0, its method basic and it has no cap.  max_release_epsilon => 'infinity' removes
 * a cap.  A budget that protects little (a large epsilon or delta) is set with a WARNING, and a
 * total below what the role has spent with a NOTICE: both are legitimate, neither is silent.
 */
#define WEAK_BUDGET_EPSILON 20.0
#define WEAK_BUDGET_DELTA 1e-4

PG_FUNCTION_INFO_V1(dpagg_set_budget);
Datum
dpagg_set_budget(PG_FUNCTION_ARGS)
{
	Oid			role;
	double		eps = NAN,
				delta = NAN,
				cap = NAN;
	int			method = -1;
	bool		keep_cap = PG_ARGISNULL(4);
	bool		had = false;
	bool		spent_before = false;	/* it released before (a dropped budget's spending stays) */
	dpagg_account now;
	dpagg_spent spent;
	const char *name;

	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("role must not be NULL"),
						errhint("Name the role, e.g. dp_set_budget('analyst', 1.0, 1e-6).")));
	role = PG_GETARG_OID(0);
	if (!PG_ARGISNULL(1))
		eps = PG_GETARG_FLOAT8(1);
	if (!PG_ARGISNULL(2))
		delta = PG_GETARG_FLOAT8(2);
	if (!PG_ARGISNULL(3))
	{
		char	   *m = text_to_cstring(PG_GETARG_TEXT_PP(3));

		if (pg_strcasecmp(m, "basic") == 0)
			method = DPAGG_ACCOUNTING_BASIC;
		else if (pg_strcasecmp(m, "zcdp") == 0)
			method = DPAGG_ACCOUNTING_ZCDP;
		else
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("unknown accounting method \"%s\"", m),
							errhint("Use 'basic' (epsilon and delta add up) or 'zcdp' (rho adds up for zCDP mechanisms).")));
	}
	if (!keep_cap)
	{
		cap = PG_GETARG_FLOAT8(4);
		if (isinf(cap) && cap > 0)
			cap = NAN;			/* 'infinity': no cap */
		else if (!isfinite(cap) || cap <= 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("max_release_epsilon must be > 0, or 'infinity' for no cap"),
							errhint("Leave it out (NULL) to keep the role's current cap.")));
	}
	/* Wait for a concurrent (or prepared) DROP ROLE holding the role's lock, then look again: an
	 * account created for a role whose DROP then commits would pass to a later role with its OID. */
	if (OidIsValid(role))
		LockSharedObject(AuthIdRelationId, role, 0, AccessShareLock);
	if (!OidIsValid(role) || !SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("role with OID %u does not exist", role)));
	/*
	 * A role created by this very transaction: the budget record is not transactional, so a
	 * ROLLBACK would leave an account for an OID no role has, which a later role could be given
	 * (a walk-through found one in dp_budgets, nameless).  Commit the role first.
	 */
	{
		HeapTuple	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(role));

		if (HeapTupleIsValid(tup))
		{
			bool		created_here =
				TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data)) &&
				(tup->t_data->t_infomask & HEAP_UPDATED) == 0;

			ReleaseSysCache(tup);
			if (created_here)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("role \"%s\" was created in this transaction", GetUserNameFromId(role, false)),
						 errdetail("A budget is recorded at once, whatever the transaction does; were the role's creation rolled back, the budget would outlive it."),
						 errhint("Commit the CREATE ROLE first, then set the budget.")));
		}
	}
	name = GetUserNameFromId(role, false);

	/* The current budget, for the arguments left out. */
	ledger_require();
	LWLockAcquire(ledger->lock, LW_SHARED);
	{
		RoleAccount *a = ledger_find_account(role, false);

		if (a != NULL)
		{
			now = a->acct;
			had = now.has_budget;
			spent_before = now.releases > 0;
		}
	}
	LWLockRelease(ledger->lock);
	if (PG_ARGISNULL(1))
	{
		if (!had)
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("role \"%s\" has no privacy budget yet: epsilon is required", name),
							errhint("For example dp_set_budget('%s', 1.0, 1e-6).", name)));
		eps = now.epsilon_total;
	}
	if (PG_ARGISNULL(2))
		delta = had ? now.delta_total : 0;
	if (method < 0)
		method = had ? now.method : DPAGG_ACCOUNTING_BASIC;
	if (keep_cap && had)
		cap = now.cap;

	if (!isfinite(eps) || eps < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("budget epsilon must be finite and >= 0"),
						errhint("For example dp_set_budget('analyst', 1.0, 1e-6).")));
	if (!isfinite(delta) || delta < 0 || delta >= 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("budget delta must be in [0, 1)"),
						errhint("Typical values are far below 1/n for n rows, e.g. 1e-6.")));
	if (method == DPAGG_ACCOUNTING_ZCDP && !(delta > 0))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("zcdp accounting needs a budget delta > 0"),
						errhint("The total rho is converted to epsilon at the budget's delta.")));
	budget_record(REC_BUDGET_SET, role, eps, delta, method, cap, NULL);

	/* budgets belong to the login role (charge.c): a group's members are not charged to it */
	{
		HeapTuple	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(role));

		if (HeapTupleIsValid(tup))
		{
			bool		login = ((Form_pg_authid) GETSTRUCT(tup))->rolcanlogin;
			CatCList   *members = SearchSysCacheList1(AUTHMEMROLEMEM, ObjectIdGetDatum(role));
			bool		group = members->n_members > 0 || role < FirstNormalObjectId;

			ReleaseSysCacheList(members);
			ReleaseSysCache(tup);
			if (!login && group)
				ereport(NOTICE,
						(errmsg("role \"%s\" is a group role that cannot log in: its budget is not shared by its members", name),
						 errdetail("Releases are charged to the session user's own budget; a member of \"%s\" is charged to its own.", name),
						 errhint("Give each member that releases a budget of its own.")));
		}
	}

	if (eps > WEAK_BUDGET_EPSILON || delta > WEAK_BUDGET_DELTA)
		ereport(WARNING,
				(errmsg("the privacy budget of role \"%s\" (epsilon %g, delta %g) protects little", name, eps, delta),
				 errdetail("Over all its releases, role \"%s\" may tell apart data that differ in one person by a factor of up to e^epsilon, and delta is the probability that even this fails; above epsilon %g or delta %g the guarantee is weak.",
						   name, WEAK_BUDGET_EPSILON, WEAK_BUDGET_DELTA),
				 errhint("Budgets of a few units of epsilon and a delta far below 1/n for n people (e.g. 1e-6) are usual (docs/guides/budgets.md).")));
	if (spent_before)
	{
		/* what it spent, under the new totals and method */
		dpagg_account next = now;

		next.has_budget = 1;
		next.epsilon_total = eps;
		next.delta_total = delta;
		next.method = method;
		next.cap = cap;
		spent = dpagg_spent_with(&next, NULL);
		if (next.releases > 0 && !dpagg_fits(&next, spent))
			ereport(NOTICE,
					(errmsg("role \"%s\" has already spent more than the new total (epsilon %g and delta %g, %s accounting)",
							name, spent.epsilon, spent.delta, ledger_method_name(method)),
					 errdetail("Its releases are refused until the total is raised above what it spent.")));
	}
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(dpagg_drop_budget);
Datum
dpagg_drop_budget(PG_FUNCTION_ARGS)
{
	Oid			role = PG_GETARG_OID(0);
	RoleAccount *a;
	bool		had;

	ledger_require();
	LWLockAcquire(ledger->lock, LW_SHARED);
	a = ledger_find_account(role, false);
	had = a != NULL && a->acct.has_budget;
	LWLockRelease(ledger->lock);
	if (had)
		budget_record(REC_BUDGET_DROP, role, 0, 0, DPAGG_ACCOUNTING_BASIC, NAN, NULL);
	PG_RETURN_BOOL(had);
}

void
ledger_role_drop_hooks_init(void)
{
	prev_object_access_hook = object_access_hook;
	object_access_hook = role_drop_hook;
	RegisterXactCallback(role_drop_xact, NULL);
	RegisterSubXactCallback(role_drop_subxact, NULL);
}
