/*
 * restrict.c — restricted analysts (docs/guides/restricted-analysts.md; docs/restricted.md).
 *
 * A DBA marks a role restricted the PostgreSQL way, with a security label of the provider dpagg
 * on the role:
 *
 *     SECURITY LABEL FOR dpagg ON ROLE analyst IS 'restricted';     -- or dp_restrict('analyst')
 *
 * (superusers only; labels on roles are cluster-wide).  A session is restricted when its login
 * role or its current role is a member of a restricted role (membership counts, superuser
 * privilege does not).  For a restricted session, a statement that reads a private relation is
 * accepted only if every read of private data is one that bound.c turned into dpagg's per-unit
 * aggregates, and every expression evaluated on private rows (in WHERE and ON, grouping keys,
 * aggregate arguments and FILTER, and in plain subqueries or views between the relation and the
 * aggregate) is built from an allow-list that cannot raise a data-dependent error, has no side
 * effect and takes bounded time.  Everything else is refused with 42501 before anything runs or is
 * charged: raw columns, other aggregates, window functions over private rows, writes, COPY,
 * CREATE TABLE AS / SELECT INTO / materialized views, INSERT ... SELECT, EXPLAIN ANALYZE (its row
 * counts are raw data), TABLESAMPLE, and any function or operator outside the list.
 *
 * The allow-list: PostgreSQL's LEAKPROOF built-in functions (the planner's own notion of "reveals
 * nothing about its arguments but through its result": comparisons of the common types, boolean
 * equality, ...), plus the functions named in extra_allowed below, each with a reason; the node
 * types of boolean logic, IS [NOT] NULL, CASE, COALESCE, NULLIF, GREATEST/LEAST, IN lists of
 * constants and binary-compatible casts.  Arithmetic is not in it: it can overflow or divide by
 * zero, and the error would tell about one row.
 */
#include "query/query.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_shseclabel.h"
#include "catalog/pg_type.h"
#include "commands/seclabel.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "optimizer/optimizer.h"
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/inval.h"
#include "utils/plancache.h"
#include "parser/parse_coerce.h"
#include "catalog/dependency.h"
#include "catalog/pg_language.h"
#include "utils/guc.h"
#include "utils/array.h"
#include "access/transam.h"
#include "commands/extension.h"
#include "funcapi.h"
#include "utils/tuplestore.h"


/* ---- the allow-list --------------------------------------------------------------------------- */

static void pg_attribute_noreturn()
refuse(const char *msg, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s", msg),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("%s", hint)));
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
static void
check_collation(Oid inputcollid, List *args)
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

typedef struct AllowContext
{
	const char *where;
	int			nodes;
	bool		plan;			/* a finished plan's expression (restrict_plan.c) */
	Bitmapset  *nest_params;	/* in a plan: the PARAM_EXEC ids nested loops set */
} AllowContext;

/* A node the per-unit rewrite made (bound.c marks them; nothing else can carry the mark). */
static bool
rewrite_made(int location)
{
	return location == DPAGG_BOUND_MARK;
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

static void
function_allowed(Oid fn, List *args, Oid inputcollid, AllowContext *ac)
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
						ac->where),
			   "Compare numeric columns directly (amount > 100), pass them to dpagg's aggregates as they are, or ask the DBA for a column of a bounded numeric type.");
	if (!ok && (fn == F_TIMESTAMP_TIMESTAMPTZ || fn == F_TIMESTAMPTZ_TIMESTAMP ||
				fn == F_TIMESTAMPTZ_DATE || fn == F_DATE_TIMESTAMPTZ))
		refuse(psprintf("restricted roles cannot convert between date and time types (%s()) on private data", name),
			   psprintf("The conversion depends on the TimeZone setting and fails at the ends of the range, on one private row (%s).",
						ac->where),
			   "dp_date_trunc and dp_extract take date, timestamp and timestamp with time zone values as they are: dp_date_trunc('month', visited_at).");
	if (!ok)
		refuse(psprintf("restricted roles cannot apply %s() to private data", name),
			   psprintf("Expressions over private rows (%s) may use only functions and operators that cannot raise an error that depends on the data, have no side effects and take bounded time (docs/guides/restricted-analysts.md).",
						ac->where),
			   "Use comparisons (of numbers, numeric included, text, dates and times), boolean logic, IS NULL, CASE, COALESCE, IN lists, lower/upper, substring, LIKE with constant patterns and dp_date_trunc/dp_extract (dp_restricted_functions() lists the functions); do arithmetic on the dpagg outputs instead.");
	check_collation(inputcollid, args);
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

/*
 * An operator the analyst made is refused even when its function is allowed: the planner calls
 * its commutator's or negator's selectivity estimator, and so the function behind that, on the
 * private column's most common values and histogram while it plans (an attack review built <<<
 * on float8lt with a commutator of its own, and read every statistic of the column).  Built-in
 * operators have built-in commutators, negators and estimators.
 */
static void
builtin_operator(Oid opno, AllowContext *ac)
{
	if (opno >= FirstGenbkiObjectId)
		refuse(psprintf("restricted roles cannot use an operator of their own (%s) on private data",
						get_opname(opno) ? get_opname(opno) : "?"),
			   "The planner runs the functions of an operator's commutator, negator and selectivity estimators on the private columns' statistics.",
			   "Use PostgreSQL's built-in operators.");
}

/* Bounds on the work one row can cause: constants of at most 1 kB, IN lists of at most 1000
 * elements, expressions of at most 500 nodes (a huge literal folded a dozen times around a CASE on
 * one row would otherwise time that row). */
#define MAX_CONST_BYTES 1024
#define MAX_IN_LIST 1000
#define MAX_NODES 500

static void
too_big(void)
{
	refuse("restricted roles cannot use constants over 1 kB, IN lists over 1000 elements or expressions over 500 nodes on private data",
		   "The time one row takes must not depend on its value by more than a small expression's work.",
		   "Use smaller constants and expressions.");
}

static bool
allow_walker(Node *node, AllowContext *ac)
{
	if (node == NULL)
		return false;
	if (++ac->nodes > MAX_NODES)
		too_big();
	switch (nodeTag(node))
	{
		case T_Const:
			{
				Const	   *c = (Const *) node;

				if (!c->constisnull && !c->constbyval && c->constlen == -1 &&
					VARSIZE_ANY(DatumGetPointer(c->constvalue)) > MAX_CONST_BYTES)
					too_big();
				if (!c->constisnull && type_is_array(c->consttype) &&
					ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(c->constvalue)),
								   ARR_DIMS(DatumGetArrayTypeP(c->constvalue))) > MAX_IN_LIST)
					too_big();
				break;
			}
		case T_Var:
		case T_CaseTestExpr:
		case T_SQLValueFunction:
		case T_List:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_RelabelType:
		case T_TargetEntry:
			break;
		case T_MinMaxExpr:
			check_collation(((MinMaxExpr *) node)->inputcollid, ((MinMaxExpr *) node)->args);
			break;
		case T_FuncExpr:
			if (ac->plan && rewrite_made(((FuncExpr *) node)->location))
				break;
			function_allowed(((FuncExpr *) node)->funcid, ((FuncExpr *) node)->args,
							 ((FuncExpr *) node)->inputcollid, ac);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			if (ac->plan && rewrite_made(((OpExpr *) node)->location))
				break;
			builtin_operator(((OpExpr *) node)->opno, ac);
			set_opfuncid((OpExpr *) node);
			function_allowed(((OpExpr *) node)->opfuncid, ((OpExpr *) node)->args,
							 ((OpExpr *) node)->inputcollid, ac);
			break;
		case T_Param:
			/* In a plan, a PARAM_EXEC is a nested loop's outer value or the output of a sub-plan
			 * run on demand (an init plan), and so run only if a private row reaches it. */
			if (ac->plan && ((Param *) node)->paramkind == PARAM_EXEC &&
				!bms_is_member(((Param *) node)->paramid, ac->nest_params))
				refuse(psprintf("restricted roles cannot use a sub-query's value on private data (%s)", ac->where),
					   "The planner evaluates it the first time a private row reaches it.",
					   "Compute the value in a separate query and write it as a literal.");
			break;
		case T_CollateExpr:
			/* a deterministic collation: the comparisons under it are checked like any others */
			if (!get_collation_isdeterministic(((CollateExpr *) node)->collOid))
				refuse("restricted roles cannot use a nondeterministic collation on private data",
					   "Some operations (LIKE, starts_with, ...) fail under such a collation only for the rows they reach.",
					   "Use a deterministic collation, such as \"C\" or the database's default.");
			break;
		case T_Aggref:
		case T_WindowFunc:
			{
				/* In a plan: only the aggregates and the rank the per-unit rewrite made; of the
				 * per-unit (releasing) aggregates, only the value is evaluated per row (their
				 * privacy parameters are evaluated once, before any row is read: site.c). */
				Aggref	   *a = IsA(node, Aggref) ? (Aggref *) node : NULL;
				int			loc = a ? a->location : ((WindowFunc *) node)->location;

				if (!ac->plan || !rewrite_made(loc))
					refuse(psprintf("restricted roles cannot use this kind of expression on private data (%s)",
									ac->where),
						   "Expressions over private rows are limited to an allow-list (docs/guides/restricted-analysts.md).",
						   "Aggregate private rows with dpagg's aggregates only.");
				if (a != NULL && DPAGG_KIND_IS_UNIT(dpagg_aggregate_kind(a->aggfnoid)))
				{
					if (a->args != NIL)
						(void) allow_walker((Node *) linitial_node(TargetEntry, a->args)->expr, ac);
					return allow_walker((Node *) a->aggfilter, ac);
				}
				break;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *s = (ScalarArrayOpExpr *) node;

				builtin_operator(s->opno, ac);
				set_sa_opfuncid(s);
				function_allowed(s->opfuncid, s->args, s->inputcollid, ac);
				/* a list written out (bounded); not an array taken from the data (any size) */
				if (!IsA(lsecond(s->args), Const) && !IsA(lsecond(s->args), ArrayExpr))
					refuse("restricted roles may compare private data only with IN lists written out",
						   NULL, "Write the list out: x IN (1, 2, 3) or x IN (a, b).");
				break;
			}
		case T_ArrayExpr:
			{
				/* ARRAY[...] of allowed expressions (dp_sum_vector's vectors, IN lists): one
				 * dimension only (nested arrays of different lengths would fail on some rows),
				 * and a bounded number of elements */
				if (((ArrayExpr *) node)->multidims)
					refuse("restricted roles cannot build multidimensional arrays from private data",
						   "Arrays of arrays fail when the inner arrays' lengths differ.",
						   "Build a one-dimensional ARRAY[a, b, ...] of the columns.");
				if (list_length(((ArrayExpr *) node)->elements) > MAX_IN_LIST)
					too_big();
				break;
			}
		default:
			/* including aggregates (a built-in one can fail on one row's value, a user-defined
			 * one print it) and window functions: the dpagg aggregates' own arguments are
			 * checked by dpagg_restrict_check_aggref, never as an Aggref */
			refuse(psprintf("restricted roles cannot use this kind of expression on private data (%s)",
							ac->where),
				   "Expressions over private rows are limited to an allow-list (docs/guides/restricted-analysts.md).",
				   "Use comparisons, boolean logic, IS NULL, CASE, COALESCE and IN lists of constants.");
	}
	return expression_tree_walker(node, allow_walker, ac);
}

static void
check_expr(Node *node, const char *where)
{
	AllowContext ac = {where, 0, false, NULL};

	(void) allow_walker(node, &ac);
}

/* An expression of a finished plan that runs while private rows are read (restrict_plan.c). */
void
dpagg_restrict_check_plan_expr(Node *node, const char *where, Bitmapset *nest_params)
{
	AllowContext ac = {where, 0, true, nest_params};

	(void) allow_walker(node, &ac);
}

/* The same refusal, for restrict_plan.c. */
void
dpagg_restrict_refuse(const char *msg, const char *detail, const char *hint)
{
	refuse(msg, detail, hint);
}

/* The join tree's conditions (WHERE and ON). */
static void
check_jointree(Node *node)
{
	if (node == NULL)
		return;
	if (IsA(node, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) node)->fromlist)
			check_jointree(lfirst(lc));
		check_expr(((FromExpr *) node)->quals, "WHERE");
	}
	else if (IsA(node, JoinExpr))
	{
		check_jointree(((JoinExpr *) node)->larg);
		check_jointree(((JoinExpr *) node)->rarg);
		check_expr(((JoinExpr *) node)->quals, "JOIN ... ON");
	}
}

static void check_source_query(Query *q);

/* A range-table entry between the private relation and the aggregate (owner: its query). */
static void
check_rte(Query *owner, RangeTblEntry *rte)
{
	DpProtection p;

	/* Row-security policies, added by the rewriter: run for every row they filter, which a
	 * nested loop makes once per private row (even on a table of the analyst's own). */
	check_expr((Node *) rte->securityQuals, "a row-security policy");
	if (rte->tablesample != NULL)
		refuse("restricted roles cannot use TABLESAMPLE on private data", NULL,
			   "Aggregate the whole relation with dpagg's aggregates.");
	if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
	{
		/* a private view's body is the DBA's: trusted; a plain view or subquery is checked */
		Oid			view = InvalidOid;

		if (rte->subquery->rtable != NIL)
		{
			RangeTblEntry *old = linitial_node(RangeTblEntry, rte->subquery->rtable);

			if (old->rtekind == RTE_RELATION && old->relkind == 'v' && !old->inFromCl)
				view = old->relid;
		}
		if (!(OidIsValid(view) && dpagg_relation_protection(view, &p, NULL)))
			check_source_query(rte->subquery);
	}
	else if (rte->rtekind == RTE_VALUES)
		check_expr((Node *) rte->values_lists, "VALUES");
	else if (rte->rtekind == RTE_CTE)
	{
		/* The planner may inline a WITH query, and evaluate its expressions once per private
		 * row that reaches them: its body is checked like a subquery's. */
		ListCell   *lc;
		bool		found = false;

		if (rte->ctelevelsup == 0)
			foreach(lc, owner->cteList)
			{
				CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

				if (strcmp(cte->ctename, rte->ctename) == 0)
				{
					check_source_query(castNode(Query, cte->ctequery));
					found = true;
				}
			}
		if (!found)
			refuse("restricted roles cannot use a WITH query of an outer query level beside private data",
				   NULL, "Define the WITH query at the level of the dpagg aggregates.");
	}
	else if (rte->rtekind == RTE_FUNCTION || rte->rtekind == RTE_TABLEFUNC)
		refuse("restricted roles cannot call a function in FROM, or XMLTABLE, beside private data",
			   "Its arguments could be evaluated on private rows (LATERAL).",
			   "Aggregate the private relation with dpagg's aggregates alone, or join a table.");
}

/*
 * UNION, INTERSECT and EXCEPT convert each branch's outputs to the combined column types while
 * planning, after this check: a conversion that fails on one value (numeric to double precision
 * out of range, timestamp to timestamptz) would fail for one private row.  Each branch's outputs
 * must already be of the combined types (or binary-coercible to them).
 */
static void
check_setop_types(Query *q, Node *node)
{
	if (IsA(node, SetOperationStmt))
	{
		SetOperationStmt *op = (SetOperationStmt *) node;
		Node	   *sides[2] = {op->larg, op->rarg};
		int			i;

		for (i = 0; i < 2; i++)
		{
			List	   *types = NIL;
			ListCell   *a,
					   *b;

			if (IsA(sides[i], SetOperationStmt))
			{
				types = ((SetOperationStmt *) sides[i])->colTypes;
				check_setop_types(q, sides[i]);
			}
			else if (IsA(sides[i], RangeTblRef))
			{
				RangeTblEntry *rte = rt_fetch(((RangeTblRef *) sides[i])->rtindex, q->rtable);
				ListCell   *t;

				if (rte->rtekind == RTE_SUBQUERY)
					foreach(t, rte->subquery->targetList)
						if (!lfirst_node(TargetEntry, t)->resjunk)
							types = lappend_oid(types, exprType((Node *) lfirst_node(TargetEntry, t)->expr));
			}
			forboth(a, types, b, op->colTypes)
				if (lfirst_oid(a) != lfirst_oid(b) && !IsBinaryCoercible(lfirst_oid(a), lfirst_oid(b)))
					refuse("restricted roles cannot combine branches of different column types (UNION, INTERSECT, EXCEPT) beside private data",
						   "The conversion to the combined type is added after this check and can fail on one value.",
						   "Cast each branch's outputs to the same type yourself, with casts that cannot fail.");
		}
	}
}

/*
 * LIMIT and OFFSET of a subquery beside private data: a negative value is an error, raised only
 * when some row reaches the subquery (a LATERAL one runs per private row), so even a constant
 * one would tell whether any row passes the filter.  Only non-negative constants (or none).
 */
static void
check_limit(Node *n)
{
	Node	   *v;

	if (n == NULL)
		return;
	v = eval_const_expressions(NULL, copyObject(n));
	if (IsA(v, Const) && exprType(v) == INT8OID &&
		(((Const *) v)->constisnull || DatumGetInt64(((Const *) v)->constvalue) >= 0))
		return;
	refuse("restricted roles may use only non-negative constants as LIMIT or OFFSET of a subquery beside private data",
		   "A negative or computed limit raises an error only when rows reach it.",
		   "Write the limit as a literal, or limit the outer query.");
}

/*
 * A subquery (or view, or WITH query) beside private data: a LATERAL one can refer to the private
 * row in any of its expressions, so every expression it has is checked — the join tree, the
 * outputs (ORDER BY, DISTINCT and GROUP BY refer to them), HAVING, LIMIT, OFFSET and window frame
 * offsets — and its range table, recursively (set operations' branches are subqueries in it).
 */
static void
check_source_query(Query *q)
{
	ListCell   *lc;

	if (q->rowMarks != NIL || q->hasForUpdate)
		refuse("restricted roles cannot lock rows (FOR UPDATE, FOR SHARE) in a query over private data",
			   "A lock a private row's values lead to stays on the locked row after the query.",
			   "Remove the locking clause.");
	if (q->setOperations != NULL)
		check_setop_types(q, q->setOperations);
	if (q->hasAggs || q->hasWindowFuncs || q->groupingSets != NIL || q->hasTargetSRFs)
		refuse("restricted roles cannot aggregate, use window functions or set-returning functions in a subquery beside private data",
			   "A LATERAL subquery evaluates them for each private row; an aggregate or window function is not on the allow-list of expressions.",
			   "Aggregate public data in a view or an outer query, and join the result.");
	check_jointree((Node *) q->jointree);
	foreach(lc, q->targetList)
		check_expr((Node *) lfirst_node(TargetEntry, lc)->expr, "a subquery's outputs");
	check_expr(q->havingQual, "a subquery's HAVING");
	check_limit(q->limitCount);
	check_limit(q->limitOffset);
	foreach(lc, q->windowClause)
	{
		WindowClause *w = lfirst_node(WindowClause, lc);

		check_expr(w->startOffset, "a window frame");
		check_expr(w->endOffset, "a window frame");
	}
	foreach(lc, q->rtable)
		check_rte(q, lfirst_node(RangeTblEntry, lc));
}

/*
 * The DP level's own outputs and HAVING run per released group in the order the aggregation
 * returns its groups, before the sort that puts them in key order (bound.c): a function there
 * that prints, writes or numbers rows would show a hash table's order, which depends on groups
 * the selection dropped (a third attack review: a NOTICE per group, row_number() OVER ()).
 * Built-in functions that are not volatile are allowed (arithmetic on the releases, rounding,
 * casts: at worst an error about a released value); window functions, volatile and user-defined
 * functions belong in an outer query, which sees the sorted releases.
 */
static bool
level_output_walker(Node *node, void *context)
{
	Oid			fn = InvalidOid;

	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && dpagg_aggregate_kind(((Aggref *) node)->aggfnoid) != 0)
		return false;			/* a release: its own arguments are checked apart */
	if (IsA(node, WindowFunc))
		refuse("restricted roles cannot use window functions beside dpagg's aggregates",
			   "They would number the groups in the order the aggregation returns them, before they are sorted.",
			   "Apply the window function in an outer query: SELECT ..., row_number() OVER (...) FROM (<the DP query>) s.");
	if (IsA(node, SubLink))
		refuse("restricted roles cannot use sub-selects beside dpagg's aggregates",
			   "They run per released group, in the order the aggregation returns the groups.",
			   "Move the sub-select to an outer query.");
	if (IsA(node, FuncExpr))
		fn = ((FuncExpr *) node)->funcid;
	else if (IsA(node, OpExpr) || IsA(node, DistinctExpr) || IsA(node, NullIfExpr))
	{
		set_opfuncid((OpExpr *) node);
		fn = ((OpExpr *) node)->opfuncid;
	}
	if (OidIsValid(fn) && (fn >= FirstGenbkiObjectId || func_volatile(fn) == PROVOLATILE_VOLATILE) &&
		!(func_volatile(fn) != PROVOLATILE_VOLATILE &&
		  getExtensionOfObject(ProcedureRelationId, fn) == get_extension_oid("dpagg", true)))
		refuse(psprintf("restricted roles cannot apply %s() beside dpagg's aggregates", get_func_name(fn)),
			   "Functions of your own and volatile ones run per released group, in the order the aggregation returns the groups, before they are sorted.",
			   "Apply it in an outer query: SELECT f(n) FROM (<the DP query>) s.");
	return expression_tree_walker(node, level_output_walker, context);
}

void
dpagg_restrict_check_level(Query *q)
{
	ListCell   *lc;

	/* window functions sit in the outputs (and ORDER BY, whose entries are outputs too) */
	(void) level_output_walker((Node *) q->targetList, NULL);
	(void) level_output_walker(q->havingQual, NULL);
	check_jointree((Node *) q->jointree);
	foreach(lc, q->groupClause)
		check_expr((Node *) get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc),
													q->targetList)->expr, "GROUP BY");
	foreach(lc, q->rtable)
		check_rte(q, lfirst_node(RangeTblEntry, lc));
}

void
dpagg_restrict_check_aggref(Aggref *a, int value)
{
	if (value >= 0)
		check_expr((Node *) list_nth_node(TargetEntry, a->args, value)->expr,
				   "an aggregate's argument");
	check_expr((Node *) a->aggfilter, "FILTER");
}

/* ---- whole statements ------------------------------------------------------------------------- */

static int	in_create_as = 0;	/* CREATE TABLE AS, SELECT INTO, materialized views, running */

/*
 * Settings any role may change that make the server print what happens to the rows: trace_sort
 * (sort sizes, also of groups the selection drops), debug_print_parse/rewritten/plan (the
 * planner's estimates, from the private columns' statistics), and messages below NOTICE to the
 * client.  A restricted session runs statements over private relations only without them.
 */
static void
check_settings(void)
{
	if (trace_sort || Debug_print_plan || Debug_print_parse || Debug_print_rewritten ||
		client_min_messages < NOTICE)
		refuse("restricted roles cannot read private relations with trace_sort, debug_print_* or client_min_messages below notice",
			   "These settings print what happens to the rows (sort sizes, plans with estimates from the statistics).",
			   "RESET trace_sort; RESET debug_print_plan; RESET client_min_messages;");
}

void
dpagg_restrict_check_statement(Query *parse, int unbounded_private_reads, bool reads_private)
{
	if (!reads_private || !dpagg_session_restricted())
		return;
	check_settings();
	if (unbounded_private_reads > 0)
		refuse("restricted roles may read private relations only through dpagg's aggregates",
			   "This statement reads private rows other than through dp_sum, dp_avg, dp_count or dp_sum_vector (a column in the output, another aggregate, a window function, DISTINCT, a subquery, a write, ...).",
			   "Aggregate the private relation with dpagg's aggregates, grouped by columns; post-process their results in an outer query.");
	if (parse->commandType != CMD_SELECT || in_create_as > 0 || parse->hasModifyingCTE)
		refuse("restricted roles cannot store or write the results of queries over private relations",
			   "INSERT ... SELECT, a data-modifying WITH, CREATE TABLE AS, SELECT INTO and materialized views over private relations are refused.",
			   "Run the query and keep its results on the client.");
}

/* ProcessUtility, before the statement: COPY of a private relation, and the CREATE ... AS flag. */
void
dpagg_restrict_utility_enter(Node *stmt)
{
	if (IsA(stmt, CopyStmt) && ((CopyStmt *) stmt)->relation != NULL)
		dpagg_restrict_check_copy(RangeVarGetRelid(((CopyStmt *) stmt)->relation, NoLock, true),
								  ((CopyStmt *) stmt)->is_from);
	/* EXECUTE's parameters and CALL's arguments are evaluated without a plan: literals only,
	 * and the objects a CALL names are checked like a query's (restrict_objects.c) */
	if ((IsA(stmt, ExecuteStmt) || IsA(stmt, CallStmt)) && dpagg_session_restricted())
	{
		ListCell   *lc;

		if (IsA(stmt, ExecuteStmt))
			foreach(lc, ((ExecuteStmt *) stmt)->params)
			{
				Node	   *p = (Node *) lfirst(lc);

				while (IsA(p, TypeCast))
					p = ((TypeCast *) p)->arg;
				if (!IsA(p, A_Const) && !IsA(p, ParamRef))
					refuse("restricted roles must pass literals as EXECUTE's parameters",
						   "EXECUTE evaluates its parameters without planning them, so dpagg could not check them.",
						   "Write each parameter as a literal, or compute it in a SELECT first.");
			}
		else if (((CallStmt *) stmt)->funcexpr != NULL)
			dpagg_restrict_check_expression((Node *) ((CallStmt *) stmt)->funcexpr);
	}
	if (IsA(stmt, CreateTableAsStmt) || IsA(stmt, RefreshMatViewStmt))
		in_create_as++;
}

void
dpagg_restrict_utility_leave(Node *stmt)
{
	if (IsA(stmt, CreateTableAsStmt) || IsA(stmt, RefreshMatViewStmt))
		in_create_as--;
}

/* ExecutorStart: EXPLAIN ANALYZE (and auto_explain with analyze) counts raw rows; plain EXPLAIN
 * shows the planner's estimates, which come from the private columns' statistics. */
/*
 * While a restricted session runs a statement over private relations, messages below NOTICE
 * (trace_sort's sort sizes, debug_print_plan's plans, other DEBUG and LOG output) do not go to the
 * client, even if a function changes the settings halfway through.  The server log is unchanged.
 */
static int	restricted_private_depth = 0;
static emit_log_hook_type prev_emit_log_hook = NULL;

static void
restrict_emit_log(ErrorData *edata)
{
	if (restricted_private_depth > 0 && edata->elevel < NOTICE)
		edata->output_to_client = false;
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

static void
restricted_statement_done(void *arg)
{
	if (restricted_private_depth > 0)
		restricted_private_depth--;
}

void
dpagg_restrict_track(MemoryContext query_cxt)
{
	dpagg_on_reset(query_cxt, restricted_statement_done, NULL);
	restricted_private_depth++;
}

void
dpagg_restrict_init(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = restrict_emit_log;
	dpagg_restrict_cache_init();
	dpagg_restrict_objects_init();
	dpagg_restrict_stats_init();
}

bool
dpagg_restrict_check_executor(PlannedStmt *stmt, bool explained, bool reads_private)
{
	if (!reads_private || !dpagg_session_restricted())
		return false;
	check_settings();			/* they can change between planning and running */

	if (explained)
		refuse("restricted roles cannot EXPLAIN a statement over private relations",
			   "Its row counts are computed from the raw rows, and its estimates from the private columns' statistics.",
			   "Use dp_explain to see how a query is bounded.");
	/*
	 * The planner hook checked the statement when it was planned.  A change of the restriction
	 * (the label, or a membership) drops every cached plan, so plans are made and checked again;
	 * what remains unchecked is a plan already running (an open cursor) or one kept without the
	 * plan cache, and SET ROLE to a restricted role.  One that reads private data without dpagg's
	 * per-unit aggregates is a raw read: refused.  (One that mixes them with raw reads cannot be
	 * told apart here: docs/guides/restricted-analysts.md.)
	 */
	if (in_create_as > 0)
		refuse("restricted roles cannot store or write the results of queries over private relations",
			   "CREATE TABLE AS EXECUTE of a prepared statement over private relations is refused too.",
			   "Run the query and keep its results on the client.");
	if (stmt->rowMarks != NIL)
		refuse("restricted roles cannot lock rows (FOR UPDATE, FOR SHARE) in a query over private data",
			   "A lock a private row's values lead to stays on the locked row after the query.",
			   "Remove the locking clause.");
	if ((dpagg_statement_aggregates(stmt) & DPAGG_RUNS_UNIT) == 0 || stmt->commandType != CMD_SELECT ||
		stmt->hasModifyingCTE)
		refuse("restricted roles may read private relations only through dpagg's aggregates",
			   "This plan reads private rows other than through them: it was planned before the session was restricted, or the planner dropped dpagg aggregates whose results the query does not use (SELECT count(*) FROM (<a DP query>) s).",
			   "Use the DP results in the outer query (count(s.c) rather than count(*)), or prepare the statement again.");
	/* Every expression that runs while private rows are read (restrict_plan.c). */
	dpagg_restrict_check_plan(stmt);
	return true;
}
