/*
 * aggregates.c — dp_sum, dp_avg and dp_count: transition, combine and final functions, and the
 * dpagg_state type.
 *
 * The state is exact: clamped values are summed as 128-bit integers of a power-of-two quantum
 * (src/core/dpagg_accum.h), so the total does not depend on row order or on how parallel
 * partial states are combined.  Noise is added once per group, in the final function, by the
 * core (dpagg_release).  The privacy parameters (epsilon, delta, sensitivity or bounds,
 * mechanism) must be public and the same for every row: the aggregate call's argument
 * expressions are checked, on the first row, to be free of column references, subqueries,
 * outer references and volatile functions.
 */
#include "dpagg_pg.h"

#include <math.h>

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "libpq/pqformat.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "../core/dpagg_accum.h"

#define DPAGG_STATE_VERSION 1

typedef enum DpKind
{
	DP_SUM = 1,
	DP_COUNT = 2,
	DP_AVG = 3
} DpKind;

/* The transition state.  Fixed size, no pointers, no OIDs. */
typedef struct DpState
{
	int32		vl_len_;		/* varlena header */
	uint8		version;
	uint8		kind;			/* DpKind */
	uint8		integer_sum;	/* dp_sum of an integer type with whole-number bounds */
	uint8		pad;
	int64		count;			/* non-NULL values (or rows for dp_count(epsilon, delta)) */
	uint64		sum_lo;			/* 128-bit sum of quanta, as two halves */
	int64		sum_hi;
	double		epsilon;
	double		delta;
	double		lower;			/* clamping bounds; for dp_avg the values are centred */
	double		upper;
	double		inv_quantum;	/* 1 / quantum of the accumulation (derived from the bounds) */
	double		released_value; /* the answer already released from this state, if released */
	uint8		released;		/* set by the final function (FINALFUNC_MODIFY = READ_WRITE) */
	uint8		pad2[7];
	char		mechanism[DPAGG_MECH_SPEC_LEN];
} DpState;

static inline __int128
state_sum(const DpState *s)
{
	return (__int128) (((unsigned __int128) (uint64) s->sum_hi << 64) | s->sum_lo);
}

static inline void
state_set_sum(DpState *s, __int128 v)
{
	s->sum_lo = (uint64) v;
	s->sum_hi = (int64) (v >> 64);
}

/* Bound B of the accumulated values: the sensitivity of the sum. */
static double
state_bound(const DpState *s)
{
	if (s->kind == DP_AVG)
		return (s->upper - s->lower) / 2.0;
	return fmax(fabs(s->lower), fabs(s->upper));
}

static const char *
kind_name(int kind)
{
	return kind == DP_SUM ? "dp_sum" : kind == DP_COUNT ? "dp_count" : "dp_avg";
}

/* ------------------------------------------------------------------------------------------
 * Argument layout of each aggregate signature, deduced from the Aggref's argument types.
 * Positions are 0-based indexes into the aggregate's arguments (the transition function sees
 * them shifted by one, after the state).
 */
typedef enum ValueType
{
	VT_NONE, VT_INT2, VT_INT4, VT_INT8, VT_FLOAT4, VT_FLOAT8, VT_NUMERIC, VT_ANY
} ValueType;

typedef struct Layout
{
	int			kind;
	int			nargs;
	int			value;			/* -1 for dp_count(epsilon, delta) */
	int			epsilon;
	int			delta;
	int			sensitivity;	/* -1 unless the sensitivity form */
	int			lower;			/* -1 unless the bounds form */
	int			upper;
	int			mechanism;		/* -1 when absent (GUC default) */
	ValueType	vtype;
} Layout;

static ValueType
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

/* The Aggref whose arguments hold the privacy parameters (the partial one when combining). */
Aggref *
dpagg_argument_aggref(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg support functions can only be called by dpagg's aggregates")));
	/*
	 * A combining Aggref has one argument: the partial Aggref's output.  Before planning that is the
	 * partial Aggref itself; in the executor it is a Var pointing into the child plan's target list
	 * (through a Gather), which we follow down to the partial Aggref, as ruleutils.c does.
	 */
	if (DO_AGGSPLIT_COMBINE(aggref->aggsplit))
	{
		Node	   *expr = list_length(aggref->args) == 1 ?
			(Node *) ((TargetEntry *) linitial(aggref->args))->expr : NULL;
		PlanState  *ps = (fcinfo->context && IsA(fcinfo->context, AggState)) ?
			outerPlanState((PlanState *) fcinfo->context) : NULL;

		while (expr != NULL && IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR && ps != NULL)
		{
			AttrNumber	att = ((Var *) expr)->varattno;
			List	   *tlist = ps->plan->targetlist;

			if (att < 1 || att > list_length(tlist))
				break;
			expr = (Node *) ((TargetEntry *) list_nth(tlist, att - 1))->expr;
			if (IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR)
				ps = outerPlanState(ps);
		}
		if (expr == NULL || !IsA(expr, Aggref))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dpagg could not find the arguments of a partial aggregate"),
					 errhint("Disable parallel aggregation for this query: SET max_parallel_workers_per_gather = 0.")));
		aggref = (Aggref *) expr;
	}
	return aggref;
}

static void
layout_from_aggref(Aggref *aggref, int kind, Layout *lo)
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
	lo->kind = kind;
	lo->nargs = n;
	lo->vtype = VT_NONE;
	if (kind == DP_COUNT)
	{
		/* dp_count(value, eps, delta [, mech]) or dp_count(eps, delta [, mech]) */
		int			params = has_mech ? 3 : 2;

		if (n > params)
		{
			lo->value = p++;
			lo->vtype = VT_ANY;
		}
		/* (float8 value, float8, float8) has no text: n == 3 without mechanism */
	}
	else
	{
		lo->value = p++;
		lo->vtype = value_type_of(linitial_oid(aggref->aggargtypes));
	}
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
	if (p != n)
		elog(ERROR, "dpagg: unexpected argument list for %s", kind_name(kind));
}

/* True if the expression reads an executor parameter (a subquery's result or an outer
 * reference) or contains a subplan: such values can come from the private data. */
static bool
exec_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
		return true;
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, SubLink))
		return true;
	return expression_tree_walker(node, exec_param_walker, context);
}

static bool
contains_exec_param_or_subplan(Node *expr)
{
	return exec_param_walker(expr, NULL);
}

/* Could the expression's value differ between rows or depend on the data? */
bool
dpagg_expr_is_row_dependent(Node *expr)
{
	return contain_var_clause(expr) || contain_volatile_functions(expr) ||
		contains_exec_param_or_subplan(expr);
}

/*
 * The privacy parameters must be public and the same for every row: refuse arguments that
 * reference the rows' columns, call volatile functions, or read a subquery or an outer query
 * (whose values could come from the private data).  Constants, query parameters ($1) and
 * non-volatile functions of those are accepted.
 */
static void
check_parameters_fixed(Aggref *aggref, const Layout *lo)
{
	ListCell   *lc;
	int			i = 0;

	foreach(lc, aggref->args)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Node	   *expr = (Node *) tle->expr;

		if (tle->resjunk)
			continue;			/* an ORDER BY key of the aggregate, not an argument */
		if (i != lo->value && dpagg_expr_is_row_dependent(expr))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the privacy parameters of %s must be the same for every row",
							kind_name(lo->kind)),
					 errdetail("Argument %d refers to the rows' columns, a subquery or an outer query, or calls a volatile function.",
							   i + 1),
					 errhint("Pass epsilon, delta, sensitivity, bounds and mechanism as constants or query parameters.")));
		i++;
	}
}

/* Only dpagg's own aggregates may drive its transition functions (else a user-defined
 * aggregate could return the exact state). */
extern Datum dpagg_sum_final(PG_FUNCTION_ARGS);
extern Datum dpagg_count_final(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_final(PG_FUNCTION_ARGS);

extern Datum dpagg_combine(PG_FUNCTION_ARGS);

/* Is this function one of ours, with the given entry point? */
bool
dpagg_is_function(Oid fn, PGFunction expected)
{
	FmgrInfo	finfo;

	if (!OidIsValid(fn))
		return false;
	fmgr_info(fn, &finfo);
	return finfo.fn_addr == expected;
}

/*
 * The aggregate must be one of dpagg's: our final and combine functions and no initial state.
 * (A user-defined aggregate could otherwise read exact partial states through its own combine
 * function, or seed the state through INITCOND.)
 */
static bool is_own_transfn(Oid fn);

static void
check_own_aggregate(Oid aggfnoid, int kind)
{
	HeapTuple	tup;
	Form_pg_aggregate agg;
	bool		initval_null;
	Oid			transfn,
				finalfn,
				combinefn;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfnoid);
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	transfn = agg->aggtransfn;
	finalfn = agg->aggfinalfn;
	combinefn = agg->aggcombinefn;
	(void) SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initval_null);
	ReleaseSysCache(tup);
	if (!initval_null || !is_own_transfn(transfn) ||
		!dpagg_is_function(combinefn, dpagg_combine) ||
		!dpagg_is_function(finalfn, kind == DP_SUM ? dpagg_sum_final :
					 kind == DP_COUNT ? dpagg_count_final : dpagg_avg_final))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
}

/* The layout cached in the transition function's fn_extra. */
static Layout *
get_layout(FunctionCallInfo fcinfo, int kind)
{
	Layout	   *lo = (Layout *) fcinfo->flinfo->fn_extra;
	Aggref	   *aggref;

	if (lo != NULL && lo->kind == kind)
		return lo;
	aggref = dpagg_argument_aggref(fcinfo);
	lo = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Layout));
	layout_from_aggref(aggref, kind, lo);
	check_parameters_fixed(aggref, lo);
	check_own_aggregate(AggGetAggref(fcinfo)->aggfnoid, kind);
	fcinfo->flinfo->fn_extra = lo;
	return lo;
}

/* ------------------------------------------------------------------------------------------
 * Reading the parameters, either from the transition function's arguments or (for an empty
 * group, where the transition function never ran) by evaluating the Aggref's expressions.
 */
#define PG_ARGISNULL_FROM(fc, n) ((fc)->args[(n)].isnull)

typedef struct ParamSource
{
	FunctionCallInfo fcinfo;
	bool		from_args;		/* transition function: argument i is at fcinfo i + 1 */
	Aggref	   *aggref;
} ParamSource;

static Datum
param_datum(ParamSource *src, int i, bool *isnull)
{
	if (src->from_args)
	{
		*isnull = PG_ARGISNULL_FROM(src->fcinfo, i + 1);
		return src->fcinfo->args[i + 1].value;
	}
	return dpagg_eval_aggref_arg(src->fcinfo, src->aggref, i, isnull);
}

/* Evaluate argument i of the Aggref (for an empty group; the arguments are row-independent). */
Datum
dpagg_eval_aggref_arg(FunctionCallInfo fcinfo, Aggref *aggref, int i, bool *isnull)
{
	AggState   *aggstate = (AggState *) fcinfo->context;
	TargetEntry *tle = list_nth_node(TargetEntry, aggref->args, i);
	ExprState  *es = ExecInitExpr(tle->expr, &aggstate->ss.ps);

	return ExecEvalExprSwitchContext(es, aggstate->ss.ps.ps_ExprContext, isnull);
}

static double
param_float8(ParamSource *src, int i, const char *name, int kind)
{
	bool		isnull;
	Datum		d = param_datum(src, i, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must not be NULL", name, kind_name(kind)),
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

/*
 * The calibration for one release of this state.  Integer-valued answers are multiples of every
 * release grid (a power of two <= 1/2 here), so they need no grid allowance on the sensitivity.
 */
static void
calibration_for(const DpState *st, double epsilon, double delta, double sensitivity,
				bool integer_valued, dpagg_calibration *cal)
{
	dpagg_calibrate_cached(st->mechanism, epsilon, delta,
						   integer_valued ? sensitivity : dpagg_release_sensitivity(sensitivity),
						   integer_valued, cal);
}

/* Validation only (cheap): what calibration_for would refuse, without calibrating. */
static void
check_release(const DpState *st, double epsilon, double delta, double sensitivity,
			  bool integer_valued)
{
	dpagg_error err;

	if (dpagg_check(st->mechanism, epsilon, delta,
					integer_valued ? sensitivity : dpagg_release_sensitivity(sensitivity),
					integer_valued ? 1 : 0, &err) != DPAGG_OK)
		dpagg_report(&err);
}

/* Fill a fresh state's parameters (validated) from the source. */
static void
init_parameters(DpState *st, const Layout *lo, ParamSource *src)
{
	text	   *mech = NULL;

	st->version = DPAGG_STATE_VERSION;
	st->kind = (uint8) lo->kind;
	st->epsilon = param_float8(src, lo->epsilon, "epsilon", lo->kind);
	st->delta = param_float8(src, lo->delta, "delta", lo->kind);
	if (lo->sensitivity >= 0)
	{
		double		s = param_float8(src, lo->sensitivity, "sensitivity", lo->kind);

		if (!(isfinite(s) && s > 0))
			bad_bounds("sensitivity must be a finite number greater than 0",
					   "Pass the largest absolute value one row can contribute, in (0, infinity).");
		st->lower = -s;
		st->upper = s;
	}
	else if (lo->lower >= 0)
	{
		st->lower = param_float8(src, lo->lower, "lower", lo->kind);
		st->upper = param_float8(src, lo->upper, "upper", lo->kind);
		if (!isfinite(st->lower) || !isfinite(st->upper))
			bad_bounds("lower and upper must be finite",
					   "Pass finite bounds with lower <= upper.");
		if (st->lower > st->upper)
			bad_bounds("lower must not be greater than upper",
					   "Pass finite bounds with lower <= upper.");
		if (lo->kind == DP_AVG && !(st->lower < st->upper))
			bad_bounds("dp_avg needs lower < upper",
					   "With lower = upper the average is known: it is lower.");
		if (!(state_bound(st) > 0))
			bad_bounds("the bounds give a sensitivity of 0",
					   "Pass bounds with max(|lower|, |upper|) > 0.");
	}
	else
	{
		st->lower = 0;
		st->upper = 1;			/* dp_count: each row adds 1 */
	}
	if (lo->mechanism >= 0)
	{
		bool		isnull;
		Datum		d = param_datum(src, lo->mechanism, &isnull);

		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("mechanism of %s must not be NULL", kind_name(lo->kind)),
					 errhint("Name a mechanism listed by dp_mechanisms(), or omit the argument to use dpagg.default_mechanism.")));
		mech = DatumGetTextPP(d);
	}
	dpagg_mechanism_spec(mech, st->mechanism, sizeof(st->mechanism));
	st->inv_quantum = 1.0 / dpagg_quantum_for_bound(state_bound(st));
	/* A sum of integers clamped to whole-number bounds changes by a whole number 0..D between
	 * neighbours: mechanisms may calibrate for those shifts only (see dp_calibrate). */
	st->integer_sum = (lo->kind == DP_SUM &&
					   (lo->vtype == VT_INT2 || lo->vtype == VT_INT4 || lo->vtype == VT_INT8) &&
					   st->lower == floor(st->lower) && st->upper == floor(st->upper) &&
					   state_bound(st) <= 1e9) ? 1 : 0;

	/*
	 * Validate everything now, so that bad input fails before any row is read.  Only validation:
	 * the (possibly expensive) calibration happens once, in the final function, and not in every
	 * parallel worker.
	 */
	if (lo->kind == DP_AVG)
	{
		check_release(st, st->epsilon / 2, st->delta / 2, state_bound(st), false);
		check_release(st, st->epsilon / 2, st->delta / 2, 1.0, true);
	}
	else if (lo->kind == DP_COUNT)
		check_release(st, st->epsilon, st->delta, 1.0, true);
	else
		check_release(st, st->epsilon, st->delta, state_bound(st), st->integer_sum);
}

static DpState *
new_state(MemoryContext cxt)
{
	DpState    *st = MemoryContextAllocZero(cxt, sizeof(DpState));

	SET_VARSIZE(st, sizeof(DpState));
	return st;
}

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
	 * its own (budget.c). */
	return cxt;
}

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, int kind)
{
	return dpagg_aggregate_context(fcinfo, kind_name(kind));
}

static DpState *
transition_state(FunctionCallInfo fcinfo, int kind, Layout **lo_out)
{
	Layout	   *lo = (Layout *) fcinfo->flinfo->fn_extra;
	MemoryContext cxt;
	DpState    *st;

	/*
	 * Hot path: a state exists and this call site was verified on its first row (aggregate
	 * context, our own aggregate, parameters free of column references and volatile functions,
	 * hence the same for every row).
	 */
	if (likely(lo != NULL && lo->kind == kind && !PG_ARGISNULL(0)))
	{
		*lo_out = lo;
		return (DpState *) PG_GETARG_POINTER(0);
	}
	cxt = aggregate_context(fcinfo, kind);
	lo = get_layout(fcinfo, kind);
	*lo_out = lo;
	if (PG_ARGISNULL(0))
	{
		ParamSource src = {fcinfo, true, NULL};

		st = new_state(cxt);
		init_parameters(st, lo, &src);
		return st;
	}
	/* Our aggregates have no initial state: a state before the first row is not ours. */
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
	return NULL;
}

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

static inline void
accumulate(DpState *st, double x, double lower, double upper)
{
	state_set_sum(st, state_sum(st) + dpagg_quantize(x, lower, upper, st->inv_quantum));
}

static pg_attribute_always_inline Datum
sum_trans(FunctionCallInfo fcinfo, ValueType vt)
{
	Layout	   *lo;
	DpState    *st = transition_state(fcinfo, DP_SUM, &lo);

	if (!PG_ARGISNULL(1))
	{
		st->count++;
		accumulate(st, value_as_double(fcinfo, 1, vt), st->lower, st->upper);
	}
	PG_RETURN_POINTER(st);
}

static pg_attribute_always_inline Datum
avg_trans(FunctionCallInfo fcinfo, ValueType vt)
{
	Layout	   *lo;
	DpState    *st = transition_state(fcinfo, DP_AVG, &lo);

	if (!PG_ARGISNULL(1))
	{
		/* Centre on the midpoint m: the sum of (x - m) has sensitivity (upper - lower)/2. */
		double		mid = st->lower / 2 + st->upper / 2;
		double		half = state_bound(st);
		double		x = dpagg_clamp(value_as_double(fcinfo, 1, vt), st->lower, st->upper);

		st->count++;
		accumulate(st, x - mid, -half, half);
	}
	PG_RETURN_POINTER(st);
}

/* One transition function per value type, so the type dispatch is resolved at compile time. */
#define DPAGG_TRANS(name, body, vt) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return body(fcinfo, vt); }
DPAGG_TRANS(dpagg_sum_trans_int2, sum_trans, VT_INT2)
DPAGG_TRANS(dpagg_sum_trans_int4, sum_trans, VT_INT4)
DPAGG_TRANS(dpagg_sum_trans_int8, sum_trans, VT_INT8)
DPAGG_TRANS(dpagg_sum_trans_float4, sum_trans, VT_FLOAT4)
DPAGG_TRANS(dpagg_sum_trans_float8, sum_trans, VT_FLOAT8)
DPAGG_TRANS(dpagg_sum_trans_numeric, sum_trans, VT_NUMERIC)
DPAGG_TRANS(dpagg_avg_trans_int2, avg_trans, VT_INT2)
DPAGG_TRANS(dpagg_avg_trans_int4, avg_trans, VT_INT4)
DPAGG_TRANS(dpagg_avg_trans_int8, avg_trans, VT_INT8)
DPAGG_TRANS(dpagg_avg_trans_float4, avg_trans, VT_FLOAT4)
DPAGG_TRANS(dpagg_avg_trans_float8, avg_trans, VT_FLOAT8)
DPAGG_TRANS(dpagg_avg_trans_numeric, avg_trans, VT_NUMERIC)

PG_FUNCTION_INFO_V1(dpagg_count_trans);
Datum
dpagg_count_trans(PG_FUNCTION_ARGS)
{
	Layout	   *lo;
	DpState    *st = transition_state(fcinfo, DP_COUNT, &lo);

	if (!PG_ARGISNULL(lo->value + 1))
		st->count++;
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpagg_count_rows_trans);
Datum
dpagg_count_rows_trans(PG_FUNCTION_ARGS)
{
	Layout	   *lo;
	DpState    *st = transition_state(fcinfo, DP_COUNT, &lo);

	st->count++;
	PG_RETURN_POINTER(st);
}

/* Combine two partial states of the same group (strict: PostgreSQL handles NULL states). */
/* One of the transition functions above (a user-defined aggregate could otherwise build the
 * state with its own function and hand it to the final one). */
static bool
is_own_transfn(Oid fn)
{
	static const PGFunction own[] = {
		dpagg_sum_trans_int2, dpagg_sum_trans_int4, dpagg_sum_trans_int8,
		dpagg_sum_trans_float4, dpagg_sum_trans_float8, dpagg_sum_trans_numeric,
		dpagg_avg_trans_int2, dpagg_avg_trans_int4, dpagg_avg_trans_int8,
		dpagg_avg_trans_float4, dpagg_avg_trans_float8, dpagg_avg_trans_numeric,
		dpagg_count_trans, dpagg_count_rows_trans};
	FmgrInfo	finfo;
	size_t		i;

	if (!OidIsValid(fn))
		return false;
	fmgr_info(fn, &finfo);
	for (i = 0; i < lengthof(own); i++)
		if (finfo.fn_addr == own[i])
			return true;
	return false;
}

PG_FUNCTION_INFO_V1(dpagg_combine);
Datum
dpagg_combine(PG_FUNCTION_ARGS)
{
	DpState    *a = (DpState *) PG_GETARG_POINTER(0);
	DpState    *b = (DpState *) PG_GETARG_POINTER(1);

	(void) aggregate_context(fcinfo, a->kind);
	if (a->kind != b->kind || a->integer_sum != b->integer_sum ||
		a->epsilon != b->epsilon || a->delta != b->delta ||
		a->lower != b->lower || a->upper != b->upper ||
		strncmp(a->mechanism, b->mechanism, sizeof(a->mechanism)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the privacy parameters of %s must be the same for every row",
						kind_name(a->kind))));
	a->count += b->count;
	state_set_sum(a, state_sum(a) + state_sum(b));
	PG_RETURN_POINTER(a);
}

/* ------------------------------------------------------------------------------------------
 * Final functions: the only places where noise is added.
 */
static DpState *
final_state(FunctionCallInfo fcinfo, int kind, DpState *empty)
{
	(void) aggregate_context(fcinfo, kind);
	/* Only dpagg's own aggregates may finalize (a user aggregate could otherwise feed a forged
	 * state, or none at all, to the final function).  Checked once per call site. */
	if (fcinfo->flinfo->fn_extra == NULL)
		check_own_aggregate(AggGetAggref(fcinfo)->aggfnoid, kind);
	if (!PG_ARGISNULL(0))
	{
		DpState    *st = (DpState *) PG_GETARG_POINTER(0);

		if (st->version != DPAGG_STATE_VERSION || st->kind != kind)
			elog(ERROR, "dpagg: state of the wrong kind");
		return st;
	}
	else
	{
		/* An empty group: the transition function never ran.  Read the parameters from the
		 * aggregate call itself; the answer is then a noisy 0. */
		Aggref	   *aggref = dpagg_argument_aggref(fcinfo);
		Layout		lo;
		ParamSource src = {fcinfo, false, aggref};

		memset(empty, 0, sizeof(*empty));
		SET_VARSIZE(empty, sizeof(DpState));
		layout_from_aggref(aggref, kind, &lo);
		check_parameters_fixed(aggref, &lo);
		init_parameters(empty, &lo, &src);
		return empty;
	}
}

/* Noise for one calibrated part of a release (after the release has been charged). */
static double
draw(const dpagg_calibration *cal, __int128 quanta, double quantum)
{
	dpagg_error err;
	double		out;

	if (dpagg_release(cal, quanta, quantum, &out, &err) != DPAGG_OK)
		dpagg_report(&err);
	return out;
}

/*
 * A state is released at most once: if the executor finalizes the same state again (a rescan of
 * a hash aggregate, a re-read cursor), the value already released is returned, never fresh noise,
 * and nothing is charged.
 */
#define RETURN_IF_RELEASED(st) \
	do { if ((st)->released) PG_RETURN_DATUM(Float8GetDatum((st)->released_value)); } while (0)
#define REMEMBER_RELEASE(st, v) \
	do { (st)->released_value = (v); (st)->released = 1; } while (0)

/*
 * Every final function: calibrate, charge the release (durably; budget.c), then draw the noise.
 * Nothing random happens before the charge is taken.
 */
PG_FUNCTION_INFO_V1(dpagg_sum_final);
Datum
dpagg_sum_final(PG_FUNCTION_ARGS)
{
	DpState		empty;
	DpState    *st = final_state(fcinfo, DP_SUM, &empty);
	double		bound = state_bound(st);
	dpagg_calibration cal;
	double		v;

	RETURN_IF_RELEASED(st);
	calibration_for(st, st->epsilon, st->delta, bound, st->integer_sum, &cal);
	dpagg_charge(fcinfo, "dp_sum", st->epsilon, st->delta, &cal, 1);
	v = draw(&cal, state_sum(st), dpagg_quantum_for_bound(bound));
	REMEMBER_RELEASE(st, v);
	PG_RETURN_FLOAT8(v);
}

/* A noisy count, rounded and never negative (post-processing). */
static double
noisy_count(const DpState *st, const dpagg_calibration *cal)
{
	double		c = rint(draw(cal, (__int128) st->count, 1.0));

	return c < 0 ? 0 : c;
}

PG_FUNCTION_INFO_V1(dpagg_count_final);
Datum
dpagg_count_final(PG_FUNCTION_ARGS)
{
	DpState		empty;
	DpState    *st = final_state(fcinfo, DP_COUNT, &empty);
	dpagg_calibration cal;
	double		c;

	if (st->released)
		PG_RETURN_INT64((int64) st->released_value);
	calibration_for(st, st->epsilon, st->delta, 1.0, true, &cal);
	dpagg_charge(fcinfo, "dp_count", st->epsilon, st->delta, &cal, 1);
	c = noisy_count(st, &cal);
	if (c >= 9.2e18)
		c = 9.2e18;
	REMEMBER_RELEASE(st, c);
	PG_RETURN_INT64((int64) c);
}

/*
 * dp_avg: half of epsilon and of delta for the sum of the centred values, half for the count
 * (basic composition: the two releases together are (epsilon, delta)-DP, and are charged as one
 * release of (epsilon, delta)).  The answer is m + S / max(C, 1), clamped to [lower, upper]; all
 * of it is post-processing.
 */
PG_FUNCTION_INFO_V1(dpagg_avg_final);
Datum
dpagg_avg_final(PG_FUNCTION_ARGS)
{
	DpState		empty;
	DpState    *st = final_state(fcinfo, DP_AVG, &empty);
	double		half = state_bound(st);
	double		mid = st->lower / 2 + st->upper / 2;
	dpagg_calibration cal[2];
	double		s,
				c,
				avg;

	RETURN_IF_RELEASED(st);
	calibration_for(st, st->epsilon / 2, st->delta / 2, half, false, &cal[0]);
	calibration_for(st, st->epsilon / 2, st->delta / 2, 1.0, true, &cal[1]);
	dpagg_charge(fcinfo, "dp_avg", st->epsilon, st->delta, cal, 2);
	s = draw(&cal[0], state_sum(st), dpagg_quantum_for_bound(half));
	c = noisy_count(st, &cal[1]);
	avg = fmin(st->upper, fmax(st->lower, mid + s / (c < 1 ? 1 : c)));
	REMEMBER_RELEASE(st, avg);
	PG_RETURN_FLOAT8(avg);
}

/* ------------------------------------------------------------------------------------------
 * dpagg_state I/O.  Text form:
 * kind:version:integer_sum:count:sum_hi:sum_lo:eps:delta:lower:upper:mechanism
 * with the doubles written as their IEEE bit patterns in hex (PostgreSQL's snprintf has no %a),
 * so that it round-trips exactly.
 */
PG_FUNCTION_INFO_V1(dpagg_state_out);
Datum
dpagg_state_out(PG_FUNCTION_ARGS)
{
	DpState    *st = (DpState *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	uint64		bits[4];

	memcpy(&bits[0], &st->epsilon, 8);
	memcpy(&bits[1], &st->delta, 8);
	memcpy(&bits[2], &st->lower, 8);
	memcpy(&bits[3], &st->upper, 8);
	PG_RETURN_CSTRING(psprintf("%d:%d:%d:" INT64_FORMAT ":" INT64_FORMAT ":" UINT64_FORMAT
							   ":%016llx:%016llx:%016llx:%016llx:%s",
							   st->kind, st->version, st->integer_sum, st->count, st->sum_hi, st->sum_lo,
							   (unsigned long long) bits[0], (unsigned long long) bits[1],
							   (unsigned long long) bits[2], (unsigned long long) bits[3],
							   st->mechanism));
}

/* Validate a state read from outside and derive its quantum. */
static void
check_state(DpState *st)
{
	if (st->version != DPAGG_STATE_VERSION || st->kind < DP_SUM || st->kind > DP_AVG ||
		memchr(st->mechanism, '\0', sizeof(st->mechanism)) == NULL ||
		!isfinite(st->lower) || !isfinite(st->upper) || !(state_bound(st) > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid dpagg_state")));
	st->inv_quantum = 1.0 / dpagg_quantum_for_bound(state_bound(st));
}

PG_FUNCTION_INFO_V1(dpagg_state_in);
Datum
dpagg_state_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	DpState    *st = new_state(CurrentMemoryContext);
	int			kind,
				version,
				integer_sum,
				consumed = 0;
	long long	count,
				hi;
	unsigned long long lo,
				bits[4];

	if (sscanf(s, "%d:%d:%d:%lld:%lld:%llu:%llx:%llx:%llx:%llx:%n", &kind, &version, &integer_sum,
			   &count, &hi, &lo, &bits[0], &bits[1], &bits[2], &bits[3],
			   &consumed) < 10 || consumed == 0 || (integer_sum != 0 && integer_sum != 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type dpagg_state: \"%s\"", s)));
	memcpy(&st->epsilon, &bits[0], 8);
	memcpy(&st->delta, &bits[1], 8);
	memcpy(&st->lower, &bits[2], 8);
	memcpy(&st->upper, &bits[3], 8);
	st->kind = (uint8) kind;
	st->version = (uint8) version;
	st->integer_sum = (uint8) integer_sum;
	st->count = count;
	st->sum_hi = hi;
	st->sum_lo = lo;
	strlcpy(st->mechanism, s + consumed, sizeof(st->mechanism));
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
	pq_sendbyte(&buf, st->integer_sum);
	pq_sendint64(&buf, st->count);
	pq_sendint64(&buf, st->sum_hi);
	pq_sendint64(&buf, (int64) st->sum_lo);
	pq_sendfloat8(&buf, st->epsilon);
	pq_sendfloat8(&buf, st->delta);
	pq_sendfloat8(&buf, st->lower);
	pq_sendfloat8(&buf, st->upper);
	pq_sendbytes(&buf, st->mechanism, sizeof(st->mechanism));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(dpagg_state_recv);
Datum
dpagg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	DpState    *st = new_state(CurrentMemoryContext);

	st->version = (uint8) pq_getmsgbyte(buf);
	st->kind = (uint8) pq_getmsgbyte(buf);
	st->integer_sum = (uint8) pq_getmsgbyte(buf);
	st->count = pq_getmsgint64(buf);
	st->sum_hi = pq_getmsgint64(buf);
	st->sum_lo = (uint64) pq_getmsgint64(buf);
	st->epsilon = pq_getmsgfloat8(buf);
	st->delta = pq_getmsgfloat8(buf);
	st->lower = pq_getmsgfloat8(buf);
	st->upper = pq_getmsgfloat8(buf);
	pq_copymsgbytes(buf, st->mechanism, sizeof(st->mechanism));
	check_state(st);
	PG_RETURN_POINTER(st);
}
