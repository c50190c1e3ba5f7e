/*
 * private_statements.c — a statement that runs one of dpagg's own aggregates as written and reads
 * a private relation is refused, also across nested statements (docs/privacy_units.md): the
 * per-unit rewrite (bound.c) replaced every aggregate over a private relation that it could
 * bound, so what is left was not bounded.  The executor hooks (src/pg/hooks.c) call check_start
 * before the executor starts (it returns the statement's flags), track once it has started, and
 * enter/leave around running and finishing it.
 */
#include "query/query.h"

#include "executor/executor.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/*
 * A statement is refused when it runs one of dpagg's aggregates and reads a private relation.
 * "Reads" is the statement's final range table: its tables, the views it expanded, the bodies of
 * the SQL functions the planner inlined.  A function that is not inlined (PL/pgSQL, a VOLATILE or
 * SECURITY DEFINER SQL function, a trigger) runs statements of its own, so the rule also spans
 * nesting: a statement with a dpagg aggregate is refused while a statement that reads a private
 * relation is running (executing or finishing, i.e. firing its triggers) further up the stack,
 * and a statement that reads a private relation is refused while one with a dpagg aggregate is.
 * A cursor between two FETCHes is not running.  Copies made by earlier statements (a temporary
 * table, CREATE TABLE AS) are outside this rule: only restricting the raw reads closes them.
 */
typedef struct RunningStatement
{
	QueryDesc  *qd;
	bool		reads_private;
	bool		has_dpagg;
	struct RunningStatement *next;
} RunningStatement;

static RunningStatement *statements = NULL;	/* started and not yet ended, with a flag set */
static int	private_depth = 0;	/* running statements that read a private relation */
static int	dpagg_depth = 0;	/* running statements with a dpagg aggregate */

static void
refuse(const char *msg, const char *relname, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg(msg, relname),
			 errdetail("%s", detail),
			 errhint("Query a relation that is not private, or remove the protection with dp_unprotect.")));
}

static void
forget_statement(void *arg)
{
	RunningStatement **link;

	for (link = &statements; *link != NULL; link = &(*link)->next)
		if (*link == (RunningStatement *) arg)
		{
			*link = (*link)->next;
			return;
		}
}

int
dpagg_protect_check_start(QueryDesc *qd)
{
	PlannedStmt *stmt = qd->plannedstmt;
	Oid			private_rel = dpagg_plan_first_private(stmt);
	int			runs = dpagg_statement_aggregates(stmt);
	bool		has_dpagg = runs != 0;
	const char *detail = "The relation is protected per privacy unit, and dpagg could not bound this statement's aggregates per unit.";

	/* bound.c rewrote every dpagg aggregate over a private relation that it could bound into
	 * the per-unit ones; a plain one left in such a statement was not bounded. */
	if ((runs & DPAGG_RUNS_PLAIN) && OidIsValid(private_rel))
		refuse("dpagg aggregates over the private relation \"%s\" must be bounded per privacy unit",
			   get_rel_name(private_rel), detail);
	if (has_dpagg && private_depth > 0)
		refuse("dpagg aggregates are not available inside a statement that reads a private relation%s",
			   "", detail);
	if (OidIsValid(private_rel) && dpagg_depth > 0)
		refuse("the private relation \"%s\" cannot be read inside a statement with dpagg aggregates",
			   get_rel_name(private_rel), detail);
	return (OidIsValid(private_rel) ? DPAGG_READS_PRIVATE : 0) | (has_dpagg ? DPAGG_HAS_DPAGG : 0);
}

void
dpagg_protect_track(QueryDesc *qd, int flags)
{
	RunningStatement *r;

	if (flags == 0 || qd->estate == NULL)
		return;
	/* Forgotten when the executor's memory goes: at ExecutorEnd, or when an error aborts it. */
	r = MemoryContextAlloc(qd->estate->es_query_cxt, sizeof(RunningStatement));
	r->qd = qd;
	r->reads_private = (flags & DPAGG_READS_PRIVATE) != 0;
	r->has_dpagg = (flags & DPAGG_HAS_DPAGG) != 0;
	r->next = statements;
	statements = r;
	dpagg_on_reset(qd->estate->es_query_cxt, forget_statement, r);
}

int
dpagg_protect_enter(QueryDesc *qd)
{
	RunningStatement *r;

	for (r = statements; r != NULL; r = r->next)
		if (r->qd == qd)
		{
			if (r->reads_private)
				private_depth++;
			if (r->has_dpagg)
				dpagg_depth++;
			return (r->reads_private ? DPAGG_READS_PRIVATE : 0) | (r->has_dpagg ? DPAGG_HAS_DPAGG : 0);
		}
	return 0;
}

void
dpagg_protect_leave(int flags)
{
	if (flags & DPAGG_READS_PRIVATE)
		private_depth--;
	if (flags & DPAGG_HAS_DPAGG)
		dpagg_depth--;
}
