/*
 * ledger_shmem.c — the ledger in shared memory: every role's account (budget and spending) as
 * read from the store, the lock, whether the ledger is usable (and why not), the budget GUCs,
 * and the startup hooks (dpagg_budget_init).  ledger.h lists the other files.
 *
 * The store (ledger_store.c: pages logged in the WAL) is the only source of truth: after every
 * server start and crash restart, the first process that needs the accounts reads the store into
 * this memory through ledger_apply_record (ledger_require calls ledger_store_load), and on a
 * standby redo applies each replayed record too.  So dpagg must be in shared_preload_libraries;
 * without it `ledger` stays NULL and every release is refused (ledger_require).  The charge
 * (charge.c) and the administration (budget_admin.c) read and change the accounts under
 * ledger->lock, appending the matching record in the same critical section, so that memory and
 * store never disagree.
 *
 * dpagg.limit_superusers and dpagg.require_budget are PGC_SIGHUP: only postgresql.conf / ALTER
 * SYSTEM and a reload change them, never a function running as a superuser in the middle of a
 * query.
 */
#include "ledger/ledger.h"

#include <math.h>

#include "access/transam.h"
#include "miscadmin.h"
#include "storage/procarray.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"

/* GUCs */
bool		dpagg_require_budget = true;
bool		dpagg_limit_superusers = true;
double		dpagg_min_release_epsilon = 0;
int			dpagg_max_roles = 1000;

LedgerShared *ledger = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
ledger_shmem_size(void)
{
	return add_size(offsetof(LedgerShared, roles), mul_size(sizeof(RoleAccount), dpagg_max_roles));
}

/* ------------------------------------------------------------------------------------------
 * The accounts.
 */
static void
remove_account(Oid role)
{
	int			i;

	for (i = 0; i < ledger->nroles; i++)
		if (ledger->roles[i].role == role)
		{
			/* A later role with the same OID starts afresh, with no budget. */
			ledger->roles[i] = ledger->roles[--ledger->nroles];
			return;
		}
}

/*
 * "Role dropped" records take effect when the DROP ROLE commits: the record is written before
 * the commit (the PRE_COMMIT callback of budget_admin.c) and the transaction can still fail after
 * it.  A record whose transaction is still running waits here; it is settled whenever an account
 * is looked up (the transaction status is in the commit log, on a standby too): applied if it
 * committed, forgotten if it aborted or never finished.  (Lock held exclusively, or at load.)
 */
static void
settle_pending_drops(void)
{
	int			i = 0;

	while (i < ledger->npending)
	{
		PendingRoleDrop *d = &ledger->pending[i];

		if (TransactionIdIsInProgress(d->xid))
		{
			i++;
			continue;
		}
		if (TransactionIdDidCommit(d->xid))
			remove_account(d->role);
		ledger->pending[i] = ledger->pending[--ledger->npending];
	}
}

bool
ledger_pending_room_locked(void)
{
	settle_pending_drops();
	return ledger->npending < LEDGER_MAX_PENDING_DROPS;
}

void
ledger_settle_pending(void)
{
	if (ledger->npending == 0)
		return;
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	settle_pending_drops();
	LWLockRelease(ledger->lock);
}

RoleAccount *
ledger_find_account(Oid role, bool create)
{
	int			i;

	if (ledger->npending > 0 && LWLockHeldByMeInMode(ledger->lock, LW_EXCLUSIVE))
		settle_pending_drops();

	for (i = 0; i < ledger->nroles; i++)
		if (ledger->roles[i].role == role)
			return &ledger->roles[i];
	if (!create || ledger->nroles >= dpagg_max_roles)
		return NULL;
	{
		RoleAccount *a = &ledger->roles[ledger->nroles++];

		memset(a, 0, sizeof(*a));
		a->role = role;
		a->acct.cap = NAN;
		return a;
	}
}

RoleAccount *
ledger_account_locked(Oid role)
{
	RoleAccount *a = ledger_find_account(role, true);

	if (a != NULL)
		return a;
	LWLockRelease(ledger->lock);
	ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					errmsg("dpagg's ledger has no room for another role"),
					errhint("Raise dpagg.max_roles (currently %d) and restart the server.", dpagg_max_roles)));
	return NULL;				/* not reached */
}

bool
ledger_has_account(Oid role)
{
	bool		known;

	ledger_require();
	LWLockAcquire(ledger->lock, LW_SHARED);
	known = ledger_find_account(role, false) != NULL;
	LWLockRelease(ledger->lock);
	return known;
}

bool
ledger_apply_record(const LedgerRecord *r)
{
	RoleAccount *a = ledger_find_account(r->role, true);

	if (a == NULL)
		return false;
	switch (r->type)
	{
		case REC_RELEASE:
			{
				dpagg_release_cost c = ledger_record_cost(r);

				dpagg_account_add(&a->acct, &c);
			}
			break;
		case REC_BUDGET_SET:
			a->acct.has_budget = true;
			a->acct.method = r->method;
			a->acct.epsilon_total = r->epsilon;
			a->acct.delta_total = r->delta;
			a->acct.cap = r->cap;
			break;
		case REC_BUDGET_DROP:
			a->acct.has_budget = false;
			break;
		case REC_ROLE_DROPPED:
			{
				TransactionId xid = (TransactionId) r->query_id;

				/* (An xid older than the commit log kept is taken as committed: it can no longer
				 * be looked up, and a DROP ROLE that failed after its record is rare.) */
				if (!TransactionIdIsValid(xid) ||
					TransactionIdPrecedes(xid, ShmemVariableCache->oldestClogXid) ||
					TransactionIdDidCommit(xid))
					remove_account(r->role);
				else if (TransactionIdIsInProgress(xid) && ledger->npending < LEDGER_MAX_PENDING_DROPS)
				{
					ledger->pending[ledger->npending].xid = xid;
					ledger->pending[ledger->npending].role = r->role;
					ledger->npending++;
				}
				/* else it aborted (or never committed before a crash): the role still exists.
				 * (The list cannot be full here: budget_record refuses a drop when it is.) */
			}
			break;
	}
	if (r->seq >= ledger->next_seq)
		ledger->next_seq = r->seq + 1;
	return true;
}

/* ------------------------------------------------------------------------------------------
 * The ledger's state.
 */
void
ledger_require(void)
{
	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg cannot release values: it is not loaded through shared_preload_libraries"),
				 errdetail("Every release is charged to a privacy budget in a durable ledger kept in shared memory."),
				 errhint("Add dpagg to shared_preload_libraries in postgresql.conf and restart the server.")));
	if (!ledger->loaded)
		ledger_store_load();
}

void
ledger_check_usable_locked(void)
{
	char		problem[256];

	if (ledger->usable)
		return;
	strlcpy(problem, ledger->problem, sizeof(problem));
	LWLockRelease(ledger->lock);
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("dpagg's ledger cannot be used: %s", problem),
					errdetail("Nothing is released, no budget changes and the views show nothing until an administrator restores the ledger and restarts the server."),
					errhint("See the server log and docs/guides/budgets.md, \"The ledger: durability, standbys, backups, upgrades\".")));
}

void
ledger_set_problem(const char *fmt, const char *detail)
{
	ledger->usable = false;
	snprintf(ledger->problem, sizeof(ledger->problem), fmt, detail);
	ereport(LOG, (errmsg("dpagg: %s", ledger->problem)));
}

/* ------------------------------------------------------------------------------------------
 * Startup.
 */
static void
ledger_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(ledger_shmem_size());
	RequestNamedLWLockTranche("dpagg", 1);
}

static void
ledger_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ledger = ShmemInitStruct("dpagg ledger", ledger_shmem_size(), &found);
	if (!found)
	{
		LWLockPadded *locks = GetNamedLWLockTranche("dpagg");

		ledger->lock = &locks[0].lock;
		ledger->problem[0] = '\0';
		ledger->usable = true;
		ledger->loaded = false;	/* by the first process that needs it: ledger_store_load */
		ledger->next_seq = 1;
		ledger->last_block = 0;
		ledger->npending = 0;
		ledger->nroles = 0;
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * The accounting method of the session user's budget, for auto (base.h): basic without a budget
 * or for an unlimited superuser, whose releases are not charged.  The role's own setting, not
 * the data: choosing by it reveals nothing.
 */
static int
session_accounting(void)
{
	Oid			role = GetSessionUserId();
	RoleAccount *a;
	int			method = DPAGG_ACCOUNTING_BASIC;

	if (ledger == NULL || !OidIsValid(role) || (superuser_arg(role) && !dpagg_limit_superusers))
		return method;
	LWLockAcquire(ledger->lock, LW_SHARED);
	a = ledger_find_account(role, false);
	if (a != NULL && a->acct.has_budget)
		method = a->acct.method;
	LWLockRelease(ledger->lock);
	return method;
}

void
dpagg_budget_init(void)
{
	/* PGC_SIGHUP, not PGC_SUSET: a function that runs as a superuser (a trojan in an analyst's
	 * object) must not be able to switch enforcement off with set_config() mid-query. */
	DefineCustomBoolVariable("dpagg.require_budget",
							 "Refuse releases by roles that have no privacy budget.",
							 "When off, a role without a budget may release without limit (every release is still recorded in the ledger). Set in postgresql.conf or with ALTER SYSTEM, then reload.",
							 &dpagg_require_budget, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dpagg.limit_superusers",
							 "Hold superusers to their privacy budget.",
							 "When on (default), a superuser needs a budget like any role. When off, releases by superusers are recorded in the ledger but not limited. Set in postgresql.conf or with ALTER SYSTEM, then reload.",
							 &dpagg_limit_superusers, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dpagg.min_release_epsilon",
							 "Smallest epsilon a limited role may release with (0: no minimum).",
							 "Bounds how many releases, hence ledger records, a budget allows: at most its epsilon divided by this.",
							 &dpagg_min_release_epsilon, 0, 0, 1e9, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpagg.max_roles",
							"Number of roles the ledger can account for (shared memory).",
							"Every role that has a budget or has released counts.",
							&dpagg_max_roles, 1000, 16, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	dpagg_set_accounting_source(session_accounting);
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ledger_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ledger_shmem_startup;
	ledger_store_register();
	ledger_role_drop_hooks_init();
}
