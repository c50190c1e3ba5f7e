/*
 * state.h — the data-only transition state of dp_sum and dp_avg (dpagg_state; dp_count's state is
 * its count, a bigint, and its final function reads it into a DpState), shared by
 * aggregates.c (the aggregates, their parameters and releases) and partial.c (for Citus: exact
 * partial sums merged and released where the ledger is).
 */
#ifndef DPAGG_STATE_H
#define DPAGG_STATE_H

#include "aggregates/site.h"

#include "utils/builtins.h"

#define DPAGG_STATE_VERSION 2

typedef enum DpKind
{
	DP_SUM = DP_SITE_SUM,
	DP_COUNT = DP_SITE_COUNT,
	DP_AVG = DP_SITE_AVG
} DpKind;

/*
 * The transition state: data only, 32 bytes.  Fixed size, no pointers, no OIDs.  Once released,
 * the sum is no longer needed and its 16 bytes hold the released value instead.
 */
typedef struct DpState
{
	int32		vl_len_;		/* varlena header */
	uint8		version;
	uint8		kind;			/* DpKind */
	uint8		released;		/* set by the final function (FINALFUNC_MODIFY = READ_WRITE) */
	uint8		pad;
	int64		count;			/* non-NULL values (or rows for dp_count(epsilon, delta)) */
	uint64		sum_lo;			/* 128-bit sum of quanta, as two halves; after the release, */
	int64		sum_hi;			/* sum_lo holds the bits of the released value */
} DpState;

StaticAssertDecl(sizeof(DpState) == 32, "the dpagg state is 32 bytes");

/* A 128-bit integer kept as two 64-bit halves (the states' exact sums: this file, vector.c). */
static inline __int128
dpagg_int128_get(int64 hi, uint64 lo)
{
	return (__int128) (((unsigned __int128) (uint64) hi << 64) | lo);
}

static inline void
dpagg_int128_set(__int128 v, int64 *hi, uint64 *lo)
{
	*lo = (uint64) v;
	*hi = (int64) (v >> 64);
}

static inline __int128
state_sum(const DpState *s)
{
	return dpagg_int128_get(s->sum_hi, s->sum_lo);
}

static inline void
state_set_sum(DpState *s, __int128 v)
{
	dpagg_int128_set(v, &s->sum_hi, &s->sum_lo);
}

typedef enum ValueType
{
	VT_NONE, VT_INT2, VT_INT4, VT_INT8, VT_FLOAT4, VT_FLOAT8, VT_NUMERIC, VT_ANY
} ValueType;

static inline ValueType
value_type_of(Oid t)
{
	switch (t)
	{
		case INT2OID:
			return VT_INT2;
		case INT4OID:
			return VT_INT4;
		case INT8OID:
			return VT_INT8;
		case FLOAT4OID:
			return VT_FLOAT4;
		case FLOAT8OID:
			return VT_FLOAT8;
		case NUMERICOID:
			return VT_NUMERIC;
		default:
			return VT_ANY;
	}
}

/* The 128-bit sum += quanta, in place (an add and an add-with-carry on the two halves). */
static inline void
add_quanta(DpState *st, int64 quanta)
{
	uint64		lo = st->sum_lo + (uint64) quanta;

	st->sum_hi += (quanta >> 63) + (lo < (uint64) quanta);
	st->sum_lo = lo;
}

#define IS_INT_TYPE(vt) ((vt) == VT_INT2 || (vt) == VT_INT4 || (vt) == VT_INT8)

static inline double
value_as_double(FunctionCallInfo fcinfo, int argno, ValueType vt)
{
	Datum		d = PG_GETARG_DATUM(argno);

	switch (vt)
	{
		case VT_INT2:
			return (double) DatumGetInt16(d);
		case VT_INT4:
			return (double) DatumGetInt32(d);
		case VT_INT8:
			return (double) DatumGetInt64(d);
		case VT_FLOAT4:
			return (double) DatumGetFloat4(d);
		case VT_FLOAT8:
			return DatumGetFloat8(d);
		case VT_NUMERIC:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, d));
		default:
			elog(ERROR, "dpagg: unexpected value type");
	}
	return 0;					/* not reached */
}

/* One calibrated part's noisy release of an exact sum of quanta, after the charge (aggregates.c). */
extern double dpagg_draw(const dpagg_release_plan *plan, __int128 quanta);
/* An exact integer numeric (a partial sum of quanta) as a 128-bit integer within 2^120, or false
 * with the reason (partial.c). */
extern bool dpagg_numeric_int128(Datum d, __int128 *out, const char **why);
/* A dp_report row (aggregates.c): the release, its interval and what made it. */
extern Datum dpagg_report_datum(TupleDesc desc, double value, bool value_null, double lo, double hi,
								double confidence, const char *mechanism, double epsilon,
								double delta, double noise_scale);

/* A new, empty state of this kind (zeroed data). */
extern DpState *dpagg_new_state(MemoryContext cxt, int kind);
/* The first call of a group of one of dpagg's aggregates: the checks, the site, a new state. */
extern DpState *dpagg_transition_state(FunctionCallInfo fcinfo, int kind);
extern bool dpagg_state_kind_valid(int kind);

#endif							/* DPAGG_STATE_H */
