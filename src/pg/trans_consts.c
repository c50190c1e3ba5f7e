/*
 * trans_consts.c — the constant arguments of dpagg's transition functions, passed once per query
 * instead of once per row.
 *
 * PostgreSQL evaluates every argument of an aggregate call for every input row: for dp_sum(x,
 * 1.0, 1e-6, 0, 1000) the Agg node's transition program (an ExprState built by
 * ExecBuildAggTrans) has one EEOP_CONST step per privacy parameter, each storing the same
 * constant into the same slot of the transition function's call arguments (fcinfo->args[k]) for
 * every row.  dpagg reads its parameters once per query from the call site (site.c) and never
 * from those arguments, yet the steps cost about a nanosecond each per row.
 *
 * So, once the Agg node is initialised and before it reads any row (ExecutorStart, site.c), the
 * constant is stored into its argument slot once and its step is taken out of the program.  This
 * changes nothing that is computed: the removed steps only ever stored that constant there, and no
 * other step writes those slots (checked below).  The plan, EXPLAIN and every result are the same.
 *
 * Done only where it is plainly safe, and otherwise left alone (the program then runs as built):
 * - only the interpreted program of a phase that PostgreSQL built at initialisation (a program
 *   compiled by JIT keeps its steps; programs built later, for a hash aggregation that spills, are
 *   built anew and keep theirs);
 * - only EEOP_CONST steps whose result is an argument slot of one of dpagg's transition
 *   functions, at the position of a privacy parameter that is a Const in the Aggref (parameters
 *   are constants by then: dpagg_freeze_parameters);
 * - only if every step of the program is of a kind whose jumps (step indexes) this file knows how
 *   to renumber.
 */
#include "site.h"

#include "executor/execExpr.h"
#include "executor/nodeAgg.h"
#include "jit/jit.h"
#include "nodes/primnodes.h"

/*
 * The jump targets of a step: up to two pointers to step indexes.  False for an opcode not listed
 * here (the program is then left as it is).
 */
static bool
step_jumps(ExprEvalOp op, ExprEvalStep *step, int **j1, int **j2)
{
	*j1 = NULL;
	*j2 = NULL;
	switch (op)
	{
		case EEOP_DONE:
		case EEOP_INNER_FETCHSOME:
		case EEOP_OUTER_FETCHSOME:
		case EEOP_SCAN_FETCHSOME:
		case EEOP_INNER_VAR:
		case EEOP_OUTER_VAR:
		case EEOP_SCAN_VAR:
		case EEOP_CONST:
		case EEOP_FUNCEXPR:
		case EEOP_FUNCEXPR_STRICT:
		case EEOP_FUNCEXPR_FUSAGE:
		case EEOP_FUNCEXPR_STRICT_FUSAGE:
		case EEOP_BOOL_NOT_STEP:
		case EEOP_NULLTEST_ISNULL:
		case EEOP_NULLTEST_ISNOTNULL:
		case EEOP_BOOLTEST_IS_TRUE:
		case EEOP_BOOLTEST_IS_NOT_TRUE:
		case EEOP_BOOLTEST_IS_FALSE:
		case EEOP_BOOLTEST_IS_NOT_FALSE:
		case EEOP_PARAM_EXEC:
		case EEOP_PARAM_EXTERN:
		case EEOP_CASE_TESTVAL:
		case EEOP_MAKE_READONLY:
		case EEOP_IOCOERCE:
		case EEOP_DISTINCT:
		case EEOP_NOT_DISTINCT:
		case EEOP_NULLIF:
		case EEOP_MINMAX:
		case EEOP_AGG_DESERIALIZE:
		case EEOP_AGG_PLAIN_TRANS_INIT_STRICT_BYVAL:
		case EEOP_AGG_PLAIN_TRANS_STRICT_BYVAL:
		case EEOP_AGG_PLAIN_TRANS_BYVAL:
		case EEOP_AGG_PLAIN_TRANS_INIT_STRICT_BYREF:
		case EEOP_AGG_PLAIN_TRANS_STRICT_BYREF:
		case EEOP_AGG_PLAIN_TRANS_BYREF:
		case EEOP_AGG_ORDERED_TRANS_DATUM:
		case EEOP_AGG_ORDERED_TRANS_TUPLE:
			return true;
		case EEOP_JUMP:
		case EEOP_JUMP_IF_NULL:
		case EEOP_JUMP_IF_NOT_NULL:
		case EEOP_JUMP_IF_NOT_TRUE:
			*j1 = &step->d.jump.jumpdone;
			return true;
		case EEOP_BOOL_AND_STEP_FIRST:
		case EEOP_BOOL_AND_STEP:
		case EEOP_BOOL_AND_STEP_LAST:
		case EEOP_BOOL_OR_STEP_FIRST:
		case EEOP_BOOL_OR_STEP:
		case EEOP_BOOL_OR_STEP_LAST:
			*j1 = &step->d.boolexpr.jumpdone;
			return true;
		case EEOP_QUAL:
			*j1 = &step->d.qualexpr.jumpdone;
			return true;
		case EEOP_AGG_STRICT_DESERIALIZE:
			*j1 = &step->d.agg_deserialize.jumpnull;
			return true;
		case EEOP_AGG_STRICT_INPUT_CHECK_ARGS:
		case EEOP_AGG_STRICT_INPUT_CHECK_NULLS:
			*j1 = &step->d.agg_strict_input_check.jumpnull;
			return true;
		case EEOP_AGG_PLAIN_PERGROUP_NULLCHECK:
			*j1 = &step->d.agg_plain_pergroup_nullcheck.jumpnull;
			return true;
		default:
			return false;
	}
}

/* Is this an argument slot that holds a constant privacy parameter of one of the given
 * transitions? */
static bool
is_param_slot(Datum *resvalue, AggStatePerTrans *pts, int npts)
{
	int			i;

	for (i = 0; i < npts; i++)
	{
		FunctionCallInfo fcinfo = pts[i]->transfn_fcinfo;
		int			kind = ((DpSite *) pts[i]->transfn.fn_extra)->kind;
		int			value = dpagg_value_position(pts[i]->aggref, kind);
		int			k = 0;
		ListCell   *lc;

		foreach(lc, pts[i]->aggref->args)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, lc);

			if (k + 1 < fcinfo->nargs && k != value && IsA(tle->expr, Const) &&
				resvalue == &fcinfo->args[k + 1].value)
				return true;
			k++;
		}
	}
	return false;
}

static void
compact_program(ExprState *state, AggStatePerTrans *pts, int npts)
{
	int			n = state->steps_len;
	int		   *newpos;
	bool	   *drop;
	int			i,
				kept,
				ndrop = 0;

	if (state->steps == NULL || n <= 0 || (state->flags & EEO_FLAG_INTERPRETER_INITIALIZED) == 0)
		return;					/* compiled by JIT, or not ready: leave it */
	drop = palloc0(sizeof(bool) * n);
	for (i = 0; i < n; i++)
	{
		ExprEvalStep *step = &state->steps[i];
		ExprEvalOp	op = ExecEvalStepOp(state, step);
		int		   *j1,
				   *j2;

		if (!step_jumps(op, step, &j1, &j2))
		{
			pfree(drop);
			return;				/* a step this file does not know */
		}
		if (step->resvalue != NULL && is_param_slot(step->resvalue, pts, npts))
		{
			if (op != EEOP_CONST ||
				step->resnull != &((NullableDatum *) step->resvalue)->isnull)
			{
				pfree(drop);
				return;			/* something else writes a parameter slot */
			}
			drop[i] = true;
			ndrop++;
		}
	}
	if (ndrop == 0 || drop[n - 1])
	{
		pfree(drop);
		return;
	}
	/* newpos[t]: the index, after compaction, of the first kept step at or after t */
	newpos = palloc(sizeof(int) * (n + 1));
	kept = 0;
	for (i = 0; i < n; i++)
	{
		newpos[i] = kept;
		if (!drop[i])
			kept++;
	}
	newpos[n] = kept;
	for (i = 0; i < n; i++)
	{
		ExprEvalStep *step = &state->steps[i];
		int		   *j1,
				   *j2;

		(void) step_jumps(ExecEvalStepOp(state, step), step, &j1, &j2);
		if ((j1 != NULL && (*j1 < 0 || *j1 > n)) || (j2 != NULL && (*j2 < 0 || *j2 > n)))
		{
			pfree(newpos);
			pfree(drop);
			return;				/* not a step index: leave the program alone */
		}
	}
	/* Nothing has been changed so far.  Store each constant once, then drop its step. */
	kept = 0;
	for (i = 0; i < n; i++)
	{
		ExprEvalStep *step = &state->steps[i];
		int		   *j1,
				   *j2;

		if (drop[i])
		{
			*step->resvalue = step->d.constval.value;
			*step->resnull = step->d.constval.isnull;
			continue;
		}
		(void) step_jumps(ExecEvalStepOp(state, step), step, &j1, &j2);
		if (j1 != NULL)
			*j1 = newpos[*j1];
		if (j2 != NULL)
			*j2 = newpos[*j2];
		if (kept != i)
			state->steps[kept] = *step;
		kept++;
	}
	state->steps_len = kept;
	pfree(newpos);
	pfree(drop);
}

void
dpagg_pass_constants_once(AggState *as, AggStatePerTrans *pts, int npts)
{
	int			p;

	if (npts == 0)
		return;
	/* With JIT the programs are compiled with their steps (each step's address may be baked
	 * into the code): leave them alone. */
	if (as->ss.ps.state->es_jit_flags & PGJIT_PERFORM)
		return;
	for (p = 0; p < as->numphases; p++)
		if (as->phases[p].evaltrans != NULL)
			compact_program(as->phases[p].evaltrans, pts, npts);
}
