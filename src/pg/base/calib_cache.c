/*
 * calib_cache.c — calibrations shared by every backend of the cluster, and kept across restarts.
 *
 * A calibration (dpagg_calibrate_for_release) is a pure, deterministic function of its inputs (the
 * mechanism spec and the dpagg_request: epsilon, delta, sensitivity, integer_valued, dimension,
 * vector, objective; scalar and vector releases alike) and of the library's code: it reads no data
 * and no secret.  Sharing the result between backends, roles and databases therefore reveals
 * nothing that calling dp_calibrate() with the same public inputs would not, and a cached answer
 * is bit for bit what a fresh calibration would return.  Certified calibrations can take
 * milliseconds (auto, the multi-Gaussian), and a new connection would otherwise pay that again
 * for parameters any other backend calibrated a moment before.
 *
 * Layout: shared memory of dpagg.calibration_cache_entries slots (PGC_POSTMASTER; 0 disables
 * the shared cache), 4-way set associative, replaced round robin within a set, under one LWLock
 * (shared to read, exclusive to insert).  Each backend keeps its small local cache in front
 * (calibrate.c), so a hot call site takes no lock.
 *
 * Persistence, as pg_stat_statements does it: at a clean shutdown the postmaster writes the valid
 * entries to $PGDATA/pg_dpagg/calibrations (temporary file, fsync, rename); at the next start it
 * reads them back.  The file carries a CRC-32C of its contents and the CRC-32C of the loaded
 * library binary: a damaged file, or one written by any other build of dpagg (whose calibration
 * code could differ), is ignored with a LOG line and the cache starts empty.  Nothing else reads
 * or trusts it; a missing file is normal.
 */
#include "base/base.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#define CACHE_FILE "pg_dpagg/calibrations"
#define CACHE_FILE_TMP "pg_dpagg/calibrations.tmp"
#define CACHE_FILE_MAGIC 0x44504343u	/* "DPCC" */
#define CACHE_FILE_VERSION 3	/* 2: dpagg_calibration names its mechanism by a stable id;
								 * 3: keyed by the whole dpagg_request (dimension, objective), one
								 * calibration struct for scalars and vectors */
#define WAYS 4

typedef struct CalibKey
{
	char		spec[DPAGG_MECH_SPEC_LEN];	/* zero-padded: compared bytewise */
	dpagg_request req;			/* plain data without padding */
} CalibKey;

typedef struct CalibSlot
{
	bool		valid;
	CalibKey	key;
	dpagg_calibration cal;
} CalibSlot;

typedef struct CalibShared
{
	LWLock	   *lock;
	int			nsets;
	uint32		hand[FLEXIBLE_ARRAY_MEMBER];	/* per set: next way to replace */
	/* followed by nsets * WAYS slots */
} CalibShared;

typedef struct CacheFileHeader
{
	uint32		magic;
	uint32		version;
	uint32		library_crc;	/* CRC-32C of the library binary that wrote the file */
	uint32		entry_size;		/* sizeof(CalibSlot) */
	uint32		count;
	pg_crc32c	crc;			/* of the entries */
} CacheFileHeader;

static int	cache_entries = 4096;
static CalibShared *shared = NULL;
static CalibSlot *slots = NULL;
static uint32 library_crc = 0;
static bool library_crc_known = false;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static int
nsets_for(int entries)
{
	return entries <= 0 ? 0 : (entries + WAYS - 1) / WAYS;
}

static Size
shared_size(void)
{
	int			nsets = nsets_for(cache_entries);

	if (nsets == 0)
		return 0;
	return add_size(MAXALIGN(add_size(offsetof(CalibShared, hand), mul_size(sizeof(uint32), nsets))),
					mul_size(sizeof(CalibSlot), mul_size(nsets, WAYS)));
}

static void
make_key(CalibKey *k, const char *spec, const dpagg_request *req)
{
	memset(k, 0, sizeof(*k));
	strlcpy(k->spec, spec, sizeof(k->spec));
	k->req = *req;
}

static uint32
key_set(const CalibKey *k)
{
	pg_crc32c	c;

	INIT_CRC32C(c);
	COMP_CRC32C(c, k, sizeof(*k));
	FIN_CRC32C(c);
	return c % (uint32) shared->nsets;
}

/* Copy a cached calibration out, if present. */
bool
dpagg_shared_calibration_get(const char *spec, const dpagg_request *req, dpagg_calibration *out)
{
	CalibKey	k;
	CalibSlot  *set;
	int			w;
	bool		hit = false;

	if (shared == NULL)
		return false;
	make_key(&k, spec, req);
	set = &slots[key_set(&k) * WAYS];
	LWLockAcquire(shared->lock, LW_SHARED);
	for (w = 0; w < WAYS; w++)
		if (set[w].valid && memcmp(&set[w].key, &k, sizeof(k)) == 0)
		{
			*out = set[w].cal;
			hit = true;
			break;
		}
	LWLockRelease(shared->lock);
	return hit;
}

static void
put_locked(const CalibKey *k, const dpagg_calibration *cal)
{
	uint32		s = key_set(k);
	CalibSlot  *set = &slots[s * WAYS];
	int			w,
				victim = -1;

	for (w = 0; w < WAYS; w++)
	{
		if (set[w].valid && memcmp(&set[w].key, k, sizeof(*k)) == 0)
			return;				/* another backend got there first: same answer */
		if (!set[w].valid && victim < 0)
			victim = w;
	}
	if (victim < 0)
		victim = shared->hand[s]++ % WAYS;
	set[victim].key = *k;
	set[victim].cal = *cal;
	set[victim].valid = true;
}

void
dpagg_shared_calibration_put(const char *spec, const dpagg_request *req,
							 const dpagg_calibration *cal)
{
	CalibKey	k;

	if (shared == NULL)
		return;
	make_key(&k, spec, req);
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	put_locked(&k, cal);
	LWLockRelease(shared->lock);
}

/* ------------------------------------------------------------------------------------------
 * The library's own CRC: binds a persisted file to the exact binary that computed it.
 */
static bool
compute_library_crc(uint32 *out)
{
	Dl_info		info;
	int			fd;
	char		buf[65536];
	ssize_t		n;
	pg_crc32c	c;

	if (dladdr((void *) compute_library_crc, &info) == 0 || info.dli_fname == NULL)
		return false;
	fd = open(info.dli_fname, O_RDONLY | PG_BINARY, 0);
	if (fd < 0)
		return false;
	INIT_CRC32C(c);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		COMP_CRC32C(c, buf, n);
	close(fd);
	if (n < 0)
		return false;
	FIN_CRC32C(c);
	*out = c;
	return true;
}

static void
load_saved_calibrations(void)
{
	int			fd;
	CacheFileHeader h;
	CalibSlot  *entries = NULL;
	size_t		bytes;
	pg_crc32c	c;
	uint32		i;
	const char *why = NULL;

	fd = OpenTransientFile(CACHE_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
		return;					/* none yet: normal */
	if (read(fd, &h, sizeof(h)) != sizeof(h))
		why = "short header";
	else if (h.magic != CACHE_FILE_MAGIC || h.version != CACHE_FILE_VERSION ||
			 h.entry_size != sizeof(CalibSlot))
		why = "unknown format";
	else if (!library_crc_known || h.library_crc != library_crc)
		why = "written by another build of dpagg";
	else if (h.count > (uint32) (nsets_for(cache_entries) * WAYS))
		why = "more entries than the cache holds";
	if (why == NULL && h.count > 0)
	{
		bytes = (size_t) h.count * sizeof(CalibSlot);
		entries = palloc(bytes);
		if (read(fd, entries, bytes) != (ssize_t) bytes)
			why = "short file";
		else
		{
			INIT_CRC32C(c);
			COMP_CRC32C(c, entries, bytes);
			FIN_CRC32C(c);
			if (c != h.crc)
				why = "checksum mismatch";
		}
	}
	CloseTransientFile(fd);
	if (why != NULL)
	{
		ereport(LOG,
				(errmsg("dpagg: ignoring the saved calibrations \"%s\": %s", CACHE_FILE, why)));
		if (entries)
			pfree(entries);
		return;
	}
	for (i = 0; i < h.count; i++)
		if (entries[i].valid)
			put_locked(&entries[i].key, &entries[i].cal);
	if (entries)
		pfree(entries);
}

/* At postmaster shutdown (on_shmem_exit): save the valid entries.  Errors only LOG. */
static void
save_calibrations(int code, Datum arg)
{
	int			fd;
	CacheFileHeader h;
	int			total,
				i;
	uint32		count = 0;
	pg_crc32c	c;

	if (code != 0 || shared == NULL || !library_crc_known)
		return;
	total = shared->nsets * WAYS;
	INIT_CRC32C(c);
	for (i = 0; i < total; i++)
		if (slots[i].valid)
		{
			COMP_CRC32C(c, &slots[i], sizeof(CalibSlot));
			count++;
		}
	FIN_CRC32C(c);
	(void) MakePGDirectory("pg_dpagg");
	fd = OpenTransientFile(CACHE_FILE_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		goto fail;
	memset(&h, 0, sizeof(h));
	h.magic = CACHE_FILE_MAGIC;
	h.version = CACHE_FILE_VERSION;
	h.library_crc = library_crc;
	h.entry_size = sizeof(CalibSlot);
	h.count = count;
	h.crc = c;
	if (write(fd, &h, sizeof(h)) != sizeof(h))
		goto fail_close;
	for (i = 0; i < total; i++)
		if (slots[i].valid && write(fd, &slots[i], sizeof(CalibSlot)) != sizeof(CalibSlot))
			goto fail_close;
	if (pg_fsync(fd) != 0)
		goto fail_close;
	if (CloseTransientFile(fd) != 0)
		goto fail;
	(void) durable_rename(CACHE_FILE_TMP, CACHE_FILE, LOG);
	return;
fail_close:
	CloseTransientFile(fd);
fail:
	ereport(LOG, (errcode_for_file_access(),
				  errmsg("dpagg: could not save the calibrations to \"%s\": %m", CACHE_FILE)));
	(void) unlink(CACHE_FILE_TMP);
}

static void
calib_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	if (shared_size() > 0)
	{
		RequestAddinShmemSpace(shared_size());
		RequestNamedLWLockTranche("dpagg_calibrations", 1);
	}
}

static void
calib_shmem_startup(void)
{
	bool		found;
	int			nsets = nsets_for(cache_entries);

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	if (nsets == 0)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("dpagg calibrations", shared_size(), &found);
	slots = (CalibSlot *) ((char *) shared +
						   MAXALIGN(offsetof(CalibShared, hand) + sizeof(uint32) * nsets));
	if (!found)
	{
		memset(shared, 0, shared_size());
		shared->lock = &(GetNamedLWLockTranche("dpagg_calibrations"))[0].lock;
		shared->nsets = nsets;
		/* The postmaster (also after a crash restart): read the saved entries back. */
		library_crc_known = compute_library_crc(&library_crc);
		load_saved_calibrations();
	}
	LWLockRelease(AddinShmemInitLock);
	if (!IsUnderPostmaster)
		on_shmem_exit(save_calibrations, (Datum) 0);
}

void
dpagg_calib_cache_init(void)
{
	DefineCustomIntVariable("dpagg.calibration_cache_entries",
							"Calibrations kept in shared memory for every backend (0: none).",
							"Each entry takes about 400 bytes; the cache is saved at shutdown and read back at start.",
							&cache_entries, 4096, 0, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = calib_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = calib_shmem_startup;
}
