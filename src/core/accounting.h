/*
 * accounting.h — composition of privacy losses: what a role's releases have spent, and whether
 * the next one fits its budget (docs/guides/budgets.md).  Pure functions of plain data; the
 * durable ledger, shared memory and locking stay in the glue (src/pg/ledger/).
 *
 * Like dpagg_core.h, the C part of this header is all the glue sees: every function is
 * implemented in C++ behind a try/catch (nothing thrown crosses it; on an internal failure the
 * answer is the refusing one: "does not fit", an infinite epsilon), and it never calls
 * PostgreSQL.  The structs are plain data, so an account can live in shared memory.
 *
 * Two methods (the value is written in the journal, so it must never change):
 *
 *  basic  epsilon and delta add up over releases (sequential composition; valid for adaptively
 *         chosen releases: Rogers, Roth, Ullman & Vadhan 2016, "Privacy odometers and filters:
 *         pay-as-you-go composition").
 *  zcdp   a part of a release whose mechanism is rho-zCDP with rho <= epsilon^2 / 2 is charged
 *         its rho; any other part, being (epsilon, delta)-DP, is delta-approximately
 *         (epsilon^2 / 2)-zCDP (Bun & Steinke 2016, "Concentrated differential privacy:
 *         simplifications, extensions, and lower bounds") and is charged epsilon^2 / 2
 *         and its delta.  The budget's delta is split once, in advance: half for converting the
 *         total rho to epsilon (Bun & Steinke 2016, Prop. 1.3:
 *         rho-zCDP implies (rho + 2 sqrt(rho ln(1/d)), d)-DP), half for the approximate parts.
 *         A release is allowed while the converted epsilon stays within the budget's epsilon and
 *         the approximate deltas within delta / 2.  With both limits fixed in advance this is a
 *         zCDP privacy filter; its validity for adaptive releases (approximate parts included)
 *         is cited from Whitehouse, Ramdas, Rogers & Wu 2023, "Fully-adaptive composition in
 *         differential privacy", not re-derived here.
 *
 * The tolerance rule: a spend fits a total when spent <= total * (1 + DPAGG_BUDGET_SLACK), or
 * when it is 0; so ten releases of 0.1 fit a budget of 1.0 although the double nearest 0.1 is a
 * little above it.  That relative 1e-12 is the only allowance.  The sums are kept in long double
 * (no drift over millions of releases) and rounded once to double for the comparison (2^-53
 * relative at most); a NaN or infinite spend never fits, so any other rounding accident refuses.
 */
#ifndef DPAGG_ACCOUNTING_H
#define DPAGG_ACCOUNTING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Accounting methods (stored in the journal: values fixed). */
#define DPAGG_ACCOUNTING_BASIC 0
#define DPAGG_ACCOUNTING_ZCDP 1

/* Relative slack of every comparison of a spend against a limit (see above). */
#define DPAGG_BUDGET_SLACK 1e-12

/* One role's account: its budget and the sums over all its releases. */
typedef struct dpagg_account
{
	int32_t		has_budget;
	int32_t		method;			/* DPAGG_ACCOUNTING_* */
	double		epsilon_total;
	double		delta_total;
	double		cap;			/* per-release epsilon cap; NaN: none */
	/* Sums over every release (long double: no drift over many releases). */
	long double epsilon_all;
	long double delta_all;
	long double rho;			/* rho charged under zcdp accounting */
	long double delta_nz;		/* delta of the parts charged as approximate zCDP */
	int64_t		releases;
} dpagg_account;

/* One part of a release: its (epsilon, delta) and zCDP rho (NaN if not rho-zCDP). */
typedef struct dpagg_charge_part
{
	double		epsilon;
	double		delta;
	double		rho;
} dpagg_charge_part;

/* What one release costs, as recorded in the journal. */
typedef struct dpagg_release_cost
{
	double		epsilon;		/* requested epsilon times the grouping sets */
	double		delta;
	double		rho;			/* zcdp: rho charged */
	double		delta_nz;		/* zcdp: delta of its parts charged as approximate zCDP */
} dpagg_release_cost;

/* What an account has spent, under its method. */
typedef struct dpagg_spent
{
	double		epsilon;
	double		delta;
	double		delta_approx;	/* zcdp: the deltas of the approximate parts; basic: delta */
} dpagg_spent;

/* Why a release is refused (or not). */
typedef enum dpagg_admission
{
	DPAGG_ADMIT = 0,
	DPAGG_REFUSE_CAP = 1,		/* its epsilon exceeds the account's per-release cap */
	DPAGG_REFUSE_FLOOR = 2,		/* its epsilon is below the minimum release epsilon */
	DPAGG_REFUSE_EXHAUSTED = 3	/* it would overspend the budget */
} dpagg_admission;

/* rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP: 0 for rho <= 0, +infinity unless
 * delta > 0. */
double		dpagg_zcdp_epsilon(double rho, double delta);

/* The cost of a release of `sets` grouping sets, each at (epsilon, delta), made of nparts parts. */
void		dpagg_release_cost_of(int sets, double epsilon, double delta,
								  const dpagg_charge_part *parts, int nparts,
								  dpagg_release_cost *out);

/* Add a release to the account's sums (and count it). */
void		dpagg_account_add(dpagg_account *a, const dpagg_release_cost *c);

/* What the account has spent after adding release c (NULL: as it stands). */
dpagg_spent dpagg_spent_with(const dpagg_account *a, const dpagg_release_cost *c);

/* The tolerance rule: nonzero when spent fits total. */
int			dpagg_within(double spent, double total);

/* Nonzero when the spend fits the account's budget (an account that has one). */
int			dpagg_fits(const dpagg_account *a, dpagg_spent s);

/* Nonzero when a release of epsilon (per grouping set) exceeds the cap (NaN: none). */
int			dpagg_exceeds_cap(double epsilon, double cap);

/* For an account with a budget: may release c, asked at epsilon per grouping set, be made?
 * Checked in this order: the cap, the floor (min_release_epsilon; 0 for none), the budget. */
dpagg_admission dpagg_admit(const dpagg_account *a, const dpagg_release_cost *c, double epsilon,
							double min_release_epsilon);

#ifdef __cplusplus
}

namespace dpagg::accounting {

// The same rules as C++ functions (the C interface above calls them behind a try/catch).
double zcdp_epsilon(double rho, double delta);
dpagg_release_cost release_cost(int sets, double epsilon, double delta,
                                const dpagg_charge_part* parts, int nparts);
void add(dpagg_account& a, const dpagg_release_cost& c);
dpagg_spent spent_with(const dpagg_account& a, const dpagg_release_cost* c);
bool within(double spent, double total);
bool fits(const dpagg_account& a, const dpagg_spent& s);
bool exceeds_cap(double epsilon, double cap);
dpagg_admission admit(const dpagg_account& a, const dpagg_release_cost& c, double epsilon,
                      double min_release_epsilon);

}  // namespace dpagg::accounting
#endif

#endif							/* DPAGG_ACCOUNTING_H */
