/*
 * safe_date.c — dp_date_trunc and dp_extract: date bucketing that never raises an error (docs/guides/
 * restricted-analysts.md).
 *
 * A restricted analyst's expressions over private rows may not raise an error that depends on a
 * row: PostgreSQL's date_trunc and extract can fail at the ends of the timestamp range (truncating
 * a date of 4713 BC to its millennium leaves the range; a date beyond 294276 AD has no
 * timestamp).  These variants take the unit or field as a literal checked before the query runs
 * (restrict.c: the lists below), and give NULL, not an error, for values whose result would leave
 * the range; infinite values give NULL.  dp_extract returns a bigint, so that its result can be a
 * group key (a double precision cannot: -0 and 0).
 */
#include "base/base.h"

#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/timestamp.h"

const char *const dpagg_trunc_units[] = {
	"microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month",
	"quarter", "year", "decade", "century", "millennium", NULL
};

const char *const dpagg_extract_fields[] = {
	"year", "month", "day", "hour", "minute", "dow", "isodow", "doy", "week", "quarter",
	"isoyear", "decade", "century", "millennium", NULL
};

static bool
in_list(const char *const *list, const char *s)
{
	int			i;

	for (i = 0; list[i] != NULL; i++)
		if (pg_strcasecmp(list[i], s) == 0)
			return true;
	return false;
}

bool
dpagg_safe_date_arg_ok(bool extract, const char *s)
{
	return in_list(extract ? dpagg_extract_fields : dpagg_trunc_units, s);
}

/*
 * Timestamps from 3700 BC to 294000 AD: far enough from both ends (4713 BC, 294276 AD) that
 * truncation to a millennium and any time zone offset stay in range.
 */
static bool
safe_timestamp(Timestamp t)
{
	static Timestamp lo = 0,
				hi = 0;

	if (lo == 0)
	{
		lo = DatumGetTimestamp(DirectFunctionCall3(timestamp_in, CStringGetDatum("3700-01-01 00:00:00 BC"),
												   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
		hi = DatumGetTimestamp(DirectFunctionCall3(timestamp_in, CStringGetDatum("294000-01-01 00:00:00"),
												   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	}
	return !TIMESTAMP_NOT_FINITE(t) && t >= lo && t < hi;
}

/* A date whose midnight, in microseconds since 2000-01-01, cannot overflow (about 1.2 million
 * years either way; safe_timestamp then narrows it). */
static bool
safe_date(DateADT d)
{
	return !DATE_NOT_FINITE(d) && d > -400000000 && d < 400000000;
}

static void
check_arg(bool extract, text *arg)
{
	char	   *s = text_to_cstring(arg);

	/* restrict.c checks the literal before the query runs; this is for everyone else */
	if (!dpagg_safe_date_arg_ok(extract, s))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unit \"%s\" not recognized", s),
				 errhint(extract ? "Use year, month, day, hour, minute, dow, isodow, doy, week, quarter, isoyear, decade, century or millennium."
						 : "Use microseconds, milliseconds, second, minute, hour, day, week, month, quarter, year, decade, century or millennium.")));
}

/*
 * The two operations, on a timestamp (tz: one with time zone) that is NULL when `valid` is false:
 * the unit is checked first, so an unknown unit is refused whatever the value.
 */
static Datum
trunc_or_null(FunctionCallInfo fcinfo, Timestamp t, bool valid, bool tz)
{
	check_arg(false, PG_GETARG_TEXT_PP(0));
	if (!valid || !safe_timestamp(t))
		PG_RETURN_NULL();
	return DirectFunctionCall2(tz ? timestamptz_trunc : timestamp_trunc, PG_GETARG_DATUM(0),
							   TimestampGetDatum(t));
}

static Datum
extract_or_null(FunctionCallInfo fcinfo, Timestamp t, bool valid, bool tz)
{
	check_arg(true, PG_GETARG_TEXT_PP(0));
	if (!valid || !safe_timestamp(t))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) DatumGetFloat8(DirectFunctionCall2(tz ? timestamptz_part : timestamp_part,
															   PG_GETARG_DATUM(0),
															   TimestampGetDatum(t))));
}

/* A date's midnight as a timestamp (no conversion that can fail), if the date is safe. */
static bool
midnight(DateADT d, Timestamp *t)
{
	if (!safe_date(d))
		return false;
	*t = (Timestamp) d * USECS_PER_DAY;
	return true;
}

PG_FUNCTION_INFO_V1(dpagg_date_trunc_ts);
Datum
dpagg_date_trunc_ts(PG_FUNCTION_ARGS)
{
	return trunc_or_null(fcinfo, PG_GETARG_TIMESTAMP(1), true, false);
}

PG_FUNCTION_INFO_V1(dpagg_date_trunc_tstz);
Datum
dpagg_date_trunc_tstz(PG_FUNCTION_ARGS)
{
	return trunc_or_null(fcinfo, (Timestamp) PG_GETARG_TIMESTAMPTZ(1), true, true);
}

PG_FUNCTION_INFO_V1(dpagg_date_trunc_date);
Datum
dpagg_date_trunc_date(PG_FUNCTION_ARGS)
{
	Timestamp	t = 0;
	bool		valid = midnight(PG_GETARG_DATEADT(1), &t);

	return trunc_or_null(fcinfo, t, valid, false);
}

PG_FUNCTION_INFO_V1(dpagg_extract_ts);
Datum
dpagg_extract_ts(PG_FUNCTION_ARGS)
{
	return extract_or_null(fcinfo, PG_GETARG_TIMESTAMP(1), true, false);
}

PG_FUNCTION_INFO_V1(dpagg_extract_tstz);
Datum
dpagg_extract_tstz(PG_FUNCTION_ARGS)
{
	return extract_or_null(fcinfo, (Timestamp) PG_GETARG_TIMESTAMPTZ(1), true, true);
}

PG_FUNCTION_INFO_V1(dpagg_extract_date);
Datum
dpagg_extract_date(PG_FUNCTION_ARGS)
{
	Timestamp	t = 0;
	bool		valid = midnight(PG_GETARG_DATEADT(1), &t);

	return extract_or_null(fcinfo, t, valid, false);
}
