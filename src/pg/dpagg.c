/*
 * dpagg.c — the module's entry: _PG_init sets up each layer of the glue, lowest first
 * (docs/architecture.md): the calibrations (base), the ledger, the labels, the group selection's
 * settings (aggregates), the query pipeline's settings, Citus's grants, and the hooks that run
 * them.
 */
#include "hooks.h"

#include "miscadmin.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	/* Loaded after the server started: refuse, and fail closed (preload.c).  Nothing else is set
	 * up: the server-start settings cannot be defined (PostgreSQL would end the session). */
	if (!process_shared_preload_libraries_in_progress)
	{
		dpagg_preload_late_init();
		return;
	}
	/* base */
	dpagg_calibrate_init();
	dpagg_calib_cache_init();
	/* ledger */
	dpagg_budget_init();
	/* labels */
	dpagg_protect_init();
	/* aggregates */
	dpagg_selection_init();
	/* query */
	dpagg_bound_init();
	dpagg_restrict_init();
	/* citus */
	dpagg_citus_grant_init();
	/* the hooks that run them */
	dpagg_hooks_init();
	MarkGUCPrefixReserved("dpagg");
}

