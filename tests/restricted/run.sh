#!/usr/bin/env bash
# A curious analyst against dpagg's restricted role (docs/restricted.md).  The analyst may SELECT a private
# table of patients, is restricted, and wants to learn whether patient 42 is in it with a cost of
# exactly 123456.  Two databases differ only in that row.  Every path the analyst tries is run in
# both: it must be refused, and refused with the same error in both (an error that depended on the
# row would answer the question).  A DP query that singles the patient out must never release the
# patient's group.  Prints "ok N - <what was tried>: <outcome>" per attack and ends with
# "restricted: N passed, N failed".  Unless DPAGG_RESTRICTED_INSIDE is set it runs itself in
# pg_virtualenv.  Needs dpagg installed.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${DPAGG_RESTRICTED_INSIDE:-}" ]; then
  export DPAGG_RESTRICTED_INSIDE=1
  exec timeout 600 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg,pg_stat_statements "$0" "$@"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh

setup() {  # setup <database> <with the patient: 1 or 0>
  createdb "$1"
  psql -X -q -v ON_ERROR_STOP=1 -d "$1" >/dev/null <<SQL
CREATE EXTENSION dpagg;
CREATE EXTENSION pg_stat_statements;
DO \$\$ BEGIN CREATE ROLE curious LOGIN PASSWORD 'curious'; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
CREATE TABLE patients (uid integer, diagnosis text, age integer, zip text, cost double precision);
INSERT INTO patients SELECT g, 'd' || g % 5, 20 + g % 60, 'z' || g % 10, 1000 + g % 500
  FROM generate_series(1, 2000) g WHERE g <> 42;
INSERT INTO patients SELECT 42, 'rare_x', 61, 'z_rare', 123456 WHERE $2 = 1;
ANALYZE patients;
SELECT dp_protect('patients', 'uid');
GRANT SELECT ON patients TO curious;
CREATE TABLE shapes (uid integer, c circle, l lseg);
INSERT INTO shapes SELECT g, circle(point(g, g), g), lseg(point(0, 0), point(g, g)) FROM generate_series(1, 200) g;
INSERT INTO shapes SELECT 42, '<(0,0),1e200>', '[(1e308,0),(-1e308,0)]' WHERE $2 = 1;
SELECT dp_protect('shapes', 'uid');
GRANT SELECT ON shapes TO curious;
CREATE TABLE raw_p AS SELECT * FROM patients;
CREATE INDEX ON raw_p (cost);
ANALYZE raw_p;
CREATE VIEW vp AS SELECT uid, zip, age, cost FROM raw_p;
SELECT dp_protect('vp', 'uid');
GRANT SELECT ON vp TO curious;
CREATE INDEX ON patients (cost);
ANALYZE patients;
CREATE TABLE notes (uid int, note text);
INSERT INTO notes SELECT g, 'note ' || md5(g::text) FROM generate_series(1, 2000) g WHERE g <> 42;
INSERT INTO notes SELECT 42, string_agg(md5(i::text), '') FROM generate_series(1, 200) i WHERE $2 = 1;
ANALYZE notes;
SELECT dp_protect('notes', 'uid');
GRANT SELECT ON notes TO curious;
CREATE TABLE unlabelled (uid integer, cost double precision);
INSERT INTO unlabelled SELECT uid, cost FROM patients;
GRANT SELECT ON unlabelled TO curious;
CREATE SCHEMA scratch AUTHORIZATION curious;
CREATE TABLE scratch.sink (x text);
ALTER TABLE scratch.sink OWNER TO curious;
SQL
}
setup with_42 1
setup without_42 0
psql -X -q -d with_42 -c "SELECT dp_set_budget('curious', 1e6, 0.5)" -c "SELECT dp_restrict('curious')" >/dev/null
# The analyst's connections (pg_virtualenv's host connections ask for a password).
analyst() { env PGPASSWORD=curious psql -X -q -At -U curious "$@"; }

# The analyst's own objects, made in both databases before the attacks (creating them reads nothing).
for db in with_42 without_42; do
  analyst -d "$db" >/dev/null 2>&1 <<'SQL'
CREATE FUNCTION scratch.cost_of(u integer) RETURNS double precision LANGUAGE sql IMMUTABLE
  AS 'SELECT max(cost) FROM public.patients WHERE uid = u';
CREATE FUNCTION scratch.peek() RETURNS double precision LANGUAGE plpgsql
  AS $$ BEGIN RETURN (SELECT cost FROM public.patients WHERE uid = 42); END $$;
CREATE FUNCTION scratch.all_rows() RETURNS SETOF public.patients LANGUAGE sql STABLE
  AS 'SELECT * FROM public.patients';
CREATE FUNCTION scratch.shout(x double precision) RETURNS boolean LANGUAGE plpgsql
  AS $$ BEGIN IF x = 123456 THEN RAISE NOTICE 'found'; END IF; RETURN true; END $$;
CREATE VIEW scratch.divided AS SELECT uid, 1 / (cost - 123456) AS x FROM public.patients;
CREATE VIEW scratch.plain AS SELECT uid, cost FROM public.patients;
CREATE SEQUENCE scratch.tick;
CREATE FUNCTION scratch.boom(k text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE
  AS $$ BEGIN RAISE EXCEPTION 'boom %', k; END $$;
CREATE TABLE scratch.one (k text);
INSERT INTO scratch.one VALUES ('x');
CREATE COLLATION scratch.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE scratch.keys (k text COLLATE scratch.ci, a text COLLATE "C", b text COLLATE "POSIX");
INSERT INTO scratch.keys VALUES ('z', 'a', 'b');
SQL
done

# The DBA declares the analyst's own tables public (restricted roles read nothing undeclared).
for db in with_42 without_42; do
  psql -X -q -d "$db" -c "SECURITY LABEL FOR dpagg ON TABLE scratch.one IS 'public'" \
    -c "SECURITY LABEL FOR dpagg ON TABLE scratch.keys IS 'public'" >/dev/null
done

# try <refused: 1 or 0> "<what is tried>" "<SQL as the analyst>" [releases] [SQLSTATE]: run in
# both databases; the outcome (messages with their SQLSTATEs, details and hints) must be the same
# in both (an outcome that depended on the row would answer the question), and with refused = 1
# it must be an error of the given SQLSTATE (42501 unless said) and charge nothing (beyond the
# given number of releases per database that the SQL makes before the refused statement).
releases() { psql -X -q -At -d with_42 -c "SELECT coalesce(sum(releases), 0) FROM dp_budgets WHERE role = 'curious'"; }
try() {
  local a b before
  before=$(releases)
  a=$(analyst -d with_42 -v VERBOSITY=verbose -v SHOW_CONTEXT=never -c "$3" 2>&1 | head -4 | tr '\n' ' ')
  b=$(analyst -d without_42 -v VERBOSITY=verbose -v SHOW_CONTEXT=never -c "$3" 2>&1 | head -4 | tr '\n' ' ')
  state=$(sed -n 's/.*ERROR: *\([0-9A-Z]\{5\}\):.*/\1/p' <<< "$a" | head -1)
  n=$((n + 1))
  if [ "$a" != "$b" ]; then
    failed=$((failed + 1)); echo "not ok $n - $2: the outcome depends on the patient: [$a] vs [$b]"
  elif [ "$1" = 1 ] && [ "$(releases)" != "$((before + 2 * ${4:-0}))" ]; then
    failed=$((failed + 1)); echo "not ok $n - $2: refused, but charged ($before -> $(releases) releases)"
  elif [ "$1" = 1 ] && [[ "$a" != *ERROR* ]]; then
    failed=$((failed + 1)); echo "not ok $n - $2: not refused: [$a]"
  elif [ "$1" = 1 ] && [ "$state" != "${5:-42501}" ]; then
    failed=$((failed + 1)); echo "not ok $n - $2: refused with SQLSTATE $state, not ${5:-42501}: [$a]"
  elif [ "$1" = 1 ]; then
    passed=$((passed + 1)); echo "ok $n - $2: refused alike, $state ($(sed -n 's/.*ERROR: *[0-9A-Z]\{5\}: \([^:]*\).*/\1/p' <<< "$a" | cut -c1-80))"
  elif [[ "$a" == *ERROR* ]]; then
    failed=$((failed + 1)); echo "not ok $n - $2: allowed, but refused (alike, so nothing is learnt, but the check sees nothing run): [$a]"
  else
    passed=$((passed + 1)); echo "ok $n - $2: the same with and without the patient ($(cut -c1-60 <<< "$a"))"
  fi
}
attack() { try 1 "$@"; }   # refused, alike
alike() { try 0 "$@"; }    # allowed to run (no error); what it prints must not depend on the patient

attacks() {
attack "read the row" "SELECT cost FROM patients WHERE uid = 42"
attack "count the matching rows" "SELECT count(*) FROM patients WHERE uid = 42 AND cost = 123456"
attack "exists()" "SELECT EXISTS (SELECT 1 FROM patients WHERE cost = 123456)"
attack "min/max" "SELECT max(cost) FROM patients"
attack "a window function" "SELECT uid, rank() OVER (ORDER BY cost) FROM patients"
attack "DISTINCT" "SELECT DISTINCT zip FROM patients"
attack "division-by-zero oracle in WHERE" "SELECT dp_count(1, 1e-6) FROM patients WHERE 1 / (cost - 123456) > 0"
attack "division-by-zero oracle hidden in COALESCE" "SELECT dp_count(1, 1e-6) FROM patients WHERE COALESCE(1 / (cost - 123456), 0) >= 0"
attack "overflowing cast oracle" "SELECT dp_count(1, 1e-6) FROM patients WHERE (cost * 1e304)::integer > 0"
attack "text cast oracle" "SELECT dp_count(1, 1e-6) FROM patients WHERE cost::text::integer > 0"
attack "sleep when found (timing)" "SELECT dp_count(1, 1e-6) FROM patients WHERE CASE WHEN cost = 123456 THEN pg_sleep(3) IS NULL ELSE true END"
attack "write the value into a setting" "SELECT dp_count(1, 1e-6) FROM patients WHERE set_config('x.y', cost::text, false) IS NOT NULL"
attack "count rows through a sequence" "SELECT dp_count(1, 1e-6) FROM patients WHERE cost = 123456 AND nextval('scratch.tick') > 0"
attack "a notice from my own function" "SELECT dp_count(1, 1e-6) FROM patients WHERE scratch.shout(cost)"
attack "a data-dependent LIKE pattern" "SELECT dp_count(1, 1e-6) FROM patients WHERE zip LIKE diagnosis"
attack "my view that divides by zero" "SELECT dp_count(1, 1e-6) FROM scratch.divided"
attack "my plain view, raw" "SELECT * FROM scratch.plain WHERE uid = 42"
attack "my immutable function that reads the table, folded at planning" "SELECT dp_count(1, 1e-6) FROM patients WHERE scratch.cost_of(42) = 123456"
attack "my PL/pgSQL function that reads the table" "SELECT scratch.peek()"
attack "my SQL function inlined into a DP query" "SELECT dp_count(1, 1e-6) FROM scratch.all_rows()"
attack "a second read of the table in a subquery" "SELECT dp_count(1, 1e-6) FROM patients WHERE cost < (SELECT max(cost) FROM patients)"
attack "a self-join on a value" "SELECT dp_count(1, 1e-6) FROM patients a JOIN patients b ON a.cost = b.cost"
attack "group keys of a type with several spellings" "SELECT cost, dp_count(1, 1e-6) FROM patients GROUP BY cost"
attack "EXPLAIN ANALYZE row counts" "EXPLAIN ANALYZE SELECT dp_count(1, 1e-6) FROM patients WHERE cost = 123456"
attack "EXPLAIN estimates" "EXPLAIN SELECT dp_count(1, 1e-6) FROM patients WHERE cost = 123456"
attack "the planner's statistics" "SELECT most_common_vals, histogram_bounds FROM pg_stats WHERE tablename = 'patients'"
attack "COPY the table" "COPY patients TO STDOUT"
attack "COPY a query" "COPY (SELECT * FROM patients WHERE uid = 42) TO STDOUT"
attack "CREATE TABLE AS" "CREATE TABLE scratch.copy AS SELECT * FROM patients"
attack "SELECT INTO a DP result" "SELECT zip, dp_count(1, 1e-6) AS n INTO scratch.copy2 FROM patients GROUP BY zip"
attack "INSERT ... SELECT" "INSERT INTO scratch.sink SELECT zip FROM patients WHERE cost = 123456"
attack "a cursor over raw rows" "BEGIN; DECLARE c CURSOR FOR SELECT * FROM patients; FETCH 1 FROM c"
attack "TABLESAMPLE" "SELECT dp_count(1, 1e-6) FROM patients TABLESAMPLE SYSTEM (10)"
attack "call the per-unit aggregate directly" "SELECT dpagg_unit_count(1, 1e6, 1e-6, NULL, 1, 0, 'uid') FROM patients WHERE cost = 123456"
attack "lift my own restriction" "SELECT dp_unrestrict('curious')"
attack "relabel myself" "SECURITY LABEL FOR dpagg ON ROLE curious IS NULL"
attack "update the row (an affected-row count)" "UPDATE patients SET cost = cost WHERE cost = 123456"

attack "a substring of negative length after a test on the patient" "SELECT dp_count(1, 1e-6) FROM patients WHERE uid = 42 AND substring(zip, 1, -1) = ''"
attack "a LIKE pattern ending in an escape" "SELECT dp_count(1, 1e-6) FROM patients WHERE zip LIKE 'z_ra\\'"
attack "an encoding name taken from the data" "SELECT dp_count(1, 1e-6) FROM patients WHERE length('\\x41'::bytea, diagnosis::name) > 0"
attack "a time zone taken from the data" "SELECT dp_count(1, 1e-6) FROM patients WHERE date_trunc('day', now(), diagnosis) IS NOT NULL"
attack "dp_date_trunc with a unit from the data" "SELECT dp_count(1, 1e-6) FROM patients WHERE dp_date_trunc(diagnosis, now()) IS NULL"
attack "dp_extract with an unknown field, after a test on the patient" "SELECT dp_count(1, 1e-6) FROM patients WHERE uid = 42 AND dp_extract('fortnight', now()) = 1"
attack "my function in a WITH query, evaluated lazily per matching row" "WITH c AS (SELECT scratch.boom(k) AS e FROM scratch.one) SELECT dp_count(1, 1e-6) FROM patients p, c WHERE CASE WHEN p.cost = 123456 THEN c.e ELSE true END"
attack "starts_with under a nondeterministic collation, per matching row" "SELECT dp_count(1, 1e-6) FROM patients p, scratch.keys c WHERE CASE WHEN p.cost = 123456 THEN starts_with(p.zip, c.k) ELSE true END"
attack "text of two collations compared per matching row" "SELECT dp_count(1, 1e-6) FROM patients p, scratch.keys c WHERE CASE WHEN p.cost = 123456 THEN c.a < c.b ELSE true END"
attack "my function in LATERAL VALUES" "SELECT dp_count(1, 1e-6) FROM patients p, LATERAL (VALUES (scratch.shout(p.cost))) v(x) WHERE v.x"
attack "XMLTABLE over the row" "SELECT dp_count(1, 1e-6) FROM patients p, XMLTABLE('/a' PASSING CAST('<a/>' AS xml) COLUMNS x text PATH concat('a', p.diagnosis)) t"
attack "a huge literal worked on once per matching row (timing)" "SELECT dp_count(1, 1e-6) FROM patients WHERE CASE WHEN cost = 123456 THEN lower(upper(lower(diagnosis || '$(head -c 4000 /dev/zero | tr '\0' x)'))) = '' ELSE true END"
# built-in immutable calls of constants only are folded while planning, before any row: the work
# on the huge literal is done once, whoever is in the table (allowed, and alike)
alike "a huge literal folded while planning" "SELECT dp_count(1, 1e-6) IS NOT NULL FROM patients WHERE CASE WHEN cost = 123456 THEN lower(upper(lower('$(head -c 4000 /dev/zero | tr '\0' x)'))) = '' ELSE true END"
attack "trace_sort on (sort sizes of dropped groups)" "SET trace_sort = on; SET client_min_messages = log; SELECT diagnosis, dp_count(1, 1e-6) FROM patients GROUP BY diagnosis"
attack "debug_print_plan (estimates)" "SET debug_print_plan = on; SELECT dp_count(1, 1e-6) FROM patients WHERE cost = 123456"
attack "the activity counters" "SELECT idx_tup_fetch, n_tup_ins FROM pg_stat_user_tables WHERE relname = 'patients'"
attack "a counter function" "SELECT pg_stat_get_live_tuples('patients'::regclass)"
attack "a column as a privacy parameter" "SELECT dp_sum(cost, 1, 1e-6, 0, cost) FROM patients" 0 22023
# LATERAL subqueries beside the private row: every part of them is checked (fifth attack review)
attack "a LATERAL subquery's LIMIT that turns negative for the patient" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT 1 AS one LIMIT CASE WHEN p.cost = 123456 THEN -1 ELSE 1 END) l"
attack "a constant negative OFFSET reached only if the patient passes the filter" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT 1 AS one OFFSET -1) l WHERE p.cost = 123456"
attack "a LATERAL subquery's HAVING that divides by zero" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT 1 AS one HAVING 1 / (p.cost - 123456) > 0) l"
attack "a LATERAL subquery's HAVING that prints the row through my function" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT 1 AS one HAVING scratch.shout(p.cost)) l"
attack "a built-in aggregate that fails on one row's value, in LATERAL" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT json_object_agg(CASE WHEN p.cost = 123456 THEN NULL ELSE 'a' END, k) AS x FROM (VALUES (1)) v(k)) l WHERE l.x IS NOT NULL"
attack "a set operation's LIMIT in LATERAL" "SELECT dp_count(1, 1e-6) FROM patients p, LATERAL (SELECT 1 AS x UNION ALL SELECT 2 LIMIT CASE WHEN p.cost = 123456 THEN -1 END) l"
attack "a nested LATERAL subquery's LIMIT" "SELECT dp_count(1, 1e-6) FROM patients p, LATERAL (SELECT * FROM (SELECT 1 AS one LIMIT CASE WHEN p.cost = 123456 THEN -1 END) x) l"
attack "row locks in LATERAL left on my table by the patient's row" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT 1 AS one FROM scratch.one WHERE p.cost = 123456 FOR UPDATE) l"
attack "a UNION branch converted to the combined type after the check" "SELECT dp_count(1, 1e-6) FROM patients p CROSS JOIN LATERAL (SELECT CASE WHEN p.cost = 123456 THEN 1e400 ELSE 0 END AS x UNION ALL SELECT 1::float8) l"
attack "CREATE TABLE AS EXECUTE of a cached DP plan" "SET plan_cache_mode = force_generic_plan; PREPARE p AS SELECT dp_count(1, 1e-6) > -1e9 FROM patients; EXECUTE p; CREATE TABLE scratch.cx AS EXECUTE p" 1
# a unit's numeric sum overflowing (sum(numeric) errs past 1e131072): saturated instead, for every role
alike "dp_sum of a numeric that overflows for the patient's unit" "SELECT dp_sum(CASE WHEN p.cost = 123456 THEN 9e131071 ELSE 0 END, 1, 1e-6, 0, 1) > -1e9 FROM patients p CROSS JOIN (VALUES (1), (2)) v(k)"
alike "dp_avg of a numeric that overflows for the patient's unit" "SELECT dp_avg(CASE WHEN p.cost = 123456 THEN 9e131071 ELSE 0 END, 1, 1e-6, 0, 1) > -1e9 FROM patients p CROSS JOIN (VALUES (1), (2)) v(k)"
# A deterministic COLLATE and ARRAY[...] of allowed expressions are allowed (the hint for text of
# two collations says to add a COLLATE clause); nondeterministic collations stay refused.
alike "a COLLATE clause on private text" "SELECT dp_count(1, 1e-6) > -1e9 FROM patients WHERE zip COLLATE \"C\" = 'z_rare'"
alike "dp_sum_vector over ARRAY[...] of private columns" "SELECT array_length(dp_sum_vector(ARRAY[cost, age::double precision], 2, 1, 1e-6, 1), 1) FROM patients"
attack "a nondeterministic COLLATE on private text" "SELECT dp_count(1, 1e-6) FROM patients WHERE zip COLLATE scratch.ci = 'z_rare'"
alike "HAVING that divides by zero for the patient's group only" "SELECT count(*) FROM (SELECT diagnosis, dp_count(1, 1e-12) FROM patients GROUP BY diagnosis HAVING 1 / (CASE WHEN diagnosis = 'rare_x' THEN 0 ELSE 1 END) = 1) q"
alike "an outer WHERE that divides by zero for the patient's group only" "SELECT count(*) FROM (SELECT diagnosis, dp_count(1, 1e-12) AS n FROM patients GROUP BY diagnosis) q WHERE 1 / (CASE WHEN diagnosis = 'rare_x' THEN 0 ELSE 1 END) = 1"


# Code that runs beside the private rows although the query as written does not call it: a
# row-security policy on a table of the analyst's own (a nested loop evaluates it once per private
# row), a domain's CHECK reached by a cast, a security-barrier view, an operator of the analyst's,
# an index on the analyst's table that hands the private value to the policy.  Nothing may run.
NL="SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;"
attack "a policy on my temporary table counts rows through a sequence" "CREATE TEMP SEQUENCE s; CREATE TEMP TABLE mine(k int); INSERT INTO mine SELECT generate_series(1, 100); ALTER TABLE mine ENABLE ROW LEVEL SECURITY; ALTER TABLE mine FORCE ROW LEVEL SECURITY; CREATE POLICY p ON mine USING (nextval('s') > 0); $NL SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN mine m ON m.k = v.age WHERE v.uid = 42"
attack "a policy on my temporary table prints through my function" "CREATE FUNCTION pg_temp.ping() RETURNS boolean LANGUAGE plpgsql AS \$\$ BEGIN RAISE NOTICE 'ping'; RETURN true; END \$\$; CREATE TEMP TABLE one_row(k int); INSERT INTO one_row VALUES (1); ALTER TABLE one_row ENABLE ROW LEVEL SECURITY; ALTER TABLE one_row FORCE ROW LEVEL SECURITY; CREATE POLICY p ON one_row USING (pg_temp.ping()); $NL SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN one_row o ON o.k <= v.age WHERE v.cost = 123456"
attack "a policy sees the private value through an index on my table" "CREATE FUNCTION pg_temp.see(x int) RETURNS boolean LANGUAGE plpgsql AS \$\$ BEGIN IF x = 61 THEN RAISE NOTICE 'seen %', x; END IF; RETURN true; END \$\$; CREATE TEMP TABLE ix(k int); INSERT INTO ix SELECT generate_series(1, 100); CREATE INDEX ON ix(k); ANALYZE ix; ALTER TABLE ix ENABLE ROW LEVEL SECURITY; ALTER TABLE ix FORCE ROW LEVEL SECURITY; CREATE POLICY p ON ix USING (pg_temp.see(k)); $NL SET enable_seqscan = off; SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN ix ON ix.k = v.age WHERE v.cost = 123456"
attack "a policy that divides by zero, per joined private row" "CREATE TEMP TABLE d0(k int); INSERT INTO d0 VALUES (1); ALTER TABLE d0 ENABLE ROW LEVEL SECURITY; ALTER TABLE d0 FORCE ROW LEVEL SECURITY; CREATE POLICY p ON d0 USING (1 / (k - 1) = 0); $NL SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN d0 ON d0.k <= v.age WHERE v.cost = 123456"
attack "a policy with a sub-query on the private table" "CREATE TEMP TABLE sq(k int); INSERT INTO sq VALUES (1); ALTER TABLE sq ENABLE ROW LEVEL SECURITY; ALTER TABLE sq FORCE ROW LEVEL SECURITY; CREATE POLICY p ON sq USING (EXISTS (SELECT 1 FROM patients WHERE cost = 123456)); SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN sq ON sq.k <= v.age"
attack "a policy in a LATERAL subquery's table" "CREATE TEMP SEQUENCE s; CREATE TEMP TABLE lt(k int); INSERT INTO lt VALUES (1); ALTER TABLE lt ENABLE ROW LEVEL SECURITY; ALTER TABLE lt FORCE ROW LEVEL SECURITY; CREATE POLICY p ON lt USING (nextval('s') > 0); SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v, LATERAL (SELECT k FROM lt WHERE lt.k <= v.age) l WHERE v.cost = 123456"
attack "a domain CHECK reached by a cast of the private value" "CREATE DOMAIN pg_temp.loud AS double precision CHECK (VALUE <> 123456); SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients WHERE cost::pg_temp.loud > 0"
attack "my security-barrier view with my function, joined per private row" "CREATE FUNCTION pg_temp.ping() RETURNS boolean LANGUAGE plpgsql AS \$\$ BEGIN RAISE NOTICE 'ping'; RETURN true; END \$\$; CREATE TEMP VIEW sb WITH (security_barrier) AS SELECT 1 AS k WHERE pg_temp.ping(); $NL SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN sb ON sb.k <= v.age WHERE v.cost = 123456"
attack "an operator of my own on the private value" "CREATE FUNCTION pg_temp.eq(a double precision, b double precision) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS \$\$ BEGIN RAISE NOTICE 'cmp %', a; RETURN a = b; END \$\$; CREATE OPERATOR pg_temp.=== (FUNCTION = pg_temp.eq, LEFTARG = double precision, RIGHTARG = double precision, RESTRICT = eqsel); SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients WHERE cost OPERATOR(pg_temp.===) 123456"
attack "my function as a join condition's cast" "CREATE FUNCTION pg_temp.f(x text) RETURNS int LANGUAGE plpgsql IMMUTABLE AS \$\$ BEGIN RAISE NOTICE 'v %', x; RETURN 1; END \$\$; CREATE TEMP TABLE t2(k int); INSERT INTO t2 VALUES (1); SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients v JOIN t2 ON t2.k = pg_temp.f(v.zip)"
attack "a sub-query's value evaluated the first time a private row reaches it" "CREATE FUNCTION pg_temp.ping() RETURNS int LANGUAGE plpgsql AS \$\$ BEGIN RAISE NOTICE 'ping'; RETURN 1; END \$\$; SELECT dp_count(1e-9, 1e-12, 'laplace') FROM patients WHERE cost = 123456 AND age > (SELECT pg_temp.ping())"
attack "a LEAKPROOF comparison that overflows on the patient's huge circle" "SELECT dp_count(1, 1e-6) FROM shapes WHERE CASE WHEN uid = 42 THEN c < '<(0,0),1>'::circle ELSE false END"
attack "a LEAKPROOF comparison that overflows on the patient's long segment" "SELECT dp_count(1, 1e-6) FROM shapes WHERE CASE WHEN uid = 42 THEN l < '[(0,0),(1,1)]'::lseg ELSE false END"
attack "a group key computed by such a comparison" "SELECT c > '<(0,0),1>'::circle AS k, dp_count(1, 1e-6) FROM shapes GROUP BY 1"
# Deny by default, and no counters: what a restricted role may read at all (restrict_objects.c).
attack "a table nobody declared private or public" "SELECT cost FROM unlabelled WHERE uid = 42"
attack "pg_stat_statements' buffer counts of my DP queries" "SELECT coalesce(sum(shared_blks_hit + shared_blks_read), 0) FROM pg_stat_statements WHERE query LIKE '%patients%'"
attack "pg_stat_statements' function" "SELECT count(*) FROM pg_stat_statements(true)"
attack "the row estimates in pg_class" "SELECT reltuples FROM pg_class WHERE relname = 'patients'"
attack "the size of the private table" "SELECT pg_relation_size('patients')"
attack "COPY a table nobody declared" "COPY unlabelled TO STDOUT"
# The planner runs an operator's commutator's and negator's selectivity estimators, and so their
# functions, on the private column's statistics while it plans: operators of the analyst's are
# refused before planning, even over an allowed function (an attack review's reproductions).
SPY="CREATE FUNCTION pg_temp.spy(a double precision, b double precision) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS \$\$ BEGIN RAISE NOTICE 'spy % %', a, b; RETURN a > b; END \$\$;"
attack "an operator over float8lt whose commutator prints the statistics" "$SPY CREATE OPERATOR pg_temp.>>> (FUNCTION = pg_temp.spy, LEFTARG = double precision, RIGHTARG = double precision, RESTRICT = scalargtsel); CREATE OPERATOR pg_temp.<<< (FUNCTION = float8lt, LEFTARG = double precision, RIGHTARG = double precision, COMMUTATOR = OPERATOR(pg_temp.>>>), RESTRICT = scalarltsel); SELECT dp_count(1, 1e-6) > -1e9 FROM patients WHERE 5000 OPERATOR(pg_temp.<<<) cost"
attack "the same under plain EXPLAIN (charged nothing)" "$SPY CREATE OPERATOR pg_temp.>>> (FUNCTION = pg_temp.spy, LEFTARG = double precision, RIGHTARG = double precision, RESTRICT = scalargtsel); CREATE OPERATOR pg_temp.<<< (FUNCTION = float8lt, LEFTARG = double precision, RIGHTARG = double precision, COMMUTATOR = OPERATOR(pg_temp.>>>), RESTRICT = scalarltsel); EXPLAIN SELECT dp_count(1, 1e-6) FROM patients WHERE 5000 OPERATOR(pg_temp.<<<) cost"
attack "an operator over float8eq whose negator prints the statistics" "$SPY CREATE OPERATOR pg_temp.!== (FUNCTION = pg_temp.spy, LEFTARG = double precision, RIGHTARG = double precision, RESTRICT = scalargtsel); CREATE OPERATOR pg_temp.=== (FUNCTION = float8eq, LEFTARG = double precision, RIGHTARG = double precision, NEGATOR = OPERATOR(pg_temp.!==), RESTRICT = eqsel); SELECT dp_count(1, 1e-6) > -1e9 FROM patients WHERE NOT (cost OPERATOR(pg_temp.===) '5000')"
attack "currtid2: whether a page exists" "SELECT currtid2('patients', '(7,1)')"
attack "the database's size" "SELECT pg_database_size(current_database())"
for fn in "pg_stat_get_live_tuples(oid)" "pg_stat_get_blocks_hit(oid)" "pg_relation_size(regclass)"; do
  a=$(python3 tests/restricted/fastpath.py "${PGHOST:-localhost}" "${PGPORT:-5432}" curious curious with_42 "$fn" patients 2>&1)
  b=$(python3 tests/restricted/fastpath.py "${PGHOST:-localhost}" "${PGPORT:-5432}" curious curious without_42 "$fn" patients 2>&1)
  check "a fast-path call of $fn is refused alike" "error: ERROR 42501: restricted roles cannot call functions through the fast-path protocol|same" "$(cut -c1-90 <<< "$a")|$([ "$a" = "$b" ] && echo same)"
done
# A second attack review: statements a function runs inside a parallel worker are checked (only
# the worker's piece of the leader's plan is not); the order of released groups does not depend
# on groups the selection dropped (a hash table's layout would: keys chosen so that the dropped
# patient's group moves the others); the plan cache's generic/custom counts and pg_sequences.
attack "EXPLAIN ANALYZE through a parallel-safe function run in a worker" "CREATE FUNCTION pg_temp.peek() RETURNS text LANGUAGE plpgsql PARALLEL SAFE AS \$\$ DECLARE r text; out text := ''; BEGIN FOR r IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT dp_count(1e-9, 1e-12, ''laplace'') FROM patients WHERE cost = 123456' LOOP out := out || r; END LOOP; RETURN out; END \$\$; SET force_parallel_mode = on; SELECT pg_temp.peek()"
alike "the order of the released groups, with keys crafted to move if the patient's group exists" "SELECT string_agg(k::text, ',') FROM (SELECT CASE WHEN cost = 123456 THEN 1155 WHEN age = 20 THEN 1474 ELSE age END AS k, dp_count(1, 1e-6) AS c FROM patients GROUP BY 1) s"
attack "the plan cache's generic and custom plan counts" "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
attack "a sequence's last value through pg_sequences" "SELECT last_value FROM pg_sequences"
# A third attack review: counters evaluated where no query is planned (EXECUTE's parameters, a
# domain's CHECK, a column's DEFAULT), SQL functions of the analyst's inlined after the check,
# outputs and HAVING of the DP level that run in the aggregation's order, and public groups'
# order (keys from the analyst's table, one of which matches the patient).
attack "a counter as EXECUTE's parameter" "PREPARE q(bigint) AS SELECT \$1; EXECUTE q(pg_stat_get_live_tuples('public.patients'::regclass))"
attack "a counter in a domain's CHECK" "CREATE DOMAIN pg_temp.d AS int CHECK (pg_stat_get_live_tuples('public.patients'::regclass) > 1999); SELECT 1::pg_temp.d"
attack "a counter as a column's DEFAULT" "CREATE TEMP TABLE dflt (x int); INSERT INTO dflt VALUES (1); ALTER TABLE dflt ADD COLUMN y bigint DEFAULT pg_stat_get_tuples_inserted('public.patients'::regclass); SELECT y FROM dflt"
attack "a SQL function of mine, inlined, over pg_stats" "CREATE FUNCTION pg_temp.s() RETURNS SETOF text LANGUAGE sql STABLE AS \$\$ SELECT histogram_bounds::text FROM pg_catalog.pg_stats WHERE tablename = 'patients' AND attname = 'cost' \$\$; SELECT right(s, 30) FROM pg_temp.s() s"
attack "a SQL function of mine, inlined, over pg_class sizes" "CREATE FUNCTION pg_temp.t() RETURNS SETOF real LANGUAGE sql STABLE AS \$\$ SELECT reltuples FROM pg_catalog.pg_class WHERE relname = 'patients' \$\$; SELECT * FROM pg_temp.t()"
attack "a SQL function of mine, inlined, over a table nobody declared" "CREATE FUNCTION pg_temp.u() RETURNS SETOF double precision LANGUAGE sql STABLE AS \$\$ SELECT cost FROM public.unlabelled WHERE uid = 42 \$\$; SELECT * FROM pg_temp.u()"
alike "row_number() in an outer query numbers the sorted releases" "SELECT string_agg(k || '#' || n, ',') FROM (SELECT k, row_number() OVER () AS n FROM (SELECT CASE WHEN cost = 123456 THEN 1155 WHEN age = 20 THEN 1474 ELSE age END AS k, dp_count(1, 1e-6) AS c FROM patients GROUP BY 1) s) t"
attack "a window function at the DP level itself" "SELECT CASE WHEN cost = 123456 THEN 1155 WHEN age = 20 THEN 1474 ELSE age END AS k, row_number() OVER () FROM patients GROUP BY 1 HAVING dp_count(1, 1e-6) > -1e9"
attack "a notice per released group at the DP level" "CREATE FUNCTION pg_temp.say(x int) RETURNS int LANGUAGE plpgsql STABLE AS \$\$ BEGIN RAISE NOTICE '%', x; RETURN x; END \$\$; SELECT pg_temp.say(CASE WHEN cost = 123456 THEN 1155 WHEN age = 20 THEN 1474 ELSE age END), dp_count(1, 1e-6) FROM patients GROUP BY CASE WHEN cost = 123456 THEN 1155 WHEN age = 20 THEN 1474 ELSE age END"
alike "the order of public groups, keys of mine, one matching the patient" "CREATE TEMP TABLE k (k text); INSERT INTO k VALUES ('z_rare'); INSERT INTO k SELECT 'z' || g FROM generate_series(0, 9) g; INSERT INTO k SELECT 'q' || g FROM generate_series(0, 100) g; ANALYZE k; SELECT string_agg(k, ',') FROM (SELECT k.k, dp_count(1e-3, 1e-6) c FROM k LEFT JOIN patients p ON p.zip = k.k GROUP BY k.k) d WHERE c IS NOT NULL OR c IS NULL"
# A fourth attack review: LIKE ANY with a pattern array hiding an escape at the end; how often a
# prepared statement is planned (generic or custom, from the statistics) seen through a function
# folded at each planning.
attack "LIKE ANY with an array whose pattern ends in an escape" "SELECT dp_count(1e-9, 1e-12) FROM patients WHERE zip LIKE ANY ('{\"z_rar\\\\\"}')"
attack "ILIKE ALL with such an array, after a test on the patient" "SELECT dp_count(1e-9, 1e-12) FROM patients WHERE uid = 42 AND diagnosis ILIKE ALL ('{\"rare_\\\\\"}')"
PLANS="CREATE FUNCTION pg_temp.tick(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS \$\$ BEGIN PERFORM set_config('my.n', (coalesce(nullif(current_setting('my.n', true), ''), '0')::int + 1)::text, false); RETURN x; END \$\$; SET seq_page_cost = 1; SET cpu_tuple_cost = 0; SET my.n = 0; PREPARE q(float8) AS SELECT ok AND pg_temp.tick(1) = 1 FROM (SELECT dp_count(1e-9, 1e-12, 'laplace') > -1e30 AS ok FROM patients WHERE cost > \$1) s; $(for _ in 1 2 3 4 5 6 7 8; do printf 'EXECUTE q(1499.5); '; done) SELECT 'plannings ' || current_setting('my.n')"
a=$(analyst -d with_42 -c "$PLANS" 2>&1 | grep plannings); b=$(analyst -d without_42 -c "$PLANS" 2>&1 | grep plannings)
check "how often a prepared statement over private rows is planned (generic or custom: from the statistics) is the same with and without the patient ($a)" "$a" "$b"
# A fifth attack review: the plan's shape followed the private statistics, and an expression over
# public data that fails ran or not depending on the join order the estimates chose; the planner
# now plans private relations blind in a restricted session (restrict_stats.c).
for t in 50000 100000 130000; do
  alike "whether a failing public expression runs beside a DP subquery over cost > $t" "SELECT count(*) FROM (SELECT zip, dp_count(1e-9, 1e-12) c FROM patients WHERE cost > $t GROUP BY zip) d CROSS JOIN (SELECT * FROM generate_series(1, 20) g WHERE 10 / (g - 15) > -100 OFFSET 0) v"
  # an ungrouped DP subquery in a larger query is refused outright (its one row would carry the
  # private rows' presence into the outer query's shape), so nothing of mine runs beside it
  attack "... and beside an ungrouped one: refused" "SELECT count(*) FROM (SELECT dp_count(1e-9, 1e-12) c FROM patients WHERE cost > $t) d CROSS JOIN (SELECT * FROM generate_series(1, 20) g WHERE 10 / (g - 15) > -100 OFFSET 0) v"
done
# A sixth: the same through a private view, whose base table has no label of its own; a
# function of mine counts how often the planner's join order lets it run.
for rows in 1 3 8 20 100; do
  JS="CREATE FUNCTION pg_temp.tick(x int) RETURNS bool LANGUAGE plpgsql AS \$\$ BEGIN PERFORM set_config('my.n', (coalesce(nullif(current_setting('my.n', true), ''), '0')::int + 1)::text, false); RETURN true; END \$\$; CREATE TEMP TABLE t AS SELECT g a FROM generate_series(1, $rows) g; ANALYZE t; SET my.n = 0; SELECT count(*) FROM (SELECT zip, dp_count(1e-9, 1e-12) c FROM vp WHERE cost > 100000 GROUP BY zip) d CROSS JOIN t WHERE pg_temp.tick(t.a); SELECT current_setting('my.n')"
  alike "how often my function runs beside a DP subquery over a private view ($rows rows of mine)" "$JS"
done
# ... and through a column's average width, which one long value moves: the DP query's output
# padded to a boundary, the width of my table scanned until the join order tips (the rows are
# discarded by PERFORM: wrapped in count(*), the output's width would no longer count).
for w in 704 736 776; do
  WS="CREATE FUNCTION pg_temp.tick(x int) RETURNS bool LANGUAGE plpgsql AS \$\$ BEGIN PERFORM set_config('my.n', (coalesce(nullif(current_setting('my.n', true), ''), '0')::int + 1)::text, false); RETURN true; END \$\$; SET work_mem = '64kB'; CREATE TEMP TABLE t AS SELECT g a, repeat('y', $w) s FROM generate_series(1, 3000) g; ANALYZE t; SET my.n = 0; DO \$\$ BEGIN PERFORM d.note, d.pad, d.b1, d.b2, d.b3, d.b4, d.b5, d.b6, d.b7, t.s FROM (SELECT note, 'x'::char(166) pad, true b1, true b2, true b3, true b4, true b5, true b6, true b7, dp_count(1e-9, 1e-12) c FROM notes GROUP BY note) d CROSS JOIN t WHERE pg_temp.tick(t.a); END \$\$; SELECT current_setting('my.n')"
  alike "how often my function runs, with the DP output padded to a width boundary ($w-byte rows of mine)" "$WS"
done
# A seventh: the freeze horizons, which a plain VACUUM moves when a row was written since the
# last freeze.
attack "pg_class.relfrozenxid of the private table" "SELECT age(relfrozenxid) FROM pg_class WHERE relname = 'patients'"
attack "pg_database.datfrozenxid" "SELECT age(datfrozenxid) FROM pg_database WHERE datname = current_database()"
attack "a data-modifying WITH beside the DP query" "CREATE TEMP TABLE store(c double precision); WITH d AS (SELECT dp_count(1.0, 1e-6) c FROM patients), ins AS (INSERT INTO store SELECT c FROM d RETURNING c) SELECT count(*) FROM ins"
}

attacks
# The same, every plan parallel where it can be (a restricted query must be checked whole in the
# leader, and nothing about it may differ).
PGOPTIONS="-c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0 -c parallel_leader_participation=off" attacks

# A DP query that singles the patient out: its group must not be released (tiny delta: the chance
# that a group of one unit passes selection is about 1e-12 per run).
rel=0
for _ in $(seq 1 20); do
  out=$(analyst -d with_42 -c "SELECT diagnosis, dp_count(1, 1e-12) FROM patients WHERE cost = 123456 GROUP BY diagnosis" 2>&1)
  [ -n "$out" ] && rel=$((rel + 1))
done
check "a DP count grouped over the patient's rows never releases the patient's group (20 runs)" 0 "$rel"
# ... and the whole-table DP answers the analyst may have are bounded per patient and charged.
out=$(analyst -d with_42 -c "SELECT round(dp_count(1e5, 0, 'laplace')) FROM patients")
check "a DP count over the table counts patients (epsilon 1e5: 2000 with the patient)" 2000 "$out"
charged=$(psql -X -q -At -d with_42 -c "SELECT count(*) > 0 FROM dp_ledger WHERE role = 'curious'")
check "the analyst's releases are charged to the analyst" t "$charged"

# Parallel plans: a restricted query planned in parallel gives the same answers as the serial
# plan (at epsilon 1e9, the exact per-unit values) and is charged once.  Each unit is in one group.
psql -X -q -d with_42 >/dev/null <<'SQL'
CREATE TABLE visits (uid integer, region text, amount double precision);
INSERT INTO visits SELECT g % 20000, 'r' || (g % 20000) % 7, g % 100 FROM generate_series(1, 300000) g;
ANALYZE visits;
SELECT dp_protect('visits', 'uid');
GRANT SELECT ON visits TO curious;
SELECT dp_set_budget('curious', 1e15, 0.5);
SQL
PAR="-c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0"
plan=$(PGOPTIONS="$PAR" psql -X -q -At -d with_42 -c "EXPLAIN (COSTS OFF) SELECT region, dp_sum(amount, 1e9, 1e-7, 0, 100) FROM visits GROUP BY region")
check "the forced settings give a parallel plan" 1 "$(grep -c 'Gather' <<< "$plan")"
for q in "SELECT round(dp_count(1e9, 1e-7)) FROM visits WHERE region = 'r1'" \
         "SELECT round(dp_sum(amount, 1e9, 1e-7, 0, 100)), round(dp_avg(amount, 1e9, 1e-7, 0, 100)::numeric, 3) FROM visits" \
         "SELECT region, round(dp_count(1e9, 1e-7)), round(dp_sum(amount, 1e9, 1e-7, 0, 100)) FROM visits GROUP BY region ORDER BY 1"; do
  serial=$(PGOPTIONS="-c max_parallel_workers_per_gather=0" analyst -d with_42 -c "$q" 2>&1 | tr '\n' ' ')
  r0=$(releases)
  parallel=$(PGOPTIONS="$PAR" analyst -d with_42 -c "$q" 2>&1 | tr '\n' ' ')
  r1=$(releases)
  check "parallel and serial answers are the same: ${q:0:60}" "$serial" "$parallel"
  want=$(grep -o 'dp_[a-z]*(' <<< "$q" | wc -l); [[ $q == *GROUP* ]] && want=$((want + 1))
  check "the parallel query is charged once (one release per aggregate, one for the selection): ${q:0:50}" "$want" "$((r1 - r0))"
done

# A non-superuser restores a dump of a private table (restore with --no-owner): the security label
# needs a superuser and is lost, the data and the GRANTs are restored.  The restricted analyst
# must still be unable to read the rows: nothing undeclared is readable.
psql -X -q -d with_42 >/dev/null 2>&1 <<'SQL'
CREATE ROLE loader LOGIN PASSWORD 'loader';
CREATE TABLE loaded AS SELECT * FROM patients;
ALTER TABLE loaded OWNER TO loader;
SELECT dp_protect('loaded', 'uid');
GRANT SELECT ON loaded TO curious;
SQL
dump=$(mktemp); pg_dump -d with_42 -t loaded -Fc -f "$dump"
createdb restored
psql -X -q -d restored -c "CREATE EXTENSION dpagg" -c "GRANT CREATE ON SCHEMA public TO loader" >/dev/null
env PGPASSWORD=loader pg_restore -U loader --no-owner -d restored "$dump" >/dev/null 2>&1 || true
rm -f "$dump"
check "a non-superuser's restore brings back the rows and the grant, not the label" "2000|1|0" \
  "$(psql -X -q -At -d restored -c "SELECT (SELECT count(*) FROM loaded) || '|' || has_table_privilege('curious', 'loaded', 'SELECT')::int || '|' || (SELECT count(*) FROM dp_protected)")"
out=$(analyst -d restored -c "SELECT count(*) FROM loaded" 2>&1 | head -1)
check "the restricted analyst cannot read the restored table" "ERROR:  restricted roles cannot use \"public.loaded\"" "$out"

# Fail closed: the server restarted without dpagg in shared_preload_libraries.  Restricted roles
# (and members of one) load dpagg at session start (dp_restrict set session_preload_libraries for
# them), which then refuses everything they run; every use of dpagg is an ERROR with a hint, never
# FATAL; CREATE EXTENSION is refused.  A restricted role cannot switch the session setting off.
psql -X -q -d with_42 -c "ALTER ROLE curious IN DATABASE with_42 SET session_preload_libraries = ''" \
  -c "CREATE ROLE curious_member LOGIN PASSWORD 'm' IN ROLE curious" \
  -c "CREATE ROLE curious_altered LOGIN PASSWORD 'm'" -c "ALTER GROUP curious ADD USER curious_altered" >/dev/null
# restart_with <libraries>: the cluster restarted with those preloaded (checked, not assumed)
restart_with() {
  local i
  if [ -n "$1" ]; then psql -X -q -c "ALTER SYSTEM SET shared_preload_libraries = $1" >/dev/null
  else psql -X -q -c "ALTER SYSTEM RESET shared_preload_libraries" >/dev/null; fi
  for i in 1 2 3; do
    cluster_ctl stop -m fast >/dev/null 2>&1; cluster_ctl start >/dev/null 2>&1; wait_up
    [ "$(psql -X -At -c 'SHOW shared_preload_libraries')" = "$2" ] && return 0
    sleep 1
  done
  echo "the cluster did not restart with shared_preload_libraries = $2" >&2
}
restart_with "'pg_stat_statements'" "pg_stat_statements"
out=$(analyst -d with_42 -c "SELECT cost FROM patients WHERE uid = 42" 2>&1 | head -1)
check "without the preload, a restricted role reads nothing (also with a setting of its own for the database)" "ERROR:  dpagg is not in shared_preload_libraries" "$out"
out=$(env PGPASSWORD=m psql -X -q -At -U curious_member -d with_42 -c "SELECT count(*) FROM patients" 2>&1 | head -1)
check "without the preload, a member of a restricted role reads nothing" "ERROR:  dpagg is not in shared_preload_libraries" "$out"
out=$(env PGPASSWORD=m psql -X -q -At -U curious_altered -d with_42 -c "SELECT count(*) FROM patients" 2>&1 | head -1)
check "without the preload, a member added by ALTER GROUP reads nothing" "ERROR:  dpagg is not in shared_preload_libraries" "$out"
out=$(env PGPASSWORD=curious PGOPTIONS="-c session_preload_libraries=" psql -X -q -At -U curious -d with_42 -c "SELECT count(*) FROM patients" 2>&1 | head -1)
check "a restricted role cannot switch its session preload off" "1" "$(grep -c 'permission denied\|not in shared_preload' <<< "$out")"
out=$(psql -X -q -At -d with_42 -c "SELECT dp_count(1, 1e-6) FROM unlabelled" -c "SELECT dp_count(1, 1e-6) FROM unlabelled" -c "SELECT 'alive'" 2>&1 | grep -v '^DETAIL:\|^HINT:' | sed 's/^\(ERROR: *[^:]*\).*/\1/' | tr '\n' '|')
check "without the preload, dpagg's functions raise an ERROR (not FATAL) and the session goes on" \
  "ERROR:  dpagg cannot release values|ERROR:  dpagg is not in shared_preload_libraries|alive|" "$out"
createdb late
out=$(psql -X -q -At -d late -c "CREATE EXTENSION dpagg" 2>&1 | head -1)
check "without the preload, CREATE EXTENSION dpagg is refused" "ERROR:  dpagg is not in shared_preload_libraries" "$out"
restart_with "" "dpagg,pg_stat_statements"
out=$(analyst -d with_42 -c "SELECT dp_count(1, 1e-6) > -1e9 FROM patients" 2>&1)
check "with the preload back, the restricted role gets DP answers again" "t" "$out"

echo "restricted: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
