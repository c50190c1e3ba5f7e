/*
 * roles.c — restricted roles (docs/guides/restricted-analysts.md; docs/restricted.md): the label
 * 'restricted' of the provider dpagg on a role, set by a superuser (SECURITY LABEL or
 * dp_restrict / dp_unrestrict), and whether the current session is restricted (its login role or
 * its current role is a member of a restricted role; superuser privilege is never restricted).
 * What a restricted session may run is the query pipeline's business (src/pg/query/restrict*.c);
 * this file only knows who is restricted, cached per backend and forgotten when a label, a role
 * or a membership changes.
 */
#include "labels/labels.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_shseclabel.h"
#include "commands/seclabel.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#define PROVIDER "dpagg"
#define RESTRICTED_LABEL "restricted"

/* ---- the role label --------------------------------------------------------------------------- */

void
dpagg_relabel_role(const ObjectAddress *object, const char *seclabel)
{
	char	   *s;

	/*
	 * Every backend's cached plans are made again after this commits (a relcache invalidation of
	 * every relation drops every cached plan that reads one): a statement prepared before the
	 * restriction is checked like a new one at its next execution, so that one mixing dpagg's
	 * aggregates with raw reads cannot run on.  Also when the label is cleared (harmless).
	 */
	CacheInvalidateRelcacheAll();
	if (seclabel == NULL)
		return;					/* clearing: always fine */
	s = pstrdup(seclabel);
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	{
		char	   *e = s + strlen(s);

		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
			*--e = '\0';
	}
	if (pg_strcasecmp(s, RESTRICTED_LABEL) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("invalid dpagg label for a role: %s", dpagg_quote_input(seclabel)),
				 errhint("The only label for a role is 'restricted'.")));
	if (object->objectId == BOOTSTRAP_SUPERUSERID || superuser_arg(object->objectId))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a superuser cannot be restricted"),
				 errhint("Restrict roles without superuser privilege; a superuser can remove any restriction.")));
	/* Its sessions (and its members') load dpagg even if the server did not (preload.c). */
	dpagg_preload_for_restricted(object->objectId);
}

/* The roles labelled restricted (scanned from pg_shseclabel: a small shared catalog). */
static List *
restricted_roles(void)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key[1];
	HeapTuple	tup;
	List	   *out = NIL;

	rel = table_open(SharedSecLabelRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_shseclabel_classoid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(AuthIdRelationId));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_shseclabel l = (Form_pg_shseclabel) GETSTRUCT(tup);
		bool		isnull;
		Datum		provider = heap_getattr(tup, Anum_pg_shseclabel_provider,
										   RelationGetDescr(rel), &isnull);

		if (!isnull && strcmp(TextDatumGetCString(provider), PROVIDER) == 0)
			out = lappend_oid(out, l->objoid);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return out;
}

List *
dpagg_restricted_role_labels(void)
{
	return restricted_roles();
}

static bool
role_restricted(Oid role, List *labelled)
{
	ListCell   *lc;

	if (!OidIsValid(role) || superuser_arg(role))
		return false;
	foreach(lc, labelled)
		if (is_member_of_role_nosuper(role, lfirst_oid(lc)))
			return true;
	return false;
}

/*
 * Is this session restricted?  Asked for every statement, so cached for the current (session
 * user, current user) pair, and forgotten when a role's label changes (relabelling invalidates
 * every relation: restrict_invalidated) or a role or a membership does (membership_changed).
 */
static int	cached_restricted = -1;
static Oid	cached_session_user = InvalidOid;
static Oid	cached_user = InvalidOid;

bool
dpagg_session_restricted(void)
{
	List	   *labelled;
	bool		r = false;

	if (cached_restricted >= 0 && cached_session_user == GetSessionUserId() &&
		cached_user == GetUserId())
		return cached_restricted == 1;
	labelled = restricted_roles();
	if (labelled != NIL)
		r = role_restricted(GetSessionUserId(), labelled) || role_restricted(GetUserId(), labelled);
	list_free(labelled);
	cached_session_user = GetSessionUserId();
	cached_user = GetUserId();
	cached_restricted = r ? 1 : 0;
	return r;
}

static void
restrict_invalidated(Datum arg, Oid relid)
{
	cached_restricted = -1;
}

/* dp_restricted(role): is the role restricted (itself or through membership)? */
PG_FUNCTION_INFO_V1(dpagg_role_restricted_sql);
Datum
dpagg_role_restricted_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(role_restricted(PG_GETARG_OID(0), restricted_roles()));
}

static void
set_role_label(Oid role, const char *label)
{

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only superusers can restrict roles or lift a restriction"),
				 errhint("Ask a superuser to run dp_restrict or SECURITY LABEL FOR dpagg ON ROLE.")));
	if (GetUserNameFromId(role, true) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	dpagg_set_label(psprintf("ROLE %s", quote_identifier(GetUserNameFromId(role, false))), label);
}

PG_FUNCTION_INFO_V1(dpagg_restrict_sql);
Datum
dpagg_restrict_sql(PG_FUNCTION_ARGS)
{
	set_role_label(PG_GETARG_OID(0), RESTRICTED_LABEL);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(dpagg_unrestrict_sql);
Datum
dpagg_unrestrict_sql(PG_FUNCTION_ARGS)
{
	Oid			role = PG_GETARG_OID(0);
	ObjectAddress obj;
	bool		had;

	ObjectAddressSet(obj, AuthIdRelationId, role);
	had = GetSecurityLabel(&obj, PROVIDER) != NULL;
	if (had)
		set_role_label(role, NULL);
	PG_RETURN_BOOL(had);
}

/* A role granted membership of a restricted role becomes restricted: as for the label, cached
 * plans are made again (and so checked) at their next execution.  Also on revocation. */
static void
membership_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	cached_restricted = -1;
	ResetPlanCache();
}

/* What makes the cached answer of dpagg_session_restricted stale; also when dpagg was loaded
 * late (preload.c), whose refusals ask the same question. */
void
dpagg_restrict_cache_init(void)
{
	CacheRegisterSyscacheCallback(AUTHMEMMEMROLE, membership_changed, (Datum) 0);
	/* ... and a role that loses SUPERUSER (never restricted) may become restricted */
	CacheRegisterSyscacheCallback(AUTHOID, membership_changed, (Datum) 0);
	CacheRegisterRelcacheCallback(restrict_invalidated, (Datum) 0);
}

