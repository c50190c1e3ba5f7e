/*
 * grant_record.c — each node's record of the Citus grants it used and, on the coordinator, of
 * those it issued (docs/citus.md §6, conditions 5 and "Known limits"): shared memory of
 * dpagg.citus_grant_slots entries each, under one lock with one clock reading.  A worker refuses
 * a grant's second use on a shard, an expired grant and one issued before its record began; the
 * coordinator refuses, before the charge, a grant that would let one role hold more than
 * dpagg.citus_grants_per_role unexpired.  What a grant is and how a node checks the rest of it is
 * in citus_grant.c.
 */
#include "citus/grant_record.h"

#include <sys/stat.h>

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(dpagg_citus_grants_resume);

static int	grant_slots = 8192;
static int	grants_per_role = 1024;

int64
dpagg_unix_now_us(void)
{
	return (int64) GetCurrentTimestamp() +
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC;
}

/* One grant used on this node: a shared hash table keyed by (nonce, database). */
typedef struct GrantKey
{
	unsigned char nonce[DPAGG_GRANT_NONCE_LEN];
	Oid			database;
} GrantKey;

typedef struct GrantSlot
{
	GrantKey	key;
	int64		expires_us;
	uint8		used[DPAGG_GRANT_MAX_SHARDS / 8];	/* the grant's shards used here, by index */
} GrantSlot;

typedef struct GrantShared
{
	LWLock	   *lock;
	int64		ready_us;		/* grants issued before are refused (a new record began) */
	int64		clock_us;		/* the latest clock reading under the lock (never goes back) */
	bool		after_recovery;	/* started in recovery: refuses grants until resumed */
} GrantShared;

/*
 * One grant the coordinator issued and that has not expired: a shared hash table keyed by its
 * nonce, of dpagg.citus_grant_slots entries, so that the coordinator can refuse, before the
 * charge, a grant that would take a role past dpagg.citus_grants_per_role on the workers' records
 * (every grant a role holds on a worker was issued here, to that role, within its lifetime).
 */
typedef struct IssuedGrant
{
	unsigned char nonce[DPAGG_GRANT_NONCE_LEN];
	Oid			role;
	int64		expires_us;
} IssuedGrant;

static GrantShared *gshared = NULL;
static HTAB *used_grants = NULL;
static HTAB *issued_grants = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
grant_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(add_size(add_size(MAXALIGN(sizeof(GrantShared)),
											 hash_estimate_size(grant_slots, sizeof(GrantSlot))),
									hash_estimate_size(grant_slots, sizeof(IssuedGrant))));
	RequestNamedLWLockTranche("dpagg_citus_grants", 1);
}

static void
grant_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gshared = ShmemInitStruct("dpagg citus grants", sizeof(GrantShared), &found);
	if (!found)
	{
		struct stat st;

		/*
		 * A new record of used grants (a start, or the reinitialisation after a crash): grants
		 * issued before may have been used already, unrecorded.  A server that starts in
		 * recovery (a standby, a clone being made by Citus, a restored backup) is a copy of
		 * another node, which may still be serving the same shards with its own record: it
		 * refuses grants until a superuser resumes them (dpagg_citus_grants_resume(), once the
		 * copy serves shards of its own) or it is restarted as a primary.
		 */
		memset(gshared, 0, sizeof(GrantShared));
		gshared->lock = &(GetNamedLWLockTranche("dpagg_citus_grants"))[0].lock;
		gshared->ready_us = gshared->clock_us = dpagg_unix_now_us();
		gshared->after_recovery = stat(STANDBY_SIGNAL_FILE, &st) == 0 ||
			stat(RECOVERY_SIGNAL_FILE, &st) == 0 || stat("backup_label", &st) == 0;
	}
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(GrantKey);
	info.entrysize = sizeof(GrantSlot);
	used_grants = ShmemInitHash("dpagg citus used grants", grant_slots, grant_slots, &info,
								HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	memset(&info, 0, sizeof(info));
	info.keysize = DPAGG_GRANT_NONCE_LEN;
	info.entrysize = sizeof(IssuedGrant);
	issued_grants = ShmemInitHash("dpagg citus issued grants", grant_slots, grant_slots, &info,
								  HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	LWLockRelease(AddinShmemInitLock);
}

/* The clock, read under gshared->lock: never earlier than the last reading under it (even if the
 * system clock is stepped back), so that expiry and the node's record agree between holders. */
static int64
locked_now(void)
{
	gshared->clock_us = Max(dpagg_unix_now_us(), gshared->clock_us);
	return gshared->clock_us;
}

/* Forget the grants that have expired (they are refused from now on: use_grant). */
static void
forget_expired(int64 now)
{
	HASH_SEQ_STATUS seq;
	GrantSlot  *s;

	hash_seq_init(&seq, used_grants);
	while ((s = hash_seq_search(&seq)) != NULL)
		if (s->expires_us <= now)
			(void) hash_search(used_grants, &s->key, HASH_REMOVE, NULL);
}

/*
 * Record the use of a grant's shard (its index in the grant) on this node; refuse a second, an
 * expired grant, and one issued before this node's record began.  A grant is forgotten only once
 * it has expired (checked here, under the lock, against the same clock: no grant is accepted
 * after it could have been forgotten); a full table refuses, it never forgets a use.
 */
void
dpagg_grant_record_use(const dpagg_grant *g, int index)
{
	int64		now;
	GrantKey	key;
	GrantSlot  *s;
	bool		found;

	if (gshared == NULL || used_grants == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg must be loaded by shared_preload_libraries to release under a Citus grant")));
	memset(&key, 0, sizeof(key));
	memcpy(key.nonce, g->nonce, sizeof(key.nonce));
	key.database = MyDatabaseId;
	LWLockAcquire(gshared->lock, LW_EXCLUSIVE);
	/*
	 * The clock is read under the lock (an attack review): read before it, a backend that waited
	 * for the lock while another swept the grant as expired by a later reading would pass the
	 * grant as unexpired by its earlier one, find no record of it, and release its shard again.
	 * Under the lock, readings never go back from one holder to the next (even if the system
	 * clock is stepped back).
	 */
	now = locked_now();
	if (gshared->after_recovery)
	{
		LWLockRelease(gshared->lock);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg: this server started in recovery and does not release under Citus grants yet"),
				 errdetail("A standby, a clone or a restored backup is a copy of another node that may still release the same shards. Nothing was released."),
				 errhint("Once this server serves shards of its own (the other node is gone, or Citus has moved the shards), a superuser runs SELECT dpagg_citus_grants_resume() on it, or restarts it.")));
	}
	if (g->expires_us <= now || g->issued_us < gshared->ready_us)
	{
		bool		expired = g->expires_us <= now;

		LWLockRelease(gshared->lock);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg(expired ? "dpagg: this Citus grant has expired"
						: "dpagg: this Citus grant was issued before this node's record of used grants began"),
				 errdetail("Nothing was released."),
				 errhint(expired ? "Run the query on the coordinator again (dpagg.citus_grant_lifetime)."
						 : "The node restarted, recovered or was promoted since: run the query on the coordinator again.")));
	}
	s = hash_search(used_grants, &key, HASH_FIND, NULL);
	if (s != NULL && (s->used[index / 8] & (1 << (index % 8))) != 0)
	{
		LWLockRelease(gshared->lock);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg: this Citus grant was already used on this shard"),
				 errdetail("A grant lets each shard release once; this is a second use. Nothing was released."),
				 errhint("Run the query on the coordinator again: each execution is charged and granted anew.")));
	}
	if (s == NULL)
	{
		s = hash_search(used_grants, &key, HASH_ENTER_NULL, &found);
		if (s == NULL)
		{
			forget_expired(now);
			s = hash_search(used_grants, &key, HASH_ENTER_NULL, &found);
		}
		if (s == NULL)
		{
			LWLockRelease(gshared->lock);
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("dpagg: too many Citus grants in use on this node"),
					 errdetail("Nothing was released."),
					 errhint("Raise dpagg.citus_grant_slots (a restart) or lower dpagg.citus_grant_lifetime.")));
		}
		memset(s->used, 0, sizeof(s->used));
		s->expires_us = g->expires_us;
	}
	s->used[index / 8] |= (uint8) (1 << (index % 8));
	LWLockRelease(gshared->lock);
}

/*
 * On the coordinator, before the charge: record a grant about to be issued, against the role its
 * charge goes to (the login role, as the ledger charges: not the current role, which SET ROLE or a
 * SECURITY DEFINER function changes, so that neither lets one login hold more than its share nor
 * spends another's), or refuse (53400, nothing charged) if that role already holds
 * dpagg.citus_grants_per_role unexpired grants, or the record is full.  A role that filled the workers' records
 * (dpagg.citus_grant_slots) with many cheap queries would refuse everyone's worker-side releases
 * until its grants expired; this bounds what one role can hold (docs/citus.md §6).  An entry is
 * dropped when its grant expires, or by dpagg_grant_record_forget_issued if the charge fails.
 */
void
dpagg_grant_record_issue(const unsigned char *nonce, int64 expires_us)
{
	HASH_SEQ_STATUS seq;
	IssuedGrant *e;
	Oid			role = GetSessionUserId();
	int			held = 0;
	int64		now;
	bool		found;

	if (gshared == NULL || issued_grants == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg must be loaded by shared_preload_libraries to release under a Citus grant")));
	LWLockAcquire(gshared->lock, LW_EXCLUSIVE);
	now = locked_now();
	hash_seq_init(&seq, issued_grants);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (e->expires_us <= now)
			(void) hash_search(issued_grants, e->nonce, HASH_REMOVE, NULL);
		else if (e->role == role)
			held++;
	}
	e = held < grants_per_role ? hash_search(issued_grants, nonce, HASH_ENTER_NULL, &found) : NULL;
	if (e == NULL)
	{
		LWLockRelease(gshared->lock);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 held >= grants_per_role
				 ? errmsg("dpagg: role \"%s\" holds %d unexpired Citus grants, the most dpagg.citus_grants_per_role allows",
						  GetUserNameFromId(role, false), held)
				 : errmsg("dpagg: too many unexpired Citus grants on this coordinator (dpagg.citus_grant_slots)"),
				 errdetail("A query released on the workers holds a place in each worker's record of used grants until its grant expires (dpagg.citus_grant_lifetime); the limit keeps one role from filling those records and refusing everyone else's. Nothing was charged."),
				 errhint("Run it again once earlier grants have expired (at most dpagg.citus_grant_lifetime seconds), or ask the DBA to raise dpagg.citus_grants_per_role or dpagg.citus_grant_slots.")));
	}
	e->role = role;
	e->expires_us = expires_us;
	LWLockRelease(gshared->lock);
}

/* Drop a grant issue_grant recorded whose charge failed (it was never issued). */
void
dpagg_grant_record_forget_issued(const unsigned char *nonce)
{
	if (gshared == NULL || issued_grants == NULL)
		return;
	LWLockAcquire(gshared->lock, LW_EXCLUSIVE);
	(void) hash_search(issued_grants, nonce, HASH_REMOVE, NULL);
	LWLockRelease(gshared->lock);
}

/* A superuser's word that this server, which started in recovery, is no longer a copy of a node
 * that serves the same shards: its record of used grants begins now. */
Datum
dpagg_citus_grants_resume(PG_FUNCTION_ARGS)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only a superuser may resume releases under Citus grants")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this server is still in recovery")));
	if (gshared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg must be loaded by shared_preload_libraries to release under a Citus grant")));
	LWLockAcquire(gshared->lock, LW_EXCLUSIVE);
	gshared->after_recovery = false;
	gshared->ready_us = locked_now();
	LWLockRelease(gshared->lock);
	PG_RETURN_VOID();
}

void
dpagg_grant_record_init(void)
{
	DefineCustomIntVariable("dpagg.citus_grant_slots",
							"Citus grants (one per query) a node remembers, with the shards it used them on, until they expire.",
							NULL, &grant_slots, 8192, 64, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpagg.citus_grants_per_role",
							"Unexpired Citus grants one role may hold, checked on the coordinator before the charge.",
							"Keeps one role from filling the workers' records of used grants (dpagg.citus_grant_slots) and refusing everyone else's worker-side releases.",
							&grants_per_role, 1024, 1, 1000000, PGC_SIGHUP, 0, NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = grant_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = grant_shmem_startup;
}
