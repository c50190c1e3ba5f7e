/*
 * labels.h — what dpagg's security labels say (docs/architecture.md): which relations are private
 * and for which privacy unit, which objects are public (protect.c), which roles are restricted
 * and whether this session is (roles.c), and the preloading that restricted sessions need
 * (preload.c).  Facts and the SQL that sets them; what a statement may do with them is the query
 * pipeline's (src/pg/query).
 */
#ifndef DPAGG_LABELS_H
#define DPAGG_LABELS_H

#include "base/base.h"

/* The largest values a label accepts. */
#define DPAGG_MAX_GROUPS_CONTRIBUTED 1000000
#define DPAGG_MAX_ROWS_PER_GROUP 1000000000

/* A relation's protection, as its label declares it. */
typedef struct DpProtection
{
	char		unit[NAMEDATALEN];	/* the privacy-unit column */
	int			max_groups;		/* L: groups one unit may contribute to (>= 1) */
	int			max_rows_per_group;	/* rows of one unit a count may take per group; 0: count units */
} DpProtection;

/* Parse a label (ereport ERROR with its own SQLSTATE and a hint if it does not parse). */
extern void dpagg_parse_protection(const char *label, DpProtection *out);

/* Is the relation private (labelled itself, or a partition of a labelled table)?  If so, fill
 * *out and *labelled (the relation carrying the label) where not NULL.  Cached per backend. */
extern bool dpagg_relation_protection(Oid relid, DpProtection *out, Oid *labelled);
extern bool dpagg_relation_public(Oid relid);
extern bool dpagg_label_is_public(const char *label);

/* Does a plan read a private relation (its range table)?  The first one it reads, or InvalidOid. */
extern bool dpagg_plan_reads_private(PlannedStmt *stmt);
extern Oid	dpagg_plan_first_private(PlannedStmt *stmt);
/* DDL that would weaken a protection (renaming or dropping the unit column, inheritance, attaching
 * a private table as a partition), refused before it runs; from the utility hook (hooks.c). */
extern void dpagg_protect_check_utility(Node *node);

/* Set or clear a dpagg label on an object named in SQL ("TABLE s.t", "ROLE r"), through SPI. */
extern void dpagg_set_label(const char *object, const char *label);

extern void dpagg_protect_init(void);

/* ---- roles.c: restricted roles ---------------------------------------------------------------- */

/* The label provider's check of a role's label ('restricted' only, never a superuser). */
struct ObjectAddress;
extern void dpagg_relabel_role(const struct ObjectAddress *object, const char *seclabel);
/* Is this session restricted (its login or current role a member of a restricted role)?  Cached;
 * dpagg_restrict_cache_init registers what makes the cache stale. */
extern bool dpagg_session_restricted(void);
extern void dpagg_restrict_cache_init(void);
/* The roles labelled restricted. */
extern List *dpagg_restricted_role_labels(void);

/* ---- preload.c: without shared_preload_libraries ---------------------------------------------- */

extern void dpagg_preload_late_init(void);
extern void dpagg_preload_for_restricted(Oid role);
extern void dpagg_preload_after_membership_change(void);

#endif							/* DPAGG_LABELS_H */
