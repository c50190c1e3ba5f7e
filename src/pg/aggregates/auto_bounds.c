/*
 * auto_bounds.c — dp_sum(value, epsilon, delta) and dp_avg(value, epsilon, delta): a private sum
 * and average whose clamping bounds are chosen privately from the data
 * (src/core/bounds/dpagg_bounds.h; the argument is docs/automatic_bounds.md).
 *
 * The state of a group counts its values in the 191 bins of magnitudes and keeps each bin's exact
 * sum, in the quanta of the bin's upper edge (a value rounded once; the sums do not depend on the
 * order of the rows).  The final function charges (normally done before the first row), then:
 *   1. finds the lowest and the highest bin whose count plus discrete Laplace noise at
 *      epsilon_b = epsilon / 2 reaches the threshold (the histogram is epsilon_b-DP: one value is
 *      in one bin; dpagg_bounds_noisy_range draws only the noise that decides them; beta = 1e-6),
 *      and from them the bounds [L, U], widened to contain 0;
 *   2. computes the sum clamped to [L, U] from the bins (a bin inside keeps its sum, a bin beyond
 *      a bound counts its values at the bound) in the quanta of S = max(|L|, |U|);
 *   3. releases it with the call's mechanism at (epsilon - epsilon_b, delta), calibrated for S.
 * dp_avg: step 2 centres the clamped values on m = (L + U)/2 (in the quanta of B = (U - L)/2), and
 * step 3 releases that centred sum (sensitivity B) and the count (sensitivity 1), each at half of
 * (epsilon - epsilon_b, delta), as dp_avg with bounds does: m + S / max(C, 1), clamped to [L, U].
 * Values below 2^-32 in magnitude stay as they are (the zero bin): each moves the sum by at most S.
 * The state and its transition, combine and (de)serialisation functions serve the variances
 * without bounds too (auto_variance.c), whose states also keep each bin's sum of squares
 * (auto_bounds.h); so do the plan's histogram part and the noisy range.
 *
 * The charge is the call's (epsilon, delta), as two parts.  The sum's mechanism is the one asked
 * for (dpagg.default_mechanism); which one `auto` picks depends on S, chosen at the release, so
 * the charge names the request, takes the whole delta and, under zCDP, epsilon^2 / 2 for each
 * part (conservative).  Over a private relation the per-unit rewrite (query/bound.c) calls the
 * per-unit forms (dpagg_unit_auto_sum, dpagg_unit_auto_avg) over one value per unit and group,
 * each group at (epsilon / L, delta / L) (dpagg_auto_site_plan).  On Citus (citus/citus.c) the
 * workers count and sum each group's values per bin and dpagg_merge_auto_sum (_avg, and the
 * variances' merges) adds them into the same state on the coordinator (below).
 */
#include "aggregates/state.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "aggregates/auto_bounds.h"
#include "bounds/dpagg_bounds.h"
#include "dpagg_accum.h"

#define ANAME "dp_sum"

StaticAssertDecl(sizeof(AState) == 232, "dp_sum's state without bounds is 232 bytes (palloc: a 256-byte chunk)");
StaticAssertDecl(sizeof(AVState) == 368, "the variance's state without bounds is 368 bytes (SSPACE; a 512-byte chunk)");

/* epsilon's share that chooses the bounds; the choice's failure chance (automatic_bounds.md §2) */
#define AUTO_BOUNDS_SHARE 0.5
#define AUTO_BOUNDS_BETA 1e-6

typedef struct AParams
{
	bool		avg;			/* dp_avg (dpagg_auto_avg_final) */
	double		epsilon;
	double		delta;
	DpAutoPlan	plan;
	dpagg_release_plan count_plan;	/* dp_avg's count */
} AParams;

extern Datum dpagg_auto_avg_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_auto_avg_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_auto_avg_final(PG_FUNCTION_ARGS);

/*
 * The part of a plan that chooses the bounds, shared by the calls without bounds (dp_sum, dp_avg,
 * the variances): the mechanism (dpagg.default_mechanism as it is now), epsilon's split into the
 * histogram's epsilon_b (half, rounded down) and the rest (rounded down), the histogram's
 * calibration (discrete Laplace at sensitivity 1: one value, one bin) and its threshold.
 */
void
dpagg_auto_plan_bounds(double epsilon, DpAutoPlan *p)
{
	dpagg_request req;
	dpagg_error err;

	memset(p, 0, sizeof(*p));
	dpagg_mechanism_spec(NULL, p->mechanism, sizeof(p->mechanism));
	if (!(isfinite(epsilon) && epsilon > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number greater than 0"),
				 errhint("Pass a positive epsilon, for example 1.0: half of it chooses the bounds.")));
	p->epsilon_bounds = nextafter(epsilon * AUTO_BOUNDS_SHARE, 0);
	p->epsilon_sum = nextafter(epsilon - p->epsilon_bounds, 0);
	if (p->epsilon_bounds < 1e-10 || p->epsilon_bounds > 1e9)
		return;					/* the caller refuses it, naming its range of epsilon */
	req = dpagg_scalar_request(p->epsilon_bounds, 0, 1.0, true);
	dpagg_calibrate_cached("discrete_laplace", &req, &p->bounds_cal);
	if (dpagg_bounds_threshold(p->bounds_cal.scale, AUTO_BOUNDS_BETA, &p->threshold, &err) != DPAGG_OK)
		dpagg_report(&err);
}

/*
 * The range of bins whose counts plus the histogram's noise (cal) reach the threshold, drawing
 * only the noise that decides it (dpagg_bounds_noisy_range); false when none does.
 */
bool
dpagg_auto_bounds_range(const dpagg_calibration *cal, double threshold, const int64 *counts,
						int *lo_bin, int *hi_bin)
{
	dpagg_error err;

	if (dpagg_bounds_noisy_range(cal, counts, threshold, lo_bin, hi_bin, &err) != DPAGG_OK)
		dpagg_report(&err);
	return *lo_bin >= 0;
}

/*
 * The histogram of a quantile without bounds (percentile.c; dp_explain): dpagg_auto_plan_bounds,
 * refused (22023) where epsilon_b or the rest (`rest` says what it releases, for the hint) falls
 * outside what a calibration takes.
 */
void
dpagg_auto_histogram(double epsilon, const char *what, const char *rest,
					 double *epsilon_bounds, double *epsilon_rest, dpagg_calibration *cal,
					 double *threshold)
{
	DpAutoPlan	ap;

	dpagg_auto_plan_bounds(epsilon, &ap);
	if (ap.epsilon_bounds < 1e-10 || ap.epsilon_sum < 1e-10)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon of %s without bounds must be at least 2.0001e-10", what),
				 errhint("Half of epsilon chooses the bounds and the rest releases %s; each part needs at least 1e-10.",
						 rest)));
	if (ap.epsilon_bounds > 1e9)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon of %s without bounds must be at most 2e9", what),
				 errhint("Half of epsilon chooses the bounds, and a calibration takes epsilon up to 1e9.")));
	*epsilon_bounds = ap.epsilon_bounds;
	*epsilon_rest = ap.epsilon_sum;
	*cal = ap.bounds_cal;
	*threshold = ap.threshold;
}

/*
 * The plan of a call (for the site and for dp_explain): the split of epsilon and delta, the
 * histogram's calibration and threshold, the sum's request (dpagg.objective and the budget's
 * accounting as they are now, when the query starts) and, for dp_avg, the count's calibration.
 * Refuses here, before any row is read, whatever the release could not calibrate.
 */
void
dpagg_auto_plan(double epsilon, double delta, bool avg, DpAutoPlan *p)
{
	const char *name = avg ? "dp_avg" : "dp_sum";
	dpagg_request req;

	dpagg_auto_plan_bounds(epsilon, p);
	p->part_epsilon = avg ? p->epsilon_sum / 2 : p->epsilon_sum;
	p->part_delta = avg ? delta / 2 : delta;
	if (p->epsilon_bounds < 1e-10 || p->part_epsilon < 1e-10)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon of %s without bounds must be at least %s", name,
						avg ? "4.0001e-10" : "2.0001e-10"),
				 errhint("Half of epsilon chooses the bounds and the rest releases the %s; each part needs at least 1e-10.",
						 avg ? "sum and the count (half each)" : "sum")));
	/*
	 * The sum's calibration happens at the release, for the S the bounds give; every S is a power
	 * of two in [2^(KMIN - 1), 2^(KMAX + 1)], so calibrating at both ends now refuses whatever the
	 * release could not calibrate: the mechanism, delta, epsilon.
	 */
	{
		dpagg_calibration probe;

		p->sum_request = dpagg_scalar_request(p->part_epsilon, p->part_delta, 1.0, false);
		req = p->sum_request;
		req.sensitivity = ldexp(1.0, DPAGG_BOUNDS_KMIN - 1);
		dpagg_calibrate_cached(p->mechanism, &req, &probe);
		req.sensitivity = ldexp(1.0, DPAGG_BOUNDS_KMAX + 1);
		dpagg_calibrate_cached(p->mechanism, &req, &probe);
	}
	if (avg)
	{
		/* the count: sensitivity 1, whole numbers (it does not depend on the bounds) */
		req = dpagg_scalar_request(p->part_epsilon, p->part_delta, 1.0, true);
		dpagg_calibrate_cached(p->mechanism, &req, &p->count_cal);
	}
}

/*
 * The first two parts of a call's charge: the histogram's (epsilon_b, no delta) and the release's
 * ("<what> <mechanism>": part_epsilon and part_delta).  Which mechanism `auto` picks depends on
 * the bounds, chosen at the release, so the release's part names the request and takes all of
 * its delta, and both parts are charged epsilon^2 / 2 under zCDP (rho NaN: conservative).
 */
void
dpagg_auto_charge_parts(MemoryContext cxt, const DpAutoPlan *pl, const char *what, DpChargePart *parts)
{
	parts[0].spec = MemoryContextStrdup(cxt, psprintf("bounds %s", pl->bounds_cal.spec));
	parts[0].epsilon = pl->epsilon_bounds;
	parts[0].delta = 0;
	parts[0].rho = NAN;
	parts[1].spec = MemoryContextStrdup(cxt, psprintf("%s %s", what, pl->mechanism));
	parts[1].epsilon = pl->part_epsilon;
	parts[1].delta = pl->part_delta;
	parts[1].rho = NAN;
}

/*
 * Per unit (DPAGG_KIND_IS_UNIT), each of a unit's at most L groups releases at epsilon / L and
 * delta / L (rounded down, so that L groups never spend more than the call), so the L compose to
 * the call's (docs/automatic_bounds.md, "Per privacy unit"); L = 1 over the rows.  A group's
 * refusals (too small an epsilon) come with a context naming L.
 */
static void
unit_share_context(void *arg)
{
	const int  *L = (const int *) arg;

	errcontext("per privacy unit, each of a unit's at most %d groups releases at epsilon / %d and delta / %d",
			   *L, *L, *L);
}

int
dpagg_auto_site_plan(DpSite *site, int kind, double *epsilon, double *delta,
					 DpAutoPlanner planner, const void *arg, DpAutoPlan *plan)
{
	DpArgLayout lo;
	ErrorContextCallback cb;
	double		e,
				d;
	int			L = 1;

	dpagg_arg_layout(site->argref, site->kind, &lo);
	*epsilon = e = dpagg_param_float8(site, lo.epsilon, "epsilon", kind);
	*delta = d = dpagg_param_float8(site, lo.delta, "delta", kind);
	if (DPAGG_KIND_IS_UNIT(site->kind))
	{
		bool		isnull;

		L = DatumGetInt32(dpagg_site_param(site, lo.max_groups, &isnull));
		if (isnull || L < 1)
			elog(ERROR, "dpagg: a per-unit aggregate without max_groups");
		e = dpagg_share(e, L);
		d = dpagg_share(d, L);
	}
	cb.callback = unit_share_context;
	cb.arg = (void *) &L;
	cb.previous = error_context_stack;
	if (L > 1)
		error_context_stack = &cb;
	planner(e, d, arg, plan);
	error_context_stack = cb.previous;
	return L;
}

/*
 * The group's charge parts scaled back to the call's (each times L, rounded up: the ledger
 * charges the parts' delta, capped by the call's, and their rho), the unit and L named in the
 * first part.
 */
void
dpagg_auto_unit_parts(DpSite *site, int L, DpChargePart *parts, int nparts)
{
	DpArgLayout lo;
	int			i;

	if (!DPAGG_KIND_IS_UNIT(site->kind))
		return;
	dpagg_arg_layout(site->argref, site->kind, &lo);
	parts[0].spec = MemoryContextStrdup(site->cxt, psprintf("per unit %.20s, L=%d: %s",
															 dpagg_site_unit(site, lo.unit), L,
															 parts[0].spec));
	for (i = 0; L > 1 && i < nparts; i++)
	{
		/* a part of rho NaN is charged epsilon^2 / 2 (with its delta) per group: L of them */
		double		rho = isnan(parts[i].rho) ? parts[i].epsilon * parts[i].epsilon / 2 : parts[i].rho;

		parts[i].epsilon = nextafter(parts[i].epsilon * L, INFINITY);
		parts[i].delta = parts[i].delta > 0 ? nextafter(parts[i].delta * L, INFINITY) : 0;
		parts[i].rho = nextafter(rho * L, INFINITY);
	}
}

bool
dpagg_auto_is_avg(Oid aggfnoid)
{
	PGFunction	final = dpagg_aggregate_finalfn(aggfnoid);

	return final == dpagg_auto_avg_final || final == dpagg_unit_auto_avg_final ||
		final == dpagg_merge_auto_avg_final;
}

static void
sum_planner(double epsilon, double delta, const void *avg, DpAutoPlan *plan)
{
	dpagg_auto_plan(epsilon, delta, *(const bool *) avg, plan);
}

/*
 * The charge parts of dp_sum's or dp_avg's plan (the histogram's, the sum's and dp_avg's count's:
 * returns how many), the count's release plan made (refused here, before any row, if it cannot
 * be).
 */
static int
auto_sum_parts(const DpAutoPlan *pl, bool avg, MemoryContext cxt, dpagg_release_plan *count_plan,
			   DpChargePart *parts)
{
	dpagg_error err;

	if (avg && dpagg_release_plan_init(&pl->count_cal, 1.0, count_plan, &err) != DPAGG_OK)
		dpagg_report(&err);
	dpagg_auto_charge_parts(cxt, pl, "sum", parts);
	if (!avg)
		return 2;
	parts[2].spec = MemoryContextStrdup(cxt, psprintf("count %s", pl->count_cal.spec));
	parts[2].epsilon = pl->part_epsilon;
	parts[2].delta = dpagg_charged_delta(&pl->count_cal, pl->part_delta);
	parts[2].rho = dpagg_zcdp_rho(&pl->count_cal);
	return 3;
}

void *
dpagg_auto_sum_site_params(DpSite *site)
{
	AParams    *p = MemoryContextAllocZero(site->cxt, sizeof(AParams));
	DpAutoPlan *pl = &p->plan;
	DpChargePart parts[3];
	int			L,
				n;

	/* the form, from the aggregate's final function */
	p->avg = dpagg_auto_is_avg(site->argref->aggfnoid);
	site->name = p->avg ? "dp_avg" : "dp_sum";
	L = dpagg_auto_site_plan(site, DP_SITE_AUTO_SUM, &p->epsilon, &p->delta, sum_planner, &p->avg,
							 pl);
	n = auto_sum_parts(pl, p->avg, site->cxt, &p->count_plan, parts);
	dpagg_auto_unit_parts(site, L, parts, n);
	dpagg_site_set_charge(site, p->epsilon, p->delta, parts, n);
	return p;
}

/*
 * On Citus, while planning (citus.c): the call's (epsilon, delta), constants, checked as its site
 * on one node checks them (dpagg_auto_plan, dpagg_auto_variance_plan: the same errors) and its
 * charge prechecked with the parts its merge will charge, before any worker reads a row.
 */
void
dpagg_auto_precheck(Oid aggfnoid, int kind, double epsilon, double delta)
{
	DpAutoPlan	pl;
	DpChargePart parts[3];
	dpagg_release_plan count_plan;
	const char *name;
	int			n = 2;

	if (kind == DP_SITE_AUTO_SUM)
	{
		bool		avg = dpagg_auto_is_avg(aggfnoid);

		name = avg ? "dp_avg" : "dp_sum";
		dpagg_auto_plan(epsilon, delta, avg, &pl);
		n = auto_sum_parts(&pl, avg, CurrentMemoryContext, &count_plan, parts);
	}
	else
	{
		name = dpagg_auto_variance_form_name(aggfnoid);
		dpagg_auto_variance_plan(epsilon, delta, name, &pl);
		dpagg_auto_charge_parts(CurrentMemoryContext, &pl, "variance", parts);
	}
	dpagg_charge_precheck(name, epsilon, delta, parts, n);
}

/* ---- the state ------------------------------------------------------------------------------- */

/*
 * The histogram's state, shared by dp_sum and dp_avg (version ASTATE_VERSION: counts and sums)
 * and the variances (AVSTATE_VERSION: an AVState, which keeps each bin's sum of squares at the
 * same place of its own list or dense array).  kind: the site kind whose functions these are.
 */
static inline bool
kind_squares(int kind)
{
	return DPAGG_KIND_IS_AUTO_VARIANCE(kind);
}

static AState *
astate_new(MemoryContext cxt, bool squares)
{
	AState	   *st = MemoryContextAllocZero(cxt, squares ? sizeof(AVState) : sizeof(AState));

	st->version = squares ? AVSTATE_VERSION : ASTATE_VERSION;
	return st;
}

static void
check_astate(const AState *st, bool squares)
{
	if (st->version != (squares ? AVSTATE_VERSION : ASTATE_VERSION))
		elog(ERROR, "dp_sum: state of the wrong kind");
}

/* The entry of bin j (made if new); *sq its sum of squares' entry (a variance's state). */
static ABin *
bin_of(AState *st, int j, MemoryContext cxt, ASquares **sq)
{
	AVState    *v = st->version == AVSTATE_VERSION ? (AVState *) st : NULL;
	int			i;

	if (st->nlist >= 0)
	{
		for (i = 0; i < st->nlist; i++)
			if (st->which[i] == j)
				break;
		if (i == st->nlist && i < ADENSE_AT)
			st->which[st->nlist++] = (uint8) j;
		if (i < st->nlist)
		{
			if (v)
				*sq = &v->list[i];
			return &st->list[i];
		}
		/* more than ADENSE_AT occupied bins: all of them, at their bins' places */
		st->dense = MemoryContextAllocZero(cxt, sizeof(ABin) * DPAGG_BOUNDS_BINS);
		for (i = 0; i < st->nlist; i++)
			st->dense[st->which[i]] = st->list[i];
		if (v)
		{
			v->dense = MemoryContextAllocZero(cxt, sizeof(ASquares) * DPAGG_BOUNDS_BINS);
			for (i = 0; i < st->nlist; i++)
				v->dense[st->which[i]] = v->list[i];
		}
		st->nlist = -1;
	}
	if (v)
		*sq = &v->dense[j];
	return &st->dense[j];
}

static void
bin_add(ABin *b, int64 count, __int128 sum)
{
	b->count += count;
	dpagg_int128_set(dpagg_int128_get(b->sum_hi, b->sum_lo) + sum, &b->sum_hi, &b->sum_lo);
}

static void
squares_add(ASquares *q, __int128 v)
{
	dpagg_int128_set(dpagg_int128_get(q->hi, q->lo) + v, &q->hi, &q->lo);
}

/* The occupied bins of a state, in order: *b and *q (NULL for a sum's state) at the i-th
 * occupied entry; false past the last. */
static bool
astate_next(const AState *st, int *j, const ABin **b, const ASquares **q)
{
	const AVState *v = st->version == AVSTATE_VERSION ? (const AVState *) st : NULL;

	for ((*j)++; *j < DPAGG_BOUNDS_BINS; (*j)++)
	{
		int			i;

		if (st->nlist < 0)
		{
			if (st->dense[*j].count == 0)
				continue;
			*b = &st->dense[*j];
			*q = v ? &v->dense[*j] : NULL;
			return true;
		}
		for (i = 0; i < st->nlist; i++)
			if (st->which[i] == *j && st->list[i].count > 0)
			{
				*b = &st->list[i];
				*q = v ? &v->list[i] : NULL;
				return true;
			}
	}
	return false;
}

/* The state of a final function's group: its own (NULL: an empty group's). */
AState *
dpagg_auto_state_of(FunctionCallInfo fcinfo, MemoryContext cxt, int kind)
{
	AState	   *st = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);

	if (st == NULL)
		return astate_new(cxt, kind_squares(kind));
	check_astate(st, kind_squares(kind));
	return st;
}

/* Every bin's count, sum and (a variance's) sum of squares, 0 where none. */
static void bad_apartial(const char *what) pg_attribute_noreturn();

void
dpagg_auto_state_bins(const AState *st, dpagg_auto_variance_bin *bins)
{
	const ABin *b;
	const ASquares *q;
	int			j = -1;
	__int128	total = 0;

	memset(bins, 0, sizeof(dpagg_auto_variance_bin) * DPAGG_BOUNDS_BINS);
	while (astate_next(st, &j, &b, &q))
	{
		bins[j].count = b->count;
		bins[j].sum = dpagg_int128_get(b->sum_hi, b->sum_lo);
		bins[j].squares = q ? dpagg_int128_get(q->hi, q->lo) : 0;
		total += b->count;
	}
	if (total > PG_INT64_MAX)	/* bigint counts a merge was given by hand; rows cannot */
		bad_apartial("the counts add up to more than a bigint holds");
}

static Datum
auto_trans(FunctionCallInfo fcinfo, ValueType vt, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	AState	   *st = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);

	(void) dpagg_site_of_trans(fcinfo, kind);
	if (st == NULL)
		st = astate_new(cxt, kind_squares(kind));
	if (!PG_ARGISNULL(1))
	{
		double		x = dpagg_bounds_value(value_as_double(fcinfo, 1, vt));
		int			j = dpagg_bounds_bin(x);
		ASquares   *sq = NULL;
		ABin	   *b = bin_of(st, j, cxt, &sq);

		/* |x| / 2^e < 2^53 for the bin's quantum 2^e: exact scaling, one rounding */
		bin_add(b, 1, (__int128) llrint(ldexp(x, -dpagg_bounds_quantum_exp(j))));
		if (sq)
			squares_add(sq, dpagg_bounds_square_quanta(x, j));
	}
	PG_RETURN_POINTER(st);
}

#define DPAGG_A_TRANS(fname, vt, kind) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return auto_trans(fcinfo, vt, kind); }

DPAGG_A_TRANS(dpagg_auto_sum_trans_int2, VT_INT2, DP_SITE_AUTO_SUM)
DPAGG_A_TRANS(dpagg_auto_sum_trans_int4, VT_INT4, DP_SITE_AUTO_SUM)
DPAGG_A_TRANS(dpagg_auto_sum_trans_int8, VT_INT8, DP_SITE_AUTO_SUM)
DPAGG_A_TRANS(dpagg_auto_sum_trans_float4, VT_FLOAT4, DP_SITE_AUTO_SUM)
DPAGG_A_TRANS(dpagg_auto_sum_trans_float8, VT_FLOAT8, DP_SITE_AUTO_SUM)
DPAGG_A_TRANS(dpagg_auto_sum_trans_numeric, VT_NUMERIC, DP_SITE_AUTO_SUM)
DPAGG_A_TRANS(dpagg_auto_var_trans_int2, VT_INT2, DP_SITE_AUTO_VARIANCE)
DPAGG_A_TRANS(dpagg_auto_var_trans_int4, VT_INT4, DP_SITE_AUTO_VARIANCE)
DPAGG_A_TRANS(dpagg_auto_var_trans_int8, VT_INT8, DP_SITE_AUTO_VARIANCE)
DPAGG_A_TRANS(dpagg_auto_var_trans_float4, VT_FLOAT4, DP_SITE_AUTO_VARIANCE)
DPAGG_A_TRANS(dpagg_auto_var_trans_float8, VT_FLOAT8, DP_SITE_AUTO_VARIANCE)
DPAGG_A_TRANS(dpagg_auto_var_trans_numeric, VT_NUMERIC, DP_SITE_AUTO_VARIANCE)
/* per unit: one value per unit and group (its total, or its average: query/bound.c) */
DPAGG_A_TRANS(dpagg_unit_auto_sum_trans, VT_FLOAT8, DP_SITE_UNIT_AUTO_SUM)
DPAGG_A_TRANS(dpagg_unit_auto_var_trans, VT_FLOAT8, DP_SITE_UNIT_AUTO_VARIANCE)

/* The SQL entry points of the shared functions: one per kind (site.c tells them apart). */
#define DPAGG_A_ENTRY(fname, impl, arg) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return impl(fcinfo, arg); }

static Datum
auto_combine(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	AState	   *a = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);
	AState	   *b = PG_ARGISNULL(1) ? NULL : (AState *) PG_GETARG_POINTER(1);
	const ABin *bb;
	const ASquares *bq;
	int			j = -1;

	(void) dpagg_site_of_trans(fcinfo, kind);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	check_astate(b, kind_squares(kind));
	if (a == NULL)
		a = astate_new(cxt, kind_squares(kind));
	check_astate(a, kind_squares(kind));
	while (astate_next(b, &j, &bb, &bq))
	{
		ASquares   *aq = NULL;

		bin_add(bin_of(a, j, cxt, &aq), bb->count, dpagg_int128_get(bb->sum_hi, bb->sum_lo));
		if (aq)
			squares_add(aq, dpagg_int128_get(bq->hi, bq->lo));
	}
	PG_RETURN_POINTER(a);
}

DPAGG_A_ENTRY(dpagg_auto_sum_combine, auto_combine, DP_SITE_AUTO_SUM)
DPAGG_A_ENTRY(dpagg_auto_var_combine, auto_combine, DP_SITE_AUTO_VARIANCE)

/*
 * Why a bin's count, sum and sum of squares (0 for a sum's state) are not what values of the bin
 * make, or NULL: each value of bin j is at most 2^52 of the bin's quanta in size, and outside the
 * zero bin at least 2^51 (half the bin's upper edge) on the bin's side of 0; its square within
 * [0, 2^52] square quanta, outside the zero bin at least 2^50 (dpagg_bounds.h).  So the sensitivity
 * holds for states made elsewhere too (serialised, or merged from Citus's workers).
 */
static const char *
bin_sums_invalid(int j, int64 count, __int128 sum, __int128 squares, bool squares_kept)
{
	__int128	lim = (__int128) count * ((__int128) 1 << 52),
				low = j != DPAGG_BOUNDS_ZERO ? lim / 2 : 0;

	if (j < 0 || j >= DPAGG_BOUNDS_BINS)
		return "a bin outside the 191 bins of magnitude";
	if (count <= 0)
		return "a bin without values";
	if ((j >= DPAGG_BOUNDS_ZERO && (sum > lim || sum < (j > DPAGG_BOUNDS_ZERO ? low : -lim))) ||
		(j < DPAGG_BOUNDS_ZERO && (sum < -lim || sum > -low)))
		return "a sum that no count of values of its bin makes";
	if (squares_kept && (squares > lim || squares < low / 2))
		return "a sum of squares that no count of values of its bin makes";
	return NULL;
}

/* Serialised: version, then for each occupied bin (in order) its index (int32), count and sum,
 * and for a variance's state its sum of squares (AWireSquares after each AWire). */
typedef struct AWire
{
	int32		bin;
	int32		pad;
	int64		count;
	int64		sum_hi;
	uint64		sum_lo;
} AWire;

typedef struct AWireSquares
{
	int64		hi;
	uint64		lo;
} AWireSquares;

static Datum
auto_serialize(FunctionCallInfo fcinfo, bool squares)
{
	AState	   *st;
	char	   *w;
	size_t		entry = sizeof(AWire) + (squares ? sizeof(AWireSquares) : 0);
	int			n = 0,
				j = -1;
	const ABin *b;
	const ASquares *q;
	bytea	   *out;

	(void) dpagg_aggregate_context(fcinfo, ANAME);
	st = (AState *) PG_GETARG_POINTER(0);
	check_astate(st, squares);
	out = palloc0(VARHDRSZ + sizeof(int32) + entry * DPAGG_BOUNDS_BINS);
	*(int32 *) VARDATA(out) = st->version;
	w = VARDATA(out) + sizeof(int32);
	while (astate_next(st, &j, &b, &q))
	{
		AWire		e;

		memset(&e, 0, sizeof(e));
		e.bin = j;
		e.count = b->count;
		e.sum_hi = b->sum_hi;
		e.sum_lo = b->sum_lo;
		memcpy(w + n * entry, &e, sizeof(e));
		if (squares)
		{
			AWireSquares s = {q->hi, q->lo};

			memcpy(w + n * entry + sizeof(AWire), &s, sizeof(s));
		}
		n++;
	}
	SET_VARSIZE(out, VARHDRSZ + sizeof(int32) + entry * n);
	PG_RETURN_BYTEA_P(out);
}

DPAGG_A_ENTRY(dpagg_auto_sum_serialize, auto_serialize, false)
DPAGG_A_ENTRY(dpagg_auto_var_serialize, auto_serialize, true)

static Datum
auto_deserialize(FunctionCallInfo fcinfo, bool squares)
{
	const char *name = squares ? "dp_var_pop" : ANAME;
	size_t		entry = sizeof(AWire) + (squares ? sizeof(AWireSquares) : 0);
	bytea	   *in;
	Size		len;
	int32		version;
	int			n,
				i,
				last = -1;
	AState	   *st;

	(void) dpagg_aggregate_context(fcinfo, ANAME);
	in = PG_GETARG_BYTEA_PP(0);
	len = VARSIZE_ANY_EXHDR(in);
	/* Bytes from outside (only a superuser can pair this function with another serialisation):
	 * each bin's sum must lie within its count times one value's quanta (at most 2^52: a value
	 * below the bin's upper edge 2^(k+1), in quanta of 2^(k+1-52)) and on the bin's side of 0,
	 * and a variance's sum of squares within [0, count 2^52], so that the sensitivity holds for
	 * merged states too. */
	if (len < sizeof(int32) || (len - sizeof(int32)) % entry != 0)
		goto malformed;
	memcpy(&version, VARDATA_ANY(in), sizeof(int32));
	if (version != (squares ? AVSTATE_VERSION : ASTATE_VERSION))
		goto malformed;
	n = (len - sizeof(int32)) / entry;
	st = astate_new(CurrentMemoryContext, squares);
	for (i = 0; i < n; i++)
	{
		AWire		w;
		AWireSquares ws = {0, 0};
		__int128	s;
		ASquares   *sq = NULL;

		memcpy(&w, VARDATA_ANY(in) + sizeof(int32) + i * entry, sizeof(AWire));
		if (squares)
			memcpy(&ws, VARDATA_ANY(in) + sizeof(int32) + i * entry + sizeof(AWire), sizeof(ws));
		if (w.bin <= last || w.bin >= DPAGG_BOUNDS_BINS || w.count <= 0)
			goto malformed;
		s = dpagg_int128_get(w.sum_hi, w.sum_lo);
		if (bin_sums_invalid(w.bin, w.count, s, dpagg_int128_get(ws.hi, ws.lo), squares) != NULL)
			goto malformed;
		bin_add(bin_of(st, w.bin, CurrentMemoryContext, &sq), w.count, s);
		if (sq)
			squares_add(sq, dpagg_int128_get(ws.hi, ws.lo));
		last = w.bin;
	}
	PG_RETURN_POINTER(st);
malformed:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed partial state of %s", name),
			 errhint("Only %s's own serialisation function makes its partial states.", name)));
	PG_RETURN_NULL();			/* keep the compiler quiet */
}

DPAGG_A_ENTRY(dpagg_auto_sum_deserialize, auto_deserialize, false)
DPAGG_A_ENTRY(dpagg_auto_var_deserialize, auto_deserialize, true)

/* ---- Citus: a row's bin and quanta on the workers, the bins merged on the coordinator -------- */

/*
 * A row as this file's transition adds it: its bin (dpagg_auto_bin), its value in the bin's
 * quanta (dpagg_auto_quanta) and its square in the bin's square quanta (dpagg_auto_square_quanta),
 * after the same conversion to a double.  The workers group by the bin and sum the quanta with
 * built-in sum(bigint), exact (citus.c).
 */
static pg_attribute_always_inline Datum
auto_row_fn(FunctionCallInfo fcinfo, ValueType vt, int what)
{
	double		x = dpagg_bounds_value(value_as_double(fcinfo, 0, vt));
	int			j = dpagg_bounds_bin(x);

	if (what == 0)
		PG_RETURN_INT32(j);
	if (what == 1)
		PG_RETURN_INT64(llrint(ldexp(x, -dpagg_bounds_quantum_exp(j))));
	PG_RETURN_INT64(dpagg_bounds_square_quanta(x, j));
}

#define DPAGG_AROW_FNS(short, vt) \
	PG_FUNCTION_INFO_V1(dpagg_auto_bin_##short); \
	Datum dpagg_auto_bin_##short(PG_FUNCTION_ARGS) { return auto_row_fn(fcinfo, vt, 0); } \
	PG_FUNCTION_INFO_V1(dpagg_auto_quanta_##short); \
	Datum dpagg_auto_quanta_##short(PG_FUNCTION_ARGS) { return auto_row_fn(fcinfo, vt, 1); } \
	PG_FUNCTION_INFO_V1(dpagg_auto_square_quanta_##short); \
	Datum dpagg_auto_square_quanta_##short(PG_FUNCTION_ARGS) { return auto_row_fn(fcinfo, vt, 2); }

DPAGG_AROW_FNS(int2, VT_INT2)
DPAGG_AROW_FNS(int4, VT_INT4)
DPAGG_AROW_FNS(int8, VT_INT8)
DPAGG_AROW_FNS(float4, VT_FLOAT4)
DPAGG_AROW_FNS(float8, VT_FLOAT8)
DPAGG_AROW_FNS(numeric, VT_NUMERIC)

static void
bad_apartial(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid partial sums for dpagg's merge without bounds: %s", what),
			 errhint("The partial sums are dpagg_auto_bin(x), count(x), sum(dpagg_auto_quanta(x)) (and for a variance sum(dpagg_auto_square_quanta(x))) grouped by the bin.")));
}

/*
 * dpagg_merge_auto_sum(bin, n, s, epsilon, delta), _auto_avg, and dpagg_merge_auto_var_pop(bin,
 * n, s, squares, epsilon, delta) and its sibling forms: one row of a group's partial sums, n
 * values of one bin whose quanta add up to s (and whose squares' to squares), added exactly into
 * the state this file's transition makes (a list of bins, then dense): the same state as one
 * node's for the same values, hence the same release.  Refused (22023): a bin outside the 191, a
 * negative or NULL count, values without their bin, sums no count of values of the bin makes
 * (bin_sums_invalid), counts past a bigint.  A row with a count of 0 is a group's values that
 * were all NULL (or filtered out): the group exists, as on one node.
 */
static Datum
merge_auto_trans(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	AState	   *st = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);
	bool		squares = kind == DP_SITE_MERGE_AUTO_VARIANCE;
	__int128	s = 0,
				q = 0;
	const char *why;
	ASquares   *sq = NULL;
	ABin	   *b;
	int64		n;

	(void) dpagg_site_of_trans(fcinfo, kind);
	if (st == NULL)
		st = astate_new(cxt, squares);
	check_astate(st, squares);
	if (st->released)
		elog(ERROR, "dp_sum: a merged state was released already");
	if (PG_ARGISNULL(2))
		bad_apartial("a NULL count");
	n = PG_GETARG_INT64(2);
	if (n < 0)
		bad_apartial("a negative count");
	if (n == 0)
	{
		if (!PG_ARGISNULL(3) || (squares && !PG_ARGISNULL(4)))
			bad_apartial("partial sums without values");
		PG_RETURN_POINTER(st);
	}
	if (PG_ARGISNULL(1))
		bad_apartial("values counted without their bin");
	if (PG_ARGISNULL(3) || (squares && PG_ARGISNULL(4)))
		bad_apartial("a count without its partial sums");
	if (!dpagg_numeric_int128(PG_GETARG_DATUM(3), &s, &why) ||
		(squares && !dpagg_numeric_int128(PG_GETARG_DATUM(4), &q, &why)))
		bad_apartial(why);
	if ((why = bin_sums_invalid(PG_GETARG_INT32(1), n, s, q, squares)) != NULL)
		bad_apartial(why);
	b = bin_of(st, PG_GETARG_INT32(1), cxt, &sq);
	if (b->count > PG_INT64_MAX - n)
		bad_apartial("the counts add up to more than a bigint holds");
	/* each bin's sums stay within its count times 2^52 quanta (below 2^115): no wrap */
	bin_add(b, n, s);
	if (sq)
		squares_add(sq, q);
	PG_RETURN_POINTER(st);
}

DPAGG_A_ENTRY(dpagg_merge_auto_sum_trans, merge_auto_trans, DP_SITE_MERGE_AUTO_SUM)
DPAGG_A_ENTRY(dpagg_merge_auto_var_trans, merge_auto_trans, DP_SITE_MERGE_AUTO_VARIANCE)

/* ---- the release ----------------------------------------------------------------------------- */

/* a 128-bit integer times 2^-shift (shift >= 0), rounded half to even */
static __int128
shift_round(__int128 v, int shift)
{
	__int128	q,
				r,
				half;

	if (shift == 0)
		return v;
	if (shift < 0)
		return v * ((__int128) 1 << -shift);	/* exact: |v| < 2^53 n, -shift <= 1 */
	if (shift > 120)
		return 0;
	q = v >> shift;				/* floor */
	r = v - (q << shift);
	half = (__int128) 1 << (shift - 1);
	if (r > half || (r == half && (q & 1)))
		q += 1;
	return q;
}

static Datum
auto_final(FunctionCallInfo fcinfo, bool avg, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	DpSite	   *site = dpagg_site_of_final(fcinfo, kind);
	const AParams *p = (const AParams *) site->params;
	AState	   *st = dpagg_auto_state_of(fcinfo, cxt, kind);
	int64		counts[DPAGG_BOUNDS_BINS];
	int			lo_bin,
				hi_bin;
	dpagg_auto_variance_bin bins[DPAGG_BOUNDS_BINS];
	double		lower,
				upper,
				S,
				mid = 0,
				out;
	int			qexp,
				j;
	__int128	total = 0;
	int64		n = 0;
	dpagg_calibration cal;
	dpagg_release_plan plan;
	dpagg_request req;
	dpagg_error err;

	if (p->avg != avg)
		elog(ERROR, "dp_sum: final function of the wrong form");
	if (st->released)
		PG_RETURN_FLOAT8(st->released_value);
	dpagg_site_charge(site);
	dpagg_auto_state_bins(st, bins);
	/* 1. the noisy histogram and the bounds */
	for (j = 0; j < DPAGG_BOUNDS_BINS; j++)
		counts[j] = bins[j].count;
	(void) dpagg_auto_bounds_range(&p->plan.bounds_cal, p->plan.threshold, counts, &lo_bin, &hi_bin);
	(void) dpagg_bounds_widen(lo_bin, hi_bin, &lower, &upper);
	/* 2. the sum clamped to [lower, upper], in the quanta of S: max(|lower|, |upper|) for a sum,
	 * B = (upper - lower)/2 for an average (then centred on the middle) */
	S = avg ? upper / 2 - lower / 2 : fmax(fabs(lower), fabs(upper));
	qexp = ilogb(S) - 52;
	for (j = 0; j < DPAGG_BOUNDS_BINS; j++)
	{
		double		blo,
					bhi;

		if (bins[j].count == 0)
			continue;
		n += bins[j].count;
		dpagg_bounds_bin_edges(j, &blo, &bhi);
		if (blo >= upper && j != DPAGG_BOUNDS_ZERO)
			total += (__int128) bins[j].count * (__int128) llrint(ldexp(upper, -qexp));
		else if (bhi <= lower && j != DPAGG_BOUNDS_ZERO)
			total += (__int128) bins[j].count * (__int128) llrint(ldexp(lower, -qexp));
		else
			total += shift_round(bins[j].sum, qexp - dpagg_bounds_quantum_exp(j));
	}
	if (avg)
	{
		/* centred on mid, rounded to the quanta of B once: each value still moves the centred
		 * sum by at most B / 2^qexp + 1 quanta */
		mid = lower / 2 + upper / 2;
		total -= (__int128) n * (__int128) llrint(ldexp(mid, -qexp));
	}
	/* 3. the release, calibrated for S and the roundings of step 2 */
	req = p->plan.sum_request;
	req.sensitivity = nextafter(S * (1 + 0x1p-40), INFINITY);
	dpagg_calibrate_cached(p->plan.mechanism, &req, &cal);
	if (dpagg_release_plan_init(&cal, ldexp(1.0, qexp), &plan, &err) != DPAGG_OK)
		dpagg_report(&err);
	out = dpagg_draw(&plan, total);
	if (avg)
	{
		double		c = rint(dpagg_draw(&p->count_plan, (__int128) n));

		/* mid + (s - n * mid_rounded) / c: the rounding of mid is the same for every value and
		 * known, so it is added back exactly as it was taken */
		out = ldexp((double) llrint(ldexp(mid, -qexp)), qexp) + out / (c < 1 ? 1 : c);
		out = fmin(upper, fmax(lower, out));
	}
	st->released = true;
	st->released_value = out;
	PG_RETURN_FLOAT8(out);
}

PG_FUNCTION_INFO_V1(dpagg_auto_sum_final);
Datum
dpagg_auto_sum_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, false, DP_SITE_AUTO_SUM);
}

PG_FUNCTION_INFO_V1(dpagg_auto_avg_final);
Datum
dpagg_auto_avg_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, true, DP_SITE_AUTO_SUM);
}

PG_FUNCTION_INFO_V1(dpagg_unit_auto_sum_final);
Datum
dpagg_unit_auto_sum_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, false, DP_SITE_UNIT_AUTO_SUM);
}

PG_FUNCTION_INFO_V1(dpagg_unit_auto_avg_final);
Datum
dpagg_unit_auto_avg_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, true, DP_SITE_UNIT_AUTO_SUM);
}

PG_FUNCTION_INFO_V1(dpagg_merge_auto_sum_final);
Datum
dpagg_merge_auto_sum_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, false, DP_SITE_MERGE_AUTO_SUM);
}

PG_FUNCTION_INFO_V1(dpagg_merge_auto_avg_final);
Datum
dpagg_merge_auto_avg_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, true, DP_SITE_MERGE_AUTO_SUM);
}
