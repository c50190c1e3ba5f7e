/*
 * vector.c — dp_sum_vector: T sums over the same rows, released together (src/core/mechanisms/l2/l2.h).
 *
 * dp_sum_vector(value double precision[], dimension integer, epsilon, delta, l2_bound
 *               [, mechanism text])  ->  double precision[]
 *
 * Each row's vector is made exactly `dimension` long (extra elements are ignored, missing ones
 * and NULL elements count as 0; the length is a public parameter so that the shape of the answer
 * never depends on the data), NaN elements count as 0, and a vector with infinite elements points
 * along their signs.  It is then scaled down to l2 norm l2_bound if longer, so that adding or
 * removing a row moves the vector of sums by at most l2_bound in l2 norm.  Coordinates are summed
 * exactly in 128-bit fixed point (as the scalar aggregates do).  The final function calibrates
 * the Gaussian or the l2 mechanism (or the better of the two: 'auto', the default), charges the
 * release to the budget, then draws the noise vector.
 *
 * The state is `internal` (a variable-length array of sums, data only); parallel plans move it
 * through the serialize/deserialize functions.  The parameters, the dimension among them, belong
 * to the call site and are read once per query (site.c): every buffer is sized from that one
 * dimension.  Only dp_sum_vector itself may drive these functions.
 */
#include "aggregates/state.h"

#include <math.h>

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "dpagg_accum.h"

#define VSTATE_VERSION 2
#define VNAME "dp_sum_vector"

#define DPAGG_MAX_DIMENSION 10000	/* coordinates of one dp_sum_vector release */

typedef struct VSum
{
	uint64		lo;
	int64		hi;
} VSum;

typedef struct VState
{
	int32		version;
	int32		dimension;		/* the site's, recorded to check every state against it */
	int64		rows;
	bool		released;
	ArrayType  *released_value; /* in the aggregate context, once released */
	VSum		sums[FLEXIBLE_ARRAY_MEMBER];
} VState;

/* The parameters of one call site. */
typedef struct VParams
{
	int			dimension;
	double		epsilon;
	double		delta;
	double		bound;
	double		inv_quantum;
	char		mechanism[DPAGG_MECH_SPEC_LEN];
	double	   *scratch;		/* one row, `dimension` doubles */
	dpagg_calibration cal;		/* calibrated when the site is prepared */
} VParams;

static inline __int128
vsum_get(const VSum *s)
{
	return dpagg_int128_get(s->hi, s->lo);
}

static inline void
vsum_set(VSum *s, __int128 v)
{
	dpagg_int128_set(v, &s->hi, &s->lo);
}

static VState *
vstate_new(MemoryContext cxt, int dimension)
{
	VState	   *st = MemoryContextAllocZero(cxt, offsetof(VState, sums) + sizeof(VSum) * dimension);

	st->version = VSTATE_VERSION;
	st->dimension = dimension;
	return st;
}

static void
vreport(dpagg_error *err)
{
	dpagg_report(err);
}

/* The mechanism argument as a C string (bounded). */
void
dpagg_vector_mechanism(Datum d, char *buf, size_t buflen)
{
	char	   *m = TextDatumGetCString(d);

	if (strlen(m) >= buflen)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mechanism %s is too long", dpagg_quote_input(m)),
				 errhint("Use 'gaussian', 'l2' or 'auto'.")));
	strlcpy(buf, m, buflen);
}

/* A vector release is a request of dimension T to the same core and the same caches as a scalar
 * one (dpagg_calibrate_cached: validation, auto, release-grid allowance, shared cache). */
static void
vcalibrate(const char *mech, int dimension, double epsilon, double delta, double bound,
		   dpagg_calibration *cal)
{
	dpagg_request req = dpagg_vector_request(epsilon, delta, bound, dimension);

	dpagg_calibrate_cached(mech, &req, cal);
}

/* Read and validate the parameters of a call site (site.c calls this once per query). */
void *
dpagg_vector_site_params(DpSite *site)
{
	int			nargs = list_length(site->argref->aggargtypes);
	bool		unit = site->kind == DP_SITE_UNIT_VECTOR;
	Datum		v[8];
	bool		isnull[8];
	int			i;
	VParams    *p;
	char		mech[DPAGG_MECH_SPEC_LEN] = "auto";
	int			dimension;
	int			L = 1;

	if (unit ? nargs != 8 : (nargs < 5 || nargs > 6))
		elog(ERROR, "dp_sum_vector: unexpected argument list");
	for (i = 1; i < nargs; i++)
	{
		v[i] = dpagg_site_param(site, i, &isnull[i]);
		if (unit && i == 5 && isnull[i])
			continue;			/* the analyst's omitted mechanism: auto */
		if (unit && i == 7)
			continue;			/* the unit's name, for the ledger */
		if (unit && i == 6)
		{
			L = isnull[i] ? 0 : DatumGetInt32(v[i]);
			if (L < 1)
				elog(ERROR, "dpagg: a per-unit aggregate without max_groups");
			continue;
		}
		if (isnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the parameters of %s must not be NULL", VNAME),
					 errhint("Pass dimension, epsilon, delta, l2_bound (and mechanism) as constants.")));
		if (i == 5)
			dpagg_vector_mechanism(v[5], mech, sizeof(mech));
	}
	dimension = DatumGetInt32(v[1]);
	p = MemoryContextAllocZero(site->cxt, sizeof(VParams));
	p->dimension = dimension;
	p->epsilon = DatumGetFloat8(v[2]);
	p->delta = DatumGetFloat8(v[3]);
	p->bound = DatumGetFloat8(v[4]);
	strlcpy(p->mechanism, mech, sizeof(p->mechanism));
	/* Calibrated (which validates) before any row is read: a refusal must not depend on the data
	 * (aggregates.c). */
	/* Per unit, each of a unit's L groups at (epsilon / L, delta / L) (aggregates.c): charged
	 * the call's (epsilon, delta), under zCDP L times a group's rho. */
	vcalibrate(p->mechanism, p->dimension, dpagg_share(p->epsilon, L), dpagg_share(p->delta, L),
			   p->bound, &p->cal);
	p->inv_quantum = 1.0 / dpagg_quantum_for_bound(p->bound);
	p->scratch = MemoryContextAlloc(site->cxt, sizeof(double) * dimension);
	{
		double		rho = dpagg_zcdp_rho(&p->cal);
		DpChargePart part = {p->cal.spec, p->epsilon, dpagg_charged_delta(&p->cal, p->delta),
								isnan(rho) ? rho : rho * L};

		if (unit)
			part.spec = MemoryContextStrdup(site->cxt,
											psprintf("%s per unit %s, L=%d", p->cal.spec,
													 dpagg_site_unit(site, 7), L));
		dpagg_site_set_charge(site, p->epsilon, p->delta, &part, 1);
	}
	return p;
}

void
dpagg_unit_vector_calibration(const char *mechanism, int dimension, double epsilon, double delta,
							  double l2_bound, int L, dpagg_calibration *cal)
{
	vcalibrate(mechanism ? mechanism : "auto", dimension, dpagg_share(epsilon, L),
			   dpagg_share(delta, L), l2_bound, cal);
}

extern Datum dpagg_vsum_trans(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_final(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_combine(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_serialize(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_deserialize(PG_FUNCTION_ARGS);

/* A state of this site?  (Unreachable otherwise: every state of a site is made with its
 * dimension; checked because every buffer is sized from it.) */
static void
check_vstate(const VState *st, const VParams *p)
{
	if (st->version != VSTATE_VERSION || st->dimension != p->dimension)
		elog(ERROR, "dp_sum_vector: state of the wrong kind");
}

/* Clip one row to the l2 bound and add it, coordinate by coordinate, in exact fixed point.  x is
 * the site's scratch space, `dimension` doubles.  The elements are read in place (no per-row copies):
 * float8 elements are 8 bytes, stored one after another, NULL ones only marked in the bitmap. */
static void
clip_add(VSum *sums, int dimension, double bound, double inv_quantum, double *x, ArrayType *arr)
{
	const char *p;
	const bits8 *bitmap;
	int			bitmask = 1;
	int			n,
				m,
				j;
	double		scale = 0,
				sumsq = 0,
				norm,
				factor = 1;
	bool		anyinf = false;

	if (ARR_ELEMTYPE(arr) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s expects a double precision[] vector", VNAME),
				 errhint("Cast the vector to double precision[].")));
	n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	m = Min(n, dimension);
	p = ARR_DATA_PTR(arr);
	bitmap = ARR_NULLBITMAP(arr);
	for (j = 0; j < m; j++)
	{
		double		v = 0.0;

		if (bitmap == NULL || (*bitmap & bitmask))
		{
			memcpy(&v, p, sizeof(double));
			p += sizeof(double);
		}
		if (bitmap && (bitmask <<= 1) == 0x100)
		{
			bitmap++;
			bitmask = 1;
		}
		if (isnan(v))
			v = 0.0;
		if (isinf(v))
			anyinf = true;
		x[j] = v;
	}
	if (anyinf)
		for (j = 0; j < m; j++)
			x[j] = isinf(x[j]) ? copysign(1.0, x[j]) : 0.0;
	for (j = 0; j < m; j++)
		scale = fmax(scale, fabs(x[j]));
	if (scale > 0)
	{
		for (j = 0; j < m; j++)
		{
			double		r = x[j] / scale;

			sumsq += r * r;
		}
		norm = scale * sqrt(sumsq);	/* may overflow to infinity for huge finite rows */
		/* An infinite vector has an infinite norm: scaled to the bound along its direction.
		 * The factor is computed from the scaled norm, which never overflows. */
		if (norm > bound || anyinf)
			factor = (bound / scale) / sqrt(sumsq);
		for (j = 0; j < m; j++)
		{
			int64		q = dpagg_quantize(x[j] * factor, -bound, bound, inv_quantum);

			vsum_set(&sums[j], vsum_get(&sums[j]) + q);
		}
	}
}

static void
vaccumulate(VState *st, const VParams *vp, ArrayType *arr)
{
	clip_add(st->sums, vp->dimension, vp->bound, vp->inv_quantum, vp->scratch, arr);
	st->rows++;
}

static Datum
vsum_trans(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, kind);
	const VParams *p = (const VParams *) site->params;
	VState	   *st = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);

	if (st == NULL)
		st = vstate_new(cxt, p->dimension);
	check_vstate(st, p);
	if (!PG_ARGISNULL(1))
		vaccumulate(st, p, PG_GETARG_ARRAYTYPE_P(1));
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpagg_vsum_trans);
Datum
dpagg_vsum_trans(PG_FUNCTION_ARGS)
{
	return vsum_trans(fcinfo, DP_SITE_VECTOR);
}

PG_FUNCTION_INFO_V1(dpagg_unit_vsum_trans);
Datum
dpagg_unit_vsum_trans(PG_FUNCTION_ARGS)
{
	return vsum_trans(fcinfo, DP_SITE_UNIT_VECTOR);
}

static Datum
vsum_combine(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, kind);
	const VParams *p = (const VParams *) site->params;
	VState	   *a = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);
	VState	   *b = PG_ARGISNULL(1) ? NULL : (VState *) PG_GETARG_POINTER(1);
	int			j;

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	check_vstate(b, p);
	if (a == NULL)
	{
		a = vstate_new(cxt, p->dimension);
		memcpy(a, b, offsetof(VState, sums) + sizeof(VSum) * p->dimension);
		a->released = false;
		a->released_value = NULL;
		PG_RETURN_POINTER(a);
	}
	check_vstate(a, p);
	for (j = 0; j < p->dimension; j++)
		vsum_set(&a->sums[j], vsum_get(&a->sums[j]) + vsum_get(&b->sums[j]));
	a->rows += b->rows;
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(dpagg_vsum_combine);
Datum
dpagg_vsum_combine(PG_FUNCTION_ARGS)
{
	return vsum_combine(fcinfo, DP_SITE_VECTOR);
}

PG_FUNCTION_INFO_V1(dpagg_unit_vsum_combine);
Datum
dpagg_unit_vsum_combine(PG_FUNCTION_ARGS)
{
	return vsum_combine(fcinfo, DP_SITE_UNIT_VECTOR);
}

PG_FUNCTION_INFO_V1(dpagg_vsum_serialize);
Datum
dpagg_vsum_serialize(PG_FUNCTION_ARGS)
{
	VState	   *st;
	Size		len;
	bytea	   *out;

	(void) dpagg_aggregate_context(fcinfo, VNAME);
	st = (VState *) PG_GETARG_POINTER(0);
	if (st->version != VSTATE_VERSION || st->dimension < 1 || st->dimension > DPAGG_MAX_DIMENSION)
		elog(ERROR, "dp_sum_vector: state of the wrong kind");
	len = offsetof(VState, sums) + sizeof(VSum) * st->dimension;
	out = palloc(VARHDRSZ + len);
	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), st, len);
	((VState *) VARDATA(out))->released_value = NULL;
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dpagg_vsum_deserialize);
Datum
dpagg_vsum_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	VState		head;
	VState	   *st;
	Size		len;

	(void) dpagg_aggregate_context(fcinfo, VNAME);
	in = PG_GETARG_BYTEA_PP(0);
	len = VARSIZE_ANY_EXHDR(in);
	/* Bytes from outside (an aggregate with this deserialisation function and another's
	 * serialisation, which only a superuser can build: the state is internal and the function
	 * not public): malformed input, 22P03 as core's binary input functions (array_recv). */
	if (len < offsetof(VState, sums))
		goto malformed;
	memcpy(&head, VARDATA_ANY(in), offsetof(VState, sums));
	if (head.version != VSTATE_VERSION || head.dimension < 1 || head.dimension > DPAGG_MAX_DIMENSION ||
		len != offsetof(VState, sums) + sizeof(VSum) * head.dimension)
		goto malformed;
	st = palloc(len);
	memcpy(st, VARDATA_ANY(in), len);
	st->released = false;
	st->released_value = NULL;
	PG_RETURN_POINTER(st);
malformed:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed partial state of %s", VNAME),
			 errhint("Only dp_sum_vector's own serialisation function makes its partial states.")));
	PG_RETURN_NULL();			/* keep the compiler quiet */
}

static Datum
vsum_final(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_final(fcinfo, kind);
	VParams    *p = (VParams *) site->params;
	VState	   *st = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);
	dpagg_error err;
	__int128   *quanta;
	double	   *out;
	Datum	   *elems;
	ArrayType  *result;
	int			j;

	if (st == NULL)
		st = vstate_new(CurrentMemoryContext, p->dimension);	/* an empty group: noise only */
	check_vstate(st, p);
	if (st->released)
		PG_RETURN_ARRAYTYPE_P(DatumGetArrayTypePCopy(PointerGetDatum(st->released_value)));
	dpagg_site_charge(site);	/* normally charged already, before the first row */

	quanta = palloc(sizeof(__int128) * p->dimension);
	out = palloc(sizeof(double) * p->dimension);
	for (j = 0; j < p->dimension; j++)
		quanta[j] = vsum_get(&st->sums[j]);
	if (dpagg_release_vector(&p->cal, quanta, 1.0 / p->inv_quantum, out, &err) != DPAGG_OK)
		vreport(&err);
	elems = palloc(sizeof(Datum) * p->dimension);
	for (j = 0; j < p->dimension; j++)
		elems[j] = Float8GetDatum(out[j]);
	result = construct_array(elems, p->dimension, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
							 TYPALIGN_DOUBLE);
	if (!PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		st->released_value = DatumGetArrayTypePCopy(PointerGetDatum(result));
		st->released = true;
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_ARRAYTYPE_P(result);
}

PG_FUNCTION_INFO_V1(dpagg_vsum_final);
Datum
dpagg_vsum_final(PG_FUNCTION_ARGS)
{
	return vsum_final(fcinfo, DP_SITE_VECTOR);
}

PG_FUNCTION_INFO_V1(dpagg_unit_vsum_final);
Datum
dpagg_unit_vsum_final(PG_FUNCTION_ARGS)
{
	return vsum_final(fcinfo, DP_SITE_UNIT_VECTOR);
}

PG_FUNCTION_INFO_V1(dpagg_merge_vsum_final);
Datum
dpagg_merge_vsum_final(PG_FUNCTION_ARGS)
{
	return vsum_final(fcinfo, DP_SITE_MERGE_VECTOR);
}

/*
 * dp_sum_vector split in two, for Citus (citus.c, partial.c for the scalar ones).
 *
 * dpagg_vquanta_sum(value, dimension, l2_bound): the exact sum of the rows' vectors, each clipped
 * and counted in quanta exactly as dp_sum_vector's own state adds them, with the number of rows:
 * an aggregate with a bytea state and a combine function, which Citus runs on the workers and
 * combines on the coordinator.  Like sum(), it gives exact values to whoever may read the rows
 * (restricted roles may not call it on private data, and private relations are not split).
 *
 * dpagg_merge_vector(partial, dimension, epsilon, delta, l2_bound [, mechanism]): dp_sum_vector
 * over such partial sums (kind DP_SITE_MERGE_VECTOR): the call site, calibration, charge and
 * release of dp_sum_vector.  A partial sum its rows could not make (its l2 norm above the rows
 * times the largest norm of one clipped row in quanta) is refused.
 *
 * The bytea: a version, the dimension, the rows, then the sums (128 bits each, low word first),
 * read and written with memcpy (a bytea's data is only 4-byte aligned).
 */
#define VPARTIAL_VERSION 0x76710001
#define VPARTIAL_HEAD 16		/* int32 version, int32 dimension, int64 rows */

static Size
vpartial_size(int dimension)
{
	return VARHDRSZ + VPARTIAL_HEAD + (Size) dimension * 16;
}

static void
vpartial_head(const bytea *b, int32 *dimension, int64 *rows)
{
	int32		version;
	const char *d = VARDATA_ANY(b);

	if (VARSIZE_ANY_EXHDR(b) < VPARTIAL_HEAD)
		goto bad;
	memcpy(&version, d, 4);
	memcpy(dimension, d + 4, 4);
	memcpy(rows, d + 8, 8);
	if (version != VPARTIAL_VERSION || *dimension < 1 || *dimension > DPAGG_MAX_DIMENSION ||
		*rows < 0 || VARSIZE_ANY_EXHDR(b) != VPARTIAL_HEAD + (Size) *dimension * 16)
		goto bad;
	return;
bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid partial sum for dp_sum_vector's merge"),
			 errhint("A partial sum is dpagg_vquanta_sum(value, dimension, l2_bound) with the merge's dimension and bound.")));
}

static __int128
vpartial_get(const bytea *b, int j)
{
	VSum		v;

	memcpy(&v, VARDATA_ANY(b) + VPARTIAL_HEAD + (Size) j * 16, 16);
	return vsum_get(&v);
}

static void
vpartial_set(bytea *b, int j, __int128 x)
{
	VSum		v;

	vsum_set(&v, x);
	memcpy(VARDATA(b) + VPARTIAL_HEAD + (Size) j * 16, &v, 16);
}

static void
vpartial_set_rows(bytea *b, int64 rows)
{
	memcpy(VARDATA(b) + 8, &rows, 8);
}

static bytea *
vpartial_new(MemoryContext cxt, int dimension)
{
	bytea	   *b = MemoryContextAllocZero(cxt, vpartial_size(dimension));
	int32		version = VPARTIAL_VERSION;

	SET_VARSIZE(b, vpartial_size(dimension));
	memcpy(VARDATA(b), &version, 4);
	memcpy(VARDATA(b) + 4, &dimension, 4);
	return b;
}

typedef struct VQuantaScratch
{
	int			dimension;
	double	   *x;
	VSum	   *sums;
} VQuantaScratch;

PG_FUNCTION_INFO_V1(dpagg_vquanta_trans);
Datum
dpagg_vquanta_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	bytea	   *st;
	int32		dimension,
				sd;
	int64		rows;
	double		bound;
	VQuantaScratch *sc = (VQuantaScratch *) fcinfo->flinfo->fn_extra;
	int			j;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg_vquanta_trans can only be called as the transition function of dpagg_vquanta_sum")));
	if (PG_ARGISNULL(2) || (dimension = PG_GETARG_INT32(2)) < 1 || dimension > DPAGG_MAX_DIMENSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dimension must be between 1 and 10000"),
				 errhint("Pass the length of the vectors.")));
	if (PG_ARGISNULL(3) || !isfinite(bound = PG_GETARG_FLOAT8(3)) || !(bound > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("l2_bound must be a finite number greater than 0"),
				 errhint("Pass the largest l2 norm one row may contribute.")));
	st = PG_ARGISNULL(0) ? vpartial_new(cxt, dimension) : PG_GETARG_BYTEA_P(0);
	vpartial_head(st, &sd, &rows);
	if (sd != dimension)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the dimension of dpagg_vquanta_sum changed between rows")));
	if (PG_ARGISNULL(1))
		PG_RETURN_BYTEA_P(st);
	if (sc == NULL || sc->dimension != dimension)
	{
		sc = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(VQuantaScratch));
		sc->dimension = dimension;
		sc->x = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(double) * dimension);
		sc->sums = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(VSum) * dimension);
		fcinfo->flinfo->fn_extra = sc;
	}
	/* the row's clipped quanta, added as dp_sum_vector adds them */
	memset(sc->sums, 0, sizeof(VSum) * dimension);
	clip_add(sc->sums, dimension, bound, 1.0 / dpagg_quantum_for_bound(bound), sc->x,
			 PG_GETARG_ARRAYTYPE_P(1));
	/* In place: st is the state this aggregate made in its context, or PG_GETARG_BYTEA_P's
	 * detoasted copy (which the aggregate copies into its context when returned). */
	for (j = 0; j < dimension; j++)
		vpartial_set(st, j, vpartial_get(st, j) + vsum_get(&sc->sums[j]));
	vpartial_set_rows(st, rows + 1);
	PG_RETURN_BYTEA_P(st);
}

PG_FUNCTION_INFO_V1(dpagg_vquanta_combine);
Datum
dpagg_vquanta_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	bytea	   *a,
			   *b;
	int32		da,
				db;
	int64		ra,
				rb;
	int			j;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg_vquanta_combine can only be called as the combine function of dpagg_vquanta_sum")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	b = PG_GETARG_BYTEA_PP(1);
	vpartial_head(b, &db, &rb);
	if (PG_ARGISNULL(0))
	{
		a = vpartial_new(cxt, db);
		for (j = 0; j < db; j++)
			vpartial_set(a, j, vpartial_get(b, j));
		vpartial_set_rows(a, rb);
		PG_RETURN_BYTEA_P(a);
	}
	a = PG_GETARG_BYTEA_P(0);
	vpartial_head(a, &da, &ra);
	if (da != db)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpagg_vquanta_sum: partial sums of different dimensions")));
	if (ra > PG_INT64_MAX - rb)
		ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("too many rows")));
	for (j = 0; j < da; j++)
		vpartial_set(a, j, vpartial_get(a, j) + vpartial_get(b, j));
	vpartial_set_rows(a, ra + rb);
	PG_RETURN_BYTEA_P(a);
}

PG_FUNCTION_INFO_V1(dpagg_merge_vsum_trans);
Datum
dpagg_merge_vsum_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = dpagg_aggregate_context(fcinfo, VNAME);
	DpSite	   *site = dpagg_site_of_trans(fcinfo, DP_SITE_MERGE_VECTOR);
	const VParams *p = (const VParams *) site->params;
	VState	   *st = PG_ARGISNULL(0) ? NULL : (VState *) PG_GETARG_POINTER(0);
	bytea	   *b;
	int32		d;
	int64		rows;
	long double sumsq = 0,
				rowmax;
	int			j;

	if (st == NULL)
		st = vstate_new(cxt, p->dimension);
	check_vstate(st, p);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);	/* no row of this group on a shard */
	b = PG_GETARG_BYTEA_PP(1);
	vpartial_head(b, &d, &rows);
	if (d != p->dimension)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid partial sum for dp_sum_vector's merge: its dimension is %d, not %d", d, p->dimension)));
	/*
	 * One row adds its vector clipped to l2 norm B, each coordinate rounded to a quantum: at most
	 * B/q + sqrt(d)/2 in quanta (the triangle inequality), with a margin for the clipping's own
	 * rounding; a partial sum of `rows` rows is at most `rows` times that.
	 */
	rowmax = (long double) p->bound * p->inv_quantum * (1 + 1e-9L) + sqrtl((long double) d) / 2 + 1;
	for (j = 0; j < d; j++)
	{
		long double v = (long double) vpartial_get(b, j);

		sumsq += v * v;
	}
	if (sqrtl(sumsq) > rowmax * rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid partial sum for dp_sum_vector's merge: its l2 norm is more than its rows allow"),
				 errhint("A partial sum is dpagg_vquanta_sum(value, dimension, l2_bound) with the merge's dimension and bound.")));
	if (st->rows > PG_INT64_MAX - rows)
		ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("too many rows")));
	/* each sum stays within rows * 2^53 < 2^117: no overflow of the 128-bit sums */
	for (j = 0; j < d; j++)
		vsum_set(&st->sums[j], vsum_get(&st->sums[j]) + vpartial_get(b, j));
	st->rows += rows;
	PG_RETURN_POINTER(st);
}

/*
 * dpagg_vadd(vector, dimension): a unit's vector sum for the per-unit dp_sum_vector (bound.c):
 * the first `dimension` elements of each vector added coordinate by coordinate, NULL and missing
 * elements as 0, saturating to +-Infinity (never an overflow error).  An ordinary sum of what it
 * is given.
 *
 * The aggregate is public (the per-unit rewrite puts it in analysts' plans, and aggregate execution
 * checks EXECUTE on the aggregate only); its transition and combine functions are not (the end of
 * the dpagg_vadd declarations in scripts/generate_sql.py).  Every refusal here is still an ereport
 * with a real SQLSTATE, never an internal error (XX000), for whoever may call them:
 *   - the dimension differs between rows (the only misuse open to callers of the aggregate: by the
 *     transition function within a process, by the combine function between parallel workers), and
 *     a state of another size: 22023 invalid_parameter_value, as dpagg_vquanta_sum's identical
 *     checks (core's array_agg uses 2202E for arrays of different dimensionality, but here it is
 *     the dimension argument that is wrong, not an array subscript);
 *   - a state with NULL elements (only an aggregate built on these functions with its own initial
 *     state could pass one): 22004 null_value_not_allowed, as core uses for arrays that must not
 *     contain NULLs;
 *   - a call outside an aggregate: 0A000 feature_not_supported, what core raises for a function
 *     called in a context that cannot run it (a set-returning function where no set is accepted)
 *     and what dpagg's other support functions (dpagg_aggregate_context, dpagg_vquanta_trans)
 *     raise.  Core's own transition functions use elog there, which is an XX000.
 */
static ArrayType *
vadd_new(int dimension)
{
	Datum	   *zeros = palloc(sizeof(Datum) * dimension);
	int			j;

	for (j = 0; j < dimension; j++)
		zeros[j] = Float8GetDatum(0.0);
	return construct_array(zeros, dimension, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
						   TYPALIGN_DOUBLE);
}

static void
vadd_into(ArrayType *acc, ArrayType *arr)
{
	double	   *a = (double *) ARR_DATA_PTR(acc);
	int			dim = ArrayGetNItems(ARR_NDIM(acc), ARR_DIMS(acc));
	int			n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	const char *p = ARR_DATA_PTR(arr);
	const bits8 *bitmap = ARR_NULLBITMAP(arr);
	int			bitmask = 1;
	int			j;

	if (ARR_ELEMTYPE(arr) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("dpagg_vadd expects double precision[] vectors"),
				 errhint("Cast the vectors to double precision[].")));
	for (j = 0; j < Min(n, dim); j++)
	{
		if (bitmap == NULL || (*bitmap & bitmask))
		{
			double		v;

			memcpy(&v, p, sizeof(double));
			p += sizeof(double);
			a[j] += v;
		}
		if (bitmap && (bitmask <<= 1) == 0x100)
		{
			bitmap++;
			bitmask = 1;
		}
	}
}

/*
 * A state of dpagg_vadd: `dimension` coordinates (any number from 1 to the largest dimension if
 * dimension is -1), none NULL.  The state is made by vadd_new, one double per coordinate, and is
 * added to in place; the checks keep vadd_into within it whatever array it is given.
 */
static void
vadd_check_state(ArrayType *st, int dimension)
{
	int			n = ArrayGetNItems(ARR_NDIM(st), ARR_DIMS(st));

	if (ARR_ELEMTYPE(st) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("dpagg_vadd expects double precision[] vectors"),
				 errhint("Cast the vectors to double precision[].")));
	if (dimension < 0 ? n < 1 || n > DPAGG_MAX_DIMENSION : n != dimension)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the dimension of dpagg_vadd changed between rows"),
				 dimension < 0 ?
				 errdetail("A partial sum has %d coordinates, not between 1 and %d.",
						   n, DPAGG_MAX_DIMENSION) :
				 errdetail("The sum so far has %d coordinates, not %d.", n, dimension),
				 errhint("Pass the same dimension on every row, as a constant.")));
	if (ARR_HASNULL(st))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a partial sum of dpagg_vadd must not contain NULL elements"),
				 errhint("Use the aggregate dpagg_vadd(vector, dimension), which makes its own sums.")));
}

PG_FUNCTION_INFO_V1(dpagg_vadd_trans);
Datum
dpagg_vadd_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	ArrayType  *acc;
	int			dimension;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg_vadd_trans can only be called as the transition function of dpagg_vadd"),
				 errhint("Use the aggregate dpagg_vadd(vector, dimension).")));
	if (PG_ARGISNULL(2) || (dimension = PG_GETARG_INT32(2)) < 1 || dimension > DPAGG_MAX_DIMENSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dimension must be between 1 and 10000"),
				 errhint("Pass the number of coordinates as a constant.")));
	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		acc = vadd_new(dimension);
		MemoryContextSwitchTo(old);
	}
	else
		acc = PG_GETARG_ARRAYTYPE_P(0);
	vadd_check_state(acc, dimension);
	if (!PG_ARGISNULL(1))
		vadd_into(acc, PG_GETARG_ARRAYTYPE_P(1));
	PG_RETURN_ARRAYTYPE_P(acc);
}

PG_FUNCTION_INFO_V1(dpagg_vadd_combine);
Datum
dpagg_vadd_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	ArrayType  *a;
	ArrayType  *b;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg_vadd_combine can only be called as the combine function of dpagg_vadd"),
				 errhint("Use the aggregate dpagg_vadd(vector, dimension).")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	b = PG_GETARG_ARRAYTYPE_P(1);
	vadd_check_state(b, -1);
	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		a = DatumGetArrayTypePCopy(PointerGetDatum(b));
		MemoryContextSwitchTo(old);
		PG_RETURN_ARRAYTYPE_P(a);
	}
	a = PG_GETARG_ARRAYTYPE_P(0);
	vadd_check_state(a, ArrayGetNItems(ARR_NDIM(b), ARR_DIMS(b)));
	vadd_into(a, b);
	PG_RETURN_ARRAYTYPE_P(a);
}

/*
 * dp_calibrate_vector(mechanism, dimension, epsilon, delta, l2_bound): the calibration a
 * dp_sum_vector with these parameters would use; releases nothing.
 */
PG_FUNCTION_INFO_V1(dpagg_calibrate_vector_sql);
Datum
dpagg_calibrate_vector_sql(PG_FUNCTION_ARGS)
{
	char		mech[DPAGG_MECH_SPEC_LEN] = "auto";
	dpagg_calibration cal;
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	double		rho;
	int			i;

	for (i = 1; i < 5; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the parameters of dp_calibrate_vector must not be NULL"),
					 errhint("Pass dimension, epsilon, delta and l2_bound.")));
	if (!PG_ARGISNULL(0))
		dpagg_vector_mechanism(PG_GETARG_DATUM(0), mech, sizeof(mech));
	vcalibrate(mech, PG_GETARG_INT32(1), PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3),
			   PG_GETARG_FLOAT8(4), &cal);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = CStringGetTextDatum(cal.spec);
	values[1] = Float8GetDatum(cal.scale);
	values[2] = Float8GetDatum(cal.l2);	/* E ||X||_2^2 */
	values[3] = Float8GetDatum(cal.l2 / cal.dimension);
	rho = dpagg_zcdp_rho(&cal);
	values[4] = Float8GetDatum(rho);
	nulls[4] = isnan(rho);
	values[5] = Float8GetDatum(cal.delta_bound);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
