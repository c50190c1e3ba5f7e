/*
 * protect.h — private relations and their privacy units (protect.c).
 */
#ifndef DPAGG_PROTECT_H
#define DPAGG_PROTECT_H

#include "postgres.h"
#include "nodes/plannodes.h"

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

/*
 * Until per-unit bounding is implemented: refuse a statement that runs one of dpagg's aggregates
 * and reads a private relation, also across nested statements (protect.c).  The executor hooks
 * call check_start before the executor starts (it returns the statement's flags), track once it
 * has started, and enter/leave around running and finishing it.
 */
#define DPAGG_READS_PRIVATE 1
#define DPAGG_HAS_DPAGG 2
struct QueryDesc;
extern int	dpagg_protect_check_start(struct QueryDesc *qd);
extern void dpagg_protect_track(struct QueryDesc *qd, int flags);
extern int	dpagg_protect_enter(struct QueryDesc *qd);
extern void dpagg_protect_leave(int flags);

/* Does a plan read a private relation (its range table)? */
extern bool dpagg_plan_reads_private(PlannedStmt *stmt);

/* Set or clear a dpagg label on an object named in SQL ("TABLE s.t", "ROLE r"), through SPI. */
extern void dpagg_set_label(const char *object, const char *label);

extern void dpagg_protect_init(void);

#endif							/* DPAGG_PROTECT_H */
