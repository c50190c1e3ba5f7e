/*
 * selection.c — the glue of private group selection (docs/guides/privacy-units.md).
 *
 * When the groups of a query over a private relation come from the data, bound.c adds
 * dpagg_unit_select(epsilon, delta, L, strategy) to the query's HAVING: it counts the units of
 * each group (after each unit kept at most L groups) and keeps the group with the probability of
 * the strategy, from a fresh draw of the secure generator (src/core/selection/, the maths and
 * its proofs in docs/partition_selection.md).  Its (epsilon, delta) is charged like any release
 * of the Agg node, before its first row (site.c).  This file reads the site's parameters,
 * chooses the strategy and prepares the plan, once per query; the draw is the core's.
 */
#include "aggregates/site.h"

#include <math.h>

#include "funcapi.h"
#include "access/htup_details.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"

#include "selection/dpagg_selection.h"

typedef struct SelectParams
{
	dpagg_selection_plan plan;
	char		spec[128];		/* what the ledger shows: "selection optimal per unit user_id, L=3" */
} SelectParams;


static double
select_float8(DpSite *site, int i, const char *name)
{
	bool		isnull;
	Datum		d = dpagg_site_param(site, i, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the %s of group selection must not be NULL", name),
				 errhint("Set dpagg.selection_%s, or give the query's first dpagg aggregate a %s.",
						 name, name)));
	return DatumGetFloat8(d);
}

static void
prepare(int32 strategy, double epsilon, double delta, int L, dpagg_selection_plan *plan)
{
	dpagg_error err;

	if (dpagg_selection_prepare(strategy, epsilon, delta, L, plan, &err) != DPAGG_OK)
		dpagg_report(&err);
}

/*
 * "auto": the strategy that needs the fewest units for an even chance of keeping a group.  The
 * choice depends only on (epsilon, delta, L), which are public, so it costs no privacy.
 */
static void
prepare_auto(double epsilon, double delta, int L, dpagg_selection_plan *best)
{
	static const int32 strategies[] = {DPAGG_SELECT_OPTIMAL, DPAGG_SELECT_GAUSSIAN, DPAGG_SELECT_LAPLACE};
	int64		best_units = -1;
	int			i;

	for (i = 0; i < (int) lengthof(strategies); i++)
	{
		dpagg_selection_plan plan;
		dpagg_error err;
		int64		units;

		prepare(strategies[i], epsilon, delta, L, &plan);
		if (dpagg_selection_min_units(&plan, 0.5, &units, &err) != DPAGG_OK || units < 1)
			continue;
		if (best_units < 0 || units < best_units)
		{
			best_units = units;
			*best = plan;
		}
	}
	if (best_units < 0)
		prepare(DPAGG_SELECT_OPTIMAL, epsilon, delta, L, best);
}

void *
dpagg_select_site_params(DpSite *site)
{
	SelectParams *p = MemoryContextAllocZero(site->cxt, sizeof(SelectParams));
	DpArgLayout lo;
	double		epsilon,
				delta;
	int			L;
	bool		isnull;
	Datum		d;
	char	   *strategy;
	DpChargePart part;

	dpagg_arg_layout(site->argref, site->kind, &lo);
	epsilon = select_float8(site, lo.epsilon, "epsilon");
	delta = select_float8(site, lo.delta, "delta");
	d = dpagg_site_param(site, lo.max_groups, &isnull);
	L = isnull ? 0 : DatumGetInt32(d);
	if (L < 1)
		elog(ERROR, "dpagg: group selection without max_groups");
	d = dpagg_site_param(site, lo.strategy, &isnull);
	{
		const char *setting;

		/* dpagg.selection_*, read now, when the statement starts (bound.c) */
		dpagg_selection_settings(&epsilon, &delta, &setting);
		strategy = isnull ? pstrdup(setting) : text_to_cstring(DatumGetTextPP(d));
	}
	dpagg_selection_plan_for(strategy, epsilon, delta, L, &p->plan);
	snprintf(p->spec, sizeof(p->spec), "selection %s per unit %s, L=%d",
			 dpagg_selection_strategy_name(p->plan.strategy), dpagg_site_unit(site, lo.unit), L);
	part.spec = p->spec;
	part.epsilon = epsilon;
	part.delta = delta;
	part.rho = NAN;				/* not a zCDP mechanism: charged as (epsilon, delta) */
	dpagg_site_set_charge(site, epsilon, delta, &part, 1);
	return p;
}

/* Validate and prepare a selection (the strategy by name, "auto" included); dp_explain too. */
void
dpagg_selection_plan_for(const char *strategy, double epsilon, double delta, int L,
						 dpagg_selection_plan *plan)
{
	if (!(delta > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("group selection needs a delta greater than 0"),
				 errdetail("The groups of this query come from a private relation: a group is released only if a differentially private test on its number of units passes, and no such test has delta = 0."),
				 errhint("Set dpagg.selection_delta (e.g. SET dpagg.selection_delta = 1e-6), or give the query's first dpagg aggregate a delta > 0.")));
	if (pg_strcasecmp(strategy, "auto") == 0)
		prepare_auto(epsilon, delta, L, plan);
	else
	{
		int32		s;
		dpagg_error err;

		if (dpagg_selection_strategy_parse(strategy, &s, &err) != DPAGG_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown group selection strategy %s", dpagg_quote_input(strategy)),
					 errhint("Set dpagg.selection_strategy to auto, optimal, laplace or gaussian.")));
		prepare(s, epsilon, delta, L, plan);
	}
}

bool
dpagg_select_keep(DpSite *site, int64 n_units)
{
	SelectParams *p = (SelectParams *) site->params;
	dpagg_error err;
	int			keep = 0;

	if (dpagg_selection_keep(&p->plan, n_units, &keep, &err) != DPAGG_OK)
		dpagg_report(&err);
	return keep != 0;
}

/*
 * dp_group_selection(epsilon, delta, max_groups_contributed, strategy): how a group selection
 * with these parameters behaves — the strategy (auto resolved), the chance that a group of one
 * unit is released, and the units a group needs for an even and a 99 % chance.  Releases nothing.
 */
PG_FUNCTION_INFO_V1(dpagg_group_selection_sql);
Datum
dpagg_group_selection_sql(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	dpagg_selection_plan plan;
	dpagg_error err;
	char		json[4096];
	int64		half,
				most;
	int			L;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_group_selection needs epsilon, delta, max_groups_contributed and a strategy"),
				 errhint("For example: SELECT * FROM dp_group_selection(1, 1e-6, 3, 'auto');")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dpagg: return type must be a row type");
	L = PG_GETARG_INT32(2);
	if (L < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_groups_contributed must be at least 1"),
				 errhint("It is the most groups one privacy unit may contribute to.")));
	dpagg_selection_plan_for(text_to_cstring(PG_GETARG_TEXT_PP(3)), PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1), L,
				&plan);
	values[0] = CStringGetTextDatum(dpagg_selection_strategy_name(plan.strategy));
	values[1] = Float8GetDatum(dpagg_selection_probability(&plan, 1));
	if (dpagg_selection_min_units(&plan, 0.5, &half, &err) != DPAGG_OK)
		dpagg_report(&err);
	if (dpagg_selection_min_units(&plan, 0.99, &most, &err) != DPAGG_OK)
		dpagg_report(&err);
	values[2] = Int64GetDatum(half);
	nulls[2] = half < 0;
	values[3] = Int64GetDatum(most);
	nulls[3] = most < 0;
	if (dpagg_selection_describe(&plan, json, sizeof(json), &err) != DPAGG_OK)
		dpagg_report(&err);
	values[4] = DirectFunctionCall1(jsonb_in, CStringGetDatum(json));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/* ---- the settings: dpagg.selection_epsilon, _delta and _strategy ------------------------------ */

static double selection_epsilon = 0;
static double selection_delta = 0;
static char *selection_strategy = NULL;

/* The selection's (epsilon, delta) and strategy: the settings where set, else *epsilon and *delta
 * as given (the query's first aggregate's) and "auto".  Read when a statement starts. */
void
dpagg_selection_settings(double *epsilon, double *delta, const char **strategy)
{
	/* under dpagg.statement_epsilon the selection's share is in its arguments
	 * (query/statement_budget.c refuses the settings beside it when planning) */
	if (selection_epsilon > 0 && !(dpagg_statement_epsilon_here() > 0))
		*epsilon = selection_epsilon;
	if (selection_delta > 0 && !(dpagg_statement_epsilon_here() > 0 && dpagg_statement_delta > 0))
		*delta = selection_delta;
	*strategy = selection_strategy ? selection_strategy : "auto";
}

void
dpagg_selection_settings_raw(double *epsilon, double *delta, const char **strategy)
{
	*epsilon = selection_epsilon;
	*delta = selection_delta;
	*strategy = selection_strategy ? selection_strategy : "auto";
}

void
dpagg_selection_init(void)
{
	DefineCustomRealVariable("dpagg.selection_epsilon",
							 "Epsilon of private group selection (0: that of the query's first dpagg aggregate).",
							 "A query over a private relation whose groups come from the data releases a group only if a DP test on its number of privacy units passes; the test is charged as one more release.",
							 &selection_epsilon, 0, 0, 1e9, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dpagg.selection_delta",
							 "Delta of private group selection (0: that of the query's first dpagg aggregate).",
							 NULL, &selection_delta, 0, 0, 0.999, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("dpagg.selection_strategy",
							   "Private group selection: auto, optimal, laplace or gaussian.",
							   "auto picks the strategy that needs the fewest privacy units for an even chance of releasing a group.",
							   &selection_strategy, "auto", PGC_USERSET, 0, NULL, NULL, NULL);
}
