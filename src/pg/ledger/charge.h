/*
 * charge.h — what the rest of the glue sees of privacy budgets (docs/architecture.md): the charge
 * of a release, taken before its Agg node reads a row and flushed before any value is returned
 * (charge.c), and the ledger's start-up (ledger_shmem.c).  ledger.h is internal to this folder.
 */
#ifndef DPAGG_CHARGE_H
#define DPAGG_CHARGE_H

#include "base/base.h"

/* Privacy budgets and the ledger (ledger_shmem.c; the files are listed in ledger.h). */
extern void dpagg_budget_init(void);

/* One part of a release, for the charge: its mechanism, (epsilon, delta) and zCDP rho
 * (NaN if the mechanism is not rho-zCDP). */
typedef struct DpChargePart
{
	const char *spec;
	double		epsilon;
	double		delta;
	double		rho;
} DpChargePart;

/* Whether an execution of an aggregation was charged, and in which loop of its Agg node. */
typedef struct DpChargeMark
{
	bool		charged;
	double		loop;			/* the node's instrumentation loop count when charged */
} DpChargeMark;

/* Charge one execution (once per loop of the Agg node; `mark` remembers; charge.c).
 * query_text: the statement that runs it, or NULL for the client's current one. */
struct AggState;
extern void dpagg_charge_at(struct AggState *as, DpChargeMark *mark, const char *aggregate,
							double epsilon, double delta, const DpChargePart *parts, int nparts,
							const char *query_text);

/* What the charge would refuse, checked without charging (when a call site is prepared, before
 * any row is read); `as` is the Agg node that will release. */
struct AggState;
extern void dpagg_charge_check_parts(struct AggState *as, const char *aggregate, double epsilon,
									 double delta, const DpChargePart *parts, int nparts);

/* A statement's call sites being prepared: their dry runs are admitted together (charge.c). */
extern void dpagg_charge_statement_begin(void);
extern void dpagg_charge_statement_end(void);
extern void dpagg_charge_precheck(const char *aggregate, double epsilon, double delta,
								  const DpChargePart *parts, int nparts);
extern void dpagg_charge_planned(const char *aggregate, double epsilon, double delta,
								 const DpChargePart *parts, int nparts, bool dry_run,
								 const char *query_text);

/*
 * A release on a Citus worker under its coordinator's grant is not charged here: the coordinator
 * charged it, and the grant is matched and used up instead (consume false: only checked).  The
 * Citus folder registers the check at load; without it every release on a worker is refused.
 */
struct EState;
typedef bool (*DpChargeGrantCheck) (struct EState *estate, const char *aggregate, int sets,
									double epsilon, double delta, const DpChargePart *parts,
									int nparts, bool consume);
extern void dpagg_charge_set_grant_check(DpChargeGrantCheck check);

#endif							/* DPAGG_CHARGE_H */
