#!/usr/bin/env bash
# Attacks that need more than pg_regress can do, against a real throwaway cluster, as an
# unprivileged analyst with a budget (docs/guides/privacy-semantics.md, "The privacy parameters", and its attack reviews):
#   - parallel workers release under the parameters the leader charged, even when a setting
#     changes between Bind and Execute (extended protocol; parallel_gap.py);
#   - refusals (no budget, over the per-release cap, an exhausted budget, a calibration that
#     fails) come before any row is read: the same answer whether a group exists or not, and
#     nothing charged;
#   - the charge comes before the scan: a cursor refused at FETCH has read no row, a query
#     cancelled mid-scan was charged, an execution without groups is charged;
#   - the ledger records a cursor's own query and shows analysts times to the second and no
#     global sequence.
# Prints "ok N - ..." / "not ok N - ..." and ends with "security: N passed, N failed".
# Needs dpagg installed and python3.  Runs itself in pg_virtualenv (loopback only).
set -uo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")"
if [ -z "${DPAGG_SECURITY_INSIDE:-}" ]; then
  export DPAGG_SECURITY_INSIDE=1
  exec timeout 600 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg -o max_worker_processes=8 \
       -o max_parallel_workers=8 -o listen_addresses=localhost "$self" "$@"
fi

export ANALYST_PASSWORD="sec-$RANDOM-$RANDOM"
PSQL=(timeout 60 psql -X -q -At -v ON_ERROR_STOP=1)
as() { local r=$1; shift; timeout 60 env PGUSER="$r" PGPASSWORD="$ANALYST_PASSWORD" psql -X -q -At "$@" 2>&1; }
. ../cluster_lib.sh

"${PSQL[@]}" >/dev/null <<SQL || { echo "not ok 1 - setup"; echo "security: 0 passed, 1 failed"; exit 1; }
CREATE EXTENSION dpagg;
CREATE ROLE analyst LOGIN PASSWORD '$ANALYST_PASSWORD';
CREATE ROLE nobudget LOGIN PASSWORD '$ANALYST_PASSWORD';
CREATE ROLE capped LOGIN PASSWORD '$ANALYST_PASSWORD';
CREATE ROLE spent LOGIN PASSWORD '$ANALYST_PASSWORD';
SELECT dp_set_budget('analyst', 1e9, 0.5);
SELECT dp_set_budget('capped', 10, 1e-6, max_release_epsilon => 0.5);
SELECT dp_set_budget('spent', 1, 0);
CREATE TABLE atk AS SELECT g % 10 AS g, g::float8 AS x FROM generate_series(0, 99999) g;
ANALYZE atk;
GRANT SELECT ON atk TO analyst, nobudget, capped, spent;
SQL

# --- parallel workers and the leader read the same parameters -------------------------------
if command -v python3 >/dev/null; then
  out=$(CHECK_BASE=$n timeout 120 python3 ./parallel_gap.py 2>&1)
  echo "$out"
  passed=$((passed + $(grep -c '^ok ' <<<"$out"))); failed=$((failed + $(grep -c '^not ok ' <<<"$out")))
  n=$((n + $(grep -cE '^(not )?ok ' <<<"$out")))
  [ -z "$out" ] && { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - parallel_gap.py printed nothing"; }
else
  n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - python3 is missing (scripts/install-deps.sh installs it)"
fi

# --- refusals before any row: the same whether the group exists (x = 5) or not (x = -5) -------
as spent -c "SELECT dp_count(1.0, 0, 'laplace') FROM atk" >/dev/null   # spends the whole budget
refusal() {  # refusal ROLE AGGREGATE: the error for a group that exists and for one that does not
  local role=$1 agg=$2 a b
  a=$(as "$role" -v VERBOSITY=terse -c "SELECT 1, $agg FROM atk WHERE x = 5 GROUP BY 1")
  b=$(as "$role" -v VERBOSITY=terse -c "SELECT 1, $agg FROM atk WHERE x = -5 GROUP BY 1")
  if [ "$a" == "$b" ] && [ -n "$a" ]; then echo same; else echo "differ: [$a] vs [$b]"; fi
}
charges() { "${PSQL[@]}" -c "SELECT count(*) FROM dp_ledger WHERE role = '$1'"; }
c0=$(charges nobudget); c1=$(charges capped); c2=$(charges spent)
check "no budget: refused alike with and without the group" same "$(refusal nobudget "dp_count(1.0, 0, 'laplace')")"
check "over the per-release cap: refused alike" same "$(refusal capped "dp_count(1.0, 0, 'laplace')")"
check "budget exhausted: refused alike" same "$(refusal spent "dp_count(1.0, 0, 'laplace')")"
check "a calibration that fails: refused alike" same "$(refusal analyst "dp_sum(x, 1e-9, 0, 1e150, 'laplace')")"
check "a vector release without a budget: refused alike" same "$(refusal nobudget "dp_sum_vector(ARRAY[x], 2, 1.0, 1e-6, 1.0)")"
check "nothing charged for the refusals" "$c0 $c1 $c2" "$(charges nobudget) $(charges capped) $(charges spent)"

# --- the charge comes before the scan ---------------------------------------------------------
# A cursor checked when declared, then the budget runs out, then FETCH: refused before any row is
# read, whether the group exists or not (the table's pending scan counters stay at 0).
cursor_probe() {  # cursor_probe WHERE-clause: "<error>|<tuples returned from atk in this transaction>"
  as spent2 -v VERBOSITY=terse <<SQL | tr '\n' '|'
BEGIN;
DECLARE c CURSOR FOR SELECT 1, dp_count(0.5, 0, 'laplace') FROM atk WHERE $1 GROUP BY 1;
SELECT dp_count(0.6, 0, 'laplace') >= 0 FROM (VALUES (1)) v(x);
SAVEPOINT s;
FETCH ALL FROM c;
ROLLBACK TO s;
SELECT pg_stat_get_xact_tuples_returned('atk'::regclass);
COMMIT;
SQL
}
"${PSQL[@]}" -c "CREATE ROLE spent2 LOGIN PASSWORD '$ANALYST_PASSWORD'; GRANT SELECT ON atk TO spent2" >/dev/null
"${PSQL[@]}" -c "SELECT dp_set_budget('spent2', 1.0, 0)" >/dev/null
yes_=$(cursor_probe "x = 5")
"${PSQL[@]}" -c "SELECT dp_set_budget('spent2', 1.6, 0)" >/dev/null   # 0.6 spent: 1.0 left, then 0.4 after the next 0.6
no_=$(cursor_probe "x = -5")
check "a cursor whose budget ran out after DECLARE is refused at FETCH before scanning (group exists)" \
  "yes" "$(grep -q 'privacy budget of role.*|0|$' <<<"$yes_" && echo yes || echo "$yes_")"
check "... the same for a group that does not exist" "yes" "$(grep -q 'privacy budget of role.*|0|$' <<<"$no_" && echo yes || echo "$no_")"
# statement_timeout in the middle of the scan: the release was charged before the scan began.
r0=$(charges analyst)
out=$(as analyst -c "SET statement_timeout = '300ms'" \
  -c "SELECT dp_count(1.0, 0, 'laplace') FROM atk, generate_series(1, 1000) WHERE pg_sleep(0.001) IS NOT NULL")
check "a query cancelled by statement_timeout during its scan was charged" "cancelled, $((r0 + 1))" \
  "$(grep -q 'canceling statement due to statement timeout' <<<"$out" && echo cancelled || echo "not cancelled: $out"), $(charges analyst)"
# An execution that produces no group is charged like one that does.
r0=$(charges analyst)
as analyst -c "SELECT 1, dp_count(1.0, 0, 'laplace') FROM atk WHERE x = -5 GROUP BY 1" >/dev/null
check "a GROUP BY with no group is charged" "$((r0 + 1))" "$(charges analyst)"
# The ledger records the cursor's query, not the FETCH that ran it.
as analyst -c "BEGIN" -c "DECLARE cq CURSOR FOR SELECT dp_count(1.0, 0, 'laplace') AS probe_text FROM atk" -c "FETCH ALL FROM cq" -c "COMMIT" >/dev/null
check "a cursor's release is recorded with the cursor's query" "t" \
  "$(as analyst -c "SELECT query LIKE '%probe_text%' FROM dp_ledger ORDER BY seq DESC LIMIT 1")"
check "analysts see release times to the second" "0" \
  "$(as analyst -c "SELECT max(extract(microseconds FROM released_at)::bigint % 1000000) FROM dp_ledger")"

# --- the wrapper of docs/guides/budgets.md pins the debug settings: the caller's debug_print_plan shows only its
# own plan, not the wrapper's (whose row estimate for the argument comes from exact statistics)
"${PSQL[@]}" >/dev/null <<'SQL'
CREATE INDEX ON atk (g);
CREATE FUNCTION wrap_plain(v int) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp
  AS $$ BEGIN RETURN public.dp_count(0.1::float8, 0::float8, 'laplace'::text) FROM public.atk WHERE g = v; END $$;
CREATE FUNCTION wrap_pinned(v int) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp SET debug_print_plan = off SET client_min_messages = warning
  AS $$ BEGIN RETURN public.dp_count(0.1::float8, 0::float8, 'laplace'::text) FROM public.atk WHERE g = v; END $$;
GRANT EXECUTE ON FUNCTION wrap_plain(int), wrap_pinned(int) TO analyst;
SQL
plans() { as analyst -c "SET client_min_messages = log" -c "SET debug_print_plan = on" -c "SELECT $1(3)" | grep -c ':plan_rows'; }
check "without the pins the wrapper's inner plan reaches the caller (the leak being pinned)" "yes" \
  "$([ "$(plans wrap_plain)" -ge 2 ] && echo yes || echo no)"
check "with the guide's pins only the caller's own plan is printed" "1" "$(plans wrap_pinned)"

# --- what an analyst sees of the ledger ------------------------------------------------------
as analyst -c "SELECT dp_count(1.0, 0, 'laplace') FROM atk" >/dev/null
mine="SELECT seq FROM dp_ledger UNION ALL SELECT seq FROM dp_budget_log"
check "an analyst's rows are numbered 1..N (its own ordinal, not the global sequence)" "t" \
  "$(as analyst -c "SELECT min(seq) = 1 AND max(seq) = count(*) FROM ($mine) s")"
check "... while the global sequence is further on (other roles' records)" "t" \
  "$("${PSQL[@]}" -c "SELECT (SELECT max(seq) FROM ($mine) s) > $(as analyst -c "SELECT count(*) FROM ($mine) s")")"

echo "security: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
