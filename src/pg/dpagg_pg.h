/*
 * dpagg_pg.h — shared declarations of the PostgreSQL glue (C only; the C++ core is reached
 * through src/core/dpagg_core.h and never calls PostgreSQL itself).
 */
#ifndef DPAGG_PG_H
#define DPAGG_PG_H

#include "postgres.h"
#include "fmgr.h"

#include "../core/dpagg_core.h"

/* GUC dpagg.default_mechanism */
extern char *dpagg_default_mechanism;

/* GUC dpagg.objective: what auto minimises */
#define DPAGG_OBJECTIVE_L2 0
#define DPAGG_OBJECTIVE_L1 1
extern int	dpagg_objective;

/* ereport(ERROR) for a core error; never returns. */
extern void dpagg_report(const dpagg_error *err) pg_attribute_noreturn();

/*
 * Calibrate through a small per-backend cache (the calibration is a pure function of its
 * inputs).  Errors are reported with ereport.
 */
extern void dpagg_calibrate_cached(const char *spec, double epsilon, double delta,
								   double sensitivity, bool integer_valued,
								   dpagg_calibration *out);

/* The text of a mechanism argument, or the GUC default when absent. */
extern void dpagg_mechanism_spec(text *arg, char *buf, size_t buflen);

#endif							/* DPAGG_PG_H */
