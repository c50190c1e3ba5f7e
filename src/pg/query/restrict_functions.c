/*
 * restrict_functions.c — the functions restricted roles may apply to private rows: the allow-list
 * of restricted analysts (docs/guides/restricted-analysts.md; docs/restricted.md).  restrict.c
 * walks the expressions evaluated on private rows and hands each function call here.
 *
 * The allow-list: PostgreSQL's LEAKPROOF built-in functions over the types named in
 * trusted_types (comparisons of the common types, boolean equality, ...), plus the functions
 * named in extra_allowed, each with a reason, the one cast allowed by its argument's declared
 * type (bounded_numeric_cast), and dpagg's own error-free date bucketing (safe_date.c).
 * dp_restricted_functions() lists them for DBAs and auditors.
 */
#include "query/query.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_namespace.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "catalog/namespace.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

static void pg_attribute_noreturn()
refuse(const char *msg, const char *detail, const char *hint)
{
	dpagg_restrict_refuse(msg, detail, hint);
}

static bool
has_param(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_param, context);
}

/*
 * Functions outside LEAKPROOF that are allowed on private rows, by exact signature, and why.  Each
 * raises no error for any value of its data arguments once its constant arguments (const_args, a
 * bit mask of positions that must be literals, validated below) are valid, has no side effect, and
 * takes time linear in its input.  Not in the list, and why: arithmetic (overflow, division by
 * zero), narrowing or text-to-number casts (fail on some values), date_trunc and extract (can
 * leave the timestamp range at its ends), functions that read settings or tables.  One cast is
 * allowed by its argument's declared type instead (bounded_numeric_cast): numeric to double
 * precision, which fails beyond 1e308, from a numeric(p, s) that cannot hold such values.
 */
typedef struct Allowed
{
	const char *signature;
	int			const_args;
} Allowed;

static const Allowed extra_allowed[] = {
	/* case mapping and lengths of text (text is valid in the database encoding) */
	{"pg_catalog.lower(text)", 0}, {"pg_catalog.upper(text)", 0},
	{"pg_catalog.length(text)", 0}, {"pg_catalog.char_length(text)", 0},
	{"pg_catalog.octet_length(text)", 0},
	{"pg_catalog.btrim(text)", 0}, {"pg_catalog.ltrim(text)", 0}, {"pg_catalog.rtrim(text)", 0},
	{"pg_catalog.btrim(text,text)", 2}, {"pg_catalog.ltrim(text,text)", 2},
	{"pg_catalog.rtrim(text,text)", 2},
	/* substrings at constant positions (a negative length is refused below) */
	{"pg_catalog.left(text,integer)", 2}, {"pg_catalog.right(text,integer)", 2},
	{"pg_catalog.substring(text,integer)", 2}, {"pg_catalog.substr(text,integer)", 2},
	{"pg_catalog.substring(text,integer,integer)", 6}, {"pg_catalog.substr(text,integer,integer)", 6},
	/* LIKE and ILIKE with a constant pattern (one ending in an escape is refused below) */
	{"pg_catalog.textlike(text,text)", 2}, {"pg_catalog.textnlike(text,text)", 2},
	{"pg_catalog.texticlike(text,text)", 2}, {"pg_catalog.texticnlike(text,text)", 2},
	/* widening casts */
	{"pg_catalog.int8(integer)", 0}, {"pg_catalog.int8(smallint)", 0}, {"pg_catalog.int4(smallint)", 0},
	{"pg_catalog.float8(integer)", 0}, {"pg_catalog.float8(smallint)", 0},
	{"pg_catalog.float8(bigint)", 0}, {"pg_catalog.float8(real)", 0},
	{"pg_catalog.numeric(integer)", 0}, {"pg_catalog.numeric(bigint)", 0},
	{"pg_catalog.numeric(smallint)", 0},
	/* comparisons of numeric (the usual money type; PostgreSQL does not mark them LEAKPROOF):
	 * every pair of values, NaN and infinities included, compares without an error */
	{"pg_catalog.numeric_eq(numeric,numeric)", 0}, {"pg_catalog.numeric_ne(numeric,numeric)", 0},
	{"pg_catalog.numeric_lt(numeric,numeric)", 0}, {"pg_catalog.numeric_le(numeric,numeric)", 0},
	{"pg_catalog.numeric_gt(numeric,numeric)", 0}, {"pg_catalog.numeric_ge(numeric,numeric)", 0},
	{NULL, 0}
};


/* The entry of a function in extra_allowed, or NULL. */
static const Allowed *
extra_entry(Oid fn)
{
	/* Built-in OIDs do not change while the server runs: resolved once per backend. */
	static Oid	oids[lengthof(extra_allowed)];
	static bool resolved = false;
	int			i;

	if (!resolved)
	{
		for (i = 0; extra_allowed[i].signature != NULL; i++)
		{
			Datum		d = DirectFunctionCall1(to_regprocedure,
												CStringGetTextDatum(extra_allowed[i].signature));

			oids[i] = d == (Datum) 0 ? InvalidOid : DatumGetObjectId(d);
		}
		resolved = true;
	}
	for (i = 0; extra_allowed[i].signature != NULL; i++)
		if (OidIsValid(oids[i]) && oids[i] == fn)
			return &extra_allowed[i];
	return NULL;
}

/*
 * LEAKPROOF is PostgreSQL's promise that a function reveals nothing about its arguments but
 * through its result: it is about errors that quote the arguments, not about errors at all.
 * circle_lt, lseg_lt and their siblings are LEAKPROOF and raise 22003 on huge values.  So a
 * LEAKPROOF built-in is trusted only when every argument and its result are of a type named here,
 * whose LEAKPROOF functions (comparisons, widening casts, hashes of text and bytea) were each run
 * on the edge values of their types without an error (sql/78_restricted_functions.sql runs every
 * one dp_restricted_functions() lists).  Geometric types, tid, xid, pg_lsn and the like are not
 * named: their LEAKPROOF functions are not trusted.
 */
static const Oid trusted_types[] = {
	BOOLOID, CHAROID, NAMEOID, INT2OID, INT4OID, INT8OID, OIDOID, FLOAT4OID, FLOAT8OID, NUMERICOID,
	TEXTOID, VARCHAROID, BPCHAROID, BYTEAOID, DATEOID, TIMEOID, TIMETZOID, TIMESTAMPOID,
	TIMESTAMPTZOID, INTERVALOID, UUIDOID, INETOID, CIDROID, MACADDROID, MACADDR8OID, CASHOID,
	BITOID, VARBITOID
};

static bool
trusted_type(Oid t)
{
	int			i;

	for (i = 0; i < lengthof(trusted_types); i++)
		if (trusted_types[i] == t)
			return true;
	return false;
}

/*
 * A built-in function restricted roles may apply to private rows: built in (not replaceable by
 * anyone), internal, not volatile, not set-returning, and either LEAKPROOF over trusted types or
 * in extra_allowed (whose constant arguments the caller validates).
 */
static bool
builtin_allowed(Oid fn, Form_pg_proc proc, const Allowed **extra)
{
	int			i;

	*extra = NULL;
	if (fn >= FirstGenbkiObjectId || proc->pronamespace != PG_CATALOG_NAMESPACE ||
		proc->proretset || proc->provolatile == PROVOLATILE_VOLATILE ||
		proc->prolang != INTERNALlanguageId)
		return false;
	if ((*extra = extra_entry(fn)) != NULL)
		return true;
	if (!proc->proleakproof || !trusted_type(proc->prorettype))
		return false;
	for (i = 0; i < proc->pronargs; i++)
		if (!trusted_type(proc->proargtypes.values[i]))
			return false;
	return true;
}

/* dp_restricted_functions(): the built-in functions and operators' functions restricted roles may
 * apply to private rows (and dpagg's own dp_date_trunc and dp_extract), for DBAs and auditors. */
PG_FUNCTION_INFO_V1(dpagg_restricted_functions_sql);
Datum
dpagg_restricted_functions_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	rel = table_open(ProcedureRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tup);
		const Allowed *extra;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if (!builtin_allowed(proc->oid, proc, &extra))
			continue;
		values[0] = ObjectIdGetDatum(proc->oid);
		values[1] = BoolGetDatum(extra == NULL);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}

/* Validate a constant argument of an allowed function: no value of the data can make it fail. */
static void
check_constant_arg(const char *signature, int i, Node *arg)
{
	Const	   *c;

	if (!IsA(arg, Const))
		refuse(psprintf("restricted roles must pass argument %d of %s as a literal", i + 1, signature),
			   "Its validity is checked before the query runs; a parameter's or an expression's could not be.",
			   "Write the pattern or position as a literal.");
	c = (Const *) arg;
	if (c->constisnull)
		return;
	/* x LIKE ANY ('{...}'): every element of the array is a pattern (an attack review hid a
	 * pattern ending in an escape in one) */
	if (type_is_array(c->consttype))
	{
		ArrayType  *a = DatumGetArrayTypeP(c->constvalue);
		Datum	   *items;
		bool	   *nulls;
		int			n,
					k;
		int16		len;
		bool		byval;
		char		align;

		get_typlenbyvalalign(ARR_ELEMTYPE(a), &len, &byval, &align);
		deconstruct_array(a, ARR_ELEMTYPE(a), len, byval, align, &items, &nulls, &n);
		for (k = 0; k < n; k++)
			if (!nulls[k])
				check_constant_arg(signature, i,
								   (Node *) makeConst(ARR_ELEMTYPE(a), -1, c->constcollid, len,
													  items[k], false, byval));
		return;
	}
	if (strstr(signature, "like(") != NULL)
	{
		char	   *pat = TextDatumGetCString(c->constvalue);
		size_t		n = strlen(pat),
					k = 0;

		while (k < n && pat[n - 1 - k] == '\\')
			k++;
		if (k % 2 == 1)
			refuse("restricted roles cannot use a LIKE pattern that ends with an escape character",
				   "Such a pattern fails only on values that match its beginning.",
				   "Remove the trailing backslash, or double it.");
	}
	if (strstr(signature, "integer,integer)") != NULL && i == 2 && DatumGetInt32(c->constvalue) < 0)
		refuse("restricted roles cannot take a substring of negative length", NULL,
			   "Pass a length of 0 or more.");
}

/*
 * dp_date_trunc and dp_extract (safe_date.c) are dpagg's: C functions of the extension's schema,
 * which is where the extension put dpagg_random.  Their unit must be a literal of the known ones:
 * checked here, before the query runs.
 */
static bool
safe_date_call(const char *name, Oid fn, Oid nsp, Oid lang, Node *unit)
{
	Oid			random_fn = InvalidOid;
	List	   *qualified;

	if (lang != ClanguageId)
		return false;
	qualified = list_make2(makeString(get_namespace_name(nsp)),
						   makeString("dpagg_random"));
	random_fn = LookupFuncName(qualified, 0, NULL, true);
	if (!OidIsValid(random_fn) || get_func_namespace(random_fn) != nsp ||
		getExtensionOfObject(ProcedureRelationId, fn) != getExtensionOfObject(ProcedureRelationId, random_fn) ||
		!OidIsValid(getExtensionOfObject(ProcedureRelationId, fn)))
		return false;
	if (!IsA(unit, Const) || ((Const *) unit)->constisnull ||
		!dpagg_safe_date_arg_ok(strcmp(name, "dp_extract") == 0,
								TextDatumGetCString(((Const *) unit)->constvalue)))
		refuse(psprintf("restricted roles must pass %s a literal unit it knows", name), NULL,
			   "For example dp_date_trunc('month', t) or dp_extract('year', t).");
	return true;
}

/*
 * Collations fail when a comparison runs, not when the query is planned: text compared under no
 * collation at all (columns of two different collations) raises "could not determine which
 * collation to use", and LIKE, starts_with and other substring searches raise an error under a
 * nondeterministic collation.  Only for rows that reach them (after a CASE or an AND): refused
 * here instead, for every call on private data.
 */
void
dpagg_restrict_collation(Oid inputcollid, List *args)
{
	ListCell   *lc;

	if (OidIsValid(inputcollid))
	{
		if (!get_collation_isdeterministic(inputcollid))
			refuse("restricted roles cannot use a nondeterministic collation on private data",
				   "Some operations (LIKE, starts_with, ...) fail under such a collation only for the rows they reach.",
				   "Use a deterministic collation.");
		return;
	}
	foreach(lc, args)
		if (type_is_collatable(exprType((Node *) lfirst(lc))))
			refuse("restricted roles cannot compare text of different collations on private data",
				   "The comparison would fail only for the rows it reaches.",
				   "Add a COLLATE clause.");
}

/*
 * float8(numeric) of a value whose declared type is numeric(p, s) with p - s <= 300 and s <= 300:
 * every such value is NaN or of magnitude below 1e300 and, if not 0, at least 1e-300, all of
 * which convert to double precision without an error (the conversion fails beyond 1e308; a
 * column's typmod is enforced on every value stored, and restricted roles cannot apply a typmod
 * coercion themselves).  An unconstrained numeric is refused.
 */
#define MAX_CAST_DIGITS 300

static bool
bounded_numeric_cast(Oid fn, List *args)
{
	int32		typmod,
				precision,
				scale;

	if (fn != F_FLOAT8_NUMERIC || list_length(args) != 1 ||
		exprType((Node *) linitial(args)) != NUMERICOID)
		return false;
	typmod = exprTypmod((Node *) linitial(args));
	if (typmod < (int32) VARHDRSZ)
		return false;
	precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;	/* 11 bits, signed (PostgreSQL 15) */
	return precision - scale <= MAX_CAST_DIGITS && scale <= MAX_CAST_DIGITS;
}

void
dpagg_restrict_function(Oid fn, List *args, Oid inputcollid, const char *where)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	bool		ok = false;
	char	   *name;
	const Allowed *extra = NULL;
	int			i;
	ListCell   *lc;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fn);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	name = pstrdup(NameStr(proc->proname));
	ok = builtin_allowed(fn, proc, &extra) || bounded_numeric_cast(fn, args);
	{
		Oid			nsp = proc->pronamespace;
		Oid			lang = proc->prolang;

		ReleaseSysCache(tup);
		/* dpagg's own error-free date bucketing (safe_date.c), with a literal unit checked here */
		if (!ok && (strcmp(name, "dp_date_trunc") == 0 || strcmp(name, "dp_extract") == 0) &&
			list_length(args) == 2)
			ok = safe_date_call(name, fn, nsp, lang, linitial(args));
	}
	if (!ok && fn == F_FLOAT8_NUMERIC)
		refuse("restricted roles can cast numeric to double precision only from a column declared numeric(p, s) with p - s <= 300 and s <= 300",
			   psprintf("The cast fails on values beyond 1e308, and a failure on one private row (%s) would tell about it.",
						where),
			   "Compare numeric columns directly (amount > 100), pass them to dpagg's aggregates as they are, or ask the DBA for a column of a bounded numeric type.");
	if (!ok && (fn == F_TIMESTAMP_TIMESTAMPTZ || fn == F_TIMESTAMPTZ_TIMESTAMP ||
				fn == F_TIMESTAMPTZ_DATE || fn == F_DATE_TIMESTAMPTZ))
		refuse(psprintf("restricted roles cannot convert between date and time types (%s()) on private data", name),
			   psprintf("The conversion depends on the TimeZone setting and fails at the ends of the range, on one private row (%s).",
						where),
			   "dp_date_trunc and dp_extract take date, timestamp and timestamp with time zone values as they are: dp_date_trunc('month', visited_at).");
	if (!ok && func_volatile(fn) == PROVOLATILE_STABLE && !contain_var_clause((Node *) args) &&
		!has_param((Node *) args, NULL))
		refuse(psprintf("restricted roles cannot apply %s() beside private data", name),
			   psprintf("Only built-in immutable functions of constants are computed before any private row is read (%s); this one would run as rows reach it.",
						where),
			   "Write its value as a literal, or pass it as a parameter of a prepared statement ($1), e.g. visited_at > $1 for now() - interval '30 days'.");
	if (!ok)
		refuse(psprintf("restricted roles cannot apply %s() to private data", name),
			   psprintf("Expressions over private rows (%s) may use only functions and operators that cannot raise an error that depends on the data, have no side effects and take bounded time (docs/guides/restricted-analysts.md).",
						where),
			   "Use comparisons (of numbers, numeric included, text, dates and times), boolean logic, IS NULL, CASE, COALESCE, IN lists, lower/upper, substring, LIKE with constant patterns and dp_date_trunc/dp_extract (dp_restricted_functions() lists the functions); do arithmetic on the dpagg outputs instead.");
	dpagg_restrict_collation(inputcollid, args);
	if (extra != NULL && extra->const_args != 0)
	{
		i = 0;
		foreach(lc, args)
		{
			if (extra->const_args & (1 << i))
				check_constant_arg(extra->signature, i, (Node *) lfirst(lc));
			i++;
		}
	}
}
