#!/usr/bin/env bash
# Upgrades (docs/versions.md): every release kept in versions/ older than dpagg.control's
# default_version is installed in a database of its own, given what a DBA's database holds (a
# budget and its spending, a private table, a restricted role, a view over dp_sum), and taken to
# the current version with ALTER EXTENSION dpagg UPDATE.  Before the update the current library
# refuses every release there (55000, with the hint to update) and charges nothing; after it, the
# extension's objects are identical to a fresh install's (every member object, function
# signatures and defaults, volatility, strictness, parallel safety, privileges, aggregates'
# support functions, types, views, comments), and the budget, the ledger, the protection, the
# restriction and the view are as they were, the view releasing again.
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "upgrade: N passed, N failed".
# Unless DPAGG_UPGRADE_INSIDE is set it runs itself in pg_virtualenv.  Needs dpagg installed.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${DPAGG_UPGRADE_INSIDE:-}" ]; then
  export DPAGG_UPGRADE_INSIDE=1
  exec timeout 600 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh
current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" dpagg.control)

# Every member object of the extension, one line each, without OIDs, sorted: what it is, and for
# functions and aggregates everything CREATE FUNCTION / CREATE AGGREGATE says.
describe="
WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'dpagg'),
members AS (SELECT d.classid, d.objid, d.objsubid FROM pg_depend d, ext
             WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e')
SELECT line FROM (
  SELECT 'member ' || pg_describe_object(classid, objid, objsubid) AS line FROM members
  UNION ALL
  SELECT concat_ws(' | ', 'function ' || p.oid::regprocedure::text, p.prokind,
                   pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.provolatile,
                   p.proisstrict, p.proparallel, p.prosecdef, p.proleakproof, p.procost, p.prorows,
                   coalesce(p.proacl::text, '-'), p.prosrc, coalesce(p.probin, '-'),
                   coalesce(obj_description(p.oid, 'pg_proc'), '-'),
                   coalesce((SELECT concat_ws(',', a.aggkind, a.aggnumdirectargs, a.aggtransfn::regprocedure,
                                              a.aggfinalfn::regprocedure, a.aggcombinefn::regprocedure,
                                              a.aggserialfn::regprocedure, a.aggdeserialfn::regprocedure,
                                              a.aggtranstype::regtype, a.aggtransspace, a.aggfinalextra,
                                              a.aggfinalmodify, a.agginitval, a.aggmtransfn::regprocedure)
                             FROM pg_aggregate a WHERE a.aggfnoid = p.oid), '-'))
    FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  UNION ALL
  SELECT concat_ws(' | ', 'type ' || t.typname, t.typtype, t.typlen, t.typalign, t.typstorage,
                   t.typinput::regproc, t.typoutput::regproc, t.typreceive::regproc, t.typsend::regproc,
                   coalesce(t.typacl::text, '-'), coalesce(obj_description(t.oid, 'pg_type'), '-'),
                   coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
                             FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0), '-'))
    FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
  UNION ALL
  SELECT concat_ws(' | ', 'relation ' || c.relname, c.relkind, coalesce(c.relacl::text, '-'),
                   coalesce(pg_get_viewdef(c.oid), '-'), coalesce(obj_description(c.oid, 'pg_class'), '-'))
    FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
) lines ORDER BY line"

createdb fresh
fresh=$("${PSQL[@]}" -d fresh -c "CREATE EXTENSION dpagg" -c "$describe")
check "a fresh install is version $current" "$current" "$("${PSQL[@]}" -d fresh -c "SELECT extversion FROM pg_extension WHERE extname = 'dpagg'")"
check "a fresh install describes itself (members, functions, types, relations)" yes \
  "$([ "$(printf '%s\n' "$fresh" | grep -c '^member ')" -gt 300 ] && echo yes || echo "only $(printf '%s\n' "$fresh" | grep -c '^member ') members")"

"${PSQL[@]}" -d postgres -c "CREATE ROLE analyst LOGIN PASSWORD 'a'" \
  -c "CREATE ROLE restricted_one LOGIN PASSWORD 'r'" >/dev/null
# their connections (pg_virtualenv's host connections ask for a password)
as_analyst() { env PGPASSWORD=a psql -X -q -At -U analyst "$@"; }
as_restricted() { env PGPASSWORD=r psql -X -q -At -U restricted_one "$@"; }
kept=$(ls versions | sed -n 's/^dpagg--\([0-9.]*\)\.sql$/\1/p' | sort -t. -k1,1n -k2,2n -k3,3n)
for v in $kept; do
  [ "$v" = "$current" ] && continue
  db="up_${v//./_}"
  createdb "$db"
  D=("${PSQL[@]}" -d "$db")
  "${D[@]}" -c "CREATE EXTENSION dpagg VERSION '$v'" >/dev/null
  check "$v: installed as $v" "$v" "$("${D[@]}" -c "SELECT extversion FROM pg_extension WHERE extname = 'dpagg'")"
  if [ "$v" = 0.1.0 ]; then  # CHANGELOG.md tells DBAs how to recognise the kept 0.1.0 by this count
    said=$(grep -o 'the kept script makes [0-9]* member objects' CHANGELOG.md | grep -o '[0-9][0-9]*')
    check "0.1.0: as many member objects as CHANGELOG.md says (${said:-none said})" "${said:-?}" "$("${D[@]}" -c "SELECT count(*) FROM pg_depend
      WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
        AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dpagg')")"
  fi
  "${D[@]}" >/dev/null <<SQL
SELECT dp_set_budget('analyst', 1e7, 1e-2);
CREATE TABLE pay (uid integer, dept text, amount double precision);
INSERT INTO pay SELECT g % 50, 'd' || g % 3, g % 7 FROM generate_series(1, 500) g;
SELECT dp_protect('pay', 'uid', 2);
SELECT dp_restrict('restricted_one');
GRANT SELECT ON pay TO analyst, restricted_one;
GRANT USAGE ON SCHEMA public TO analyst, restricted_one;
CREATE VIEW dept_totals AS SELECT dept, dp_sum(amount, 1e6, 1e-6, 0, 10, 'laplace') AS total FROM pay GROUP BY dept;
GRANT SELECT ON dept_totals TO analyst;
SQL
  state="SELECT (SELECT string_agg(relation::text || ' ' || privacy_unit || ' ' || max_groups_contributed, ',') FROM dp_protected)
               || ' | ' || dp_restricted('restricted_one'::regrole) || ' | ' || dp_restricted('analyst'::regrole)
               || ' | ' || (SELECT epsilon_total || ' ' || delta_total FROM dp_budgets WHERE role = 'analyst')"
  spent="SELECT releases || ' ' || epsilon_spent FROM dp_budgets WHERE role = 'analyst'"
  ledger="SELECT count(*) FROM dp_ledger"
  before_state=$("${D[@]}" -c "$state")
  before_spent=$("${D[@]}" -c "$spent")
  before_ledger=$("${D[@]}" -c "$ledger")
  # the current library over the older SQL objects: refused, nothing charged
  out=$(as_analyst -d "$db" -c '\set VERBOSITY sqlstate' -c "SELECT count(*) FROM dept_totals" 2>&1)
  check "$v: before the update a release is refused with 55000" "ERROR:  55000" "$out"
  hint=$(as_analyst -d "$db" -c "SELECT count(*) FROM dept_totals" 2>&1 | grep -c "HINT:  Run ALTER EXTENSION dpagg UPDATE")
  check "$v: ... with the hint to update" 1 "$hint"
  check "$v: ... and charges nothing" "$before_spent" "$("${D[@]}" -c "$spent")"
  check "$v: ... and writes nothing to the ledger" "$before_ledger" "$("${D[@]}" -c "$ledger")"
  "${D[@]}" -c "ALTER EXTENSION dpagg UPDATE" >/dev/null
  check "$v: updated to $current" "$current" "$("${D[@]}" -c "SELECT extversion FROM pg_extension WHERE extname = 'dpagg'")"
  upgraded=$("${D[@]}" -c "$describe")
  if [ "$upgraded" == "$fresh" ]; then check "$v: the updated objects are identical to a fresh install's" same same
  else
    check "$v: the updated objects are identical to a fresh install's" same \
      "different: $(diff <(printf '%s\n' "$fresh") <(printf '%s\n' "$upgraded") | head -5 | tr '\n' ' ')"
  fi
  check "$v: dp_version() gives the library's and the objects' versions" "($current,$current)" "$("${D[@]}" -c "SELECT dp_version()")"
  check "$v: protection, restriction and budget survive the update" "$before_state" "$("${D[@]}" -c "$state")"
  check "$v: the spending and the ledger survive the update" "$before_spent $before_ledger" "$("${D[@]}" -c "$spent") $("${D[@]}" -c "$ledger")"
  check "$v: the view over dp_sum releases again (3 groups)" 3 \
    "$(as_analyst -d "$db" -c "SELECT count(*) FROM dept_totals" 2>&1)"
  check "$v: ... and is charged once" 1 \
    "$(( $("${D[@]}" -c "SELECT releases FROM dp_budgets WHERE role = 'analyst'") - ${before_spent%% *} ))"
  check "$v: the restricted role is still refused raw rows (42501)" "ERROR:  42501" \
    "$(as_restricted -d "$db" -c '\set VERBOSITY sqlstate' -c "SELECT amount FROM pay LIMIT 1" 2>&1)"
done
echo "upgrade: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
