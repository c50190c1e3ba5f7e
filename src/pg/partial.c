/*
 * partial.c — dp_sum, dp_avg and dp_count split in two, for Citus (citus.c; README "dpagg on
 * Citus"): a partial state made where the rows are, and its release where the ledger is.
 *
 *   dpagg_partial_sum(x, lower, upper), dpagg_partial_avg(x, lower, upper), dpagg_partial_count(x IS NOT NULL)
 *       ordinary aggregates (no noise, no charge, no parameters of privacy): each row's value is
 *       clamped and added in the same quanta as dp_sum's (aggregates.c), so a partial state is
 *       exactly what dp_sum's state would be over the same rows.  Their state type, dpagg_partial,
 *       has text and binary forms and a combine function, which is what Citus needs to run them
 *       on the workers and combine them on the coordinator.  An exact sum of clamped values is
 *       no secret to whoever may run it: like sum(), they are refused to restricted roles over
 *       private relations (restrict.c) and are not the per-unit bounding (bound.c).
 *   dpagg_merge_sum(partial, epsilon, delta, lower, upper, mechanism, integer_values),
 *   dpagg_merge_avg(partial, epsilon, delta, lower, upper, mechanism),
 *   dpagg_merge_count(partial, epsilon, delta, mechanism)
 *       dpagg's own aggregates (kinds DP_SITE_MERGE_*): the call site, its calibration, the
 *       charge and the release are those of dp_sum, dp_avg and dp_count; only the rows are
 *       partial states, added exactly.
 *
 * A partial state carries the bounds it was clamped to, and whether its values were integers.
 * The merge refuses a partial state made with other bounds (its sensitivity would be another),
 * one claiming integers where the call site does not, and one whose sum could not come from
 * its count of clamped values: whoever hands it states cannot make it release under a
 * calibration the rows do not satisfy.  (A state typed in by hand carries no private data.)
 */
#include "state.h"

#include <math.h>

#include "libpq/pqformat.h"

#include "../core/dpagg_accum.h"

#define DPAGG_PARTIAL_VERSION 1

typedef struct DpPartial
{
	int32		vl_len_;		/* varlena header */
	uint8		version;
	uint8		kind;			/* DP_SUM, DP_AVG or DP_COUNT */
	uint8		integer;		/* every value added was of an integer type */
	uint8		pad;
	int64		count;
	uint64		sum_lo;			/* 128-bit sum of quanta (state.h) */
	int64		sum_hi;
	double		lower;			/* the bounds the values were clamped to */
	double		upper;
} DpPartial;

StaticAssertDecl(sizeof(DpPartial) == 48, "the partial state is 48 bytes");

static inline __int128
partial_sum(const DpPartial *s)
{
	return (__int128) (((unsigned __int128) (uint64) s->sum_hi << 64) | s->sum_lo);
}

static inline void
partial_set_sum(DpPartial *s, __int128 v)
{
	s->sum_lo = (uint64) v;
	s->sum_hi = (int64) (v >> 64);
}

static void
bad_partial(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid dpagg partial state: %s", what),
			 errhint("Partial states come from dpagg_partial_sum, dpagg_partial_avg and dpagg_partial_count with the same bounds as the merge.")));
}

/* Could `sum` quanta come from `count` values clamped to a sum sensitivity `bound`?  Each value
 * is at most bound / quantum quanta in absolute value (a 2^53 at most). */
static void
check_sum_fits(const DpPartial *s, double bound)
{
	double		per = ldexp(1.0, 53);
	__int128	sum = partial_sum(s);
	__int128	max;

	(void) bound;
	if (s->count < 0)
		bad_partial("a negative count");
	max = (__int128) s->count * (__int128) per;
	if (sum > max || sum < -max)
		bad_partial("its sum is larger than its count of clamped values allows");
}

static DpPartial *
new_partial(int kind, double lower, double upper, bool integer)
{
	DpPartial  *s = palloc0(sizeof(DpPartial));

	SET_VARSIZE(s, sizeof(DpPartial));
	s->version = DPAGG_PARTIAL_VERSION;
	s->kind = (uint8) kind;
	s->integer = integer ? 1 : 0;
	s->lower = lower;
	s->upper = upper;
	return s;
}

/* ------------------------------------------------------------------------------------------
 * The partial aggregates' transition functions: clamp, quantize, add (the float path of
 * aggregates.c, whose integer path gives the same quanta).  No call site: the bounds are the
 * arguments (constants of the query that Citus sends each worker), checked at the first row by
 * the same rule as dp_sum's; the coordinator checked them before anything ran (citus.c).
 */
static Datum
partial_row(FunctionCallInfo fcinfo, int kind, ValueType vt, int lower_arg, bool symmetric)
{
	DpPartial  *s;
	double		lower,
				upper,
				bound;

	if (kind == DP_COUNT)
	{
		lower = 0;
		upper = 1;
	}
	else if (symmetric)
	{
		if (PG_ARGISNULL(lower_arg))
			bad_partial("NULL sensitivity");
		upper = PG_GETARG_FLOAT8(lower_arg);
		lower = -upper;
	}
	else
	{
		if (PG_ARGISNULL(lower_arg) || PG_ARGISNULL(lower_arg + 1))
			bad_partial("NULL bounds");
		lower = PG_GETARG_FLOAT8(lower_arg);
		upper = PG_GETARG_FLOAT8(lower_arg + 1);
	}
	if (PG_ARGISNULL(0))
	{
		(void) dpagg_check_bounds(kind, lower, upper);
		s = new_partial(kind, lower, upper, IS_INT_TYPE(vt));
	}
	else
	{
		s = (DpPartial *) PG_GETARG_POINTER(0);
		if (s->lower != lower || s->upper != upper)
			bad_partial("the bounds changed between rows");
	}
	if (kind == DP_COUNT)
	{
		/* dpagg_partial_count(counted boolean): citus.c passes `v IS NOT NULL`, or true for rows
		 * (a boolean, not "any": Citus checks the argument types of what it distributes) */
		if (!PG_ARGISNULL(1) && PG_GETARG_BOOL(1))
			s->count++;
		PG_RETURN_POINTER(s);
	}
	if (!PG_ARGISNULL(1))
	{
		double		x = value_as_double(fcinfo, 1, vt);

		bound = kind == DP_AVG ? (upper - lower) / 2.0 : fmax(fabs(lower), fabs(upper));
		s->count++;
		if (kind == DP_AVG)
		{
			double		mid = lower / 2 + upper / 2;

			x = dpagg_clamp(x, lower, upper);
			partial_set_sum(s, partial_sum(s) +
							dpagg_quantize(x - mid, -bound, bound, 1.0 / dpagg_quantum_for_bound(bound)));
		}
		else
			partial_set_sum(s, partial_sum(s) +
							dpagg_quantize(x, lower, upper, 1.0 / dpagg_quantum_for_bound(bound)));
	}
	PG_RETURN_POINTER(s);
}

#define PARTIAL_TRANS(name, kind, vt, lower_arg, symmetric) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return partial_row(fcinfo, kind, vt, lower_arg, symmetric); }

PARTIAL_TRANS(dpagg_partial_sum_trans_int2_s, DP_SUM, VT_INT2, 2, true)
PARTIAL_TRANS(dpagg_partial_sum_trans_int4_s, DP_SUM, VT_INT4, 2, true)
PARTIAL_TRANS(dpagg_partial_sum_trans_int8_s, DP_SUM, VT_INT8, 2, true)
PARTIAL_TRANS(dpagg_partial_sum_trans_float4_s, DP_SUM, VT_FLOAT4, 2, true)
PARTIAL_TRANS(dpagg_partial_sum_trans_float8_s, DP_SUM, VT_FLOAT8, 2, true)
PARTIAL_TRANS(dpagg_partial_sum_trans_numeric_s, DP_SUM, VT_NUMERIC, 2, true)
PARTIAL_TRANS(dpagg_partial_sum_trans_int2_b, DP_SUM, VT_INT2, 2, false)
PARTIAL_TRANS(dpagg_partial_sum_trans_int4_b, DP_SUM, VT_INT4, 2, false)
PARTIAL_TRANS(dpagg_partial_sum_trans_int8_b, DP_SUM, VT_INT8, 2, false)
PARTIAL_TRANS(dpagg_partial_sum_trans_float4_b, DP_SUM, VT_FLOAT4, 2, false)
PARTIAL_TRANS(dpagg_partial_sum_trans_float8_b, DP_SUM, VT_FLOAT8, 2, false)
PARTIAL_TRANS(dpagg_partial_sum_trans_numeric_b, DP_SUM, VT_NUMERIC, 2, false)
PARTIAL_TRANS(dpagg_partial_avg_trans_int2, DP_AVG, VT_INT2, 2, false)
PARTIAL_TRANS(dpagg_partial_avg_trans_int4, DP_AVG, VT_INT4, 2, false)
PARTIAL_TRANS(dpagg_partial_avg_trans_int8, DP_AVG, VT_INT8, 2, false)
PARTIAL_TRANS(dpagg_partial_avg_trans_float4, DP_AVG, VT_FLOAT4, 2, false)
PARTIAL_TRANS(dpagg_partial_avg_trans_float8, DP_AVG, VT_FLOAT8, 2, false)
PARTIAL_TRANS(dpagg_partial_avg_trans_numeric, DP_AVG, VT_NUMERIC, 2, false)
PARTIAL_TRANS(dpagg_partial_count_trans, DP_COUNT, VT_NONE, 0, false)

/* Two partial states of the same group (strict). */
PG_FUNCTION_INFO_V1(dpagg_partial_combine);
Datum
dpagg_partial_combine(PG_FUNCTION_ARGS)
{
	DpPartial  *a = (DpPartial *) PG_GETARG_POINTER(0);
	DpPartial  *b = (DpPartial *) PG_GETARG_POINTER(1);
	DpPartial  *out;

	if (a->kind != b->kind || a->lower != b->lower || a->upper != b->upper)
		bad_partial("states of different aggregates or bounds");
	out = new_partial(a->kind, a->lower, a->upper, a->integer && b->integer);
	out->count = a->count + b->count;
	partial_set_sum(out, partial_sum(a) + partial_sum(b));
	PG_RETURN_POINTER(out);
}

/* ------------------------------------------------------------------------------------------
 * The merge: dpagg's aggregates over partial states (kinds DP_SITE_MERGE_*).
 */
static Datum
merge_row(FunctionCallInfo fcinfo, int site_kind, int kind)
{
	DpSite	   *site = (DpSite *) fcinfo->flinfo->fn_extra;
	DpState    *st;
	DpPartial  *in;
	double		lower,
				upper,
				bound;
	bool		integer;

	if (site == NULL || PG_ARGISNULL(0))
	{
		st = dpagg_transition_state(fcinfo, site_kind);
		site = (DpSite *) fcinfo->flinfo->fn_extra;
	}
	else
		st = (DpState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	in = (DpPartial *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1));
	dpagg_scalar_bounds(site->params, &lower, &upper, &bound, &integer);
	if (in->version != DPAGG_PARTIAL_VERSION || in->kind != kind)
		bad_partial("a state of another aggregate");
	if (kind != DP_COUNT && (in->lower != lower || in->upper != upper))
		bad_partial("a state clamped to other bounds than the merge's");
	if (integer && !in->integer)
		bad_partial("values that were not integers, merged as integers");
	check_sum_fits(in, bound);
	st->count += in->count;
	state_set_sum(st, state_sum(st) + partial_sum(in));
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpagg_merge_sum_trans);
Datum
dpagg_merge_sum_trans(PG_FUNCTION_ARGS)
{
	return merge_row(fcinfo, DP_SITE_MERGE_SUM, DP_SUM);
}

PG_FUNCTION_INFO_V1(dpagg_merge_avg_trans);
Datum
dpagg_merge_avg_trans(PG_FUNCTION_ARGS)
{
	return merge_row(fcinfo, DP_SITE_MERGE_AVG, DP_AVG);
}

PG_FUNCTION_INFO_V1(dpagg_merge_count_trans);
Datum
dpagg_merge_count_trans(PG_FUNCTION_ARGS)
{
	return merge_row(fcinfo, DP_SITE_MERGE_COUNT, DP_COUNT);
}

/* ------------------------------------------------------------------------------------------
 * dpagg_partial I/O.  Text: kind:version:integer:count:sum_hi:sum_lo:lower:upper (the bounds to
 * 17 significant digits, which round-trip exactly).
 */
PG_FUNCTION_INFO_V1(dpagg_partial_out);
Datum
dpagg_partial_out(PG_FUNCTION_ARGS)
{
	DpPartial  *s = (DpPartial *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_CSTRING(psprintf("%d:%d:%d:" INT64_FORMAT ":" INT64_FORMAT ":" UINT64_FORMAT ":%.17g:%.17g",
							   s->kind, s->version, s->integer, s->count, s->sum_hi, s->sum_lo,
							   s->lower, s->upper));
}

static void
check_partial(DpPartial *s)
{
	if (s->version != DPAGG_PARTIAL_VERSION ||
		!(s->kind == DP_SUM || s->kind == DP_AVG || s->kind == DP_COUNT) || s->count < 0 ||
		s->integer > 1 || !isfinite(s->lower) || !isfinite(s->upper) || s->lower > s->upper)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid dpagg_partial")));
	s->pad = 0;
}

PG_FUNCTION_INFO_V1(dpagg_partial_in);
Datum
dpagg_partial_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	DpPartial  *s = new_partial(0, 0, 0, false);
	int			kind,
				version,
				integer,
				consumed = 0;
	long long	count,
				hi;
	unsigned long long lo;
	double		lower,
				upper;

	if (sscanf(str, "%d:%d:%d:%lld:%lld:%llu:%lf:%lf%n", &kind, &version, &integer, &count, &hi,
			   &lo, &lower, &upper, &consumed) < 8 || consumed == 0 || str[consumed] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type dpagg_partial")));
	s->kind = (uint8) kind;
	s->version = (uint8) version;
	s->integer = (uint8) integer;
	s->count = count;
	s->sum_hi = hi;
	s->sum_lo = lo;
	s->lower = lower;
	s->upper = upper;
	check_partial(s);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dpagg_partial_send);
Datum
dpagg_partial_send(PG_FUNCTION_ARGS)
{
	DpPartial  *s = (DpPartial *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, s->version);
	pq_sendbyte(&buf, s->kind);
	pq_sendbyte(&buf, s->integer);
	pq_sendint64(&buf, s->count);
	pq_sendint64(&buf, s->sum_hi);
	pq_sendint64(&buf, (int64) s->sum_lo);
	pq_sendfloat8(&buf, s->lower);
	pq_sendfloat8(&buf, s->upper);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(dpagg_partial_recv);
Datum
dpagg_partial_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	DpPartial  *s = new_partial(0, 0, 0, false);

	s->version = (uint8) pq_getmsgbyte(buf);
	s->kind = (uint8) pq_getmsgbyte(buf);
	s->integer = (uint8) pq_getmsgbyte(buf);
	s->count = pq_getmsgint64(buf);
	s->sum_hi = pq_getmsgint64(buf);
	s->sum_lo = (uint64) pq_getmsgint64(buf);
	s->lower = pq_getmsgfloat8(buf);
	s->upper = pq_getmsgfloat8(buf);
	check_partial(s);
	PG_RETURN_POINTER(s);
}
