/*
 * calibrate.c — the glue's door to the core: error reporting (a core error becomes an ereport),
 * the mechanism GUCs, the requests of scalar and vector releases, calibrations through a
 * per-backend cache and the cluster's shared one (calib_cache.c), and the SQL functions
 * dp_calibrate(), dp_noise_interval() and dp_mechanisms().  C only: the C++ core is called
 * through dpagg_core.h, whose functions never throw and never call PostgreSQL, so an ereport long
 * jump here never crosses a C++ frame.
 */
#include "base/base.h"

#include <math.h>

#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"

#include "accounting.h"

char	   *dpagg_default_mechanism = NULL;
int			dpagg_objective_setting = DPAGG_OBJECTIVE_L2;
double		dpagg_statement_epsilon = 0;
double		dpagg_statement_delta = 0;
double		dpagg_report_confidence = 0.95;

static const struct config_enum_entry objective_options[] = {
	{"l2", DPAGG_OBJECTIVE_L2, false},
	{"l1", DPAGG_OBJECTIVE_L1, false},
	{NULL, 0, false}
};

/* Polled by long calibrations; reading the flag never long-jumps. */
static int
should_stop(void)
{
	/* Only a real cancel or termination: InterruptPending is also set by harmless events
	 * (e.g. a parallel worker's message), which must not abort a calibration. */
	return (QueryCancelPending || ProcDiePending) ? 1 : 0;
}

static bool
check_default_mechanism(char **newval, void **extra, GucSource source)
{
	dpagg_error err;
	char		canonical[DPAGG_MECH_SPEC_LEN];

	if (*newval == NULL)
		return true;
	if (dpagg_validate_spec(*newval, canonical, sizeof(canonical), &err) != DPAGG_OK)
	{
		/*
		 * From postgresql.conf (or ALTER SYSTEM): PostgreSQL would log a WARNING and silently use
		 * auto.  Accepted instead, so that every release that would use it is refused
		 * (dpagg_mechanism_spec): the DBA's choice is never replaced behind their back.
		 */
		if (source == PGC_S_FILE)
		{
			ereport(WARNING,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpagg.default_mechanism = %s is not a mechanism: %s", dpagg_quote_input(*newval), err.message),
					 errdetail("Releases that name no mechanism are refused until it is fixed."),
					 errhint("Set a name listed by dp_mechanisms() in postgresql.conf and reload.")));
			return true;
		}
		GUC_check_errmsg("%s", err.message);
		if (err.hint[0])
			GUC_check_errhint("%s", err.hint);
		return false;
	}
	return true;
}

/* The GUCs of mechanisms and reports, and the core's interrupt check (from _PG_init). */
void
dpagg_calibrate_init(void)
{
	DefineCustomStringVariable("dpagg.default_mechanism",
							   "Noise mechanism used when a dpagg aggregate names none.",
							   "Any name listed by dp_mechanisms(), optionally with options, e.g. laplace.",
							   &dpagg_default_mechanism,
							   "auto",
							   PGC_USERSET,
							   0,
							   check_default_mechanism,
							   NULL,
							   NULL);
	DefineCustomEnumVariable("dpagg.objective",
							 "Expected loss that the auto mechanism minimises.",
							 "l2: expected squared error (default); l1: expected absolute error.",
							 &dpagg_objective_setting,
							 DPAGG_OBJECTIVE_L2,
							 objective_options,
							 PGC_USERSET,
							 0,
							 NULL,
							 NULL,
							 NULL);
	DefineCustomRealVariable("dpagg.report_confidence",
							 "Confidence of the intervals of the report forms (dp_sum_report, ...).",
							 "The interval holds the true answer (before clamping) with at least this probability; read once per query.",
							 &dpagg_report_confidence,
							 0.95,
							 0.5,
							 0.999999,
							 PGC_USERSET,
							 0,
							 NULL,
							 NULL,
							 NULL);
	DefineCustomRealVariable("dpagg.statement_epsilon",
							 "The epsilon of one statement, split among its releases (0: each release's epsilon as written).",
							 "When set, the epsilons written in a statement's dpagg aggregates are weights: they are scaled to add up to this, group selections included.",
							 &dpagg_statement_epsilon, 0, 0, 1e9, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dpagg.statement_delta",
							 "The delta of one statement, split among its releases that ask for one (0: as written); with dpagg.statement_epsilon.",
							 NULL, &dpagg_statement_delta, 0, 0, 0.999, PGC_USERSET, 0, NULL, NULL, NULL);
	dpagg_set_interrupt_check(should_stop);
}

void
dpagg_report(const dpagg_error *err)
{
	int			code;

	if (err->status == DPAGG_CANCELED)
		CHECK_FOR_INTERRUPTS();	/* processes the cancel; back in C, so the long jump is safe */

	switch (err->status)
	{
		case DPAGG_INVALID_PARAMETER:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case DPAGG_NOT_SUPPORTED:
			code = ERRCODE_FEATURE_NOT_SUPPORTED;
			break;
		case DPAGG_CANCELED:
			code = ERRCODE_QUERY_CANCELED;
			break;
		default:
			code = ERRCODE_INTERNAL_ERROR;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg("%s", err->message),
			 err->hint[0] ? errhint("%s", err->hint) : 0));
	pg_unreachable();
}

/* User input quoted in an error: at most 40 bytes, cut at a character boundary, with "..." after
 * a cut (an oversized argument is not copied into the error and the server log whole). */
char *
dpagg_quote_input(const char *s)
{
	int			len = strlen(s);
	int			cut = len > 40 ? pg_mbcliplen(s, len, 40) : len;

	return psprintf("\"%.*s%s\"", cut, s, cut < len ? "..." : "");
}

void
dpagg_mechanism_spec(text *arg, char *buf, size_t buflen)
{
	const char *src = dpagg_default_mechanism ? dpagg_default_mechanism : "auto";
	char	   *tmp = NULL;

	if (arg != NULL)
		src = tmp = text_to_cstring(arg);
	else
	{
		dpagg_error err;
		char		canonical[DPAGG_MECH_SPEC_LEN];

		/* a setting from postgresql.conf is accepted unchecked (check_default_mechanism) */
		if (dpagg_validate_spec(src, canonical, sizeof(canonical), &err) != DPAGG_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpagg.default_mechanism = %s is not a mechanism: %s", dpagg_quote_input(src), err.message),
					 errdetail("The release names no mechanism, and the default one is unusable. Nothing was released or charged."),
					 errhint("Name a mechanism in the call, or fix dpagg.default_mechanism (dp_mechanisms() lists them).")));
	}
	if (strlen(src) >= buflen)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mechanism %s is too long", dpagg_quote_input(src)),
				 errhint("A mechanism spec has at most %d characters; see dp_mechanisms().",
						 (int) buflen - 1)));
	strlcpy(buf, src, buflen);
	if (tmp)
		pfree(tmp);
}

double
dpagg_statement_epsilon_here(void)
{
	return InLocalUserIdChange() ? 0 : dpagg_statement_epsilon;
}

static DpAccountingSource accounting_source = NULL;

void
dpagg_set_accounting_source(DpAccountingSource source)
{
	accounting_source = source;
}

int
dpagg_session_accounting(void)
{
	return accounting_source != NULL ? accounting_source() : DPAGG_ACCOUNTING_BASIC;
}

dpagg_request
dpagg_scalar_request(double epsilon, double delta, double sensitivity, bool integer_valued)
{
	dpagg_request r;

	memset(&r, 0, sizeof(r));	/* a cache key, compared bytewise */
	r.epsilon = epsilon;
	r.delta = delta;
	r.sensitivity = sensitivity;
	r.integer_valued = integer_valued ? 1 : 0;
	r.dimension = 1;
	r.vector = 0;
	/* auto (and multi_gaussian) without an objective in the spec minimise dpagg.objective's. */
	r.objective = dpagg_objective_setting == DPAGG_OBJECTIVE_L1 ? DPAGG_OBJECTIVE_L1 : DPAGG_OBJECTIVE_L2;
	/* auto under a zcdp budget: the least loss per unit of rho charged (core auto.h) */
	r.accounting = dpagg_session_accounting();
	return r;
}

dpagg_request
dpagg_vector_request(double epsilon, double delta, double l2_bound, int dimension)
{
	dpagg_request r = dpagg_scalar_request(epsilon, delta, l2_bound, false);

	r.dimension = dimension;
	r.vector = 1;
	r.objective = DPAGG_OBJECTIVE_L2;	/* a vector release minimises E ||X||^2 */
	return r;
}

/*
 * Per-backend calibration cache: a small direct-mapped table in static memory.  Calibration is
 * deterministic, so a hit returns exactly what a fresh calibration would.
 */
#define CACHE_SLOTS 64
typedef struct CacheEntry
{
	bool		valid;
	char		spec[DPAGG_MECH_SPEC_LEN];
	dpagg_request req;
	dpagg_calibration cal;
} CacheEntry;
static CacheEntry cache[CACHE_SLOTS];

static uint32
cache_slot(const char *spec, const dpagg_request *req)
{
	uint32		h = 2166136261u;
	const unsigned char *p;

	for (p = (const unsigned char *) spec; *p; p++)
		h = (h ^ *p) * 16777619u;
	for (p = (const unsigned char *) req; p < (const unsigned char *) (req + 1); p++)
		h = (h ^ *p) * 16777619u;
	return h % CACHE_SLOTS;
}

void
dpagg_calibrate_cached(const char *spec, const dpagg_request *req, dpagg_calibration *out)
{
	CacheEntry *e = &cache[cache_slot(spec, req)];
	dpagg_error err;

	if (e->valid && strcmp(e->spec, spec) == 0 && memcmp(&e->req, req, sizeof(*req)) == 0)
	{
		*out = e->cal;
		return;
	}
	/* Then the cluster's shared cache (calib_cache.c), then a fresh calibration. */
	if (!dpagg_shared_calibration_get(spec, req, out))
	{
		if (dpagg_calibrate_for_release(spec, req, out, &err) != DPAGG_OK)
			dpagg_report(&err);
		dpagg_shared_calibration_put(spec, req, out);
	}
	e->valid = true;
	strlcpy(e->spec, spec, sizeof(e->spec));
	e->req = *req;
	e->cal = *out;
}

/*
 * The description of a calibration is deterministic too, and for auto it recalibrates every
 * candidate: keep the last few, keyed by the calibration and the requested sensitivity, as the
 * finished jsonb value (building it is most of the cost of a repeated dp_calibrate).
 */
#define DESCRIBE_SLOTS 16
typedef struct DescribeEntry
{
	bool		valid;
	dpagg_calibration cal;
	double		requested_sensitivity;
	Datum		details;		/* jsonb in TopMemoryContext */
} DescribeEntry;
static DescribeEntry describe_cache[DESCRIBE_SLOTS];
static int	describe_next = 0;

static Datum
details_cached(const dpagg_calibration *cal, double sensitivity)
{
	dpagg_error err;
	char		json[4096];
	char	   *full;
	Datum		d;
	DescribeEntry *e;
	int			i;

	for (i = 0; i < DESCRIBE_SLOTS; i++)
	{
		e = &describe_cache[i];
		if (e->valid && e->requested_sensitivity == sensitivity &&
			memcmp(&e->cal, cal, sizeof(*cal)) == 0)
			return e->details;
	}
	if (dpagg_describe(cal, json, sizeof(json), &err) != DPAGG_OK)
		dpagg_report(&err);
	/* The core describes the calibration; say which sensitivity the caller asked for. */
	full = psprintf("{\"requested_sensitivity\": %.17g, %s", sensitivity, json + 1);
	d = DirectFunctionCall1(jsonb_in, CStringGetDatum(full));
	e = &describe_cache[describe_next];
	describe_next = (describe_next + 1) % DESCRIBE_SLOTS;
	if (e->valid)
		pfree(DatumGetPointer(e->details));
	e->valid = false;
	e->details = PointerGetDatum(MemoryContextAlloc(TopMemoryContext, VARSIZE(DatumGetPointer(d))));
	memcpy(DatumGetPointer(e->details), DatumGetPointer(d), VARSIZE(DatumGetPointer(d)));
	e->cal = *cal;
	e->requested_sensitivity = sensitivity;
	e->valid = true;
	return e->details;
}

/* dp_calibrate's result row type, blessed once per backend (per function OID). */
static TupleDesc
calibrate_tupdesc(FunctionCallInfo fcinfo)
{
	static TupleDesc cached = NULL;
	static Oid	cached_fn = InvalidOid;
	TupleDesc	tupdesc;
	MemoryContext old;

	if (cached != NULL && cached_fn == fcinfo->flinfo->fn_oid)
		return cached;
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	old = MemoryContextSwitchTo(TopMemoryContext);
	tupdesc = BlessTupleDesc(CreateTupleDescCopy(tupdesc));
	MemoryContextSwitchTo(old);
	cached = tupdesc;			/* the previous one, if any, is leaked: it may still be in use */
	cached_fn = fcinfo->flinfo->fn_oid;
	return cached;
}

static double
arg_float8(FunctionCallInfo fcinfo, int i, const char *name)
{
	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be NULL", name),
				 errhint("Pass a number.")));
	return PG_GETARG_FLOAT8(i);
}

/*
 * The calibration a SQL function's arguments (mechanism, epsilon, delta, sensitivity, and
 * integer_valued at argument integer_arg) ask for, made as an aggregate's would be (at the
 * release sensitivity, see release.cpp).
 */
static double
sql_calibration(FunctionCallInfo fcinfo, int integer_arg, dpagg_calibration *cal)
{
	char		spec[DPAGG_MECH_SPEC_LEN];
	double		epsilon = arg_float8(fcinfo, 1, "epsilon");
	double		delta = arg_float8(fcinfo, 2, "delta");
	double		sensitivity = arg_float8(fcinfo, 3, "sensitivity");
	bool		integer_valued = PG_ARGISNULL(integer_arg) ? false : PG_GETARG_BOOL(integer_arg);
	dpagg_request req;

	dpagg_mechanism_spec(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), spec, sizeof(spec));
	if (!(isfinite(sensitivity) && sensitivity > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitivity must be a finite number greater than 0"),
				 errhint("Pass the largest absolute value one row can contribute, in (0, infinity).")));
	req = dpagg_scalar_request(epsilon, delta, sensitivity, integer_valued);
	dpagg_calibrate_cached(spec, &req, cal);
	return sensitivity;
}

/*
 * dp_calibrate(mechanism, epsilon, delta, sensitivity): the calibration an aggregate with these
 * parameters would use (at the release sensitivity, see release.cpp), without releasing anything.
 */
PG_FUNCTION_INFO_V1(dpagg_calibrate_sql);
Datum
dpagg_calibrate_sql(PG_FUNCTION_ARGS)
{
	dpagg_calibration cal;
	double		sensitivity = sql_calibration(fcinfo, 4, &cal);
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	double		rho;

	tupdesc = calibrate_tupdesc(fcinfo);
	values[0] = CStringGetTextDatum(cal.spec);
	values[1] = Float8GetDatum(cal.scale);
	values[2] = Float8GetDatum(cal.l1);
	values[3] = Float8GetDatum(cal.l2);
	rho = dpagg_zcdp_rho(&cal);
	values[4] = Float8GetDatum(rho);
	nulls[4] = isnan(rho);
	values[5] = details_cached(&cal, sensitivity);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * dp_noise_interval(mechanism, epsilon, delta, sensitivity, confidence, integer_valued): the
 * half-width of the interval a release with these parameters holds its true answer in, with
 * probability at least `confidence`; calibrated as dp_calibrate is.  Releases nothing.
 */
PG_FUNCTION_INFO_V1(dpagg_noise_interval_sql);
Datum
dpagg_noise_interval_sql(PG_FUNCTION_ARGS)
{
	double		confidence = arg_float8(fcinfo, 4, "confidence");
	dpagg_calibration cal;
	dpagg_error err;
	double		w;

	if (!(confidence > 0 && confidence < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be between 0 and 1 (exclusive)"),
				 errhint("Ask for example for 0.95 (a 95 %% interval).")));
	(void) sql_calibration(fcinfo, 5, &cal);
	if (dpagg_noise_halfwidth(&cal, confidence, &w, &err) != DPAGG_OK)
		dpagg_report(&err);
	PG_RETURN_FLOAT8(w);
}

PG_FUNCTION_INFO_V1(dpagg_mechanisms_sql);
Datum
dpagg_mechanisms_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n = dpagg_mechanism_count();
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < n; i++)
	{
		dpagg_mechanism_info info;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		if (dpagg_mechanism_get(i, &info) != DPAGG_OK)
			elog(ERROR, "dpagg: could not list mechanism %d", i);
		values[0] = CStringGetTextDatum(info.name);
		values[1] = CStringGetTextDatum(info.guarantee);
		values[2] = BoolGetDatum(info.accepts_zero_delta != 0);
		values[3] = CStringGetTextDatum(info.summary);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
