/*
 * variance.c — dp_var_pop, dp_var_samp, dp_stddev_pop and dp_stddev_samp (and their _report
 * forms): private variances and standard deviations from three noisy sums
 * (src/core/variance/dpagg_variance.h; the argument is docs/variance.md).
 *
 *   dp_var_pop(value, epsilon, delta, lower, upper [, mechanism])  ->  double precision
 *
 * The state of a group is exact: the number of values, the sum of the centred values
 * y = clamp(x) - m and the sum of y^2 - B^2/2, each y and each square rounded to the quantum of
 * its bound (so the sums are exact integers in 128 bits and do not depend on the order of the
 * rows, as dp_sum's: dpagg_accum.h).  The final function charges (normally already done, before
 * the first row), then releases the three sums with the call's mechanism, each calibrated at its
 * share of epsilon and delta, and returns the statistic computed from them (post-processing).
 *
 * The parameters belong to the call site and are read once per query (site.c).  The state is
 * `internal` (48 bytes); parallel plans move it through the serialize/deserialize functions.
 *
 * Over a private relation the per-unit rewrite (query/bound.c) calls the per-unit forms
 * (dpagg_unit_var_pop, ...) over one value per unit and group, the unit's average there, as
 * dp_avg's per-unit form does: the statistic is that of the units' averages, each clamped to
 * [lower, upper], and each of a unit's at most L groups is calibrated at (epsilon / L, delta / L),
 * so that the L groups compose to the call's (docs/variance.md, "Per privacy unit").
 *
 * On Citus (citus/citus.c; docs/citus.md) the four forms are split as dp_avg is: the workers sum
 * each row's quanta with built-in sum() and count(),
 *   sum(dpagg_quanta_var_squares(x, lower, upper)), sum(dpagg_quanta_var(x, lower, upper)), count(x)
 * (the same two integers per row that this file's transition adds: variance_row_quanta), and
 * dpagg_merge_var_pop(squares, sum, n, epsilon, delta, lower, upper, mechanism) (and the other
 * three forms, with their report forms; kind DP_SITE_MERGE_VARIANCE) adds those partial sums
 * exactly into this file's state on the coordinator, where its final function releases as the
 * form itself does: the same site, calibration, charge and answer.
 */
#include "aggregates/state.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "dpagg_accum.h"
#include "variance/dpagg_variance.h"

#define VSTATE_VERSION 1
#define VNAME "dp_var_pop"

extern Datum dpagg_var_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_var_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_stddev_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_stddev_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_var_pop_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_var_samp_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_stddev_pop_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_stddev_samp_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_var_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_var_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_stddev_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_stddev_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_var_pop_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_var_samp_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_stddev_pop_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_stddev_samp_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_var_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_var_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_stddev_pop_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_stddev_samp_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_var_pop_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_var_samp_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_stddev_pop_report_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_stddev_samp_report_final(PG_FUNCTION_ARGS);

/* The four forms: their names (at most 15 bytes: the ledger's field) and final functions, plain,
 * per unit and merged (Citus). */
static const struct
{
	const char *name;
	PGFunction	final;
	PGFunction	report;
	PGFunction	unit_final;
	PGFunction	unit_report;
	PGFunction	merge_final;
	PGFunction	merge_report;
}			forms[] = {
	[DPAGG_VAR_POP] = {"dp_var_pop", dpagg_var_pop_final, dpagg_var_pop_report_final,
		dpagg_unit_var_pop_final, dpagg_unit_var_pop_report_final,
	dpagg_merge_var_pop_final, dpagg_merge_var_pop_report_final},
	[DPAGG_VAR_SAMP] = {"dp_var_samp", dpagg_var_samp_final, dpagg_var_samp_report_final,
		dpagg_unit_var_samp_final, dpagg_unit_var_samp_report_final,
	dpagg_merge_var_samp_final, dpagg_merge_var_samp_report_final},
	[DPAGG_STDDEV_POP] = {"dp_stddev_pop", dpagg_stddev_pop_final, dpagg_stddev_pop_report_final,
		dpagg_unit_stddev_pop_final, dpagg_unit_stddev_pop_report_final,
	dpagg_merge_stddev_pop_final, dpagg_merge_stddev_pop_report_final},
	[DPAGG_STDDEV_SAMP] = {"dp_stddev_samp", dpagg_stddev_samp_final, dpagg_stddev_samp_report_final,
		dpagg_unit_stddev_samp_final, dpagg_unit_stddev_samp_report_final,
	dpagg_merge_stddev_samp_final, dpagg_merge_stddev_samp_report_final},
};

/*
 * 48 bytes (a 64-byte chunk: a million groups' states fit in 80 MB with their headers).  Once
 * released the sums are no longer needed, and their words keep what was released instead: the
 * value in s_lo, the report's interval in q_lo and q_hi (RELEASED_* below).
 */
typedef struct VState
{
	int32		version;
	uint8		released;		/* the sums' words hold the release */
	bool		null_answer;	/* the released answer was NULL */
	int64		n;
	/* 128-bit exact sums as halves (a palloc'd struct is only 8-byte aligned) */
	int64		s_hi;
	uint64		s_lo;
	int64		q_hi;
	uint64		q_lo;
} VState;

StaticAssertDecl(sizeof(VState) == 48, "the variance's state is 48 bytes");

static inline double
word_double(const void *w)
{
	double		d;

	memcpy(&d, w, sizeof(d));
	return d;
}

static inline void
double_word(void *w, double d)
{
	memcpy(w, &d, sizeof(d));
}

typedef struct VParams
{
	int			form;			/* dpagg_variance_form, from the aggregate's final function */
	bool		report;
	bool		unit;			/* per unit (DP_SITE_UNIT_VARIANCE) */
	bool		merge;			/* over partial sums (DP_SITE_MERGE_VARIANCE, Citus) */
	int			L;				/* per unit: the groups a unit contributes to at most; else 1 */
	dpagg_variance_plan plan;	/* one group's: at (epsilon / L, delta / L) */
	dpagg_variance_plan call;	/* the call's: at (epsilon, delta), for the charge */
	double		epsilon;
	double		delta;
	double		inv_quantum_y;	/* 1 / the quantum of B */
	double		quantum_y;
	double		inv_quantum_q;	/* 1 / the quantum of B^2/2 */
	char		mechanism[DPAGG_MECH_SPEC_LEN];
	dpagg_calibration cal[DPAGG_VARIANCE_PARTS];
	dpagg_release_plan rplan[DPAGG_VARIANCE_PARTS];
	double		confidence;
	double		halfwidth[DPAGG_VARIANCE_PARTS];
	TupleDesc	report_desc;
} VParams;

/* The form of an aggregate from its final function; -1 if none of ours. */
static int
form_of(Oid aggfnoid, bool *report, bool *unit, bool *merge)
{
	PGFunction	final = dpagg_aggregate_finalfn(aggfnoid);
	int			i;

	for (i = 0; i < (int) lengthof(forms); i++)
		if (final != NULL && (final == forms[i].final || final == forms[i].report ||
							  final == forms[i].unit_final || final == forms[i].unit_report ||
							  final == forms[i].merge_final || final == forms[i].merge_report))
		{
			*report = final == forms[i].report || final == forms[i].unit_report ||
				final == forms[i].merge_report;
			*unit = final == forms[i].unit_final || final == forms[i].unit_report;
			*merge = final == forms[i].merge_final || final == forms[i].merge_report;
			return i;
		}
	return -1;
}

const char *
dpagg_variance_form_name(Oid aggfnoid)
{
	bool		report,
				unit,
				merge;
	int			form = form_of(aggfnoid, &report, &unit, &merge);

	return form < 0 ? NULL : forms[form].name;
}

/*
 * The charge of a call: the call's (epsilon, delta), as its three parts (each part's delta only
 * where its mechanism uses one: dpagg_charged_delta).  Per unit, a part is the L groups' releases
 * of it, each at (epsilon_i / L, delta_i / L): together (epsilon_i, delta_i) by basic composition,
 * and L times one group's rho under zCDP.  cal: one group's calibrations; prefix: the unit's, for
 * the ledger.
 */
static void
charge_parts(const dpagg_calibration *cal, const dpagg_variance_plan *call, bool unit,
			 const char *prefix, int L, MemoryContext cxt, DpChargePart *parts)
{
	int			i;

	for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
	{
		static const char *const what[] = {"squares", "sum", "count"};
		double		rho = dpagg_zcdp_rho(&cal[i]);

		/* one mechanism for the three parts (the usual case): named once, so that the ledger's
		 * field (127 bytes) keeps all of it */
		bool		one = strcmp(cal[0].spec, cal[1].spec) == 0 && strcmp(cal[0].spec, cal[2].spec) == 0;

		parts[i].spec = MemoryContextStrdup(cxt,
											one ? (i == 0 ? psprintf("%ssquares, sum and count %s", prefix, cal[0].spec) : "")
											: psprintf("%s%s %s", i == 0 ? prefix : "", what[i], cal[i].spec));
		parts[i].epsilon = unit ? call->epsilon[i] : cal[i].epsilon;
		parts[i].delta = dpagg_charged_delta(&cal[i], call->delta[i]);
		parts[i].rho = isnan(rho) ? rho : rho * L;
	}
}

/* Read and validate the parameters of a call site (site.c calls this once per query, before any
 * row is read: a refusal never depends on the data), calibrate the three parts and describe the
 * charge. */
void *
dpagg_variance_site_params(DpSite *site)
{
	DpArgLayout lo;
	VParams    *p = MemoryContextAllocZero(site->cxt, sizeof(VParams));
	dpagg_error err;
	text	   *mech = NULL;
	DpChargePart parts[DPAGG_VARIANCE_PARTS];
	int			i;

	p->form = form_of(site->argref->aggfnoid, &p->report, &p->unit, &p->merge);
	if (p->form < 0 || p->unit != (site->kind == DP_SITE_UNIT_VARIANCE) ||
		p->merge != (site->kind == DP_SITE_MERGE_VARIANCE))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
	site->name = forms[p->form].name;
	dpagg_arg_layout(site->argref, site->kind, &lo);
	p->epsilon = dpagg_param_float8(site, lo.epsilon, "epsilon", DP_SITE_VARIANCE);
	p->delta = dpagg_param_float8(site, lo.delta, "delta", DP_SITE_VARIANCE);
	p->L = 1;
	if (p->unit)
	{
		bool		isnull;
		Datum		d = dpagg_site_param(site, lo.max_groups, &isnull);

		p->L = isnull ? 0 : DatumGetInt32(d);
		if (p->L < 1)
			elog(ERROR, "dpagg: a per-unit aggregate without max_groups");
	}
	{
		double		lower = dpagg_param_float8(site, lo.lower, "lower", DP_SITE_VARIANCE);
		double		upper = dpagg_param_float8(site, lo.upper, "upper", DP_SITE_VARIANCE);

		/* the call's parts (checked first: an error names the call's parameters), then one
		 * group's at (epsilon / L, delta / L), L of which compose to the call's */
		if (dpagg_variance_plan_init(p->epsilon, p->delta, lower, upper, &p->call, &err) != DPAGG_OK)
			dpagg_report(&err);
		if (dpagg_variance_plan_init(dpagg_share(p->epsilon, p->L), dpagg_share(p->delta, p->L),
									 lower, upper, &p->plan, &err) != DPAGG_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("epsilon and delta of %s are too small for %d groups per privacy unit", site->name, p->L),
					 errdetail("Each of a unit's groups gets epsilon / %d and delta / %d: %s", p->L, p->L, err.message),
					 errhint("Pass epsilon at least %g and delta 0 or at least %g, or let each unit contribute to fewer groups (dp_protect's max_groups_contributed).",
							 4e-10 * p->L, 4e-290 * p->L)));
	}
	if (lo.mechanism >= 0)
	{
		bool		isnull;
		Datum		d = dpagg_site_param(site, lo.mechanism, &isnull);

		/* per unit and merged, NULL is the analyst's omitted mechanism (dpagg.default_mechanism) */
		if (isnull && !p->unit && !p->merge)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("mechanism of %s must not be NULL", site->name),
					 errhint("Name a mechanism listed by dp_mechanisms(), or omit the argument to use dpagg.default_mechanism.")));
		mech = isnull ? NULL : DatumGetTextPP(d);
	}
	dpagg_mechanism_spec(mech, p->mechanism, sizeof(p->mechanism));
	p->quantum_y = dpagg_quantum_for_bound(p->plan.bound);
	p->inv_quantum_y = 1.0 / p->quantum_y;
	p->inv_quantum_q = 1.0 / dpagg_quantum_for_bound(p->plan.sensitivity[DPAGG_VARIANCE_SQUARES]);

	/*
	 * Calibrate now (which validates epsilon, delta and the mechanism), before any row is read.
	 * The count is integer-valued (quantum 1); the two sums are released on their quanta's grids.
	 */
	for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
	{
		bool		count = i == DPAGG_VARIANCE_COUNT;
		dpagg_request req = dpagg_scalar_request(p->plan.epsilon[i], p->plan.delta[i],
												 p->plan.sensitivity[i], count);

		dpagg_calibrate_cached(p->mechanism, &req, &p->cal[i]);
		if (dpagg_release_plan_init(&p->cal[i],
									count ? 1.0 : i == DPAGG_VARIANCE_SUM ? p->quantum_y
									: 1.0 / p->inv_quantum_q,
									&p->rplan[i], &err) != DPAGG_OK)
			dpagg_report(&err);
	}
	if (p->report)
	{
		/* Each part within its half-width at 1 - (1 - c)/3: all three at once with probability at
		 * least c (the union bound; docs/variance.md, "Intervals"). */
		Oid			rettype = get_func_rettype(site->argref->aggfnoid);
		MemoryContext old;

		p->confidence = dpagg_report_confidence;
		for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
			if (dpagg_noise_halfwidth(&p->cal[i], 1 - (1 - p->confidence) / 3, &p->halfwidth[i],
									  &err) != DPAGG_OK)
				dpagg_report(&err);
		old = MemoryContextSwitchTo(site->cxt);
		p->report_desc = BlessTupleDesc(lookup_rowtype_tupdesc_copy(rettype, -1));
		MemoryContextSwitchTo(old);
	}
	/* The charge (charge_parts) */
	charge_parts(p->cal, &p->call, p->unit, p->unit ? psprintf("per unit %s, L=%d: ", dpagg_site_unit(site, lo.unit), p->L) : "",
				 p->L, site->cxt, parts);
	dpagg_site_set_charge(site, p->epsilon, p->delta, parts, DPAGG_VARIANCE_PARTS);
	return p;
}

/*
 * On Citus (citus.c), while the query is planned: a call's parameters checked in the order and
 * with the errors of dpagg_variance_site_params (bounds, epsilon and delta, then the mechanism),
 * and its charge prechecked (dpagg_charge_precheck) with the parts its merge will charge, before
 * any worker reads a row.  has_mechanism: the call names one (mechanism NULL: it is NULL).
 */
void
dpagg_variance_precheck(const char *name, double epsilon, double delta, double lower, double upper,
						bool has_mechanism, text *mechanism)
{
	dpagg_variance_plan call,
				plan;
	dpagg_calibration cal[DPAGG_VARIANCE_PARTS];
	DpChargePart parts[DPAGG_VARIANCE_PARTS];
	dpagg_error err;

	if (dpagg_variance_plan_init(epsilon, delta, lower, upper, &call, &err) != DPAGG_OK)
		dpagg_report(&err);
	if (has_mechanism && mechanism == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mechanism of %s must not be NULL", name),
				 errhint("Name a mechanism listed by dp_mechanisms(), or omit the argument to use dpagg.default_mechanism.")));
	dpagg_variance_calibrations(epsilon, delta, lower, upper, mechanism, 1, &call, &plan, cal);
	charge_parts(cal, &call, false, "", 1, CurrentMemoryContext, parts);
	dpagg_charge_precheck(name, epsilon, delta, parts, DPAGG_VARIANCE_PARTS);
}

/* For dp_explain: the calibrations of one group of a call with these parameters (as the site
 * makes them). */
void
dpagg_variance_calibrations(double epsilon, double delta, double lower, double upper,
							text *mechanism, int L, dpagg_variance_plan *call,
							dpagg_variance_plan *plan, dpagg_calibration *cal)
{
	char		spec[DPAGG_MECH_SPEC_LEN];
	dpagg_error err;
	int			i;

	L = Max(L, 1);
	if (dpagg_variance_plan_init(epsilon, delta, lower, upper, call, &err) != DPAGG_OK ||
		dpagg_variance_plan_init(dpagg_share(epsilon, L), dpagg_share(delta, L), lower, upper, plan,
								 &err) != DPAGG_OK)
		dpagg_report(&err);
	dpagg_mechanism_spec(mechanism, spec, sizeof(spec));
	for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
	{
		dpagg_request req = dpagg_scalar_request(plan->epsilon[i], plan->delta[i],
												 plan->sensitivity[i], i == DPAGG_VARIANCE_COUNT);

		dpagg_calibrate_cached(spec, &req, &cal[i]);
	}
}

/* ---- the state ------------------------------------------------------------------------------- */

static VState *
vstate_new(MemoryContext cxt)
{
	VState	   *st = MemoryContextAllocZero(cxt, sizeof(VState));

	st->version = VSTATE_VERSION;
	return st;
}

static void
check_vstate(const VState *st)
{
	if (st->version != VSTATE_VERSION)
		elog(ERROR, "dp_var_pop: state of the wrong kind");
}

static inline void
add128(int64 *hi, uint64 *lo, int64 q)
{
	uint64		l = *lo + (uint64) q;

	*hi += (q >> 63) + (l < (uint64) q);
	*lo = l;
}

/*
 * One value's two integers: y = clamp(x) - m on the quanta of B, then y^2 - B^2/2 (from that y)
 * on the quanta of B^2/2, both clamped to their bounds, which is what the sensitivities need
 * whatever the rounding did.  The one computation of them: the transition below, and on Citus the
 * quanta functions the workers sum (dpagg_quanta_var, dpagg_quanta_var_squares), so that the
 * merged state is the one this node would have made.
 */
static pg_attribute_always_inline void
variance_row_quanta(const dpagg_variance_plan *pl, double quantum_y, double inv_quantum_y,
					double inv_quantum_q, double value, int64 *qy, int64 *qq)
{
	double		x = dpagg_clamp(value, pl->lower, pl->upper);
	double		y;
	double		h = pl->sensitivity[DPAGG_VARIANCE_SQUARES];

	*qy = dpagg_quantize(x - pl->mid, -pl->bound, pl->bound, inv_quantum_y);
	y = (double) *qy * quantum_y;
	*qq = dpagg_quantize(y * y - h, -h, h, inv_quantum_q);
}

static Datum
variance_trans(FunctionCallInfo fcinfo, ValueType vt, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, kind);
	const VParams *p = (const VParams *) site->params;
	VState	   *st = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);

	if (st == NULL)
		st = vstate_new(cxt);
	if (!PG_ARGISNULL(1))
	{
		int64		qy,
					qq;

		variance_row_quanta(&p->plan, p->quantum_y, p->inv_quantum_y, p->inv_quantum_q,
							value_as_double(fcinfo, 1, vt), &qy, &qq);
		st->n++;
		add128(&st->s_hi, &st->s_lo, qy);
		add128(&st->q_hi, &st->q_lo, qq);
	}
	PG_RETURN_POINTER(st);
}

#define DPAGG_V_TRANS(fname, vt, kind) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return variance_trans(fcinfo, vt, kind); }

DPAGG_V_TRANS(dpagg_variance_trans_int2, VT_INT2, DP_SITE_VARIANCE)
DPAGG_V_TRANS(dpagg_variance_trans_int4, VT_INT4, DP_SITE_VARIANCE)
DPAGG_V_TRANS(dpagg_variance_trans_int8, VT_INT8, DP_SITE_VARIANCE)
DPAGG_V_TRANS(dpagg_variance_trans_float4, VT_FLOAT4, DP_SITE_VARIANCE)
DPAGG_V_TRANS(dpagg_variance_trans_float8, VT_FLOAT8, DP_SITE_VARIANCE)
DPAGG_V_TRANS(dpagg_variance_trans_numeric, VT_NUMERIC, DP_SITE_VARIANCE)
/* per unit: one value per unit and group, its average there (a double precision) */
DPAGG_V_TRANS(dpagg_unit_variance_trans, VT_FLOAT8, DP_SITE_UNIT_VARIANCE)

PG_FUNCTION_INFO_V1(dpagg_variance_combine);
Datum
dpagg_variance_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	VState	   *a = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);
	VState	   *b = PG_ARGISNULL(1) ? NULL : (VState *) PG_GETARG_POINTER(1);

	(void) dpagg_site_of_trans(fcinfo, DP_SITE_VARIANCE);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	check_vstate(b);
	if (a == NULL)
		a = vstate_new(cxt);
	check_vstate(a);
	a->n += b->n;
	dpagg_int128_set(dpagg_int128_get(a->s_hi, a->s_lo) + dpagg_int128_get(b->s_hi, b->s_lo),
					 &a->s_hi, &a->s_lo);
	dpagg_int128_set(dpagg_int128_get(a->q_hi, a->q_lo) + dpagg_int128_get(b->q_hi, b->q_lo),
					 &a->q_hi, &a->q_lo);
	PG_RETURN_POINTER(a);
}

/* Serialised: version, n, then the two sums as (hi, lo) halves: 48 bytes. */
typedef struct VWire
{
	int32		version;
	int32		pad;
	int64		n;
	int64		s_hi;
	uint64		s_lo;
	int64		q_hi;
	uint64		q_lo;
} VWire;

PG_FUNCTION_INFO_V1(dpagg_variance_serialize);
Datum
dpagg_variance_serialize(PG_FUNCTION_ARGS)
{
	VState	   *st;
	VWire		w;
	bytea	   *out;

	(void) dpagg_aggregate_context(fcinfo, VNAME);
	st = (VState *) PG_GETARG_POINTER(0);
	check_vstate(st);
	memset(&w, 0, sizeof(w));
	w.version = VSTATE_VERSION;
	w.n = st->n;
	w.s_hi = st->s_hi;
	w.s_lo = st->s_lo;
	w.q_hi = st->q_hi;
	w.q_lo = st->q_lo;
	out = palloc(VARHDRSZ + sizeof(VWire));
	SET_VARSIZE(out, VARHDRSZ + sizeof(VWire));
	memcpy(VARDATA(out), &w, sizeof(VWire));
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpagg_variance_deserialize);
Datum
dpagg_variance_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	VWire		w;
	VState	   *st;

	(void) dpagg_aggregate_context(fcinfo, VNAME);
	in = PG_GETARG_BYTEA_PP(0);
	/* Bytes from outside (only a superuser can pair this function with another serialisation):
	 * malformed input, 22P03 as core's binary input functions.  A partial state of n values has
	 * sums within n times one value's quanta (at most 2^53 each), which is checked too: the
	 * sensitivity holds for the merged state. */
	if (VARSIZE_ANY_EXHDR(in) != sizeof(VWire))
		goto malformed;
	memcpy(&w, VARDATA_ANY(in), sizeof(VWire));
	if (w.version != VSTATE_VERSION || w.n < 0)
		goto malformed;
	{
		__int128	lim = (__int128) w.n * ((__int128) 1 << 53);
		__int128	s = dpagg_int128_get(w.s_hi, w.s_lo);
		__int128	q = dpagg_int128_get(w.q_hi, w.q_lo);

		if (s > lim || s < -lim || q > lim || q < -lim)
			goto malformed;
	}
	st = vstate_new(CurrentMemoryContext);
	st->n = w.n;
	st->s_hi = w.s_hi;
	st->s_lo = w.s_lo;
	st->q_hi = w.q_hi;
	st->q_lo = w.q_lo;
	PG_RETURN_POINTER(st);
malformed:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed partial state of %s", VNAME),
			 errhint("Only dp_var_pop's own serialisation function makes its partial states.")));
	PG_RETURN_NULL();			/* keep the compiler quiet */
}

/* ---- Citus: one row's quanta on the workers, their partial sums merged on the coordinator ---- */

/*
 * The rule of one call's bounds for the quanta functions, made once per call site (fn_extra): the
 * plan dpagg_variance_site_params makes for these bounds (its epsilon and delta play no part in
 * the quanta), so mid, B and B^2/2 are the aggregate's own.  Bounds no variance takes (refused
 * while the query is planned: citus.c) give 0.
 */
typedef struct VQuantaRule
{
	bool		set;
	bool		valid;
	double		lower,
				upper;
	dpagg_variance_plan plan;
	double		quantum_y,
				inv_quantum_y,
				inv_quantum_q;
} VQuantaRule;

static const VQuantaRule *
vquanta_rule(FunctionCallInfo fcinfo, double lower, double upper)
{
	VQuantaRule *r = (VQuantaRule *) fcinfo->flinfo->fn_extra;

	if (unlikely(r == NULL))
	{
		r = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(VQuantaRule));
		fcinfo->flinfo->fn_extra = r;
	}
	if (unlikely(!r->set || r->lower != lower || r->upper != upper))
	{
		dpagg_error err;

		r->lower = lower;
		r->upper = upper;
		r->valid = dpagg_variance_plan_init(1.0, 0.0, lower, upper, &r->plan, &err) == DPAGG_OK;
		if (r->valid)
		{
			r->quantum_y = dpagg_quantum_for_bound(r->plan.bound);
			r->inv_quantum_y = 1.0 / r->quantum_y;
			r->inv_quantum_q = 1.0 / dpagg_quantum_for_bound(r->plan.sensitivity[DPAGG_VARIANCE_SQUARES]);
		}
		r->set = true;
	}
	return r;
}

static pg_attribute_always_inline Datum
vquanta(FunctionCallInfo fcinfo, ValueType vt, bool squares)
{
	const VQuantaRule *r = vquanta_rule(fcinfo, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2));
	int64		qy,
				qq;

	if (!r->valid)
		PG_RETURN_INT64(0);
	variance_row_quanta(&r->plan, r->quantum_y, r->inv_quantum_y, r->inv_quantum_q,
						value_as_double(fcinfo, 0, vt), &qy, &qq);
	PG_RETURN_INT64(squares ? qq : qy);
}

#define DPAGG_VQUANTA_FN(fname, vt, squares) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return vquanta(fcinfo, vt, squares); }

DPAGG_VQUANTA_FN(dpagg_quanta_var_int2, VT_INT2, false)
DPAGG_VQUANTA_FN(dpagg_quanta_var_int4, VT_INT4, false)
DPAGG_VQUANTA_FN(dpagg_quanta_var_int8, VT_INT8, false)
DPAGG_VQUANTA_FN(dpagg_quanta_var_float4, VT_FLOAT4, false)
DPAGG_VQUANTA_FN(dpagg_quanta_var_float8, VT_FLOAT8, false)
DPAGG_VQUANTA_FN(dpagg_quanta_var_numeric, VT_NUMERIC, false)
DPAGG_VQUANTA_FN(dpagg_quanta_var_squares_int2, VT_INT2, true)
DPAGG_VQUANTA_FN(dpagg_quanta_var_squares_int4, VT_INT4, true)
DPAGG_VQUANTA_FN(dpagg_quanta_var_squares_int8, VT_INT8, true)
DPAGG_VQUANTA_FN(dpagg_quanta_var_squares_float4, VT_FLOAT4, true)
DPAGG_VQUANTA_FN(dpagg_quanta_var_squares_float8, VT_FLOAT8, true)
DPAGG_VQUANTA_FN(dpagg_quanta_var_squares_numeric, VT_NUMERIC, true)

static void
bad_vpartial(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid partial sums for dpagg's variance merge: %s", what),
			 errhint("The partial sums are sum(dpagg_quanta_var_squares(x, lower, upper)), sum(dpagg_quanta_var(x, lower, upper)) and count(x), with the merge's bounds.")));
}

/* The largest merged sums accepted (2^120 quanta): far from the 128-bit state's limit. */
#define DPAGG_VMERGE_LIMIT (((__int128) 1) << 120)

/*
 * dpagg_merge_var_pop(squares, sum, n, epsilon, delta, lower, upper, mechanism) and its sibling
 * forms: one row of partial sums (a group's rows on one shard, or all of them) added exactly into
 * the state dp_var_pop's transition makes.  A partial its count could not make (each value adds
 * at most B / quantum to the sum and B^2/2 / quantum to the squares, in size) is refused, as
 * partial.c's merge refuses one: a consistency check (bounds that differ from the merge's), not a
 * bound on a sender who lies (docs/citus.md, section 3).  NULL sums with a count of 0 are a
 * shard's group without a value.
 */
PG_FUNCTION_INFO_V1(dpagg_merge_variance_trans);
Datum
dpagg_merge_variance_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, DP_SITE_MERGE_VARIANCE);
	const VParams *p = (const VParams *) site->params;
	VState	   *st = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);
	bool		has_q = !PG_ARGISNULL(1),
				has_s = !PG_ARGISNULL(2);
	int64		n;
	__int128	q = 0,
				s = 0,
				tq,
				ts;
	const char *why;
	int			i;

	if (st == NULL)
		st = vstate_new(cxt);
	check_vstate(st);
	if (st->released)
		elog(ERROR, "dp_var_pop: a merged state was released already");
	if (PG_ARGISNULL(3))
	{
		if (has_q || has_s)
			bad_vpartial("partial sums without their count");
		PG_RETURN_POINTER(st);
	}
	n = PG_GETARG_INT64(3);
	if (n < 0)
		bad_vpartial("a negative count");
	if (has_q != has_s || (n > 0 && !has_q))
		bad_vpartial("a count without both of its partial sums");
	if (has_q)
	{
		__int128	max_q = (__int128) n * (int64) nearbyint(p->plan.sensitivity[DPAGG_VARIANCE_SQUARES] * p->inv_quantum_q);
		__int128	max_s = (__int128) n * (int64) nearbyint(p->plan.bound * p->inv_quantum_y);

		if (!dpagg_numeric_int128(PG_GETARG_DATUM(1), &q, &why) ||
			!dpagg_numeric_int128(PG_GETARG_DATUM(2), &s, &why))
			bad_vpartial(why);
		if (q > max_q || q < -max_q || s > max_s || s < -max_s)
			bad_vpartial("a sum is outside what its count of clamped values allows");
	}
	if (st->n > PG_INT64_MAX - n)
		bad_vpartial("the counts add up to more than a bigint holds");
	tq = dpagg_int128_get(st->q_hi, st->q_lo) + q;	/* each within 2^120: no wrap */
	ts = dpagg_int128_get(st->s_hi, st->s_lo) + s;
	if (tq > DPAGG_VMERGE_LIMIT || tq < -DPAGG_VMERGE_LIMIT ||
		ts > DPAGG_VMERGE_LIMIT || ts < -DPAGG_VMERGE_LIMIT)
		bad_vpartial("the partial sums add up to more than 2^120 quanta");
	/* what the release at this epsilon can represent (release.cpp): refused here, with 22023,
	 * rather than in the final function */
	for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
	{
		__int128	v = i == DPAGG_VARIANCE_SQUARES ? tq : i == DPAGG_VARIANCE_SUM ? ts
			: (__int128) st->n + n;
		__int128	max = dpagg_release_max_quanta(&p->rplan[i]);

		if (v >= max || v <= -max)
			bad_vpartial("the partial sums add up to more than a release at this epsilon can represent");
	}
	st->n += n;
	dpagg_int128_set(tq, &st->q_hi, &st->q_lo);
	dpagg_int128_set(ts, &st->s_hi, &st->s_lo);
	PG_RETURN_POINTER(st);
}

/* ---- the release ----------------------------------------------------------------------------- */

/*
 * The release of one group: charged (normally already, before the first row), then the three
 * parts drawn and the answer computed from them; a state finalized again (a rescan that reuses
 * the groups) returns what it released.  An empty group (no state) releases noisy zeros.
 */
static Datum
variance_final(FunctionCallInfo fcinfo, int form, bool report, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_final(fcinfo, kind);
	const VParams *p = (const VParams *) site->params;
	VState	   *st = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);

	/* site.c has checked that this final function is the aggregate's (the form was read from it) */
	if (p->form != form || p->report != report)
		elog(ERROR, "dp_var_pop: final function of the wrong form");
	if (st != NULL)
		check_vstate(st);
	else
		st = vstate_new(cxt);
	if (!st->released)
	{
		double		noisy[DPAGG_VARIANCE_PARTS];
		double		c,
					value = 0,
					lo = 0,
					hi = 0;

		dpagg_site_charge(site);
		noisy[DPAGG_VARIANCE_SQUARES] = dpagg_draw(&p->rplan[DPAGG_VARIANCE_SQUARES],
											 dpagg_int128_get(st->q_hi, st->q_lo));
		noisy[DPAGG_VARIANCE_SUM] = dpagg_draw(&p->rplan[DPAGG_VARIANCE_SUM],
										 dpagg_int128_get(st->s_hi, st->s_lo));
		c = rint(dpagg_draw(&p->rplan[DPAGG_VARIANCE_COUNT], (__int128) st->n));
		noisy[DPAGG_VARIANCE_COUNT] = c < 0 ? 0 : c;
		st->null_answer = !dpagg_variance_estimate(&p->plan, form, noisy[DPAGG_VARIANCE_SQUARES],
												   noisy[DPAGG_VARIANCE_SUM],
												   noisy[DPAGG_VARIANCE_COUNT], &value);
		if (report)
			dpagg_variance_interval(&p->plan, form, noisy[DPAGG_VARIANCE_SQUARES],
									noisy[DPAGG_VARIANCE_SUM], noisy[DPAGG_VARIANCE_COUNT],
									p->halfwidth, &lo, &hi);
		/* the sums are no longer needed: nothing exact stays in a released state, whose words
		 * keep the release */
		st->n = 0;
		st->s_hi = 0;
		double_word(&st->s_lo, value);
		double_word(&st->q_lo, lo);
		double_word(&st->q_hi, hi);
		st->released = 1;
	}
	if (!report)
	{
		if (st->null_answer)
			PG_RETURN_NULL();
		PG_RETURN_FLOAT8(word_double(&st->s_lo));
	}
	{
		const char *mech = p->cal[0].spec;

		if (strcmp(p->cal[0].spec, p->cal[1].spec) != 0 || strcmp(p->cal[0].spec, p->cal[2].spec) != 0)
			mech = psprintf("%s / %s / %s", p->cal[0].spec, p->cal[1].spec, p->cal[2].spec);
		PG_RETURN_DATUM(dpagg_report_datum(p->report_desc, word_double(&st->s_lo), st->null_answer,
										   word_double(&st->q_lo), word_double(&st->q_hi),
										   p->confidence, mech, p->epsilon, p->delta,
										   p->cal[0].scale));
	}
}

#define DPAGG_V_FINAL(fname, form, report, kind) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return variance_final(fcinfo, form, report, kind); }

DPAGG_V_FINAL(dpagg_var_pop_final, DPAGG_VAR_POP, false, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_var_samp_final, DPAGG_VAR_SAMP, false, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_stddev_pop_final, DPAGG_STDDEV_POP, false, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_stddev_samp_final, DPAGG_STDDEV_SAMP, false, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_var_pop_report_final, DPAGG_VAR_POP, true, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_var_samp_report_final, DPAGG_VAR_SAMP, true, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_stddev_pop_report_final, DPAGG_STDDEV_POP, true, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_stddev_samp_report_final, DPAGG_STDDEV_SAMP, true, DP_SITE_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_var_pop_final, DPAGG_VAR_POP, false, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_var_samp_final, DPAGG_VAR_SAMP, false, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_stddev_pop_final, DPAGG_STDDEV_POP, false, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_stddev_samp_final, DPAGG_STDDEV_SAMP, false, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_var_pop_report_final, DPAGG_VAR_POP, true, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_var_samp_report_final, DPAGG_VAR_SAMP, true, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_stddev_pop_report_final, DPAGG_STDDEV_POP, true, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_unit_stddev_samp_report_final, DPAGG_STDDEV_SAMP, true, DP_SITE_UNIT_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_var_pop_final, DPAGG_VAR_POP, false, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_var_samp_final, DPAGG_VAR_SAMP, false, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_stddev_pop_final, DPAGG_STDDEV_POP, false, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_stddev_samp_final, DPAGG_STDDEV_SAMP, false, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_var_pop_report_final, DPAGG_VAR_POP, true, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_var_samp_report_final, DPAGG_VAR_SAMP, true, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_stddev_pop_report_final, DPAGG_STDDEV_POP, true, DP_SITE_MERGE_VARIANCE)
DPAGG_V_FINAL(dpagg_merge_stddev_samp_report_final, DPAGG_STDDEV_SAMP, true, DP_SITE_MERGE_VARIANCE)
