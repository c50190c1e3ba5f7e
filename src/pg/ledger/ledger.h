/*
 * ledger.h — what the files of privacy budgets share (internal to them; the rest of the glue sees
 * only dpagg_budget_init, dpagg_charge_at and dpagg_charge_check_parts, in charge.h).
 *
 * Design (docs/guides/budgets.md; docs/ledger_wal.md): every release is charged, before its Agg
 * node reads a row, to the login role's budget; the charge is a record on a page of the ledger's
 * relation file (global/4200000187), written through shared buffers and logged in the WAL by
 * dpagg's own resource manager, and the WAL is flushed to it (and confirmed by synchronous
 * standbys) before anything is released.  Standbys replay it; the shared accounts are built from
 * the pages by the first process that needs them.  The work is split by concern:
 *
 *   ledger_store.c    the pages and the WAL: the resource manager (redo), appending one record,
 *                     the flush and the synchronous-standby wait, loading the accounts, reading
 *                     the records for the views, refusing writes on a standby
 *   ledger_migrate.c  the journal file of earlier versions (pg_dpagg/ledger): carried over into
 *                     the store once, when the accounts are first loaded
 *   ledger_shmem.c    shared memory: the accounts, the lock, the ledger's state (usable or why
 *                     not), the GUCs and startup hooks (dpagg_budget_init)
 *   charge.c          the charge of one execution of an aggregation: where releases are allowed,
 *                     rescans and grouping sets, the budget check, append and flush
 *   budget_admin.c    dp_set_budget, dp_drop_budget, and DROP ROLE removing a role's account
 *   budget_views.c    dp_budgets and the record list (the views dp_ledger, dp_budget_log)
 *   ../core/accounting.{h,cpp}  the composition maths (basic and zCDP spending, the fit test),
 *                     pure C++ functions behind a C interface
 *
 * Locking: ledger->lock (exclusive) covers the accounts, next_seq, last_block and appending.  A
 * function whose name ends in _locked expects it held, and releases it before any ereport(ERROR)
 * of its own.  It is always taken before a ledger page's buffer lock, never while holding one.
 */
#ifndef DPAGG_LEDGER_H
#define DPAGG_LEDGER_H

#include "ledger/charge.h"

#include "accounting.h"
#include "datatype/timestamp.h"
#include "access/xlogdefs.h"
#include "storage/block.h"
#include "port/pg_crc32c.h"
#include "storage/lwlock.h"

#define LEDGER_DIR "pg_dpagg"
#define LEDGER_FILE LEDGER_DIR "/ledger"	/* the journal of versions before the WAL ledger */
#define LEDGER_RECORD_MAGIC 0x4450524Cu		/* "DPRL" */
#define QUERY_TEXT_MAX 1024		/* bytes of query text kept in a release record */

/* ------------------------------------------------------------------------------------------
 * The ledger's records (on disk, in the WAL and in the old journal: never change the layout,
 * the values or the meaning).
 */
typedef enum RecordType
{
	REC_RELEASE = 1,
	REC_BUDGET_SET = 2,
	REC_BUDGET_DROP = 3,
	REC_ROLE_DROPPED = 4			/* the role was dropped: its account is removed */
} RecordType;

/* Budget methods: the record's `method` holds DPAGG_ACCOUNTING_BASIC (0) or _ZCDP (1). */
StaticAssertDecl(DPAGG_ACCOUNTING_BASIC == 0 && DPAGG_ACCOUNTING_ZCDP == 1,
				 "the journal stores accounting methods as 0 (basic) and 1 (zcdp)");

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
	int64		query_id;		/* release: the query's id; role dropped: the dropping
								 * transaction's xid (0 in older records: unconditional) */
	double		epsilon;		/* release: requested; budget: total */
	double		delta;
	double		rho;			/* release: rho charged under zcdp accounting */
	double		delta_nz;		/* release: delta of its parts charged as approximate zCDP */
	union
	{
		uint64		flushed_hint;	/* old journal: durable up to here when appended */
		uint64		statement_key;	/* WAL ledger, 1.1.0 on: release: a hash of the session's
									 * pid and its client statement's start time, the same for
									 * every release of the statement (dp_ledger.statement_id);
									 * 0 before */
	};
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

/* The layout never changes (it is on disk and in the WAL; docs/ledger_wal.md, and the size
 * docs/guides/budgets.md gives per release). */
StaticAssertDecl(sizeof(LedgerRecord) == 456, "the ledger record's layout must not change");

/* Room for the longest record (header, query text, padding). */
#define LEDGER_RECORD_MAX (sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8)

/* The query text that follows a release record. */
static inline const char *
ledger_record_query(const LedgerRecord *r)
{
	return ((const char *) r) + sizeof(LedgerRecord);
}

/* What a release record charges, for the accounting. */
static inline dpagg_release_cost
ledger_record_cost(const LedgerRecord *r)
{
	dpagg_release_cost c;

	c.epsilon = r->epsilon;
	c.delta = r->delta;
	c.rho = r->rho;
	c.delta_nz = r->delta_nz;
	return c;
}

static inline const char *
ledger_method_name(int m)
{
	return m == DPAGG_ACCOUNTING_ZCDP ? "zcdp" : "basic";
}

/* ------------------------------------------------------------------------------------------
 * Shared memory (ledger_shmem.c): the totals replayed from the journal.
 */
typedef struct RoleAccount
{
	Oid			role;
	dpagg_account acct;			/* budget and spending (core/accounting.h) */
} RoleAccount;

/* A "role dropped" record whose transaction had not committed when it was applied. */
typedef struct PendingRoleDrop
{
	TransactionId xid;
	Oid			role;
} PendingRoleDrop;

#define LEDGER_MAX_PENDING_DROPS 64

typedef struct LedgerShared
{
	LWLock	   *lock;			/* accounts, next_seq, last_block, appending */
	bool		usable;
	char		problem[256];	/* why not usable */
	bool		loaded;			/* the accounts have been read from the store */
	uint64		next_seq;
	BlockNumber last_block;		/* the page appended to last (0: none yet) */
	int			npending;		/* role drops waiting for their transaction's end */
	PendingRoleDrop pending[LEDGER_MAX_PENDING_DROPS];
	int			nroles;
	RoleAccount roles[FLEXIBLE_ARRAY_MEMBER];
} LedgerShared;

/* NULL unless dpagg is in shared_preload_libraries. */
extern LedgerShared *ledger;

/* GUCs (ledger_shmem.c) */
extern bool dpagg_require_budget;
extern bool dpagg_limit_superusers;
extern double dpagg_min_release_epsilon;
extern int	dpagg_max_roles;

/* Refuse (ERROR) when the ledger is not in shared memory. */
extern void ledger_require(void);
/* Refuse when the ledger is not usable (lock held, either mode; released before the error). */
extern void ledger_check_usable_locked(void);
/* Mark the ledger unusable with the reason (lock held exclusively, or at startup); and log it. */
extern void ledger_set_problem(const char *fmt, const char *detail);
/* Room for one more "role dropped" record waiting for its transaction (lock held exclusively). */
extern bool ledger_pending_room_locked(void);
/* Apply the "role dropped" records whose transactions have ended (takes the lock). */
extern void ledger_settle_pending(void);
/* The role's account, or NULL; created when `create` and there is room (lock held). */
extern RoleAccount *ledger_find_account(Oid role, bool create);
/* The role's account, created if needed; refuses when there is no room (lock held exclusively;
 * released before the error). */
extern RoleAccount *ledger_account_locked(Oid role);
/* Has this role an account?  (takes the lock) */
extern bool ledger_has_account(Oid role);
/* Apply one record to the accounts (replay and live; lock held exclusively or at startup);
 * false when there is no room for its role. */
extern bool ledger_apply_record(const LedgerRecord *r);

/* ------------------------------------------------------------------------------------------
 * The store (ledger_store.c).  Narrow on purpose: load, append, flush, read.
 */
/* Register the WAL resource manager (from _PG_init, in shared_preload_libraries only). */
extern void ledger_store_register(void);
/* Read the store into the accounts, once per server start (ledger_require calls it). */
extern void ledger_store_load(void);
/* Refuse (ERROR, naming the primary) on a standby: charges and budgets change on the primary. */
extern void ledger_store_check_writable(void);
/* A record of this backend: zeroed, then the type, the role, the time and who/where. */
extern void ledger_record_init(LedgerRecord *r, RecordType type, Oid role);
/* Append a record (lock held exclusively; accounts loaded): sets its magic, seq and CRC, writes
 * it and its WAL record; returns the WAL position to flush to. */
extern XLogRecPtr ledger_store_append_locked(LedgerRecord *r);
/* Make the WAL durable up to `lsn`, and confirmed by synchronous standbys (without the lock). */
extern void ledger_store_flush(XLogRecPtr lsn);
/* A record's CRC, and whether the bytes at p (room bytes available) are a whole, intact record. */
extern pg_crc32c ledger_record_crc(const LedgerRecord *r);
extern bool ledger_record_valid(const char *p, Size room);

/* Reading every record, in order (for the views). */
typedef struct LedgerReader
{
	char	   *buf;			/* a copy of the current page */
	BlockNumber nblocks;		/* the store's size when the reading began */
	BlockNumber blk;
	Size		off;			/* next record in buf */
	Size		end;			/* end of the records in buf */
} LedgerReader;
extern void ledger_reader_begin(LedgerReader *rd);
/* The next whole, valid record, or NULL at the end (or at the first invalid record). */
extern const LedgerRecord *ledger_reader_next(LedgerReader *rd);
extern void ledger_reader_rewind(LedgerReader *rd);
extern void ledger_reader_end(LedgerReader *rd);

/* The journal of earlier versions (ledger_migrate.c): carried into the store once (lock held,
 * accounts loaded from the store; primary only); counts the records it adds into *nrec. */
extern void ledger_migrate_journal(int *nrec);

/* ------------------------------------------------------------------------------------------
 * Administration (budget_admin.c).
 */
/* Install the DROP ROLE hooks (from dpagg_budget_init, in shared_preload_libraries only). */
extern void ledger_role_drop_hooks_init(void);

#endif							/* DPAGG_LEDGER_H */
