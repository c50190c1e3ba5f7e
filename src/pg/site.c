/*
 * site.c — the privacy parameters of an aggregate call site, evaluated once per query (site.h).
 *
 * Why once, and why here.  A release is charged once per execution of an aggregation, with the
 * parameters it is released under.  If each group read its own parameters, an expression whose
 * value changes while the query runs (current_setting() after a set_config() in the value
 * argument, a user function that answers 0.001 and then 1e6) would release later groups under
 * an ε that was never charged, and a buffer sized from one group's dimension would be overrun by
 * another's.  So the parameters are read in one place, before any row: the ExecutorStart hook
 * (hooks.c) prepares every dpagg call site of the plan, and the transition, combine and final
 * functions of that Agg node all use that one evaluation.
 *
 * What a parameter may be.  A constant, a query parameter ($1, a PL/pgSQL variable, a SQL
 * function's argument) or a built-in IMMUTABLE function or operator of those (casts, arithmetic,
 * text concatenation), with no cstring in between (an I/O function's output can depend on
 * settings such as extra_float_digits).  Stable and volatile functions (current_setting, now,
 * functions that read tables), user-defined functions of any declared volatility, subqueries,
 * outer references and columns are refused before anything is evaluated, so a parameter cannot
 * depend on the rows.  Whatever is not a constant is evaluated once, before the executor starts,
 * and frozen into a private copy of the plan (dpagg_freeze_parameters): every process of a
 * parallel plan and every Agg node of a partial plan reads the same constants.  (Some built-in
 * immutable functions read settings, e.g. quote_ident and quote_all_identifiers; evaluated
 * separately in a worker that starts later they could give other values.)
 *
 * A refusal of a parameter is an input error (22023) that depends only on the query text and its
 * parameters, never on the data.  The charge of each release is also taken here (see "Charging
 * before the first row" below); nothing here is random.
 */
#include "site.h"

#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/nodeAgg.h"
#include "nodes/nodeFuncs.h"
#include "nodes/makefuncs.h"
#include "nodes/plannodes.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* Every support function of dpagg's aggregates (aggregates.c, vector.c). */
extern Datum dpagg_sum_trans_int2(PG_FUNCTION_ARGS);
extern Datum dpagg_sum_trans_int4(PG_FUNCTION_ARGS);
extern Datum dpagg_sum_trans_int8(PG_FUNCTION_ARGS);
extern Datum dpagg_sum_trans_float4(PG_FUNCTION_ARGS);
extern Datum dpagg_sum_trans_float8(PG_FUNCTION_ARGS);
extern Datum dpagg_sum_trans_numeric(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_trans_int2(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_trans_int4(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_trans_int8(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_trans_float4(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_trans_float8(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_trans_numeric(PG_FUNCTION_ARGS);
extern Datum dpagg_count_trans(PG_FUNCTION_ARGS);
extern Datum dpagg_count_rows_trans(PG_FUNCTION_ARGS);
extern Datum dpagg_combine(PG_FUNCTION_ARGS);
extern Datum dpagg_sum_final(PG_FUNCTION_ARGS);
extern Datum dpagg_count_final(PG_FUNCTION_ARGS);
extern Datum dpagg_avg_final(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_trans(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_combine(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_serialize(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_deserialize(PG_FUNCTION_ARGS);
extern Datum dpagg_vsum_final(PG_FUNCTION_ARGS);

/* The one table of which functions make up each of dpagg's aggregates. */
typedef struct KindFunctions
{
	int			kind;
	PGFunction	final;
	PGFunction	combine;
	PGFunction	serial;
	PGFunction	deserial;
	PGFunction	trans[6];
} KindFunctions;

static const KindFunctions kinds[] = {
	{DP_SITE_SUM, dpagg_sum_final, dpagg_combine, NULL, NULL,
	 {dpagg_sum_trans_int2, dpagg_sum_trans_int4, dpagg_sum_trans_int8,
	  dpagg_sum_trans_float4, dpagg_sum_trans_float8, dpagg_sum_trans_numeric}},
	{DP_SITE_AVG, dpagg_avg_final, dpagg_combine, NULL, NULL,
	 {dpagg_avg_trans_int2, dpagg_avg_trans_int4, dpagg_avg_trans_int8,
	  dpagg_avg_trans_float4, dpagg_avg_trans_float8, dpagg_avg_trans_numeric}},
	{DP_SITE_COUNT, dpagg_count_final, dpagg_combine, NULL, NULL,
	 {dpagg_count_trans, dpagg_count_rows_trans}},
	{DP_SITE_VECTOR, dpagg_vsum_final, dpagg_vsum_combine, dpagg_vsum_serialize,
	 dpagg_vsum_deserialize, {dpagg_vsum_trans}},
};

static PGFunction
fn_address(Oid fn)
{
	FmgrInfo	finfo;

	if (!OidIsValid(fn))
		return NULL;
	fmgr_info(fn, &finfo);
	return finfo.fn_addr;
}

/* Is this the address of one of dpagg's transition or combine functions? */
static bool
is_own_trans_address(PGFunction f)
{
	size_t		k,
				j;

	if (f == NULL)
		return false;
	for (k = 0; k < lengthof(kinds); k++)
	{
		if (f == kinds[k].combine)
			return true;
		for (j = 0; j < lengthof(kinds[k].trans); j++)
			if (f == kinds[k].trans[j])
				return true;
	}
	return false;
}

/*
 * The kind of one of dpagg's own aggregates, or 0.  An aggregate is dpagg's only if every support
 * function is the one dpagg defines for that kind and there is no initial state: a user-defined
 * aggregate could otherwise read exact states through its own final or combine function, or
 * seed them through INITCOND.
 */
static int
aggregate_kind_uncached(Oid aggfnoid)
{
	HeapTuple	tup;
	Form_pg_aggregate agg;
	bool		initval_null;
	PGFunction	trans,
				final,
				combine,
				serial,
				deserial;
	bool		moving;
	size_t		k,
				j;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tup))
		return 0;
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	(void) SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initval_null);
	moving = OidIsValid(agg->aggmtransfn);
	trans = fn_address(agg->aggtransfn);
	final = fn_address(agg->aggfinalfn);
	combine = fn_address(agg->aggcombinefn);
	serial = fn_address(agg->aggserialfn);
	deserial = fn_address(agg->aggdeserialfn);
	ReleaseSysCache(tup);
	if (!initval_null || moving)
		return 0;
	for (k = 0; k < lengthof(kinds); k++)
	{
		if (final != kinds[k].final || combine != kinds[k].combine ||
			serial != kinds[k].serial || deserial != kinds[k].deserial)
			continue;
		for (j = 0; j < lengthof(kinds[k].trans); j++)
			if (trans != NULL && trans == kinds[k].trans[j])
				return kinds[k].kind;
	}
	return 0;
}

/* A small per-backend memo: the answer for an aggregate OID never changes while it exists (an
 * OID is not reused while the backend could still hold it in a plan). */
#define KIND_MEMO 64
static struct
{
	Oid			oid;
	int			kind;
} kind_memo[KIND_MEMO];

static int
aggregate_kind(Oid aggfnoid)
{
	int			slot = aggfnoid % KIND_MEMO;
	int			kind;

	if (OidIsValid(aggfnoid) && kind_memo[slot].oid == aggfnoid)
		return kind_memo[slot].kind;
	kind = aggregate_kind_uncached(aggfnoid);
	kind_memo[slot].oid = aggfnoid;
	kind_memo[slot].kind = kind;
	return kind;
}

bool
dpagg_is_own_aggregate(Oid aggfnoid)
{
	return aggregate_kind(aggfnoid) != 0;
}

static void
not_own_aggregate(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("dpagg support functions can only be used by dpagg's own aggregates")));
}

/* ------------------------------------------------------------------------------------------
 * The Aggref that holds the parameters.  A finalizing Agg (parallel or partial aggregation) sees
 * only a Var pointing at its input's output column; the partial Aggref, a copy of the original
 * call, is found by following that column down the plan (through Gather, Sort, Result, and
 * the first child of an Append or MergeAppend: every child of those was planned from the same
 * call).
 */
static Plan *
input_plan(Plan *plan)
{
	if (IsA(plan, Append))
		return ((Append *) plan)->appendplans != NIL ?
			(Plan *) linitial(((Append *) plan)->appendplans) : NULL;
	if (IsA(plan, MergeAppend))
		return ((MergeAppend *) plan)->mergeplans != NIL ?
			(Plan *) linitial(((MergeAppend *) plan)->mergeplans) : NULL;
	return outerPlan(plan);
}

static Aggref *
partial_aggref(AggState *as, Aggref *aggref)
{
	Node	   *expr = list_length(aggref->args) == 1 ?
		(Node *) linitial_node(TargetEntry, aggref->args)->expr : NULL;
	Plan	   *plan = outerPlan(as->ss.ps.plan);
	int			depth = 0;

	while (expr != NULL && IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR &&
		   plan != NULL && depth++ < 64)
	{
		AttrNumber	att = ((Var *) expr)->varattno;

		if (att < 1 || att > list_length(plan->targetlist))
			break;
		expr = (Node *) list_nth_node(TargetEntry, plan->targetlist, att - 1)->expr;
		if (IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR)
			plan = input_plan(plan);
	}
	if (expr == NULL || !IsA(expr, Aggref) || ((Aggref *) expr)->aggfnoid != aggref->aggfnoid)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg could not find the arguments of a partial aggregate"),
				 errhint("Disable parallel aggregation for this query: SET max_parallel_workers_per_gather = 0.")));
	return (Aggref *) expr;
}

/* ------------------------------------------------------------------------------------------
 * What a parameter expression may be (see the top of the file).
 */
static bool param_expr_ok(Node *node);

static bool
function_ok(Oid funcid, Oid resulttype, List *args)
{
	ListCell   *lc;

	if (funcid >= FirstNormalObjectId || func_volatile(funcid) != PROVOLATILE_IMMUTABLE)
		return false;
	if (resulttype == CSTRINGOID || resulttype == INTERNALOID)
		return false;
	foreach(lc, args)
	{
		Node	   *arg = (Node *) lfirst(lc);
		Oid			t = exprType(arg);

		if (t == CSTRINGOID || t == INTERNALOID || !param_expr_ok(arg))
			return false;
	}
	return true;
}

static bool
param_expr_ok(Node *node)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Const:
			return true;
		case T_Param:
			return ((Param *) node)->paramkind == PARAM_EXTERN;
		case T_RelabelType:
			return param_expr_ok((Node *) ((RelabelType *) node)->arg);
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) node;

				return function_ok(f->funcid, f->funcresulttype, f->args);
			}
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) node;

				set_opfuncid(op);
				return function_ok(op->opfuncid, op->opresulttype, op->args);
			}
		default:
			return false;
	}
}

static void
check_param_expr(Node *expr, const char *aggname, int i)
{
	if (!param_expr_ok(expr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the privacy parameters of %s must be constants or query parameters",
						aggname),
				 errdetail("Argument %d is not a constant, a query parameter, or a built-in immutable function of those: its value could differ between rows or depend on the data.",
						   i + 1),
				 errhint("Pass the parameters as literals, as $n parameters of a prepared statement, or as PL/pgSQL variables.")));
}

Datum
dpagg_site_param(DpSite *site, int i, bool *isnull)
{
	TargetEntry *tle = list_nth_node(TargetEntry, site->argref->args, i);
	ExprState  *es;
	MemoryContext old;
	Datum		d;

	check_param_expr((Node *) tle->expr, dpagg_kind_name(site->kind), i);
	old = MemoryContextSwitchTo(site->cxt);
	es = ExecInitExpr(tle->expr, &site->aggstate->ss.ps);
	MemoryContextSwitchTo(old);
	d = ExecEvalExprSwitchContext(es, site->aggstate->ss.ps.ps_ExprContext, isnull);
	return d;
}

/* ------------------------------------------------------------------------------------------
 * Freezing the parameters into the plan.
 *
 * Each process of a parallel plan (and each Agg node of a partial or partitionwise plan) reads
 * the parameters from its own copy of the plan.  Evaluated separately, an expression such as
 * quote_ident($1) — built-in and immutable, yet reading a setting (quote_all_identifiers) that
 * can change between the leader's start and the workers' — could give the workers other bounds
 * than the leader charges and releases with.  So before the executor starts, in the leader (or
 * the only process), every parameter that is not already a constant is checked, evaluated once
 * and replaced by a constant in a private copy of the plan; every process then runs that copy
 * and reads the same constants.  Parallel workers receive the plan already frozen.
 */
const char *
dpagg_kind_name(int kind)
{
	switch (kind)
	{
		case DP_SITE_SUM:
			return "dp_sum";
		case DP_SITE_COUNT:
			return "dp_count";
		case DP_SITE_AVG:
			return "dp_avg";
		default:
			return "dp_sum_vector";
	}
}

int
dpagg_value_position(Aggref *aggref, int kind)
{
	int			n = list_length(aggref->aggargtypes);
	bool		has_mech = n > 0 && llast_oid(aggref->aggargtypes) == TEXTOID;

	if (kind == DP_SITE_COUNT)
		return n > (has_mech ? 3 : 2) ? 0 : -1;
	return 0;
}

typedef void (*PlanVisitor) (Plan *plan, void *context);

static void walk_plan(Plan *plan, PlanVisitor visit, void *context);

static void
walk_plans(List *plans, PlanVisitor visit, void *context)
{
	ListCell   *lc;

	foreach(lc, plans)
		walk_plan((Plan *) lfirst(lc), visit, context);
}

static void
walk_plan(Plan *plan, PlanVisitor visit, void *context)
{
	if (plan == NULL)
		return;
	check_stack_depth();
	visit(plan, context);
	walk_plan(plan->lefttree, visit, context);
	walk_plan(plan->righttree, visit, context);
	switch (nodeTag(plan))
	{
		case T_Append:
			walk_plans(((Append *) plan)->appendplans, visit, context);
			break;
		case T_MergeAppend:
			walk_plans(((MergeAppend *) plan)->mergeplans, visit, context);
			break;
		case T_SubqueryScan:
			walk_plan(((SubqueryScan *) plan)->subplan, visit, context);
			break;
		case T_CustomScan:
			walk_plans(((CustomScan *) plan)->custom_plans, visit, context);
			break;
		case T_BitmapAnd:
			walk_plans(((BitmapAnd *) plan)->bitmapplans, visit, context);
			break;
		case T_BitmapOr:
			walk_plans(((BitmapOr *) plan)->bitmapplans, visit, context);
			break;
		default:
			break;
	}
}

/* Every plan tree of a statement: the main one and the subplans. */
void
dpagg_walk_statement(PlannedStmt *stmt, void (*visit) (Plan *plan, void *context), void *context)
{
	walk_plan(stmt->planTree, visit, context);
	walk_plans(stmt->subplans, visit, context);
}

typedef struct FreezeContext
{
	bool		modify;			/* false: only find whether anything needs freezing */
	bool		found;
	ParamListInfo params;
	ExprContext *econtext;
} FreezeContext;

static bool
freeze_aggref_walker(Node *node, FreezeContext *fc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;
		int			kind;
		int			value;
		ListCell   *lc;
		int			i = 0;

		if (DO_AGGSPLIT_COMBINE(aggref->aggsplit))
			return false;		/* its arguments are the partial Aggref's, frozen there */
		kind = aggregate_kind(aggref->aggfnoid);
		if (kind == 0)
			return false;
		value = dpagg_value_position(aggref, kind);
		foreach(lc, aggref->args)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, lc);

			if (!tle->resjunk && i != value && !IsA(tle->expr, Const))
			{
				fc->found = true;
				if (fc->modify)
				{
					Expr	   *expr = tle->expr;
					ExprState  *es;
					Datum		d;
					bool		isnull;
					int16		typlen;
					bool		typbyval;

					check_param_expr((Node *) expr, dpagg_kind_name(kind), i);
					es = ExecInitExprWithParams(expr, fc->params);
					d = ExecEvalExprSwitchContext(es, fc->econtext, &isnull);
					get_typlenbyval(exprType((Node *) expr), &typlen, &typbyval);
					if (!isnull)
						d = datumCopy(d, typbyval, typlen);
					tle->expr = (Expr *) makeConst(exprType((Node *) expr),
												   exprTypmod((Node *) expr),
												   exprCollation((Node *) expr),
												   typlen, d, isnull, typbyval);
				}
			}
			if (!tle->resjunk)
				i++;
		}
		return false;			/* aggregates do not nest */
	}
	return expression_tree_walker(node, freeze_aggref_walker, (void *) fc);
}

static void
freeze_visit(Plan *plan, void *context)
{
	FreezeContext *fc = (FreezeContext *) context;

	if (!IsA(plan, Agg) || (!fc->modify && fc->found))
		return;
	(void) freeze_aggref_walker((Node *) plan->targetlist, fc);
	(void) freeze_aggref_walker((Node *) plan->qual, fc);
}

void
dpagg_freeze_parameters(QueryDesc *qd)
{
	FreezeContext fc = {false, false, qd->params, NULL};

	dpagg_walk_statement(qd->plannedstmt, freeze_visit, &fc);
	if (!fc.found)
		return;					/* every parameter is a constant already (the usual case) */
	qd->plannedstmt = copyObject(qd->plannedstmt);
	fc.modify = true;
	fc.econtext = CreateStandaloneExprContext();
	fc.econtext->ecxt_param_list_info = qd->params;
	dpagg_walk_statement(qd->plannedstmt, freeze_visit, &fc);
	FreeExprContext(fc.econtext, true);
}

/* ------------------------------------------------------------------------------------------
 * Preparing and finding sites.
 */
static DpSite *
site_prepare(AggState *as, AggStatePerTrans pt, int expected_kind)
{
	Aggref	   *aggref = pt->aggref;
	int			kind = aggregate_kind(aggref->aggfnoid);
	DpSite	   *site;

	if (kind == 0 || (expected_kind != 0 && kind != expected_kind))
		not_own_aggregate();
	site = MemoryContextAllocZero(pt->transfn.fn_mcxt, sizeof(DpSite));
	site->magic = DPAGG_SITE_MAGIC;
	site->kind = kind;
	site->aggstate = as;
	site->cxt = pt->transfn.fn_mcxt;
	site->argref = DO_AGGSPLIT_COMBINE(aggref->aggsplit) ? partial_aggref(as, aggref) : aggref;
	/* A finalizing Agg releases, also in a parallel worker (a whole aggregation below a Gather):
	 * wherever it runs, it is checked and charged. */
	site->releases = !DO_AGGSPLIT_SKIPFINAL(aggref->aggsplit);
	site->params = kind == DP_SITE_VECTOR ? dpagg_vector_site_params(site)
		: dpagg_scalar_site_params(site);
	/* Published only once complete: a failed preparation leaves no half-made site behind. */
	pt->transfn.fn_extra = site;
	return site;
}

static AggState *
calling_agg(FunctionCallInfo fcinfo)
{
	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg support functions can only be called by dpagg's aggregates")));
	return (AggState *) fcinfo->context;
}

static DpSite *
checked(DpSite *site, int kind)
{
	if (site->magic != DPAGG_SITE_MAGIC || site->kind != kind)
		not_own_aggregate();
	return site;
}

DpSite *
dpagg_site_of_trans(FunctionCallInfo fcinfo, int kind)
{
	DpSite	   *site = (DpSite *) fcinfo->flinfo->fn_extra;
	AggState   *as;
	AggStatePerTrans pt;

	if (likely(site != NULL))
		return checked(site, kind);
	as = calling_agg(fcinfo);
	pt = as->curpertrans;
	if (pt == NULL || &pt->transfn != fcinfo->flinfo)
		not_own_aggregate();
	return site_prepare(as, pt, kind);
}

DpSite *
dpagg_site_of_final(FunctionCallInfo fcinfo, int kind)
{
	AggState   *as = calling_agg(fcinfo);
	AggStatePerAgg pa = as->curperagg;
	AggStatePerTrans pt;

	if (pa == NULL || &pa->finalfn != fcinfo->flinfo || pa->transno < 0 ||
		pa->transno >= as->numtrans)
		not_own_aggregate();
	pt = &as->pertrans[pa->transno];
	if (pt->transfn.fn_extra != NULL)
		return checked((DpSite *) pt->transfn.fn_extra, kind);
	return site_prepare(as, pt, kind);
}

void
dpagg_site_set_charge(DpSite *site, double epsilon, double delta, const DpChargePart *parts,
					  int nparts)
{
	int			i;
	site->epsilon = epsilon;
	site->delta = delta;
	site->nparts = Min(nparts, (int) lengthof(site->parts));
	for (i = 0; i < site->nparts; i++)
		site->parts[i] = parts[i];
	if (site->releases)
		dpagg_charge_check_parts(site->aggstate, dpagg_kind_name(site->kind), epsilon, delta,
								 site->parts, site->nparts);
}

void
dpagg_site_charge(DpSite *site)
{
	dpagg_charge_at(site->aggstate, &site->mark, dpagg_kind_name(site->kind), site->epsilon, site->delta,
					site->parts, site->nparts, site->query_text);
}

/* ------------------------------------------------------------------------------------------
 * Charging before the first row.
 *
 * An Agg node reads its whole input (or a group's) before its final functions run.  Were the
 * release charged only there, anything that stops the query in between — a refusal at the charge
 * (the budget ran out since the query started), statement_timeout, a cancel, a cursor never
 * fetched to the end — would leave the scan's side effects (pg_stat counters, timing, buffers)
 * observable for free.  So each Agg node that releases runs through a wrapper that charges every
 * release of the node before the node's first step in each loop, i.e. before any input row is
 * read; the final functions find it charged.  An execution that produces no group is charged all
 * the same (the safe direction).
 */
typedef struct AggWrap
{
	AggState   *as;
	ExecProcNodeMtd orig;		/* nodeAgg's ExecAgg */
	int			nsites;
	DpSite	  **sites;
	struct AggWrap *next;
} AggWrap;

static AggWrap *wraps = NULL;	/* of the queries running in this backend */

static void
unlink_wrap(void *arg)
{
	AggWrap   **p;

	for (p = &wraps; *p != NULL; p = &(*p)->next)
		if (*p == (AggWrap *) arg)
		{
			*p = (*p)->next;
			return;
		}
}

static TupleTableSlot *
charged_exec_agg(PlanState *ps)
{
	AggWrap    *w;
	int			i;

	for (w = wraps; w != NULL && w->as != (AggState *) ps; w = w->next)
		;
	if (w == NULL)
		elog(ERROR, "dpagg: an Agg node lost its charging wrapper");
	for (i = 0; i < w->nsites; i++)
		dpagg_site_charge(w->sites[i]);
	return w->orig(ps);
}

static void
wrap_agg(AggState *as, const char *query_text)
{
	MemoryContext cxt = as->ss.ps.state->es_query_cxt;
	AggWrap    *w;
	MemoryContextCallback *cb;
	int			t;

	w = MemoryContextAllocZero(cxt, sizeof(AggWrap));
	w->as = as;
	w->sites = MemoryContextAllocZero(cxt, sizeof(DpSite *) * Max(as->numtrans, 1));
	for (t = 0; t < as->numtrans; t++)
	{
		AggStatePerTrans pt = &as->pertrans[t];
		DpSite	   *site;

		if (!is_own_trans_address(pt->transfn.fn_addr) || pt->transfn.fn_extra == NULL)
			continue;
		site = (DpSite *) pt->transfn.fn_extra;
		site->query_text = query_text;
		if (site->releases)
			w->sites[w->nsites++] = site;
	}
	if (w->nsites == 0)
		return;
	w->orig = as->ss.ps.ExecProcNodeReal;
	cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
	cb->func = unlink_wrap;
	cb->arg = w;
	MemoryContextRegisterResetCallback(cxt, cb);
	w->next = wraps;
	wraps = w;
	as->ss.ps.ExecProcNodeReal = charged_exec_agg;
}

typedef struct PrepareContext
{
	const char *query_text;
} PrepareContext;

/* Called for every node of a plan that has just been started. */
static bool
prepare_walker(PlanState *ps, void *context)
{
	if (ps == NULL)
		return false;
	if (IsA(ps, AggState))
	{
		AggState   *as = (AggState *) ps;
		bool		any = false;
		int			t;
		AggStatePerTrans *trans = palloc(sizeof(AggStatePerTrans) * Max(as->numtrans, 1));
		int			ntrans = 0;

		for (t = 0; t < as->numtrans; t++)
		{
			AggStatePerTrans pt = &as->pertrans[t];

			if (!is_own_trans_address(pt->transfn.fn_addr))
				continue;
			if (pt->transfn.fn_extra == NULL)
				(void) site_prepare(as, pt, 0);
			any = true;
			if (!DO_AGGSPLIT_COMBINE(pt->aggref->aggsplit))
				trans[ntrans++] = pt;
		}
		if (any && as->ss.ps.ExecProcNodeReal != charged_exec_agg)
		{
			wrap_agg(as, ((PrepareContext *) context)->query_text);
			dpagg_pass_constants_once(as, trans, ntrans);
		}
		pfree(trans);
	}
	return planstate_tree_walker(ps, prepare_walker, context);
}

void
dpagg_sites_prepare_tree(PlanState *ps, const char *query_text)
{
	PrepareContext pc = {query_text};

	(void) prepare_walker(ps, &pc);
}
