/*
 * budget.c — privacy budgets, the charge taken for every release, and the durable ledger.
 *
 * Design (README, "Privacy budgets"):
 *  - The ledger is an append-only journal file, $PGDATA/pg_dpagg/ledger, of checksummed records:
 *    one per release (a charge) and one per budget change.  It is the only source of truth: at
 *    server start, and again after every crash restart, the postmaster replays it into shared
 *    memory (per role: budget, spent epsilon / delta / rho, number of releases).  So dpagg must
 *    be in shared_preload_libraries; without it every release is refused.
 *  - A release is charged before the Agg node that makes it reads its first input row (site.c
 *    wraps the node; the final function finds it charged), so nothing that stops the query later
 *    — a refusal, a cancel, a cursor left unread — leaves a scan unpaid.  The charge: under an
 *    exclusive lock
 *    the budget is checked against the shared totals, the record is appended (one write()) and
 *    the totals updated; then, outside that lock, the journal is flushed to disk (fdatasync) with
 *    a group flush like PostgreSQL's WAL flush: whoever holds the flush lock syncs everything
 *    written so far, and waiting backends find their record already durable.  Only then is noise
 *    drawn and the value returned.  The record does not belong to the analyst's transaction, so
 *    ROLLBACK, savepoints, caught exceptions, later errors, cursors, disconnects, SIGKILL and an
 *    immediate shutdown cannot undo it; and since each release appends exactly one record, which
 *    is replayed exactly once, none is counted twice.  A backend that dies between the append
 *    and the flush leaves a record that is durable only if the OS kept it: then it is counted
 *    without its value having been seen — the safe direction.  Only the last record can be torn
 *    (a crash of the machine in the middle of a write); it carries no release and is cut off at
 *    load.  A damaged record anywhere else stops all releases until an administrator looks.
 *  - The charge is per execution of an aggregation (one Aggref of one Agg node): the groups of
 *    one grouping are disjoint, so they share it.  A rescan of the Agg node (correlated subquery,
 *    nested loop, ...) is a new execution and is charged again (dpagg_charge_at detects it),
 *    also when it re-reads states already released (which return their released values).  An
 *    execution that produces no group is charged too.
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
 *    budget.  dpagg.limit_superusers and dpagg.require_budget are PGC_SIGHUP: only
 *    postgresql.conf / ALTER SYSTEM and a reload change them, never a function running as a
 *    superuser in the middle of a query.
 *  - The journal keeps the role's OID and the names at the time of each event; the views show
 *    the current name of a role that still exists (DROP ROLE writes a "role dropped" record, so
 *    the records of a dropped role are never shown as those of a later role with the same OID).
 *    A non-auditor sees a numbering of its own rows, not the global sequence number (which would
 *    tell how many events other roles had).
 *  - PREPARE TRANSACTION of a transaction that dropped a role with an account is refused: the
 *    "role dropped" record is written at commit in the dropping session, which COMMIT PREPARED
 *    is not.
 */
#include "dpagg_pg.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "common/file_perm.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "port/pg_crc32c.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

/* SQLSTATEs of dpagg's own refusals (documented in the README). */
#define ERRCODE_DPAGG_BUDGET_EXHAUSTED MAKE_SQLSTATE('5','3','D','P','1')
#define ERRCODE_DPAGG_RELEASE_CAP MAKE_SQLSTATE('5','3','D','P','2')
#define ERRCODE_DPAGG_RELEASE_FLOOR MAKE_SQLSTATE('5','3','D','P','3')

#define LEDGER_DIR "pg_dpagg"
#define LEDGER_FILE LEDGER_DIR "/ledger"
#define LEDGER_FILE_MAGIC "DPAGGLG1"
#define LEDGER_HEADER_SIZE 16
#define RECORD_MAGIC 0x4450524Cu	/* "DPRL" */
#define QUERY_TEXT_MAX 1024
/* Comparisons of spent against total allow this relative slack, so that e.g. ten releases at
 * epsilon 0.1 fit a budget of 1.0 (the decimal 0.1 is stored a little above 0.1). */
#define BUDGET_SLACK 1e-12

/* GUCs */
static bool dpagg_require_budget = true;
static bool dpagg_limit_superusers = true;
static double dpagg_min_release_epsilon = 0;
static int	dpagg_max_roles = 1000;

typedef enum RecordType
{
	REC_RELEASE = 1,
	REC_BUDGET_SET = 2,
	REC_BUDGET_DROP = 3,
	REC_ROLE_DROPPED = 4			/* the role was dropped: its account is removed */
} RecordType;

typedef enum BudgetMethod
{
	METHOD_BASIC = 0,
	METHOD_ZCDP = 1
} BudgetMethod;

/* Record flags */
#define FLAG_UNLIMITED 1		/* a superuser, recorded but not limited */
#define FLAG_NO_BUDGET 2		/* released without a budget (dpagg.require_budget off) */

/* One journal record; the query text (query_len bytes) follows, padded to 8 bytes. */
typedef struct LedgerRecord
{
	uint32		magic;
	uint32		length;			/* whole record, padding included */
	pg_crc32c	crc;			/* CRC-32C of the record with this field zero */
	uint32		type;			/* RecordType */
	uint64		seq;
	TimestampTz at;
	Oid			role;			/* charged role / role whose budget changes */
	Oid			database;
	Oid			actor;			/* current user at the time (who ran the query / the change) */
	int32		pid;
	int32		flags;
	int32		method;			/* budget records */
	int64		query_id;
	double		epsilon;		/* release: requested; budget: total */
	double		delta;
	double		rho;			/* release: rho charged under zcdp accounting */
	double		delta_nz;		/* release: delta of its parts charged as approximate zCDP */
	uint64		flushed_hint;	/* the journal was durable up to here when this was appended */
	double		cap;			/* budget: per-release epsilon cap, NaN for none */
	NameData	role_name;
	NameData	database_name;
	NameData	actor_name;
	char		aggregate[16];	/* the aggregate's name (older records: "name xN", cut to 15 bytes) */
	char		mechanism[2 * DPAGG_MECH_SPEC_LEN];
	uint32		query_len;
	uint32		sets;			/* release: grouping sets charged; 0 in records written
								 * before this field existed (it was padding, always 0): the
								 * count is then in `aggregate` ("dp_count x2") or 1 */
} LedgerRecord;

/* Shared memory: the replayed totals. */
typedef struct RoleAccount
{
	Oid			role;
	bool		has_budget;
	int32		method;
	double		epsilon_total;
	double		delta_total;
	double		cap;			/* NaN: none */
	/* Sums over every release of the role (long double: no drift over many releases). */
	long double epsilon_all;
	long double delta_all;
	long double rho;			/* rho charged under zcdp accounting */
	long double delta_nz;		/* delta of the parts charged as approximate zCDP */
	int64		releases;
} RoleAccount;

typedef struct LedgerShared
{
	LWLock	   *lock;			/* accounts, next_seq, appending */
	LWLock	   *flush_lock;		/* the group flush */
	bool		usable;
	char		problem[256];	/* why not usable */
	uint64		next_seq;
	pg_atomic_uint64 write_pos; /* end of the journal as written */
	pg_atomic_uint64 flushed_pos;	/* end of the journal known durable */
	int			nroles;
	RoleAccount roles[FLEXIBLE_ARRAY_MEMBER];
} LedgerShared;

static LedgerShared *ledger = NULL;
static int	ledger_fd = -1;		/* this backend's append descriptor */
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static object_access_hook_type prev_object_access_hook = NULL;
static void role_drop_hook(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg);
static void role_drop_xact(XactEvent event, void *arg);
static void role_drop_subxact(SubXactEvent event, SubTransactionId mySubid,
							  SubTransactionId parentSubid, void *arg);

static const char *
method_name(int m)
{
	return m == METHOD_ZCDP ? "zcdp" : "basic";
}

static Size
ledger_shmem_size(void)
{
	return add_size(offsetof(LedgerShared, roles), mul_size(sizeof(RoleAccount), dpagg_max_roles));
}

/* ------------------------------------------------------------------------------------------
 * Accounting (pure functions of an account; used at replay and at every charge).
 */

/* The standard conversion: rho-zCDP implies (rho + 2 sqrt(rho ln(1/d)), d)-DP (Bun & Steinke
 * 2016, Prop. 1.3). */
static double
zcdp_epsilon(double rho, double d)
{
	if (rho <= 0)
		return 0;
	if (!(d > 0))
		return INFINITY;
	return rho + 2 * sqrt(rho * log(1 / d));
}

typedef struct Spent
{
	double		epsilon;
	double		delta;
	double		delta_approx;	/* zcdp: the deltas of the approximate parts */
} Spent;

/*
 * What the account has spent, under its method, after adding a release (r may be NULL).
 *
 * basic: epsilon and delta add up (sequential composition; valid for adaptively chosen releases,
 * Rogers et al. 2016, "Privacy odometers and filters").
 * zcdp: every release is (approximately) zCDP: a part of a release whose mechanism is rho-zCDP
 * with rho <= epsilon^2 / 2 is charged its rho; any other part, being (epsilon, delta)-DP, is
 * delta-approximately (epsilon^2 / 2)-zCDP (Bun & Steinke 2016) and is charged epsilon^2 / 2 and
 * its delta.  The budget's delta is split once, in advance: half for the conversion
 * rho -> epsilon = rho + 2 sqrt(rho ln(2 / delta)), half for the approximate parts; a release is
 * allowed while the converted epsilon stays within the budget's epsilon and the approximate
 * deltas within delta / 2.  With both limits fixed in advance this is a zCDP privacy filter;
 * its validity for adaptive releases (approximate parts included) is cited from Whitehouse et al.
 * 2023 (fully adaptive composition), not re-derived here.
 */
static Spent
spent_with(const RoleAccount *a, const LedgerRecord *r)
{
	Spent		s;

	if (a->method == METHOD_ZCDP && a->has_budget)
	{
		long double rho = a->rho + (r ? r->rho : 0);
		long double dnz = a->delta_nz + (r ? r->delta_nz : 0);
		double		dconv = a->delta_total / 2;

		s.epsilon = rho > 0 ? zcdp_epsilon((double) rho, dconv) : 0;
		s.delta = (double) dnz + (rho > 0 ? dconv : 0);
		s.delta_approx = (double) dnz;
	}
	else
	{
		s.epsilon = (double) (a->epsilon_all + (r ? r->epsilon : 0));
		s.delta = (double) (a->delta_all + (r ? r->delta : 0));
		s.delta_approx = s.delta;
	}
	return s;
}

static bool
within(double spent, double total)
{
	return spent <= total * (1 + BUDGET_SLACK) || spent == 0;
}

/* Does the spend fit the account's budget? */
static bool
fits(const RoleAccount *a, Spent s)
{
	if (a->method == METHOD_ZCDP)
		return within(s.epsilon, a->epsilon_total) && within(s.delta_approx, a->delta_total / 2);
	return within(s.epsilon, a->epsilon_total) && within(s.delta, a->delta_total);
}

static void
account_add_release(RoleAccount *a, const LedgerRecord *r)
{
	a->epsilon_all += r->epsilon;
	a->delta_all += r->delta;
	a->rho += r->rho;
	a->delta_nz += r->delta_nz;
	a->releases++;
}

static RoleAccount *
find_account(Oid role, bool create)
{
	int			i;

	for (i = 0; i < ledger->nroles; i++)
		if (ledger->roles[i].role == role)
			return &ledger->roles[i];
	if (!create || ledger->nroles >= dpagg_max_roles)
		return NULL;
	{
		RoleAccount *a = &ledger->roles[ledger->nroles++];

		memset(a, 0, sizeof(*a));
		a->role = role;
		a->cap = NAN;
		return a;
	}
}

/* Apply one record to the shared totals (replay and live). */
static bool
apply_record(const LedgerRecord *r)
{
	RoleAccount *a = find_account(r->role, true);

	if (a == NULL)
		return false;
	switch (r->type)
	{
		case REC_RELEASE:
			account_add_release(a, r);
			break;
		case REC_BUDGET_SET:
			a->has_budget = true;
			a->method = r->method;
			a->epsilon_total = r->epsilon;
			a->delta_total = r->delta;
			a->cap = r->cap;
			break;
		case REC_BUDGET_DROP:
			a->has_budget = false;
			break;
		case REC_ROLE_DROPPED:
			/* A later role with the same OID starts afresh, with no budget. */
			*a = ledger->roles[--ledger->nroles];
			break;
	}
	if (r->seq >= ledger->next_seq)
		ledger->next_seq = r->seq + 1;
	return true;
}

static pg_crc32c
record_crc(const LedgerRecord *r)
{
	pg_crc32c	crc;
	LedgerRecord tmp = *r;

	tmp.crc = 0;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &tmp, sizeof(tmp));
	COMP_CRC32C(crc, ((const char *) r) + sizeof(LedgerRecord), r->length - sizeof(LedgerRecord));
	FIN_CRC32C(crc);
	return crc;
}

/* ------------------------------------------------------------------------------------------
 * Startup: replay the journal into shared memory (postmaster, at start and after a crash).
 */
static void
ledger_problem(const char *fmt, const char *detail)
{
	ledger->usable = false;
	snprintf(ledger->problem, sizeof(ledger->problem), fmt, detail);
	ereport(LOG, (errmsg("dpagg: %s", ledger->problem)));
}

static void
fsync_path(const char *path, bool is_dir)
{
	int			fd = OpenTransientFile(path, (is_dir ? O_RDONLY : O_RDWR) | PG_BINARY);

	if (fd < 0)
		ereport(FATAL, (errcode_for_file_access(), errmsg("dpagg: could not open \"%s\": %m", path)));
	if (pg_fsync(fd) != 0)
		ereport(FATAL, (errcode_for_file_access(), errmsg("dpagg: could not fsync \"%s\": %m", path)));
	CloseTransientFile(fd);
}

/* Read and check the record at pos: true if it is whole, well-formed and its CRC matches. */
static bool
read_record(int fd, off_t pos, off_t size, char *buf)
{
	LedgerRecord *r = (LedgerRecord *) buf;
	size_t		rest;

	if (size - pos < (off_t) sizeof(LedgerRecord) ||
		pg_pread(fd, buf, sizeof(LedgerRecord), pos) != sizeof(LedgerRecord))
		return false;
	if (r->magic != RECORD_MAGIC || r->length < sizeof(LedgerRecord) ||
		r->length > sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8 || (r->length & 7) != 0 ||
		r->query_len > r->length - sizeof(LedgerRecord) || pos + (off_t) r->length > size)
		return false;
	rest = r->length - sizeof(LedgerRecord);
	if (rest > 0 && pg_pread(fd, buf + sizeof(LedgerRecord), rest, pos + sizeof(LedgerRecord)) != (ssize_t) rest)
		return false;
	return record_crc(r) == r->crc;
}

/* Loading stops: close, take the file's end as it is, and refuse releases with the reason. */
static void
load_refused(int fd, char *buf, off_t size, const char *fmt, const char *detail)
{
	if (buf)
		pfree(buf);
	if (fd >= 0)
		CloseTransientFile(fd);
	pg_atomic_init_u64(&ledger->write_pos, size);
	pg_atomic_init_u64(&ledger->flushed_pos, size);
	ledger_problem(fmt, detail);
}

static void
ledger_load(void)
{
	int			fd;
	struct stat st;
	char		header[LEDGER_HEADER_SIZE];
	off_t		pos,
				size;
	char	   *buf;
	int			nrec = 0;
	bool		had_dir;
	uint64		watermark = 0;

	ledger->usable = true;
	ledger->next_seq = 1;
	ledger->nroles = 0;

	had_dir = stat(LEDGER_DIR, &st) == 0;
	if (!had_dir)
	{
		if (MakePGDirectory(LEDGER_DIR) != 0 && errno != EEXIST)
			ereport(FATAL, (errcode_for_file_access(),
							errmsg("dpagg: could not create directory \"%s\": %m", LEDGER_DIR)));
		fsync_path(".", true);
	}
	else if (stat(LEDGER_FILE, &st) != 0)
	{
		/* The directory is there but the ledger is gone: never start from zero silently. */
		load_refused(-1, NULL, 0, "the ledger \"%s\" is missing; releases are refused (to start a new, empty ledger, remove the directory pg_dpagg while the server is stopped)",
					   LEDGER_FILE);
		return;
	}
	fd = OpenTransientFile(LEDGER_FILE, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
		ereport(FATAL, (errcode_for_file_access(), errmsg("dpagg: could not open \"%s\": %m", LEDGER_FILE)));
	if (fstat(fd, &st) != 0)
		ereport(FATAL, (errcode_for_file_access(), errmsg("dpagg: could not stat \"%s\": %m", LEDGER_FILE)));
	size = st.st_size;
	if (size < LEDGER_HEADER_SIZE)
	{
		/* New (or cut while being created, before any record): write the header. */
		memset(header, 0, sizeof(header));
		memcpy(header, LEDGER_FILE_MAGIC, 8);
		if (ftruncate(fd, 0) != 0 ||
			pg_pwrite(fd, header, sizeof(header), 0) != sizeof(header) || pg_fsync(fd) != 0)
			ereport(FATAL, (errcode_for_file_access(), errmsg("dpagg: could not write \"%s\": %m", LEDGER_FILE)));
		CloseTransientFile(fd);
		fsync_path(LEDGER_DIR, true);
		pg_atomic_init_u64(&ledger->write_pos, LEDGER_HEADER_SIZE);
		pg_atomic_init_u64(&ledger->flushed_pos, LEDGER_HEADER_SIZE);
		return;
	}
	if (pg_pread(fd, header, sizeof(header), 0) != sizeof(header) || memcmp(header, LEDGER_FILE_MAGIC, 8) != 0)
	{
		load_refused(fd, NULL, size, "the ledger \"%s\" is not a dpagg ledger; releases are refused", LEDGER_FILE);
		return;
	}
	buf = palloc(sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8);
	pos = LEDGER_HEADER_SIZE;
	while (pos < size)
	{
		LedgerRecord *r = (LedgerRecord *) buf;
		off_t		o;
		uint64		later = 0;
		char		where[64];

		if (read_record(fd, pos, size, buf))
		{
			if (!apply_record(r))
			{
				load_refused(fd, buf, size, "the ledger holds more roles than dpagg.max_roles (%s); raise it and restart",
							 LEDGER_FILE);
				return;
			}
			watermark = Max(watermark, r->flushed_hint);
			nrec++;
			pos += r->length;
			continue;
		}

		/*
		 * An invalid record.  A crash can leave the unflushed end of the journal partly written
		 * (records appended while a flush was pending, a sector not written): none of that was
		 * ever acknowledged, since a value is returned only after a flush, and a flush covers every
		 * earlier byte.  So if nothing says this offset had been flushed, the rest is cut off.  If
		 * a valid record (before it, or found further on by scanning) was appended when the
		 * journal was already durable beyond this offset, flushed data is damaged: refuse.
		 */
		for (o = pos + 8; o + (off_t) sizeof(LedgerRecord) <= size; o += 8)
		{
			if (read_record(fd, o, size, buf))
			{
				later = Max(later, ((LedgerRecord *) buf)->flushed_hint);
				o += ((LedgerRecord *) buf)->length - 8;
			}
		}
		snprintf(where, sizeof(where), "%lld", (long long) pos);
		if (Max(watermark, later) > (uint64) pos)
		{
			load_refused(fd, buf, size, "the ledger is damaged at byte %s of pg_dpagg/ledger, in data that had been flushed; releases are refused until an administrator restores it",
						 where);
			return;
		}
		ereport(LOG, (errmsg("dpagg: removing an unacknowledged torn end of the ledger (from byte %lld of %lld)",
							 (long long) pos, (long long) size)));
		if (ftruncate(fd, pos) != 0 || pg_fsync(fd) != 0)
			ereport(FATAL, (errcode_for_file_access(), errmsg("dpagg: could not truncate \"%s\": %m", LEDGER_FILE)));
		size = pos;
		break;
	}
	pfree(buf);
	CloseTransientFile(fd);
	pg_atomic_init_u64(&ledger->write_pos, size);
	pg_atomic_init_u64(&ledger->flushed_pos, size);
	ereport(LOG, (errmsg("dpagg: ledger loaded: %d records, %d roles", nrec, ledger->nroles)));
}

static void
ledger_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(ledger_shmem_size());
	RequestNamedLWLockTranche("dpagg", 2);
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
		ledger->flush_lock = &locks[1].lock;
		ledger->problem[0] = '\0';
		ledger_load();
	}
	LWLockRelease(AddinShmemInitLock);
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
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ledger_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ledger_shmem_startup;
	prev_object_access_hook = object_access_hook;
	object_access_hook = role_drop_hook;
	RegisterXactCallback(role_drop_xact, NULL);
	RegisterSubXactCallback(role_drop_subxact, NULL);
}

/* ------------------------------------------------------------------------------------------
 * Appending: one write() under the lock, then the group flush outside it.
 */
static void
require_ledger(void)
{
	if (ledger == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpagg cannot release values: it is not loaded through shared_preload_libraries"),
				 errdetail("Every release is charged to a privacy budget in a durable ledger kept in shared memory."),
				 errhint("Add dpagg to shared_preload_libraries in postgresql.conf and restart the server.")));
}

/* With the ledger lock held (either mode): refuse when the ledger is not usable (the lock is
 * released first). */
static void
check_usable_locked(void)
{
	char		problem[256];

	if (ledger->usable)
		return;
	strlcpy(problem, ledger->problem, sizeof(problem));
	LWLockRelease(ledger->lock);
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("dpagg cannot release values: %s", problem),
					errhint("See the server log; the ledger is %s in the data directory.", LEDGER_FILE)));
}

/* With the lock held exclusively: the role's account, created if needed; refuses (releasing the
 * lock) when there is no room for another role. */
static RoleAccount *
account_locked(Oid role)
{
	RoleAccount *a = find_account(role, true);

	if (a != NULL)
		return a;
	LWLockRelease(ledger->lock);
	ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					errmsg("dpagg's ledger has no room for another role"),
					errhint("Raise dpagg.max_roles (currently %d) and restart the server.", dpagg_max_roles)));
	return NULL;				/* not reached */
}

static void
open_ledger_fd(void)
{
	if (ledger_fd >= 0)
		return;
	/* A missing or damaged ledger is reported as such, not as a failure to open it. */
	LWLockAcquire(ledger->lock, LW_SHARED);
	check_usable_locked();
	LWLockRelease(ledger->lock);
	ledger_fd = BasicOpenFile(LEDGER_FILE, O_WRONLY | O_APPEND | PG_BINARY);
	if (ledger_fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not open the ledger \"%s\": %m", LEDGER_FILE)));
}

/* Called with the lock held exclusively; on failure releases the lock and reports. */
static uint64
append_locked(LedgerRecord *r)
{
	uint64		pos = pg_atomic_read_u64(&ledger->write_pos);
	ssize_t		n;

	r->magic = RECORD_MAGIC;
	r->seq = ledger->next_seq;
	r->flushed_hint = pg_atomic_read_u64(&ledger->flushed_pos);
	r->crc = record_crc(r);
	errno = 0;
	n = write(ledger_fd, r, r->length);
	if (n != (ssize_t) r->length)
	{
		int			save = errno ? errno : ENOSPC;

		/* Remove a partial record so that the journal stays a sequence of whole records. */
		if (n > 0 && ftruncate(ledger_fd, (off_t) pos) != 0)
		{
			ledger->usable = false;
			strlcpy(ledger->problem, "a failed ledger write could not be undone; restart the server", sizeof(ledger->problem));
		}
		LWLockRelease(ledger->lock);
		errno = save;
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not write the ledger: %m"),
						errdetail("Nothing was released.")));
	}
	ledger->next_seq++;
	pos += r->length;
	pg_atomic_write_u64(&ledger->write_pos, pos);
	return pos;
}

/* Make the journal durable up to `upto` (group flush). */
static void
flush_to(uint64 upto)
{
	while (pg_atomic_read_u64(&ledger->flushed_pos) < upto)
	{
		if (LWLockAcquireOrWait(ledger->flush_lock, LW_EXCLUSIVE))
		{
			if (pg_atomic_read_u64(&ledger->flushed_pos) < upto)
			{
				uint64		target = pg_atomic_read_u64(&ledger->write_pos);

				if (pg_fdatasync(ledger_fd) != 0)
				{
					int			save = errno;

					LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
					ledger->usable = false;
					strlcpy(ledger->problem, "the ledger could not be synced to disk; releases are refused until a restart",
							sizeof(ledger->problem));
					LWLockRelease(ledger->lock);
					LWLockRelease(ledger->flush_lock);
					errno = save;
					ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not sync the ledger: %m"),
									errdetail("Nothing was released.")));
				}
				pg_atomic_write_u64(&ledger->flushed_pos, target);
			}
			LWLockRelease(ledger->flush_lock);
		}
	}
}

static void
fill_common(LedgerRecord *r, RecordType type, Oid role)
{
	const char *rn = GetUserNameFromId(role, true);
	const char *an;
	char	   *dbn = MyDatabaseId != InvalidOid ? get_database_name(MyDatabaseId) : NULL;

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->at = GetCurrentTimestamp();
	r->role = role;
	r->database = MyDatabaseId;
	r->actor = GetUserId();
	r->pid = MyProcPid;
	r->cap = NAN;
	an = GetUserNameFromId(r->actor, true);
	namestrcpy(&r->role_name, rn ? rn : "");
	namestrcpy(&r->actor_name, an ? an : "");
	namestrcpy(&r->database_name, dbn ? dbn : "");
	r->length = sizeof(LedgerRecord);
}

/* ------------------------------------------------------------------------------------------
 * The charge of a release.
 */

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

/*
 * A release is made only where the login role asked for it (README, "Where releases are
 * refused"); called before anything is appended, so a refusal charges nothing.
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
}

static void
ledger_charge(const char *aggregate, int sets, double epsilon, double delta,
			  const DpChargePart *parts, int nparts, bool dry_run, const char *query_text)
{
	Oid			role = GetSessionUserId();
	bool		unlimited = superuser_arg(role) && !dpagg_limit_superusers;
	char		buf[sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8];
	LedgerRecord *r = (LedgerRecord *) buf;
	RoleAccount *a;
	uint64		end;
	int			i;

	check_release_context();
	require_ledger();
	if (!dry_run)
		open_ledger_fd();
	fill_common(r, REC_RELEASE, role);
	r->query_id = pgstat_get_my_query_id();
	/* the bare name; the views show "name xN" for N > 1 grouping sets */
	Assert(strlen(aggregate) < sizeof(r->aggregate));
	strlcpy(r->aggregate, aggregate, sizeof(r->aggregate));
	r->sets = sets;
	r->epsilon = epsilon * sets;
	r->delta = delta * sets;
	for (i = 0; i < nparts; i++)
	{
		double		rho = parts[i].rho;

		if (i > 0)
			strlcat(r->mechanism, " + ", sizeof(r->mechanism));
		strlcat(r->mechanism, parts[i].spec, sizeof(r->mechanism));
		/* For zcdp accounting (spent_with): a part is charged its rho when its mechanism is
		 * rho-zCDP with rho <= epsilon^2 / 2, otherwise epsilon^2 / 2 and its delta (approximate
		 * zCDP).  Both are valid guarantees of the part; the choice depends only on public values. */
		if (!isnan(rho) && rho <= parts[i].epsilon * parts[i].epsilon / 2)
			r->rho += rho * sets;
		else
		{
			r->rho += parts[i].epsilon * parts[i].epsilon / 2 * sets;
			r->delta_nz += parts[i].delta * sets;
		}
	}
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
	check_usable_locked();
	a = find_account(role, false);
	if (!unlimited && dpagg_require_budget && (a == NULL || !a->has_budget))
	{
		LWLockRelease(ledger->lock);
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("role \"%s\" has no privacy budget", NameStr(r->role_name)),
						errdetail("Nothing was released."),
						errhint("An administrator grants one with dp_set_budget().")));
	}
	if (dry_run && (a == NULL || unlimited || !a->has_budget))
	{
		LWLockRelease(ledger->lock);
		return;					/* nothing more to check */
	}
	/* Created only now, for a release that will be recorded: a refused one must not use up
	 * dpagg.max_roles. */
	if (a == NULL)
		a = account_locked(role);
	if (unlimited)
		r->flags |= FLAG_UNLIMITED;
	else if (!a->has_budget)
		r->flags |= FLAG_NO_BUDGET;
	else
	{
		Spent		s = spent_with(a, r);

		if (!isnan(a->cap) && epsilon > a->cap * (1 + BUDGET_SLACK))	/* per grouping set */
		{
			double		cap = a->cap;

			LWLockRelease(ledger->lock);
			ereport(ERROR, (errcode(ERRCODE_DPAGG_RELEASE_CAP),
							errmsg("epsilon %g exceeds the per-release cap %g of role \"%s\"", epsilon, cap, NameStr(r->role_name)),
							errdetail("Nothing was released and nothing was charged."),
							errhint("Request a smaller epsilon.")));
		}
		if (epsilon < dpagg_min_release_epsilon)
		{
			double		floor = dpagg_min_release_epsilon;

			LWLockRelease(ledger->lock);
			ereport(ERROR, (errcode(ERRCODE_DPAGG_RELEASE_FLOOR),
							errmsg("epsilon %g is below dpagg.min_release_epsilon (%g)", epsilon, floor),
							errdetail("Nothing was released and nothing was charged."),
							errhint("Request an epsilon of at least %g.", floor)));
		}
		if (!fits(a, s))
		{
			Spent		now = spent_with(a, NULL);
			double		te = a->epsilon_total,
						td = a->delta_total;
			const char *m = method_name(a->method);

			LWLockRelease(ledger->lock);
			ereport(ERROR, (errcode(ERRCODE_DPAGG_BUDGET_EXHAUSTED),
							errmsg("privacy budget of role \"%s\" exhausted", NameStr(r->role_name)),
							errdetail("Spent epsilon %g and delta %g of %g and %g (%s accounting); this release of epsilon %g and delta %g would overspend. Nothing was released.",
									  now.epsilon, now.delta, te, td, m, epsilon, delta),
							errhint("Ask an administrator to raise the budget with dp_set_budget(), or request less.")));
		}
	}
	if (dry_run)
	{
		LWLockRelease(ledger->lock);
		return;
	}
	end = append_locked(r);
	account_add_release(a, r);
	LWLockRelease(ledger->lock);
	flush_to(end);
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
	ledger_charge(aggregate, grouping_sets_of(as), epsilon, delta, parts, nparts, true, NULL);
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
	ledger_charge(aggregate, grouping_sets_of(as), epsilon, delta, parts, nparts, false, query_text);
	mark->charged = true;
	mark->loop = instr->nloops;
}

/* ------------------------------------------------------------------------------------------
 * Administration.
 */
static void
budget_record(RecordType type, Oid role, double epsilon, double delta, int method, double cap)
{
	char		buf[sizeof(LedgerRecord)];
	LedgerRecord *r = (LedgerRecord *) buf;
	uint64		end;

	require_ledger();
	open_ledger_fd();
	fill_common(r, type, role);
	r->epsilon = epsilon;
	r->delta = delta;
	r->method = method;
	r->cap = cap;
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	check_usable_locked();
	(void) account_locked(role);	/* room for the record's role (apply_record needs it) */
	end = append_locked(r);
	apply_record(r);
	LWLockRelease(ledger->lock);
	flush_to(end);
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

/* Has this role an account in the ledger? */
static bool
has_account(Oid role)
{
	bool		known;

	LWLockAcquire(ledger->lock, LW_SHARED);
	known = find_account(role, false) != NULL;
	LWLockRelease(ledger->lock);
	return known;
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

			if (has_account(p->role))
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

			if (has_account(p->role))
				budget_record(REC_ROLE_DROPPED, p->role, 0, 0, METHOD_BASIC, NAN);
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

static double
arg_float(FunctionCallInfo fcinfo, int i, const char *name)
{
	if (PG_ARGISNULL(i))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s must not be NULL", name)));
	return PG_GETARG_FLOAT8(i);
}

PG_FUNCTION_INFO_V1(dpagg_set_budget);
Datum
dpagg_set_budget(PG_FUNCTION_ARGS)
{
	Oid			role;
	double		eps,
				delta,
				cap = NAN;
	int			method = METHOD_BASIC;

	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("role must not be NULL")));
	role = PG_GETARG_OID(0);
	eps = arg_float(fcinfo, 1, "epsilon");
	delta = arg_float(fcinfo, 2, "delta");
	if (!PG_ARGISNULL(3))
	{
		char	   *m = text_to_cstring(PG_GETARG_TEXT_PP(3));

		if (pg_strcasecmp(m, "basic") == 0)
			method = METHOD_BASIC;
		else if (pg_strcasecmp(m, "zcdp") == 0)
			method = METHOD_ZCDP;
		else
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("unknown accounting method \"%s\"", m),
							errhint("Use 'basic' (epsilon and delta add up) or 'zcdp' (rho adds up for zCDP mechanisms).")));
	}
	if (!PG_ARGISNULL(4))
		cap = PG_GETARG_FLOAT8(4);
	if (!isfinite(eps) || eps < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("budget epsilon must be finite and >= 0"),
						errhint("For example dp_set_budget('analyst', 1.0, 1e-6).")));
	if (!isfinite(delta) || delta < 0 || delta >= 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("budget delta must be in [0, 1)"),
						errhint("Typical values are far below 1/n for n rows, e.g. 1e-6.")));
	if (method == METHOD_ZCDP && !(delta > 0))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("zcdp accounting needs a budget delta > 0"),
						errhint("The total rho is converted to epsilon at the budget's delta.")));
	if (!isnan(cap) && (!isfinite(cap) || cap <= 0))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("max_release_epsilon must be > 0 and finite, or NULL"),
						errhint("NULL means no per-release cap.")));
	/* Wait for a concurrent (or prepared) DROP ROLE holding the role's lock, then look again: an
	 * account created for a role whose DROP then commits would pass to a later role with its OID. */
	if (OidIsValid(role))
		LockSharedObject(AuthIdRelationId, role, 0, AccessShareLock);
	if (!OidIsValid(role) || !SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("role with OID %u does not exist", role)));
	budget_record(REC_BUDGET_SET, role, eps, delta, method, cap);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(dpagg_drop_budget);
Datum
dpagg_drop_budget(PG_FUNCTION_ARGS)
{
	Oid			role = PG_GETARG_OID(0);
	RoleAccount *a;
	bool		had;

	require_ledger();
	LWLockAcquire(ledger->lock, LW_SHARED);
	a = find_account(role, false);
	had = a != NULL && a->has_budget;
	LWLockRelease(ledger->lock);
	if (had)
		budget_record(REC_BUDGET_DROP, role, 0, 0, METHOD_BASIC, NAN);
	PG_RETURN_BOOL(had);
}

/* ------------------------------------------------------------------------------------------
 * Views.  A row is visible to roles with the privileges of its role, and to members of
 * pg_read_all_stats (auditors); superusers see everything.
 */
static bool
visible(Oid role)
{
	Oid			me = GetUserId();

	return has_privs_of_role(me, role) || has_privs_of_role(me, ROLE_PG_READ_ALL_STATS);
}

/*
 * A spent or remaining total as a DBA reads it: rounded to 12 significant digits, so that three
 * releases of 0.1 show 0.3, not 0.30000000000000004 (the sum of the doubles nearest 0.1).  Only
 * the display: the accounting keeps its long double sums and its 1e-12 relative slack.
 */
static Datum
shown(double v)
{
	char		buf[64];

	if (!isfinite(v) || v == 0)
		return Float8GetDatum(v);
	snprintf(buf, sizeof(buf), "%.12g", v);
	return Float8GetDatum(strtod(buf, NULL));
}

static Datum
float_or_null(double v, bool *isnull)
{
	*isnull = isnan(v);
	return Float8GetDatum(v);
}

PG_FUNCTION_INFO_V1(dpagg_budgets);
Datum
dpagg_budgets(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RoleAccount *copy;
	int			n,
				i;

	InitMaterializedSRF(fcinfo, 0);
	require_ledger();
	copy = palloc(sizeof(RoleAccount) * dpagg_max_roles);
	LWLockAcquire(ledger->lock, LW_SHARED);
	n = ledger->nroles;
	memcpy(copy, ledger->roles, sizeof(RoleAccount) * n);
	LWLockRelease(ledger->lock);
	for (i = 0; i < n; i++)
	{
		RoleAccount *a = &copy[i];
		Datum		v[13];
		bool		nl[13];
		const char *name = GetUserNameFromId(a->role, true);
		Spent		s = spent_with(a, NULL);

		if (!visible(a->role))
			continue;
		memset(nl, 0, sizeof(nl));
		nl[0] = name == NULL;
		v[0] = 0;
		if (name)
		{
			Name		nm = palloc0(NAMEDATALEN);

			namestrcpy(nm, name);
			v[0] = NameGetDatum(nm);
		}
		v[1] = ObjectIdGetDatum(a->role);
		v[2] = CStringGetTextDatum(method_name(a->method));
		nl[2] = !a->has_budget;
		v[3] = Float8GetDatum(a->epsilon_total);
		nl[3] = !a->has_budget;
		v[4] = Float8GetDatum(a->delta_total);
		nl[4] = !a->has_budget;
		v[5] = float_or_null(a->cap, &nl[5]);
		v[6] = shown(s.epsilon);
		v[7] = shown(s.delta);
		v[8] = shown((double) a->rho);
		v[9] = shown(fmax(0, a->epsilon_total - s.epsilon));
		nl[9] = !a->has_budget;
		v[10] = shown(fmax(0, a->delta_total - s.delta));
		nl[10] = !a->has_budget;
		v[11] = Int64GetDatum(a->releases);
		v[12] = BoolGetDatum(a->has_budget);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	return (Datum) 0;
}

static const char *
event_name(int type)
{
	return type == REC_RELEASE ? "release" : type == REC_BUDGET_SET ? "set budget" :
		type == REC_BUDGET_DROP ? "drop budget" : "role dropped";
}

/* The next whole, valid record of the journal at *pos (below end), into buf; false at its end. */
static bool
journal_next(int fd, off_t *pos, uint64 end, char *buf)
{
	LedgerRecord *r = (LedgerRecord *) buf;
	size_t		rest;

	if ((uint64) *pos + sizeof(LedgerRecord) > end)
		return false;
	CHECK_FOR_INTERRUPTS();
	if (pg_pread(fd, buf, sizeof(LedgerRecord), *pos) != sizeof(LedgerRecord) ||
		r->magic != RECORD_MAGIC || r->length < sizeof(LedgerRecord) ||
		r->length > sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8)
		return false;
	rest = r->length - sizeof(LedgerRecord);
	if (rest > 0 && pg_pread(fd, buf + sizeof(LedgerRecord), rest, *pos + sizeof(LedgerRecord)) != (ssize_t) rest)
		return false;
	*pos += r->length;
	return record_crc(r) == r->crc;
}

typedef struct DroppedRole
{
	Oid			role;			/* hash key */
	uint64		last_drop_seq;	/* seq of the role's last "role dropped" record */
} DroppedRole;

/*
 * The journal, for the views dp_ledger and dp_budget_log.
 *
 *  - A record belongs to a dropped role when a "role dropped" record of its OID follows it (or is
 *    it).  Such records are shown only to auditors, under the name recorded then: a later role
 *    that got the same OID neither sees them nor lends them its name.  The records of a role that
 *    still exists show its current name (ALTER ROLE ... RENAME), the others the recorded one;
 *    `actor` is always the name recorded at the time (an actor's OID may have been reused
 *    without any record saying so).
 *  - seq: auditors (pg_read_all_stats members, superusers) see the global sequence number; any
 *    other role sees its visible rows numbered 1, 2, ... in journal order, since the global
 *    number would tell how many releases and budget changes other roles made in between.
 *  - aggregate: "name xN" for a release of N > 1 grouping sets.
 */
PG_FUNCTION_INFO_V1(dpagg_journal);
Datum
dpagg_journal(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint64		end;
	off_t		pos;
	int			fd;
	char	   *buf = palloc(sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8);
	LedgerRecord *r = (LedgerRecord *) buf;
	bool		auditor = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	int64		ordinal = 0;
	HASHCTL		ctl;
	HTAB	   *dropped;

	InitMaterializedSRF(fcinfo, 0);
	require_ledger();
	end = pg_atomic_read_u64(&ledger->flushed_pos);
	fd = OpenTransientFile(LEDGER_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not open the ledger \"%s\": %m", LEDGER_FILE)));

	/* First pass: the last "role dropped" record of each OID. */
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(DroppedRole);
	ctl.hcxt = CurrentMemoryContext;
	dropped = hash_create("dpagg dropped roles", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	pos = LEDGER_HEADER_SIZE;
	while (journal_next(fd, &pos, end, buf))
		if (r->type == REC_ROLE_DROPPED)
		{
			DroppedRole *d = hash_search(dropped, &r->role, HASH_ENTER, NULL);

			d->last_drop_seq = r->seq;
		}

	pos = LEDGER_HEADER_SIZE;
	while (journal_next(fd, &pos, end, buf))
	{
		Datum		v[18];
		bool		nl[18];
		DroppedRole *d = hash_search(dropped, &r->role, HASH_FIND, NULL);
		bool		of_dropped = d != NULL && d->last_drop_seq >= r->seq;
		const char *current = of_dropped ? NULL : GetUserNameFromId(r->role, true);
		NameData	role_name;

		if (!(auditor || (!of_dropped && has_privs_of_role(GetUserId(), r->role))))
			continue;
		ordinal++;
		memset(nl, 0, sizeof(nl));
		v[0] = Int64GetDatum(auditor ? (int64) r->seq : ordinal);
		v[1] = CStringGetTextDatum(event_name(r->type));
		/* To the second for non-auditors: a microsecond stamp per release of one statement would
		 * time the scans between them. */
		v[2] = TimestampTzGetDatum(auditor ? r->at : r->at - (r->at % USECS_PER_SEC));
		if (current)
			namestrcpy(&role_name, current);
		else
			role_name = r->role_name;
		v[3] = NameGetDatum(&role_name);
		v[4] = ObjectIdGetDatum(r->role);
		v[5] = NameGetDatum(&r->database_name);
		v[6] = NameGetDatum(&r->actor_name);
		v[7] = Int32GetDatum(r->pid);
		if (r->type == REC_RELEASE)
		{
			v[8] = Int64GetDatum(r->query_id);
			nl[8] = r->query_id == 0;
			v[9] = PointerGetDatum(cstring_to_text_with_len(buf + sizeof(LedgerRecord), r->query_len));
			if (r->sets > 1)
				v[10] = PointerGetDatum(cstring_to_text(psprintf("%s x%u", r->aggregate, r->sets)));
			else
				v[10] = CStringGetTextDatum(r->aggregate);
			v[11] = CStringGetTextDatum(r->mechanism);
			v[12] = Float8GetDatum(r->epsilon);
			v[13] = Float8GetDatum(r->delta);
			v[14] = Float8GetDatum(r->rho);
			nl[14] = !(r->rho > 0);
			v[15] = BoolGetDatum((r->flags & (FLAG_UNLIMITED | FLAG_NO_BUDGET)) == 0);
			nl[16] = nl[17] = true;
			v[16] = v[17] = 0;
		}
		else
		{
			nl[8] = nl[9] = nl[10] = nl[11] = nl[14] = nl[15] = true;
			v[8] = v[9] = v[10] = v[11] = v[14] = v[15] = 0;
			v[12] = Float8GetDatum(r->epsilon);
			v[13] = Float8GetDatum(r->delta);
			nl[12] = nl[13] = r->type != REC_BUDGET_SET;
			v[16] = CStringGetTextDatum(method_name(r->method));
			nl[16] = r->type != REC_BUDGET_SET;
			v[17] = float_or_null(r->cap, &nl[17]);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	hash_destroy(dropped);
	CloseTransientFile(fd);
	return (Datum) 0;
}
