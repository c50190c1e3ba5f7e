/*
 * percentile.c — dp_percentile, dp_median and dp_percentiles: private quantiles
 * (src/core/quantile/quantile.h; the argument is docs/quantiles.md).
 *
 *   dp_percentile(value, p, epsilon, delta, lower, upper [, mechanism])  ->  double precision
 *   dp_median(value, epsilon, delta, lower, upper [, mechanism])         ->  double precision
 *   dp_percentiles(value, p double precision[], epsilon, delta, lower, upper [, mechanism])
 *                                                                        ->  double precision[]
 *   dp_percentile(value, p, epsilon, delta), dp_median(value, epsilon, delta),
 *   dp_percentiles(value, ps, epsilon, delta)                            without bounds
 *
 * The state of a group counts its values in DPAGG_QUANTILE_BINS equal bins of [lower, upper]
 * (values outside go to the end bins; NaN, which PostgreSQL sorts above every number, to the
 * top one; NULLs are skipped): while a group has few values it keeps their bins in a list (2
 * bytes per value), past QSPARSE_MAX values the 1 024 counts (8 KiB), so no group holds more
 * than about 8 KiB however many rows it has.  The final function asks the core for a release
 * (permute-and-flip over the bins, sampled exactly, then a uniform point of the chosen bin),
 * after the charge.  Pure epsilon-DP: the delta argument is accepted and charged 0.
 *
 * The parameters (p or the ps, epsilon, delta, the bounds, the mechanism) belong to the call
 * site and are read once per query (site.c).  The state is `internal`; parallel plans move it
 * through the serialize/deserialize functions (counts only).
 *
 * Without bounds (docs/automatic_bounds.md, "Quantiles") the state counts the values in the
 * DPAGG_BOUNDS_CELLS cells of the grid of magnitudes instead (a rule of the value alone, so no
 * bounds are needed before the rows); the final function finds the range from a noisy histogram
 * of magnitudes at half of epsilon and releases over the range's cells with the rest (NULL when
 * no magnitude holds enough values).
 *
 * Over a private relation the per-unit rewrite (query/bound.c) calls the per-unit forms
 * (dpagg_unit_percentile, dpagg_unit_median, dpagg_unit_percentiles) over one value per unit and
 * group, the unit's average there (as dp_avg's per-unit form): the quantile is that of the units'
 * averages, and each of a unit's at most L groups releases at epsilon / L (docs/quantiles.md,
 * "Per privacy unit").
 *
 * On Citus (citus/citus.c; docs/quantiles.md, "On Citus") the state is split by bin: the workers
 * group each group's rows by dpagg_quantile_bin(x, lower, upper) (without bounds,
 * dpagg_quantile_cell(x)) and count them with built-in count(), and dpagg_merge_percentile (or
 * _median, _percentiles; kind DP_SITE_MERGE_PERCENTILE) adds those counts into this file's state
 * on the coordinator, where its final function releases as the call itself does: the same site,
 * charge, state and answer.
 */
#include "aggregates/state.h"
#include "aggregates/auto_bounds.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "bounds/dpagg_bounds.h"
#include "quantile/dpagg_quantile.h"

#define QSTATE_VERSION 2
#define QNAME "dp_percentile"
/* values kept as 2-byte bins before the 8-byte counts: the same memory either way (8 KiB for the
 * 1 024 bins with bounds, 48 KiB for the 6 081 cells without) */
#define QSPARSE_MAX(nbins) ((nbins) * 4)

extern Datum dpagg_percentile_final(PG_FUNCTION_ARGS);
extern Datum dpagg_percentiles_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_percentile_final(PG_FUNCTION_ARGS);
extern Datum dpagg_unit_percentiles_final(PG_FUNCTION_ARGS);
extern Datum dpagg_auto_percentile_final(PG_FUNCTION_ARGS);
extern Datum dpagg_auto_percentiles_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_percentile_final(PG_FUNCTION_ARGS);
extern Datum dpagg_merge_percentiles_final(PG_FUNCTION_ARGS);

typedef struct QState
{
	int32		version;
	int32		nsparse;		/* bins in sparse[], or -1 once dense */
	int32		cap;			/* sparse[]'s allocated length */
	int32		nbins;			/* DPAGG_QUANTILE_BINS, or DPAGG_BOUNDS_CELLS without bounds */
	int64		n;				/* values counted */
	uint16	   *sparse;
	uint64	   *dense;			/* nbins counts, once dense */
	bool		released;
	bool		released_null;	/* without bounds: no bin reached the threshold */
	Datum		released_value; /* in the aggregate context, once released */
} QState;

typedef struct QParams
{
	bool		unit;			/* per unit (DP_SITE_UNIT_PERCENTILE) */
	bool		autob;			/* without bounds (DP_SITE_AUTO_PERCENTILE, or NULL bounds) */
	bool		merge;			/* over partial counts (DP_SITE_MERGE_PERCENTILE, Citus) */
	double		epsilon_bounds; /* without bounds: the histogram's share of epsilon */
	double		threshold;		/* ... the noisy count from which a bin counts */
	dpagg_calibration bounds_cal;	/* ... its noise */
	int			L;				/* per unit: the groups a unit contributes to at most; else 1 */
	double		group_epsilon;	/* each group's: epsilon / L (each quantile at that / k) */
	double		epsilon;
	double		delta;
	double		lower;
	double		upper;
	int			k;				/* quantiles asked (1 unless dp_percentiles) */
	bool		array;			/* dp_percentiles: answers as an array */
	double		ps[DPAGG_QUANTILE_MAX_K];
} QParams;

static void
bad(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", msg),
			 errhint("%s", hint)));
}

/* The name of a quantile call as the analyst wrote it (the ledger, dp_explain): dp_median has no
 * p, dp_percentiles an array of them. */
const char *
dpagg_percentile_form_name(Aggref *a, int kind)
{
	DpArgLayout lo;

	dpagg_arg_layout(a, kind, &lo);
	if (lo.quantile < 0)
		return "dp_median";
	return list_nth_oid(a->aggargtypes, lo.quantile) == FLOAT8ARRAYOID ? "dp_percentiles" : "dp_percentile";
}

/*
 * Where a call's parameters are read from: the call site's (site.c evaluates them once per query,
 * when it starts), or, on Citus while the query is planned (citus.c), the constants of the
 * analyst's own call; the same checks and errors either way (percentile_params).
 */
typedef struct QArgs
{
	DpSite	   *site;			/* or NULL: */
	Aggref	   *aggref;			/* the call, its parameters constants */
	const char *name;			/* the call's name (dpagg_percentile_form_name) */
} QArgs;

static Datum
qparam(const QArgs *qa, int i, bool *isnull)
{
	Node	   *e;

	if (qa->site != NULL)
		return dpagg_site_param(qa->site, i, isnull);
	e = eval_const_expressions(NULL, (Node *) list_nth_node(TargetEntry, qa->aggref->args, i)->expr);
	if (!IsA(e, Const))
		elog(ERROR, "dpagg: a quantile's parameter is not a constant");	/* citus.c checked it */
	*isnull = ((Const *) e)->constisnull;
	return ((Const *) e)->constvalue;
}

/* A float8 parameter, refused (22023) if NULL, as dpagg_param_float8 refuses it. */
static double
qparam_float8(const QArgs *qa, int i, const char *what)
{
	bool		isnull;
	Datum		d;

	if (qa->site != NULL)
		return dpagg_param_float8(qa->site, i, what, DP_SITE_PERCENTILE);
	d = qparam(qa, i, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must not be NULL", what, qa->name),
				 errhint("Pass a number.")));
	return DatumGetFloat8(d);
}

/*
 * Read and validate a call's parameters into p, and describe its charge (parts[0..*nparts - 1],
 * allocated in cxt).  Every refusal comes from the parameters alone, never from the data.
 */
static void
percentile_params(const QArgs *qa, int kind, QParams *p, MemoryContext cxt, DpChargePart *parts,
				  int *nparts)
{
	DpArgLayout lo;
	Aggref	   *argref = qa->site != NULL ? qa->site->argref : qa->aggref;
	dpagg_error err;

	dpagg_arg_layout(argref, kind, &lo);
	p->unit = kind == DP_SITE_UNIT_PERCENTILE;
	p->merge = kind == DP_SITE_MERGE_PERCENTILE;
	p->autob = kind == DP_SITE_AUTO_PERCENTILE;
	if (p->unit || p->merge)
	{
		bool		lower_null,
					upper_null;

		/* per unit and merged, NULL bounds are a call without them (query/bound.c and
		 * citus/citus.c pass them so) */
		(void) qparam(qa, lo.lower, &lower_null);
		(void) qparam(qa, lo.upper, &upper_null);
		p->autob = lower_null && upper_null;
	}
	p->L = 1;
	if (p->unit)
	{
		bool		isnull;
		Datum		d = qparam(qa, lo.max_groups, &isnull);

		p->L = isnull ? 0 : DatumGetInt32(d);
		if (p->L < 1)
			elog(ERROR, "dpagg: a per-unit aggregate without max_groups");
	}
	p->epsilon = qparam_float8(qa, lo.epsilon, "epsilon");
	p->delta = qparam_float8(qa, lo.delta, "delta");
	if (p->autob)
	{
		/* the range is found at the release; the quantile checks below see a stand-in */
		p->lower = 0;
		p->upper = 1;
	}
	else
	{
		p->lower = qparam_float8(qa, lo.lower, "lower");
		p->upper = qparam_float8(qa, lo.upper, "upper");
	}
	if (lo.quantile < 0)
	{
		p->k = 1;
		p->ps[0] = 0.5;			/* dp_median */
	}
	else if (list_nth_oid(argref->aggargtypes, lo.quantile) == FLOAT8ARRAYOID)
	{
		bool		isnull;
		Datum		d = qparam(qa, lo.quantile, &isnull);
		ArrayType  *arr;
		Datum	   *elems;
		bool	   *nulls;
		int			n,
					i;

		if (isnull)
			bad("p of dp_percentiles must not be NULL", "Pass an array of values in [0, 1], e.g. ARRAY[0.25, 0.5, 0.75].");
		arr = DatumGetArrayTypeP(d);
		if (ARR_NDIM(arr) > 1)
			bad("p of dp_percentiles must be a one-dimensional array", "Pass an array of values in [0, 1], e.g. ARRAY[0.25, 0.5, 0.75].");
		deconstruct_array(arr, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
						  &elems, &nulls, &n);
		if (n < 1 || n > DPAGG_QUANTILE_MAX_K)
			bad(psprintf("dp_percentiles takes 1 to %d quantiles, not %d", DPAGG_QUANTILE_MAX_K, n),
				"Pass an array of 1 to 64 values in [0, 1]; split a longer list over several calls (each one is charged).");
		for (i = 0; i < n; i++)
		{
			if (nulls[i])
				bad("p of dp_percentiles must not contain NULL", "Pass an array of values in [0, 1].");
			p->ps[i] = DatumGetFloat8(elems[i]);
		}
		p->k = n;
		p->array = true;
	}
	else
	{
		p->k = 1;
		p->ps[0] = qparam_float8(qa, lo.quantile, "p");
	}
	{
		/* The final function must be the one of the form the arguments are (an aggregate built
		 * by a superuser could pair dp_percentile's transition with dp_percentiles' final): 42501
		 * now, before the charge, not after it. */
		PGFunction	final = dpagg_aggregate_finalfn(argref->aggfnoid);

		if (final != (p->unit ? (p->array ? dpagg_unit_percentiles_final : dpagg_unit_percentile_final)
					  : p->merge ? (p->array ? dpagg_merge_percentiles_final : dpagg_merge_percentile_final)
					  : p->autob ? (p->array ? dpagg_auto_percentiles_final : dpagg_auto_percentile_final)
					  : (p->array ? dpagg_percentiles_final : dpagg_percentile_final)))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
	}
	if (lo.mechanism >= 0)
	{
		bool		isnull;
		Datum		d = qparam(qa, lo.mechanism, &isnull);
		char	   *m;

		/* per unit and merged, NULL is the analyst's omitted mechanism */
		if (isnull && !p->unit && !p->merge)
			bad("mechanism of dp_percentile must not be NULL",
				"Name 'permute_and_flip' (or 'auto', the same), or omit the argument.");
		m = isnull ? "auto" : TextDatumGetCString(d);
		if (strcmp(m, "auto") != 0 && strcmp(m, "permute_and_flip") != 0)
			bad(psprintf("dp_percentile has no mechanism %s", dpagg_quote_input(m)),
				"Quantiles are released by 'permute_and_flip' (or 'auto', the same); the noise mechanisms of dp_sum do not apply to them.");
	}
	if (!(p->delta >= 0 && p->delta < 1))
		bad("delta must lie in [0, 1)", "Quantiles spend no delta (permute-and-flip is pure epsilon-DP): pass 0.");
	if (dpagg_quantile_check(p->ps, p->k, p->epsilon, p->lower, p->upper, &err) != DPAGG_OK)
		dpagg_report(&err);
	/* Per unit, each of a unit's at most L groups at epsilon / L: the L compose to epsilon.
	 * Without bounds, half of a group's epsilon finds the range and the rest releases
	 * (docs/automatic_bounds.md, "Quantiles"). */
	p->group_epsilon = dpagg_share(p->epsilon, p->L);
	if (p->autob)
	{
		double		rest;

		dpagg_auto_histogram(p->group_epsilon, p->array ? "dp_percentiles" : "dp_percentile",
							 p->unit ? "the quantiles (per unit: of epsilon / L)" : "the quantiles",
							 &p->epsilon_bounds, &rest, &p->bounds_cal, &p->threshold);
		p->group_epsilon = rest;
	}
	if ((p->unit || p->autob) &&
		dpagg_quantile_check(p->ps, p->k, p->group_epsilon, p->lower, p->upper, &err) != DPAGG_OK)
		dpagg_report(&err);
	{
		/* Pure epsilon-DP: no delta is charged; under zCDP it is (epsilon^2 / 2)-zCDP (Bun &
		 * Steinke 2016, Proposition 1.4), per unit L groups of (epsilon / L)^2 / 2.  Without
		 * bounds, two parts: the histogram and the quantiles, each charged its half (the
		 * group's shares times L, at most the call's epsilon). */
		StringInfoData prefix,
					spec;
		int			room,
					i;

		/* the ledger's mechanism (127 bytes for all the parts): the unit and L, the histogram,
		 * which quantiles, or where their list would not fit, their number and range */
		initStringInfo(&prefix);
		if (p->unit)
			appendStringInfo(&prefix, "per unit %.20s, L=%d: ", dpagg_site_unit(qa->site, lo.unit), p->L);
		if (p->autob)
			appendStringInfo(&prefix, "bounds %s + ", p->bounds_cal.spec);
		room = 120 - prefix.len;
		initStringInfo(&spec);
		appendStringInfoString(&spec, "permute_and_flip(p=");
		for (i = 0; i < p->k; i++)
			appendStringInfo(&spec, "%s%.10g", i ? "," : "", p->ps[i]);
		appendStringInfoChar(&spec, ')');
		if (spec.len > room)
		{
			double		lo_p = p->ps[0],
						hi_p = p->ps[0];

			for (i = 1; i < p->k; i++)
			{
				lo_p = fmin(lo_p, p->ps[i]);
				hi_p = fmax(hi_p, p->ps[i]);
			}
			resetStringInfo(&spec);
			appendStringInfo(&spec, "permute_and_flip(%d quantiles, p from %.6g to %.6g)", p->k,
							 lo_p, hi_p);
		}
		if (p->autob)
		{
			/* the prefix's "bounds ... + " is the first part's name: the ledger joins the parts
			 * with " + " */
			prefix.len -= 3;
			prefix.data[prefix.len] = '\0';
			parts[0].spec = MemoryContextStrdup(cxt, prefix.data);
			parts[0].epsilon = p->L == 1 ? p->epsilon_bounds : nextafter(p->epsilon / 2, 0);
			parts[0].delta = 0;
			parts[0].rho = p->L * (p->epsilon_bounds * p->epsilon_bounds / 2);
			parts[1].spec = MemoryContextStrdup(cxt, spec.data);
			parts[1].epsilon = p->L == 1 ? p->group_epsilon : nextafter(p->epsilon - parts[0].epsilon, 0);
			parts[1].delta = 0;
			parts[1].rho = p->L * (p->group_epsilon * p->group_epsilon / 2);
			*nparts = 2;
		}
		else
		{
			parts[0].spec = MemoryContextStrdup(cxt, psprintf("%s%s", prefix.data, spec.data));
			parts[0].epsilon = p->epsilon;
			parts[0].delta = 0;
			parts[0].rho = p->L * (p->group_epsilon * p->group_epsilon / 2);
			*nparts = 1;
		}
	}
}

/* Read and validate the parameters of a call site (site.c calls this once per query, before any
 * row is read: a refusal never depends on the data). */
void *
dpagg_percentile_site_params(DpSite *site)
{
	QParams    *p = MemoryContextAllocZero(site->cxt, sizeof(QParams));
	QArgs		qa = {site, NULL, NULL};
	DpChargePart parts[2];
	int			nparts;

	site->name = dpagg_percentile_form_name(site->argref, site->kind);
	percentile_params(&qa, site->kind, p, site->cxt, parts, &nparts);
	dpagg_site_set_charge(site, p->epsilon, 0.0, parts, nparts);
	return p;
}

/*
 * On Citus (citus.c), while the query is planned: the analyst's call (dp_percentile, dp_median or
 * dp_percentiles, with or without bounds; its parameters constants) checked in the order and with
 * the errors of its release on one node, and its charge prechecked with the parts its merge will
 * charge (dpagg_charge_precheck), before any worker reads a row.
 */
void
dpagg_percentile_precheck(Aggref *a, int kind)
{
	QParams    *p = palloc0(sizeof(QParams));
	QArgs		qa = {NULL, a, dpagg_percentile_form_name(a, kind)};
	DpChargePart parts[2];
	int			nparts;

	percentile_params(&qa, kind, p, CurrentMemoryContext, parts, &nparts);
	dpagg_charge_precheck(qa.name, p->epsilon, 0.0, parts, nparts);
}

/* ---- the state ------------------------------------------------------------------------------- */

static QState *
qstate_new(MemoryContext cxt, int nbins)
{
	QState	   *st = MemoryContextAllocZero(cxt, sizeof(QState));

	st->version = QSTATE_VERSION;
	st->nbins = nbins;
	st->cap = 16;
	st->sparse = MemoryContextAlloc(cxt, sizeof(uint16) * st->cap);
	return st;
}

static void
check_qstate(const QState *st)
{
	if (st->version != QSTATE_VERSION)
		elog(ERROR, "dp_percentile: state of the wrong kind");
}

static void
densify(QState *st, MemoryContext cxt)
{
	int			i;

	st->dense = MemoryContextAllocZero(cxt, sizeof(uint64) * st->nbins);
	for (i = 0; i < st->nsparse; i++)
		st->dense[st->sparse[i]]++;
	pfree(st->sparse);
	st->sparse = NULL;
	st->nsparse = -1;
	st->cap = 0;
}

static inline void
add_bin(QState *st, int j, MemoryContext cxt)
{
	if (st->nsparse < 0)
		st->dense[j]++;
	else
	{
		if (st->nsparse == st->cap)
		{
			if (st->cap >= QSPARSE_MAX(st->nbins))
			{
				densify(st, cxt);
				st->dense[j]++;
				st->n++;
				return;
			}
			st->cap *= 2;
			st->sparse = repalloc(st->sparse, sizeof(uint16) * st->cap);
		}
		st->sparse[st->nsparse++] = (uint16) j;
	}
	st->n++;
}

static Datum
percentile_trans(FunctionCallInfo fcinfo, ValueType vt, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, QNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, kind);
	const QParams *p = (const QParams *) site->params;
	QState	   *st = PG_ARGISNULL(0) ? NULL : (QState *) PG_GETARG_POINTER(0);

	if (st == NULL)
		st = qstate_new(cxt, p->autob ? DPAGG_BOUNDS_CELLS : DPAGG_QUANTILE_BINS);
	if (!PG_ARGISNULL(1))
	{
		double		x = value_as_double(fcinfo, 1, vt);

		add_bin(st, p->autob ? dpagg_bounds_cell(x) : dpagg_quantile_bin(x, p->lower, p->upper), cxt);
	}
	PG_RETURN_POINTER(st);
}

#define DPAGG_Q_TRANS(fname, vt, kind) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return percentile_trans(fcinfo, vt, kind); }

DPAGG_Q_TRANS(dpagg_percentile_trans_int2, VT_INT2, DP_SITE_PERCENTILE)
DPAGG_Q_TRANS(dpagg_percentile_trans_int4, VT_INT4, DP_SITE_PERCENTILE)
DPAGG_Q_TRANS(dpagg_percentile_trans_int8, VT_INT8, DP_SITE_PERCENTILE)
DPAGG_Q_TRANS(dpagg_percentile_trans_float4, VT_FLOAT4, DP_SITE_PERCENTILE)
DPAGG_Q_TRANS(dpagg_percentile_trans_float8, VT_FLOAT8, DP_SITE_PERCENTILE)
DPAGG_Q_TRANS(dpagg_percentile_trans_numeric, VT_NUMERIC, DP_SITE_PERCENTILE)
/* per unit: one value per unit and group, its average there (a double precision) */
DPAGG_Q_TRANS(dpagg_unit_percentile_trans, VT_FLOAT8, DP_SITE_UNIT_PERCENTILE)
/* without bounds: the cells of the grid of magnitudes */
DPAGG_Q_TRANS(dpagg_auto_percentile_trans_int2, VT_INT2, DP_SITE_AUTO_PERCENTILE)
DPAGG_Q_TRANS(dpagg_auto_percentile_trans_int4, VT_INT4, DP_SITE_AUTO_PERCENTILE)
DPAGG_Q_TRANS(dpagg_auto_percentile_trans_int8, VT_INT8, DP_SITE_AUTO_PERCENTILE)
DPAGG_Q_TRANS(dpagg_auto_percentile_trans_float4, VT_FLOAT4, DP_SITE_AUTO_PERCENTILE)
DPAGG_Q_TRANS(dpagg_auto_percentile_trans_float8, VT_FLOAT8, DP_SITE_AUTO_PERCENTILE)
DPAGG_Q_TRANS(dpagg_auto_percentile_trans_numeric, VT_NUMERIC, DP_SITE_AUTO_PERCENTILE)

static Datum
percentile_combine(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, QNAME);
	QState	   *a = PG_ARGISNULL(0) ? NULL : (QState *) PG_GETARG_POINTER(0);
	QState	   *b = PG_ARGISNULL(1) ? NULL : (QState *) PG_GETARG_POINTER(1);
	int			nbins = kind == DP_SITE_AUTO_PERCENTILE ? DPAGG_BOUNDS_CELLS : DPAGG_QUANTILE_BINS;
	int			i;

	(void) dpagg_site_of_trans(fcinfo, kind);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	check_qstate(b);
	if (a == NULL)
		a = qstate_new(cxt, nbins);
	check_qstate(a);
	if (a->nbins != nbins || b->nbins != nbins)
		elog(ERROR, "dp_percentile: states of different grids");
	if (b->nsparse < 0)
	{
		if (a->nsparse >= 0)
			densify(a, cxt);
		for (i = 0; i < nbins; i++)
			a->dense[i] += b->dense[i];
		a->n += b->n;
	}
	else
		for (i = 0; i < b->nsparse; i++)
			add_bin(a, b->sparse[i], cxt);
	PG_RETURN_POINTER(a);
}

/* ---- Citus: a row's bin on the workers, the bins' counts merged on the coordinator ---------- */

/*
 * dpagg_quantile_bin(value, lower, upper): the bin of [lower, upper] this file's transition puts
 * the value in (dpagg_quantile_bin of the core, after the same conversion to a double), and
 * dpagg_quantile_cell(value): its cell of the grid of magnitudes without bounds
 * (dpagg_bounds_cell).  The workers group by it and count (citus.c); NULL for bounds no quantile
 * takes (refused while the query is planned), so that a count made with them is refused by the
 * merge.
 */
static pg_attribute_always_inline Datum
quantile_bin_fn(FunctionCallInfo fcinfo, ValueType vt)
{
	double		lower = PG_GETARG_FLOAT8(1),
				upper = PG_GETARG_FLOAT8(2);

	if (!(isfinite(lower) && isfinite(upper) && lower < upper && isfinite(upper - lower)))
		PG_RETURN_NULL();
	PG_RETURN_INT32(dpagg_quantile_bin(value_as_double(fcinfo, 0, vt), lower, upper));
}

#define DPAGG_QBIN_FN(fname, vt) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return quantile_bin_fn(fcinfo, vt); }

DPAGG_QBIN_FN(dpagg_quantile_bin_int2, VT_INT2)
DPAGG_QBIN_FN(dpagg_quantile_bin_int4, VT_INT4)
DPAGG_QBIN_FN(dpagg_quantile_bin_int8, VT_INT8)
DPAGG_QBIN_FN(dpagg_quantile_bin_float4, VT_FLOAT4)
DPAGG_QBIN_FN(dpagg_quantile_bin_float8, VT_FLOAT8)
DPAGG_QBIN_FN(dpagg_quantile_bin_numeric, VT_NUMERIC)

#define DPAGG_QCELL_FN(fname, vt) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { PG_RETURN_INT32(dpagg_bounds_cell(value_as_double(fcinfo, 0, vt))); }

DPAGG_QCELL_FN(dpagg_quantile_cell_int2, VT_INT2)
DPAGG_QCELL_FN(dpagg_quantile_cell_int4, VT_INT4)
DPAGG_QCELL_FN(dpagg_quantile_cell_int8, VT_INT8)
DPAGG_QCELL_FN(dpagg_quantile_cell_float4, VT_FLOAT4)
DPAGG_QCELL_FN(dpagg_quantile_cell_float8, VT_FLOAT8)
DPAGG_QCELL_FN(dpagg_quantile_cell_numeric, VT_NUMERIC)

static void
bad_qpartial(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid partial counts for dpagg's quantile merge: %s", what),
			 errhint("The partial counts are dpagg_quantile_bin(x, lower, upper) (or, without bounds, dpagg_quantile_cell(x)) and count(x) grouped by it, with the merge's bounds.")));
}

/*
 * dpagg_merge_percentile(bin, n, p, epsilon, delta, lower, upper, mechanism), dpagg_merge_median
 * and dpagg_merge_percentiles (NULL bounds: without bounds, the bins being cells of the grid of
 * magnitudes): one row of a group's partial counts, n values in one bin, added into the state
 * this file's transition makes.  While the group's values fit the list (QSPARSE_MAX) the bin goes
 * in n times, past it the counts are dense: the state is the one a single node would have made for
 * the same values (the same form, hence the same release), and as compact.  Refused (22023): a
 * bin outside the grid, a negative or NULL count, values counted without their bin, counts past
 * a bigint.  A row with a count of 0 is a group's values that were all NULL (or filtered out):
 * the group exists, as on one node.
 */
PG_FUNCTION_INFO_V1(dpagg_merge_percentile_trans);
Datum
dpagg_merge_percentile_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, QNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, DP_SITE_MERGE_PERCENTILE);
	const QParams *p = (const QParams *) site->params;
	QState	   *st = PG_ARGISNULL(0) ? NULL : (QState *) PG_GETARG_POINTER(0);
	int			nbins = p->autob ? DPAGG_BOUNDS_CELLS : DPAGG_QUANTILE_BINS;
	int32		bin;
	int64		n;

	if (st == NULL)
		st = qstate_new(cxt, nbins);
	check_qstate(st);
	if (st->nbins != nbins)
		elog(ERROR, "dp_percentile: state of the wrong grid");
	if (st->released)
		elog(ERROR, "dp_percentile: a merged state was released already");
	if (PG_ARGISNULL(2))
		bad_qpartial("a NULL count");
	n = PG_GETARG_INT64(2);
	if (n < 0)
		bad_qpartial("a negative count");
	if (PG_ARGISNULL(1))
	{
		if (n > 0)
			bad_qpartial("values counted without their bin");
		PG_RETURN_POINTER(st);
	}
	bin = PG_GETARG_INT32(1);
	if (bin < 0 || bin >= nbins)
		bad_qpartial(psprintf("bin %d is outside the grid of %d bins", bin, nbins));
	if (n == 0)
		PG_RETURN_POINTER(st);
	if (st->n > PG_INT64_MAX - n)
		bad_qpartial("the counts add up to more than a bigint holds");
	if (st->nsparse >= 0 && st->nsparse + n <= QSPARSE_MAX(nbins))
	{
		int64		i;

		while (st->nsparse + n > st->cap)
			st->cap *= 2;
		st->sparse = repalloc(st->sparse, sizeof(uint16) * st->cap);
		for (i = 0; i < n; i++)
			st->sparse[st->nsparse++] = (uint16) bin;
	}
	else
	{
		if (st->nsparse >= 0)
			densify(st, cxt);
		st->dense[bin] += (uint64) n;
	}
	st->n += n;
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpagg_percentile_combine);
Datum
dpagg_percentile_combine(PG_FUNCTION_ARGS)
{
	return percentile_combine(fcinfo, DP_SITE_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_auto_percentile_combine);
Datum
dpagg_auto_percentile_combine(PG_FUNCTION_ARGS)
{
	return percentile_combine(fcinfo, DP_SITE_AUTO_PERCENTILE);
}

/* Serialised: version, nsparse, nbins, n, then nsparse uint16 bins or nbins uint64 counts. */
typedef struct QWire
{
	int32		version;
	int32		nsparse;
	int32		nbins;
	int32		pad;
	int64		n;
} QWire;

PG_FUNCTION_INFO_V1(dpagg_percentile_serialize);
Datum
dpagg_percentile_serialize(PG_FUNCTION_ARGS)
{
	QState	   *st;
	QWire		w;
	Size		body;
	bytea	   *out;

	(void) dpagg_aggregate_context(fcinfo, QNAME);
	st = (QState *) PG_GETARG_POINTER(0);
	check_qstate(st);
	w.version = QSTATE_VERSION;
	w.nsparse = st->nsparse;
	w.nbins = st->nbins;
	w.pad = 0;
	w.n = st->n;
	body = st->nsparse < 0 ? sizeof(uint64) * st->nbins : sizeof(uint16) * st->nsparse;
	out = palloc(VARHDRSZ + sizeof(QWire) + body);
	SET_VARSIZE(out, VARHDRSZ + sizeof(QWire) + body);
	memcpy(VARDATA(out), &w, sizeof(QWire));
	memcpy(VARDATA(out) + sizeof(QWire), st->nsparse < 0 ? (void *) st->dense : (void *) st->sparse, body);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpagg_percentile_deserialize);
Datum
dpagg_percentile_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	QWire		w;
	Size		len;
	QState	   *st;
	int			i;
	int64		total = 0;

	(void) dpagg_aggregate_context(fcinfo, QNAME);
	in = PG_GETARG_BYTEA_PP(0);
	len = VARSIZE_ANY_EXHDR(in);
	/* Bytes from outside (only a superuser can pair this function with another serialisation):
	 * malformed input, 22P03 as core's binary input functions. */
	if (len < sizeof(QWire))
		goto malformed;
	memcpy(&w, VARDATA_ANY(in), sizeof(QWire));
	if (w.version != QSTATE_VERSION ||
		(w.nbins != DPAGG_QUANTILE_BINS && w.nbins != DPAGG_BOUNDS_CELLS) ||
		w.nsparse < -1 || w.nsparse > QSPARSE_MAX(w.nbins) || w.n < 0 ||
		len != sizeof(QWire) + (w.nsparse < 0 ? sizeof(uint64) * w.nbins
								: sizeof(uint16) * w.nsparse))
		goto malformed;
	st = palloc0(sizeof(QState));
	st->version = QSTATE_VERSION;
	st->nbins = w.nbins;
	st->n = w.n;
	st->nsparse = w.nsparse;
	if (w.nsparse < 0)
	{
		st->dense = palloc(sizeof(uint64) * w.nbins);
		memcpy(st->dense, VARDATA_ANY(in) + sizeof(QWire), sizeof(uint64) * w.nbins);
		for (i = 0; i < w.nbins; i++)
		{
			if (st->dense[i] > (uint64) PG_INT64_MAX - (uint64) total)
				goto malformed;
			total += (int64) st->dense[i];
		}
	}
	else
	{
		st->cap = Max(w.nsparse, 16);
		st->sparse = palloc(sizeof(uint16) * st->cap);
		memcpy(st->sparse, VARDATA_ANY(in) + sizeof(QWire), sizeof(uint16) * w.nsparse);
		for (i = 0; i < w.nsparse; i++)
			if (st->sparse[i] >= w.nbins)
				goto malformed;
		total = w.nsparse;
	}
	if (total != w.n)
		goto malformed;
	PG_RETURN_POINTER(st);
malformed:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed partial state of %s", QNAME),
			 errhint("Only dp_percentile's own serialisation function makes its partial states.")));
	PG_RETURN_NULL();			/* keep the compiler quiet */
}

static int
cmp_bin(const void *a, const void *b)
{
	return (int) *(const uint16 *) a - (int) *(const uint16 *) b;
}

/* A group's occupied bins in order, with their counts (*m of them; palloc'd). */
static void
occupied_bins(const QState *st, int32 **bins, uint64 **cnt, int *m)
{
	int			cap = st == NULL ? 1 : st->nsparse >= 0 ? Max(st->nsparse, 1) : st->nbins;
	int			i;

	*bins = palloc(sizeof(int32) * cap);
	*cnt = palloc(sizeof(uint64) * cap);
	*m = 0;
	if (st == NULL)
		return;
	if (st->nsparse < 0)
	{
		for (i = 0; i < st->nbins; i++)
			if (st->dense[i] > 0)
			{
				(*bins)[*m] = i;
				(*cnt)[(*m)++] = st->dense[i];
			}
		return;
	}
	if (st->nsparse > 0)
	{
		uint16	   *sorted = palloc(sizeof(uint16) * st->nsparse);

		memcpy(sorted, st->sparse, sizeof(uint16) * st->nsparse);
		qsort(sorted, st->nsparse, sizeof(uint16), cmp_bin);
		for (i = 0; i < st->nsparse; i++)
		{
			if (*m > 0 && (*bins)[*m - 1] == sorted[i])
				(*cnt)[*m - 1]++;
			else
			{
				(*bins)[*m] = sorted[i];
				(*cnt)[(*m)++] = 1;
			}
		}
		pfree(sorted);
	}
}

/*
 * Without bounds (docs/automatic_bounds.md, "Quantiles"): the noisy histogram of magnitudes at
 * epsilon_b (the cells' counts summed per bin; discrete Laplace on every bin), the range from the
 * lowest to the highest bin that reaches the threshold, then permute-and-flip over that range's
 * cells at the rest.  Returns false (the answer is NULL) when no bin reaches the threshold.
 */
static bool
release_without_bounds(const QParams *p, const int32 *cells, const uint64 *cnt, int m, double *out)
{
	int64		hist[DPAGG_BOUNDS_BINS];
	int			lo_bin,
				hi_bin,
				first,
				last,
				unused,
				i;
	dpagg_error err;

	memset(hist, 0, sizeof(hist));
	for (i = 0; i < m; i++)
		hist[dpagg_bounds_cell_bin(cells[i])] += cnt[i];
	if (!dpagg_auto_bounds_range(&p->bounds_cal, p->threshold, hist, &lo_bin, &hi_bin))
		return false;
	dpagg_bounds_bin_cells(lo_bin, &first, &unused);
	dpagg_bounds_bin_cells(hi_bin, &unused, &last);
	if (dpagg_quantile_release_cells(cells, cnt, m, first, last, p->ps, p->k, p->group_epsilon, out,
									 &err) != DPAGG_OK)
		dpagg_report(&err);
	return true;
}

/* The release of one group: charged (normally already, before the first row), then drawn; a
 * state finalized again (a rescan that reuses the groups) returns the value it released. */
static Datum
percentile_final(FunctionCallInfo fcinfo, bool want_array, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, QNAME);
	DpSite	   *site = dpagg_site_of_final(fcinfo, kind);
	const QParams *p = (const QParams *) site->params;
	QState	   *st = PG_ARGISNULL(0) ? NULL : (QState *) PG_GETARG_POINTER(0);
	double		out[DPAGG_QUANTILE_MAX_K];
	dpagg_error err;
	Datum		result = (Datum) 0;
	bool		isnull = false;

	if (p->array != want_array)
		elog(ERROR, "dp_percentile: final function of the wrong form");
	if (st != NULL)
	{
		check_qstate(st);
		if (st->nbins != (p->autob ? DPAGG_BOUNDS_CELLS : DPAGG_QUANTILE_BINS))
			elog(ERROR, "dp_percentile: state of the wrong grid");
		if (st->released)
		{
			if (st->released_null)
				PG_RETURN_NULL();
			return want_array ? PointerGetDatum(DatumGetArrayTypePCopy(st->released_value))
				: st->released_value;
		}
	}
	dpagg_site_charge(site);
	if (p->autob)
	{
		int32	   *cells;
		uint64	   *cnt;
		int			m;

		occupied_bins(st, &cells, &cnt, &m);
		isnull = !release_without_bounds(p, cells, cnt, m, out);
		pfree(cells);
		pfree(cnt);
	}
	else if (st == NULL || st->nsparse >= 0)
	{
		/* a small group (or an empty one): its occupied bins, in order, with their counts */
		int32	   *bins;
		uint64	   *cnt;
		int			m;

		occupied_bins(st, &bins, &cnt, &m);
		if (dpagg_quantile_release_sparse(bins, cnt, m, p->lower, p->upper, p->ps, p->k,
										  p->group_epsilon, out, &err) != DPAGG_OK)
			dpagg_report(&err);
		pfree(bins);
		pfree(cnt);
	}
	else
	{
		if (dpagg_quantile_release(st->dense, p->lower, p->upper, p->ps, p->k, p->group_epsilon, out,
								   &err) != DPAGG_OK)
			dpagg_report(&err);
	}
	if (!isnull && want_array)
	{
		Datum		elems[DPAGG_QUANTILE_MAX_K];
		int			i;

		for (i = 0; i < p->k; i++)
			elems[i] = Float8GetDatum(out[i]);
		result = PointerGetDatum(construct_array(elems, p->k, FLOAT8OID, sizeof(float8),
												 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
	else if (!isnull)
		result = Float8GetDatum(out[0]);
	if (st != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		st->released_null = isnull;
		if (!isnull)
			st->released_value = want_array ? PointerGetDatum(DatumGetArrayTypePCopy(result)) : result;
		st->released = true;
		MemoryContextSwitchTo(old);
	}
	if (isnull)
		PG_RETURN_NULL();
	return result;
}

PG_FUNCTION_INFO_V1(dpagg_percentile_final);
Datum
dpagg_percentile_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, false, DP_SITE_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_percentiles_final);
Datum
dpagg_percentiles_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, true, DP_SITE_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_unit_percentile_final);
Datum
dpagg_unit_percentile_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, false, DP_SITE_UNIT_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_unit_percentiles_final);
Datum
dpagg_unit_percentiles_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, true, DP_SITE_UNIT_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_auto_percentile_final);
Datum
dpagg_auto_percentile_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, false, DP_SITE_AUTO_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_auto_percentiles_final);
Datum
dpagg_auto_percentiles_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, true, DP_SITE_AUTO_PERCENTILE);
}

/* The merges' (Citus: citus.c): the release above, of the merged state, with or without bounds. */
PG_FUNCTION_INFO_V1(dpagg_merge_percentile_final);
Datum
dpagg_merge_percentile_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, false, DP_SITE_MERGE_PERCENTILE);
}

PG_FUNCTION_INFO_V1(dpagg_merge_percentiles_final);
Datum
dpagg_merge_percentiles_final(PG_FUNCTION_ARGS)
{
	return percentile_final(fcinfo, true, DP_SITE_MERGE_PERCENTILE);
}
