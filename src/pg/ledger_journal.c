/*
 * ledger_journal.c — the journal: the file $PGDATA/pg_dpagg/ledger, the only source of truth of
 * privacy budgets (ledger.h lists the other files).
 *
 * Format (never changes: existing ledgers must load): a 16-byte header, "DPAGGLG1" and zeros,
 * then LedgerRecords (ledger.h) one after the other, each followed by its query text padded to
 * 8 bytes, each with a CRC-32C.  One record per release (a charge) and one per budget change.
 *
 *  - Load (the postmaster, at start and after every crash restart): each record is replayed
 *    through ledger_apply_record (ledger_shmem.c) into the shared accounts.  Only the last record
 *    can be torn (a crash of the machine in the middle of a write); it carries no release and is
 *    cut off.  A damaged record anywhere else — in data that had been flushed — stops all
 *    releases until an administrator looks.
 *  - Append: one write() under the exclusive ledger lock (the caller, charge.c or budget_admin.c,
 *    has checked the budget under that same lock and applies the record after).
 *  - Flush: outside that lock, a group flush like PostgreSQL's WAL flush: whoever holds the flush
 *    lock syncs everything written so far (fdatasync), and waiting backends find their record
 *    already durable.  A value is returned only after its record is flushed.
 *  - Read: the durable part, record by record, for the views (budget_views.c).
 *
 * The interface is narrow on purpose (load/replay, append a record, flush to, read): the journal
 * is to move into the WAL as a custom resource manager (issue 12), where append becomes XLogInsert
 * of the record, flush XLogFlush, and load the resource manager's redo calling
 * ledger_apply_record; nothing outside this file knows that the journal is a file.
 */
#include "ledger.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/dbcommands.h"
#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#define LEDGER_FILE_MAGIC "DPAGGLG1"
#define LEDGER_HEADER_SIZE 16
#define RECORD_MAGIC 0x4450524Cu	/* "DPRL" */

static int	ledger_fd = -1;		/* this backend's append descriptor */

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
	ledger_set_problem(fmt, detail);
}

void
ledger_journal_load(void)
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
	buf = palloc(LEDGER_RECORD_MAX);
	pos = LEDGER_HEADER_SIZE;
	while (pos < size)
	{
		LedgerRecord *r = (LedgerRecord *) buf;
		off_t		o;
		uint64		later = 0;
		char		where[64];

		if (read_record(fd, pos, size, buf))
		{
			if (!ledger_apply_record(r))
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

/* ------------------------------------------------------------------------------------------
 * Appending: one write() under the lock, then the group flush outside it.
 */
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

void
ledger_journal_open(void)
{
	if (ledger_fd >= 0)
		return;
	/* A missing or damaged ledger is reported as such, not as a failure to open it. */
	LWLockAcquire(ledger->lock, LW_SHARED);
	ledger_check_usable_locked();
	LWLockRelease(ledger->lock);
	ledger_fd = BasicOpenFile(LEDGER_FILE, O_WRONLY | O_APPEND | PG_BINARY);
	if (ledger_fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not open the ledger \"%s\": %m", LEDGER_FILE)));
}

uint64
ledger_journal_append_locked(LedgerRecord *r)
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

void
ledger_journal_flush(uint64 upto)
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

/* ------------------------------------------------------------------------------------------
 * Reading the durable part, for the views.
 */
void
ledger_reader_begin(LedgerReader *rd)
{
	rd->buf = palloc(LEDGER_RECORD_MAX);
	rd->end = pg_atomic_read_u64(&ledger->flushed_pos);
	rd->pos = LEDGER_HEADER_SIZE;
	rd->fd = OpenTransientFile(LEDGER_FILE, O_RDONLY | PG_BINARY);
	if (rd->fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not open the ledger \"%s\": %m", LEDGER_FILE)));
}

const LedgerRecord *
ledger_reader_next(LedgerReader *rd)
{
	LedgerRecord *r = (LedgerRecord *) rd->buf;
	size_t		rest;

	if (rd->pos + sizeof(LedgerRecord) > rd->end)
		return NULL;
	CHECK_FOR_INTERRUPTS();
	if (pg_pread(rd->fd, rd->buf, sizeof(LedgerRecord), (off_t) rd->pos) != sizeof(LedgerRecord) ||
		r->magic != RECORD_MAGIC || r->length < sizeof(LedgerRecord) ||
		r->length > sizeof(LedgerRecord) + QUERY_TEXT_MAX + 8)
		return NULL;
	rest = r->length - sizeof(LedgerRecord);
	if (rest > 0 && pg_pread(rd->fd, rd->buf + sizeof(LedgerRecord), rest,
							 (off_t) (rd->pos + sizeof(LedgerRecord))) != (ssize_t) rest)
		return NULL;
	rd->pos += r->length;
	return record_crc(r) == r->crc ? r : NULL;
}

void
ledger_reader_rewind(LedgerReader *rd)
{
	rd->pos = LEDGER_HEADER_SIZE;
}

void
ledger_reader_end(LedgerReader *rd)
{
	CloseTransientFile(rd->fd);
	pfree(rd->buf);
}
