/*
 * ledger_migrate.c — the journal of dpagg versions before the WAL ledger: the file
 * $PGDATA/pg_dpagg/ledger, carried over into the store (ledger_store.c) once, when the accounts
 * are first loaded after the upgrade, and then renamed pg_dpagg/ledger.migrated (kept, not read
 * again).  ledger.h lists the other files.
 *
 * Its format: a 16-byte header, "DPAGGLG1" and zeros, then LedgerRecords (ledger.h) one after the
 * other, each followed by its query text padded to 8 bytes, each with a CRC-32C.  The old journal
 * was flushed in groups, so a crash could leave its unflushed end partly written; none of that was
 * acknowledged (a value was returned only after a flush, and a flush covered every earlier
 * byte), so such an end is left behind.  A damaged record in data that had been flushed — which
 * a later record's flushed_hint proves — stops the migration and every release until an
 * administrator restores the file.
 *
 * Exactly once: each record keeps its sequence number, and a record whose number the store
 * already has is skipped; so a crash in the middle of the migration (before the rename) carries
 * over the rest at the next load and nothing twice.
 */
#include "ledger/ledger.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/fd.h"

#define LEDGER_FILE_MAGIC "DPAGGLG1"
#define LEDGER_HEADER_SIZE 16

/* Read and check the record at pos: true if it is whole, well-formed and its CRC matches. */
static bool
read_record(int fd, off_t pos, off_t size, char *buf)
{
	LedgerRecord h;

	if (size - pos < (off_t) sizeof(LedgerRecord) ||
		pg_pread(fd, &h, sizeof(h), pos) != sizeof(h))
		return false;
	if (h.length < sizeof(LedgerRecord) || h.length > LEDGER_RECORD_MAX || pos + (off_t) h.length > size ||
		pg_pread(fd, buf, h.length, pos) != (ssize_t) h.length)
		return false;
	return ledger_record_valid(buf, h.length);
}

static void
damaged(const char *fmt, long long pos)
{
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg(fmt, pos)));
}

void
ledger_migrate_journal(int *nrec)
{
	int			fd;
	struct stat st;
	char		header[LEDGER_HEADER_SIZE];
	off_t		pos,
				size;
	char	   *buf;
	uint64		watermark = 0;
	XLogRecPtr	last = InvalidXLogRecPtr;
	int			added = 0;

	if (stat(LEDGER_FILE, &st) != 0)
		return;
	fd = OpenTransientFile(LEDGER_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("dpagg: could not open \"%s\": %m", LEDGER_FILE)));
	size = st.st_size;
	if (size >= LEDGER_HEADER_SIZE &&
		(pg_pread(fd, header, sizeof(header), 0) != sizeof(header) || memcmp(header, LEDGER_FILE_MAGIC, 8) != 0))
		damaged("the ledger \"pg_dpagg/ledger\" is not a dpagg journal (%lld bytes); releases are refused", (long long) size);
	buf = palloc(LEDGER_RECORD_MAX);
	pos = LEDGER_HEADER_SIZE;
	while (pos < size)
	{
		LedgerRecord *r = (LedgerRecord *) buf;
		off_t		o;
		uint64		later = 0;

		CHECK_FOR_INTERRUPTS();
		if (read_record(fd, pos, size, buf))
		{
			watermark = Max(watermark, r->flushed_hint);
			pos += r->length;
			if (r->seq < ledger->next_seq)
				continue;		/* carried over before a crash */
			ledger->next_seq = r->seq;
			if (r->type == REC_ROLE_DROPPED)
				r->query_id = 0;	/* the old journal's drops were unconditional */
			r->flushed_hint = 0;	/* the old journal's hint; statement_key in the WAL ledger */
			last = ledger_store_append_locked(r);
			if (!ledger_apply_record(r))
				damaged("the ledger holds more roles than dpagg.max_roles (%lld records in); raise it and restart",
						(long long) added);
			added++;
			continue;
		}

		/*
		 * An invalid record.  If nothing says this offset had been flushed, the rest is an
		 * unacknowledged end and is left behind.  If a valid record (before it, or found further
		 * on by scanning) was appended when the journal was already durable beyond this offset,
		 * flushed data is damaged: refuse.
		 */
		for (o = pos + 8; o + (off_t) sizeof(LedgerRecord) <= size; o += 8)
		{
			if (read_record(fd, o, size, buf))
			{
				later = Max(later, ((LedgerRecord *) buf)->flushed_hint);
				o += ((LedgerRecord *) buf)->length - 8;
			}
		}
		if (Max(watermark, later) > (uint64) pos)
			damaged("the ledger is damaged at byte %lld of pg_dpagg/ledger, in data that had been flushed; releases are refused until an administrator restores it",
					(long long) pos);
		ereport(LOG, (errmsg("dpagg: leaving behind an unacknowledged torn end of the old journal (from byte %lld of %lld)",
							 (long long) pos, (long long) size)));
		break;
	}
	pfree(buf);
	CloseTransientFile(fd);
	if (!XLogRecPtrIsInvalid(last))
		XLogFlush(last);
	/* Every record is in the WAL, flushed: the file is not read again. */
	if (durable_rename(LEDGER_FILE, LEDGER_FILE ".migrated", LOG) != 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("dpagg: could not rename \"%s\" after carrying it over: %m", LEDGER_FILE)));
	ereport(LOG, (errmsg("dpagg: carried %d records of the old journal pg_dpagg/ledger into the WAL ledger; the file is now pg_dpagg/ledger.migrated",
						 added)));
	*nrec += added;
}
