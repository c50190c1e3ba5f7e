/*
 * budget_views.c — what the SQL views show of the ledger: dp_budgets (each role's budget, spent
 * and remaining, from the shared accounts of ledger_shmem.c) and dpagg_journal (the journal read
 * back through ledger_store.c, behind the views dp_ledger and dp_budget_log).  Read only;
 * ledger.h lists the other files.
 *
 * The journal keeps the role's OID and the names at the time of each event; the views show the
 * current name of a role that still exists (DROP ROLE writes a "role dropped" record, so the
 * records of a dropped role are never shown as those of a later role with the same OID).  A
 * non-auditor sees a numbering of its own rows, not the global sequence number (which would tell
 * how many events other roles had).
 */
#include "ledger/ledger.h"

#include "mb/pg_wchar.h"

#include <math.h>

#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

/* A row is visible to roles with the privileges of its role, and to members of
 * pg_read_all_stats (auditors); superusers see everything. */
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
	ledger_require();
	copy = palloc(sizeof(RoleAccount) * dpagg_max_roles);
	ledger_settle_pending();
	LWLockAcquire(ledger->lock, LW_SHARED);
	ledger_check_usable_locked();	/* never a wrong total from a damaged ledger */
	n = ledger->nroles;
	memcpy(copy, ledger->roles, sizeof(RoleAccount) * n);
	LWLockRelease(ledger->lock);
	for (i = 0; i < n; i++)
	{
		RoleAccount *a = &copy[i];
		Datum		v[13];
		bool		nl[13];
		const char *name = GetUserNameFromId(a->role, true);
		dpagg_spent s = dpagg_spent_with(&a->acct, NULL);

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
		v[2] = CStringGetTextDatum(ledger_method_name(a->acct.method));
		nl[2] = !a->acct.has_budget;
		v[3] = Float8GetDatum(a->acct.epsilon_total);
		nl[3] = !a->acct.has_budget;
		v[4] = Float8GetDatum(a->acct.delta_total);
		nl[4] = !a->acct.has_budget;
		v[5] = float_or_null(a->acct.cap, &nl[5]);
		v[6] = shown(s.epsilon);
		v[7] = shown(s.delta);
		v[8] = shown((double) a->acct.rho);
		v[9] = shown(fmax(0, a->acct.epsilon_total - s.epsilon));
		nl[9] = !a->acct.has_budget;
		v[10] = shown(fmax(0, a->acct.delta_total - s.delta));
		nl[10] = !a->acct.has_budget;
		v[11] = Int64GetDatum(a->acct.releases);
		v[12] = BoolGetDatum(a->acct.has_budget);
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

/*
 * A release's query text as this database can show it.  The ledger is the cluster's, and each
 * text was recorded in its own database's encoding: a text from another database shows its
 * bytes beyond ASCII as \xNN (they may not be valid here, nor convert to the client's
 * encoding), and a text from this one its invalid bytes, so that no row breaks the views (an
 * attack review stopped every auditor's dp_ledger with one, from a LATIN1, an SQL_ASCII and a
 * UTF8 database read from an EUC_JP one).
 */
static text *
shown_query(const char *q, int len, bool other_database)
{
	StringInfoData buf;
	int			i = 0;

	if (other_database)
	{
		initStringInfo(&buf);
		for (i = 0; i < len; i++)
			if ((unsigned char) q[i] < 0x80 && q[i] != 0)
				appendStringInfoChar(&buf, q[i]);
			else
				appendStringInfo(&buf, "\\x%02x", (unsigned char) q[i]);
		return cstring_to_text_with_len(buf.data, buf.len);
	}
	if (pg_verifymbstr(q, len, true))
		return cstring_to_text_with_len(q, len);
	initStringInfo(&buf);
	while (i < len)
	{
		int			l = pg_encoding_verifymbchar(GetDatabaseEncoding(), q + i, len - i);

		if (l > 0 && !(l == 1 && (unsigned char) q[i] == 0))
		{
			appendBinaryStringInfo(&buf, q + i, l);
			i += l;
		}
		else
			appendStringInfo(&buf, "\\x%02x", (unsigned char) q[i++]);
	}
	return cstring_to_text_with_len(buf.data, buf.len);
}

typedef struct DroppedRole
{
	Oid			role;			/* hash key */
	uint64		last_drop_seq;	/* seq of the role's last "role dropped" record */
} DroppedRole;

/* The releases of one client statement, by their statement key (charge.c). */
typedef struct StatementEntry
{
	uint64		key;
	int64		first;			/* the seq (or ordinal) shown for its first release */
} StatementEntry;

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
 *  - role is the name recorded at the time (a rename or a drop does not rewrite history);
 *    role_now the role's name today, NULL once dropped (the functions' last columns: the views
 *    of 1.0.0 keep their columns, with role as it was: the current name while the role exists).
 *  - statement_id ties the releases of one client statement together: the seq shown for its
 *    first release (records of 1.0.0, which lack the key, are each their own statement).
 */
PG_FUNCTION_INFO_V1(dpagg_journal);
Datum
dpagg_journal(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	LedgerReader rd;
	const LedgerRecord *r;
	bool		auditor = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	int64		ordinal = 0;
	HASHCTL		ctl;
	HTAB	   *dropped;
	HTAB	   *statements;
	bool		full;

	InitMaterializedSRF(fcinfo, 0);
	/* dpagg_events() (1.1.0) has 20 columns, dpagg_journal() (1.0.0) the first 18 */
	full = rsinfo->setDesc->natts >= 20;
	ledger_require();
	LWLockAcquire(ledger->lock, LW_SHARED);
	ledger_check_usable_locked();
	LWLockRelease(ledger->lock);
	ledger_reader_begin(&rd);

	/* First pass: the last "role dropped" record of each OID. */
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(DroppedRole);
	ctl.hcxt = CurrentMemoryContext;
	dropped = hash_create("dpagg dropped roles", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(StatementEntry);
	ctl.hcxt = CurrentMemoryContext;
	statements = hash_create("dpagg statements", 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	while ((r = ledger_reader_next(&rd)) != NULL)
		if (r->type == REC_ROLE_DROPPED)
		{
			DroppedRole *d = hash_search(dropped, &r->role, HASH_ENTER, NULL);

			d->last_drop_seq = r->seq;
		}

	ledger_reader_rewind(&rd);
	while ((r = ledger_reader_next(&rd)) != NULL)
	{
		Datum		v[20];
		bool		nl[20];
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
		if (current && !full)
			namestrcpy(&role_name, current);	/* 1.0.0's dpagg_journal(): the name today */
		else if (r->role_name.data[0] != '\0' || current == NULL)
			role_name = r->role_name;
		else
			namestrcpy(&role_name, current);	/* a record without the name (none expected) */
		v[3] = NameGetDatum(&role_name);
		v[19] = (Datum) 0;
		nl[19] = current == NULL;
		if (current)
		{
			NameData   *now = palloc(sizeof(NameData));

			namestrcpy(now, current);
			v[19] = NameGetDatum(now);
		}
		v[4] = ObjectIdGetDatum(r->role);
		v[5] = NameGetDatum(&r->database_name);
		v[6] = NameGetDatum(&r->actor_name);
		v[7] = Int32GetDatum(r->pid);
		if (r->type == REC_RELEASE)
		{
			v[8] = Int64GetDatum(r->query_id);
			nl[8] = r->query_id == 0;
			v[9] = PointerGetDatum(shown_query(ledger_record_query(r), r->query_len,
											   r->database != MyDatabaseId));
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
			{
				StatementEntry *e;
				bool		found;

				e = r->statement_key != 0 ? hash_search(statements, &r->statement_key, HASH_ENTER, &found) : NULL;
				if (e != NULL && !found)
					e->first = DatumGetInt64(v[0]);
				v[18] = Int64GetDatum(e != NULL ? e->first : DatumGetInt64(v[0]));
				nl[18] = false;
			}
		}
		else
		{
			nl[8] = nl[9] = nl[10] = nl[11] = nl[14] = nl[15] = true;
			v[8] = v[9] = v[10] = v[11] = v[14] = v[15] = 0;
			v[12] = Float8GetDatum(r->epsilon);
			v[13] = Float8GetDatum(r->delta);
			nl[12] = nl[13] = r->type != REC_BUDGET_SET;
			v[16] = CStringGetTextDatum(ledger_method_name(r->method));
			nl[16] = r->type != REC_BUDGET_SET;
			v[17] = float_or_null(r->cap, &nl[17]);
			nl[18] = true;
			v[18] = 0;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nl);
	}
	hash_destroy(dropped);
	hash_destroy(statements);
	ledger_reader_end(&rd);
	return (Datum) 0;
}
