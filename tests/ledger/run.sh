#!/usr/bin/env bash
# Durability and concurrency of the privacy ledger, against a real throwaway cluster.
#
# Each case releases values as a budgeted role and then checks, in the ledger and in the spent
# totals, that every release was charged exactly once: ROLLBACK, ROLLBACK TO SAVEPOINT, an
# exception caught in PL/pgSQL, an error later in the statement, cursors (closed, rolled back,
# scrolled back over), client disconnect, SIGKILL of the backend (crash restart), an immediate
# shutdown and restart, a damaged or missing ledger file; then 16 concurrent clients against a budget of 1.0;
# that autovacuum's ANALYZE releases nothing (an analyst's trojan statistics expression); that a
# DROP ROLE in a prepared transaction cannot leave an account behind; and the added latency and
# throughput of a release (printed, not asserted).
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "ledger: N passed, N failed".
# Unless PGPORT is set it runs itself in `pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg`.
# Needs dpagg installed (make install) and must run as root or as the cluster owner.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${DPAGG_LEDGER_INSIDE:-}" ]; then
  export DPAGG_LEDGER_INSIDE=1
  exec pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg -o max_connections=60 -o fsync=on \
    -o max_prepared_transactions=4 "$0" "$@"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh
as_analyst() { "${PSQL[@]}" -c "SET SESSION AUTHORIZATION analyst" -c "$1" 2>&1; }
charges() { q "SELECT count(*) FROM dp_ledger WHERE role = 'analyst'"; }
spent() { q "SELECT round(epsilon_spent::numeric, 9) FROM dp_budgets WHERE role = 'analyst'"; }
datadir=$(q "SHOW data_directory")
tmpdir_l=$(mktemp -d)

q "CREATE EXTENSION dpagg" >/dev/null
q "CREATE TABLE t AS SELECT g::float8 AS x, g % 4 AS k FROM generate_series(1, 1000) g" >/dev/null
q "CREATE ROLE analyst LOGIN; GRANT SELECT ON t TO analyst" >/dev/null
q "SELECT dp_set_budget('analyst', 1000, 0)" >/dev/null
REL="SELECT dp_count(0.5, 0, 'laplace') FROM t"   # one release of epsilon 0.5

expect=0
# --- transactions and errors --------------------------------------------------------------
as_analyst "BEGIN; $REL; ROLLBACK;" >/dev/null; expect=$((expect + 1))
check "a release inside a rolled-back transaction stays charged" "$expect" "$(charges)"
as_analyst "BEGIN; SAVEPOINT s; $REL; ROLLBACK TO SAVEPOINT s; COMMIT;" >/dev/null; expect=$((expect + 1))
check "ROLLBACK TO SAVEPOINT keeps the charge" "$expect" "$(charges)"
as_analyst "DO \$\$ BEGIN PERFORM dp_count(0.5, 0, 'laplace') FROM t; RAISE division_by_zero;
            EXCEPTION WHEN division_by_zero THEN NULL; END \$\$" >/dev/null; expect=$((expect + 1))
check "an exception caught in PL/pgSQL after the release keeps the charge" "$expect" "$(charges)"
as_analyst "SELECT c / 0 FROM (SELECT dp_count(0.5, 0, 'laplace') AS c FROM t) s" >/dev/null; expect=$((expect + 1))
check "an error later in the same statement keeps the charge" "$expect" "$(charges)"
as_analyst "SELECT dp_count(-1, 0) FROM t" >/dev/null
check "a release refused for bad input is not charged" "$expect" "$(charges)"

# --- cursors ------------------------------------------------------------------------------
as_analyst "BEGIN; DECLARE c CURSOR FOR SELECT k, dp_count(0.5, 0, 'laplace') FROM t GROUP BY k;
            FETCH 1 FROM c; CLOSE c; COMMIT;" >/dev/null; expect=$((expect + 1))
check "a cursor fetched once then closed: one charge" "$expect" "$(charges)"
as_analyst "BEGIN; DECLARE c CURSOR FOR $REL; FETCH 1 FROM c; ROLLBACK;" >/dev/null; expect=$((expect + 1))
check "a cursor fetched then rolled back: one charge" "$expect" "$(charges)"
out=$(as_analyst "BEGIN; DECLARE c SCROLL CURSOR FOR SELECT k, dp_count(0.5, 0, 'laplace') FROM t GROUP BY k ORDER BY k;
                  FETCH ALL FROM c; MOVE ABSOLUTE 0 FROM c; FETCH ALL FROM c; COMMIT;")
expect=$((expect + 1))
first=$(echo "$out" | head -4); second=$(echo "$out" | tail -4)
check "a scrollable cursor read twice returns the same values" "$first" "$second"
check "... and is charged once" "$expect" "$(charges)"

# --- client disconnect --------------------------------------------------------------------
before=$(charges)
"${PSQL[@]}" -c "SET SESSION AUTHORIZATION analyst" -c "BEGIN" -c "$REL" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
client=$!
for _ in $(seq 1 100); do [ "$(charges)" -gt "$before" ] && break; sleep 0.1; done
kill -9 "$client" 2>/dev/null; wait "$client" 2>/dev/null
expect=$((expect + 1))
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%'" >/dev/null
check "client killed after the answer (transaction never committed): charged" "$expect" "$(charges)"
spent_before=$(spent)

# --- SIGKILL of the backend: crash restart ------------------------------------------------
"${PSQL[@]}" -c "SET SESSION AUTHORIZATION analyst" -c "BEGIN" -c "$REL" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
client=$!
for _ in $(seq 1 100); do [ "$(charges)" -gt "$expect" ] && break; sleep 0.1; done
pid=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%' LIMIT 1")
expect=$((expect + 1))
if [ -n "$pid" ]; then kill -9 "$pid"; fi
wait "$client" 2>/dev/null
sleep 1; wait_up
check "SIGKILL of the backend (crash restart): the charge survives" "$expect" "$(charges)"
check "... and the spent total is replayed exactly (none lost, none doubled)" \
  "$(awk -v s="$spent_before" 'BEGIN { printf "%.9f", s + 0.5 }')" "$(spent)"
logfile=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "regress" { print $7 }')
reloaded=$(awk '/all server processes terminated; reinitializing/ { r = 1 } r && /dpagg: ledger loaded/ { print "yes"; exit }' "$logfile")
check "... the postmaster reloaded the ledger after reinitializing" "yes" "$reloaded"

# --- immediate shutdown and restart -------------------------------------------------------
as_analyst "$REL" >/dev/null; expect=$((expect + 1))
s1=$(spent)
cluster_ctl stop -m immediate >/dev/null 2>&1
cluster_ctl start >/dev/null 2>&1
wait_up
check "immediate shutdown and restart: every charge is still there" "$expect" "$(charges)"
check "... with the same spent total" "$s1" "$(spent)"

# --- the store: damaged records stop releases; a missing store is never replaced by an empty one
# The ledger is the relation file global/4200000187, logged in the WAL: a torn page after a
# crash is restored from its full-page image by recovery (the SIGKILL and immediate-shutdown
# cases above).  What recovery cannot mend is checked here, after a clean shutdown (no redo).
store="$datadir/global/4200000187"
restart_with() {  # restart_with <command run while the server is stopped cleanly>
  cluster_ctl stop >/dev/null 2>&1
  eval "$1"
  cluster_ctl start >/dev/null 2>&1
  wait_up
}
# (a) a damaged record (a byte flipped inside the first record of page 1): releases are refused
restart_with 'cp "$store" "$tmpdir_l/store.bak"; printf "\\377" | dd of="$store" bs=1 seek=$((8192 + 24 + 120)) conv=notrunc status=none'
out=$(as_analyst "$REL" 2>&1)
check "a damaged ledger record: releases are refused (XX001)" "1" "$(echo "$out" | grep -c "page 1 is damaged")"
check "... and so are the views, rather than show a wrong total" "1 1" "$(charges | grep -c "page 1 is damaged") $(spent | grep -c "page 1 is damaged")"
restart_with 'cp "$tmpdir_l/store.bak" "$store"'
check "... and releases work again once the file is restored" "$expect" "$(charges)"
as_analyst "$REL" >/dev/null; expect=$((expect + 1))
check "... and go on" "$expect" "$(charges)"
# (b) a missing store is never silently replaced by an empty one
restart_with 'mv "$store" "$tmpdir_l/store.moved"'
out=$(as_analyst "$REL" 2>&1)
check "a missing ledger: releases are refused" "1" "$(echo "$out" | grep -c "is missing")"
check "... dp_budgets refuses too rather than show nothing spent" "1" "$(q "SELECT count(*) FROM dp_budgets" 2>&1 | grep -c "is missing")"
restart_with 'mv "$tmpdir_l/store.moved" "$store"'
check "... and the restored ledger has every charge" "$expect" "$(charges)"

# --- concurrency: 16 clients x 20 releases of 0.1 against a budget of 1.0 -----------------
q "CREATE ROLE racer LOGIN; GRANT SELECT ON t TO racer" >/dev/null
q "SELECT dp_set_budget('racer', 1.0, 0)" >/dev/null
tmp=$(mktemp -d)
for c in $(seq 1 16); do
  (
    for i in $(seq 1 20); do echo "SELECT dp_count(0.1, 0, 'laplace') IS NOT NULL AS released FROM t;"; done |
      psql -X -At -c "SET SESSION AUTHORIZATION racer" -f - >"$tmp/$c.out" 2>"$tmp/$c.err"
  ) &
done
wait
ok=$(cat "$tmp"/*.out | grep -c '^t$')
refused=$(cat "$tmp"/*.err | grep -c 'privacy budget of role "racer" exhausted')
check "16 concurrent clients x 20 releases of 0.1, budget 1.0: exactly 10 succeed" "10" "$ok"
check "... and the other 310 are refused" "310" "$refused"
check "... the ledger holds exactly the 10 releases" "10" "$(q "SELECT count(*) FROM dp_ledger WHERE role = 'racer'")"
check "... which add up to the budget" "1.000000000" \
  "$(q "SELECT round(sum(epsilon)::numeric, 9) FROM dp_ledger WHERE role = 'racer'")"
check "... as the budget view says" "1.000000000 0.000000000" \
  "$(q "SELECT round(epsilon_spent::numeric, 9) || ' ' || round(epsilon_remaining::numeric, 9) FROM dp_budgets WHERE role = 'racer'")"
rm -rf "$tmp"

# --- autovacuum: an analyst's trojan statistics expression releases nothing -----------------
# The analyst owns a table with extended statistics on an IMMUTABLE SQL function that runs a DP
# query.  Autovacuum's ANALYZE (a superuser session) would evaluate it once per sampled row,
# releasing to nobody's budget; dpagg refuses in any process that is not a client backend.
# (Autovacuum runs with an empty search_path, so the trojan qualifies its names.)
releases_all() { q "SELECT count(*) FROM dpagg_journal() WHERE event = 'release'"; }
q "CREATE SCHEMA trojan AUTHORIZATION analyst" >/dev/null
as_analyst "CREATE TABLE trojan.mine AS SELECT g::float8 AS x FROM generate_series(1, 200) g;
            CREATE FUNCTION trojan.leak(float8) RETURNS bigint LANGUAGE sql IMMUTABLE AS
              \$\$ SELECT public.dp_count(0.5::float8, 0::float8, 'laplace'::text) FROM trojan.mine \$\$;
            CREATE STATISTICS trojan.leak_stats ON (trojan.leak(x)) FROM trojan.mine;
            ALTER TABLE trojan.mine SET (autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0)" >/dev/null
before_av=$(releases_all)
log_from=$(($(stat -c %s "$logfile") + 1))
q "ALTER SYSTEM SET autovacuum_naptime = 1" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
refusal='dpagg releases values only in client sessions, not in a process of type "autovacuum worker"'
seen=0
for _ in $(seq 1 60); do
  as_analyst "INSERT INTO trojan.mine VALUES (1)" >/dev/null   # keep the table due for analysis
  if tail -c +"$log_from" "$logfile" | grep -A8 -F "$refusal" | grep -q 'automatic analyze of table ".*trojan.mine"'; then
    seen=1; break
  fi
  sleep 1
done
check "autovacuum's ANALYZE of the trojan table reached the release and was refused (within 60 s)" 1 "$seen"
check "... nothing was released or charged, to anyone" "$before_av" "$(releases_all)"
check "... and the leaking statistics were not built" 0 \
  "$(q "SELECT count(*) FROM pg_statistic_ext_data d JOIN pg_statistic_ext s ON s.oid = d.stxoid
         WHERE s.stxname = 'leak_stats' AND d.stxdexpr IS NOT NULL")"
q "ALTER SYSTEM RESET autovacuum_naptime" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
as_analyst "DROP SCHEMA trojan CASCADE" >/dev/null 2>&1

# --- DROP ROLE in a prepared transaction ----------------------------------------------------
# The "role dropped" record is written when the dropping transaction commits in its own session;
# COMMIT PREPARED happens elsewhere, so the account would outlive the role (and pass to a later
# role with its OID).  Refused for a role with an account.
q "CREATE ROLE doomed LOGIN" >/dev/null
q "SELECT dp_set_budget('doomed', 1, 0)" >/dev/null
out=$(q "BEGIN; DROP ROLE doomed; PREPARE TRANSACTION 'drop_doomed'")
check "PREPARE TRANSACTION of a DROP ROLE of a role with an account is refused" 1 \
  "$(echo "$out" | grep -c 'cannot PREPARE a transaction that dropped role "doomed", which has a dpagg privacy account')"
check "... with a hint" 1 "$(echo "$out" | grep -c 'HINT:  Drop the role in an ordinary transaction')"
check "... nothing was prepared; the role and its account remain" "0 1 1" \
  "$(q "SELECT (SELECT count(*) FROM pg_prepared_xacts) || ' ' || (SELECT count(*) FROM pg_roles WHERE rolname = 'doomed')
           || ' ' || (SELECT count(*) FROM dp_budgets WHERE role = 'doomed' AND has_budget)")"
out=$("${PSQL[@]}" -c "BEGIN; SAVEPOINT s; DROP ROLE doomed; ROLLBACK TO SAVEPOINT s; PREPARE TRANSACTION 'undone'" \
        -c "COMMIT PREPARED 'undone'" 2>&1)
check "... a DROP undone by ROLLBACK TO SAVEPOINT does not stop PREPARE" "" "$out"
doomed_oid=$(q "SELECT 'doomed'::regrole::oid")
q "DROP ROLE doomed" >/dev/null
check "an ordinary DROP ROLE removes the account and logs it" "0 role dropped" \
  "$(q "SELECT (SELECT count(*) FROM dp_budgets WHERE role_oid = $doomed_oid) || ' ' ||
           (SELECT event FROM dp_budget_log WHERE role_oid = $doomed_oid ORDER BY seq DESC LIMIT 1)")"
# A role without an account may be dropped in a prepared transaction; dp_set_budget waits for that
# DROP's lock and then finds the role gone, so no account can be created in between.
q "CREATE ROLE ghost LOGIN" >/dev/null
ghost_oid=$(q "SELECT 'ghost'::regrole::oid")
check "PREPARE TRANSACTION of a DROP ROLE of a role without an account is allowed" "" \
  "$(q "BEGIN; DROP ROLE ghost; PREPARE TRANSACTION 'drop_ghost'")"
q "SELECT dp_set_budget('ghost', 1, 0)" >"$tmpdir_l/ghost.out" 2>&1 &
setter=$!
waiting=0
for _ in $(seq 1 100); do
  if [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%dp_set_budget(''ghost''%'")" = 1 ]; then
    waiting=1; break
  fi
  sleep 0.1
done
check "... dp_set_budget on that role waits for the prepared DROP" 1 "$waiting"
q "COMMIT PREPARED 'drop_ghost'" >/dev/null
wait "$setter"
check "... and fails once it commits: the role is gone" 1 "$(grep -c "role with OID $ghost_oid does not exist" "$tmpdir_l/ghost.out")"
check "... no account was created for its OID" 0 "$(q "SELECT count(*) FROM dp_budgets WHERE role_oid = $ghost_oid")"

# --- every release of concurrent clients charged once; latency and throughput printed ------
# (synchronous_commit = on).  pgbench's count of the transactions it completed must be the number
# of releases the ledger charged to the role meanwhile, with 1 and with 16 clients.
if command -v pgbench >/dev/null || [ -x /usr/lib/postgresql/15/bin/pgbench ]; then
  PGBENCH=$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)
  q "CREATE TABLE one AS SELECT 1.0::float8 AS x; ALTER ROLE analyst PASSWORD 'analyst'; GRANT SELECT ON one TO analyst" >/dev/null
  q "SELECT dp_set_budget('analyst', 1e9, 0)" >/dev/null
  tmp=$(mktemp -d)
  echo "SELECT dp_count(0.001, 0, 'laplace') FROM one;" >"$tmp/dp.sql"
  echo "SELECT count(*) FROM one;" >"$tmp/native.sql"
  median() { awk '{print $3}' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "NaN")}'; }
  releases() { q "SELECT releases FROM dp_budgets WHERE role = 'analyst'"; }
  run() {  # run script clients seconds -> "median_us tps transactions"
    rm -f "$tmp"/pgbench_log.*
    (cd "$tmp" && PGUSER=analyst PGPASSWORD=analyst "$PGBENCH" -n -f "$1" -c "$2" -j 2 -T "$3" -l 2>/dev/null) >"$tmp/out"
    echo "$(median "$tmp"/pgbench_log.*) $(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$tmp/out" | head -1) $(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$tmp/out" | head -1)"
  }
  r0=$(releases)
  read -r dp1 dptps1 dpn1 <<<"$(run dp.sql 1 5)"
  r1=$(releases)
  check "pgbench, 1 client: every completed release charged once ($dpn1 transactions)" "${dpn1:-none}" "$((r1 - r0))"
  read -r nat1 nattps1 _ <<<"$(run native.sql 1 5)"
  read -r dp16 dptps16 dpn16 <<<"$(run dp.sql 16 5)"
  r2=$(releases)
  check "pgbench, 16 clients: every completed release charged once ($dpn16 transactions)" "${dpn16:-none}" "$((r2 - r1))"
  read -r nat16 nattps16 _ <<<"$(run native.sql 16 5)"
  echo "# latency (median, us) one client: dp_count $dp1, count $nat1, added $((dp1 - nat1)) us (synchronous_commit = $(q "SHOW synchronous_commit"), fsync = $(q "SHOW fsync"))"
  echo "# 16 clients: dp_count median $dp16 us, $dptps16 releases/s; count median $nat16 us, $nattps16 queries/s"
  echo "# fsync of this disk (pg_test_fsync would say more): the added latency is one ledger flush"
  rm -rf "$tmp"
fi

echo "ledger: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
