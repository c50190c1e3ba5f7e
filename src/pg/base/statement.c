/*
 * statement.c — where the backend is, for checks that must know it (base.h): how deep statements
 * nest (utility commands and queries run inside dpagg's hooks: the checks of restricted roles
 * look at the outermost one), and whether a plain EXPLAIN (without ANALYZE) is planning its
 * query (nothing is released then: the Citus split may plan without local execution).  The hooks
 * (src/pg/hooks.c) set both; an error unwinds them through their PG_FINALLY blocks.
 */
#include "base/base.h"

#include "miscadmin.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"

static int	statement_depth = 0;
static int	plain_explain_depth = 0;

void
dpagg_statement_enter(void)
{
	statement_depth++;
}

void
dpagg_statement_leave(void)
{
	if (statement_depth > 0)
		statement_depth--;
}

int
dpagg_statement_depth(void)
{
	return statement_depth;
}

void
dpagg_plain_explain_enter(void)
{
	plain_explain_depth++;
}

void
dpagg_plain_explain_leave(void)
{
	if (plain_explain_depth > 0)
		plain_explain_depth--;
}

bool
dpagg_planning_plain_explain(void)
{
	return plain_explain_depth > 0;
}

/*
 * The text the ledger records for a statement's releases (docs/guides/budgets.md): the statement
 * the client sent, and when what runs is another statement inside it (a function's body, a
 * wrapper's query), that one after "-- running:".  In `cxt`, which must outlive the releases.
 * Not the text of a SECURITY DEFINER function's statement: it is its owner's, and may hold what
 * the caller may not read (an attack review built a table's rows into a wrapper's dynamic SQL);
 * the ledger says only that one ran (auditors read the function in pg_proc).
 */
const char *
dpagg_statement_text(MemoryContext cxt, const char *source)
{
	const char *client = debug_query_string;

	if (client == NULL || client[0] == '\0')
		return source != NULL ? MemoryContextStrdup(cxt, source) : NULL;
	if (source == NULL || source == client || strcmp(source, client) == 0)
		return MemoryContextStrdup(cxt, client);
	if (InLocalUserIdChange())
		return MemoryContextStrdup(cxt, psprintf("%s\n-- running: a statement of a SECURITY DEFINER function", client));
	return MemoryContextStrdup(cxt, psprintf("%s\n-- running: %s", client, source));
}
