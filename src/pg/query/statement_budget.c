/*
 * statement_budget.c — one budget per statement: dpagg.statement_epsilon and
 * dpagg.statement_delta (docs/guides/budgets.md, "One epsilon per statement").
 *
 * With dpagg.statement_epsilon set (above 0), the epsilons written in a statement's dpagg
 * aggregates are weights: the planner hook, once the per-unit rewrite has added the group
 * selections (bound.c), scales every release's epsilon so that they add up to the setting, and
 * dpagg.statement_delta, if set, does the same for the deltas of the releases that ask for one.
 * A group selection's weight is that of the first aggregate of its level (the epsilon it is
 * priced at without the setting).  Writing 1 everywhere splits the statement's budget evenly:
 * with no data to go by (the answers' sizes are secret), the split that keeps every release's
 * error relative to its own sensitivity equal, the least worst error; other weights favour some
 * releases.  The scaled parameters are constants of the plan, so every process of a parallel
 * plan, every Citus node and dp_explain see the same values, and the charge is what they say.
 *
 * What cannot be split is refused (22023/0A000) before anything runs: parameters that are not
 * constants or values of a prepared statement's parameters, GROUPING SETS (each set is a release
 * of its own), and dpagg.selection_epsilon or _delta set beside it (they price the selection
 * outside the split).  A statement planned under one setting and run under another (a cached
 * plan) is refused when it starts if its releases add up to more than the setting: the check
 * reads the finished plan (dpagg_check_statement_budget).  An aggregation that runs again (a
 * correlated subquery, a nested-loop rescan) is charged again, as without the setting.
 *
 * Not inside a SECURITY DEFINER function: the epsilons its owner wrote there are what the owner
 * chose to release, and a caller's setting must not rescale them (a walk-through raised a
 * wrapper's 0.1 to 5 this way).  Its statements are planned and charged as written.
 */
#include "query/query.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "optimizer/optimizer.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

/* One release's parameter: the argument of the Aggref that holds it, and its value. */
typedef struct Weight
{
	TargetEntry *tle;
	double		value;
	bool		counted;		/* false for a repeated identical call: one state, one release */
} Weight;

/* The location of the constants the split writes (no parser or stored tree makes it): a plan
 * that carries them was split, which dpagg_check_statement_budget checks when it runs. */
#define DPAGG_SPLIT_MARK (-0x4451)

/* Whether this backend ever split a statement: the start-time check walks plans only then. */
static bool split_ever = false;

typedef struct Collect
{
	ParamListInfo params;
	List	   *eps;			/* Weight * */
	List	   *delta;
	List	   *level;			/* the releases of the query level being walked */
	bool		grouping_sets;
	bool		unresolved;		/* a parameter without a value (a generic plan) */
} Collect;

/*
 * Is an identical call among `seen` (the calls of one query level or Agg node)?  Identical calls
 * share one transition state, so one release: the planner's find_compatible_agg compares them with
 * equal() too, but never merges calls with volatile arguments.  For dp_explain as well.
 */
bool
dpagg_same_release_in(List *seen, Aggref *a)
{
	ListCell   *lc;

	if (contain_volatile_functions((Node *) a))
		return false;
	foreach(lc, seen)
		if (equal(lfirst(lc), a))
			return true;
	return false;
}

static bool
releasing_kind(int kind)
{
	switch (kind)
	{
		case DP_SITE_SUM:
		case DP_SITE_COUNT:
		case DP_SITE_AVG:
		case DP_SITE_VECTOR:
		case DP_SITE_UNIT_SUM:
		case DP_SITE_UNIT_AVG:
		case DP_SITE_UNIT_COUNT:
		case DP_SITE_SELECT:
		case DP_SITE_UNIT_VECTOR:
		case DP_SITE_MERGE_SUM:
		case DP_SITE_MERGE_AVG:
		case DP_SITE_MERGE_COUNT:
		case DP_SITE_MERGE_VECTOR:
		case DP_SITE_MERGE_VARIANCE:
		case DP_SITE_MERGE_PERCENTILE:
		case DP_SITE_MERGE_AUTO_SUM:
		case DP_SITE_MERGE_AUTO_VARIANCE:
		case DP_SITE_PERCENTILE:
		case DP_SITE_VARIANCE:
		case DP_SITE_UNIT_VARIANCE:
		case DP_SITE_UNIT_PERCENTILE:
		case DP_SITE_AUTO_SUM:
		case DP_SITE_AUTO_PERCENTILE:
		case DP_SITE_AUTO_VARIANCE:
		case DP_SITE_UNIT_AUTO_SUM:
		case DP_SITE_UNIT_AUTO_VARIANCE:
			return true;
		default:
			return false;
	}
}

/* The positions of epsilon and delta among a release's arguments. */
static void
positions(Aggref *a, int kind, int *eps, int *delta)
{
	DpArgLayout lo;

	dpagg_arg_layout(a, kind, &lo);
	*eps = lo.epsilon;
	*delta = lo.delta;
}

static double
value_of(Expr *e, ParamListInfo params, bool *unresolved)
{
	/* a literal as the parser leaves it (1 is float8(1) until the planner folds it) */
	if (!IsA(e, Const) && !IsA(e, Param))
		e = (Expr *) eval_const_expressions(NULL, (Node *) e);
	if (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (IsA(e, Const) && ((Const *) e)->consttype == FLOAT8OID && !((Const *) e)->constisnull)
		return DatumGetFloat8(((Const *) e)->constvalue);
	if (IsA(e, Param) && ((Param *) e)->paramkind == PARAM_EXTERN && params != NULL &&
		((Param *) e)->paramtype == FLOAT8OID)
	{
		ParamExternData tmp;
		ParamExternData *p;
		int			id = ((Param *) e)->paramid;

		if (id > 0 && id <= params->numParams)
		{
			p = params->paramFetch != NULL ? params->paramFetch(params, id, false, &tmp)
				: &params->params[id - 1];
			if (p != NULL && !p->isnull && p->ptype == FLOAT8OID)
				return DatumGetFloat8(p->value);
		}
	}
	if (unresolved != NULL && IsA(e, Param) && ((Param *) e)->paramkind == PARAM_EXTERN && params == NULL)
	{
		*unresolved = true;		/* a generic plan: its values come at execution */
		return 0;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpagg.statement_epsilon needs the epsilon and delta of every release as constants"),
			 errdetail("The statement's budget is split among its releases while it is planned."),
			 errhint("Write the privacy parameters as literals (or pass them as values of a prepared statement's parameters), or RESET dpagg.statement_epsilon.")));
	return 0;					/* not reached */
}

static bool
collect_walker(Node *node, Collect *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		int			kind = dpagg_aggregate_kind(a->aggfnoid);


		/* identical calls of one level share their state: one release (the planner's
		 * find_compatible_agg compares them with equal() too) */
		bool		repeated = dpagg_same_release_in(c->level, a);

		if (releasing_kind(kind))
		{
			int			ie,
						id;
			Weight	   *w;

			if (!repeated)
				c->level = lappend(c->level, a);

			positions(a, kind, &ie, &id);
			w = palloc(sizeof(Weight));
			w->tle = list_nth_node(TargetEntry, a->args, ie);
			w->value = value_of(w->tle->expr, c->params, &c->unresolved);
			w->counted = !repeated;
			c->eps = lappend(c->eps, w);
			w = palloc(sizeof(Weight));
			w->tle = list_nth_node(TargetEntry, a->args, id);
			w->value = value_of(w->tle->expr, c->params, &c->unresolved);
			w->counted = !repeated;
			c->delta = lappend(c->delta, w);
		}
	}
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		List	   *outer = c->level;
		bool		r;

		if (q->groupingSets != NIL && q->hasAggs)
			c->grouping_sets = true;
		c->level = NIL;
		r = query_tree_walker(q, collect_walker, c, 0);
		c->level = outer;
		return r;
	}
	return expression_tree_walker(node, collect_walker, c);
}

/* x * total / sum, rounded down where the division rounded up (the shares never add up to more
 * than the total). */
static double
share(double x, double total, double sum)
{
	long double exact = (long double) x * total / sum;
	double		v = (double) exact;

	if ((long double) v > exact)
		v = nextafter(v, 0);
	return v;
}

static void
scale(List *weights, double total)
{
	ListCell   *lc;
	double		sum = 0;

	foreach(lc, weights)
	{
		Weight	   *w = (Weight *) lfirst(lc);

		if (!(isfinite(w->value) && w->value >= 0))
			return;				/* left as written: the release refuses it (22023) */
		if (w->counted)
			sum += w->value;
	}
	if (!(sum > 0))
		return;
	foreach(lc, weights)
	{
		Weight	   *w = (Weight *) lfirst(lc);

		Const	   *k = makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
									  Float8GetDatum(share(w->value, total, sum)), false,
									  FLOAT8PASSBYVAL);

		k->location = DPAGG_SPLIT_MARK;
		w->tle->expr = (Expr *) k;
		split_ever = true;
	}
}

static void
not_with_selection_settings(void)
{
	double		eps = 0,
				delta = 0;
	const char *strategy;

	dpagg_selection_settings_raw(&eps, &delta, &strategy);
	if (eps > 0 || (delta > 0 && dpagg_statement_delta > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpagg.statement_epsilon cannot be combined with dpagg.selection_epsilon or dpagg.selection_delta"),
				 errdetail("The statement's budget is split among all its releases, group selections included."),
				 errhint("RESET dpagg.selection_epsilon and dpagg.selection_delta, or RESET dpagg.statement_epsilon.")));
}

bool
dpagg_split_statement_budget(Query *parse, ParamListInfo params)
{
	Collect		c;
	ListCell   *lc;

	if (!(dpagg_statement_epsilon_here() > 0))
		return false;
	memset(&c, 0, sizeof(c));
	c.params = params;
	(void) collect_walker((Node *) parse, &c);
	if (c.eps == NIL)
		return false;
	/* A generic plan of a prepared statement whose parameters are privacy parameters: not split
	 * (their values come at execution); the caller prices it out of the plan cache's choice, so
	 * that each execution gets a custom plan, split with the values (a forced generic plan is
	 * refused when it starts, by dpagg_check_statement_budget). */
	if (c.unresolved)
		return true;
	if (c.grouping_sets)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpagg.statement_epsilon cannot split a statement's budget over GROUPING SETS, ROLLUP or CUBE"),
				 errdetail("Each grouping set is a release of its own, charged in full."),
				 errhint("Run one query per grouping set, or RESET dpagg.statement_epsilon.")));
	not_with_selection_settings();
	scale(c.eps, dpagg_statement_epsilon_here());
	if (dpagg_statement_delta > 0)
	{
		List	   *asked = NIL;

		foreach(lc, c.delta)
			if (((Weight *) lfirst(lc))->value > 0)
				asked = lappend(asked, lfirst(lc));
		scale(asked, dpagg_statement_delta);
	}
	return false;
}

/* ---- when it starts: the plan's releases within the setting --------------------------------- */

typedef struct Sum
{
	ParamListInfo params;
	double		eps;
	double		delta;
	bool		split;			/* constants the split wrote */
	List	   *node;			/* the releases of the Agg node being walked */
} Sum;

static bool
sum_walker(Node *node, Sum *s)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		int			kind = dpagg_aggregate_kind(a->aggfnoid);

		if (dpagg_same_release_in(s->node, a))
			return false;		/* one state, one release */
		/* the aggregate's first step carries its arguments: a parallel plan's partial one (its
		 * finalizing step reads them from it, and has a column in their place), or the whole */
		if (releasing_kind(kind) && !DO_AGGSPLIT_COMBINE(a->aggsplit))
		{
			int			ie,
						id;
			TargetEntry *tle;
			Expr	   *e;

			s->node = lappend(s->node, a);
			positions(a, kind, &ie, &id);
			if (ie < list_length(a->args))
			{
				tle = list_nth_node(TargetEntry, a->args, ie);
				e = tle->expr;
				if (IsA(e, Const) && ((Const *) e)->location == DPAGG_SPLIT_MARK)
					s->split = true;
				if (IsA(e, Const) || IsA(e, Param))
					s->eps += value_of(e, s->params, NULL);
				else
					s->eps = INFINITY;	/* not split: refused below */
			}
			if (id >= 0 && id < list_length(a->args))
			{
				tle = list_nth_node(TargetEntry, a->args, id);
				e = tle->expr;
				if (IsA(e, Const) || IsA(e, Param))
					s->delta += value_of(e, s->params, NULL);
				else
					s->delta = INFINITY;
			}
		}
		return false;
	}
	return expression_tree_walker(node, sum_walker, s);
}

static void
sum_plan(Plan *plan, void *context)
{
	Sum		   *s = (Sum *) context;

	if (IsA(plan, Agg))
	{
		s->node = NIL;
		(void) sum_walker((Node *) plan->targetlist, s);
		(void) sum_walker((Node *) plan->qual, s);
	}
}

void
dpagg_check_statement_budget(PlannedStmt *stmt, ParamListInfo params)
{
	Sum			s;
	double		here = dpagg_statement_epsilon_here();

	if (!(here > 0) && !split_ever)
		return;					/* nothing split in this backend: nothing to check */
	memset(&s, 0, sizeof(s));
	s.params = params;
	dpagg_walk_statement(stmt, sum_plan, &s);
	/*
	 * A plan split where the setting applied, run where it does not: a function's plan cached in
	 * this session under the setting and run again inside a SECURITY DEFINER function or after
	 * RESET (an attack review raised a wrapper's written 0.1 to 5 through a helper function's
	 * cached plan).  Its owner's epsilons must stand: refused.
	 */
	if (s.split && !(here > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("this statement's plan was split under dpagg.statement_epsilon, which does not apply here"),
				 errdetail("The plan was cached while the setting was on (a function's statement, a prepared statement or a cursor), and runs inside a SECURITY DEFINER function or after the setting was reset. Nothing was released or charged."),
				 errhint("Run DISCARD PLANS (or reconnect), then run it again.")));
	if (!(here > 0))
		return;
	if (s.eps > here * (1 + 1e-9) ||
		(dpagg_statement_delta > 0 && s.delta > dpagg_statement_delta * (1 + 1e-9)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the releases of this statement add up to epsilon %g and delta %g, more than dpagg.statement_epsilon (%g) or dpagg.statement_delta (%g)",
						s.eps, s.delta, here, dpagg_statement_delta),
				 errdetail("The split was made for another plan: a prepared statement's or cursor's plan made under another setting or as a generic plan, or the planner runs a release more than once (a CTE or a SQL function it inlines after the split). Nothing was released or charged."),
				 errhint("Prepare the statement again, write AS MATERIALIZED for a CTE with a dpagg aggregate, or RESET dpagg.statement_epsilon.")));
}
