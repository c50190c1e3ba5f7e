/*
 * citus.c — dpagg's aggregates over Citus tables (docs/guides/citus.md; docs/citus.md).
 *
 * Longer than 1 000 lines because the three forms of the split (safe, direct, worker) rewrite
 * the same levels with the same calls (CitusCall) and must agree on every refusal: one walk
 * decides which form a level takes, and the finished plan is checked against that decision in
 * the same file.  What Citus's catalogs say is in base/citus_metadata.c, the grants in
 * citus_grant.c.
 *
 * Citus runs an aggregate with a combine function in two steps, worker_partial_agg on each shard
 * and coord_combine_agg on the coordinator, or, when the query groups by the distribution
 * column, entirely on the workers, final function included.  Neither suits a release: the
 * coordinator's step does not see the privacy parameters, and a final function on a worker would
 * draw noise and charge where no budget is kept.  So the planner hook (dpagg's runs before Citus's)
 * rewrites, before Citus plans, each query level whose dpagg aggregates read a Citus table:
 *
 *     SELECT g, dp_sum(v, eps, delta, lo, hi) FROM t ... WHERE w GROUP BY g HAVING h
 *
 * becomes
 *
 *     SELECT g, dpagg_merge_sum(s, NULL, eps, delta, lo, hi, NULL, <v is of an integer type>)
 *       FROM (SELECT g, sum(dpagg_quanta_sum(v, lo, hi)) AS s
 *               FROM t ... WHERE w GROUP BY g OFFSET 0) dpagg_partials
 *      GROUP BY g HAVING h
 *
 * (dp_avg's and dp_count's inner query also counts the values, count(v) AS n, which their merges
 * release; dp_sum's release reads the sum only, so its merge takes no count here.)
 *
 * The inner query has only built-in aggregates over one row's quanta (partial.c: the value
 * clamped and counted in the units dp_sum's exact sum adds), which Citus runs natively on the
 * workers and combines exactly on the coordinator where it must (sum(bigint) is a numeric).  The OFFSET 0
 * makes Citus plan it as a distributed subplan whose result (one row per group) comes to the
 * coordinator; the outer query reads only that result, so Citus runs it on the coordinator, where
 * dpagg_merge_* is an ordinary dpagg release: one call site, parameters read once, one charge per
 * execution in the coordinator's ledger, noise drawn there.  Whatever plan Citus picks for the
 * inner query, nothing on a worker releases; and a release on a worker node is refused anyway
 * (refuse_on_citus_worker in ledger/charge.c).
 *
 * dp_sum_vector is split the same way: dpagg_vquanta_sum(v, dimension, l2_bound) on the workers
 * (the rows' clipped vectors summed exactly in quanta, with their number, as a bytea) and
 * dpagg_merge_vector on the coordinator (vector.c).
 *
 * So are dp_var_pop, dp_var_samp, dp_stddev_pop and dp_stddev_samp with bounds (and their report
 * forms): sum(dpagg_quanta_var_squares(v, lo, hi)), sum(dpagg_quanta_var(v, lo, hi)) and count(v)
 * on the workers, the two integers each row adds to the variance's own state, and
 * dpagg_merge_var_pop (or the call's form) on the coordinator (variance.c), in the safe and the
 * direct form alike (the direct form keeps the numeric sums); never in the worker form.
 *
 * So are dp_percentile, dp_median and dp_percentiles, with or without bounds, whose state is the
 * count of a group's values per bin: the inner query groups by the level's keys and the bin,
 * dpagg_quantile_bin(v, lo, hi) (without bounds dpagg_quantile_cell(v)), and counts, count(v);
 * dpagg_merge_percentile (_median, _percentiles) adds each group's rows of (bin, count) into the
 * quantile's own state on the coordinator (percentile.c).  The quantiles of one level share the
 * bin (one value, bounds and FILTER); the level's other calls are summed per bin too, which their
 * merges add up.  In the direct form a group is a row per bin, so its merge stays hashed.
 *
 * So are dp_sum, dp_avg and the variances without bounds, whose state is, per bin of magnitude,
 * the count and the exact sums of the values' quanta (and squares' quanta): the inner query groups
 * by the keys and dpagg_auto_bin(v) and computes count(v), sum(dpagg_auto_quanta(v)) and
 * sum(dpagg_auto_square_quanta(v)); dpagg_merge_auto_sum (_auto_avg, _auto_var_pop, ...) adds
 * them into the one-node state on the coordinator (auto_bounds.c; docs/automatic_bounds.md
 * section 7).  They share the level's bin with each other, not with a quantile's cells.
 *
 * A level grouped by the distribution column takes the direct form instead (below, DPAGG_CITUS_TAG).
 *
 * Refused (0A000) before anything runs: grouping sets, privacy parameters that are not constants,
 * and the shapes of private relations below that Citus cannot run on the coordinator.
 */
#include "citus/citus.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "accounting.h"

static void
unsupported(const char *msg, const char *hint)
{
	ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("%s", msg),
					errdetail(DPAGG_CITUS_SPLIT_DETAIL),
					hint ? errhint("%s", hint) : 0));
}

/* ---- the rewrite of one level ------------------------------------------------------------------ */

/* The calls without bounds that are split per bin of magnitude (auto_bounds.c), and those whose
 * inner query groups by a bin: the quantiles' and theirs. */
#define IS_AUTO(k) ((k) == DP_SITE_AUTO_SUM || (k) == DP_SITE_AUTO_VARIANCE)
#define IS_BINNED(k) ((k) == DP_SITE_PERCENTILE || (k) == DP_SITE_AUTO_PERCENTILE || IS_AUTO(k))

typedef struct CitusCall
{
	Aggref	   *orig;
	int			kind;			/* DP_SITE_SUM, _AVG, _COUNT, _VECTOR, _VARIANCE, _PERCENTILE,
								 * _AUTO_PERCENTILE */
	int			column;			/* its partial sum's column in the inner query (0: none); a
								 * quantile's bin */
	int			ncolumn;		/* its count's column */
	int			qcolumn;		/* a variance's partial sum of squares' column */
	int			acolumn;		/* without bounds (IS_AUTO): the bin's partial sum's column */
	Expr	   *value;			/* NULL: dp_count of rows */
	Var		   *bin;			/* without bounds (IS_AUTO): the bin's column, in the outer query */
	Expr	   *quantile;		/* a quantile's p (dp_percentiles: its ps); NULL for dp_median */
	Expr	   *epsilon,
			   *delta,
			   *lower,
			   *upper,			/* dp_sum_vector: its l2_bound */
			   *mechanism,
			   *dimension;		/* dp_sum_vector */
	bool		integer;
	DpChargePart parts[2];		/* its charge (precheck), for the worker form's grant */
	int			nparts;
} CitusCall;

/*
 * The direct form, for a level grouped by the distribution column of a distributed table.  Its
 * partial sums are made whole on the workers (each group's rows are on one shard), and the safe
 * form's subplan (OFFSET 0) would bring their rows to the coordinator through an intermediate
 * result, which Citus 13 writes with one system call per row: most of the time of a query over
 * a million groups.  The direct form leaves the partial sums' subquery to Citus's pushdown and
 * groups the merge by keys wrapped in dpagg_group_key(), which Citus does not trace back to the
 * distribution column: Citus then gathers the partial rows on the coordinator and runs the merge
 * there (its row-gather strategy, as for any aggregate without a combine function).  Since Citus
 * runs the inner query whole, its partial sums are dpagg_partial_sum (_avg): one aggregate whose
 * 16-byte result is cheaper to make, send and read than sum(bigint)'s numeric (partial.c).
 *
 * Citus hands the merge each argument as a column of the gathered rows, the privacy parameters
 * included, which every row would then carry; tag_aggref keeps a copy of the merge as made, leaves
 * only its data arguments (PostgreSQL's planner reads the argument types from aggargtypes, which
 * stay whole, and nothing executes the aggregate before its arguments are back) and tags it (Aggref.location, DPAGG_CITUS_TAG - index: the parser writes only
 * positions >= 0 or -1, and stored trees read back -1, so no analyst's aggregate carries one);
 * dpagg_citus_finish_plan puts the parameters back from the copy, in the finished plan.  If the finished plan does not run every
 * tagged merge in an Agg on the coordinator (a query whose rows prune to one shard, which Citus
 * routes whole to a worker; or a level that is a subquery of a distributed query), the query is
 * planned again in the safe form.  A merge that kept its NULLs is refused by the release anyway.
 */

struct DpCitusRewrite
{
	int			mode;			/* DPAGG_CITUS_WORKER, _DIRECT or _SAFE: the forms allowed */
	bool		direct_allowed;
	bool		params_dynamic;	/* the analyst's parameters are fetched by a hook (PL/pgSQL) */
	int			nparams;		/* the analyst's parameters ($1 .. $nparams) */
	bool		worker;			/* the query was rewritten in the worker form */
	int			grant_param;	/* its grant's $n */
	char	   *grant_template;	/* its releases as charged (citus_grant.c) */
	char	   *schema;			/* dpagg's schema */
	Query	   *root;			/* the query being rewritten */
	Query	   *original;		/* a copy of it before the first rewrite, for the safe form */
	List	   *tagged;			/* Aggref *: each tagged aggregate as it was made, by tag */
	int			level_first;	/* the first tag of the level being rewritten */
};

/*
 * Private relations (bound.c) on Citus.  bound.c makes each release over a private relation an
 * aggregation of per-unit rows (one per unit and group, at most L groups per unit, sampled by a
 * window over the unit) with its per-unit aggregates (dpagg_unit_sum, ..., dpagg_unit_select).
 * When the unit column is the distribution column, Citus pushes the per-unit subquery down whole
 * (its GROUP BY and its window are over the unit), and the per-unit aggregates, which have no
 * combine function, run over the gathered rows in the coordinator's own plan: the direct form's
 * way, with the same NULL stand-ins for their parameters and a tag that dpagg_citus_finish_plan
 * replaces with bound.c's mark once their parameters are back.  A plan
 * that does not run every per-unit aggregate on the coordinator so (the unit is not the
 * distribution column, a scrollable cursor) is refused: there is no safe form for them, since a
 * level Citus runs as a task of its own reaches the planner again as text, without the mark.
 */
typedef struct LevelContext
{
	bool		merges;			/* the level merges partial states already (written so) */
	List	   *calls;
	List	   *gexprs;
	List	   *units;			/* bound.c's per-unit aggregates (Aggref *), over private relations */
} LevelContext;

static Expr *
float8_const(double v)
{
	return (Expr *) makeConst(FLOAT8OID, -1, InvalidOid, 8, Float8GetDatum(v), false, FLOAT8PASSBYVAL);
}

/* A privacy parameter: a constant (folded), or refused.  NULL when the argument is absent. */
static Expr *
param(Aggref *a, int i, Oid type)
{
	Node	   *e;

	if (i < 0)
		return NULL;
	e = eval_const_expressions(NULL, (Node *) copyObject(list_nth_node(TargetEntry, a->args, i)->expr));
	if (!IsA(e, Const))
		unsupported("the privacy parameters of dpagg's aggregates over Citus tables must be constants",
					"Write epsilon, delta, the bounds and the mechanism as literals.");
	if (((Const *) e)->constisnull && type != TEXTOID)
		unsupported("the privacy parameters of dpagg's aggregates must not be NULL", NULL);
	return (Expr *) e;
}

static void precheck(CitusCall *c);

/* A float8 parameter, folded to a constant (or refused, as param does); NULL refused as the
 * call's site refuses it on one node (dpagg_param_float8): the variances', those without bounds. */
static Expr *
nonnull_param(Aggref *a, int i, const char *what, const char *name)
{
	Const	   *k = (Const *) param(a, i, TEXTOID);	/* TEXTOID: NULL checked here */

	if (k->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must not be NULL", what, name),
				 errhint("Pass a number.")));
	return (Expr *) k;
}

/*
 * dp_var_pop and its sibling forms (variance.c): the parameters checked in the order and with the
 * errors of the release on one node (dpagg_variance_site_params), then its charge prechecked as
 * the others' (precheck).  Its merge takes the mechanism as NULL when the call names none.
 */
static void
capture_variance(CitusCall *c, Aggref *a, const DpArgLayout *lo)
{
	const char *name = dpagg_variance_form_name(a->aggfnoid);
	Const	   *m = NULL;

	c->epsilon = nonnull_param(a, lo->epsilon, "epsilon", name);
	c->delta = nonnull_param(a, lo->delta, "delta", name);
	c->lower = nonnull_param(a, lo->lower, "lower", name);
	c->upper = nonnull_param(a, lo->upper, "upper", name);
	if (lo->mechanism >= 0)
	{
		m = (Const *) param(a, lo->mechanism, TEXTOID);
		c->mechanism = (Expr *) m;
	}
	else
		c->mechanism = (Expr *) makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID);
	dpagg_variance_precheck(name, DatumGetFloat8(((Const *) c->epsilon)->constvalue),
							DatumGetFloat8(((Const *) c->delta)->constvalue),
							DatumGetFloat8(((Const *) c->lower)->constvalue),
							DatumGetFloat8(((Const *) c->upper)->constvalue),
							m != NULL, m == NULL || m->constisnull ? NULL : DatumGetTextPP(m->constvalue));
}

/*
 * dp_percentile, dp_median and dp_percentiles, with or without bounds (percentile.c): the
 * parameters as constants (NULL kept, and refused below as on one node), checked in the order and
 * with the errors of the release on one node, and the charge prechecked
 * (dpagg_percentile_precheck).  Without bounds the merge takes NULL bounds.
 */
static void
capture_percentile(CitusCall *c, Aggref *a, const DpArgLayout *lo)
{
	c->quantile = lo->quantile >= 0 ? param(a, lo->quantile, TEXTOID) : NULL;	/* TEXTOID: NULL kept */
	c->epsilon = param(a, lo->epsilon, TEXTOID);
	c->delta = param(a, lo->delta, TEXTOID);
	c->lower = lo->lower >= 0 ? param(a, lo->lower, TEXTOID) : (Expr *) makeNullConst(FLOAT8OID, -1, InvalidOid);
	c->upper = lo->upper >= 0 ? param(a, lo->upper, TEXTOID) : (Expr *) makeNullConst(FLOAT8OID, -1, InvalidOid);
	c->mechanism = lo->mechanism >= 0 ? param(a, lo->mechanism, TEXTOID)
		: (Expr *) makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID);
	dpagg_percentile_precheck(a, c->kind);
}

/*
 * dp_sum, dp_avg and the variances without bounds (auto_bounds.c, auto_variance.c): epsilon and
 * delta as constants, NULL refused as on one node, then checked in the order and with the errors
 * of their site on one node and the charge prechecked (dpagg_auto_precheck).
 */
static void
capture_auto(CitusCall *c, Aggref *a, const DpArgLayout *lo)
{
	const char *name = c->kind == DP_SITE_AUTO_VARIANCE ? dpagg_auto_variance_form_name(a->aggfnoid)
		: dpagg_auto_is_avg(a->aggfnoid) ? "dp_avg" : "dp_sum";

	c->epsilon = nonnull_param(a, lo->epsilon, "epsilon", name);
	c->delta = nonnull_param(a, lo->delta, "delta", name);
	dpagg_auto_precheck(a->aggfnoid, c->kind, DatumGetFloat8(((Const *) c->epsilon)->constvalue),
						DatumGetFloat8(((Const *) c->delta)->constvalue));
}

static void
capture(LevelContext *lc, Aggref *a)
{
	CitusCall  *c;
	ListCell   *l;
	int			kind = dpagg_aggregate_kind(a->aggfnoid);
	DpArgLayout lo;

	foreach(l, lc->calls)
		if (equal(((CitusCall *) lfirst(l))->orig, a))
			return;
	if (DPAGG_KIND_IS_ANY_MERGE(kind))
	{
		lc->merges = true;		/* already split: its partial states are its input */
		return;
	}
	if (DPAGG_KIND_IS_UNIT(kind))
	{
		lc->units = lappend(lc->units, a);	/* the per-unit level of a private relation */
		return;
	}
	if (kind != DP_SITE_SUM && kind != DP_SITE_AVG && kind != DP_SITE_COUNT && kind != DP_SITE_VECTOR &&
		kind != DP_SITE_VARIANCE && !IS_BINNED(kind))
		unsupported("dpagg cannot split this aggregate for Citus", NULL);
	if (a->aggorder != NIL || a->aggdistinct != NIL)
		unsupported("ORDER BY and DISTINCT inside dpagg's aggregates are not available", NULL);
	c = palloc0(sizeof(CitusCall));
	c->orig = a;
	c->kind = kind;
	if (kind == DP_SITE_VECTOR)
	{
		/* dp_sum_vector(value, dimension, epsilon, delta, l2_bound [, mechanism]) */
		c->value = (Expr *) copyObject(linitial_node(TargetEntry, a->args)->expr);
		c->dimension = param(a, 1, INT4OID);
		c->epsilon = param(a, 2, FLOAT8OID);
		c->delta = param(a, 3, FLOAT8OID);
		c->upper = param(a, 4, FLOAT8OID);
		c->mechanism = list_length(a->args) > 5 ? param(a, 5, TEXTOID) : NULL;
		if (c->mechanism == NULL)
			c->mechanism = (Expr *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
											  CStringGetTextDatum("auto"), false, false);
		else if (((Const *) c->mechanism)->constisnull)
			unsupported("the privacy parameters of dpagg's aggregates must not be NULL", NULL);
		precheck(c);
		lc->calls = lappend(lc->calls, c);
		return;
	}
	dpagg_arg_layout(a, kind, &lo);
	c->value = lo.value >= 0 ? (Expr *) copyObject(list_nth_node(TargetEntry, a->args, lo.value)->expr) : NULL;
	if (kind == DP_SITE_VARIANCE)
	{
		capture_variance(c, a, &lo);
		lc->calls = lappend(lc->calls, c);
		return;
	}
	if (kind == DP_SITE_PERCENTILE || kind == DP_SITE_AUTO_PERCENTILE)
	{
		capture_percentile(c, a, &lo);
		lc->calls = lappend(lc->calls, c);
		return;
	}
	if (IS_AUTO(kind))
	{
		capture_auto(c, a, &lo);
		lc->calls = lappend(lc->calls, c);
		return;
	}
	c->epsilon = param(a, lo.epsilon, FLOAT8OID);
	c->delta = param(a, lo.delta, FLOAT8OID);
	c->mechanism = param(a, lo.mechanism, TEXTOID);
	if (c->mechanism == NULL)
		c->mechanism = (Expr *) makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID);
	if (kind != DP_SITE_COUNT)
	{
		double		lower,
					upper;

		if (lo.sensitivity >= 0)
		{
			double		s = DatumGetFloat8(((Const *) param(a, lo.sensitivity, FLOAT8OID))->constvalue);

			if (!(isfinite(s) && s > 0))
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								errmsg("sensitivity must be a finite number greater than 0"),
								errhint("Pass the largest absolute value one row can contribute, in (0, infinity).")));
			lower = -s;
			upper = s;
		}
		else
		{
			lower = DatumGetFloat8(((Const *) param(a, lo.lower, FLOAT8OID))->constvalue);
			upper = DatumGetFloat8(((Const *) param(a, lo.upper, FLOAT8OID))->constvalue);
		}
		/* the bounds rule, now: before any worker reads a row */
		(void) dpagg_check_bounds(kind == DP_SITE_AVG ? DP_SITE_AVG : DP_SITE_SUM, lower, upper);
		c->lower = float8_const(lower);
		c->upper = float8_const(upper);
		{
			Oid			t = exprType((Node *) c->value);

			c->integer = (t == INT2OID || t == INT4OID || t == INT8OID);
		}
	}
	precheck(c);
	lc->calls = lappend(lc->calls, c);
}

/*
 * Everything the release would refuse — its parameters (calibration), the budget's existence, the
 * cap, the floor, overspending, a worker or a standby — checked now, while planning: the workers
 * read their shards before the coordinator's release starts, and a refusal only then would leave
 * that work done for nothing (and observable).  The release checks again when it runs.
 */
static void
precheck(CitusCall *c)
{
	dpagg_calibration cal[2];
	DpChargePart parts[2];
	double		sens;
	bool		joint[2];
	double		eps = DatumGetFloat8(((Const *) c->epsilon)->constvalue);
	double		del = DatumGetFloat8(((Const *) c->delta)->constvalue);
	Const	   *m = (Const *) c->mechanism;
	int			n,
				i;

	if (c->kind == DP_SITE_VECTOR)
	{
		char		mech[DPAGG_MECH_SPEC_LEN];

		dpagg_vector_mechanism(m->constvalue, mech, sizeof(mech));
		dpagg_unit_vector_calibration(mech, DatumGetInt32(((Const *) c->dimension)->constvalue), eps, del,
									  DatumGetFloat8(((Const *) c->upper)->constvalue), 1, &cal[0]);
		parts[0].spec = cal[0].spec;
		parts[0].epsilon = eps;
		parts[0].delta = dpagg_charged_delta(&cal[0], del);
		parts[0].rho = dpagg_zcdp_rho(&cal[0]);
		dpagg_charge_precheck("dp_sum_vector", eps, del, parts, 1);
		return;
	}
	n = dpagg_unit_calibrations(c->kind, eps, del,
								c->lower ? DatumGetFloat8(((Const *) c->lower)->constvalue) : 0,
								c->upper ? DatumGetFloat8(((Const *) c->upper)->constvalue) : 0,
								m->constisnull ? NULL : DatumGetTextPP(m->constvalue), 1, 0,
								c->integer, cal, &sens, joint);
	for (i = 0; i < n; i++)
	{
		parts[i].spec = cal[i].spec;
		parts[i].epsilon = cal[i].epsilon;
		parts[i].delta = dpagg_charged_delta(&cal[i], cal[i].delta);
		parts[i].rho = dpagg_zcdp_rho(&cal[i]);
		c->parts[i] = parts[i];
		c->parts[i].spec = pstrdup(cal[i].spec);
	}
	c->nparts = n;
	dpagg_charge_precheck(dpagg_kind_name(c->kind), eps, del, parts, n);
}

static bool
collect_walker(Node *node, LevelContext *lc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0)
	{
		if (dpagg_is_own_aggregate(((Aggref *) node)->aggfnoid))
			capture(lc, (Aggref *) node);
		else
			unsupported("dpagg's aggregates over Citus tables cannot be mixed with other aggregates in one query level",
						"Compute the other aggregates in a separate query.");
		return false;
	}
	if (IsA(node, Query))
		return false;
	return expression_tree_walker(node, collect_walker, lc);
}

/* The inner query's aggregates of a call: sum(dpagg_quanta_sum(v, lo, hi)) (or _avg) and, but for
 * dp_sum, count(v), or count(*) for rows; all built-in aggregates, which Citus runs natively. */
static Aggref *
quanta_sum_aggref(CitusCall *c, const char *schema, bool direct)
{
	Oid			types[3] = {exprType((Node *) c->value), FLOAT8OID, FLOAT8OID};
	Oid			int8 = INT8OID;
	Oid			fn;
	Expr	   *q;

	/* The direct form's inner query runs whole on the workers: dpagg_partial_sum (_avg), a
	 * 16-byte partial sum (partial.c), instead of sum()'s numeric. */
	if (direct)
		return dpagg_make_aggref(dpagg_function_oid(schema, c->kind == DP_SITE_SUM ? "dpagg_partial_sum" : "dpagg_partial_avg",
													3, types),
								 list_make3(copyObject(c->value), c->lower, c->upper), false,
								 (Expr *) copyObject(c->orig->aggfilter), -1);
	fn = dpagg_function_oid(schema, c->kind == DP_SITE_SUM ? "dpagg_quanta_sum" : "dpagg_quanta_avg", 3, types);
	q = (Expr *) makeFuncExpr(fn, INT8OID, list_make3(copyObject(c->value), c->lower, c->upper),
							  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return dpagg_make_aggref(dpagg_function_oid("pg_catalog", "sum", 1, &int8), list_make1(q), false,
							 (Expr *) copyObject(c->orig->aggfilter), -1);
}

/* A variance's: sum(dpagg_quanta_var_squares(v, lo, hi)) or sum(dpagg_quanta_var(v, lo, hi)),
 * built-in sums of the two integers a row adds to its state (variance.c), in both the safe and the
 * direct form. */
static Aggref *
variance_sum_aggref(CitusCall *c, const char *schema, bool squares)
{
	Oid			types[3] = {exprType((Node *) c->value), FLOAT8OID, FLOAT8OID};
	Oid			int8 = INT8OID;
	Oid			fn = dpagg_function_oid(schema, squares ? "dpagg_quanta_var_squares" : "dpagg_quanta_var", 3, types);
	Expr	   *q = (Expr *) makeFuncExpr(fn, INT8OID, list_make3(copyObject(c->value), c->lower, c->upper),
										  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);

	return dpagg_make_aggref(dpagg_function_oid("pg_catalog", "sum", 1, &int8), list_make1(q), false,
							 (Expr *) copyObject(c->orig->aggfilter), -1);
}

/* Without bounds: sum(dpagg_auto_quanta(v)) or sum(dpagg_auto_square_quanta(v)), grouped by the
 * bin, built-in sums of the integers a row adds to its bin in the state (auto_bounds.c). */
static Aggref *
auto_sum_aggref(CitusCall *c, const char *schema, bool squares)
{
	Oid			type = exprType((Node *) c->value);
	Oid			int8 = INT8OID;
	Oid			fn = dpagg_function_oid(schema, squares ? "dpagg_auto_square_quanta" : "dpagg_auto_quanta", 1, &type);
	Expr	   *q = (Expr *) makeFuncExpr(fn, INT8OID, list_make1(copyObject(c->value)),
										  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);

	return dpagg_make_aggref(dpagg_function_oid("pg_catalog", "sum", 1, &int8), list_make1(q), false,
							 (Expr *) copyObject(c->orig->aggfilter), -1);
}

/* dp_sum_vector's: dpagg_vquanta_sum(v, dimension, l2_bound), the partial sum with its rows. */
static Aggref *
vquanta_sum_aggref(CitusCall *c, const char *schema)
{
	Oid			types[3] = {FLOAT8ARRAYOID, INT4OID, FLOAT8OID};

	return dpagg_make_aggref(dpagg_function_oid(schema, "dpagg_vquanta_sum", 3, types),
							 list_make3(copyObject(c->value), c->dimension, c->upper), false,
							 (Expr *) copyObject(c->orig->aggfilter), -1);
}

static Aggref *
count_aggref(CitusCall *c)
{
	Oid			any = ANYOID;
	Aggref	   *a;

	if (c->value == NULL)
	{
		a = dpagg_make_aggref(dpagg_function_oid("pg_catalog", "count", 0, NULL), NIL, true,
							  (Expr *) copyObject(c->orig->aggfilter), -1);
		return a;
	}
	return dpagg_make_aggref(dpagg_function_oid("pg_catalog", "count", 1, &any),
							 list_make1(copyObject(c->value)), false,
							 (Expr *) copyObject(c->orig->aggfilter), -1);
}

/*
 * A quantile's bin, the inner query's extra grouping column: dpagg_quantile_bin(v, lo, hi), or
 * without bounds dpagg_quantile_cell(v) (percentile.c), the bin its state would count the row in;
 * under the call's FILTER only where the filter holds (elsewhere NULL, counted 0), so that the value
 * is evaluated for the rows the call reads and no other.
 */
static Expr *
quantile_bin_expr(CitusCall *c, const char *schema)
{
	Oid			types[3] = {exprType((Node *) c->value), FLOAT8OID, FLOAT8OID};
	Expr	   *b;

	if (c->kind == DP_SITE_AUTO_PERCENTILE || IS_AUTO(c->kind))
		b = (Expr *) makeFuncExpr(dpagg_function_oid(schema, IS_AUTO(c->kind) ? "dpagg_auto_bin" : "dpagg_quantile_cell",
													 1, types), INT4OID,
								  list_make1(copyObject(c->value)), InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	else
		b = (Expr *) makeFuncExpr(dpagg_function_oid(schema, "dpagg_quantile_bin", 3, types), INT4OID,
								  list_make3(copyObject(c->value), c->lower, c->upper),
								  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	if (c->orig->aggfilter != NULL)
	{
		CaseExpr   *ce = makeNode(CaseExpr);
		CaseWhen   *w = makeNode(CaseWhen);

		w->expr = (Expr *) copyObject(c->orig->aggfilter);
		w->result = b;
		w->location = -1;
		ce->casetype = INT4OID;
		ce->casecollid = InvalidOid;
		ce->args = list_make1(w);
		ce->defresult = (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
		ce->location = -1;
		b = (Expr *) ce;
	}
	return b;
}

/* The level's one bin expression (NULL if it has no quantile): the quantiles of a level must
 * share it, since the inner query groups by one bin per row. */
static Expr *
level_bin(LevelContext *lc, const char *schema)
{
	ListCell   *l;
	Expr	   *bin = NULL;

	foreach(l, lc->calls)
	{
		CitusCall  *c = (CitusCall *) lfirst(l);
		Expr	   *b;

		if (!IS_BINNED(c->kind))
			continue;
		b = quantile_bin_expr(c, schema);
		if (bin != NULL && !equal(bin, b))
			unsupported("dp_percentile, dp_median, dp_percentiles and the aggregates without bounds in one query level over Citus tables must read the same value, with the same bounds (or none) and FILTER",
						"Compute the others in a separate query (the quantiles and dp_sum, dp_avg and the variances without bounds count in different bins).");
		bin = b;
	}
	return bin;
}

/* OFFSET 0: Citus plans a (sub)query with an OFFSET as a subplan of its own. */
static Node *
offset_zero(void)
{
	return (Node *) makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum(0), false, FLOAT8PASSBYVAL);
}

/* The privacy parameters of a call's merge, in their order after the partial sum and count. */
static List *
merge_params(CitusCall *c)
{
	if (c->kind == DP_SITE_VECTOR)
		return list_make5(c->dimension, c->epsilon, c->delta, c->upper, c->mechanism);
	if (c->kind == DP_SITE_COUNT)
		return list_make3(c->epsilon, c->delta, c->mechanism);
	if (IS_AUTO(c->kind))
		return list_make2(c->epsilon, c->delta);
	if (c->kind == DP_SITE_PERCENTILE || c->kind == DP_SITE_AUTO_PERCENTILE)
	{
		List	   *l = list_make5(c->epsilon, c->delta, c->lower, c->upper, c->mechanism);

		return c->quantile != NULL ? lcons(c->quantile, l) : l;
	}
	if (c->kind == DP_SITE_AVG || c->kind == DP_SITE_VARIANCE)
		return list_make5(c->epsilon, c->delta, c->lower, c->upper, c->mechanism);
	return lappend(list_make5(c->epsilon, c->delta, c->lower, c->upper, c->mechanism),
				   makeBoolConst(c->integer, false));
}

static Aggref *
merge_aggref(CitusCall *c, Var *sum, Expr *n, Var *squares, const char *schema)
{
	/* A report form (dp_sum_report, ...) merges into the merge's report form. */
	bool		report = dpagg_aggregate_is_report(c->orig->aggfnoid);
	List	   *params = merge_params(c);
	Aggref	   *a;

	if (IS_AUTO(c->kind))
	{
		/* dpagg_merge_auto_sum(bin, n, s, epsilon, delta) (_avg), dpagg_merge_auto_var_pop(bin,
		 * n, s, squares, epsilon, delta) or the call's form, as the analyst called it */
		bool		var = c->kind == DP_SITE_AUTO_VARIANCE;
		const char *form = var ? dpagg_auto_variance_form_name(c->orig->aggfnoid)
			: dpagg_auto_is_avg(c->orig->aggfnoid) ? "dp_avg" : "dp_sum";
		List	   *data = list_make3(c->bin, n, sum);

		if (var)
			data = lappend(data, squares);
		a = dpagg_make_aggref(dpagg_function_oid(schema, psprintf("dpagg_merge_auto_%s", form + 3), var ? 6 : 5,
												 var ? (Oid[]) {INT4OID, INT8OID, NUMERICOID, NUMERICOID, FLOAT8OID, FLOAT8OID}
												 : (Oid[]) {INT4OID, INT8OID, NUMERICOID, FLOAT8OID, FLOAT8OID}),
							  list_concat(data, params), false, NULL, -1);
	}
	else if (c->kind == DP_SITE_VARIANCE)
		/* dpagg_merge_var_pop(squares, sum, n, epsilon, delta, lower, upper, mechanism), or the
		 * merge of the call's form */
		a = dpagg_make_aggref(dpagg_function_oid(schema, psprintf("dpagg_merge_%s%s",
																  dpagg_variance_form_name(c->orig->aggfnoid) + 3,
																  report ? "_report" : ""), 8,
												 (Oid[]) {NUMERICOID, NUMERICOID, INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, TEXTOID}),
							  list_concat(list_make3(squares, sum, n), params), false, NULL, -1);
	else if (c->kind == DP_SITE_PERCENTILE || c->kind == DP_SITE_AUTO_PERCENTILE)
	{
		/* dpagg_merge_percentile(bin, n, p, epsilon, delta, lower, upper, mechanism), _median
		 * (no p) or _percentiles (ps), as the analyst called it (percentile.c) */
		Oid			types[8] = {INT4OID, INT8OID};
		int			nargs = 2;

		if (c->quantile != NULL)
			types[nargs++] = exprType((Node *) c->quantile);
		types[nargs++] = FLOAT8OID;
		types[nargs++] = FLOAT8OID;
		types[nargs++] = FLOAT8OID;
		types[nargs++] = FLOAT8OID;
		types[nargs++] = TEXTOID;
		a = dpagg_make_aggref(dpagg_function_oid(schema, psprintf("dpagg_merge_%s", dpagg_percentile_form_name(c->orig, c->kind) + 3),
												 nargs, types),
							  list_concat(list_make2(sum, n), params), false, NULL, -1);
	}
	else if (c->kind == DP_SITE_VECTOR)
		a = dpagg_make_aggref(dpagg_function_oid(schema, "dpagg_merge_vector", 6,
										(Oid[]) {BYTEAOID, INT4OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, TEXTOID}),
							  list_concat(list_make1(sum), params), false, NULL, -1);
	else if (c->kind == DP_SITE_COUNT)
		a = dpagg_make_aggref(dpagg_function_oid(schema, report ? "dpagg_merge_count_report" : "dpagg_merge_count", 4,
										(Oid[]) {INT8OID, FLOAT8OID, FLOAT8OID, TEXTOID}),
							  list_concat(list_make1(n), params), false, NULL, -1);
	else if (c->kind == DP_SITE_AVG)
		a = dpagg_make_aggref(dpagg_function_oid(schema, report ? "dpagg_merge_avg_report" : "dpagg_merge_avg", 7,
										(Oid[]) {sum->vartype, INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, TEXTOID}),
							  list_concat(list_make2(sum, n), params), false, NULL, -1);
	else
		a = dpagg_make_aggref(dpagg_function_oid(schema, report ? "dpagg_merge_sum_report" : "dpagg_merge_sum", 8,
										(Oid[]) {sum->vartype, INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, TEXTOID, BOOLOID}),
							  list_concat(list_make2(sum, n), params), false, NULL, -1);
	return a;
}

/*
 * Tag one of dpagg's aggregates for Citus (the direct form's merges, the per-unit aggregates):
 * keep a copy as made, put NULLs in its parameters' places (every argument but the data), mark
 * it with its tag.  Equal aggregates of one level share a tag (PostgreSQL computes them once);
 * those of different levels do not, so that each level's must be found in the finished plan.
 */
static void
tag_aggref(Aggref *a, DpCitusRewrite *cr)
{
	ListCell   *l;
	int			index;

	index = cr->level_first;
	for_each_from(l, cr->tagged, cr->level_first)
	{
		if (equal(lfirst(l), a))
			break;
		index++;
	}
	if (l == NULL)
	{
		if (index >= DPAGG_CITUS_TAG_MAX)
			unsupported("too many of dpagg's aggregates in one query", NULL);
		cr->tagged = lappend(cr->tagged, copyObject(a));
	}
	a->args = dpagg_data_args(a, dpagg_aggregate_kind(a->aggfnoid));
	a->location = DPAGG_CITUS_TAG - index;
}

/* The copy of a tagged aggregate as it was made, or NULL if a is not tagged. */
static Aggref *
tagged_original(Aggref *a, DpCitusRewrite *cr)
{
	int			index;

	if (!dpagg_citus_tagged(a))
		return NULL;
	index = DPAGG_CITUS_TAG - a->location;
	if (index >= list_length(cr->tagged))
		return NULL;
	return (Aggref *) list_nth(cr->tagged, index);
}

typedef struct OuterContext
{
	LevelContext *lc;
	List	   *inner_tlist;
	const char *schema;
	DpCitusRewrite *cr;			/* the direct form's tags; NULL in the safe form */
} OuterContext;

static Var *
inner_var(OuterContext *oc, int column)
{
	TargetEntry *tle = list_nth_node(TargetEntry, oc->inner_tlist, column - 1);

	return makeVar(1, column, exprType((Node *) tle->expr), exprTypmod((Node *) tle->expr),
				   exprCollation((Node *) tle->expr), 0);
}

static Node *
outer_mutator(Node *node, OuterContext *oc)
{
	ListCell   *c;
	int			i;

	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0)
	{
		foreach(c, oc->lc->calls)
		{
			CitusCall  *call = (CitusCall *) lfirst(c);

			if (equal(call->orig, node))
			{
				Expr	   *n = call->ncolumn ? (Expr *) inner_var(oc, call->ncolumn)
					: (Expr *) makeNullConst(INT8OID, -1, InvalidOid);	/* dp_sum's: none */
				Aggref	   *m;

				if (IS_AUTO(call->kind))
					call->bin = inner_var(oc, call->column);	/* its sum is acolumn's */
				m = merge_aggref(call, call->column ? inner_var(oc, IS_AUTO(call->kind) ? call->acolumn : call->column) : NULL,
											 n, call->qcolumn ? inner_var(oc, call->qcolumn) : NULL,
											 oc->schema);

				if (oc->cr != NULL)
					tag_aggref(m, oc->cr);
				return (Node *) m;
			}
		}
		elog(ERROR, "dpagg: an aggregate was not collected");
	}
	i = 0;
	foreach(c, oc->lc->gexprs)
	{
		i++;
		if (equal(lfirst(c), node))
			return (Node *) inner_var(oc, i);
	}
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
		unsupported("a column is used outside GROUP BY and dpagg's aggregates",
					"Add the column to GROUP BY.");
	return expression_tree_mutator(node, outer_mutator, oc);
}

/*
 * A one-row subquery of a local catalog, (SELECT 1 FROM pg_catalog.pg_am LIMIT 1), joined to the
 * partial sums: a query whose tables all prune to one shard (WHERE uid = 5) would otherwise be
 * sent whole to that shard's worker by Citus's router planner, the release included, and the
 * worker refuses; with a local relation in it, Citus plans the partial sums as a subplan and
 * runs the release on the coordinator, in every shape.  (Its one row leaves the groups as they
 * are.)  Added only where such pruning is possible (may_route_to_one_shard).
 */
static RangeTblEntry *
pinning_rte(void)
{
	const char *sql = "SELECT 1 AS one FROM pg_catalog.pg_am LIMIT 1";
	RawStmt    *raw = linitial_node(RawStmt, raw_parser(sql, RAW_PARSE_DEFAULT));
	Query	   *sq = parse_analyze_fixedparams(raw, sql, NULL, 0, NULL);
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sq;
	rte->alias = makeAlias("dpagg_coordinator", NIL);
	rte->eref = makeAlias("dpagg_coordinator", list_make1(makeString(pstrdup("one"))));
	rte->inFromCl = true;
	return rte;
}

/* The distribution column of a hash-distributed Citus table, or 0. */
static AttrNumber
distribution_column(Oid relid, Oid partition_rel)
{
	AttrNumber	column;

	(void) dpagg_citus_table_lookup(relid, partition_rel, &column);
	return column;
}

static bool
outer_var_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup > 0;
	if (IsA(node, PlaceHolderVar))
		return ((PlaceHolderVar *) node)->phlevelsup > 0;
	if (IsA(node, Aggref))
		return ((Aggref *) node)->agglevelsup > 0 ||
			expression_tree_walker(node, outer_var_walker, context);
	return expression_tree_walker(node, outer_var_walker, context);
}

/*
 * Does the level read one hash-distributed table alone (no join, no subquery, no reference to an
 * outer query) and group by its distribution column?  Citus pushes such a grouping down whole,
 * always; the direct form is kept to it (a join of tables that are not co-located, or a lateral
 * reference, can make Citus refuse a pushdown that the safe form's subplan does not need).
 */
static bool
grouped_by_distribution_column(Query *q, Oid partition_rel)
{
	ListCell   *c;

	if (list_length(q->rtable) != 1 || rt_fetch(1, q->rtable)->rtekind != RTE_RELATION ||
		q->hasSubLinks || q->cteList != NIL ||
		outer_var_walker((Node *) q->targetList, NULL) ||
		outer_var_walker(q->jointree->quals, NULL) || outer_var_walker(q->havingQual, NULL))
		return false;
	foreach(c, q->groupClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst_node(SortGroupClause, c), q->targetList);
		Var		   *v = (Var *) tle->expr;
		RangeTblEntry *rte;

		if (!IsA(v, Var) || v->varlevelsup != 0 || v->varno < 1 || v->varno > list_length(q->rtable))
			continue;
		rte = rt_fetch(v->varno, q->rtable);
		if (rte->rtekind == RTE_RELATION && v->varattno > 0 &&
			distribution_column(rte->relid, partition_rel) == v->varattno)
			return true;
	}
	return false;
}

typedef struct RepeatContext
{
	List	   *seen;			/* dpagg's own Aggrefs of the level */
	bool		repeated;		/* one of them twice */
	bool		repeated_report;	/* a report form twice (e.g. (dp_sum_report(...)).*) */
} RepeatContext;

static bool
repeat_walker(Node *node, RepeatContext *rc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0 &&
		dpagg_is_own_aggregate(((Aggref *) node)->aggfnoid))
	{
		ListCell   *l;

		foreach(l, rc->seen)
			if (equal(lfirst(l), node))
			{
				rc->repeated = true;
				if (dpagg_aggregate_is_report(((Aggref *) node)->aggfnoid))
					rc->repeated_report = true;
			}
		rc->seen = lappend(rc->seen, node);
		return false;
	}
	if (IsA(node, Query))
		return false;
	return expression_tree_walker(node, repeat_walker, rc);
}

/*
 * Does the level call one of dpagg's aggregates twice with the same arguments (the select list
 * and HAVING; a report form's fields, (dp_sum_report(...)).*)?  PostgreSQL computes such calls
 * once; Citus, gathering each call's arguments as columns of its own, would make them separate
 * releases (an attack review: eight releases for one (...).*, each field from another draw).
 */
static RepeatContext
repeated_calls(Query *q)
{
	RepeatContext rc = {NIL, false, false};

	(void) repeat_walker((Node *) q->targetList, &rc);
	(void) repeat_walker(q->havingQual, &rc);
	return rc;
}

/*
 * The query as it is before the first level is rewritten in the direct form (or tagged), for
 * planning it again in the safe form.  Levels rewritten in the safe form before it are kept as
 * they are: planned again, they hold merges, which the rewrite leaves alone.
 */
static void
keep_original(DpCitusRewrite *cr)
{
	if (cr->original == NULL)
		cr->original = copyObject(cr->root);
}

static bool
unit_tag_walker(Node *node, DpCitusRewrite *cr)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0 &&
		DPAGG_KIND_IS_UNIT(dpagg_aggregate_kind(((Aggref *) node)->aggfnoid)))
	{
		tag_aggref((Aggref *) node, cr);
		return false;
	}
	if (IsA(node, Query))
		return false;
	return expression_tree_walker(node, unit_tag_walker, cr);
}

static void
unit_level(Query *q, LevelContext *lc, DpCitusRewrite *cr)
{
	if (!cr->direct_allowed)
		dpagg_citus_refuse_units();
	/* A report form called twice would give its fields from different releases (repeated_calls);
	 * other repeated calls are released and charged apart (docs/guides/citus.md). */
	if (repeated_calls(q).repeated_report)
		unsupported("a report form over a private relation on Citus may be called only once in its query level",
					"Select the report itself (dp_sum_report(...) AS r) and read its fields from the row, not (dp_sum_report(...)).*.");
	/*
	 * The workers read the per-unit rows for the current role, and a worker refuses a restricted
	 * role anything over a private relation's shards but dpagg's aggregates: it cannot tell the
	 * coordinator's per-unit subquery from the same query sent to it directly, which would give
	 * exact per-unit sums.  Refused here, before anything is charged.
	 */
	if (dpagg_session_restricted())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("restricted roles cannot query private relations on Citus tables yet"),
				 errdetail("The workers would read the per-unit rows for this role, and they refuse a restricted role anything over a private relation's shards but dpagg's aggregates."),
				 errhint("Query the private relation as a role that is not restricted, or keep private relations for restricted roles on a local table.")));
	keep_original(cr);
	cr->level_first = list_length(cr->tagged);
	(void) unit_tag_walker((Node *) q->targetList, cr);
	(void) unit_tag_walker(q->havingQual, cr);
}

/*
 * The worker form (citus_grant.c; docs/citus.md §6): a query whose one level reads one
 * hash-distributed table alone and groups by its distribution column is left for Citus to push
 * down whole, releases included, with the qual dpagg_citus_grant($n) added; $n is a parameter of
 * the coordinator's executor that carries the grant.  dpagg_citus_finish_plan checks that Citus
 * pushed the level down (no release of it left in the coordinator's plan) and puts the one-time
 * filter dpagg_citus_release($n, template) above the plan, by which the coordinator's ExecutorStart
 * charges the releases (the template lists them as charged) and seals the grant.  Only when every
 * node has the key (dpagg.citus_key_file), for plain dp_sum, dp_avg and dp_count (no report form,
 * no vector), for a session that is not restricted, and for the query's outermost level; else the
 * direct form.
 */
static bool
setting_is_default(const char *name)
{
	const char *now = GetConfigOption(name, true, false);
	const char *reset = GetConfigOptionResetString(name);

	return now != NULL && reset != NULL && strcmp(now, reset) == 0;
}

static bool
is_heap(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		heap;

	if (!HeapTupleIsValid(tup))
		return false;
	heap = ((Form_pg_class) GETSTRUCT(tup))->relam == HEAP_TABLE_AM_OID;
	ReleaseSysCache(tup);
	return heap;
}

static bool
worker_form(Query *q, DpCitusRewrite *cr, LevelContext *lc, Oid partition_rel)
{
	ListCell   *c;
	Oid			relid;

	if (cr->mode < DPAGG_CITUS_WORKER || q != cr->root || q->commandType != CMD_SELECT ||
		cr->params_dynamic || !dpagg_citus_key_configured() || dpagg_session_restricted() ||
		q->hasWindowFuncs || q->hasTargetSRFs || q->distinctClause != NIL ||
		q->groupingSets != NIL || list_length(lc->calls) > DPAGG_GRANT_MAX_CALLS ||
		!grouped_by_distribution_column(q, partition_rel) || repeated_calls(q).repeated)
		return false;
	/*
	 * The workers calibrate with their own settings: the session's must be the defaults (each
	 * node's configuration must agree, docs/guides/citus.md), or the workers would refuse releases the
	 * coordinator had charged.
	 */
	if (!setting_is_default("dpagg.default_mechanism") || !setting_is_default("dpagg.objective"))
		return false;
	/* ... nor the budget's accounting, which auto weighs (a worker's session has no budget) */
	if (dpagg_session_accounting() != DPAGG_ACCOUNTING_BASIC)
		return false;
	relid = rt_fetch(1, q->rtable)->relid;
	if (get_rel_relkind(relid) != RELKIND_RELATION || !is_heap(relid) ||
		!dpagg_citus_single_placement(relid) ||
		strlen(quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
										  get_rel_name(relid))) >= DPAGG_GRANT_NAME_LEN)
		return false;
	foreach(c, lc->calls)
	{
		CitusCall  *call = (CitusCall *) lfirst(c);

		if ((call->kind != DP_SITE_SUM && call->kind != DP_SITE_AVG && call->kind != DP_SITE_COUNT) ||
			dpagg_aggregate_is_report(call->orig->aggfnoid))
			return false;
	}
	return true;
}

static void
worker_level(Query *q, DpCitusRewrite *cr, LevelContext *lc, const char *schema)
{
	dpagg_grant *g = palloc0(sizeof(dpagg_grant));
	char	   *buf = palloc(DPAGG_GRANT_TEXT_MAX);
	dpagg_error err;
	Oid			relid = rt_fetch(1, q->rtable)->relid;
	Oid			text = TEXTOID;
	ListCell   *c;
	Param	   *p;
	int			i;

	strlcpy(g->table, quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												 get_rel_name(relid)), sizeof(g->table));
	foreach(c, lc->calls)
	{
		CitusCall  *call = (CitusCall *) lfirst(c);
		dpagg_grant_call *gc = &g->calls[g->ncalls++];

		strlcpy(gc->aggregate, dpagg_kind_name(call->kind), sizeof(gc->aggregate));
		gc->epsilon = DatumGetFloat8(((Const *) call->epsilon)->constvalue);
		gc->delta = DatumGetFloat8(((Const *) call->delta)->constvalue);
		gc->nparts = call->nparts;
		for (i = 0; i < call->nparts; i++)
		{
			strlcpy(gc->parts[i].spec, call->parts[i].spec, sizeof(gc->parts[i].spec));
			gc->parts[i].epsilon = call->parts[i].epsilon;
			gc->parts[i].delta = call->parts[i].delta;
			gc->parts[i].rho = call->parts[i].rho;
		}
	}
	if (dpagg_grant_template(g, buf, DPAGG_GRANT_TEXT_MAX, &err) != DPAGG_OK)
		dpagg_report(&err);
	keep_original(cr);
	cr->grant_template = buf;
	cr->schema = pstrdup(schema);
	cr->worker = true;
	p = makeNode(Param);
	p->paramkind = PARAM_EXTERN;
	p->paramid = cr->grant_param;
	p->paramtype = TEXTOID;
	p->paramtypmod = -1;
	p->paramcollid = DEFAULT_COLLATION_OID;
	p->location = -1;
	q->jointree->quals = make_and_qual(q->jointree->quals,
									   (Node *) makeFuncExpr(dpagg_function_oid(schema, "dpagg_citus_grant", 1, &text),
															 BOOLOID, list_make1(p), InvalidOid,
															 DEFAULT_COLLATION_OID, COERCE_EXPLICIT_CALL));
}

/*
 * Could Citus's router planner send this level whole to one node (so that the pin is needed)?
 * Only if every Citus table it reads may be pruned to one shard: a table that is not
 * hash-distributed over several shards (reference, single-shard, Citus local tables), or a qual
 * anywhere in the level that mentions a distribution column.  Conservative: any mention of a
 * distribution column, in any clause, counts.  The pin costs a distributed subplan of its own
 * (measured: 70-90 ms per query on the test cluster), so it is left out when no pruning to one
 * shard is possible; were this ever wrong, the merge would run on a worker, which refuses to
 * release (nothing released, nothing charged).
 */
typedef struct RouteContext
{
	Oid			partition_rel;
	List	   *queries;		/* the enclosing queries, innermost first */
	bool		may_route;
} RouteContext;

static int
shard_count(Oid relid)
{
	Oid			shard_rel = dpagg_citus_catalog("pg_dist_shard");
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	int			n = 0;

	if (!OidIsValid(shard_rel))
		return 0;
	rel = table_open(shard_rel, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(systable_getnext(scan)) && n < 2)
		n++;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return n;
}

static bool
route_walker(Node *node, RouteContext *rc)
{
	if (node == NULL || rc->may_route)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		Query	   *owner;
		RangeTblEntry *rte;

		if (v->varattno <= 0 || (int) v->varlevelsup >= list_length(rc->queries))
			return false;
		owner = (Query *) list_nth(rc->queries, v->varlevelsup);
		if (v->varno < 1 || v->varno > list_length(owner->rtable))
			return false;
		rte = rt_fetch(v->varno, owner->rtable);
		if (rte->rtekind == RTE_RELATION && distribution_column(rte->relid, rc->partition_rel) == v->varattno)
			rc->may_route = true;
		return false;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION && dpagg_citus_is_table(rte->relid, rc->partition_rel) &&
			(distribution_column(rte->relid, rc->partition_rel) == 0 || shard_count(rte->relid) < 2))
			rc->may_route = true;
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		rc->queries = lcons(node, rc->queries);
		r = query_tree_walker((Query *) node, route_walker, rc, QTW_EXAMINE_RTES_BEFORE);
		rc->queries = list_delete_first(rc->queries);
		return r;
	}
	return expression_tree_walker(node, route_walker, rc);
}

static bool
may_route_to_one_shard(Query *q, Oid partition_rel)
{
	RouteContext rc = {partition_rel, NIL, false};

	(void) route_walker((Node *) q, &rc);
	return rc.may_route;
}

static void
rewrite_level(Query *q, DpCitusRewrite *cr, Oid partition_rel)
{
	bool		direct;
	bool		pin;
	int			ngroup;
	LevelContext lc;
	OuterContext oc;
	Query	   *inner;
	List	   *tlist = NIL;
	List	   *inner_group = NIL;
	List	   *colnames = NIL;
	ListCell   *c;
	int			resno = 0;
	RangeTblEntry *rte;
	RangeTblRef *ref;
	const char *schema;
	Expr	   *bin;
	int			bcolumn = 0;

	if (q->groupingSets != NIL)
		unsupported("GROUPING SETS, ROLLUP and CUBE are not available with dpagg on Citus tables",
					"Run one query per grouping.");
	/*
	 * The level's range table becomes [dpagg_partials, pin]: a subquery in its select list or
	 * HAVING could still refer to the old range table (correlated) or to the level's WITH
	 * queries, and would read the wrong columns (an attack review crashed the server with
	 * (SELECT d.name) beside dp_count).  Refused while planning, before anything is charged.
	 */
	if (checkExprHasSubLink((Node *) q->targetList) || checkExprHasSubLink(q->havingQual))
		unsupported("subqueries in the select list or HAVING of a query level with dpagg's aggregates over Citus tables are not available",
					"Compute them in an outer query over this one, or in a join.");
	if (q->rowMarks != NIL || q->hasModifyingCTE)
		unsupported("locking clauses and data-modifying WITH are not available with dpagg on Citus tables", NULL);
	memset(&lc, 0, sizeof(lc));
	(void) collect_walker((Node *) q->targetList, &lc);
	(void) collect_walker(q->havingQual, &lc);
	if (lc.merges && lc.calls != NIL)
		unsupported("dpagg_merge_* cannot be mixed with dp_sum, dp_avg or dp_count over Citus tables in one query level", NULL);
	if (lc.units != NIL)
	{
		if (lc.calls != NIL || lc.merges)
			unsupported("dpagg's aggregates over private relations cannot be mixed with others over Citus tables in one query level", NULL);
		unit_level(q, &lc, cr);
		return;
	}
	if (lc.calls == NIL)
		return;
	schema = get_namespace_name(get_func_namespace(((CitusCall *) linitial(lc.calls))->orig->aggfnoid));
	if (worker_form(q, cr, &lc, partition_rel))
	{
		worker_level(q, cr, &lc, schema);
		return;
	}
	direct = cr->direct_allowed && q->groupingSets == NIL && grouped_by_distribution_column(q, partition_rel) &&
		!repeated_calls(q).repeated;	/* the safe form computes a repeated call once */
	pin = !direct && may_route_to_one_shard(q, partition_rel);
	if (direct)
	{
		keep_original(cr);
		cr->level_first = list_length(cr->tagged);
	}

	inner = dpagg_grouped_inner(q, &lc.gexprs, &tlist, &inner_group);
	resno = ngroup = list_length(tlist);
	bin = level_bin(&lc, schema);
	if (bin != NULL)
	{
		/* The quantiles' counts per group and bin: the bin is one more grouping column (after
		 * the level's keys, which the direct form wraps), so each group comes as a row per
		 * occupied bin (docs/quantiles.md, "On Citus"). */
		SortGroupClause *sgc = makeNode(SortGroupClause);
		TargetEntry *btle;

		bcolumn = ++resno;
		btle = makeTargetEntry(bin, bcolumn, "dpagg_b", false);
		get_sort_group_operators(INT4OID, true, true, false, &sgc->sortop, &sgc->eqop, NULL,
								 &sgc->hashable);
		btle->ressortgroupref = sgc->tleSortGroupRef = bcolumn;
		tlist = lappend(tlist, btle);
		inner_group = lappend(inner_group, sgc);
	}
	foreach(c, lc.calls)
	{
		CitusCall  *call = (CitusCall *) lfirst(c);

		if (IS_BINNED(call->kind))
		{
			/* the bin (shared) and the values counted in it; without bounds their quanta's sum
			 * and a variance's squares' too (auto_bounds.c) */
			call->column = bcolumn;
			call->ncolumn = ++resno;
			tlist = lappend(tlist, makeTargetEntry((Expr *) count_aggref(call), call->ncolumn,
												   psprintf("dpagg_n%d", resno), false));
			if (IS_AUTO(call->kind))
			{
				call->acolumn = ++resno;
				tlist = lappend(tlist, makeTargetEntry((Expr *) auto_sum_aggref(call, schema, false), call->acolumn,
													   psprintf("dpagg_s%d", resno), false));
			}
			if (call->kind == DP_SITE_AUTO_VARIANCE)
			{
				call->qcolumn = ++resno;
				tlist = lappend(tlist, makeTargetEntry((Expr *) auto_sum_aggref(call, schema, true), call->qcolumn,
													   psprintf("dpagg_q%d", resno), false));
			}
			continue;
		}

		if (call->kind == DP_SITE_VARIANCE)
		{
			/* the squares' and the values' partial sums, and their count */
			call->qcolumn = ++resno;
			tlist = lappend(tlist, makeTargetEntry((Expr *) variance_sum_aggref(call, schema, true), call->qcolumn,
												   psprintf("dpagg_q%d", resno), false));
			call->column = ++resno;
			tlist = lappend(tlist, makeTargetEntry((Expr *) variance_sum_aggref(call, schema, false), call->column,
												   psprintf("dpagg_s%d", resno), false));
			call->ncolumn = ++resno;
			tlist = lappend(tlist, makeTargetEntry((Expr *) count_aggref(call), call->ncolumn,
												   psprintf("dpagg_n%d", resno), false));
			continue;
		}
		if (call->kind == DP_SITE_VECTOR)
		{
			/* the partial sum carries its rows: no count beside it */
			call->column = ++resno;
			tlist = lappend(tlist, makeTargetEntry((Expr *) vquanta_sum_aggref(call, schema), call->column,
												   psprintf("dpagg_v%d", resno), false));
			continue;
		}
		if (call->kind != DP_SITE_COUNT)
		{
			call->column = ++resno;
			tlist = lappend(tlist, makeTargetEntry((Expr *) quanta_sum_aggref(call, schema, direct), call->column,
												   psprintf("dpagg_s%d", resno), false));
		}
		/* dp_sum's merge needs no count (its release reads the sum only): in the safe form, one
		 * aggregate less per row on the workers.  The direct form keeps it: Citus would ship a
		 * NULL in its place as a column of every gathered row. */
		if (call->kind == DP_SITE_SUM && !direct)
			continue;
		call->ncolumn = ++resno;
		tlist = lappend(tlist, makeTargetEntry((Expr *) count_aggref(call), call->ncolumn,
											   psprintf("dpagg_n%d", resno), false));
	}
	if (direct)
	{
		/* The inner query groups by its keys, as resjunk columns; the outer one reads them
		 * wrapped in dpagg_group_key(). */
		int			i = 0;
		Oid			any = ANYELEMENTOID;
		Oid			keyfn = dpagg_function_oid(schema, "dpagg_group_key", 1, &any);

		foreach(c, tlist)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, c);
			TargetEntry *junk;
			Oid			coll = exprCollation((Node *) tle->expr);

			if (++i > ngroup)
				break;
			junk = makeTargetEntry(copyObject(tle->expr), 0, psprintf("dpagg_k%d", i), true);
			junk->ressortgroupref = tle->ressortgroupref;
			tle->ressortgroupref = 0;
			tle->expr = (Expr *) makeFuncExpr(keyfn, exprType((Node *) tle->expr), list_make1(tle->expr),
											  coll, coll, COERCE_EXPLICIT_CALL);
			tlist = lappend(tlist, junk);
		}
		foreach(c, tlist)
			if (lfirst_node(TargetEntry, c)->resjunk)
				lfirst_node(TargetEntry, c)->resno = ++resno;
	}
	inner->targetList = tlist;
	inner->groupClause = inner_group;
	/* The safe form: Citus plans a subquery with OFFSET as a subplan of its own, whose result (one
	 * row per group) comes to the coordinator. */
	if (!direct)
		inner->limitOffset = offset_zero();
	IncrementVarSublevelsUp((Node *) inner, 1, 1);

	foreach(c, tlist)
		if (!lfirst_node(TargetEntry, c)->resjunk)
			colnames = lappend(colnames, makeString(pstrdup(lfirst_node(TargetEntry, c)->resname)));
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = inner;
	rte->alias = makeAlias("dpagg_partials", NIL);
	rte->eref = makeAlias("dpagg_partials", colnames);
	rte->inFromCl = true;

	oc.lc = &lc;
	oc.inner_tlist = tlist;
	oc.schema = schema;
	oc.cr = direct ? cr : NULL;
	{
		List	   *outer_tlist = NIL;

		foreach(c, q->targetList)
		{
			TargetEntry *tle = flatCopyTargetEntry(lfirst_node(TargetEntry, c));

			tle->expr = (Expr *) outer_mutator((Node *) tle->expr, &oc);
			tle->resorigtbl = InvalidOid;
			tle->resorigcol = 0;
			outer_tlist = lappend(outer_tlist, tle);
		}
		q->targetList = outer_tlist;
	}
	q->havingQual = outer_mutator(q->havingQual, &oc);
	ref = makeNode(RangeTblRef);
	ref->rtindex = 1;
	if (!pin)
	{
		/* no pin: the direct form's query, were Citus to route it whole to one shard, is planned
		 * again in the safe form; the safe form's only where no pruning to one shard can be */
		q->rtable = list_make1(rte);
		q->jointree = makeFromExpr(list_make1(ref), NULL);
	}
	else
	{
		q->rtable = list_make2(rte, pinning_rte());
		q->jointree = makeFromExpr(list_make2(ref, makeNode(RangeTblRef)), NULL);
		((RangeTblRef *) lsecond(q->jointree->fromlist))->rtindex = 2;
	}
	q->cteList = NIL;
	q->hasRecursive = false;
	q->hasSubLinks = false;		/* refused in its select list and HAVING; its WHERE is inner's now */
	q->hasAggs = true;
	/* The level itself as a subplan of its own too (OFFSET 0, which changes no answer): a level
	 * that is a subquery of a distributed query (WHERE x IN (SELECT ... HAVING dp_count(...))) is
	 * then evaluated once, where the ledger is, instead of being pushed down with the outer
	 * query to the workers, which refuse to release. */
	if (!direct && q->limitOffset == NULL && q->limitCount == NULL)
		q->limitOffset = offset_zero();
}

/* ---- the walk over a query ------------------------------------------------------------------ */

typedef struct WalkContext
{
	Oid			partition_rel;
	DpCitusRewrite *cr;
} WalkContext;

static bool
citus_walker(Node *node, WalkContext *wc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		(void) query_tree_walker(q, citus_walker, wc, 0);
		if (q->hasAggs && dpagg_level_has_own_aggregate(q))
		{
			bool		found = false;
			ListCell   *lc;

			foreach(lc, q->rtable)
				found = found || dpagg_citus_node_reads_table((Node *) lfirst(lc), wc->partition_rel);
			/* a WITH query the planner (or Citus) may inline into this level */
			foreach(lc, q->cteList)
				found = found || dpagg_citus_node_reads_table(lfirst_node(CommonTableExpr, lc)->ctequery,
															  wc->partition_rel);
			if (found)
			{
				/* The merge must run in this backend: over a connection Citus would open
				 * without local execution, it would be charged to the current role. */
				const char *local = GetConfigOption("citus.enable_local_execution", true, false);

				const char *policy = GetConfigOption("citus.task_assignment_policy", true, false);

				if (local != NULL && strcmp(local, "on") != 0 && !dpagg_planning_plain_explain())
					unsupported("dpagg on Citus needs citus.enable_local_execution = on",
								"RESET citus.enable_local_execution.");
				/* Any other policy may send the coordinator's own task (the safe form's release)
				 * to a worker, which refuses it only after every shard was read (attack review).
				 * Checked while planning: a plan made under greedy keeps its task placement (a
				 * second review ran such plans under round-robin: every release stayed on the
				 * coordinator, charged). */
				if (policy != NULL && strcmp(policy, "greedy") != 0 && !dpagg_planning_plain_explain())
					unsupported("dpagg on Citus needs citus.task_assignment_policy = greedy",
								"RESET citus.task_assignment_policy.");
				rewrite_level(q, wc->cr, wc->partition_rel);
			}
		}
		return false;
	}
	return expression_tree_walker(node, citus_walker, wc);
}

static bool
max_param_walker(Node *node, int *max)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)
		*max = Max(*max, ((Param *) node)->paramid);
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, max_param_walker, max, 0);
	return expression_tree_walker(node, max_param_walker, max);
}

DpCitusRewrite *
dpagg_citus_query(Query *parse, int mode, ParamListInfo params)
{
	WalkContext wc;
	int			max = 0;

	wc.partition_rel = dpagg_citus_catalog("pg_dist_partition");
	if (!OidIsValid(wc.partition_rel))
		return NULL;			/* no Citus in this database */
	wc.cr = palloc0(sizeof(DpCitusRewrite));
	wc.cr->mode = mode;
	wc.cr->direct_allowed = mode >= DPAGG_CITUS_DIRECT;
	wc.cr->root = parse;
	wc.cr->params_dynamic = params != NULL && params->paramFetch != NULL;
	wc.cr->nparams = params != NULL ? params->numParams : 0;
	(void) max_param_walker((Node *) parse, &max);
	wc.cr->grant_param = Max(max, wc.cr->nparams) + 1;
	(void) citus_walker((Node *) parse, &wc);
	if (wc.cr->tagged == NIL && !wc.cr->worker)
		return NULL;
	return wc.cr;
}

ParamListInfo
dpagg_citus_planning_params(DpCitusRewrite *cr, ParamListInfo params)
{
	ParamListInfo np;

	if (cr == NULL || !cr->worker)
		return params;
	/* Citus plans a query with a parameter it has no type for as a generic plan it cannot make;
	 * the grant's is typed text, without a value (no PARAM_FLAG_CONST: nobody folds it). */
	np = makeParamList(cr->grant_param);
	if (params != NULL)
		memcpy(np->params, params->params, sizeof(ParamExternData) * params->numParams);
	np->params[cr->grant_param - 1].isnull = true;
	np->params[cr->grant_param - 1].pflags = 0;
	np->params[cr->grant_param - 1].ptype = TEXTOID;
	return np;
}

/* ---- the direct form's finished plan ---------------------------------------------------------- */

typedef struct FinishContext
{
	DpCitusRewrite *cr;
	int		   *found;			/* per tag: its Aggrefs seen in the coordinator's Agg nodes */
	bool		merge_agg;		/* the Agg being visited holds a tagged merge */
	bool		bin_rows;		/* ... a quantile's, whose groups come as a row per bin */
} FinishContext;

/* A tagged aggregate gets its parameters back from its copy, and its location: bound.c's mark
 * for a per-unit aggregate, none for a merge. */
static bool
finish_aggref_walker(Node *node, FinishContext *fc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		Aggref	   *orig = tagged_original(a, fc->cr);
		int			kind = dpagg_aggregate_kind(a->aggfnoid);
		ListCell   *l;
		ListCell   *given;
		List	   *args = NIL;
		int			i = 0;

		if (orig == NULL)
			return false;
		if (orig->aggfnoid != a->aggfnoid)
			return false;		/* not as made: not counted, so planned again or refused */
		/* the parameters back as they were; the data (gathered columns) as Citus made them */
		given = list_head(a->args);
		foreach(l, orig->args)
		{
			TargetEntry *o = lfirst_node(TargetEntry, l);
			TargetEntry *t;

			if (!o->resjunk && !dpagg_data_argument(orig, kind, i))
				t = copyObject(o);
			else
			{
				if (given == NULL)
					return false;
				t = lfirst_node(TargetEntry, given);
				given = lnext(a->args, given);
				t->resno = o->resno;
			}
			if (!o->resjunk)
				i++;
			args = lappend(args, t);
		}
		if (given != NULL)
			return false;
		a->args = args;
		fc->found[DPAGG_CITUS_TAG - a->location]++;
		if (DPAGG_KIND_IS_UNIT(kind))
			a->location = DPAGG_BOUND_MARK;
		else
		{
			a->location = -1;
			fc->merge_agg = true;
			if (kind == DP_SITE_MERGE_PERCENTILE || kind == DP_SITE_MERGE_AUTO_SUM || kind == DP_SITE_MERGE_AUTO_VARIANCE)
				fc->bin_rows = true;
		}
		return false;
	}
	return expression_tree_walker(node, finish_aggref_walker, fc);
}

static void
finish_visit(Plan *plan, void *context)
{
	FinishContext *fc = (FinishContext *) context;
	Agg		   *agg;

	if (!IsA(plan, Agg))
		return;
	agg = (Agg *) plan;
	fc->merge_agg = false;
	fc->bin_rows = false;
	(void) finish_aggref_walker((Node *) plan->targetlist, fc);
	(void) finish_aggref_walker((Node *) plan->qual, fc);
	/*
	 * Each gathered row is one group's partial sums, whole (its rows are on one shard): Citus
	 * gives the key of a group of a subquery grouped by the distribution column once.  So the
	 * merge takes the rows as they come, a group at each change of key, instead of hashing a
	 * million keys.  Were a key ever given twice, its two releases would be of disjoint sets of
	 * rows, each calibrated for one row's change, and charged as one release per group as every
	 * GROUP BY is: parallel composition, so no more is learnt than charged.  Not for a
	 * quantile's merge: its group comes as a row per bin, in no order, so it stays hashed.
	 */
	if (fc->merge_agg && !fc->bin_rows && agg->aggstrategy == AGG_HASHED && agg->groupingSets == NIL &&
		agg->numCols > 0 && plan->lefttree != NULL && IsA(plan->lefttree, CustomScan))
		agg->aggstrategy = AGG_SORTED;
}

static int
max_plan_node_id(Plan *plan)
{
	if (plan == NULL)
		return 0;
	return Max(plan->plan_node_id, Max(max_plan_node_id(plan->lefttree), max_plan_node_id(plan->righttree)));
}

static bool
custom_scan_walker(Plan *plan)
{
	if (plan == NULL)
		return false;
	return IsA(plan, CustomScan) || custom_scan_walker(plan->lefttree) || custom_scan_walker(plan->righttree);
}

/*
 * The worker form's finished plan: Citus pushed the level down whole, so its releases and its
 * grant qual are in the shard queries, none in the coordinator's plan; then the one-time filter
 * dpagg_citus_release($n, template) goes above it (a Result passing its rows through).
 */
static bool
finish_worker_plan(PlannedStmt *stmt, DpCitusRewrite *cr)
{
	Plan	   *child = stmt->planTree;
	Result	   *r;
	List	   *tlist = NIL;
	ListCell   *lc;
	int			i = 0;
	Param	   *p;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Oid			fn;

	if (child == NULL || stmt->commandType != CMD_SELECT || stmt->subplans != NIL ||
		!custom_scan_walker(child) || child->total_cost >= 1e30 ||
		dpagg_statement_has_own_aggregate(stmt))
		return false;
	if (dpagg_citus_grant_calls(stmt) != NIL)
		return false;
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		TargetEntry *n = flatCopyTargetEntry(tle);

		n->expr = (Expr *) makeVar(OUTER_VAR, ++i, exprType((Node *) tle->expr),
								   exprTypmod((Node *) tle->expr), exprCollation((Node *) tle->expr), 0);
		tlist = lappend(tlist, n);
	}
	p = makeNode(Param);
	p->paramkind = PARAM_EXTERN;
	p->paramid = cr->grant_param;
	p->paramtype = TEXTOID;
	p->paramtypmod = -1;
	p->paramcollid = DEFAULT_COLLATION_OID;
	p->location = -1;
	fn = dpagg_function_oid(cr->schema, "dpagg_citus_release", 2, types);
	r = makeNode(Result);
	r->plan.targetlist = tlist;
	r->plan.lefttree = child;
	r->plan.startup_cost = child->startup_cost;
	r->plan.total_cost = child->total_cost;
	r->plan.plan_rows = child->plan_rows;
	r->plan.plan_width = child->plan_width;
	r->plan.parallel_safe = false;
	r->plan.plan_node_id = max_plan_node_id(child) + 1;
	r->resconstantqual = (Node *) list_make1(makeFuncExpr(fn, BOOLOID,
														  list_make2(p, makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
																				  CStringGetTextDatum(cr->grant_template), false, false)),
														  InvalidOid, DEFAULT_COLLATION_OID, COERCE_EXPLICIT_CALL));
	stmt->planTree = (Plan *) r;
	return true;
}

bool
dpagg_citus_finish_plan(PlannedStmt *stmt, DpCitusRewrite *cr)
{
	FinishContext fc;
	int			i;

	if (cr->worker)
		return finish_worker_plan(stmt, cr);

	fc.cr = cr;
	fc.found = palloc0(sizeof(int) * list_length(cr->tagged));
	dpagg_walk_statement(stmt, finish_visit, &fc);
	for (i = 0; i < list_length(cr->tagged); i++)
		if (fc.found[i] == 0)
			return false;
	return true;
}

Query *
dpagg_citus_original(DpCitusRewrite *cr)
{
	return cr->original;
}
