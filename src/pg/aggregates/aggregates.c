/*
 * aggregates.c — dp_sum, dp_avg and dp_count: transition, combine and final functions, and the
 * dpagg_state type.
 *
 * The state holds only data: the count, an exact 128-bit sum of clamped values in a power-of-two
 * quantum (src/core/dpagg_accum.h, so the total does not depend on row order or on how parallel
 * partial states are combined), and whether and what was released.  The privacy parameters
 * (epsilon, delta, sensitivity or bounds, mechanism) belong to the call site: they are read once
 * per query, before any row, and every group of the aggregation uses them (site.c).  Noise is
 * added once per group, in the final function, by the core (dpagg_release), after the release
 * has been charged (ledger/charge.c).
 *
 * Longer than 1 000 lines because the transition functions of the plain, per-unit and inline
 * forms of the three aggregates are generated from the same always-inline row functions
 * (sum_row, avg_row, ...) and the final functions share one release path (final_state, draw,
 * released_value): apart, the per-row functions would become calls across files on the hottest
 * path.  The parameters and calibration of a call site (the first section) are the part that
 * could stand alone.
 */
#include "aggregates/state.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/executor.h"
#include "libpq/pqformat.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "dpagg_accum.h"

/* The kind of the plain aggregate a per-unit kind bounds (the same state, rows and release). */
static int
base_kind(int kind)
{
	switch (kind)
	{
		case DP_SITE_UNIT_SUM:
			return DP_SUM;
		case DP_SITE_UNIT_AVG:
			return DP_AVG;
		case DP_SITE_UNIT_COUNT:
		case DP_SITE_SELECT:
			return DP_COUNT;
		case DP_SITE_MERGE_SUM:
			return DP_SUM;
		case DP_SITE_MERGE_AVG:
			return DP_AVG;
		case DP_SITE_MERGE_COUNT:
			return DP_COUNT;
		default:
			return kind;
	}
}

void
dpagg_arg_layout(Aggref *aggref, int kind, DpArgLayout *lo)
{
	int			n = list_length(aggref->aggargtypes);
	Oid			last = n > 0 ? llast_oid(aggref->aggargtypes) : InvalidOid;
	bool		has_mech = (last == TEXTOID);
	int			p = 0;

	if (n < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
	memset(lo, -1, sizeof(*lo));
	lo->nargs = n;
	if (kind == DP_SITE_UNIT_VECTOR)
	{
		/* value, dimension, epsilon, delta, l2_bound, mechanism, max_groups */
		lo->value = p++;
		lo->dimension = p++;
		lo->epsilon = p++;
		lo->delta = p++;
		lo->upper = p++;
		lo->mechanism = p++;
		lo->max_groups = p++;
		lo->unit = p++;
	}
	else if (kind == DP_SITE_VECTOR || kind == DP_SITE_MERGE_VECTOR)
	{
		/* dp_sum_vector and its merge (vector.c): value (or state), dimension, epsilon, delta,
		 * l2_bound [, mechanism] */
		lo->value = p++;
		lo->dimension = p++;
		lo->epsilon = p++;
		lo->delta = p++;
		lo->upper = p++;
		if (has_mech)
			lo->mechanism = p++;
	}
	else if (kind == DP_SITE_AUTO_SUM || kind == DP_SITE_AUTO_PERCENTILE || kind == DP_SITE_AUTO_VARIANCE)
	{
		/* dp_sum(value, epsilon, delta), dp_percentile(value, p, epsilon, delta),
		 * dp_percentiles(value, ps, ...), dp_median(value, epsilon, delta), dp_var_pop(value,
		 * epsilon, delta) and its forms: no bounds (auto_bounds.c, percentile.c, auto_variance.c) */
		lo->value = p++;
		if (kind == DP_SITE_AUTO_PERCENTILE && n == 4)
			lo->quantile = p++;
		lo->epsilon = p++;
		lo->delta = p++;
	}
	else if (kind == DP_SITE_PERCENTILE || kind == DP_SITE_VARIANCE)
	{
		/* dp_percentile(value, p, ...), dp_percentiles(value, ps, ...), dp_median(value, ...),
		 * dp_var_pop(value, ...) and its forms: epsilon, delta, lower, upper [, mechanism] */
		lo->value = p++;
		if (n - (has_mech ? 1 : 0) == 6)
			lo->quantile = p++;
		lo->epsilon = p++;
		lo->delta = p++;
		lo->lower = p++;
		lo->upper = p++;
		if (has_mech)
			lo->mechanism = p++;
	}
	else if (kind == DP_SITE_MERGE_PERCENTILE)
	{
		/* Fixed by scripts/generate_sql.py: bin, n [, p or ps], epsilon, delta, lower, upper,
		 * mechanism (percentile.c; NULL bounds: without bounds) */
		lo->value = p++;
		p++;					/* n, the bin's count */
		if (n == 8)
			lo->quantile = p++;
		lo->epsilon = p++;
		lo->delta = p++;
		lo->lower = p++;
		lo->upper = p++;
		lo->mechanism = p++;
	}
	else if (kind == DP_SITE_MERGE_AUTO_SUM || kind == DP_SITE_MERGE_AUTO_VARIANCE)
	{
		/* Fixed by scripts/generate_sql.py: bin, n, s [, squares], epsilon, delta (auto_bounds.c) */
		lo->value = p++;
		p += kind == DP_SITE_MERGE_AUTO_VARIANCE ? 3 : 2;
		lo->epsilon = p++;
		lo->delta = p++;
	}
	else if (kind == DP_SITE_MERGE_VARIANCE)
	{
		/* Fixed by scripts/generate_sql.py: squares, sum, n, epsilon, delta, lower, upper,
		 * mechanism (variance.c) */
		lo->value = p++;
		p += 2;					/* the partial sum and the count beside the squares */
		lo->epsilon = p++;
		lo->delta = p++;
		lo->lower = p++;
		lo->upper = p++;
		lo->mechanism = p++;
	}
	else if (DPAGG_KIND_IS_MERGE(kind))
	{
		/* Fixed by scripts/generate_sql.py: (quanta,) n, epsilon, delta, (lower, upper,)
		 * mechanism (, integer_values) */
		lo->value = p++;
		if (kind != DP_SITE_MERGE_COUNT)
			p++;				/* n, the count of values beside the sum (partial.c) */
		lo->epsilon = p++;
		lo->delta = p++;
		if (kind != DP_SITE_MERGE_COUNT)
		{
			lo->lower = p++;
			lo->upper = p++;
		}
		lo->mechanism = p++;
		if (kind == DP_SITE_MERGE_SUM)
			lo->integer = p++;
	}
	else if (DPAGG_KIND_IS_UNIT(kind))
	{
		/* Fixed by scripts/generate_sql.py: (value,) epsilon, delta, ... */
		if (kind != DP_SITE_SELECT)
			lo->value = p++;
		if (kind == DP_SITE_UNIT_PERCENTILE && n == 9)
			lo->quantile = p++;	/* dpagg_unit_percentile(value, p, ...), _percentiles(value, ps, ...) */
		lo->epsilon = p++;
		lo->delta = p++;
		if (kind == DP_SITE_UNIT_SUM || kind == DP_SITE_UNIT_AVG || kind == DP_SITE_UNIT_VARIANCE ||
			kind == DP_SITE_UNIT_PERCENTILE)
		{
			lo->lower = p++;
			lo->upper = p++;
		}
		if (kind != DP_SITE_SELECT && kind != DP_SITE_UNIT_AUTO_SUM && kind != DP_SITE_UNIT_AUTO_VARIANCE)
			lo->mechanism = p++;	/* (without bounds: the default mechanism, as over the rows) */
		lo->max_groups = p++;
		if (kind == DP_SITE_UNIT_COUNT)
			lo->max_rows = p++;
		if (kind == DP_SITE_SELECT)
			lo->strategy = p++;
		lo->unit = p++;
	}
	else
	{
		if (dpagg_value_position(aggref, kind) == 0)
			lo->value = p++;
		lo->epsilon = p++;
		lo->delta = p++;
		if (kind == DP_SUM)
		{
			int			rest = n - p - (has_mech ? 1 : 0);

			if (rest == 1)
				lo->sensitivity = p++;
			else
			{
				lo->lower = p++;
				lo->upper = p++;
			}
		}
		else if (kind == DP_AVG)
		{
			lo->lower = p++;
			lo->upper = p++;
		}
		if (has_mech)
			lo->mechanism = p++;
	}
	if (p != n)
		elog(ERROR, "dpagg: unexpected argument list for %s", dpagg_kind_name(kind));
}

/* ------------------------------------------------------------------------------------------
 * The parameters of one call site (site.c reads them once per query).
 */
typedef struct ScalarParams
{
	int			kind;
	double		epsilon;
	double		delta;
	double		lower;			/* clamping bounds; for dp_avg the values are centred */
	double		upper;
	double		bound;			/* B, the sensitivity of the sum */
	double		mid;			/* dp_avg: the centre of [lower, upper] */
	double		quantum;		/* of the accumulation (derived from the bound) */
	double		inv_quantum;
	bool		integer_sum;	/* dp_sum of an integer type with whole-number bounds */
	bool		int_path;		/* integer values: quantize with iq (the same quanta) */
	dpagg_int_quantizer iq;
	/* Per-unit kinds (bound.c): each unit contributes to at most max_groups groups, and a count
	 * takes at most max_rows of its rows per group (0: counts the unit once). */
	int			max_groups;
	int			max_rows;
	bool		joint[2];		/* cal[i] is a Gaussian for the l2 sensitivity sqrt(L) * bound */
	char		mechanism[DPAGG_MECH_SPEC_LEN];
	dpagg_calibration cal[2];	/* calibrated when the site is prepared */
	dpagg_release_plan plan[2];	/* releases with cal[i] (at the sum's quantum, or 1 for counts) */
	/* Merges (partial.c): one clamped value's quanta lie in [quanta_lo, quanta_hi] (at most 2^53
	 * in size); whole_quanta is the quanta of one unit where the sum is integer-valued, else 0.
	 * int64, not __int128: a palloc'd struct is only 8-byte aligned. */
	int64		quanta_lo;
	int64		quanta_hi;
	int64		whole_quanta;
	/* The report forms (dp_sum_report, ...): the half-width of each part's noise interval at the
	 * part's confidence, and the dp_report row type; computed with the calibration, before any
	 * charge, so that a mechanism without a known interval is refused before anything is spent. */
	bool		report;
	double		confidence;		/* dpagg.report_confidence when the query started */
	double		halfwidth[2];
	TupleDesc	report_desc;
} ScalarParams;

double
dpagg_param_float8(DpSite *site, int i, const char *name, int kind)
{
	bool		isnull;
	Datum		d = dpagg_site_param(site, i, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must not be NULL", name, site->name ? site->name : dpagg_kind_name(kind)),
				 errhint("Pass a number.")));
	return DatumGetFloat8(d);
}

static void
bad_bounds(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", msg),
			 errhint("%s", hint)));
}

static void calibrate_site(ScalarParams *p);
static bool integer_sum_rule(const ScalarParams *p, bool integer_values);
static void prepare_report(DpSite *site, ScalarParams *p);
static bool try_joint_gaussian(ScalarParams *p, int i);

/*
 * The clamping bounds, the sensitivity B and the centre of one call, validated: one rule for
 * releases and for dp_explain.  dp_count's bounds are [0, 1], or [0, C] for a per-unit count with
 * a row cap (p->max_rows); the arguments are then ignored.
 */
static void
set_bounds(ScalarParams *p, double lower, double upper)
{
	if (p->kind == DP_COUNT)
	{
		lower = 0;
		upper = p->max_rows > 0 ? p->max_rows : 1;
	}
	else
	{
		if (!isfinite(lower) || !isfinite(upper))
			bad_bounds("lower and upper must be finite",
					   "Pass finite bounds with lower <= upper.");
		if (lower > upper)
			bad_bounds(psprintf("lower (%g) must not be greater than upper (%g)", lower, upper),
					   "Pass finite bounds with lower <= upper; the arguments are (value, epsilon, delta, lower, upper).");
		if (p->kind == DP_AVG && !(lower < upper))
			bad_bounds("dp_avg needs lower < upper",
					   "With lower = upper the average is known: it is lower.");
	}
	p->lower = lower;
	p->upper = upper;
	p->bound = p->kind == DP_AVG ? (upper - lower) / 2.0 : fmax(fabs(lower), fabs(upper));
	if (!(p->bound > 0))
		bad_bounds("the bounds give a sensitivity of 0",
				   "Pass bounds with max(|lower|, |upper|) > 0.");
	p->mid = lower / 2 + upper / 2;
}

double
dpagg_check_bounds(int kind, double lower, double upper)
{
	ScalarParams p;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	set_bounds(&p, lower, upper);
	return p.bound;
}

void *
dpagg_scalar_site_params(DpSite *site)
{
	int			site_kind = site->kind;
	int			kind = base_kind(site_kind);
	DpArgLayout lo;
	ValueType	vtype = VT_NONE;
	ScalarParams *p = MemoryContextAllocZero(site->cxt, sizeof(ScalarParams));
	text	   *mech = NULL;

	dpagg_arg_layout(site->argref, site_kind, &lo);
	if (lo.value >= 0)
		vtype = kind == DP_COUNT ? VT_ANY : value_type_of(linitial_oid(site->argref->aggargtypes));
	p->kind = kind;
	p->max_groups = 1;
	if (lo.max_groups >= 0)
	{
		bool		isnull;
		Datum		d = dpagg_site_param(site, lo.max_groups, &isnull);

		p->max_groups = isnull ? 0 : DatumGetInt32(d);
		if (p->max_groups < 1)
			elog(ERROR, "dpagg: a per-unit aggregate without max_groups");
	}
	if (lo.max_rows >= 0)
	{
		bool		isnull;
		Datum		d = dpagg_site_param(site, lo.max_rows, &isnull);

		p->max_rows = isnull ? 0 : DatumGetInt32(d);
	}
	p->epsilon = dpagg_param_float8(site, lo.epsilon, "epsilon", kind);
	p->delta = dpagg_param_float8(site, lo.delta, "delta", kind);
	if (lo.sensitivity >= 0)
	{
		double		s = dpagg_param_float8(site, lo.sensitivity, "sensitivity", kind);

		if (!(isfinite(s) && s > 0))
			bad_bounds("sensitivity must be a finite number greater than 0",
					   "Pass the largest absolute value one row can contribute, in (0, infinity).");
		set_bounds(p, -s, s);
	}
	else if (lo.lower >= 0)
		set_bounds(p, dpagg_param_float8(site, lo.lower, "lower", kind),
				   dpagg_param_float8(site, lo.upper, "upper", kind));
	else
		set_bounds(p, 0, 0);	/* dp_count: each row (unit) adds 1, or at most C */
	if (lo.mechanism >= 0)
	{
		bool		isnull;
		Datum		d = dpagg_site_param(site, lo.mechanism, &isnull);

		/* Per-unit and merge kinds: NULL is the analyst's omitted mechanism
		 * (dpagg.default_mechanism). */
		if (isnull && !DPAGG_KIND_IS_UNIT(site_kind) && !DPAGG_KIND_IS_MERGE(site_kind))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("mechanism of %s must not be NULL", dpagg_kind_name(kind)),
					 errhint("Name a mechanism listed by dp_mechanisms(), or omit the argument to use dpagg.default_mechanism.")));
		mech = isnull ? NULL : DatumGetTextPP(d);
	}
	dpagg_mechanism_spec(mech, p->mechanism, sizeof(p->mechanism));
	p->quantum = dpagg_quantum_for_bound(p->bound);
	p->inv_quantum = 1.0 / p->quantum;
	p->int_path = (kind != DP_COUNT &&
				   (vtype == VT_INT2 || vtype == VT_INT4 || vtype == VT_INT8) &&
				   dpagg_int_quantizer_init(&p->iq, p->lower, p->upper, kind == DP_AVG));
	/* A sum of integers clamped to whole-number bounds changes by a whole number 0..D between
	 * neighbours: mechanisms may calibrate for those shifts only (see dp_calibrate). */
	if (lo.integer >= 0)
	{
		/* merged (partial.c): whether the values were of an integer type, as the rewrite
		 * (citus.c) knew from the value's type */
		bool		isnull;
		Datum		d = dpagg_site_param(site, lo.integer, &isnull);

		if (!isnull && DatumGetBool(d))
			vtype = VT_INT8;	/* each partial sum is checked to be whole (partial.c) */
	}
	p->integer_sum = integer_sum_rule(p, vtype == VT_INT2 || vtype == VT_INT4 || vtype == VT_INT8);

	/*
	 * Calibrate now (which validates), before any row is read: a refusal must never depend on
	 * whether the data produced a group (a calibration that failed only at the first release
	 * would tell).  The leader calibrates before any worker starts, so parallel workers find the
	 * calibration in the shared cache.
	 */
	calibrate_site(p);
	{
		/* Counts (and dp_avg's count part) are whole numbers: quantum 1. */
		int			n = kind == DP_AVG ? 2 : 1;
		int			i;

		for (i = 0; i < n; i++)
		{
			dpagg_error err;

			if (dpagg_release_plan_init(&p->cal[i], kind == DP_COUNT || i == 1 ? 1.0 : p->quantum,
										&p->plan[i], &err) != DPAGG_OK)
				dpagg_report(&err);
		}
	}
	{
		double		a = kind == DP_AVG ? -p->bound : p->lower;
		double		b = kind == DP_AVG ? p->bound : p->upper;

		p->quanta_lo = (int64) floor(a * p->inv_quantum);
		p->quanta_hi = (int64) ceil(b * p->inv_quantum);
		/* 1 / quantum, a power of two below 2^53 (an integer sum's bounds are at most 1e9) */
		p->whole_quanta = p->integer_sum ? (int64) ldexp(1.0, -ilogb(p->quantum)) : 0;
	}
	if (dpagg_aggregate_is_report(site->argref->aggfnoid))
		prepare_report(site, p);
	/* What one execution is charged; what the charge would refuse (no budget, cap, floor,
	 * overspending) is checked now too. */
	{
		DpChargePart parts[2];
		int			n = kind == DP_AVG ? 2 : 1;
		int			i;

		/*
		 * Per unit, each of a unit's (at most) L groups is calibrated at epsilon / L, delta / L
		 * (calibrate_site): L of them compose to the call's (epsilon, delta), which is what is
		 * charged, and under zCDP to L times each group's rho.  A part whose mechanism is
		 * pure (certified delta 0) is charged no delta (dpagg_charged_delta).
		 */
		double		L = p->max_groups;

		for (i = 0; i < n; i++)
		{
			double		rho = dpagg_zcdp_rho(&p->cal[i]);

			if (!DPAGG_KIND_IS_UNIT(site_kind))
			{
				parts[i].spec = p->cal[i].spec;
				parts[i].epsilon = p->cal[i].epsilon;
				parts[i].delta = dpagg_charged_delta(&p->cal[i], p->cal[i].delta);
				parts[i].rho = rho;
				continue;
			}
			parts[i].spec = MemoryContextStrdup(site->cxt,
												psprintf(p->joint[i] ? "%s per unit %s, L=%d, l2 over groups" : "%s per unit %s, L=%d",
														 p->cal[i].spec, dpagg_site_unit(site, lo.unit),
														 p->max_groups));
			parts[i].epsilon = kind == DP_AVG ? p->epsilon / 2 : p->epsilon;
			parts[i].delta = dpagg_charged_delta(&p->cal[i], kind == DP_AVG ? p->delta / 2 : p->delta);
			/* A joint Gaussian's rho is already that of all L groups (its sensitivity is the
			 * l2 norm over them); a per-group calibration's is one group's. */
			parts[i].rho = isnan(rho) || p->joint[i] ? rho : rho * L;
		}
		dpagg_site_set_charge(site, p->epsilon, p->delta, parts, n);
	}
	return p;
}

/*
 * For the merge (partial.c), from the site's parameters: the range of one clamped value's quanta
 * ([lower, upper] for a sum, [-B, B] around the middle for an average), so that a partial sum of
 * n values is held to n times it (sensitivity enforced on merged input too, not only on rows);
 * and the quanta of one whole unit if the sum is integer-valued, else 0: a merge told
 * integer_values = true refuses a partial sum that is not a whole number, so that the claim holds
 * whoever wrote the merge (an integer-valued calibration, e.g. discrete_laplace, would otherwise
 * leave a fraction exact in the release).
 */
void
dpagg_site_quanta_rules(DpSite *site, int64 *lo, int64 *hi, int64 *whole)
{
	const ScalarParams *p = (const ScalarParams *) site->params;

	*lo = p->quanta_lo;
	*hi = p->quanta_hi;
	*whole = p->whole_quanta;
}

/*
 * x / L, rounded down where the division rounded up, so that L shares never add up to more than
 * x: each group of a per-unit aggregate is calibrated for a share of the call's epsilon and delta,
 * and the charge is the whole (conservative in both directions of rounding).
 */
/* The largest exact sum of quanta the site's release takes (exclusive; release.cpp): merges
 * refuse partial sums adding up to more with a clear error (partial.c). */
__int128
dpagg_site_max_quanta(DpSite *site)
{
	const ScalarParams *p = (const ScalarParams *) site->params;

	return dpagg_release_max_quanta(&p->plan[0]);
}

const char *
dpagg_site_unit(DpSite *site, int i)
{
	bool		isnull;
	Datum		d;

	if (i < 0)
		return "";
	d = dpagg_site_param(site, i, &isnull);
	return isnull ? "" : MemoryContextStrdup(site->cxt, TextDatumGetCString(d));
}

double
dpagg_share(double x, int L)
{
	double		s;

	if (L <= 1)
		return x;
	s = x / L;
	while (s > 0 && s * L > x)
		s = nextafter(s, 0);
	return s;
}

/*
 * The report forms' intervals (docs/intervals.md).  dp_sum: the noise's half-width at the
 * confidence c.  dp_count: the same, widened to whole numbers.  dp_avg: two noisy parts, each
 * within its half-width at confidence 1 - (1 - c)/2, so both at once with probability at least c
 * (the union bound); the interval is the range of the ratio over that box (report_avg).
 */
static void
prepare_report(DpSite *site, ScalarParams *p)
{
	int			n = p->kind == DP_AVG ? 2 : 1;
	double		c = dpagg_report_confidence;
	Oid			rettype = get_func_rettype(site->argref->aggfnoid);
	MemoryContext old;
	int			i;

	p->report = true;
	p->confidence = c;
	for (i = 0; i < n; i++)
	{
		dpagg_error err;

		if (dpagg_noise_halfwidth(&p->cal[i], n == 2 ? 1 - (1 - c) / 2 : c, &p->halfwidth[i],
								  &err) != DPAGG_OK)
			dpagg_report(&err);
	}
	old = MemoryContextSwitchTo(site->cxt);
	p->report_desc = BlessTupleDesc(lookup_rowtype_tupdesc_copy(rettype, -1));
	MemoryContextSwitchTo(old);
}

/* A sum of integers clamped to whole-number bounds (up to 1e9) changes by a whole number 0..D
 * between neighbours: mechanisms may calibrate for those shifts only (see dp_calibrate). */
static bool
integer_sum_rule(const ScalarParams *p, bool integer_values)
{
	return p->kind == DP_SUM && integer_values && p->lower == floor(p->lower) &&
		p->upper == floor(p->upper) && p->bound <= 1e9;
}

/* The site's calibrations, once, for every group of every execution. */
static void
calibrate_site(ScalarParams *p)
{
	dpagg_request req;
	int			L = p->max_groups;

	/* The core adds the release-grid allowance (not for integer-valued answers, which are
	 * multiples of every release grid) and applies dpagg.objective. */
	if (p->kind == DP_AVG)
	{
		req = dpagg_scalar_request(dpagg_share(p->epsilon / 2, L), dpagg_share(p->delta / 2, L), p->bound, false);
		dpagg_calibrate_cached(p->mechanism, &req, &p->cal[0]);
		req = dpagg_scalar_request(dpagg_share(p->epsilon / 2, L), dpagg_share(p->delta / 2, L), 1.0, true);
		dpagg_calibrate_cached(p->mechanism, &req, &p->cal[1]);
	}
	else if (p->kind == DP_COUNT)
	{
		/* Sensitivity 1 (a row, or a unit), or the row cap C of a per-unit count. */
		req = dpagg_scalar_request(dpagg_share(p->epsilon, L), dpagg_share(p->delta, L), p->upper, true);
		dpagg_calibrate_cached(p->mechanism, &req, &p->cal[0]);
	}
	else
	{
		req = dpagg_scalar_request(dpagg_share(p->epsilon, L), dpagg_share(p->delta, L), p->bound,
								   p->integer_sum);
		dpagg_calibrate_cached(p->mechanism, &req, &p->cal[0]);
	}
	if (L > 1)
	{
		int			n = p->kind == DP_AVG ? 2 : 1;
		int			i;

		for (i = 0; i < n; i++)
			p->joint[i] = try_joint_gaussian(p, i);
	}
}

/*
 * The other composition over a unit's L groups (docs/guides/privacy-units.md): the groups' sums form a
 * vector that one unit changes in at most L coordinates by at most the bound each, i.e. by at most
 * sqrt(L) * bound in l2 norm; independent Gaussian noise of one sigma on every coordinate is
 * (epsilon, delta)-DP for that vector exactly when the one-dimensional Gaussian is for that l2
 * sensitivity (Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy",
 * Theorem 8, which is stated for any dimension).  So the analytic Gaussian at the call's full
 * (epsilon, delta) and sensitivity sqrt(L) * bound is an alternative to any mechanism at
 * (epsilon / L, delta / L): used when the call asked for auto or the analytic Gaussian and it has
 * the smaller expected loss.  The mixtures and the other mechanisms are calibrated for one
 * dimension only and are not candidates for it.
 */
static bool
try_joint_gaussian(ScalarParams *p, int i)
{
	dpagg_calibration *a = &p->cal[i];
	dpagg_calibration b;
	dpagg_request req;
	double		eps = p->kind == DP_AVG ? p->epsilon / 2 : p->epsilon;
	double		delta = p->kind == DP_AVG ? p->delta / 2 : p->delta;
	double		sens = (p->kind == DP_AVG && i == 1) ? 1.0 : p->kind == DP_COUNT ? p->upper : p->bound;
	bool		l1;

	if (!(delta > 0) ||
		(pg_strncasecmp(a->requested, "auto", 4) != 0 &&
		 pg_strcasecmp(a->requested, "analytic_gaussian") != 0))
		return false;
	/*
	 * The release grid (release.cpp) moves each of the L coordinates by at most g <= 2^-31 S,
	 * S the calibrated sensitivity: sqrt(L) (bound + g) in l2.  The core's allowance covers one
	 * coordinate's g; the factor (1 + sqrt(L) 2^-30) covers sqrt(L) of them.
	 */
	sens = nextafter(sqrt((double) p->max_groups) * sens *
					 (1.0 + sqrt((double) p->max_groups) * 0x1p-30), INFINITY);
	req = dpagg_scalar_request(eps, delta, sens, false);
	dpagg_calibrate_cached("analytic_gaussian", &req, &b);
	l1 = strstr(a->requested, "objective=l1") != NULL;
	if (l1 ? !(b.l1 < a->l1) : !(b.l2 < a->l2))
		return false;
	*a = b;
	return true;
}

/*
 * For dp_explain (explain.c): the calibrations a per-unit call with these parameters uses, as
 * dpagg_scalar_site_params would make them; returns their number (2 for dp_avg).
 */
int
dpagg_unit_calibrations(int site_kind, double epsilon, double delta, double lower, double upper,
						text *mechanism, int L, int C, bool integer_values, dpagg_calibration *cal,
						double *sensitivity, bool *joint)
{
	ScalarParams p;

	memset(&p, 0, sizeof(p));
	p.kind = base_kind(site_kind);
	p.epsilon = epsilon;
	p.delta = delta;
	p.max_groups = Max(L, 1);
	p.max_rows = C;
	set_bounds(&p, lower, upper);
	p.integer_sum = integer_sum_rule(&p, integer_values);
	dpagg_mechanism_spec(mechanism, p.mechanism, sizeof(p.mechanism));
	calibrate_site(&p);
	cal[0] = p.cal[0];
	cal[1] = p.cal[1];
	joint[0] = p.joint[0];
	joint[1] = p.joint[1];
	*sensitivity = p.kind == DP_COUNT ? p.upper : p.bound;
	return p.kind == DP_AVG ? 2 : 1;
}

/* ------------------------------------------------------------------------------------------
 * Transition functions.
 */

/* Refuse window use and direct calls; return the aggregate memory context. */
MemoryContext
dpagg_aggregate_context(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext cxt;
	int			how = AggCheckCallContext(fcinfo, &cxt);

	if (how == AGG_CONTEXT_WINDOW)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot be used as a window function", name),
				 errdetail("Each window frame would be a separate release of the same rows."),
				 errhint("Aggregate with GROUP BY instead.")));
	if (how != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg support functions can only be called by dpagg's aggregates")));
	/* GROUPING SETS, ROLLUP and CUBE are allowed: each grouping set is charged as a release of
	 * its own (ledger/charge.c). */
	return cxt;
}

/* An empty state of a kind, in place. */
static DpState *
init_state(DpState *st, int kind)
{
	memset(st, 0, sizeof(DpState));
	SET_VARSIZE(st, sizeof(DpState));
	st->version = DPAGG_STATE_VERSION;
	st->kind = (uint8) kind;
	return st;
}

DpState *
dpagg_new_state(MemoryContext cxt, int kind)
{
	return init_state(MemoryContextAlloc(cxt, sizeof(DpState)), kind);
}

/*
 * The first call of a group (no state yet) and everything unusual: refuse window use, direct
 * calls and aggregates that are not dpagg's own, and prepare the site if the ExecutorStart hook
 * did not.  Called out of line (the transition functions' _first paths, dp_count's included), so
 * that the per-row path stays small.
 */
static void
first_row(FunctionCallInfo fcinfo, int kind)
{
	(void) dpagg_aggregate_context(fcinfo, dpagg_kind_name(kind));
	(void) dpagg_site_of_trans(fcinfo, kind);
	/* Our aggregates have no initial state: a state before the first row is not ours. */
	if (!PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
}

/* ... and make the group's state. */
pg_noinline DpState *
dpagg_transition_state(FunctionCallInfo fcinfo, int kind)
{
	first_row(fcinfo, kind);
	/*
	 * A new group's state is made in the call's short-lived memory: PostgreSQL copies a new
	 * by-reference transition value into the aggregate's context itself (ExecAggTransReparent),
	 * so allocating it there too would leave a dead copy per group.
	 */
	return dpagg_new_state(CurrentMemoryContext, kind);
}

static inline int64
value_as_int64(FunctionCallInfo fcinfo, int argno, ValueType vt)
{
	Datum		d = PG_GETARG_DATUM(argno);

	switch (vt)
	{
		case VT_INT2:
			return DatumGetInt16(d);
		case VT_INT4:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/*
 * One row of each aggregate, given the group's state and the site's parameters.
 */
/* dp_sum's quanta of the row's (non-NULL) value. */
static pg_attribute_always_inline int64
sum_quanta(FunctionCallInfo fcinfo, const ScalarParams *p, ValueType vt)
{
	if (IS_INT_TYPE(vt) && likely(p->int_path))
		return dpagg_quantize_int(value_as_int64(fcinfo, 1, vt), &p->iq);
	return dpagg_quantize(value_as_double(fcinfo, 1, vt), p->lower, p->upper, p->inv_quantum);
}

static pg_attribute_always_inline Datum
sum_row(FunctionCallInfo fcinfo, DpState *st, const ScalarParams *p, ValueType vt)
{
	if (likely(!PG_ARGISNULL(1)))
	{
		st->count++;
		add_quanta(st, sum_quanta(fcinfo, p, vt));
	}
	PG_RETURN_POINTER(st);
}

static pg_attribute_always_inline Datum
avg_row(FunctionCallInfo fcinfo, DpState *st, const ScalarParams *p, ValueType vt)
{
	if (likely(!PG_ARGISNULL(1)))
	{
		st->count++;
		if (IS_INT_TYPE(vt) && likely(p->int_path))
			add_quanta(st, dpagg_quantize_int(value_as_int64(fcinfo, 1, vt), &p->iq));	/* x - m */
		else
		{
			/* Centre on the midpoint m: the sum of (x - m) has sensitivity (upper - lower)/2. */
			double		x = dpagg_clamp(value_as_double(fcinfo, 1, vt), p->lower, p->upper);

			add_quanta(st, dpagg_quantize(x - p->mid, -p->bound, p->bound, p->inv_quantum));
		}
	}
	PG_RETURN_POINTER(st);
}

static inline const ScalarParams *
site_params(FunctionCallInfo fcinfo)
{
	return (const ScalarParams *) ((DpSite *) fcinfo->flinfo->fn_extra)->params;
}

/*
 * One transition function per aggregate and value type, so the type dispatch is resolved at
 * compile time.  Per row only the hot path runs: the site is prepared (only dpagg writes this
 * fn_extra, and only once the site has passed every check) and the group has a state (made by
 * dpagg_transition_state, which refuses anything that is not dpagg's own aggregate).  Anything
 * else goes, by a tail call, to NAME_first, out of line, so that the per-row path calls nothing
 * and needs no stack frame.
 */
#define DPAGG_TRANS(name, row, kind, vt) \
	static pg_noinline Datum \
	name##_first(FunctionCallInfo fcinfo) \
	{ \
		DpState    *st = dpagg_transition_state(fcinfo, kind); \
		return row(fcinfo, st, site_params(fcinfo), vt); \
	} \
	PG_FUNCTION_INFO_V1(name); \
	Datum \
	name(PG_FUNCTION_ARGS) \
	{ \
		DpSite	   *site = (DpSite *) fcinfo->flinfo->fn_extra; \
		if (unlikely(site == NULL || PG_ARGISNULL(0))) \
			return name##_first(fcinfo); \
		return row(fcinfo, (DpState *) PG_GETARG_POINTER(0), \
				   (const ScalarParams *) site->params, vt); \
	}
DPAGG_TRANS(dpagg_sum_trans_int2, sum_row, DP_SUM, VT_INT2)
DPAGG_TRANS(dpagg_sum_trans_int4, sum_row, DP_SUM, VT_INT4)
DPAGG_TRANS(dpagg_sum_trans_int8, sum_row, DP_SUM, VT_INT8)
DPAGG_TRANS(dpagg_sum_trans_float4, sum_row, DP_SUM, VT_FLOAT4)
DPAGG_TRANS(dpagg_sum_trans_float8, sum_row, DP_SUM, VT_FLOAT8)
DPAGG_TRANS(dpagg_sum_trans_numeric, sum_row, DP_SUM, VT_NUMERIC)
DPAGG_TRANS(dpagg_avg_trans_int2, avg_row, DP_AVG, VT_INT2)
DPAGG_TRANS(dpagg_avg_trans_int4, avg_row, DP_AVG, VT_INT4)
DPAGG_TRANS(dpagg_avg_trans_int8, avg_row, DP_AVG, VT_INT8)
DPAGG_TRANS(dpagg_avg_trans_float4, avg_row, DP_AVG, VT_FLOAT4)
DPAGG_TRANS(dpagg_avg_trans_float8, avg_row, DP_AVG, VT_FLOAT8)
DPAGG_TRANS(dpagg_avg_trans_numeric, avg_row, DP_AVG, VT_NUMERIC)

/*
 * dpagg_sum_inline: dp_sum with its state in the group's hash entry (src/pg/aggregates/inline_sum.c, which
 * puts it in place of dp_sum in a plan, and only where the state never leaves this process).
 *
 * The state is a bigint datum.  Odd: the exact sum s of the group's quanta, inline, as 2s + 1
 * (|s| < 2^62).  Even: a pointer to a full DpState in the aggregate's memory, made the first time
 * the sum would leave that range (palloc'd memory is 8-byte aligned).  One row's quanta are at
 * most 2^53 in size, so the inline form holds at least 2^9 rows at the bound, and every group of
 * a typical GROUP BY: no pointer to follow, nothing to allocate per group.  The sum is the same
 * exact integer either way.  Like dp_count's, the state has no "released" mark: see dp_count.
 */
static pg_noinline Datum
inline_sum_spill(FunctionCallInfo fcinfo, int64 v, int64 q)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, "dp_sum");
	DpState    *st = dpagg_new_state(cxt, DP_SUM);

	state_set_sum(st, (__int128) (v >> 1) + q);
	PG_RETURN_POINTER(st);
}

static pg_attribute_always_inline Datum
inline_sum_row(FunctionCallInfo fcinfo, int64 v, const ScalarParams *p, ValueType vt)
{
	int64		q,
				out;

	if (unlikely(PG_ARGISNULL(1)))
		PG_RETURN_INT64(v);
	q = sum_quanta(fcinfo, p, vt);
	if (likely(v & 1))
	{
		/* 2q: |q| <= 2^53, no overflow; an odd plus an even number stays odd */
		if (likely(!pg_add_s64_overflow(v, 2 * q, &out)))
			PG_RETURN_INT64(out);
		return inline_sum_spill(fcinfo, v, q);
	}
	add_quanta((DpState *) DatumGetPointer(PG_GETARG_DATUM(0)), q);
	PG_RETURN_INT64(v);
}

/* The first call of a group: as first_row, and refuse a split aggregation, where a state would
 * leave the process that made it (inline_sum.c never plans one; no combine function either). */
static void
inline_sum_first(FunctionCallInfo fcinfo)
{
	first_row(fcinfo, DP_SUM);
	if (((AggState *) fcinfo->context)->aggsplit != AGGSPLIT_SIMPLE)
		elog(ERROR, "dpagg: dp_sum's inline state in a split aggregation");
}

#define DPAGG_INLINE_SUM_TRANS(name, vt) \
	static pg_noinline Datum \
	name##_first(FunctionCallInfo fcinfo) \
	{ \
		inline_sum_first(fcinfo); \
		return inline_sum_row(fcinfo, 1, site_params(fcinfo), vt); \
	} \
	PG_FUNCTION_INFO_V1(name); \
	Datum \
	name(PG_FUNCTION_ARGS) \
	{ \
		DpSite	   *site = (DpSite *) fcinfo->flinfo->fn_extra; \
		if (unlikely(site == NULL || PG_ARGISNULL(0))) \
			return name##_first(fcinfo); \
		return inline_sum_row(fcinfo, PG_GETARG_INT64(0), (const ScalarParams *) site->params, vt); \
	}
DPAGG_INLINE_SUM_TRANS(dpagg_sum_inline_trans_int2, VT_INT2)
DPAGG_INLINE_SUM_TRANS(dpagg_sum_inline_trans_int4, VT_INT4)
DPAGG_INLINE_SUM_TRANS(dpagg_sum_inline_trans_int8, VT_INT8)
DPAGG_INLINE_SUM_TRANS(dpagg_sum_inline_trans_float4, VT_FLOAT4)
DPAGG_INLINE_SUM_TRANS(dpagg_sum_inline_trans_float8, VT_FLOAT8)
DPAGG_INLINE_SUM_TRANS(dpagg_sum_inline_trans_numeric, VT_NUMERIC)

/*
 * dp_count(value, ...) counts non-NULL values (the value is the first argument);
 * dp_count(epsilon, delta [, mechanism]) counts rows.
 *
 * dp_count's state is its count, a bigint passed by value (as count(*)'s is): in a hashed
 * aggregation the number lives in the group's entry, with no separate state to allocate and
 * follow.  There is no "released" mark to keep in it, and none is needed: a state is finalized
 * again only when its Agg node is rescanned, which is a new execution, charged again (charge.c),
 * so fresh noise then is a release paid for.  Like the others, the first call of a group (a NULL
 * state: there is no initial value) prepares the site and refuses anything that is not dpagg's.
 */
#define DPAGG_COUNT_TRANS(name, counts_rows) \
	static pg_noinline Datum \
	name##_first(FunctionCallInfo fcinfo) \
	{ \
		first_row(fcinfo, DP_COUNT); \
		PG_RETURN_INT64((counts_rows) || !PG_ARGISNULL(1) ? 1 : 0); \
	} \
	PG_FUNCTION_INFO_V1(name); \
	Datum \
	name(PG_FUNCTION_ARGS) \
	{ \
		if (unlikely(fcinfo->flinfo->fn_extra == NULL || PG_ARGISNULL(0))) \
			return name##_first(fcinfo); \
		PG_RETURN_INT64(PG_GETARG_INT64(0) + ((counts_rows) || !PG_ARGISNULL(1) ? 1 : 0)); \
	}
DPAGG_COUNT_TRANS(dpagg_count_trans, false)
DPAGG_COUNT_TRANS(dpagg_count_rows_trans, true)

/* Combine two partial counts of the same group (strict: PostgreSQL handles NULL states). */
PG_FUNCTION_INFO_V1(dpagg_count_combine);
Datum
dpagg_count_combine(PG_FUNCTION_ARGS)
{
	int64		sum;

	(void) dpagg_aggregate_context(fcinfo, "dpagg_count_combine");
	(void) dpagg_site_of_trans(fcinfo, DP_COUNT);
	if (pg_add_s64_overflow(PG_GETARG_INT64(0), PG_GETARG_INT64(1), &sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("dp_count: count out of range")));
	PG_RETURN_INT64(sum);
}

/*
 * The per-unit kinds (bound.c): one row per unit and group, whose value is the unit's
 * contribution — its sum or average in the group (clamped here, like any value), or its number
 * of rows (or of non-NULL values) in the group: a unit counts once, or with at most max_rows of
 * its rows.  The selection counts the rows, i.e. the units.
 */
static pg_attribute_always_inline Datum
unit_count_row(FunctionCallInfo fcinfo, DpState *st, const ScalarParams *p, ValueType vt)
{
	if (!PG_ARGISNULL(1))
	{
		int64		n = PG_GETARG_INT64(1);

		if (n > 0)
			st->count += p->max_rows > 0 ? Min(n, (int64) p->max_rows) : 1;
	}
	PG_RETURN_POINTER(st);
}

static pg_attribute_always_inline Datum
select_row(FunctionCallInfo fcinfo, DpState *st, const void *p, ValueType vt)
{
	st->count++;
	PG_RETURN_POINTER(st);
}

#define DPAGG_UNIT_TRANS(name, row, kind, vt, ptype) \
	static pg_noinline Datum \
	name##_first(FunctionCallInfo fcinfo) \
	{ \
		DpState    *st = dpagg_transition_state(fcinfo, kind); \
		return row(fcinfo, st, (const ptype *) ((DpSite *) fcinfo->flinfo->fn_extra)->params, vt); \
	} \
	PG_FUNCTION_INFO_V1(name); \
	Datum \
	name(PG_FUNCTION_ARGS) \
	{ \
		DpSite	   *site = (DpSite *) fcinfo->flinfo->fn_extra; \
		if (unlikely(site == NULL || PG_ARGISNULL(0))) \
			return name##_first(fcinfo); \
		return row(fcinfo, (DpState *) PG_GETARG_POINTER(0), (const ptype *) site->params, vt); \
	}
DPAGG_UNIT_TRANS(dpagg_unit_sum_trans_float8, sum_row, DP_SITE_UNIT_SUM, VT_FLOAT8, ScalarParams)
DPAGG_UNIT_TRANS(dpagg_unit_sum_trans_numeric, sum_row, DP_SITE_UNIT_SUM, VT_NUMERIC, ScalarParams)
DPAGG_UNIT_TRANS(dpagg_unit_avg_trans_float8, avg_row, DP_SITE_UNIT_AVG, VT_FLOAT8, ScalarParams)
DPAGG_UNIT_TRANS(dpagg_unit_avg_trans_numeric, avg_row, DP_SITE_UNIT_AVG, VT_NUMERIC, ScalarParams)
DPAGG_UNIT_TRANS(dpagg_unit_count_trans, unit_count_row, DP_SITE_UNIT_COUNT, VT_INT8, ScalarParams)
DPAGG_UNIT_TRANS(dpagg_unit_select_trans, select_row, DP_SITE_SELECT, VT_NONE, void)

bool
dpagg_state_kind_valid(int kind)
{
	/* the kinds whose state is a DpState (dp_sum_vector's, the quantiles' and the variances' are
	 * their own `internal` states) */
	return (kind >= DP_SUM && kind <= DP_AVG) || (kind >= DP_SITE_UNIT_SUM && kind <= DP_SITE_SELECT) ||
		DPAGG_KIND_IS_MERGE(kind);
}

static void
check_state_kind(const DpState *st, int kind)
{
	if (st->version != DPAGG_STATE_VERSION || st->kind != kind)
		elog(ERROR, "dpagg: state of the wrong kind");
}

/* Combine two partial states of the same group (strict: PostgreSQL handles NULL states).  The
 * parameters are the call site's, the same for both. */
PG_FUNCTION_INFO_V1(dpagg_combine);
Datum
dpagg_combine(PG_FUNCTION_ARGS)
{
	DpState    *a = (DpState *) PG_GETARG_POINTER(0);
	DpState    *b = (DpState *) PG_GETARG_POINTER(1);

	(void) dpagg_aggregate_context(fcinfo, "dpagg_combine");
	(void) dpagg_site_of_trans(fcinfo, a->kind);
	check_state_kind(a, a->kind);
	check_state_kind(b, a->kind);
	a->count += b->count;
	state_set_sum(a, state_sum(a) + state_sum(b));
	PG_RETURN_POINTER(a);
}

/* ------------------------------------------------------------------------------------------
 * Final functions: the only places where noise is added.
 */
static DpState *
final_state(FunctionCallInfo fcinfo, int kind, DpSite **site_out, DpState *scratch)
{
	DpSite	   *site;

	(void) dpagg_aggregate_context(fcinfo, dpagg_kind_name(kind));
	site = dpagg_site_of_final(fcinfo, kind);
	*site_out = site;
	if (kind == DP_COUNT)
	{
		/* dp_count's state is the count (by value): a DpState for the shared release code, in
		 * the caller's scratch space, unreleased. */
		DpState    *st = init_state(scratch, kind);

		st->count = PG_ARGISNULL(0) ? 0 : PG_GETARG_INT64(0);
		if (st->count < 0)
			elog(ERROR, "dpagg: a negative count");
		return st;
	}
	if (!PG_ARGISNULL(0))
	{
		DpState    *st = (DpState *) PG_GETARG_POINTER(0);

		check_state_kind(st, kind);
		return st;
	}
	/* An empty group: the transition function never ran; the answer is a noisy 0. */
	return dpagg_new_state(CurrentMemoryContext, kind);
}

/*
 * The start of every final function of the scalar kinds: the group's state and the site's
 * parameters, and the release charged (durably; ledger/charge.c) unless this state was released
 * already.  Nothing random happens before the charge is taken.
 */
static DpState *
final_begin(FunctionCallInfo fcinfo, int kind, ScalarParams **p, DpState *scratch)
{
	DpSite	   *site;
	DpState    *st = final_state(fcinfo, kind, &site, scratch);

	*p = (ScalarParams *) site->params;
	if (!st->released)
		dpagg_site_charge(site);	/* normally charged already, before the first row */
	return st;
}

/* Noise for one calibrated part of a release (after the release has been charged).  An answer
 * beyond what the release's grid can represent is refused as bad input, 22023 (release.cpp). */
double
dpagg_draw(const dpagg_release_plan *plan, __int128 quanta)
{
	dpagg_error err;
	double		out;

	if (dpagg_release_planned(plan, quanta, &out, &err) != DPAGG_OK)
		dpagg_report(&err);
	return out;
}

/*
 * A state is released at most once: if the executor finalizes the same state again (a rescan of
 * a hash aggregate that keeps its table), the value already released is returned, never fresh
 * noise.  That rescan is a new execution and is charged again (charge.c), so this is defence in
 * depth; dp_count, whose state is its count by value, has no room for the mark and draws fresh
 * noise then, paid for by that charge.
 */
static double
released_value(const DpState *st)
{
	double		v;

	memcpy(&v, &st->sum_lo, sizeof(v));
	return v;
}

#define REMEMBER_RELEASE(st, v) \
	do { double v_ = (v); memcpy(&(st)->sum_lo, &v_, sizeof(v_)); (st)->sum_hi = 0; (st)->released = 1; } while (0)

/*
 * Every final function: calibrate, charge the release (durably; ledger/charge.c), then draw the noise.
 * Nothing random happens before the charge is taken.  The parameters charged and the parameters
 * released under are the same object: the call site's.
 */
/* The final function of one kind: the shared body with the kind's identity. */
#define DPAGG_FINAL(name, body, kind) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return body(fcinfo, kind); }

/*
 * The report forms keep the whole row's numbers in the released state (value, low end, high end;
 * released = 2), so that a re-finalized state returns the same row.
 */
#define REMEMBER_REPORT(st, v, lo, hi) \
	do { double v_ = (v), l_ = (lo), h_ = (hi); memcpy(&(st)->sum_lo, &v_, 8); \
		 memcpy(&(st)->sum_hi, &l_, 8); memcpy(&(st)->count, &h_, 8); (st)->released = 2; } while (0)

static Datum
report_row(const ScalarParams *p, const DpState *st)
{
	double		v,
				lo,
				hi;
	const char *mech = p->cal[0].spec;

	/* Only a state released by a report final holds the interval (REMEMBER_REPORT); a plain
	 * final keeps the count there.  dpagg's aggregates never share states (READ_WRITE finals,
	 * checked in site.c), so this cannot happen: refuse rather than read a count. */
	if (st->released != 2)
		elog(ERROR, "dpagg: a report of a state released without its interval");
	memcpy(&v, &st->sum_lo, 8);
	memcpy(&lo, &st->sum_hi, 8);
	memcpy(&hi, &st->count, 8);
	if (p->kind == DP_AVG && strcmp(p->cal[0].spec, p->cal[1].spec) != 0)
		mech = psprintf("%s / %s", p->cal[0].spec, p->cal[1].spec);
	return dpagg_report_datum(p->report_desc, v, false, lo, hi, p->confidence, mech, p->epsilon,
							  p->delta, p->cal[0].scale);
}

Datum
dpagg_report_datum(TupleDesc desc, double value, bool value_null, double lo, double hi,
				   double confidence, const char *mechanism, double epsilon, double delta,
				   double noise_scale)
{
	Datum		values[8];
	bool		nulls[8] = {false, false, false, false, false, false, false, false};

	values[0] = Float8GetDatum(value);
	nulls[0] = value_null;
	values[1] = Float8GetDatum(lo);
	values[2] = Float8GetDatum(hi);
	values[3] = Float8GetDatum(confidence);
	values[4] = CStringGetTextDatum(mechanism);
	values[5] = Float8GetDatum(epsilon);
	values[6] = Float8GetDatum(delta);
	values[7] = Float8GetDatum(noise_scale);
	return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

/* x moved outward past the rounding of the arithmetic that made it from exact ends: err is a
 * bound on the magnitudes involved, 2^-51 of which covers a few roundings. */
static double
widen(double x, double err, int dir)
{
	double		m = err * 0x1p-51;

	return dir < 0 ? x - m : x + m;
}

static double
release_sum(FunctionCallInfo fcinfo, int kind, DpState **st_out, ScalarParams **p_out)
{
	DpState    *st = final_begin(fcinfo, kind, p_out, NULL);

	*st_out = st;
	return st->released ? released_value(st) : dpagg_draw(&(*p_out)->plan[0], state_sum(st));
}

static Datum
sum_final(FunctionCallInfo fcinfo, int kind)
{
	DpState    *st;
	ScalarParams *p;
	double		v = release_sum(fcinfo, kind, &st, &p);

	if (!st->released)
		REMEMBER_RELEASE(st, v);
	PG_RETURN_FLOAT8(v);
}

DPAGG_FINAL(dpagg_sum_final, sum_final, DP_SUM)

/* dpagg_sum_inline's final (the state above): the same release as dp_sum's, with no mark. */
PG_FUNCTION_INFO_V1(dpagg_sum_inline_final);
Datum
dpagg_sum_inline_final(PG_FUNCTION_ARGS)
{
	DpState		scratch;
	DpState    *st = init_state(&scratch, DP_SUM);
	DpSite	   *site;
	int64		v;

	(void) dpagg_aggregate_context(fcinfo, "dp_sum");
	site = dpagg_site_of_final(fcinfo, DP_SUM);
	if (!PG_ARGISNULL(0))
	{
		v = PG_GETARG_INT64(0);
		if (v & 1)
			state_set_sum(st, (__int128) (v >> 1));
		else
		{
			st = (DpState *) DatumGetPointer(PG_GETARG_DATUM(0));
			check_state_kind(st, DP_SUM);
		}
	}
	dpagg_site_charge(site);	/* normally charged already, before the first row */
	PG_RETURN_FLOAT8(dpagg_draw(&((const ScalarParams *) site->params)->plan[0], state_sum(st)));
}

DPAGG_FINAL(dpagg_merge_sum_final, sum_final, DP_SITE_MERGE_SUM)

DPAGG_FINAL(dpagg_unit_sum_final, sum_final, DP_SITE_UNIT_SUM)

/* dp_sum_report: |v - a| <= w with probability >= confidence (the half-width includes the
 * release grid, interval.h); the ends are moved out by the rounding of v -+ w. */
static Datum
sum_report_final(FunctionCallInfo fcinfo, int kind)
{
	DpState    *st;
	ScalarParams *p;
	double		v = release_sum(fcinfo, kind, &st, &p);

	if (!st->released)
	{
		double		w = p->halfwidth[0];

		REMEMBER_REPORT(st, v, widen(v - w, fabs(v) + w, -1), widen(v + w, fabs(v) + w, 1));
	}
	PG_RETURN_DATUM(report_row(p, st));
}

DPAGG_FINAL(dpagg_sum_report_final, sum_report_final, DP_SUM)

DPAGG_FINAL(dpagg_unit_sum_report_final, sum_report_final, DP_SITE_UNIT_SUM)

DPAGG_FINAL(dpagg_merge_sum_report_final, sum_report_final, DP_SITE_MERGE_SUM)

/* A noisy count, rounded and never negative (post-processing). */
static double
noisy_count(const DpState *st, const dpagg_release_plan *plan)
{
	double		c = rint(dpagg_draw(plan, (__int128) st->count));

	return c < 0 ? 0 : c;
}

static double
release_count(FunctionCallInfo fcinfo, int kind, DpState **st_out, ScalarParams **p_out,
			  DpState *scratch)
{
	DpState    *st = final_begin(fcinfo, kind, p_out, scratch);
	double		c;

	*st_out = st;
	if (st->released)
		return released_value(st);
	c = noisy_count(st, &(*p_out)->plan[0]);
	return c >= 9.2e18 ? 9.2e18 : c;
}

static Datum
count_final(FunctionCallInfo fcinfo, int kind)
{
	DpState    *st;
	ScalarParams *p;
	DpState		scratch;		/* dp_count's state, read from its bigint */
	double		c = release_count(fcinfo, kind, &st, &p, &scratch);

	if (!st->released)
		REMEMBER_RELEASE(st, c);
	PG_RETURN_INT64((int64) c);
}

DPAGG_FINAL(dpagg_count_final, count_final, DP_COUNT)

DPAGG_FINAL(dpagg_merge_count_final, count_final, DP_SITE_MERGE_COUNT)

DPAGG_FINAL(dpagg_unit_count_final, count_final, DP_SITE_UNIT_COUNT)

/*
 * dp_count_report: with |X| <= w (X the noise after the grid), the count before clamping at 0 is
 * n + rint(X), within W = ceil(w) of n; a released 0 means n + X < 1/2, so n <= W.  Either way
 * n lies in [max(0, v - W), v + W]: whole numbers, exact.
 */
static Datum
count_report_final(FunctionCallInfo fcinfo, int kind)
{
	DpState    *st;
	ScalarParams *p;
	DpState		scratch;		/* dp_count's state, read from its bigint */
	double		c = release_count(fcinfo, kind, &st, &p, &scratch);

	if (!st->released)
	{
		double		W = ceil(p->halfwidth[0]);

		REMEMBER_REPORT(st, c, fmax(0, c - W), c + W);
	}
	PG_RETURN_DATUM(report_row(p, st));
}

DPAGG_FINAL(dpagg_count_report_final, count_report_final, DP_COUNT)

DPAGG_FINAL(dpagg_unit_count_report_final, count_report_final, DP_SITE_UNIT_COUNT)

DPAGG_FINAL(dpagg_merge_count_report_final, count_report_final, DP_SITE_MERGE_COUNT)

/*
 * dp_avg: half of epsilon and of delta for the sum of the centred values, half for the count
 * (basic composition: the two releases together are (epsilon, delta)-DP, and are charged as one
 * release of (epsilon, delta)).  The answer is m + S / max(C, 1), clamped to [lower, upper]; all
 * of it is post-processing.
 */
static void
release_avg(FunctionCallInfo fcinfo, int kind, DpState **st_out, ScalarParams **p_out,
			double *s, double *c)
{
	DpState    *st = final_begin(fcinfo, kind, p_out, NULL);

	*st_out = st;
	if (st->released)
		return;
	*s = dpagg_draw(&(*p_out)->plan[0], state_sum(st));
	*c = noisy_count(st, &(*p_out)->plan[1]);
}

static double
avg_of(const ScalarParams *p, double s, double c)
{
	return fmin(p->upper, fmax(p->lower, p->mid + s / (c < 1 ? 1 : c)));
}

static Datum
avg_final(FunctionCallInfo fcinfo, int kind)
{
	DpState    *st;
	ScalarParams *p;
	double		s = 0,
				c = 0,
				avg;

	release_avg(fcinfo, kind, &st, &p, &s, &c);
	if (st->released)
		PG_RETURN_FLOAT8(released_value(st));
	avg = avg_of(p, s, c);
	REMEMBER_RELEASE(st, avg);
	PG_RETURN_FLOAT8(avg);
}

DPAGG_FINAL(dpagg_avg_final, avg_final, DP_AVG)

DPAGG_FINAL(dpagg_merge_avg_final, avg_final, DP_SITE_MERGE_AVG)

DPAGG_FINAL(dpagg_unit_avg_final, avg_final, DP_SITE_UNIT_AVG)

/*
 * dp_avg_report (docs/intervals.md): with both parts inside their half-widths, the true centred
 * sum S0 is in [s - ws, s + ws] and the true count N0 (>= 1 for a group with rows) in
 * [max(1, c - Wc), c + Wc]; the true average m + S0/N0 then lies between the smallest and largest
 * ratio over that box (at a corner), and in [lower, upper].  Conservative: the clamping of the
 * values is not part of it, and for an empty group the interval says nothing.
 */
static Datum
avg_report_final(FunctionCallInfo fcinfo, int kind)
{
	DpState    *st;
	ScalarParams *p;
	double		s = 0,
				c = 0;

	release_avg(fcinfo, kind, &st, &p, &s, &c);
	if (!st->released)
	{
		double		ws = p->halfwidth[0],
					Wc = ceil(p->halfwidth[1]),
					nmin = fmax(1, c - Wc),
					nmax = fmax(1, c + Wc),
					slo = s - ws,
					shi = s + ws,
					rlo = slo >= 0 ? slo / nmax : slo / nmin,
					rhi = shi >= 0 ? shi / nmin : shi / nmax,
					lo = widen(p->mid + rlo, fabs(p->mid) + fabs(rlo) + fabs(s) + ws, -1),
					hi = widen(p->mid + rhi, fabs(p->mid) + fabs(rhi) + fabs(s) + ws, 1);

		REMEMBER_REPORT(st, avg_of(p, s, c), fmax(p->lower, fmin(p->upper, lo)),
						fmin(p->upper, fmax(p->lower, hi)));
	}
	PG_RETURN_DATUM(report_row(p, st));
}

DPAGG_FINAL(dpagg_avg_report_final, avg_report_final, DP_AVG)

DPAGG_FINAL(dpagg_unit_avg_report_final, avg_report_final, DP_SITE_UNIT_AVG)

DPAGG_FINAL(dpagg_merge_avg_report_final, avg_report_final, DP_SITE_MERGE_AVG)

/*
 * Group selection (selection.c prepares the plan): keep the group or not, from its number of
 * units, with a fresh draw after the charge.  Like a value, a decision is made once per state.
 */
PG_FUNCTION_INFO_V1(dpagg_unit_select_final);
Datum
dpagg_unit_select_final(PG_FUNCTION_ARGS)
{
	DpSite	   *site;
	DpState    *st = final_state(fcinfo, DP_SITE_SELECT, &site, NULL);
	bool		keep;

	if (st->released)
		PG_RETURN_BOOL(released_value(st) != 0);
	dpagg_site_charge(site);	/* normally charged already, before the first row */
	keep = dpagg_select_keep(site, st->count);
	REMEMBER_RELEASE(st, keep ? 1.0 : 0.0);
	PG_RETURN_BOOL(keep);
}

/* ------------------------------------------------------------------------------------------
 * dpagg_state I/O.  Text form: kind:version:count:sum_hi:sum_lo (the data only; a state read
 * from outside is never released).
 */
PG_FUNCTION_INFO_V1(dpagg_state_out);
Datum
dpagg_state_out(PG_FUNCTION_ARGS)
{
	DpState    *st = (DpState *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_CSTRING(psprintf("%d:%d:" INT64_FORMAT ":" INT64_FORMAT ":" UINT64_FORMAT,
							   st->kind, st->version, st->count, st->sum_hi, st->sum_lo));
}

/* Validate a state read from outside. */
static void
check_state(DpState *st)
{
	if (st->version != DPAGG_STATE_VERSION || !dpagg_state_kind_valid(st->kind) || st->count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid dpagg_state")));
	st->released = 0;
}

PG_FUNCTION_INFO_V1(dpagg_state_in);
Datum
dpagg_state_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	DpState    *st = dpagg_new_state(CurrentMemoryContext, 0);
	int			kind,
				version,
				consumed = 0;
	long long	count,
				hi;
	unsigned long long lo;

	if (sscanf(s, "%d:%d:%lld:%lld:%llu%n", &kind, &version, &count, &hi, &lo, &consumed) < 5 ||
		consumed == 0 || s[consumed] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type dpagg_state")));
	st->kind = (uint8) kind;
	st->version = (uint8) version;
	st->count = count;
	st->sum_hi = hi;
	st->sum_lo = lo;
	check_state(st);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpagg_state_send);
Datum
dpagg_state_send(PG_FUNCTION_ARGS)
{
	DpState    *st = (DpState *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, st->version);
	pq_sendbyte(&buf, st->kind);
	pq_sendint64(&buf, st->count);
	pq_sendint64(&buf, st->sum_hi);
	pq_sendint64(&buf, (int64) st->sum_lo);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(dpagg_state_recv);
Datum
dpagg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	DpState    *st = dpagg_new_state(CurrentMemoryContext, 0);

	st->version = (uint8) pq_getmsgbyte(buf);
	st->kind = (uint8) pq_getmsgbyte(buf);
	st->count = pq_getmsgint64(buf);
	st->sum_hi = pq_getmsgint64(buf);
	st->sum_lo = (uint64) pq_getmsgint64(buf);
	check_state(st);
	PG_RETURN_POINTER(st);
}
