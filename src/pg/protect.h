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

/* Refuse a statement that runs one of dpagg's aggregates and reads a private relation (until
 * per-unit bounding is implemented). */
extern void dpagg_refuse_unbounded_private(PlannedStmt *stmt);

extern void dpagg_protect_init(void);

#endif							/* DPAGG_PROTECT_H */
