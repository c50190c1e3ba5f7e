/*
 * partial.c — dp_sum, dp_avg and dp_count split in two, for Citus (citus.c; docs/guides/
 * citus.md): exact partial sums made where the rows are, and one release where the ledger is.
 *
 *   dpagg_quanta_sum(x, lower, upper), dpagg_quanta_avg(x, lower, upper)
 *       one row's contribution to dp_sum's (dp_avg's) exact sum: the value clamped and counted in
 *       the quanta that dp_sum's state adds (aggregates.c, src/core/dpagg_accum.h), an integer of
 *       at most 2^53.  Summed with the built-in sum(bigint), whose numeric result is exact, and
 *       counted with count(): aggregates Citus runs natively on the workers and combines on the
 *       coordinator.  (An aggregate of dpagg's own with several arguments would go through
 *       Citus's worker_partial_agg, which packs each row's arguments into a record: three times
 *       slower than sum.)  Like sum(), these give exact values; restricted roles cannot call them
 *       on private data (restrict.c), and nobody can over a private relation (bound.c).
 *   dpagg_quanta_sum_total(x, lower, upper), dpagg_quanta_avg_total(x, lower, upper)
 *       sum(dpagg_quanta_sum(x, lower, upper)) (_avg) as one aggregate: what a node plans that sum
 *       as over its own tables (dpagg_fuse_quanta_sums, from the planner hook), so that a worker
 *       makes its partial sum with one call per row.
 *   dpagg_merge_sum(quanta, n, epsilon, delta, lower, upper, mechanism, integer_values),
 *   dpagg_merge_avg(quanta, n, epsilon, delta, lower, upper, mechanism),
 *   dpagg_merge_count(n, epsilon, delta, mechanism)
 *       dpagg's own aggregates (kinds DP_SITE_MERGE_*): the call site, its calibration, the charge
 *       and the release are those of dp_sum, dp_avg and dp_count; each row is a partial sum of
 *       quanta (numeric) and its count of values, added exactly into the same 128-bit state.
 *
 *   dpagg_group_key(key)
 *       its argument, unchanged: the direct form's group key (citus.c).
 *
 * (dp_sum_vector's partial sums and merge are in vector.c.)
 *
 * A partial sum must be one the count of values could make (each value is at most 2^53 quanta):
 * the merge refuses anything else, so that what it is handed cannot be larger than the rows it
 * claims (a consistency check, e.g. of bounds that differ between the partial sums and the merge:
 * the count is the sender's word like the sum, so it cannot bound a sender who lies).  dp_sum's
 * merge also takes partial sums without a count (NULL), which its rewrite on Citus sends since
 * its release reads the sum only: they are added within 2^120 quanta in all.  The bounds are the
 * call site's, the same in the rewrite's inner and outer query.
 */
#include "aggregates/state.h"

#include <math.h>

#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_func.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

#include "dpagg_accum.h"

static void bad_partial(const char *what);

/* ------------------------------------------------------------------------------------------
 * One row's quanta.
 */
/* The quanta of one call's bounds, computed once per call site (fn_extra) rather than per row:
 * the quantum for the bound (ilogb, ldexp and a division) was most of a row's cost. */
typedef struct QuantaRule
{
	bool		set;
	double		lower,
				upper;			/* the bounds it was made for */
	bool		valid;			/* the bounds make a finite, positive sensitivity */
	double		mid,
				bound,
				inv_quantum;
} QuantaRule;

static pg_attribute_always_inline const QuantaRule *
quanta_rule(FunctionCallInfo fcinfo, double lower, double upper, bool centred)
{
	QuantaRule *r = (QuantaRule *) fcinfo->flinfo->fn_extra;

	if (unlikely(r == NULL))
	{
		r = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(QuantaRule));
		fcinfo->flinfo->fn_extra = r;
	}
	if (unlikely(!r->set || r->lower != lower || r->upper != upper))
	{
		r->lower = lower;
		r->upper = upper;
		r->mid = lower / 2 + upper / 2;
		r->bound = centred ? (upper - lower) / 2.0 : fmax(fabs(lower), fabs(upper));
		/* invalid bounds give 0: refused when the query was planned (citus.c) */
		r->valid = r->bound > 0 && isfinite(r->bound);
		r->inv_quantum = r->valid ? 1.0 / dpagg_quantum_for_bound(r->bound) : 0;
		/* bounds below about 1e-300 have a quantum whose inverse overflows: a row's quanta would
		 * not fit an int64 (an attack review); no release takes such bounds (sensitivity at least
		 * 1e-150), so they count as invalid here too */
		if (!isfinite(r->inv_quantum))
		{
			r->valid = false;
			r->inv_quantum = 0;
		}
		r->set = true;
	}
	return r;
}

static pg_attribute_always_inline int64
quanta_of(FunctionCallInfo fcinfo, double x, double lower, double upper, bool centred)
{
	const QuantaRule *r = quanta_rule(fcinfo, lower, upper, centred);

	if (!r->valid)
		return 0;
	if (centred)
		return dpagg_quantize(dpagg_clamp(x, lower, upper) - r->mid, -r->bound, r->bound, r->inv_quantum);
	return dpagg_quantize(x, lower, upper, r->inv_quantum);
}

#define QUANTA_FN(name, vt, centred) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_INT64(quanta_of(fcinfo, value_as_double(fcinfo, 0, vt), PG_GETARG_FLOAT8(1), \
								  PG_GETARG_FLOAT8(2), centred)); \
	}

QUANTA_FN(dpagg_quanta_sum_int2, VT_INT2, false)
QUANTA_FN(dpagg_quanta_sum_int4, VT_INT4, false)
QUANTA_FN(dpagg_quanta_sum_int8, VT_INT8, false)
QUANTA_FN(dpagg_quanta_sum_float4, VT_FLOAT4, false)
QUANTA_FN(dpagg_quanta_sum_float8, VT_FLOAT8, false)
QUANTA_FN(dpagg_quanta_sum_numeric, VT_NUMERIC, false)
QUANTA_FN(dpagg_quanta_avg_int2, VT_INT2, true)
QUANTA_FN(dpagg_quanta_avg_int4, VT_INT4, true)
QUANTA_FN(dpagg_quanta_avg_int8, VT_INT8, true)
QUANTA_FN(dpagg_quanta_avg_float4, VT_FLOAT4, true)
QUANTA_FN(dpagg_quanta_avg_float8, VT_FLOAT8, true)
QUANTA_FN(dpagg_quanta_avg_numeric, VT_NUMERIC, true)

/* ------------------------------------------------------------------------------------------
 * The safe form's partial sums in one call per row (docs/citus.md §5).  Citus sends each worker
 * sum(dpagg_quanta_sum(x, lower, upper)): per row, the quanta function and then sum(bigint)'s
 * transition, two calls where native sum() makes one.  The node that plans such a query over its
 * own tables (a worker planning a shard query, or one server) plans it as
 * dpagg_quanta_sum_total(x, lower, upper) instead (dpagg_fuse_quanta_sums below): the same
 * exact sum, as the same numeric (NULL when no value was counted, as sum() gives), made by one
 * transition function that clamps, quantizes and adds.  The coordinator's query, which reads
 * Citus tables, is left as it is: Citus splits sum() and cannot split an aggregate of its own.
 */
typedef struct QuantaTotal
{
	__int128	sum;			/* exact sum of the counted values' quanta (each at most 2^53) */
	int64		n;				/* values counted */
} QuantaTotal;

static void
total_outside_aggregate(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s can only be called as a support function of dpagg's partial-sum aggregates (dpagg_quanta_sum_total, dpagg_partial_sum and their _avg forms)",
					what)));
}

/* Is aggfnoid's final function dpagg_partial_final (dpagg_partial_sum, _avg)? */
extern Datum dpagg_partial_final(PG_FUNCTION_ARGS);
static bool
partial_final_of(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Oid			final;

	if (!HeapTupleIsValid(tup))
		return false;
	final = ((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn;
	ReleaseSysCache(tup);
	return dpagg_fn_address(final) == dpagg_partial_final;
}

static const Oid value_type_oid[] = {InvalidOid, INT2OID, INT4OID, INT8OID, FLOAT4OID, FLOAT8OID, NUMERICOID};

/*
 * Once per executor, before the first row: the role running the query may execute the quanta
 * function this aggregate stands for (dpagg_quanta_sum or _avg for its value type, in its own
 * schema).  The planner put the aggregate where the query named sum() over that function
 * (dpagg_fuse_quanta_sums), so the executor's check of the function is made here: a plan made for
 * one role and run by another, or a privilege revoked since, is checked as the query was written
 * (an attack review).  Leaves fn_extra set, so that it runs once.
 */
static pg_noinline void
total_first_call(FunctionCallInfo fcinfo, ValueType vt, bool centred)
{
	Oid			argtypes[3] = {value_type_oid[vt], FLOAT8OID, FLOAT8OID};
	Oid			fn;
	AclResult	acl;
	Aggref	   *agg = AggGetAggref(fcinfo);

	fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(QuantaRule));
	/* dpagg_partial_sum and _avg share the transition but stand for no quanta function (they are
	 * checked as written; an attack review) */
	if (agg != NULL && partial_final_of(agg->aggfnoid))
		return;
	fn = dpagg_function_in(get_func_namespace(fcinfo->flinfo->fn_oid),
					 centred ? "dpagg_quanta_avg" : "dpagg_quanta_sum", argtypes, 3);
	if (!OidIsValid(fn))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("%s is missing from dpagg's schema", centred ? "dpagg_quanta_avg" : "dpagg_quanta_sum"),
				 errhint("Recreate the extension.")));
	acl = pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE);
	if (acl != ACLCHECK_OK)
	{
		fcinfo->flinfo->fn_extra = NULL;	/* checked again, should the error be caught */
		aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(fn));
	}
}

static inline Datum
total_trans(FunctionCallInfo fcinfo, ValueType vt, bool centred)
{
	QuantaTotal *st = PG_ARGISNULL(0) ? NULL : (QuantaTotal *) PG_GETARG_POINTER(0);

	if (unlikely(fcinfo->flinfo->fn_extra == NULL))
		total_first_call(fcinfo, vt, centred);
	if (unlikely(st == NULL))
	{
		MemoryContext cxt;

		if (!AggCheckCallContext(fcinfo, &cxt))
			total_outside_aggregate("dpagg_quanta_total_trans");
		st = MemoryContextAllocZero(cxt, sizeof(QuantaTotal));
	}
	/* as the strict quanta function under sum(): a NULL anywhere counts nothing */
	if (likely(!PG_ARGISNULL(1) && !PG_ARGISNULL(2) && !PG_ARGISNULL(3)))
	{
		st->sum += quanta_of(fcinfo, value_as_double(fcinfo, 1, vt), PG_GETARG_FLOAT8(2),
							 PG_GETARG_FLOAT8(3), centred);
		st->n++;
	}
	PG_RETURN_POINTER(st);
}

#define TOTAL_FN(name, vt, centred) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return total_trans(fcinfo, vt, centred); }

TOTAL_FN(dpagg_quanta_sum_total_trans_int2, VT_INT2, false)
TOTAL_FN(dpagg_quanta_sum_total_trans_int4, VT_INT4, false)
TOTAL_FN(dpagg_quanta_sum_total_trans_int8, VT_INT8, false)
TOTAL_FN(dpagg_quanta_sum_total_trans_float4, VT_FLOAT4, false)
TOTAL_FN(dpagg_quanta_sum_total_trans_float8, VT_FLOAT8, false)
TOTAL_FN(dpagg_quanta_sum_total_trans_numeric, VT_NUMERIC, false)
TOTAL_FN(dpagg_quanta_avg_total_trans_int2, VT_INT2, true)
TOTAL_FN(dpagg_quanta_avg_total_trans_int4, VT_INT4, true)
TOTAL_FN(dpagg_quanta_avg_total_trans_int8, VT_INT8, true)
TOTAL_FN(dpagg_quanta_avg_total_trans_float4, VT_FLOAT4, true)
TOTAL_FN(dpagg_quanta_avg_total_trans_float8, VT_FLOAT8, true)
TOTAL_FN(dpagg_quanta_avg_total_trans_numeric, VT_NUMERIC, true)

/* A 128-bit integer as a numeric (through its decimal digits: once per group). */
static Datum
int128_to_numeric(__int128 v)
{
	char		buf[48];
	int			pos = sizeof(buf) - 1;
	unsigned __int128 u = v < 0 ? -(unsigned __int128) v : (unsigned __int128) v;

	buf[pos] = '\0';
	do
	{
		buf[--pos] = (char) ('0' + (int) (u % 10));
		u /= 10;
	} while (u != 0);
	if (v < 0)
		buf[--pos] = '-';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf + pos), ObjectIdGetDatum(InvalidOid),
							   Int32GetDatum(-1));
}

/* A final function's state (checked to be called by an aggregate), or NULL for none. */
static QuantaTotal *
final_total(FunctionCallInfo fcinfo, const char *what)
{
	if (!AggCheckCallContext(fcinfo, NULL))
		total_outside_aggregate(what);
	return PG_ARGISNULL(0) ? NULL : (QuantaTotal *) PG_GETARG_POINTER(0);
}

PG_FUNCTION_INFO_V1(dpagg_quanta_total_final);
Datum
dpagg_quanta_total_final(PG_FUNCTION_ARGS)
{
	QuantaTotal *st = final_total(fcinfo, "dpagg_quanta_total_final");

	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(int128_to_numeric(st->sum));
}

/* The number of values the same transition counted: dpagg_quanta_*_count, which shares the
 * transition of a dpagg_quanta_*_total over the same arguments (count(x) beside it, below). */
PG_FUNCTION_INFO_V1(dpagg_quanta_total_count);
Datum
dpagg_quanta_total_count(PG_FUNCTION_ARGS)
{
	QuantaTotal *st = final_total(fcinfo, "dpagg_quanta_total_count");

	PG_RETURN_INT64(st == NULL ? 0 : st->n);
}

/* Parallel plans on a node: two states added (each within 2^117 quanta, so this never wraps;
 * checked all the same). */
PG_FUNCTION_INFO_V1(dpagg_quanta_total_combine);
Datum
dpagg_quanta_total_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	QuantaTotal *a,
			   *b;

	if (!AggCheckCallContext(fcinfo, &cxt))
		total_outside_aggregate("dpagg_quanta_total_combine");
	a = PG_ARGISNULL(0) ? NULL : (QuantaTotal *) PG_GETARG_POINTER(0);
	b = PG_ARGISNULL(1) ? NULL : (QuantaTotal *) PG_GETARG_POINTER(1);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = MemoryContextAllocZero(cxt, sizeof(QuantaTotal));
	if (__builtin_add_overflow(a->sum, b->sum, &a->sum) || __builtin_add_overflow(a->n, b->n, &a->n))
		bad_partial("the sum overflows 128 bits");
	PG_RETURN_POINTER(a);
}

/* Between a node's parallel workers and their leader only: the state's bytes as they are. */
PG_FUNCTION_INFO_V1(dpagg_quanta_total_serialize);
Datum
dpagg_quanta_total_serialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;

	if (!AggCheckCallContext(fcinfo, NULL))
		total_outside_aggregate("dpagg_quanta_total_serialize");
	b = palloc(VARHDRSZ + sizeof(QuantaTotal));
	SET_VARSIZE(b, VARHDRSZ + sizeof(QuantaTotal));
	memcpy(VARDATA(b), PG_GETARG_POINTER(0), sizeof(QuantaTotal));
	PG_RETURN_BYTEA_P(b);
}

PG_FUNCTION_INFO_V1(dpagg_quanta_total_deserialize);
Datum
dpagg_quanta_total_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	QuantaTotal *st;

	if (!AggCheckCallContext(fcinfo, NULL))
		total_outside_aggregate("dpagg_quanta_total_deserialize");
	if (VARSIZE_ANY_EXHDR(b) != sizeof(QuantaTotal))
		bad_partial("not a serialized total");
	st = palloc(sizeof(QuantaTotal));
	memcpy(st, VARDATA_ANY(b), sizeof(QuantaTotal));
	PG_RETURN_POINTER(st);
}

/* The quanta functions, in the order of QUANTA_FN above, with the transition function of the
 * aggregate that replaces sum() over each, and that aggregate's name and value type. */
static const struct
{
	PGFunction	quanta;
	PGFunction	total_trans;
	const char *total;
	Oid			type;
}			fusable[] = {
	{dpagg_quanta_sum_int2, dpagg_quanta_sum_total_trans_int2, "dpagg_quanta_sum_total", INT2OID},
	{dpagg_quanta_sum_int4, dpagg_quanta_sum_total_trans_int4, "dpagg_quanta_sum_total", INT4OID},
	{dpagg_quanta_sum_int8, dpagg_quanta_sum_total_trans_int8, "dpagg_quanta_sum_total", INT8OID},
	{dpagg_quanta_sum_float4, dpagg_quanta_sum_total_trans_float4, "dpagg_quanta_sum_total", FLOAT4OID},
	{dpagg_quanta_sum_float8, dpagg_quanta_sum_total_trans_float8, "dpagg_quanta_sum_total", FLOAT8OID},
	{dpagg_quanta_sum_numeric, dpagg_quanta_sum_total_trans_numeric, "dpagg_quanta_sum_total", NUMERICOID},
	{dpagg_quanta_avg_int2, dpagg_quanta_avg_total_trans_int2, "dpagg_quanta_avg_total", INT2OID},
	{dpagg_quanta_avg_int4, dpagg_quanta_avg_total_trans_int4, "dpagg_quanta_avg_total", INT4OID},
	{dpagg_quanta_avg_int8, dpagg_quanta_avg_total_trans_int8, "dpagg_quanta_avg_total", INT8OID},
	{dpagg_quanta_avg_float4, dpagg_quanta_avg_total_trans_float4, "dpagg_quanta_avg_total", FLOAT4OID},
	{dpagg_quanta_avg_float8, dpagg_quanta_avg_total_trans_float8, "dpagg_quanta_avg_total", FLOAT8OID},
	{dpagg_quanta_avg_numeric, dpagg_quanta_avg_total_trans_numeric, "dpagg_quanta_avg_total", NUMERICOID},
};

/*
 * The aggregate that replaces sum(quanta_fn(...)), dpagg_quanta_*_total(type, float8, float8), or
 * (count) the one that replaces count(x) beside it, dpagg_quanta_*_total_count, in the quanta
 * function's schema, if every support function is dpagg's own (another function of that name,
 * made by whoever may create in the schema, is never put into anyone's query), else InvalidOid.
 */
static Oid
own_aggregate(Oid quanta_fn, int which, bool count)
{
	Oid			argtypes[3] = {fusable[which].type, FLOAT8OID, FLOAT8OID};
	char	   *name = psprintf("%s%s", fusable[which].total, count ? "_count" : "");
	Oid			agg;
	HeapTuple	tup;
	Form_pg_aggregate form;
	bool		initval_null;
	bool		own;

	agg = dpagg_function_in(get_func_namespace(quanta_fn), name, argtypes, 3);
	if (!OidIsValid(agg) || get_func_rettype(agg) != (count ? INT8OID : NUMERICOID))
		return InvalidOid;
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg));
	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	form = (Form_pg_aggregate) GETSTRUCT(tup);
	(void) SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initval_null);
	own = initval_null && form->aggkind == AGGKIND_NORMAL && !OidIsValid(form->aggmtransfn) &&
		dpagg_fn_address(form->aggtransfn) == fusable[which].total_trans &&
		dpagg_fn_address(form->aggfinalfn) == (count ? dpagg_quanta_total_count : dpagg_quanta_total_final) &&
		dpagg_fn_address(form->aggcombinefn) == dpagg_quanta_total_combine &&
		dpagg_fn_address(form->aggserialfn) == dpagg_quanta_total_serialize &&
		dpagg_fn_address(form->aggdeserialfn) == dpagg_quanta_total_deserialize;
	ReleaseSysCache(tup);
	return own ? agg : InvalidOid;
}

/* Which quanta function f calls (an index into fusable), or -1. */
static int
quanta_call(FuncExpr *f)
{
	PGFunction	addr;
	size_t		i;

	if (f->funcretset || list_length(f->args) != 3 || f->funcresulttype != INT8OID)
		return -1;
	addr = dpagg_fn_address(f->funcid);
	for (i = 0; i < lengthof(fusable); i++)
		if (addr == fusable[i].quanta)
			return (int) i;
	return -1;
}

/* sum(quanta_fn(x, lower, upper)) as the parser makes it: its FuncExpr. */
static FuncExpr *
fusable_sum(Node *node)
{
	Aggref	   *a;
	TargetEntry *te;
	FuncExpr   *f;

	if (!IsA(node, Aggref))
		return NULL;
	a = (Aggref *) node;
	if (a->aggfnoid != F_SUM_INT8 || a->aggstar || a->aggvariadic || a->aggdistinct != NIL ||
		a->aggorder != NIL || a->aggdirectargs != NIL || a->aggkind != AGGKIND_NORMAL ||
		a->aggsplit != AGGSPLIT_SIMPLE || list_length(a->args) != 1)
		return NULL;
	te = linitial_node(TargetEntry, a->args);
	if (te->resjunk || !IsA(te->expr, FuncExpr))
		return NULL;
	/* Any arguments: the aggregate evaluates them for each row as the function did, and counts
	 * nothing where one is NULL, as sum() skips the strict function's NULL.  Not in named
	 * notation: the planner puts those in order later (an attack review). */
	f = (FuncExpr *) te->expr;
	if (list_length(f->args) != 3 || IsA(linitial(f->args), NamedArgExpr) ||
		IsA(lsecond(f->args), NamedArgExpr) || IsA(lthird(f->args), NamedArgExpr))
		return NULL;
	return f;
}

typedef struct Fused
{
	Query	   *level;			/* the query the aggregate belongs to */
	Aggref	   *agg;			/* as fused */
	int			which;
	Oid			quanta_fn;
} Fused;

typedef struct FuseContext
{
	bool		apply;			/* false: only look for candidates */
	bool		found;
	Query	   *level;			/* the query being walked */
	List	   *fused;			/* Fused, with constant non-NULL bounds */
} FuseContext;

/* A bound that is a constant, not NULL: a Const, or a cast to double precision of an integer or
 * real one (a literal 0 is that until the planner folds it), which cannot fail.  Nothing is
 * evaluated here: the planner may never evaluate a bound (an unused column, a CASE branch), and an
 * error or a function call it would not make must not happen here either (an attack review). */
static bool
non_null_const(Node *n)
{
	if (IsA(n, FuncExpr) && list_length(((FuncExpr *) n)->args) == 1 &&
		(((FuncExpr *) n)->funcformat == COERCE_IMPLICIT_CAST ||
		 ((FuncExpr *) n)->funcformat == COERCE_EXPLICIT_CAST) &&
		(((FuncExpr *) n)->funcid == F_FLOAT8_INT2 || ((FuncExpr *) n)->funcid == F_FLOAT8_INT4 ||
		 ((FuncExpr *) n)->funcid == F_FLOAT8_INT8 || ((FuncExpr *) n)->funcid == F_FLOAT8_FLOAT4))
		n = linitial(((FuncExpr *) n)->args);
	return IsA(n, Const) && !((Const *) n)->constisnull;
}

/* Walk a query with fc->level set to it (the level its own aggregates belong to). */
static bool
walk_level(Query *q, bool (*walker) (), FuseContext *fc)
{
	Query	   *outer = fc->level;
	bool		r;

	fc->level = q;
	r = query_tree_walker(q, walker, fc, 0);
	fc->level = outer;
	return r;
}

static bool
fuse_walker(Node *node, FuseContext *fc)
{
	FuncExpr   *f;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return walk_level((Query *) node, fuse_walker, fc);
	if ((f = fusable_sum(node)) != NULL)
	{
		int			which = quanta_call(f);
		Oid			total = which >= 0 ? own_aggregate(f->funcid, which, false) : InvalidOid;

		/* only where the user may run both forms: neither refuses what the other would run
		 * (the quanta function is checked again when the aggregate runs: total_first_call) */
		if (OidIsValid(total) &&
			!(dpagg_may_execute(f->funcid) && dpagg_may_execute(F_SUM_INT8) && dpagg_may_execute(total)))
			total = InvalidOid;

		if (OidIsValid(total))
		{
			fc->found = true;
			if (fc->apply)
			{
				Aggref	   *a = (Aggref *) node;
				List	   *args = NIL;
				ListCell   *lc;
				int			i = 0;

				foreach(lc, f->args)
					args = lappend(args, makeTargetEntry((Expr *) lfirst(lc), ++i, NULL, false));
				a->aggfnoid = total;
				a->aggargtypes = list_make3_oid(fusable[which].type, FLOAT8OID, FLOAT8OID);
				a->args = args;
				if (a->agglevelsup == 0 && non_null_const(lsecond(f->args)) &&
					non_null_const(lthird(f->args)))
				{
					Fused	   *fu = palloc(sizeof(Fused));

					fu->level = fc->level;
					fu->agg = a;
					fu->which = which;
					fu->quanta_fn = f->funcid;
					fc->fused = lappend(fc->fused, fu);
				}
			}
			else
				return true;	/* one is enough to know */
		}
		/* its argument holds no aggregate: the filter is all that is left to look at */
		return fuse_walker((Node *) ((Aggref *) node)->aggfilter, fc);
	}
	return expression_tree_walker(node, fuse_walker, fc);
}

/*
 * count(x) beside a fused sum of x's quanta in the same query, with the same FILTER and constant
 * bounds (dp_avg's partial sums: sum(dpagg_quanta_avg(x, lower, upper)), count(x)) becomes
 * dpagg_quanta_*_total_count(x, lower, upper): the same transition over the same arguments, so
 * PostgreSQL runs one transition per row for both (it shares the state of aggregates whose
 * transitions and inputs are equal); its final function gives the values counted, which with
 * non-NULL bounds are exactly the rows whose x is not NULL, as count(x) gives (0 for none).
 */
static bool
count_walker(Node *node, FuseContext *fc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return walk_level((Query *) node, count_walker, fc);
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (a->aggfnoid == F_COUNT_ANY && a->agglevelsup == 0 && !a->aggstar && !a->aggvariadic &&
			a->aggdistinct == NIL && a->aggorder == NIL && a->aggkind == AGGKIND_NORMAL &&
			a->aggsplit == AGGSPLIT_SIMPLE && list_length(a->args) == 1 &&
			!linitial_node(TargetEntry, a->args)->resjunk)
		{
			Node	   *x = (Node *) linitial_node(TargetEntry, a->args)->expr;
			ListCell   *lc;

			foreach(lc, fc->fused)
			{
				Fused	   *fu = (Fused *) lfirst(lc);
				Oid			count;

				if (fu->level != fc->level ||
					!equal(x, linitial_node(TargetEntry, fu->agg->args)->expr) ||
					!equal(a->aggfilter, fu->agg->aggfilter) ||
					!OidIsValid(count = own_aggregate(fu->quanta_fn, fu->which, true)) ||
					!dpagg_may_execute(F_COUNT_ANY) || !dpagg_may_execute(count))
					continue;
				a->aggfnoid = count;
				a->aggargtypes = list_copy(fu->agg->aggargtypes);
				a->args = copyObject(fu->agg->args);
				break;
			}
		}
		/* its arguments hold no aggregate of this level; subqueries in them are walked */
	}
	return expression_tree_walker(node, count_walker, fc);
}

void
dpagg_fuse_quanta_sums(Query *parse)
{
	FuseContext fc = {false, false, NULL, NIL};

	(void) fuse_walker((Node *) parse, &fc);
	if (!fc.found || dpagg_citus_reads_citus_table(parse))
		return;
	fc.apply = true;
	(void) fuse_walker((Node *) parse, &fc);
	if (fc.fused != NIL)
		(void) count_walker((Node *) parse, &fc);
}

/* ------------------------------------------------------------------------------------------
 * The direct form's partial sums (citus.c): dpagg_partial_sum(x, lower, upper) and
 * dpagg_partial_avg(x, lower, upper) are aggregates whose result is the exact sum of the rows'
 * quanta above (the same values sum(dpagg_quanta_sum(...)) gives) as a 16-byte bytea, a 128-bit
 * two's-complement integer, most significant byte first.  The direct form's inner query, which
 * Citus runs whole on the workers, uses them instead of sum(bigint), whose numeric result cost as
 * much as the rest of the query over a million groups (its making on the workers, its transfer,
 * numeric_recv and the merge's reading of it).  They share the transition, combine and state of
 * dpagg_quanta_*_total (above) and write the sum out as 16 bytes in their final function.  The
 * merge reads one with partial_to_int128 and refuses any other length.
 */
#define PARTIAL_BYTES 16

static __int128
partial_to_int128(const bytea *b)
{
	const unsigned char *p = (const unsigned char *) VARDATA_ANY(b);
	unsigned __int128 u = 0;
	int			i;

	for (i = 0; i < PARTIAL_BYTES; i++)
		u = (u << 8) | p[i];
	return (__int128) u;
}

static void
partial_set(bytea *b, __int128 v)
{
	unsigned char *p = (unsigned char *) VARDATA(b);
	unsigned __int128 u = (unsigned __int128) v;
	int			i;

	for (i = PARTIAL_BYTES - 1; i >= 0; i--)
	{
		p[i] = (unsigned char) (u & 0xff);
		u >>= 8;
	}
}

static bytea *
partial_new(MemoryContext cxt, __int128 v)
{
	bytea	   *b = MemoryContextAlloc(cxt, VARHDRSZ + PARTIAL_BYTES);

	SET_VARSIZE(b, VARHDRSZ + PARTIAL_BYTES);
	partial_set(b, v);
	return b;
}

/* The final function of dpagg_partial_sum and _avg, whose transition is dpagg_quanta_*_total's
 * (above): the exact sum as 16 bytes, or NULL when no value was counted. */
PG_FUNCTION_INFO_V1(dpagg_partial_final);
Datum
dpagg_partial_final(PG_FUNCTION_ARGS)
{
	QuantaTotal *st = final_total(fcinfo, "dpagg_partial_final");

	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(partial_new(CurrentMemoryContext, st->sum));
}

/* A group key passed through unchanged (citus.c: Citus does not see through it, so it does not take
 * the partial sums' GROUP BY for one of the distribution column and push the merge down). */
PG_FUNCTION_INFO_V1(dpagg_group_key);
Datum
dpagg_group_key(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* ------------------------------------------------------------------------------------------
 * The merge.
 */
static void
bad_partial(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid partial sum for dpagg's merge: %s", what),
			 errhint("A partial sum is sum(dpagg_quanta_sum(x, lower, upper)) or dpagg_partial_sum(x, lower, upper) (or _avg) with the merge's bounds, beside count(x) (which dpagg_merge_sum may take as NULL).")));
}

/*
 * An exact integer numeric as a 128-bit integer within 2^120, or false with the reason in *why.
 * Read from numeric_send's documented binary form (ndigits, weight, sign, dscale, then base-10000
 * digits, most significant first, the first worth 10000^weight), which is much cheaper than its
 * text.  The variances' merge (variance.c) reads its partial sums with it too.
 */
bool
dpagg_numeric_int128(Datum d, __int128 *out, const char **why)
{
	bytea	   *b = DatumGetByteaPP(DirectFunctionCall1(numeric_send, d));
	const unsigned char *p = (const unsigned char *) VARDATA_ANY(b);
	Size		len = VARSIZE_ANY_EXHDR(b);
	int			ndigits,
				weight,
				sign,
				i;
	__int128	v = 0;
	const __int128 limit = (((__int128) 1) << 120);

#define U16(k) ((int) ((p[(k)] << 8) | p[(k) + 1]))
#define FAIL(w) do { *why = (w); return false; } while (0)
	if (len < 8)
		FAIL("not a number");
	ndigits = U16(0);
	weight = (int16) U16(2);
	sign = U16(4);
	if (sign != 0x0000 && sign != 0x4000)
		FAIL("not a finite number");
	if (len != 8 + 2 * (Size) ndigits)
		FAIL("not a number");
	for (i = 0; i < ndigits; i++)
	{
		int			digit = U16(8 + 2 * i);

		if (digit > 9999)
			FAIL("not a number");
		if (weight - i < 0)
		{
			if (digit != 0)
				FAIL("not an integer");
			continue;
		}
		/* checked before the step, so that v never wraps (an attack review) */
		if (v > (limit - digit) / 10000)
			FAIL("out of range");
		v = v * 10000 + digit;
	}
	/* the digits stop at 10000^(weight - ndigits + 1): the rest are zeros */
	for (i = ndigits; i <= weight; i++)
	{
		if (v > limit / 10000)
			FAIL("out of range");
		v *= 10000;
	}
#undef FAIL
#undef U16
	*out = sign == 0x4000 ? -v : v;
	return true;
}

static __int128
numeric_to_int128(Datum d)
{
	__int128	v;
	const char *why;

	if (!dpagg_numeric_int128(d, &v, &why))
		bad_partial(why);
	return v;
}

/* The merge's call site (prepared by the group's first row). */
static inline DpSite *
site_of(FunctionCallInfo fcinfo)
{
	return (DpSite *) fcinfo->flinfo->fn_extra;
}

/* A 16-byte partial sum (dpagg_partial_sum, _avg) as a 128-bit integer, or refused. */
static __int128
checked_partial(bytea *b)
{
	if (VARSIZE_ANY_EXHDR(b) != PARTIAL_BYTES)
		bad_partial("not a partial sum of 16 bytes");
	return partial_to_int128(b);
}

/* A merged sum the release could not take (its grid finer than the quantum leaves 2^(125 - shift)
 * quanta: release.cpp) is refused here with 22023, while merging, rather than failing in the final
 * function with an internal error (an attack review).  Like any refusal once rows are read, it
 * comes after the charge (charge.c: a release is charged before its Agg node reads a row). */
static void
check_release_range(FunctionCallInfo fcinfo, __int128 total)
{
	__int128	max = dpagg_site_max_quanta(site_of(fcinfo));

	if (total >= max || total <= -max)
		bad_partial("the partial sums add up to more than a release at this epsilon can represent");
}

/* The largest merged sum accepted (2^120 quanta; with counts it stays within 2^116): far from
 * the 128-bit state's limit. */
#define DPAGG_MERGE_SUM_LIMIT (((__int128) 1) << 120)

static Datum
merge_row(FunctionCallInfo fcinfo, int site_kind, int kind, bool bytea_partial)
{
	DpSite	   *site = (DpSite *) fcinfo->flinfo->fn_extra;
	DpState    *st;
	int			count_arg = kind == DP_COUNT ? 1 : 2;
	bool		has_sum = kind != DP_COUNT && !PG_ARGISNULL(1);
	bool		has_count = !PG_ARGISNULL(count_arg);
	int64		n = 0;
	__int128	sum = 0,
				total;

	if (site == NULL || PG_ARGISNULL(0))
		st = dpagg_transition_state(fcinfo, site_kind);
	else
		st = (DpState *) PG_GETARG_POINTER(0);
	if (!has_count)
	{
		/* no row of this group passed on a shard; or dp_sum's partial sum without its count
		 * (its release reads the sum only, and its rewrite on Citus does not count: 5% of a
		 * shard's time), added without the count's check: a count is the sender's word too */
		if (!has_sum)
			PG_RETURN_POINTER(st);
		if (kind != DP_SUM)
			bad_partial("a partial sum without its count");
	}
	else if ((n = PG_GETARG_INT64(count_arg)) < 0)
		bad_partial("a negative count");
	if (has_sum)
	{
		int64		lo,
					hi,
					whole;

		sum = bytea_partial ? checked_partial(PG_GETARG_BYTEA_PP(1)) : numeric_to_int128(PG_GETARG_DATUM(1));
		dpagg_site_quanta_rules(site_of(fcinfo), &lo, &hi, &whole);
		/* each value, clamped to the bounds, is in [lo, hi] quanta (at most 2^53 in size): a sum
		 * its count of such values could not make is refused */
		if (has_count && (sum > (__int128) n * hi || sum < (__int128) n * lo))
			bad_partial("its sum is outside what its count of clamped values allows");
		if (whole > 1 && sum % whole != 0)
			bad_partial("integer_values is true but it is not a sum of whole numbers");
	}
	if (st->count > PG_INT64_MAX - n)
		bad_partial("the counts add up to more than a bigint holds");
	/* each partial is within 2^120 quanta (numeric_to_int128; 16-byte partials are checked here),
	 * and so is the total: the 128-bit state never wraps */
	if (__builtin_add_overflow(state_sum(st), sum, &total) ||
		total > DPAGG_MERGE_SUM_LIMIT || total < -DPAGG_MERGE_SUM_LIMIT)
		bad_partial("the partial sums add up to more than 2^120 quanta");
	if (has_sum)
		check_release_range(fcinfo, total);
	st->count += n;
	state_set_sum(st, total);
	PG_RETURN_POINTER(st);
}

#define MERGE_TRANS(name, site_kind, kind, bytea_partial) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return merge_row(fcinfo, site_kind, kind, bytea_partial); }

MERGE_TRANS(dpagg_merge_sum_trans, DP_SITE_MERGE_SUM, DP_SUM, false)
MERGE_TRANS(dpagg_merge_avg_trans, DP_SITE_MERGE_AVG, DP_AVG, false)
MERGE_TRANS(dpagg_merge_count_trans, DP_SITE_MERGE_COUNT, DP_COUNT, false)
/* the same merges of partial sums made by dpagg_partial_sum and dpagg_partial_avg */
MERGE_TRANS(dpagg_merge_sum_trans_partial, DP_SITE_MERGE_SUM, DP_SUM, true)
MERGE_TRANS(dpagg_merge_avg_trans_partial, DP_SITE_MERGE_AVG, DP_AVG, true)
