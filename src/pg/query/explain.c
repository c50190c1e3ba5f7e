/*
 * explain.c — dp_explain(query): what a query will release and be charged, without running it or
 * releasing anything (docs/guides/privacy-units.md, docs/guides/budgets.md).
 *
 * The query is parsed and rewritten as the planner hook would (bound.c), and each release is
 * described: for the rewrite's per-unit releases the private relation, its unit, L and the row
 * cap, the call's (epsilon, delta) and the per-group share each group is calibrated for, and for
 * a group selection its strategy, threshold and the units a group needs; for dpagg's aggregates
 * left as written (over relations that are not private) the call itself.  Each gives the
 * sensitivity, the mechanism chosen and its noise scale (the same calibration the release would
 * use) and the delta charged (0 for a pure mechanism, as charge.c).  A last row gives the total
 * charge of one execution under basic composition.  Only constant parameters can be explained
 * (a parameter of a prepared statement has no value here).
 */
#include "query/query.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_agg.h"
#include "optimizer/optimizer.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "quantile/dpagg_quantile.h"
#include "bounds/dpagg_bounds.h"
#include "selection/dpagg_selection.h"
#include "variance/dpagg_variance.h"

#define NCOLS 14

static Const *
const_arg(Aggref *a, int i)
{
	Node	   *e;

	if (i < 0)
		return NULL;
	e = eval_const_expressions(NULL, (Node *) list_nth_node(TargetEntry, a->args, i)->expr);
	if (!IsA(e, Const))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_explain needs the privacy parameters as constants"),
				 errhint("Write the parameters as literals in the query text.")));
	return (Const *) e;
}

static double
float_arg(Aggref *a, int i)
{
	Const	   *c = const_arg(a, i);

	if (c == NULL || c->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a privacy parameter of the query is NULL"),
				 errhint("Pass numbers for epsilon, delta and the bounds.")));
	return DatumGetFloat8(c->constvalue);
}

static Datum
jsonb_of(const char *s)
{
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(s));
}

static void
calibration_json(StringInfo buf, const dpagg_calibration *cal, bool joint, bool unit)
{
	appendStringInfo(buf, "{\"mechanism\": \"%s\", \"epsilon\": %.17g, \"delta\": %.17g, "
					 "\"sensitivity\": %.17g, \"scale\": %.17g, \"l1\": %.17g, \"l2\": %.17g, "
					 "\"composition\": \"%s\"}",
					 cal->spec, cal->epsilon, cal->delta, cal->sensitivity, cal->scale, cal->l1,
					 cal->l2, !unit ? "one release per group (groups are disjoint)"
					 : joint ? "gaussian over the L groups (l2 sensitivity sqrt(L) x bound)"
					 : "basic (epsilon / L, delta / L per group)");
}

/*
 * dpagg's aggregates as written (dp_sum, dp_avg, dp_count, dp_sum_vector and their report forms)
 * left in the query after the per-unit rewrite: releases over relations that are not private,
 * each charged like any other (one row each, without a unit).  As the executor charges them:
 * identical calls of one query level share one state, so one release (the planner's
 * find_compatible_agg compares them with equal()); a level with GROUPING SETS releases each set.
 * And whether any release, of either kind, sits in a sub-select or a LATERAL subquery, which may
 * run (and be charged) once per outer row: the total is then per execution.
 */
typedef struct PlainWalk
{
	List	   *out;			/* DpBoundRelease * */
	List	   *level;			/* the calls of the level being walked */
	int			sets;			/* its grouping sets (1 without) */
	int			nested;			/* inside a sub-select or a LATERAL subquery */
	bool		rescanned;		/* a release there */
} PlainWalk;

static bool
plain_walker(Node *node, PlainWalk *w)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		int			kind = dpagg_aggregate_kind(a->aggfnoid);

		if (kind != 0 && w->nested > 0)
			w->rescanned = true;
		if (dpagg_same_release_in(w->level, a))
			return expression_tree_walker(node, plain_walker, w);
		if ((kind >= DP_SITE_SUM && kind <= DP_SITE_VECTOR) || kind == DP_SITE_PERCENTILE ||
			kind == DP_SITE_VARIANCE || kind == DP_SITE_AUTO_SUM || kind == DP_SITE_AUTO_PERCENTILE ||
			kind == DP_SITE_AUTO_VARIANCE)
		{
			DpBoundRelease *r = palloc0(sizeof(DpBoundRelease));

			r->aggref = a;
			r->kind = kind;
			r->relid = InvalidOid;
			r->max_groups = 1;
			r->sets = w->sets;
			w->out = lappend(w->out, r);
			w->level = lappend(w->level, a);
		}
	}
	if (IsA(node, SubLink))
	{
		bool		r;

		w->nested++;
		r = expression_tree_walker(node, plain_walker, w);
		w->nested--;
		return r;
	}
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;
		List	   *outer = w->level;
		int			outer_sets = w->sets;
		ListCell   *lc;
		bool		r;

		w->level = NIL;
		w->sets = q->groupingSets != NIL
			? list_length(expand_grouping_sets(q->groupingSets, q->groupDistinct, -1)) : 1;
		r = false;
		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			w->nested += rte->lateral ? 1 : 0;
			r = r || range_table_entry_walker(rte, plain_walker, w, 0);
			w->nested -= rte->lateral ? 1 : 0;
		}
		r = r || query_tree_walker(q, plain_walker, w, QTW_IGNORE_RANGE_TABLE);
		w->level = outer;
		w->sets = outer_sets;
		return r;
	}
	return expression_tree_walker(node, plain_walker, w);
}

/* The delta a release of these calibrations is charged (dpagg_charged_delta, as charge.c). */
static double
charged(const dpagg_calibration *cal, int n, double delta)
{
	double		d = 0;
	int			i;

	for (i = 0; i < n; i++)
		d += dpagg_charged_delta(&cal[i], n == 2 ? delta / 2 : delta);
	return Min(d, delta);
}

PG_FUNCTION_INFO_V1(dpagg_explain_sql);
Datum
dpagg_explain_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	List	   *raw;
	List	   *queries;
	Query	   *q;
	List	   *made;
	List	   *plain;
	PlainWalk	pw;
	ListCell   *lc;
	int			n = 0;
	double		eps_total = 0,
				delta_total = 0;
	int			n_sets = 0;
	Datum		values[NCOLS];
	bool		nulls[NCOLS];

	InitMaterializedSRF(fcinfo, 0);
	raw = pg_parse_query(sql);
	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_explain takes one statement"),
				 errhint("Pass the text of one SELECT.")));
	queries = pg_analyze_and_rewrite_fixedparams(linitial(raw), sql, NULL, 0, NULL);
	q = list_length(queries) == 1 ? linitial_node(Query, queries) : NULL;
	if (q == NULL || q->commandType != CMD_SELECT || q->utilityStmt != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_explain explains a SELECT"),
				 errhint("Pass the text of one SELECT.")));
	made = dpagg_bound_capture(q);
	dpagg_split_statement_budget(q, NULL);	/* as the planner hook (statement_budget.c) */
	memset(&pw, 0, sizeof(pw));
	(void) plain_walker((Node *) q, &pw);
	plain = pw.out;

	foreach(lc, list_concat_copy(made, plain))
	{
		DpBoundRelease *r = (DpBoundRelease *) lfirst(lc);
		DpArgLayout lo;
		double		eps,
					delta,
					delta_charged,
					sens = NAN;
		bool		unit = OidIsValid(r->relid);
		StringInfoData det;
		int			L = r->max_groups;

		memset(nulls, 0, sizeof(nulls));
		dpagg_arg_layout(r->aggref, r->kind, &lo);
		eps = float_arg(r->aggref, lo.epsilon);
		delta = float_arg(r->aggref, lo.delta);
		initStringInfo(&det);
		values[0] = Int32GetDatum(++n);
		values[1] = CStringGetTextDatum(r->kind == DP_SITE_VARIANCE || r->kind == DP_SITE_UNIT_VARIANCE
										? dpagg_variance_form_name(r->aggref->aggfnoid)
										: DPAGG_KIND_IS_AUTO_SUM(r->kind) ? (dpagg_auto_is_avg(r->aggref->aggfnoid) ? "dp_avg" : "dp_sum")
										: DPAGG_KIND_IS_AUTO_VARIANCE(r->kind) ? dpagg_auto_variance_form_name(r->aggref->aggfnoid)
										: DPAGG_KIND_IS_PERCENTILE(r->kind) ? dpagg_percentile_form_name(r->aggref, r->kind)
										: dpagg_kind_name(r->kind));
		values[2] = ObjectIdGetDatum(r->relid);
		values[3] = CStringGetTextDatum(r->unit);
		values[4] = Int32GetDatum(L);
		values[5] = Int32GetDatum(r->max_rows);
		nulls[2] = nulls[3] = nulls[4] = !unit;
		nulls[5] = r->max_rows == 0;
		delta_charged = delta;
		values[6] = Float8GetDatum(eps);
		values[7] = Float8GetDatum(delta);
		if (r->kind == DP_SITE_SELECT)
		{
			dpagg_selection_plan plan;
			Const	   *st = const_arg(r->aggref, lo.strategy);
			char		json[4096];
			dpagg_error err;
			int64		half = -1;
			const char *setting;

			dpagg_selection_settings(&eps, &delta, &setting);
			values[6] = Float8GetDatum(eps);
			values[7] = Float8GetDatum(delta);
			dpagg_selection_plan_for(st->constisnull ? setting : TextDatumGetCString(st->constvalue),
									 eps, delta, L, &plan);
			if (dpagg_selection_describe(&plan, json, sizeof(json), &err) != DPAGG_OK)
				dpagg_report(&err);
			(void) dpagg_selection_min_units(&plan, 0.5, &half, &err);
			values[8] = Float8GetDatum(plan.group_epsilon);
			nulls[8] = isnan(plan.group_epsilon);
			values[9] = Float8GetDatum(plan.group_delta);
			nulls[10] = true;
			values[11] = CStringGetTextDatum(psprintf("selection %s",
													  dpagg_selection_strategy_name(plan.strategy)));
			values[12] = Float8GetDatum(plan.noise_scale);
			nulls[12] = isnan(plan.noise_scale);
			appendStringInfo(&det, "{\"keep_one_unit\": %.17g, \"units_for_half\": %lld, \"charged_delta\": %.17g, \"plan\": %s}",
							 dpagg_selection_probability(&plan, 1), (long long) half, delta, json);
		}
		else if (r->kind == DP_SITE_UNIT_VECTOR || r->kind == DP_SITE_VECTOR)
		{
			dpagg_calibration cal;
			Const	   *mech = const_arg(r->aggref, lo.mechanism);
			Const	   *dim = const_arg(r->aggref, lo.dimension);

			if (dim == NULL || dim->constisnull)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the dimension of dp_sum_vector must not be NULL"),
						 errhint("Pass the number of coordinates.")));
			sens = float_arg(r->aggref, lo.upper);
			dpagg_unit_vector_calibration(mech == NULL || mech->constisnull ? NULL
										  : TextDatumGetCString(mech->constvalue),
										  DatumGetInt32(dim->constvalue), eps, delta, sens, L,
										  &cal);
			values[8] = Float8GetDatum(cal.epsilon);
			values[9] = Float8GetDatum(cal.delta);
			values[10] = Float8GetDatum(sens);
			values[11] = CStringGetTextDatum(cal.spec);
			values[12] = Float8GetDatum(cal.scale);
			delta_charged = charged(&cal, 1, delta);
			appendStringInfo(&det, "{\"public_groups\": %s, \"charged_delta\": %.17g, \"per_group\": [",
							 r->public_groups ? "true" : "false", delta_charged);
			calibration_json(&det, &cal, false, unit);
			appendStringInfo(&det, "], \"dimension\": %d}", cal.dimension);
		}
		else if (DPAGG_KIND_IS_AUTO_SUM(r->kind))
		{
			/* dp_sum and dp_avg without bounds (docs/automatic_bounds.md): half of epsilon for a
			 * noisy histogram of magnitudes, the rest for the sum (dp_avg: the centred sum and the
			 * count, half each), whose sensitivity the chosen bounds give; all of delta charged. */
			DpAutoPlan	ap;
			bool		avg = dpagg_auto_is_avg(r->aggref->aggfnoid);

			/* per unit, each group at (epsilon / L, delta / L) */
			dpagg_auto_plan(dpagg_share(eps, L), dpagg_share(delta, L), avg, &ap);
			delta_charged = delta;
			values[8] = Float8GetDatum(ap.part_epsilon);
			values[9] = Float8GetDatum(ap.part_delta);
			nulls[10] = true;
			values[11] = CStringGetTextDatum(avg ? psprintf("bounds %s + sum %s + count %s", ap.bounds_cal.spec,
															ap.mechanism, ap.count_cal.spec)
											 : psprintf("bounds %s + sum %s", ap.bounds_cal.spec, ap.mechanism));
			nulls[12] = true;
			appendStringInfo(&det, "{\"charged_delta\": %.17g, \"bounds\": {\"epsilon\": %.17g, "
							 "\"mechanism\": \"%s\", \"bins\": %d, \"threshold\": %.17g, "
							 "\"beta\": 1e-06}, \"sum\": {\"epsilon\": %.17g, \"delta\": %.17g, "
							 "\"mechanism\": \"%s\", \"sensitivity\": \"%s of the chosen bounds\"}",
							 delta, ap.epsilon_bounds, ap.bounds_cal.spec, DPAGG_BOUNDS_BINS, ap.threshold,
							 ap.part_epsilon, ap.part_delta, ap.mechanism,
							 avg ? "(upper - lower) / 2" : "max(|lower|, |upper|)");
			if (avg)
			{
				appendStringInfoString(&det, ", \"count\": ");
				calibration_json(&det, &ap.count_cal, false, false);
			}
			appendStringInfoChar(&det, '}');
		}
		else if (DPAGG_KIND_IS_AUTO_VARIANCE(r->kind))
		{
			/* The variances without bounds (docs/automatic_bounds.md, "Variances"): half of
			 * epsilon for the histogram, the rest and all of delta for the variance's three parts
			 * at dpagg_variance_plan_init's shares, whose sensitivities the chosen range gives. */
			DpAutoPlan	ap;

			dpagg_auto_variance_plan(dpagg_share(eps, L), dpagg_share(delta, L),
									 dpagg_auto_variance_form_name(r->aggref->aggfnoid), &ap);
			delta_charged = delta;
			values[8] = Float8GetDatum(ap.part_epsilon);
			values[9] = Float8GetDatum(ap.part_delta);
			nulls[10] = true;
			values[11] = CStringGetTextDatum(psprintf("bounds %s + variance %s", ap.bounds_cal.spec,
													  ap.mechanism));
			nulls[12] = true;
			appendStringInfo(&det, "{\"charged_delta\": %.17g, \"bounds\": {\"epsilon\": %.17g, "
							 "\"mechanism\": \"%s\", \"bins\": %d, \"threshold\": %.17g, "
							 "\"beta\": 1e-06, \"widened_to_zero\": false}, \"variance\": {\"epsilon\": %.17g, "
							 "\"delta\": %.17g, \"mechanism\": \"%s\", \"parts\": \"squares, sum and count\", "
							 "\"sensitivities\": \"B^2/2, B and 1, B = (upper - lower) / 2 of the chosen range\"}}",
							 delta, ap.epsilon_bounds, ap.bounds_cal.spec, DPAGG_BOUNDS_BINS, ap.threshold,
							 ap.part_epsilon, ap.part_delta, ap.mechanism);
		}
		else if (r->kind == DP_SITE_VARIANCE || r->kind == DP_SITE_UNIT_VARIANCE)
		{
			/* Three parts, each at its share of (epsilon, delta): the centred sum of squares
			 * (sensitivity B^2/2), the centred sum (B) and the count (1); per unit, each group
			 * at (epsilon / L, delta / L); docs/variance.md. */
			dpagg_variance_plan call,
						plan;
			dpagg_calibration cal[DPAGG_VARIANCE_PARTS];
			Const	   *mech = const_arg(r->aggref, lo.mechanism);
			int			i;

			dpagg_variance_calibrations(eps, delta, float_arg(r->aggref, lo.lower),
										float_arg(r->aggref, lo.upper),
										mech == NULL || mech->constisnull ? NULL
										: DatumGetTextPP(mech->constvalue), L, &call, &plan, cal);
			delta_charged = 0;
			for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
				delta_charged += dpagg_charged_delta(&cal[i], call.delta[i]);
			delta_charged = Min(delta_charged, delta);
			values[8] = Float8GetDatum(cal[0].epsilon);
			values[9] = Float8GetDatum(cal[0].delta);
			values[10] = Float8GetDatum(plan.sensitivity[DPAGG_VARIANCE_SQUARES]);
			values[11] = CStringGetTextDatum(psprintf("%s + %s + %s", cal[0].spec, cal[1].spec, cal[2].spec));
			values[12] = Float8GetDatum(cal[0].scale);
			appendStringInfo(&det, "{\"public_groups\": %s, \"charged_delta\": %.17g, \"lower\": %.17g, \"upper\": %.17g, "
							 "\"parts\": [\"sum of squares\", \"sum\", \"count\"], \"per_group\": [",
							 r->public_groups ? "true" : "false", delta_charged, plan.lower, plan.upper);
			for (i = 0; i < DPAGG_VARIANCE_PARTS; i++)
			{
				if (i)
					appendStringInfoString(&det, ", ");
				calibration_json(&det, &cal[i], false, unit);
			}
			appendStringInfoString(&det, "]}");
		}
		else if (r->kind == DP_SITE_PERCENTILE || r->kind == DP_SITE_UNIT_PERCENTILE ||
				 r->kind == DP_SITE_AUTO_PERCENTILE)
		{
			/* Permute-and-flip over 1 024 bins of [lower, upper], pure epsilon-DP: each of the k
			 * quantiles at epsilon / k, its score (rank distance) of sensitivity max(p, 1 - p).
			 * Without bounds, half of epsilon first finds the range from a noisy histogram of
			 * magnitudes, and the rest goes to permute-and-flip over its cells
			 * (docs/automatic_bounds.md, "Quantiles"). */
			Const	   *lower_arg = const_arg(r->aggref, lo.lower);
			/* per unit, NULL bounds are a call without them (query/bound.c) */
			bool		autob = r->kind == DP_SITE_AUTO_PERCENTILE ||
				(lower_arg != NULL && lower_arg->constisnull);
			double		lower = autob ? NAN : float_arg(r->aggref, lo.lower);
			double		upper = autob ? NAN : float_arg(r->aggref, lo.upper);
			int			k = 1;
			double		worst = 0.5;
			StringInfoData ps;

			initStringInfo(&ps);
			if (lo.quantile < 0)
				appendStringInfoString(&ps, "0.5");
			else
			{
				Const	   *c = const_arg(r->aggref, lo.quantile);

				if (c == NULL || c->constisnull)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("p of dp_percentile must be a constant"),
							 errhint("Pass p as a literal for dp_explain.")));
				if (c->consttype == FLOAT8ARRAYOID)
				{
					Datum	   *elems;
					bool	   *enulls;
					int			i;

					deconstruct_array(DatumGetArrayTypeP(c->constvalue), FLOAT8OID, sizeof(float8),
									  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &enulls, &k);
					for (i = 0; i < k; i++)
					{
						double		q = enulls[i] ? NAN : DatumGetFloat8(elems[i]);

						appendStringInfo(&ps, "%s%.17g", i ? ", " : "", q);
						worst = fmax(worst, fmax(q, 1 - q));
					}
				}
				else
				{
					double		q = DatumGetFloat8(c->constvalue);

					appendStringInfo(&ps, "%.17g", q);
					worst = fmax(q, 1 - q);
				}
			}
			delta_charged = 0;
			/* per unit, each group at epsilon / L */
			values[8] = Float8GetDatum(dpagg_share(eps, L) / Max(k, 1));
			values[9] = Float8GetDatum(0.0);
			values[10] = Float8GetDatum(worst);
			values[11] = CStringGetTextDatum("permute_and_flip");
			nulls[12] = true;
			if (autob)
			{
				double		eb,
							rest,
							t;
				dpagg_calibration bcal;

				/* per unit, of each group's epsilon / L */
				dpagg_auto_histogram(dpagg_share(eps, L), "dp_percentile", "the quantiles", &eb,
									 &rest, &bcal, &t);
				values[8] = Float8GetDatum(rest / Max(k, 1));
				values[11] = CStringGetTextDatum(psprintf("bounds %s + permute_and_flip", bcal.spec));
				appendStringInfo(&det, "{\"charged_delta\": 0, \"bounds\": {\"epsilon\": %.17g, "
								 "\"mechanism\": \"%s\", \"bins\": %d, \"threshold\": %.17g, "
								 "\"beta\": 1e-06}, \"epsilon\": %.17g, \"cells_per_bin\": %d, "
								 "\"resolution\": \"1/%d of the value's power of two\", \"quantiles\": [%s]}",
								 eb, bcal.spec, DPAGG_BOUNDS_BINS, t, rest, DPAGG_BOUNDS_SUB,
								 DPAGG_BOUNDS_SUB, ps.data);
			}
			else
				appendStringInfo(&det, "{\"charged_delta\": 0, \"lower\": %.17g, \"upper\": %.17g, \"bins\": %d, \"resolution\": %.17g, \"quantiles\": [%s]}",
								 lower, upper, DPAGG_QUANTILE_BINS, (upper - lower) / DPAGG_QUANTILE_BINS, ps.data);
		}
		else
		{
			dpagg_calibration cal[2];
			bool		joint[2] = {false, false};
			Const	   *mech = const_arg(r->aggref, lo.mechanism);
			int			ncal,
						i;

			double		lower = 0,
						upper = 1;
			bool		integer = false;

			if (lo.sensitivity >= 0)
			{
				upper = float_arg(r->aggref, lo.sensitivity);
				lower = -upper;
			}
			else if (lo.lower >= 0 && lo.upper >= 0)
			{
				lower = float_arg(r->aggref, lo.lower);
				upper = float_arg(r->aggref, lo.upper);
			}
			if (!unit && lo.value >= 0)
			{
				Oid			t = exprType((Node *) list_nth_node(TargetEntry, r->aggref->args, lo.value)->expr);

				integer = t == INT2OID || t == INT4OID || t == INT8OID;
			}
			ncal = dpagg_unit_calibrations(r->kind, eps, delta, lower, upper,
										   mech == NULL || mech->constisnull ? NULL
										   : DatumGetTextPP(mech->constvalue),
										   L, r->max_rows, integer, cal, &sens, joint);
			delta_charged = charged(cal, ncal, delta);
			values[8] = Float8GetDatum(cal[0].epsilon);
			values[9] = Float8GetDatum(cal[0].delta);
			values[10] = Float8GetDatum(sens);
			values[11] = CStringGetTextDatum(ncal == 2 ? psprintf("%s + %s", cal[0].spec, cal[1].spec)
											 : cal[0].spec);
			values[12] = Float8GetDatum(cal[0].scale);
			appendStringInfo(&det, "{\"public_groups\": %s, \"charged_delta\": %.17g, ",
							 r->public_groups ? "true" : "false", delta_charged);
			if (r->kind != DP_SITE_COUNT && r->kind != DP_SITE_UNIT_COUNT)
				appendStringInfo(&det, "\"lower\": %.17g, \"upper\": %.17g, ", lower, upper);
			appendStringInfoString(&det, "\"per_group\": [");
			for (i = 0; i < ncal; i++)
			{
				if (i)
					appendStringInfoString(&det, ", ");
				calibration_json(&det, &cal[i], joint[i], unit);
			}
			appendStringInfoString(&det, "]}");
		}
		values[13] = jsonb_of(det.data);
		{
			int			sets = Max(r->sets, 1);

			eps_total += eps * sets;
			delta_total += delta_charged * sets;
			n_sets += sets - 1;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	/* The total charge of one execution (basic composition; zcdp budgets may charge less): the
	 * deltas are those charged, 0 for a mechanism that uses none. */
	memset(nulls, true, sizeof(nulls));
	values[1] = CStringGetTextDatum("total");
	nulls[1] = false;
	values[6] = Float8GetDatum(eps_total);
	nulls[6] = false;
	values[7] = Float8GetDatum(delta_total);
	nulls[7] = false;
	values[13] = jsonb_of(psprintf("{\"bounded_per_unit\": %s, \"releases\": %d%s%s}",
								   made == NIL ? "false" : "true", n + n_sets,
								   n_sets > 0 ? ", \"grouping_sets_counted\": true" : "",
								   pw.rescanned ? ", \"per_execution\": true, \"note\": \"a release in a sub-select or LATERAL subquery is charged at every execution, e.g. once per outer row\"" : ""));
	nulls[13] = false;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
