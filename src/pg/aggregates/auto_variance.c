/*
 * auto_variance.c — dp_var_pop(value, epsilon, delta), dp_var_samp, dp_stddev_pop and
 * dp_stddev_samp without bounds: the variance's range chosen privately from the data
 * (docs/automatic_bounds.md, "Variances"; the histogram's state is auto_bounds.c's).
 *
 * The state of a group counts its values in the 191 bins of magnitudes and keeps each bin's exact
 * sum and sum of squares (auto_bounds.h).  The final function charges (normally already done,
 * before the first row), then:
 *   1. adds discrete Laplace noise at epsilon_b = epsilon / 2 (rounded down) to every bin's count
 *      and takes the range of bins whose noisy count reaches the threshold (dpagg_bounds_range:
 *      not widened to 0, since a variance depends on the width only): [L, U], from the lower
 *      edge of the lowest to the upper edge of the highest.  No bin: the answer is NULL;
 *   2. computes exactly the count, the centred sum and the centred squares of the values clamped
 *      to [L, U], in the bounded variance's quanta (dpagg_auto_variance_sums);
 *   3. releases them as dp_var_pop(value, epsilon - epsilon_b, delta, L, U) does (the shares of
 *      dpagg_variance_plan_init, the call's mechanism, each sum's sensitivity with the allowance
 *      2^-40 for step 2's roundings), and answers with dpagg_variance_estimate.
 * The charge is the call's (epsilon, delta) as two parts: the histogram's and the variance's
 * (its mechanism is chosen at the release: all of delta, rho NaN).  Every range the release could
 * need is calibrated when the query starts.  Over a private relation the per-unit forms
 * (dpagg_unit_auto_var_pop, ...) take one value per unit and group, its average there
 * (query/bound.c), each group at (epsilon / L, delta / L).  On Citus the workers count and sum
 * each group's values per bin and dpagg_merge_auto_var_pop (or the call's form) adds them into
 * the same state on the coordinator (auto_bounds.c, citus/citus.c).
 */
#include "aggregates/state.h"

#include <math.h>

#include "aggregates/auto_bounds.h"
#include "bounds/dpagg_bounds.h"
#include "dpagg_accum.h"
#include "variance/dpagg_variance.h"

extern Datum dpagg_auto_var_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_auto_var_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_auto_stddev_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_auto_stddev_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_auto_var_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_auto_var_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_auto_stddev_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_auto_stddev_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_auto_var_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_auto_var_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_auto_stddev_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_auto_stddev_samp_final(PG_FUNCTION_ARGS);

/* The four forms: their names and final functions, over the rows, per unit and merged (Citus). */
static const struct
{
	const char *name;
	PGFunction	final;
	PGFunction	unit_final;
	PGFunction	merge_final;
}			forms[] = {
	[DPAGG_VAR_POP] = {"dp_var_pop", dpagg_auto_var_pop_final, dpagg_unit_auto_var_pop_final,
	dpagg_merge_auto_var_pop_final},
	[DPAGG_VAR_SAMP] = {"dp_var_samp", dpagg_auto_var_samp_final, dpagg_unit_auto_var_samp_final,
	dpagg_merge_auto_var_samp_final},
	[DPAGG_STDDEV_POP] = {"dp_stddev_pop", dpagg_auto_stddev_pop_final, dpagg_unit_auto_stddev_pop_final,
	dpagg_merge_auto_stddev_pop_final},
	[DPAGG_STDDEV_SAMP] = {"dp_stddev_samp", dpagg_auto_stddev_samp_final, dpagg_unit_auto_stddev_samp_final,
	dpagg_merge_auto_stddev_samp_final},
};

typedef struct VAParams
{
	int			form;			/* dpagg_variance_form, from the aggregate's final function */
	double		epsilon;
	double		delta;
	DpAutoPlan	plan;			/* part_epsilon, part_delta: the variance's release */
} VAParams;

static int
form_of(Oid aggfnoid)
{
	PGFunction	final = dpagg_aggregate_finalfn(aggfnoid);
	int			i;

	for (i = 0; i < (int) lengthof(forms); i++)
		if (final != NULL && (final == forms[i].final || final == forms[i].unit_final ||
							  final == forms[i].merge_final))
			return i;
	return -1;
}

const char *
dpagg_auto_variance_form_name(Oid aggfnoid)
{
	int			form = form_of(aggfnoid);

	return form < 0 ? "dp_var_pop" : forms[form].name;
}

/* The request of part i of a variance released with the plan vp: its share, its sensitivity
 * with the allowance for the exact sums' roundings (docs/automatic_bounds.md, "Variances"); the
 * objective and accounting of the template, taken when the query starts. */
static dpagg_request
part_request(const dpagg_request *template, const dpagg_variance_plan *vp, int i)
{
	dpagg_request req = *template;
	bool		count = i == DPAGG_VARIANCE_COUNT;

	req.epsilon = vp->epsilon[i];
	req.delta = vp->delta[i];
	req.sensitivity = count ? 1.0 : nextafter(vp->sensitivity[i] * (1 + 0x1p-40), INFINITY);
	req.integer_valued = count;
	return req;
}

/*
 * The plan of a call (for the site and for dp_explain): the histogram's part (shared with dp_sum
 * without bounds), then the variance's release at the rest of epsilon and all of delta, whose
 * parts are calibrated now at both extreme ranges, one bin [2^KMIN, 2^(KMIN+1)] (B = 2^-33) and
 * all of them [-2^(KMAX+1), 2^(KMAX+1)] (B = 2^63): whatever the release could not calibrate
 * is refused before any row is read.
 */
void
dpagg_auto_variance_plan(double epsilon, double delta, const char *name, DpAutoPlan *p)
{
	static const double ranges[2][2] = {
		{0x1p-32, 0x1p-31},		/* DPAGG_BOUNDS_KMIN, KMIN + 1 */
		{-0x1p63, 0x1p63},		/* -+2^(DPAGG_BOUNDS_KMAX + 1) */
	};
	int			r,
				i;

	StaticAssertStmt(DPAGG_BOUNDS_KMIN == -32 && DPAGG_BOUNDS_KMAX == 62, "the extreme ranges");
	dpagg_auto_plan_bounds(epsilon, p);
	p->part_epsilon = p->epsilon_sum;
	p->part_delta = delta;
	if (p->epsilon_bounds < 1e-10 || p->part_epsilon < 4e-10 || p->part_epsilon > 1e9)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon of %s without bounds must lie in [8.0001e-10, 2e9]", name),
				 errhint("Half of epsilon chooses the range and the rest releases the variance, in three parts of at least 1e-10 each and at most 1e9 together.")));
	p->sum_request = dpagg_scalar_request(p->part_epsilon, p->part_delta, 1.0, false);
	for (r = 0; r < 2; r++)
	{
		dpagg_variance_plan vp;
		dpagg_error err;

		if (dpagg_variance_plan_init(p->part_epsilon, p->part_delta, ranges[r][0], ranges[r][1], &vp,
									 &err) != DPAGG_OK)
			dpagg_report(&err);
		for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
		{
			dpagg_request req = part_request(&p->sum_request, &vp, i);
			dpagg_calibration probe;

			dpagg_calibrate_cached(p->mechanism, &req, &probe);
		}
	}
}

static void
variance_planner(double epsilon, double delta, const void *name, DpAutoPlan *plan)
{
	dpagg_auto_variance_plan(epsilon, delta, (const char *) name, plan);
}

void *
dpagg_auto_variance_site_params(DpSite *site)
{
	VAParams   *p = MemoryContextAllocZero(site->cxt, sizeof(VAParams));
	DpAutoPlan *pl = &p->plan;
	DpChargePart parts[2];
	int			L;

	p->form = form_of(site->argref->aggfnoid);
	if (p->form < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
	site->name = forms[p->form].name;
	L = dpagg_auto_site_plan(site, DP_SITE_AUTO_VARIANCE, &p->epsilon, &p->delta, variance_planner,
							 site->name, pl);
	dpagg_auto_charge_parts(site->cxt, pl, "variance", parts);
	dpagg_auto_unit_parts(site, L, parts, 2);
	dpagg_site_set_charge(site, p->epsilon, p->delta, parts, 2);
	return p;
}

/*
 * The release of one group (docs/automatic_bounds.md, "Variances"); a state finalized again (a
 * rescan that reuses the groups) returns what it released.
 */
static Datum
auto_variance_final(FunctionCallInfo fcinfo, int form, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, forms[form].name);
	DpSite	   *site = dpagg_site_of_final(fcinfo, kind);
	const VAParams *p = (const VAParams *) site->params;
	AState	   *st = dpagg_auto_state_of(fcinfo, cxt, kind);

	if (p->form != form)
		elog(ERROR, "dp_var_pop: final function of the wrong form");
	if (!st->released)
	{
		dpagg_auto_variance_bin bins[DPAGG_BOUNDS_BINS];
		int64		counts[DPAGG_BOUNDS_BINS];
		int			lo_bin,
					hi_bin,
					j;
		double		value = 0;
		bool		answer = false;

		dpagg_site_charge(site);
		dpagg_auto_state_bins(st, bins);
		/* 1. the range of bins (none: too few values to find one, NULL) */
		for (j = 0; j < DPAGG_BOUNDS_BINS; j++)
			counts[j] = bins[j].count;
		if (dpagg_auto_bounds_range(&p->plan.bounds_cal, p->plan.threshold, counts, &lo_bin, &hi_bin))
		{
			double		lower,
						upper,
						edge,
						part[DPAGG_VARIANCE_PARTS],
						c;
			dpagg_variance_plan vp;
			dpagg_calibration cal[DPAGG_VARIANCE_PARTS];
			dpagg_release_plan rp[DPAGG_VARIANCE_PARTS];
			__int128	squares,
						sum;
			int64_t		n;
			dpagg_error err;
			int			i;

			dpagg_bounds_bin_edges(lo_bin, &lower, &edge);
			dpagg_bounds_bin_edges(hi_bin, &edge, &upper);
			/* 2. the bounded variance's integers for the values clamped to [lower, upper] */
			if (dpagg_variance_plan_init(p->plan.part_epsilon, p->plan.part_delta, lower, upper, &vp,
										 &err) != DPAGG_OK ||
				dpagg_auto_variance_sums(bins, lo_bin, hi_bin, &vp, &squares, &sum, &n, &err) != DPAGG_OK)
				dpagg_report(&err);
			/* 3. released as the bounded variance releases them */
			for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
			{
				dpagg_request req = part_request(&p->plan.sum_request, &vp, i);

				dpagg_calibrate_cached(p->plan.mechanism, &req, &cal[i]);
				if (dpagg_release_plan_init(&cal[i], i == DPAGG_VARIANCE_COUNT ? 1.0
											: dpagg_quantum_for_bound(vp.sensitivity[i]),
											&rp[i], &err) != DPAGG_OK)
					dpagg_report(&err);
			}
			part[DPAGG_VARIANCE_SQUARES] = dpagg_draw(&rp[DPAGG_VARIANCE_SQUARES], squares);
			part[DPAGG_VARIANCE_SUM] = dpagg_draw(&rp[DPAGG_VARIANCE_SUM], sum);
			c = rint(dpagg_draw(&rp[DPAGG_VARIANCE_COUNT], (__int128) n));
			part[DPAGG_VARIANCE_COUNT] = c < 0 ? 0 : c;
			answer = dpagg_variance_estimate(&vp, form, part[DPAGG_VARIANCE_SQUARES],
											 part[DPAGG_VARIANCE_SUM],
											 part[DPAGG_VARIANCE_COUNT], &value);
		}
		st->released = true;
		st->null_answer = !answer;
		st->released_value = value;
	}
	if (st->null_answer)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(st->released_value);
}

#define DPAGG_AV_FINAL(fname, form, kind) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return auto_variance_final(fcinfo, form, kind); }

DPAGG_AV_FINAL(dpagg_auto_var_pop_final, DPAGG_VAR_POP, DP_SITE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_auto_var_samp_final, DPAGG_VAR_SAMP, DP_SITE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_auto_stddev_pop_final, DPAGG_STDDEV_POP, DP_SITE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_auto_stddev_samp_final, DPAGG_STDDEV_SAMP, DP_SITE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_unit_auto_var_pop_final, DPAGG_VAR_POP, DP_SITE_UNIT_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_unit_auto_var_samp_final, DPAGG_VAR_SAMP, DP_SITE_UNIT_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_unit_auto_stddev_pop_final, DPAGG_STDDEV_POP, DP_SITE_UNIT_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_unit_auto_stddev_samp_final, DPAGG_STDDEV_SAMP, DP_SITE_UNIT_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_merge_auto_var_pop_final, DPAGG_VAR_POP, DP_SITE_MERGE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_merge_auto_var_samp_final, DPAGG_VAR_SAMP, DP_SITE_MERGE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_merge_auto_stddev_pop_final, DPAGG_STDDEV_POP, DP_SITE_MERGE_AUTO_VARIANCE)
DPAGG_AV_FINAL(dpagg_merge_auto_stddev_samp_final, DPAGG_STDDEV_SAMP, DP_SITE_MERGE_AUTO_VARIANCE)
