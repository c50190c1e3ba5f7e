/*
 * auto_bounds.c — dp_sum(value, epsilon, delta) and dp_avg(value, epsilon, delta): a private sum
 * and average whose clamping bounds are chosen privately from the data
 * (src/core/bounds/dpagg_bounds.h; the argument is docs/automatic_bounds.md).
 *
 * The state of a group counts its values in the 191 bins of magnitudes and keeps each bin's exact
 * sum, in the quanta of the bin's upper edge (so a value is rounded once, and the sums do not
 * depend on the order of the rows).  The final function charges (normally already done, before
 * the first row), then:
 *   1. adds discrete Laplace noise at epsilon_b = epsilon / 2 to every bin's count (the histogram
 *      is epsilon_b-DP: one value is in one bin) and chooses the bounds [L, U] from the bins whose
 *      noisy count reaches the threshold (dpagg_bounds_choose; beta = 1e-6);
 *   2. computes the sum clamped to [L, U] from the bins (a bin inside keeps its sum, a bin beyond
 *      a bound counts its values at the bound) in the quanta of S = max(|L|, |U|);
 *   3. releases it with the call's mechanism at (epsilon - epsilon_b, delta), calibrated for S
 *      (with the allowance of step 2's roundings).
 * dp_avg: step 2 centres the clamped values on m = (L + U)/2 (in the quanta of B = (U - L)/2),
 * and step 3 releases that centred sum (sensitivity B) and the count (sensitivity 1), each at half
 * of (epsilon - epsilon_b, delta), as dp_avg with bounds does; the answer is
 * m + S / max(C, 1), clamped to [L, U].
 * Values of magnitude below 2^-32 are kept as they are (within the zero bin, which may straddle a
 * bound of 0): each value still moves the sum by at most S.
 *
 * The charge is the call's (epsilon, delta), as two parts.  The sum's mechanism is the one asked
 * for (dpagg.default_mechanism); which one `auto` picks depends on S, chosen at the release, so
 * the charge names the request, takes the whole delta and, under zCDP, epsilon^2 / 2 for each
 * part (conservative).  Not over private relations (query/bound.c refuses it) nor on Citus
 * (citus/citus.c refuses it) yet.
 */
#include "aggregates/state.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "bounds/dpagg_bounds.h"
#include "dpagg_accum.h"

#define ASTATE_VERSION 1
#define ANAME "dp_sum"
#define ADENSE_AT 12			/* occupied bins kept as a list up to this many */

/* The share of epsilon that chooses the bounds, and the failure probability of the choice
 * (docs/automatic_bounds.md, "The threshold and the choice"). */
#define AUTO_BOUNDS_SHARE 0.5
#define AUTO_BOUNDS_BETA 1e-6

typedef struct ABin
{
	int64		count;
	int64		sum_hi;			/* exact sum of the bin's quanta, 128 bits as halves */
	uint64		sum_lo;
} ABin;

typedef struct AState
{
	int32		version;
	int32		nlist;			/* occupied bins in list[], or -1 once dense */
	bool		released;
	double		released_value;
	uint8		which[ADENSE_AT];	/* the list's bins */
	ABin		list[ADENSE_AT];
	ABin	   *dense;			/* DPAGG_BOUNDS_BINS entries, once dense */
} AState;

typedef struct AParams
{
	bool		avg;			/* dp_avg (dpagg_auto_avg_final) */
	double		epsilon;
	double		delta;
	DpAutoPlan	plan;
	dpagg_release_plan bounds_plan; /* the histogram's noise */
	dpagg_release_plan count_plan;	/* dp_avg's count */
} AParams;

extern Datum dpagg_auto_avg_final(PG_FUNCTION_ARGS);

/* The quantum of bin j's values: that of its upper edge's magnitude (the zero bin's: 2^KMIN). */
static inline int
bin_quantum_exp(int j)
{
	int			k;

	if (j == DPAGG_BOUNDS_ZERO)
		return DPAGG_BOUNDS_KMIN - 52;
	k = j > DPAGG_BOUNDS_ZERO ? j - DPAGG_BOUNDS_ZERO - 1 + DPAGG_BOUNDS_KMIN
		: DPAGG_BOUNDS_ZERO - 1 - j + DPAGG_BOUNDS_KMIN;
	return k + 1 - 52;
}

/*
 * The histogram of magnitudes of a call without bounds: epsilon_b = epsilon * AUTO_BOUNDS_SHARE
 * and the rest, each rounded down (so that they never add up to more than epsilon); the rest
 * (`rest` says what, for the hint) serves `parts` releases at an equal share, each of which, like epsilon_b, must be at least 1e-10
 * (the least epsilon a calibration takes).  The noise is discrete Laplace at sensitivity 1 (one
 * value is in one bin), and a bin counts from the threshold that keeps every empty bin below it
 * with probability 1 - AUTO_BOUNDS_BETA (docs/automatic_bounds.md, "The threshold and the choice").
 */
void
dpagg_auto_histogram(double epsilon, const char *what, int parts, const char *rest,
					 double *epsilon_bounds, double *epsilon_rest, dpagg_calibration *cal,
					 double *threshold)
{
	dpagg_request req;
	dpagg_error err;

	if (!(isfinite(epsilon) && epsilon > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number greater than 0"),
				 errhint("Pass a positive epsilon, for example 1.0: half of it chooses the bounds.")));
	*epsilon_bounds = nextafter(epsilon * AUTO_BOUNDS_SHARE, 0);
	*epsilon_rest = nextafter(epsilon - *epsilon_bounds, 0);
	if (*epsilon_bounds < 1e-10 || *epsilon_rest / parts < 1e-10)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon of %s without bounds must be at least %se-10", what,
						parts == 1 ? "2.0001" : parts == 2 ? "4.0001" : psprintf("%d.0001", 2 * parts)),
				 errhint("Half of epsilon chooses the bounds and the rest releases %s; each part needs at least 1e-10.",
						 rest)));
	req = dpagg_scalar_request(*epsilon_bounds, 0, 1.0, true);
	dpagg_calibrate_cached("discrete_laplace", &req, cal);
	if (dpagg_bounds_threshold(cal->scale, AUTO_BOUNDS_BETA, threshold, &err) != DPAGG_OK)
		dpagg_report(&err);
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

	memset(p, 0, sizeof(*p));
	dpagg_mechanism_spec(NULL, p->mechanism, sizeof(p->mechanism));
	dpagg_auto_histogram(epsilon, name, avg ? 2 : 1, avg ? "the sum and the count (half each)" : "the sum",
						 &p->epsilon_bounds, &p->epsilon_sum, &p->bounds_cal, &p->threshold);
	p->part_epsilon = avg ? p->epsilon_sum / 2 : p->epsilon_sum;
	p->part_delta = avg ? delta / 2 : delta;

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

bool
dpagg_auto_is_avg(Oid aggfnoid)
{
	return dpagg_aggregate_finalfn(aggfnoid) == dpagg_auto_avg_final;
}

void *
dpagg_auto_sum_site_params(DpSite *site)
{
	DpArgLayout lo;
	AParams    *p = MemoryContextAllocZero(site->cxt, sizeof(AParams));
	DpAutoPlan *pl = &p->plan;
	dpagg_error err;
	DpChargePart parts[3];

	/* the form, from the aggregate's final function */
	p->avg = dpagg_auto_is_avg(site->argref->aggfnoid);
	site->name = p->avg ? "dp_avg" : "dp_sum";
	dpagg_arg_layout(site->argref, site->kind, &lo);
	p->epsilon = dpagg_param_float8(site, lo.epsilon, "epsilon", DP_SITE_AUTO_SUM);
	p->delta = dpagg_param_float8(site, lo.delta, "delta", DP_SITE_AUTO_SUM);
	dpagg_auto_plan(p->epsilon, p->delta, p->avg, pl);
	if (dpagg_release_plan_init(&pl->bounds_cal, 1.0, &p->bounds_plan, &err) != DPAGG_OK ||
		(p->avg && dpagg_release_plan_init(&pl->count_cal, 1.0, &p->count_plan, &err) != DPAGG_OK))
		dpagg_report(&err);
	parts[0].spec = MemoryContextStrdup(site->cxt, psprintf("bounds %s", pl->bounds_cal.spec));
	parts[0].epsilon = pl->epsilon_bounds;
	parts[0].delta = 0;
	parts[0].rho = NAN;			/* charged epsilon_b^2 / 2 under zCDP */
	parts[1].spec = MemoryContextStrdup(site->cxt, psprintf("sum %s", pl->mechanism));
	parts[1].epsilon = pl->part_epsilon;
	parts[1].delta = pl->part_delta;	/* the mechanism is chosen at the release: all of its delta */
	parts[1].rho = NAN;
	if (p->avg)
	{
		parts[2].spec = MemoryContextStrdup(site->cxt, psprintf("count %s", pl->count_cal.spec));
		parts[2].epsilon = pl->part_epsilon;
		parts[2].delta = dpagg_charged_delta(&pl->count_cal, pl->part_delta);
		parts[2].rho = dpagg_zcdp_rho(&pl->count_cal);
	}
	dpagg_site_set_charge(site, p->epsilon, p->delta, parts, p->avg ? 3 : 2);
	return p;
}

/* ---- the state ------------------------------------------------------------------------------- */

static AState *
astate_new(MemoryContext cxt)
{
	AState	   *st = MemoryContextAllocZero(cxt, sizeof(AState));

	st->version = ASTATE_VERSION;
	return st;
}

static void
check_astate(const AState *st)
{
	if (st->version != ASTATE_VERSION)
		elog(ERROR, "dp_sum: state of the wrong kind");
}

static ABin *
bin_of(AState *st, int j, MemoryContext cxt)
{
	int			i;

	if (st->nlist < 0)
		return &st->dense[j];
	for (i = 0; i < st->nlist; i++)
		if (st->which[i] == j)
			return &st->list[i];
	if (st->nlist < ADENSE_AT)
	{
		st->which[st->nlist] = (uint8) j;
		return &st->list[st->nlist++];
	}
	st->dense = MemoryContextAllocZero(cxt, sizeof(ABin) * DPAGG_BOUNDS_BINS);
	for (i = 0; i < st->nlist; i++)
		st->dense[st->which[i]] = st->list[i];
	st->nlist = -1;
	return &st->dense[j];
}

static void
bin_add(ABin *b, int64 count, __int128 sum)
{
	b->count += count;
	dpagg_int128_set(dpagg_int128_get(b->sum_hi, b->sum_lo) + sum, &b->sum_hi, &b->sum_lo);
}

static Datum
auto_sum_trans(FunctionCallInfo fcinfo, ValueType vt)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	AState	   *st = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);

	(void) dpagg_site_of_trans(fcinfo, DP_SITE_AUTO_SUM);
	if (st == NULL)
		st = astate_new(cxt);
	if (!PG_ARGISNULL(1))
	{
		double		top = ldexp(1.0, DPAGG_BOUNDS_KMAX + 1);
		double		x = value_as_double(fcinfo, 1, vt);
		int			j;

		if (isnan(x))
			x = 0;
		x = x > top ? top : x < -top ? -top : x;
		j = dpagg_bounds_bin(x);
		/* |x| / 2^e < 2^53 for the bin's quantum 2^e: exact scaling, one rounding */
		bin_add(bin_of(st, j, cxt), 1, (__int128) llrint(ldexp(x, -bin_quantum_exp(j))));
	}
	PG_RETURN_POINTER(st);
}

#define DPAGG_A_TRANS(fname, vt) \
	PG_FUNCTION_INFO_V1(fname); \
	Datum fname(PG_FUNCTION_ARGS) { return auto_sum_trans(fcinfo, vt); }

DPAGG_A_TRANS(dpagg_auto_sum_trans_int2, VT_INT2)
DPAGG_A_TRANS(dpagg_auto_sum_trans_int4, VT_INT4)
DPAGG_A_TRANS(dpagg_auto_sum_trans_int8, VT_INT8)
DPAGG_A_TRANS(dpagg_auto_sum_trans_float4, VT_FLOAT4)
DPAGG_A_TRANS(dpagg_auto_sum_trans_float8, VT_FLOAT8)
DPAGG_A_TRANS(dpagg_auto_sum_trans_numeric, VT_NUMERIC)

static void
merge_into(AState *a, const AState *b, MemoryContext cxt)
{
	int			i;

	if (b->nlist < 0)
	{
		for (i = 0; i < DPAGG_BOUNDS_BINS; i++)
			if (b->dense[i].count > 0)
				bin_add(bin_of(a, i, cxt), b->dense[i].count,
						dpagg_int128_get(b->dense[i].sum_hi, b->dense[i].sum_lo));
	}
	else
		for (i = 0; i < b->nlist; i++)
			bin_add(bin_of(a, b->which[i], cxt), b->list[i].count,
					dpagg_int128_get(b->list[i].sum_hi, b->list[i].sum_lo));
}

PG_FUNCTION_INFO_V1(dpagg_auto_sum_combine);
Datum
dpagg_auto_sum_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	AState	   *a = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);
	AState	   *b = PG_ARGISNULL(1) ? NULL : (AState *) PG_GETARG_POINTER(1);

	(void) dpagg_site_of_trans(fcinfo, DP_SITE_AUTO_SUM);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	check_astate(b);
	if (a == NULL)
		a = astate_new(cxt);
	check_astate(a);
	merge_into(a, b, cxt);
	PG_RETURN_POINTER(a);
}

/* Serialised: version, then for each occupied bin (in order) its index (int32), count and sum. */
typedef struct AWire
{
	int32		bin;
	int32		pad;
	int64		count;
	int64		sum_hi;
	uint64		sum_lo;
} AWire;

PG_FUNCTION_INFO_V1(dpagg_auto_sum_serialize);
Datum
dpagg_auto_sum_serialize(PG_FUNCTION_ARGS)
{
	AState	   *st;
	AWire	   *w;
	int			n = 0,
				j;
	bytea	   *out;

	(void) dpagg_aggregate_context(fcinfo, ANAME);
	st = (AState *) PG_GETARG_POINTER(0);
	check_astate(st);
	out = palloc0(VARHDRSZ + sizeof(int32) + sizeof(AWire) * DPAGG_BOUNDS_BINS);
	*(int32 *) VARDATA(out) = ASTATE_VERSION;
	w = (AWire *) (VARDATA(out) + sizeof(int32));
	for (j = 0; j < DPAGG_BOUNDS_BINS; j++)
	{
		const ABin *b = NULL;

		if (st->nlist < 0)
			b = &st->dense[j];
		else
		{
			int			i;

			for (i = 0; i < st->nlist; i++)
				if (st->which[i] == j)
					b = &st->list[i];
		}
		if (b == NULL || b->count == 0)
			continue;
		w[n].bin = j;
		w[n].count = b->count;
		w[n].sum_hi = b->sum_hi;
		w[n].sum_lo = b->sum_lo;
		n++;
	}
	SET_VARSIZE(out, VARHDRSZ + sizeof(int32) + sizeof(AWire) * n);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpagg_auto_sum_deserialize);
Datum
dpagg_auto_sum_deserialize(PG_FUNCTION_ARGS)
{
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
	 * below the bin's upper edge 2^(k+1), in quanta of 2^(k+1-52)) and on the bin's side of 0, so
	 * that the sensitivity holds for merged states too. */
	if (len < sizeof(int32) || (len - sizeof(int32)) % sizeof(AWire) != 0)
		goto malformed;
	memcpy(&version, VARDATA_ANY(in), sizeof(int32));
	if (version != ASTATE_VERSION)
		goto malformed;
	n = (len - sizeof(int32)) / sizeof(AWire);
	st = astate_new(CurrentMemoryContext);
	for (i = 0; i < n; i++)
	{
		AWire		w;
		__int128	s,
					lim;

		memcpy(&w, VARDATA_ANY(in) + sizeof(int32) + i * sizeof(AWire), sizeof(AWire));
		if (w.bin <= last || w.bin >= DPAGG_BOUNDS_BINS || w.count <= 0)
			goto malformed;
		s = dpagg_int128_get(w.sum_hi, w.sum_lo);
		lim = (__int128) w.count << 52;
		if (s > lim || s < -lim || (w.bin > DPAGG_BOUNDS_ZERO && s < 0) ||
			(w.bin < DPAGG_BOUNDS_ZERO && s > 0))
			goto malformed;
		bin_add(bin_of(st, w.bin, CurrentMemoryContext), w.count, s);
		last = w.bin;
	}
	PG_RETURN_POINTER(st);
malformed:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed partial state of %s", ANAME),
			 errhint("Only dp_sum's own serialisation function makes its partial states.")));
	PG_RETURN_NULL();			/* keep the compiler quiet */
}

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
auto_final(FunctionCallInfo fcinfo, bool avg)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, ANAME);
	DpSite	   *site = dpagg_site_of_final(fcinfo, DP_SITE_AUTO_SUM);
	const AParams *p = (const AParams *) site->params;
	AState	   *st = PG_ARGISNULL(0) ? NULL : (AState *) PG_GETARG_POINTER(0);
	double		noisy[DPAGG_BOUNDS_BINS];
	ABin		bins[DPAGG_BOUNDS_BINS];
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
	if (st != NULL)
	{
		check_astate(st);
		if (st->released)
			PG_RETURN_FLOAT8(st->released_value);
	}
	else
		st = astate_new(cxt);
	dpagg_site_charge(site);
	memset(bins, 0, sizeof(bins));
	if (st->nlist < 0)
		memcpy(bins, st->dense, sizeof(bins));
	else
		for (j = 0; j < st->nlist; j++)
			bins[st->which[j]] = st->list[j];
	/* 1. the noisy histogram and the bounds */
	for (j = 0; j < DPAGG_BOUNDS_BINS; j++)
		noisy[j] = dpagg_draw(&p->bounds_plan, (__int128) bins[j].count);
	(void) dpagg_bounds_choose(noisy, p->plan.threshold, &lower, &upper);
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
			total += shift_round(dpagg_int128_get(bins[j].sum_hi, bins[j].sum_lo),
								 qexp - bin_quantum_exp(j));
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
	return auto_final(fcinfo, false);
}

PG_FUNCTION_INFO_V1(dpagg_auto_avg_final);
Datum
dpagg_auto_avg_final(PG_FUNCTION_ARGS)
{
	return auto_final(fcinfo, true);
}
