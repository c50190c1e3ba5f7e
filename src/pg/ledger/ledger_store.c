/*
 * ledger_store.c — where the ledger lives: pages of a relation file written through shared
 * buffers and logged in the write-ahead log by dpagg's own WAL resource manager (ledger.h lists
 * the other files; docs/ledger_wal.md gives the design and the reasons for it).
 *
 * Storage.  The file global/LEDGER_RELNODE of the cluster, read and written through PostgreSQL's
 * buffer manager like a shared catalog (it belongs to no database, so every database sees the
 * same ledger; no pg_class row names it).  Block 0 is a meta page (LedgerMeta); blocks 1.. hold
 * LedgerRecords (ledger.h) one after another from the page header up to pd_lower, each with its
 * CRC, never split across pages.  Pages are standard (PageInit, checksums, full-page images).
 *
 * WAL.  Every change of a page is one WAL record of the resource manager "dpagg" (DPAGG_RMGR_ID):
 *   XLOG_DPAGG_META         block 0 initialised (the store was created)
 *   XLOG_DPAGG_APPEND       a ledger record appended to a page (the record is the main data,
 *   XLOG_DPAGG_APPEND_INIT  so redo has it even when the block comes as a full-page image;
 *                           _INIT: on a new page)
 * The record is written in the same critical section as the page change; the caller then
 * flushes the WAL to the record (ledger_store_flush) — and, with synchronous standbys, waits for
 * them — before anything is released.  So the WAL is the ledger's durability: crash recovery,
 * standbys, base backups, PITR and pg_rewind treat these pages as they treat any relation's, and
 * checkpoints write and sync them (no separate fsync of our own).
 *
 * Accounts.  The shared accounts (ledger_shmem.c) are built lazily, by the first process that
 * needs them after the server starts (ledger_store_load, from ledger_require): it reads every
 * page through the buffer manager.  Nothing reads pages before recovery has made them consistent:
 * on a primary no backend runs before crash recovery ends; on a hot standby, backends start only
 * at a consistent point.  After that, redo (the startup process, on a standby) applies each
 * replayed record to the accounts as well, if they are loaded, and only if its sequence number
 * is new — a record already on a page when the loader read it has a smaller one.  Both take
 * ledger->lock, and neither holds a buffer lock while waiting for it, so they cannot deadlock.
 */
#include "ledger/ledger.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/bufmask.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/dbcommands.h"
#include "common/file_perm.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walreceiver.h"
#include "replication/walsender_private.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "storage/smgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/*
 * The resource manager's ID in the WAL: fixed forever once records exist (PostgreSQL's custom
 * range is 128-255; 128 is for experiments).  Another extension registering the same ID makes
 * the server refuse to start, with a message naming both.
 */
#define DPAGG_RMGR_ID 187

/* The relation file: global/4200000187.  PostgreSQL gives new files of shared relations numbers
 * from its OID counter and skips any number whose file exists, so this one cannot be reused. */
#define LEDGER_RELNODE 4200000187u

/* A file in pg_dpagg/ that says the store was made here: the store missing while it exists is
 * a lost ledger, never a fresh start. */
#define LEDGER_STORE_MARK LEDGER_DIR "/store"

#define XLOG_DPAGG_META 0x00
#define XLOG_DPAGG_APPEND 0x10
#define XLOG_DPAGG_APPEND_INIT 0x20

#define LEDGER_META_MAGIC 0x44504C4Du	/* "DPLM" */
#define LEDGER_META_VERSION 1

typedef struct LedgerMeta
{
	uint32		magic;
	uint32		version;
	uint64		system_identifier;	/* of the cluster that made it (shown, not checked) */
	TimestampTz created;
} LedgerMeta;

#define PAGE_DATA_START MAXALIGN(SizeOfPageHeaderData)
StaticAssertDecl(LEDGER_RECORD_MAX <= BLCKSZ - MAXALIGN(SizeOfPageHeaderData),
				 "a ledger record must fit in one page");

static RelFileNode
store_node(void)
{
	RelFileNode n;

	n.spcNode = GLOBALTABLESPACE_OID;
	n.dbNode = InvalidOid;
	n.relNode = LEDGER_RELNODE;
	return n;
}

static SMgrRelation
store_smgr(void)
{
	/* Not kept across calls: PostgreSQL closes unowned SMgrRelations at every transaction end. */
	return smgropen(store_node(), InvalidBackendId);
}

static Buffer
store_read(BlockNumber blk)
{
	return ReadBufferWithoutRelcache(store_node(), MAIN_FORKNUM, blk, RBM_NORMAL, NULL, true);
}

pg_crc32c
ledger_record_crc(const LedgerRecord *r)
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

/* Is the record at `p` (with `room` bytes up to the page's end of data) whole and intact?  The
 * header is copied out first: records sit at 8-byte offsets, but check everything before use. */
bool
ledger_record_valid(const char *p, Size room)
{
	LedgerRecord h;

	if (room < sizeof(LedgerRecord))
		return false;
	memcpy(&h, p, sizeof(h));
	if (h.magic != LEDGER_RECORD_MAGIC || h.length < sizeof(LedgerRecord) || h.length > LEDGER_RECORD_MAX ||
		(h.length & 7) != 0 || h.length > room || h.query_len > h.length - sizeof(LedgerRecord))
		return false;
	return ledger_record_crc((const LedgerRecord *) p) == h.crc;
}

/* ------------------------------------------------------------------------------------------
 * Page changes, shared by the live path and redo.
 */
static void
page_init_meta(Page page, const LedgerMeta *m)
{
	PageInit(page, BLCKSZ, 0);
	memcpy((char *) page + PAGE_DATA_START, m, sizeof(*m));
	((PageHeader) page)->pd_lower = PAGE_DATA_START + MAXALIGN(sizeof(*m));
}

static bool
page_has_room(Page page, Size len)
{
	PageHeader	ph = (PageHeader) page;

	return ph->pd_lower >= PAGE_DATA_START && ph->pd_lower + len <= ph->pd_upper;
}

static void
page_append(Page page, const LedgerRecord *r)
{
	PageHeader	ph = (PageHeader) page;

	memcpy((char *) page + ph->pd_lower, r, r->length);
	ph->pd_lower += r->length;
}

/* ------------------------------------------------------------------------------------------
 * The resource manager.
 */
static void
ledger_redo(XLogReaderState *rec)
{
	uint8		info = XLogRecGetInfo(rec) & ~XLR_INFO_MASK;
	Buffer		buf = InvalidBuffer;
	Page		page;
	char		rbuf[LEDGER_RECORD_MAX];
	LedgerRecord *r = (LedgerRecord *) rbuf;
	BlockNumber blk;

	if (info == XLOG_DPAGG_META)
	{
		LedgerMeta	m;

		if (XLogRecGetDataLen(rec) != sizeof(m))
			elog(PANIC, "dpagg: invalid ledger meta record in the WAL");
		memcpy(&m, XLogRecGetData(rec), sizeof(m));
		buf = XLogInitBufferForRedo(rec, 0);
		page = BufferGetPage(buf);
		page_init_meta(page, &m);
		PageSetLSN(page, rec->EndRecPtr);
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
		return;
	}
	if (info != XLOG_DPAGG_APPEND && info != XLOG_DPAGG_APPEND_INIT)
		elog(PANIC, "dpagg: unknown WAL record type %u", info);
	if (XLogRecGetDataLen(rec) > LEDGER_RECORD_MAX)
		elog(PANIC, "dpagg: invalid ledger record in the WAL");
	memcpy(rbuf, XLogRecGetData(rec), XLogRecGetDataLen(rec));
	if (!ledger_record_valid(rbuf, XLogRecGetDataLen(rec)))
		elog(PANIC, "dpagg: invalid ledger record in the WAL");
	XLogRecGetBlockTag(rec, 0, NULL, NULL, &blk);
	if (info == XLOG_DPAGG_APPEND_INIT)
	{
		buf = XLogInitBufferForRedo(rec, 0);
		page = BufferGetPage(buf);
		PageInit(page, BLCKSZ, 0);
		((PageHeader) page)->pd_lower = PAGE_DATA_START;
		page_append(page, r);
		PageSetLSN(page, rec->EndRecPtr);
		MarkBufferDirty(buf);
	}
	else if (XLogReadBufferForRedo(rec, 0, &buf) == BLK_NEEDS_REDO)
	{
		page = BufferGetPage(buf);
		if (!page_has_room(page, r->length))
			elog(PANIC, "dpagg: ledger page %u has no room for the record being replayed", blk);
		page_append(page, r);
		PageSetLSN(page, rec->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);

	/* The accounts, if a backend has loaded them (a hot standby): only records they lack. */
	if (ledger != NULL)
	{
		LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
		if (ledger->loaded)
		{
			if (r->seq >= ledger->next_seq && !ledger_apply_record(r))
				ledger_set_problem("the ledger holds more roles than dpagg.max_roles (%s); raise it and restart",
								   "on this standby");
			ledger->last_block = Max(ledger->last_block, blk);
		}
		LWLockRelease(ledger->lock);
	}
}

static const char *
ledger_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_DPAGG_META:
			return "META";
		case XLOG_DPAGG_APPEND:
			return "APPEND";
		case XLOG_DPAGG_APPEND_INIT:
			return "APPEND+INIT";
	}
	return NULL;
}

static void
ledger_desc(StringInfo out, XLogReaderState *rec)
{
	uint8		info = XLogRecGetInfo(rec) & ~XLR_INFO_MASK;
	LedgerRecord h;

	if (info == XLOG_DPAGG_META || XLogRecGetDataLen(rec) < sizeof(LedgerRecord))
		return;
	memcpy(&h, XLogRecGetData(rec), sizeof(h));
	appendStringInfo(out, "seq " UINT64_FORMAT " type %u role %u epsilon %g delta %g",
					 h.seq, h.type, h.role, h.epsilon, h.delta);
}

static void
ledger_mask(char *pagedata, BlockNumber blkno)
{
	mask_page_lsn_and_checksum(pagedata);
	mask_unused_space(pagedata);
}

static RmgrData ledger_rmgr = {
	.rm_name = "dpagg",
	.rm_redo = ledger_redo,
	.rm_desc = ledger_desc,
	.rm_identify = ledger_identify,
	.rm_mask = ledger_mask,
};

void
ledger_store_register(void)
{
	RegisterCustomRmgr(DPAGG_RMGR_ID, &ledger_rmgr);

	/*
	 * pg_upgrade starts the new cluster's server in binary-upgrade mode: mark the new cluster so
	 * that it refuses to start an empty ledger until the old one is copied over (the budgets would
	 * otherwise start again from nothing).  The postmaster runs here in the data directory.
	 */
	if (IsBinaryUpgrade)
	{
		int			fd;

		(void) MakePGDirectory(LEDGER_DIR);
		fd = OpenTransientFile(LEDGER_STORE_MARK, O_WRONLY | O_CREAT | PG_BINARY);
		if (fd < 0)
			ereport(LOG, (errcode_for_file_access(), errmsg("dpagg: could not create \"%s\": %m", LEDGER_STORE_MARK)));
		else
			CloseTransientFile(fd);
	}
}

/* ------------------------------------------------------------------------------------------
 * Appending (primary only).
 */
static void
refuse_in_recovery(void)
{
	char		primary[NI_MAXHOST + 16];

	if (!RecoveryInProgress())
		return;
	primary[0] = '\0';
	if (WalRcv != NULL)
	{
		SpinLockAcquire(&WalRcv->mutex);
		if (WalRcv->sender_host[0] != '\0')
			snprintf(primary, sizeof(primary), "%s:%d", WalRcv->sender_host, WalRcv->sender_port);
		SpinLockRelease(&WalRcv->mutex);
	}
	if (ledger != NULL && LWLockHeldByMe(ledger->lock))
		LWLockRelease(ledger->lock);
	ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					errmsg("dpagg cannot release or change budgets on a standby"),
					primary[0] ? errdetail("Every charge is written on the primary, which this standby replays from (%s); dp_budgets and dp_ledger here show its ledger as replayed.", primary)
					: errdetail("Every charge is written on the primary; this server is in recovery (its primary_conninfo names the primary)."),
					errhint("Run the query on the primary.")));
}

void
ledger_store_check_writable(void)
{
	refuse_in_recovery();
}

static void
store_create(void)
{
	SMgrRelation smgr = store_smgr();
	Buffer		buf;
	Page		page;
	XLogRecPtr	lsn;
	int			fd;
	LedgerMeta	m;

	memset(&m, 0, sizeof(m));
	m.magic = LEDGER_META_MAGIC;
	m.version = LEDGER_META_VERSION;
	m.system_identifier = GetSystemIdentifier();
	m.created = GetCurrentTimestamp();
	if (!smgrexists(smgr, MAIN_FORKNUM))
	{
		smgrcreate(smgr, MAIN_FORKNUM, false);
		fsync_fname("global", true);
	}
	buf = ReadBufferWithoutRelcache(store_node(), MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL, true);
	if (BufferGetBlockNumber(buf) != 0)
		elog(ERROR, "dpagg: the ledger's meta page is not block 0");
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	START_CRIT_SECTION();
	page_init_meta(page, &m);
	MarkBufferDirty(buf);
	XLogBeginInsert();
	XLogRegisterData((char *) &m, sizeof(m));
	XLogRegisterBuffer(0, buf, REGBUF_WILL_INIT | REGBUF_STANDARD);
	lsn = XLogInsert(DPAGG_RMGR_ID, XLOG_DPAGG_META);
	PageSetLSN(page, lsn);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);
	XLogFlush(lsn);

	/* The mark: from now on a missing store is a lost ledger. */
	if (MakePGDirectory(LEDGER_DIR) != 0 && errno != EEXIST)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not create directory \"%s\": %m", LEDGER_DIR)));
	fd = OpenTransientFile(LEDGER_STORE_MARK, O_WRONLY | O_CREAT | PG_BINARY);
	if (fd < 0 || pg_fsync(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not write \"%s\": %m", LEDGER_STORE_MARK)));
	CloseTransientFile(fd);
	fsync_fname(LEDGER_DIR, true);
	fsync_fname(".", true);
	ereport(LOG, (errmsg("dpagg: created the ledger in global/%u (WAL resource manager \"dpagg\", ID %d)",
						 LEDGER_RELNODE, DPAGG_RMGR_ID)));
}

void
ledger_record_init(LedgerRecord *r, RecordType type, Oid role)
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

XLogRecPtr
ledger_store_append_locked(LedgerRecord *r)
{
	Buffer		buf = InvalidBuffer;
	Page		page;
	bool		fresh = false;
	XLogRecPtr	lsn;

	refuse_in_recovery();
	Assert(ledger->loaded);
	r->magic = LEDGER_RECORD_MAGIC;
	r->seq = ledger->next_seq;
	r->crc = ledger_record_crc(r);

	if (ledger->last_block > 0)
	{
		buf = store_read(ledger->last_block);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		if (!page_has_room(BufferGetPage(buf), r->length))
		{
			UnlockReleaseBuffer(buf);
			buf = InvalidBuffer;
		}
	}
	if (!BufferIsValid(buf))
	{
		buf = ReadBufferWithoutRelcache(store_node(), MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL, true);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		fresh = true;
	}
	page = BufferGetPage(buf);

	START_CRIT_SECTION();
	if (fresh)
	{
		PageInit(page, BLCKSZ, 0);
		((PageHeader) page)->pd_lower = PAGE_DATA_START;
	}
	page_append(page, r);
	MarkBufferDirty(buf);
	XLogBeginInsert();
	XLogRegisterData((char *) r, r->length);
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD | (fresh ? REGBUF_WILL_INIT : 0));
	lsn = XLogInsert(DPAGG_RMGR_ID, fresh ? XLOG_DPAGG_APPEND_INIT : XLOG_DPAGG_APPEND);
	PageSetLSN(page, lsn);
	END_CRIT_SECTION();

	ledger->last_block = BufferGetBlockNumber(buf);
	UnlockReleaseBuffer(buf);
	ledger->next_seq = r->seq + 1;
	return lsn;
}

/*
 * Make the record durable before anything is released: the WAL flushed up to it, and with
 * synchronous standbys (synchronous_standby_names) their confirmation, as a commit waits for
 * it.  The wait is at least remote_flush whatever the session's synchronous_commit says (an
 * analyst could set it to local or off to keep charges off the standby, which would then hand
 * the budget back after a failover); remote_apply, if the session asks for it, is kept.
 */
void
ledger_store_flush(XLogRecPtr lsn)
{
	bool		confirmed = true;

	XLogFlush(lsn);
	if (max_wal_senders > 0 && SyncRepStandbyNames != NULL && SyncRepStandbyNames[0] != '\0')
	{
		int			saved = synchronous_commit;

		/*
		 * The setting is raised by hand, not through set_config_option, which refuses in a
		 * parallel query (a release in a parallel plan is charged in its leader, in parallel
		 * mode); the assign hook derives the wait mode from it.  Restored on every exit.
		 */
		PG_TRY();
		{
			if (saved < SYNCHRONOUS_COMMIT_REMOTE_FLUSH)
			{
				synchronous_commit = SYNCHRONOUS_COMMIT_REMOTE_FLUSH;
				assign_synchronous_commit(SYNCHRONOUS_COMMIT_REMOTE_FLUSH, NULL);
			}
			SyncRepWaitForLSN(lsn, true);
		}
		PG_FINALLY();
		{
			synchronous_commit = saved;
			assign_synchronous_commit(saved, NULL);
		}
		PG_END_TRY();
		/* A cancel or termination ends the wait early (with a WARNING): then check. */
		LWLockAcquire(SyncRepLock, LW_SHARED);
		confirmed = !(WalSndCtl->sync_standbys_status & SYNC_STANDBY_DEFINED) ||
			WalSndCtl->lsn[SYNC_REP_WAIT_FLUSH] >= lsn;
		LWLockRelease(SyncRepLock);
	}
	if (!confirmed)
		ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED),
						errmsg("dpagg stopped waiting for the synchronous standby to confirm a ledger record"),
						errdetail("The record (a release's charge or a budget change) is in the primary's ledger and reaches the standby when it catches up; a release returns nothing.")));
}

/* ------------------------------------------------------------------------------------------
 * Loading the accounts (the first process that needs them after a start).
 */
static void
load_page_records(BlockNumber blk, Page page, int *nrec)
{
	PageHeader	ph = (PageHeader) page;
	Size		off = PAGE_DATA_START;

	if (PageIsNew(page))
		return;				/* extended but not yet written: a crash right after the extension */
	if (ph->pd_lower < PAGE_DATA_START || ph->pd_lower > BLCKSZ)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("the ledger's page %u is damaged", blk)));
	while (off < ph->pd_lower)
	{
		char		rbuf[LEDGER_RECORD_MAX];
		LedgerRecord *r = (LedgerRecord *) rbuf;
		LedgerRecord h;

		if (!ledger_record_valid((char *) page + off, ph->pd_lower - off))
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("the ledger's page %u is damaged at offset %zu", blk, off)));
		memcpy(&h, (char *) page + off, sizeof(h));
		memcpy(rbuf, (char *) page + off, h.length);
		if (r->seq >= ledger->next_seq && !ledger_apply_record(r))
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("the ledger holds more roles than dpagg.max_roles; raise it and restart")));
		(*nrec)++;
		off += h.length;
	}
}

/* With ledger->lock held exclusively: read every page into the accounts; false when there is
 * nothing to load yet.  Errors propagate (the caller marks the ledger unusable). */
static bool
load_locked(void)
{
	SMgrRelation smgr = store_smgr();
	BlockNumber nblocks = smgrexists(smgr, MAIN_FORKNUM) ? smgrnblocks(smgr, MAIN_FORKNUM) : 0;
	BlockNumber blk;
	int			nrec = 0;
	struct stat st;

	ledger->nroles = 0;
	ledger->npending = 0;
	ledger->next_seq = 1;
	ledger->last_block = 0;
	if (nblocks == 0)
	{
		if (stat(LEDGER_STORE_MARK, &st) == 0)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("the ledger global/%u is missing (pg_dpagg/store says it was made here, or that this cluster was made by pg_upgrade)",
								   LEDGER_RELNODE),
							errhint("Restore global/%u from a backup (after pg_upgrade: copy it from the old cluster's data directory while this server is stopped). To start a new, empty ledger on purpose, remove pg_dpagg/store while the server is stopped.",
									LEDGER_RELNODE)));
		if (RecoveryInProgress())
			return false;		/* a standby of a primary with no ledger yet: nothing to load;
								 * loaded later (from the pages redo makes, or as a primary) */
		store_create();
		nblocks = 1;
	}
	else
	{
		Buffer		buf = store_read(0);
		LedgerMeta	m;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(&m, (char *) BufferGetPage(buf) + PAGE_DATA_START, sizeof(m));
		UnlockReleaseBuffer(buf);
		if (m.magic != LEDGER_META_MAGIC || m.version != LEDGER_META_VERSION)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("global/%u is not a dpagg ledger of this version", LEDGER_RELNODE)));
	}
	for (blk = 1; blk < nblocks; blk++)
	{
		Buffer		buf = store_read(blk);

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		PG_TRY();
		{
			load_page_records(blk, BufferGetPage(buf), &nrec);
		}
		PG_FINALLY();
		{
			UnlockReleaseBuffer(buf);
		}
		PG_END_TRY();
	}
	ledger->last_block = nblocks > 1 ? nblocks - 1 : 0;
	/* The journal of earlier versions is carried over once, in its order, keeping its numbers. */
	if (!RecoveryInProgress())
		ledger_migrate_journal(&nrec);
	ereport(LOG, (errmsg("dpagg: ledger loaded: %d records, %d roles", nrec, ledger->nroles)));
	return true;
}

void
ledger_store_load(void)
{
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	if (ledger->loaded || !ledger->usable)
	{
		LWLockRelease(ledger->lock);
		return;
	}
	PG_TRY();
	{
		ledger->loaded = load_locked();
	}
	PG_CATCH();
	{
		/* A damaged or missing ledger refuses every release until a restart: say why.  Any
		 * other error (a full disk in the migration) leaves it to be loaded again by the next
		 * caller.  (Interrupts are held off while the lock is held: a load is not cancelled.)
		 * The error goes on; the abort releases the lock. */
		MemoryContext cxt = MemoryContextSwitchTo(TopMemoryContext);
		ErrorData  *e = CopyErrorData();

		MemoryContextSwitchTo(cxt);
		ledger->nroles = 0;
		if (e->sqlerrcode == ERRCODE_DATA_CORRUPTED)
			ledger_set_problem("%s", e->message);
		FreeErrorData(e);
		PG_RE_THROW();
	}
	PG_END_TRY();
	LWLockRelease(ledger->lock);
}

/* ------------------------------------------------------------------------------------------
 * Reading, for the views: page by page, a copy of each record.
 */
void
ledger_reader_begin(LedgerReader *rd)
{
	SMgrRelation smgr = store_smgr();

	rd->buf = palloc(BLCKSZ);
	rd->nblocks = smgrexists(smgr, MAIN_FORKNUM) ? smgrnblocks(smgr, MAIN_FORKNUM) : 0;
	ledger_reader_rewind(rd);
}

void
ledger_reader_rewind(LedgerReader *rd)
{
	rd->blk = 0;				/* the meta page: nothing to read */
	rd->off = 0;
	rd->end = 0;
}

const LedgerRecord *
ledger_reader_next(LedgerReader *rd)
{
	const LedgerRecord *r;

	while (rd->off >= rd->end)
	{
		Buffer		buf;
		PageHeader	ph;

		if (rd->blk + 1 >= rd->nblocks)
			return NULL;
		rd->blk++;
		CHECK_FOR_INTERRUPTS();
		buf = store_read(rd->blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(rd->buf, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);
		ph = (PageHeader) rd->buf;
		rd->off = PAGE_DATA_START;
		rd->end = PageIsNew(rd->buf) || ph->pd_lower > BLCKSZ ? 0 : ph->pd_lower;
	}
	if (!ledger_record_valid(rd->buf + rd->off, rd->end - rd->off))
	{
		rd->end = 0;
		rd->blk = rd->nblocks;	/* stop at a damaged record */
		return NULL;
	}
	r = (const LedgerRecord *) (rd->buf + rd->off);
	rd->off += r->length;
	return r;
}

void
ledger_reader_end(LedgerReader *rd)
{
	pfree(rd->buf);
}
