#!/usr/bin/env bash
# dpagg on Citus (docs/citus.md): a coordinator and two workers on this machine (127.0.0.1, ports
# 5641-5643; Unix sockets for the test's own connections), a table distributed by uid, a
# reference table and a local table; every shape of query, the exactness of the split (at a huge
# epsilon the noise vanishes and the answers equal the clamped sums, counts and averages
# computed directly), one charge per release on the coordinator and none on the workers, releases
# refused on a worker, and the partial states' checks.
#
# Needs Citus for PostgreSQL 15: installed already, or built from a source tarball given as
# CITUS_TARBALL or found at ../shared/vendor/citus-*.tar.gz beside the checkout (through
# scripts/install-citus.sh).  Without either it says it skipped, and exits 0.
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "citus: N passed, N failed".
# Run as root it runs itself as the user postgres; it stops every server it started.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
  tarball=${CITUS_TARBALL:-$(ls "$repo"/../shared/vendor/citus-*.tar.gz 2>/dev/null | head -1)}
  if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "# SKIPPED: Citus is not installed and no source tarball was found (set CITUS_TARBALL, or put it in ../shared/vendor/)"
    echo "citus: 0 passed, 0 failed (skipped)"
    exit 0
  fi
  "$repo/scripts/install-citus.sh" "$tarball" || { echo "not ok 1 - installing Citus from $tarball"; exit 1; }
fi
if [ "$(id -u)" -eq 0 ]; then
  copy=$(mktemp /tmp/dpagg-citus-run.XXXXXX.sh); cp "$here/run.sh" "$copy"; chmod 755 "$copy"
  timeout 900 runuser -u postgres -- env PATH="$PATH" DPAGG_CITUS_INSIDE=1 "$copy" "$@"; st=$?
  rm -f "$copy"; exit $st
fi
if [ -z "${DPAGG_CITUS_INSIDE:-}" ]; then
  export DPAGG_CITUS_INSIDE=1
  exec timeout 900 "$here/run.sh" "$@"
fi

BIN=$("$PG_CONFIG" --bindir)
tmp=$(mktemp -d /tmp/dpagg-citus.XXXXXX)
declare -A PORT=([c]=5641 [w1]=5642 [w2]=5643)
n=0; passed=0; failed=0
check() {  # check "description" expected actual
  n=$((n + 1))
  if [ "$2" == "$3" ]; then passed=$((passed + 1)); echo "ok $n - $1"
  else failed=$((failed + 1)); echo "not ok $n - $1: expected [$2], got [$3]"; fi
}
cleanup() {
  for c in c w1 w2; do
    [ -f "$tmp/$c/postmaster.pid" ] && "$BIN/pg_ctl" -D "$tmp/$c" stop -m immediate >/dev/null 2>&1
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
[ -n "${DPAGG_CITUS_KEEP:-}" ] && trap - EXIT
q() { local c=$1; shift; local a=(); for s in "$@"; do a+=(-c "$s"); done
      "$BIN/psql" -X -q -At -h "$tmp" -p "${PORT[$c]}" -d postgres "${a[@]}" 2>&1; }
as_analyst() { local c=$1; shift; q "$c" "SET SESSION AUTHORIZATION analyst" "$@"; }
for c in c w1 w2; do
  "$BIN/initdb" -D "$tmp/$c" -A trust >/dev/null || exit 1
  cat >>"$tmp/$c/postgresql.conf" <<EOF
port = ${PORT[$c]}
listen_addresses = '127.0.0.1'
unix_socket_directories = '$tmp'
shared_preload_libraries = 'citus,dpagg'
max_connections = 100
EOF
  "$BIN/pg_ctl" -D "$tmp/$c" -l "$tmp/$c.log" -w start >/dev/null || { tail "$tmp/$c.log"; exit 1; }
  q "$c" "CREATE EXTENSION citus" >/dev/null
done
q c "SELECT citus_set_coordinator_host('127.0.0.1', ${PORT[c]})" \
    "SELECT citus_add_node('127.0.0.1', ${PORT[w1]})" "SELECT citus_add_node('127.0.0.1', ${PORT[w2]})" >/dev/null
q c "CREATE EXTENSION dpagg" >/dev/null
check "dpagg is created on the workers too" "1 1" "$(q w1 "SELECT count(*) FROM pg_extension WHERE extname = 'dpagg'") $(q w2 "SELECT count(*) FROM pg_extension WHERE extname = 'dpagg'")"
q c "CREATE ROLE analyst LOGIN" "CREATE TABLE t (uid int, dept int, x float8, i bigint)" \
    "SELECT create_distributed_table('t', 'uid')" \
    "INSERT INTO t SELECT g, g % 10, (g % 97) - 7, g % 1000 FROM generate_series(1, 100000) g" \
    "CREATE TABLE depts (dept int PRIMARY KEY, name text)" "SELECT create_reference_table('depts')" \
    "INSERT INTO depts SELECT g, 'd' || g FROM generate_series(0, 9) g" \
    "CREATE TABLE local_t AS SELECT * FROM t" \
    "GRANT SELECT ON t, depts, local_t TO analyst" >/dev/null
q c "SELECT dp_set_budget('analyst', 1e12, 0.5)" "SELECT dp_set_budget(current_user::regrole, 1e12, 0.5)" >/dev/null
charges() { q "$1" "SELECT count(*) FROM dp_ledger"; }
E=1e9   # epsilon so large that the noise is below the rounding of the outputs

# --- every shape, exactly as on one node ---------------------------------------------------
check "whole table: dp_sum equals the clamped sum" \
  "$(q c "SELECT round(sum(greatest(0, least(x, 50))))::bigint FROM t")" \
  "$(as_analyst c "SELECT round(dp_sum(x, $E, 1e-5, 0, 50))::bigint FROM t")"
check "whole table: dp_count, dp_avg (integer values) and dp_sum with a sensitivity" \
  "$(q c "SELECT count(*), round(avg(least(i, 500)), 3), round(sum(greatest(-20, least(x, 20))))::bigint FROM t")" \
  "$(as_analyst c "SELECT dp_count($E, 1e-5), round(dp_avg(i, $E, 1e-5, 0, 500)::numeric, 3), round(dp_sum(x, $E, 1e-5, 20))::bigint FROM t")"
check "GROUP BY a column that is not the distribution column" \
  "$(q c "SELECT string_agg(dept || ':' || n || ':' || s, ',' ORDER BY dept) FROM (SELECT dept, count(x) n, round(sum(greatest(0, least(x, 50))))::bigint s FROM t GROUP BY dept) q")" \
  "$(as_analyst c "SELECT string_agg(dept || ':' || n || ':' || s, ',' ORDER BY dept) FROM (SELECT dept, dp_count(x, $E, 1e-5) n, round(dp_sum(x, $E, 1e-5, 0, 50))::bigint s FROM t GROUP BY dept) q")"
# dp_sum's partial sums travel without a count in the safe form (its release reads the sum only);
# dp_avg's keep theirs
splan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dept, dp_sum(x, 1, 1e-5, 0, 50) FROM t GROUP BY dept")
aplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dept, dp_avg(x, 1, 1e-5, 0, 50) FROM t GROUP BY dept")
check "the safe form: the workers sum dp_sum's quanta with no count beside them, and count dp_avg's" "1 0 1" \
  "$(echo "$splan" | grep -c 'Query: .*sum(public.dpagg_quanta_sum(') $(echo "$splan" | grep -c 'Query: .*count(') $(echo "$aplan" | grep -c 'Query: .*count(')"
# ... and each worker plans that sum of quanta as one aggregate, one call per row (partial.c)
# (and dp_avg's count(x) as dpagg_quanta_avg_total_count, sharing that transition)
check "the safe form: a worker plans sum(dpagg_quanta_sum(...)) as dpagg_quanta_sum_total (_avg_total, with its count)" "1 1 1" \
  "$(echo "$splan" | grep -c 'Output: .*dpagg_quanta_sum_total(x, ') $(echo "$aplan" | grep -c 'Output: .*dpagg_quanta_avg_total(x, ') $(echo "$aplan" | grep -c 'Output: .*dpagg_quanta_avg_total_count(x, ')"
check "GROUP BY the distribution column (1000 groups)" \
  "$(q c "SELECT md5(string_agg(uid || ':' || n, ',' ORDER BY uid)) FROM (SELECT uid, count(*) n FROM t WHERE uid <= 1000 GROUP BY uid) q")" \
  "$(as_analyst c "SELECT md5(string_agg(uid || ':' || n, ',' ORDER BY uid)) FROM (SELECT uid, dp_count($E, 1e-5) n FROM t WHERE uid <= 1000 GROUP BY uid) q")"
check "a join with a reference table, grouped by its column" \
  "$(q c "SELECT string_agg(name || ':' || n, ',' ORDER BY name) FROM (SELECT d.name, count(*) n FROM t JOIN depts d USING (dept) GROUP BY d.name) q")" \
  "$(as_analyst c "SELECT string_agg(name || ':' || n, ',' ORDER BY name) FROM (SELECT d.name, dp_count($E, 1e-5) n FROM t JOIN depts d USING (dept) GROUP BY d.name) q")"
check "the reference table alone" "10" "$(as_analyst c "SELECT dp_count($E, 1e-5) FROM depts")"
check "a local table on the coordinator" \
  "$(q c "SELECT round(sum(greatest(0, least(x, 50))))::bigint FROM local_t")" \
  "$(as_analyst c "SELECT round(dp_sum(x, $E, 1e-5, 0, 50))::bigint FROM local_t")"
check "a subquery with post-processing (HAVING, ORDER BY, LIMIT, arithmetic)" \
  "$(q c "SELECT string_agg(dept || ':' || (n * 2), ',' ORDER BY dept) FROM (SELECT dept, count(*) n FROM t WHERE x > 0 GROUP BY dept HAVING count(*) > 0 ORDER BY dept LIMIT 3) q")" \
  "$(as_analyst c "SELECT string_agg(dept || ':' || (n * 2), ',' ORDER BY dept) FROM (SELECT dept, dp_count($E, 1e-5) n FROM t WHERE x > 0 GROUP BY dept HAVING dp_count($E, 1e-5) > 0 ORDER BY dept LIMIT 3) q")"
check "a query whose rows are on one shard (WHERE uid = 5): the release stays on the coordinator" \
  "$(q c "SELECT count(*) FROM t WHERE uid = 5")" "$(as_analyst c "SELECT dp_count($E, 1e-5) FROM t WHERE uid = 5")"
check "FILTER inside the aggregate" \
  "$(q c "SELECT count(*) FILTER (WHERE dept < 5) FROM t")" \
  "$(as_analyst c "SELECT dp_count($E, 1e-5) FILTER (WHERE dept < 5) FROM t")"

# --- GROUP BY the distribution column: the direct form (citus.c) ------------------------------
# Citus gathers the partial rows on the coordinator without an intermediate result, and the merge
# takes them as they come (GroupAggregate right above the Custom Scan, no Sort, no subplan).
plan=$(as_analyst c "EXPLAIN (COSTS OFF) SELECT uid, dp_sum(x, 1, 1e-5, 0, 50) FROM t GROUP BY uid")
check "EXPLAIN of a dp query on Citus works; GROUP BY uid: the merge runs over the gathered rows, no subplan, no sort" "1 0 0" \
  "$(echo "$plan" | head -3 | tr '\n' ' ' | grep -c 'GroupAggregate .*Custom Scan (Citus Adaptive)') $(echo "$plan" | grep -c 'Distributed Subplan') $(echo "$plan" | grep -c 'Sort')"
# The workers make each group's partial sum with dpagg_partial_sum (16 bytes) and send its count
# beside it; the merge's privacy parameters travel in no row (they are put back on the coordinator).
vplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT uid, dp_sum(x, 1, 1e-5, 0, 50), dp_avg(x, 1, 1e-5, 0, 50) FROM t GROUP BY uid")
check "... the workers send dpagg_partial_sum's and dpagg_partial_avg's 16-byte partials and counts, no parameter columns" "1 1 0 1" \
  "$(echo "$vplan" | grep -c 'Query: .*dpagg_partial_sum(t.x, .*dpagg_partial_avg(t.x') $(echo "$vplan" | grep -c 'Output: remote_scan.uid, remote_scan.dp_sum, remote_scan.dp_sum_1, remote_scan.dp_avg, remote_scan.dp_avg_1$') $(echo "$vplan" | grep -c 'Query: .*NULL::') $(echo "$vplan" | grep -c "dpagg_merge_sum(remote_scan.dp_sum, remote_scan.dp_sum_1, '1'::double precision")"
check "GROUP BY uid over every group: dp_count, dp_sum and dp_avg as on one node" \
  "$(q c "SELECT md5(string_agg(uid || ':' || n || ':' || s || ':' || a, ',' ORDER BY uid)) FROM (SELECT uid, count(x) n, round(sum(greatest(0, least(x, 50))))::bigint s, round(avg(greatest(0, least(x, 50)))::numeric, 2) a FROM local_t GROUP BY uid) q")" \
  "$(as_analyst c "SELECT md5(string_agg(uid || ':' || n || ':' || s || ':' || a, ',' ORDER BY uid)) FROM (SELECT uid, dp_count(x, $E, 1e-5) n, round(dp_sum(x, $E, 1e-5, 0, 50))::bigint s, round(dp_avg(x, $E, 1e-5, 0, 50)::numeric, 2) a FROM t GROUP BY uid) q")"
check "... two keys, HAVING and ORDER BY LIMIT" \
  "$(q c "SELECT string_agg(uid || ':' || dept || ':' || n, ',' ORDER BY uid) FROM (SELECT uid, dept, count(*) n FROM local_t WHERE uid % 7 = 0 GROUP BY uid, dept HAVING count(*) > 0 ORDER BY uid DESC LIMIT 5) q")" \
  "$(as_analyst c "SELECT string_agg(uid || ':' || dept || ':' || n, ',' ORDER BY uid) FROM (SELECT uid, dept, dp_count($E, 1e-5) n FROM t WHERE uid % 7 = 0 GROUP BY uid, dept HAVING dp_count($E, 1e-5) > 0 ORDER BY uid DESC LIMIT 5) q")"
q c "CREATE TABLE tk (k varchar(12), x float8)" "SELECT create_distributed_table('tk', 'k')" \
    "INSERT INTO tk SELECT 'k' || (g % 5000), g % 13 FROM generate_series(1, 20000) g" "GRANT SELECT ON tk TO analyst" >/dev/null
check "... a text distribution column (varchar): the same keys and sums" \
  "$(q c "SELECT md5(string_agg(k || ':' || s, ',' ORDER BY k)) FROM (SELECT k, sum(x)::bigint s FROM tk GROUP BY k) q")" \
  "$(as_analyst c "SELECT md5(string_agg(k || ':' || s, ',' ORDER BY k)) FROM (SELECT k, round(dp_sum(x, $E, 1e-5, 0, 20))::bigint s FROM tk GROUP BY k) q")"
c0=$(charges c)
check "... rows on one shard (WHERE uid = 5 GROUP BY uid): planned again the safe way, released on the coordinator, one charge" "5:1 1" \
  "$(as_analyst c "SELECT uid || ':' || dp_count($E, 1e-5) FROM t WHERE uid = 5 GROUP BY uid") $(( $(charges c) - c0 ))"
c0=$(charges c)
check "... a level grouped by uid inside a distributed query's IN (...): once, on the coordinator" "14285 1" \
  "$(as_analyst c "SELECT count(*) FROM t WHERE uid IN (SELECT uid FROM t WHERE uid % 7 = 0 GROUP BY uid HAVING dp_count($E, 1e-5) > 0)") $(( $(charges c) - c0 ))"
check "... a join with a reference table, grouped by uid (the safe form): as on one node" \
  "$(q c "SELECT md5(string_agg(uid || ':' || n, ',' ORDER BY uid)) FROM (SELECT l.uid, count(*) n FROM local_t l JOIN depts USING (dept) WHERE l.uid % 3 = 0 GROUP BY l.uid) q")" \
  "$(as_analyst c "SELECT md5(string_agg(uid || ':' || n, ',' ORDER BY uid)) FROM (SELECT t.uid, dp_count($E, 1e-5) n FROM t JOIN depts USING (dept) WHERE t.uid % 3 = 0 GROUP BY t.uid) q")"
c0=$(charges c)
out=$(as_analyst c "PREPARE byuid(int) AS SELECT count(*) FROM (SELECT uid, dp_count($E, 1e-5) n FROM t WHERE uid <= \$1 GROUP BY uid) q WHERE n = 1" \
  "EXECUTE byuid(10)" "EXECUTE byuid(20)" "EXECUTE byuid(30)" "EXECUTE byuid(40)" "EXECUTE byuid(50)" "EXECUTE byuid(60)" "EXECUTE byuid(70)")
check "... a prepared statement, custom and generic plans: right answers, one charge per execution" "10 20 30 40 50 60 70 7" \
  "$(echo $out) $(( $(charges c) - c0 ))"
check "... report forms: each value inside its interval" 1 \
  "$(as_analyst c "SELECT bool_and((r).value BETWEEN (r).ci_low AND (r).ci_high) AND count(*) = 100000 FROM (SELECT uid, dp_sum_report(x, 1, 1e-5, 0, 50) r FROM t GROUP BY uid) s" | grep -c '^t$')"
check "... a merge whose parameters were left NULL is refused, not released" 1 \
  "$(q c "SELECT dpagg_merge_count(n, NULL, NULL, NULL) FROM (SELECT uid, count(*) n FROM local_t GROUP BY uid) q" 2>&1 | grep -c 'epsilon of dp_count must not be NULL')"

# --- dp_sum_vector: dpagg_vquanta_sum on the workers, dpagg_merge_vector on the coordinator ----
# Each group's released vector against the same release over the local copy (noise below 1e-5 at
# this epsilon): the groups where a coordinate differs by more than 0.01.
vdiff() {  # vdiff KEY [WHERE]: groups (by KEY) whose vectors differ, t against local_t
  as_analyst c "SELECT count(*) FROM (SELECT $1 k, dp_sum_vector(ARRAY[x, i::float8, -x], 3, $E, 1e-5, 60) v FROM t ${2:-} GROUP BY $1) a
      JOIN (SELECT $1 k, dp_sum_vector(ARRAY[x, i::float8, -x], 3, $E, 1e-5, 60) v FROM local_t ${2:-} GROUP BY $1) b USING (k)
      WHERE abs(a.v[1] - b.v[1]) > 0.01 OR abs(a.v[2] - b.v[2]) > 0.01 OR abs(a.v[3] - b.v[3]) > 0.01"
}
c0=$(charges c)
check "dp_sum_vector over a distributed table, whole table: as on one node" "0" \
  "$(as_analyst c "SELECT count(*) FROM (SELECT dp_sum_vector(ARRAY[x, i::float8, -x], 3, $E, 1e-5, 60) v FROM t) a, (SELECT dp_sum_vector(ARRAY[x, i::float8, -x], 3, $E, 1e-5, 60) v FROM local_t) b WHERE abs(a.v[1] - b.v[1]) > 0.01 OR abs(a.v[2] - b.v[2]) > 0.01 OR abs(a.v[3] - b.v[3]) > 0.01")"
check "... GROUP BY dept, and GROUP BY uid (the direct form): every group as on one node" "0 0" "$(vdiff dept) $(vdiff uid)"
check "... one charge per query on the coordinator (3 over t, 3 over local_t), none on the workers" "6 0 0" \
  "$(( $(charges c) - c0 )) $(q w1 "SELECT count(*) FROM dp_ledger WHERE aggregate LIKE 'dp_sum_vector%'") $(q w2 "SELECT count(*) FROM dp_ledger WHERE aggregate LIKE 'dp_sum_vector%'")"
check "... its mechanism argument, and the report of its charge in the ledger" "1 1" \
  "$(as_analyst c "SELECT array_length(dp_sum_vector(ARRAY[x], 1, 1, 1e-5, 10, 'gaussian'), 1) FROM t") $(q c "SELECT count(*) FROM dp_ledger WHERE aggregate LIKE 'dp_sum_vector%' AND mechanism LIKE '%gaussian%' AND seq = (SELECT max(seq) FROM dp_ledger)")"
check "a vector merge refuses a partial sum longer than its rows allow, and one of another dimension" "1 1" \
  "$(q c "SELECT dpagg_merge_vector(set_byte(p, 30, 1), 2, 1, 1e-5, 1) FROM (SELECT dpagg_vquanta_sum(ARRAY[1.0, 0.0], 2, 1) p) q" 2>&1 | grep -c 'more than its rows allow') $(q c "SELECT dpagg_merge_vector(p, 2, 1, 1e-5, 1) FROM (SELECT dpagg_vquanta_sum(ARRAY[1.0, 0.0, 0.0], 3, 1) p) q" 2>&1 | grep -c 'its dimension is 3, not 2')"
check "... while an honest one, clipped to the bound, is released" 1 \
  "$(q c "SELECT abs(v[1] - 1) < 0.01 AND abs(v[2]) < 0.01 FROM (SELECT dpagg_merge_vector(p, 2, $E, 1e-5, 1) v FROM (SELECT dpagg_vquanta_sum(ARRAY[500.0, 0.0], 2, 1) p) q) r" | grep -c '^t$')"

# --- the variances: sum(dpagg_quanta_var_squares(...)), sum(dpagg_quanta_var(...)) and count on the
# workers, dpagg_merge_var_pop (and its sibling forms) on the coordinator (variance.c) -------------
# tv: 200 rows per uid over 500 uids, with NULLs, NaN and infinities among the values, and 10 uids
# whose values are all NULL (empty groups); tv_local is its local copy.  At a huge epsilon every
# form's answer over tv equals the same query's over tv_local to 1e-9 relative (the noise of a
# group of 200 rows is ~1e-11 of its variance): the merged state is the one-node state.
q c "CREATE TABLE tv (uid int, dept int, x float8, i int, v numeric)" "SELECT create_distributed_table('tv', 'uid')" \
    "INSERT INTO tv SELECT g % 500, g % 7, CASE WHEN g % 97 = 0 THEN NULL WHEN g % 89 = 0 THEN 'NaN' WHEN g % 83 = 0 THEN 'Infinity' WHEN g % 79 = 0 THEN '-Infinity' ELSE ((g * 7919) % 1000) / 10.0 - 20 END, (g * 31) % 90 - 5, ((g * 13) % 700) / 7.0 FROM generate_series(1, 100000) g" \
    "INSERT INTO tv SELECT 500 + g % 10, 3, NULL, NULL, NULL FROM generate_series(1, 50) g" \
    "CREATE TABLE tv_local AS SELECT * FROM tv" "GRANT SELECT ON tv, tv_local TO analyst" >/dev/null
vdiffs() {  # vdiffs KEY EXPR BOUNDS [WHERE]: the groups (by KEY, or none) where a form over tv and tv_local differ
  local key="" by="" join="," on="" form sel=""
  [ -n "$1" ] && { key="$1 k,"; by="GROUP BY $1"; join="JOIN"; on="USING (k)"; }
  for form in var_pop var_samp stddev_pop stddev_samp; do
    sel="$sel + (SELECT count(*) FROM (SELECT $key dp_$form($2, $E, 1e-5, $3) a FROM tv ${4:-} $by) a
                 $join (SELECT $key dp_$form($2, $E, 1e-5, $3) b FROM tv_local ${4:-} $by) b $on
                 WHERE NOT (a IS NOT DISTINCT FROM b OR abs(a - b) <= 1e-9 * abs(b)))"
  done
  as_analyst c "SELECT 0 $sel"
}
c0=$(charges c)
check "the four variances with bounds, whole table, GROUP BY dept (safe form) and GROUP BY uid (direct form): as on one node (float8, integer, numeric values)" "0 0 0 0 0 0 0" \
  "$(vdiffs '' x '-10, 60') $(vdiffs dept x '-10, 60') $(vdiffs uid x '-10, 60') $(vdiffs dept i '0, 50') $(vdiffs uid i '0, 50') $(vdiffs dept v '10, 90') $(vdiffs '' v '10, 90' 'WHERE x > 0')"
check "... one charge per query on the coordinator (7 x 4 over tv, as many over tv_local), none on the workers" "56 0 0" \
  "$(( $(charges c) - c0 )) $(charges w1) $(charges w2)"
lastcharge() { q c "SELECT aggregate || ' ' || epsilon || ' ' || delta || ' ' || mechanism FROM dp_ledger ORDER BY seq DESC LIMIT 1"; }
same=0
for m in "dp_var_pop(x, 1, 1e-5, 0, 50)" "dp_var_samp(x, 1, 0, 0, 50)" "dp_stddev_pop(x, 1, 1e-5, 0, 50, 'gaussian')" "dp_stddev_samp_report(x, 1, 1e-5, 0, 50)"; do
  as_analyst c "SELECT $m FROM tv" >/dev/null; a=$(lastcharge)
  as_analyst c "SELECT $m FROM tv_local" >/dev/null; b=$(lastcharge)
  [ "$a" == "$b" ] && [ -n "$a" ] && same=$((same + 1))
done
check "... with the same charge in the ledger as on one node (form, epsilon, delta, the three parts' mechanisms), for each form; a report form under its base name" "4 dp_stddev_samp" \
  "$same $(lastcharge | cut -d' ' -f1)"
check "... empty groups (every value NULL) and no row at all: NULL, as on one node" "10|10 |" \
  "$(as_analyst c "SELECT count(*) FILTER (WHERE a IS NULL) || '|' || count(*) FILTER (WHERE b IS NULL) FROM (SELECT uid, dp_var_pop(x, $E, 1e-5, 0, 1) a, dp_stddev_samp(x, $E, 1e-5, 0, 1) b FROM tv WHERE uid >= 500 GROUP BY uid) s") $(as_analyst c "SELECT dp_var_pop(x, $E, 1e-5, 0, 1), dp_stddev_pop(x, $E, 1e-5, 0, 1) FROM tv WHERE uid > 1000")"
vsplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dept, dp_var_samp(x, 1, 1e-5, 0, 50) FROM tv GROUP BY dept")
vdplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT uid, dp_stddev_pop(x, 1, 1e-5, 0, 50) FROM tv GROUP BY uid")
vdtop=$(as_analyst c "EXPLAIN (COSTS OFF) SELECT uid, dp_stddev_pop(x, 1, 1e-5, 0, 50) FROM tv GROUP BY uid" | head -3 | tr '\n' ' ')
check "... the plans: the workers sum the squares' and the values' quanta and count; the safe form a subplan, the direct form its merge right above the Custom Scan" "1 1 1 1 1 0" \
  "$(echo "$vsplan" | grep -c 'Query: .*sum(public.dpagg_quanta_var_squares(x, .*sum(public.dpagg_quanta_var(x, .*count(x)') $(echo "$vsplan" | grep -q 'dpagg_merge_var_samp(' && echo 1) $(echo "$vsplan" | grep -c 'Distributed Subplan') $(echo "$vdtop" | grep -c 'GroupAggregate .*Custom Scan (Citus Adaptive)') $(echo "$vdplan" | grep -c "dpagg_merge_stddev_pop(remote_scan.dp_stddev_pop, remote_scan.dp_stddev_pop_1, remote_scan.dp_stddev_pop_2, '1'::double precision") $(echo "$vdplan" | grep -c 'Distributed Subplan')"
c0=$(charges c)
check "... the report forms: the same value as on one node, inside its interval, with the same parts; one charge per query" "0 1 3" \
  "$(as_analyst c "SELECT count(*) FROM (SELECT dept, dp_var_samp_report(x, $E, 1e-5, -10, 60, 'laplace') r FROM tv GROUP BY dept) a JOIN (SELECT dept, dp_var_samp_report(x, $E, 1e-5, -10, 60, 'laplace') r FROM tv_local GROUP BY dept) b USING (dept) WHERE abs((a.r).value - (b.r).value) > 1e-9 * abs((b.r).value) OR (a.r).mechanism <> (b.r).mechanism OR (a.r).noise_scale <> (b.r).noise_scale OR NOT (a.r).value BETWEEN (a.r).ci_low AND (a.r).ci_high") $(as_analyst c "SELECT ((r).value BETWEEN (r).ci_low AND (r).ci_high)::int FROM (SELECT dp_stddev_pop_report(x, 1, 1e-5, -10, 60) r FROM tv) s") $(( $(charges c) - c0 ))"
c0=$(charges c)
vnode=$(q c "SET client_min_messages = error" "SET SESSION AUTHORIZATION analyst" "SELECT uid, dp_var_pop(x, 1, 1e-5, 0, 50) FROM tv WHERE uid = 5 GROUP BY uid")
check "... rows on one shard (WHERE uid = 5): released on the coordinator, one charge" "5| 1" \
  "$(echo "$vnode" | cut -c1-2) $(( $(charges c) - c0 ))"
verr() {  # verr EXPR: the first error line (with its SQLSTATE) of a query over tv and over tv_local
  for tab in tv tv_local; do
    as_analyst c '\set VERBOSITY verbose' "SELECT dept, $1 FROM $tab GROUP BY dept" | grep -m1 '^ERROR' | sed 's/ at character [0-9]*//'
  done | sort -u | wc -l | tr -d ' '
}
c0=$(charges c)
check "bad parameters (lower > upper, NaN and infinite bounds, NULLs, epsilon out of range, delta 1, an unknown mechanism): the same error as on one node, nothing charged" "1 1 1 1 1 1 1 1 1 1 1 0" \
  "$(verr "dp_var_pop(x, 1, 1e-5, 50, 0)") $(verr "dp_var_samp(x, 1, 1e-5, 'NaN', 10)") $(verr "dp_stddev_pop(x, 1, 1e-5, 0, 'Infinity')") $(verr "dp_stddev_samp(x, NULL, 1e-5, 0, 10)") $(verr "dp_var_pop(x, 1, 1e-5, NULL, 10)") $(verr "dp_var_pop(x, 1, 1e-5, 0, 10, NULL)") $(verr "dp_var_pop(x, 0, 1e-5, 0, 10)") $(verr "dp_var_pop(x, 2e9, 1e-5, 0, 10)") $(verr "dp_var_pop(x, 1, 1, 0, 10)") $(verr "dp_var_pop(x, 1, 1e-5, 0, 10, 'bogus')") $(verr "dp_var_pop(x, 1, 1e-5, 5, 5)") $(( $(charges c) - c0 ))"
check "... and it is not an internal error (XX000)" 0 \
  "$(as_analyst c '\set VERBOSITY verbose' "SELECT dept, dp_var_pop(x, 1, 1e-5, 50, 0) FROM tv GROUP BY dept" "SELECT dp_var_pop(x, NULL, 1e-5, 0, 10) FROM tv" "SELECT dp_stddev_samp(x, 1, 1e-5, 0, 10, NULL) FROM tv" | grep -c 'XX000')"
c0=$(charges c)
check "refused as dp_sum is (0A000), nothing charged: parameters that are not constants, grouping sets, another aggregate beside, a subquery in the select list" "1 1 1 1 0" \
  "$(as_analyst c "SELECT dp_var_pop(x, 1, 1e-5, 0, dept) FROM tv GROUP BY dept" | grep -c 'must be constants') $(as_analyst c "SELECT dept, dp_var_pop(x, 1, 1e-5, 0, 10) FROM tv GROUP BY ROLLUP (dept)" | grep -c 'GROUPING SETS') $(as_analyst c "SELECT dp_var_pop(x, 1, 1e-5, 0, 10), count(*) FROM tv" | grep -c 'cannot be mixed') $(as_analyst c "SELECT dept, dp_var_pop(x, 1, 1e-5, 0, 10), (SELECT 1) FROM tv GROUP BY dept" | grep -c 'subqueries in the select list') $(( $(charges c) - c0 ))"
check "a variance merge refuses partial sums their count could not make, and a count without its sums" "1 1" \
  "$(q c "SELECT dpagg_merge_var_pop(1e20, 0, 1, 1, 1e-5, 0, 50, NULL)" 2>&1 | grep -c 'outside what its count') $(q c "SELECT dpagg_merge_var_pop(NULL, NULL, 3, 1, 1e-5, 0, 50, NULL)" 2>&1 | grep -c 'without both of its partial sums')"
check "... while partial sums merged by hand on one node give dp_var_pop's answer" 0 \
  "$(q c "SELECT count(*) FROM (SELECT dpagg_merge_var_pop(q, s, n, $E, 1e-5, -10, 60, NULL) a FROM (SELECT dept, sum(dpagg_quanta_var_squares(x, -10, 60)) q, sum(dpagg_quanta_var(x, -10, 60)) s, count(x) n FROM tv_local GROUP BY dept) p) a, (SELECT dp_var_pop(x, $E, 1e-5, -10, 60) b FROM tv_local) b WHERE abs(a - b) > 1e-9 * b")"

# --- the quantiles, with and without bounds: the workers group each group's rows by
# dpagg_quantile_bin(x, lower, upper) (without bounds dpagg_quantile_cell(x)) and count them,
# dpagg_merge_percentile (_median, _percentiles) adds the counts into the quantile's state on the
# coordinator (percentile.c) -------------------------------------------------------------------------
# tq: 200 rows per uid over 500 uids, with NULLs, NaN and infinities among the values, and 10 uids
# whose values are all NULL (empty groups); tq_local is its local copy.  At a huge epsilon the
# chosen bin is the one whose ranks hold p n strictly (p = 0.377777 and 0.912345 never make p n a
# whole number here, so that bin is unique), and the answer a uniform point of it: the bins (cells)
# of the answers over tq and over tq_local must be the same, group by group.
q c "CREATE TABLE tq (uid int, dept int, x float8, i int, v numeric)" "SELECT create_distributed_table('tq', 'uid')" \
    "INSERT INTO tq SELECT g % 500, g % 7, CASE WHEN g % 97 = 0 THEN NULL WHEN g % 89 = 0 THEN 'NaN' WHEN g % 83 = 0 THEN 'Infinity' WHEN g % 79 = 0 THEN '-Infinity' ELSE ((g * 7919) % 1000) / 10.0 - 20 END, (g * 31) % 90 - 5, CASE WHEN g % 101 = 0 THEN 'NaN' WHEN g % 103 = 0 THEN NULL WHEN g % 107 = 0 THEN '-Infinity' ELSE ((g * 13) % 700) / 7.0 END FROM generate_series(1, 100000) g" \
    "INSERT INTO tq SELECT 500 + g % 10, 3, NULL, NULL, NULL FROM generate_series(1, 50) g" \
    "CREATE TABLE tq_local AS SELECT * FROM tq" "GRANT SELECT ON tq, tq_local TO analyst" >/dev/null
qdiffs() {  # qdiffs KEY AGG TRANSFORM [WHERE]: the groups (by KEY, or none) where TRANSFORM (@: the answer) of AGG over tq and tq_local differ
  local key="" by="" join="," on="" ta tb
  [ -n "$1" ] && { key="$1 k,"; by="GROUP BY $1"; join="JOIN"; on="USING (k)"; }
  ta=${3//@/a.a}; tb=${3//@/b.b}
  as_analyst c "SELECT count(*) FROM (SELECT $key $2 a FROM tq WHERE uid < 500 ${4:-} $by) a $join (SELECT $key $2 b FROM tq_local WHERE uid < 500 ${4:-} $by) b $on WHERE ($ta) IS DISTINCT FROM ($tb)"
}
QB="dpagg_quantile_bin(@, -10, 60)"
QBS="ARRAY[dpagg_quantile_bin((@)[1], -10, 60), dpagg_quantile_bin((@)[2], -10, 60)]"
QC="dpagg_quantile_cell(@)"
QCS="ARRAY[dpagg_quantile_cell((@)[1]), dpagg_quantile_cell((@)[2])]"
c0=$(charges c)
check "dp_percentile and dp_percentiles with bounds, whole table, GROUP BY dept (safe form) and GROUP BY uid (direct form): the same bins as on one node (float8, integer, numeric values)" "0 0 0 0 0 0 0 0" \
  "$(qdiffs '' "dp_percentile(x, 0.377777, $E, 0, -10, 60)" "$QB") $(qdiffs dept "dp_percentile(x, 0.912345, $E, 0, -10, 60)" "$QB") $(qdiffs uid "dp_percentile(x, 0.377777, $E, 0, -10, 60)" "$QB") $(qdiffs dept "dp_percentiles(x, ARRAY[0.377777, 0.912345], $E, 0, -10, 60, 'permute_and_flip')" "$QBS") $(qdiffs uid "dp_percentiles(i, ARRAY[0.377777, 0.912345], $E, 0, -10, 60)" "$QBS") $(qdiffs dept "dp_percentile(i, 0.377777, $E, 0, -10, 60)" "$QB") $(qdiffs dept "dp_percentile(v, 0.912345, $E, 0, -10, 60)" "$QB") $(qdiffs '' "dp_percentiles(v, ARRAY[0.377777, 0.912345], $E, 0, -10, 60)" "$QBS" 'AND x > 0')"
check "... one charge per query on the coordinator (8 over tq, 8 over tq_local), none on the workers" "16 0 0" \
  "$(( $(charges c) - c0 )) $(charges w1) $(charges w2)"
c0=$(charges c)
check "... without bounds (the cells of the grid of magnitudes): the same cells as on one node" "0 0 0 0 0 0 0" \
  "$(qdiffs '' "dp_percentile(x, 0.377777, $E, 0)" "$QC") $(qdiffs dept "dp_percentile(x, 0.912345, $E, 0)" "$QC") $(qdiffs uid "dp_percentile(x, 0.377777, $E, 0)" "$QC") $(qdiffs dept "dp_percentiles(i, ARRAY[0.377777, 0.912345], $E, 0)" "$QCS") $(qdiffs uid "dp_percentiles(i, ARRAY[0.377777, 0.912345], $E, 0)" "$QCS") $(qdiffs dept "dp_percentile(v, 0.912345, $E, 0)" "$QC") $(qdiffs '' "dp_percentiles(v, ARRAY[0.377777, 0.912345], $E, 0)" "$QCS")"
check "... one charge per query on the coordinator (7 over tq, 7 over tq_local), none on the workers" "14 0 0" \
  "$(( $(charges c) - c0 )) $(charges w1) $(charges w2)"
same=0
for m in "dp_percentile(x, 0.3, 1, 0, 0, 50)" "dp_median(i, 1, 1e-5, 0, 50, 'auto')" "dp_percentiles(v, ARRAY[0.1, 0.9], 2, 0, 0, 50)" "dp_percentile(x, 0.3, 1, 0)" "dp_median(i, 1, 0)" "dp_percentiles(x, ARRAY[0.25, 0.5, 0.75], 3, 0)"; do
  as_analyst c "SELECT $m FROM tq" >/dev/null; a=$(lastcharge)
  as_analyst c "SELECT $m FROM tq_local" >/dev/null; b=$(lastcharge)
  [ "$a" == "$b" ] && [ -n "$a" ] && same=$((same + 1))
done
check "... with the same charge in the ledger as on one node (name as written, epsilon, delta, the parts' mechanisms), for each form with and without bounds" "6 dp_percentiles" \
  "$same $(lastcharge | cut -d' ' -f1)"
qempty() {  # qempty TABLE: over its empty groups, then over no row at all
  as_analyst c "SELECT count(*) FILTER (WHERE a BETWEEN 0 AND 1) || '|' || count(*) FILTER (WHERE b IS NULL) || '|' || count(*) FILTER (WHERE c[1] BETWEEN 0 AND 1) FROM (SELECT uid, dp_median(x, $E, 0, 0, 1) a FROM $1 WHERE uid >= 500 GROUP BY uid) s1 JOIN (SELECT uid, dp_percentile(x, 0.5, $E, 0) b FROM $1 WHERE uid >= 500 GROUP BY uid) s2 USING (uid) JOIN (SELECT uid, dp_percentiles(v, ARRAY[0.5], $E, 0, 0, 1) c FROM $1 WHERE uid >= 500 GROUP BY uid) s3 USING (uid)" \
    "SELECT (SELECT dp_median(x, $E, 0, 0, 1) BETWEEN 0 AND 1 FROM $1 WHERE uid > 1000) || '|' || (SELECT dp_median(x, $E, 0) IS NULL FROM $1 WHERE uid > 1000) || '|' || (SELECT dp_percentile(i, 0.3, $E, 0) IS NULL FROM $1 WHERE uid > 1000)" | tr '\n' ' '
}
check "... empty groups (every value NULL) and no row at all: with bounds a point of [lower, upper], without bounds NULL, as on one node" "10|10|10 true|true|true |10|10|10 true|true|true " \
  "$(qempty tq)|$(qempty tq_local)"
qsplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dept, dp_percentile(x, 0.3, 1, 0, 0, 50) FROM tq GROUP BY dept")
qdplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT uid, dp_percentiles(x, ARRAY[0.1, 0.9], 1, 0) FROM tq GROUP BY uid")
check "... the plans: the workers group by the bin (the cell) and count; the safe form a subplan, the direct form its merge hashed above the Custom Scan with its parameters back" "1 1 1 1 1 0" \
  "$(echo "$qsplan" | grep -c 'Query: .*dpagg_quantile_bin(x, .*count(x)') $(echo "$qsplan" | grep -q 'dpagg_merge_percentile(' && echo 1) $(echo "$qsplan" | grep -c 'Distributed Subplan') $(echo "$qdplan" | grep -c 'Group Key: tq.uid, dpagg_quantile_cell(tq.x)') $(echo "$qdplan" | grep -A1 '^HashAggregate' | grep -c "dpagg_merge_percentiles(remote_scan.dp_percentiles, remote_scan.dp_percentiles_1, '{0.1,0.9}'") $(echo "$qdplan" | grep -c 'Distributed Subplan')"
check "... GROUP BY dept with dp_count beside a quantile (its counts summed per bin too), a FILTER and HAVING: as on one node" \
  "$(as_analyst c "SELECT dept, dp_count($E, 1e-5), dpagg_quantile_bin(dp_percentile(x, 0.377777, $E, 0, -10, 60) FILTER (WHERE i > 3), -10, 60) FROM tq_local WHERE uid < 500 GROUP BY dept HAVING dp_count($E, 1e-5) > 10 ORDER BY dept" | tr '\n' ' ')" \
  "$(as_analyst c "SELECT dept, dp_count($E, 1e-5), dpagg_quantile_bin(dp_percentile(x, 0.377777, $E, 0, -10, 60) FILTER (WHERE i > 3), -10, 60) FROM tq WHERE uid < 500 GROUP BY dept HAVING dp_count($E, 1e-5) > 10 ORDER BY dept" | tr '\n' ' ')"
c0=$(charges c)
qnode=$(q c "SET client_min_messages = error" "SET SESSION AUTHORIZATION analyst" "SELECT uid, dpagg_quantile_bin(dp_percentile(x, 0.377777, 1e9, 0, -10, 60), -10, 60) FROM tq WHERE uid = 5 GROUP BY uid")
check "... rows on one shard (WHERE uid = 5): released on the coordinator, one charge" "5|$(as_analyst c "SELECT dpagg_quantile_bin(dp_percentile(x, 0.377777, 1e9, 0, -10, 60), -10, 60) FROM tq_local WHERE uid = 5") 2" \
  "$qnode $(( $(charges c) - c0 ))"
qerr() {  # qerr EXPR: the first error line (with its SQLSTATE) of a query over tq and over tq_local
  for tab in tq tq_local; do
    as_analyst c '\set VERBOSITY verbose' "SELECT dept, $1 FROM $tab GROUP BY dept" | grep -m1 '^ERROR' | sed 's/ at character [0-9]*//'
  done | sort -u | wc -l | tr -d ' '
}
c0=$(charges c)
check "bad parameters of the quantiles (p out of [0, 1], NaN, NULLs, lower > upper, infinite bounds, epsilon out of range, delta 1, a bad mechanism, a bad array of ps; without bounds too): the same error as on one node, nothing charged" "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 0" \
  "$(qerr "dp_percentile(x, 1.5, 1, 0, 0, 10)") $(qerr "dp_percentile(x, 'NaN', 1, 0, 0, 10)") $(qerr "dp_percentile(x, NULL, 1, 0, 0, 10)") $(qerr "dp_median(x, 1, 0, 50, 0)") $(qerr "dp_median(x, 1, 0, 0, 'Infinity')") $(qerr "dp_median(x, 1, 0, NULL, 10)") $(qerr "dp_median(x, NULL, 0, 0, 10)") $(qerr "dp_median(x, 0, 0, 0, 10)") $(qerr "dp_median(x, 1, 1, 0, 10)") $(qerr "dp_median(x, 1, 0, 0, 10, 'laplace')") $(qerr "dp_median(x, 1, 0, 0, 10, NULL)") $(qerr "dp_percentiles(x, ARRAY[]::float8[], 1, 0, 0, 10)") $(qerr "dp_percentiles(x, ARRAY[0.5, NULL], 1, 0)") $(qerr "dp_percentile(x, -0.5, 1, 0)") $(qerr "dp_median(x, 'Infinity', 0)") $(qerr "dp_percentiles(x, array_fill(0.5::float8, ARRAY[65]), 1, 0)") $(( $(charges c) - c0 ))"
check "... and it is not an internal error (XX000)" 0 \
  "$(as_analyst c '\set VERBOSITY verbose' "SELECT dept, dp_median(x, 1, 0, 50, 0) FROM tq GROUP BY dept" "SELECT dp_percentile(x, NULL, 1, 0) FROM tq" "SELECT dp_median(x, 1, 0, 0, 10, NULL) FROM tq" "SELECT dp_percentiles(x, NULL, 1, 0, 0, 10) FROM tq" | grep -c 'XX000')"
c0=$(charges c)
check "quantiles refused as dp_sum is (0A000), nothing charged: parameters that are not constants, grouping sets, another aggregate beside, a subquery in the select list, two quantiles of different values in one level" "1 1 1 1 1 0" \
  "$(as_analyst c "SELECT dp_median(x, 1, 0, 0, dept) FROM tq GROUP BY dept" | grep -c 'must be constants') $(as_analyst c "SELECT dept, dp_percentile(x, 0.5, 1, 0) FROM tq GROUP BY ROLLUP (dept)" | grep -c 'GROUPING SETS') $(as_analyst c "SELECT dp_median(x, 1, 0, 0, 10), count(*) FROM tq" | grep -c 'cannot be mixed') $(as_analyst c "SELECT dept, dp_median(x, 1, 0), (SELECT 1) FROM tq GROUP BY dept" | grep -c 'subqueries in the select list') $(as_analyst c "SELECT dept, dp_median(x, 1, 0, 0, 10), dp_median(i, 1, 0, 0, 10) FROM tq GROUP BY dept" | grep -c 'must read the same value') $(( $(charges c) - c0 ))"
check "a quantile merge refuses a bin outside its grid, a negative count and values counted without their bin" "1 1 1 1" \
  "$(q c "SELECT dpagg_merge_median(1024, 1, 1, 0, 0, 50, NULL)" 2>&1 | grep -c 'outside the grid') $(q c "SELECT dpagg_merge_percentile(6081, 1, 0.5, 1, 0, NULL, NULL, NULL)" 2>&1 | grep -c 'outside the grid') $(q c "SELECT dpagg_merge_median(3, -1, 1, 0, 0, 50, NULL)" 2>&1 | grep -c 'negative count') $(q c "SELECT dpagg_merge_median(NULL, 2, 1, 0, 0, 50, NULL)" 2>&1 | grep -c 'without their bin')"

# --- dp_sum, dp_avg and the variances without bounds: the workers group each group's rows by
# dpagg_auto_bin(x), their bin of magnitude, and count them and sum their quanta (and squares'
# quanta), dpagg_merge_auto_sum (_avg, _var_pop, ...) adds them into the state one node makes on
# the coordinator (auto_bounds.c) ---------------------------------------------------------------
# ta: 200 rows per uid over 500 uids with NULLs, NaN and infinities (x: +Infinity only, v:
# -Infinity only, so that a group's answer is dominated by them rather than cancelled to noise at
# the top bin's scale), 10 uids whose values are all NULL; ta_local its local copy.  At epsilon
# 1e9 the noise is far below 1e-9 of each answer: the answers over ta and ta_local must agree to
# 1e-9, group by group.  GROUP BY uid (groups of 200) leaves the infinities out: a few of them
# would put the noise of the top bin's scale (2^63 / 5e8) above 1e-9 of the answer.
q c "CREATE TABLE ta (uid int, dept int, x float8, i int, v numeric)" "SELECT create_distributed_table('ta', 'uid')" \
    "INSERT INTO ta SELECT g % 500, g % 7, CASE WHEN g % 97 = 0 THEN NULL WHEN g % 89 = 0 THEN 'NaN' WHEN g % 83 = 0 THEN 'Infinity' ELSE ((g * 7919) % 1000) / 10.0 - 20 END, CASE WHEN g % 101 = 0 THEN NULL ELSE (g * 31) % 90 - 5 END, CASE WHEN g % 101 = 0 THEN 'NaN' WHEN g % 103 = 0 THEN NULL WHEN g % 107 = 0 THEN '-Infinity' ELSE ((g * 13) % 700) / 7.0 END FROM generate_series(1, 100000) g" \
    "INSERT INTO ta SELECT 500 + g % 10, 3, NULL, NULL, NULL FROM generate_series(1, 50) g" \
    "CREATE TABLE ta_local AS SELECT * FROM ta" "GRANT SELECT ON ta, ta_local TO analyst" >/dev/null
adiffs() {  # adiffs KEY AGG [WHERE]: the groups (by KEY, or none) where AGG over ta and ta_local differ by more than 1e-9 of it (or in being NULL)
  local key="" by="" join="," on=""
  [ -n "$1" ] && { key="$1 k,"; by="GROUP BY $1"; join="JOIN"; on="USING (k)"; }
  as_analyst c "SELECT count(*) FROM (SELECT $key $2 a FROM ta WHERE uid < 500 ${3:-} $by) a $join (SELECT $key $2 b FROM ta_local WHERE uid < 500 ${3:-} $by) b $on WHERE (a IS NULL) <> (b IS NULL) OR abs(a - b) > 1e-9 * abs(b)"
}
FIN="AND x IS DISTINCT FROM 'Infinity' AND v IS DISTINCT FROM '-Infinity'"
c0=$(charges c)
check "dp_sum and dp_avg without bounds, whole table, GROUP BY dept (safe form) and GROUP BY uid (direct form), float8, integer and numeric values with NULL, NaN and infinities: as on one node to 1e-9" "0 0 0 0 0 0 0 0 0 0 0 0" \
  "$(adiffs '' "dp_sum(x, $E, 1e-5)") $(adiffs '' "dp_avg(v, $E, 1e-5)") $(adiffs '' "dp_sum(i, $E, 0)") $(adiffs dept "dp_sum(x, $E, 1e-5)") $(adiffs dept "dp_avg(x, $E, 1e-5)") $(adiffs dept "dp_sum(v, $E, 1e-5)") $(adiffs dept "dp_avg(i, $E, 1e-5)") $(adiffs uid "dp_sum(x, $E, 1e-5)" "$FIN") $(adiffs uid "dp_avg(x, $E, 1e-5)" "$FIN") $(adiffs uid "dp_sum(v, $E, 1e-5)" "$FIN") $(adiffs uid "dp_avg(i, $E, 1e-5)") $(adiffs uid "dp_sum(i, $E, 1e-5)")"
check "... one charge per query on the coordinator (12 over ta, 12 over ta_local), none on the workers" "24 0 0" \
  "$(( $(charges c) - c0 )) $(charges w1) $(charges w2)"
c0=$(charges c)
check "dp_var_pop, dp_var_samp, dp_stddev_pop and dp_stddev_samp without bounds, the same shapes and values: as on one node to 1e-9" "0 0 0 0 0 0 0 0 0 0 0" \
  "$(adiffs '' "dp_var_pop(x, $E, 1e-5)") $(adiffs '' "dp_stddev_samp(v, $E, 1e-5)") $(adiffs '' "dp_var_samp(i, $E, 0)") $(adiffs dept "dp_var_pop(x, $E, 1e-5)") $(adiffs dept "dp_stddev_pop(v, $E, 1e-5)") $(adiffs dept "dp_var_samp(i, $E, 1e-5)") $(adiffs dept "dp_stddev_samp(x, $E, 1e-5)") $(adiffs uid "dp_var_pop(x, $E, 1e-5)" "$FIN") $(adiffs uid "dp_stddev_samp(v, $E, 1e-5)" "$FIN") $(adiffs uid "dp_var_samp(i, $E, 1e-5)") $(adiffs uid "dp_stddev_pop(i, $E, 1e-5)")"
check "... one charge per query on the coordinator (11 over ta, 11 over ta_local), none on the workers" "22 0 0" \
  "$(( $(charges c) - c0 )) $(charges w1) $(charges w2)"
lastrow() { q c "SELECT aggregate || ' ' || mechanism || ' ' || epsilon || ' ' || delta || ' ' || coalesce(rho::text, '-') || ' ' || limited FROM dp_ledger ORDER BY seq DESC LIMIT 1"; }
same=0
for m in "dp_sum(x, 1, 1e-5)" "dp_avg(i, 2, 0)" "dp_var_pop(v, 1, 1e-5)" "dp_var_samp(x, 3, 1e-6)" "dp_stddev_pop(i, 1, 0)" "dp_stddev_samp(v, 2, 1e-5)"; do
  as_analyst c "SELECT dept, $m FROM ta GROUP BY dept" >/dev/null; a=$(lastrow)
  as_analyst c "SELECT dept, $m FROM ta_local GROUP BY dept" >/dev/null; b=$(lastrow)
  [ "$a" == "$b" ] && [ -n "$a" ] && same=$((same + 1))
done
check "... with the same ledger row as on one node (name, mechanisms of the parts, epsilon, delta, rho), for each form" "6 dp_stddev_samp" \
  "$same $(lastcharge | cut -d' ' -f1)"
aempty() {  # aempty TABLE: over its empty groups (10), then over no row at all
  as_analyst c "SELECT count(*) FILTER (WHERE a IS NOT NULL) || '|' || count(*) FILTER (WHERE b IS NULL) FROM (SELECT uid, dp_sum(x, $E, 1e-5) a FROM $1 WHERE uid >= 500 GROUP BY uid) s1 JOIN (SELECT uid, dp_var_samp(v, $E, 1e-5) b FROM $1 WHERE uid >= 500 GROUP BY uid) s2 USING (uid)" \
    "SELECT (SELECT round(dp_sum(x, $E, 1e-5)::numeric, 3) FROM $1 WHERE uid > 1000) || '|' || (SELECT round(dp_avg(i, $E, 1e-5)::numeric, 3) FROM $1 WHERE uid > 1000) || '|' || (SELECT dp_stddev_pop(v, $E, 1e-5) IS NULL FROM $1 WHERE uid > 1000)" | tr '\n' ' '
}
check "... empty groups (every value NULL) and no row at all: as on one node" "$(aempty ta_local)" "$(aempty ta)"
asplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dept, dp_avg(x, 1, 1e-5) FROM ta GROUP BY dept")
adplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT uid, dp_var_pop(x, 1, 1e-5) FROM ta GROUP BY uid")
check "... the plans: the workers group by the bin, count and sum the quanta; the safe form a subplan, the direct form its merge hashed above the Custom Scan with its parameters back" "1 1 1 1 1 0" \
  "$(echo "$asplan" | grep -c 'Query: .*dpagg_auto_bin(x).*count(x).*sum(.*dpagg_auto_quanta(x)') $(echo "$asplan" | grep -q 'dpagg_merge_auto_avg(' && echo 1) $(echo "$asplan" | grep -c 'Distributed Subplan') $(echo "$adplan" | grep -c 'Group Key: ta.uid, dpagg_auto_bin(ta.x)') $(echo "$adplan" | grep -A1 '^HashAggregate' | grep -c "dpagg_merge_auto_var_pop(.*'1'::double precision, '1e-05'::double precision)") $(echo "$adplan" | grep -c 'Distributed Subplan')"
check "... GROUP BY dept: dp_sum and dp_avg of one value beside dp_count (its counts summed per bin too), FILTER and HAVING: as on one node" \
  "$(as_analyst c "SELECT dept, dp_count($E, 1e-5), round(dp_sum(x, $E, 1e-5) FILTER (WHERE i > 3)), round(dp_avg(x, $E, 1e-5) FILTER (WHERE i > 3)::numeric, 4) FROM ta_local WHERE uid < 500 GROUP BY dept HAVING dp_count($E, 1e-5) > 10 ORDER BY dept" | tr '\n' ' ')" \
  "$(as_analyst c "SELECT dept, dp_count($E, 1e-5), round(dp_sum(x, $E, 1e-5) FILTER (WHERE i > 3)), round(dp_avg(x, $E, 1e-5) FILTER (WHERE i > 3)::numeric, 4) FROM ta WHERE uid < 500 GROUP BY dept HAVING dp_count($E, 1e-5) > 10 ORDER BY dept" | tr '\n' ' ')"
c0=$(charges c)
anode=$(q c "SET client_min_messages = error" "SET SESSION AUTHORIZATION analyst" "SELECT uid, round(dp_sum(i, 1e9, 1e-5)) FROM ta WHERE uid = 5 GROUP BY uid")
check "... rows on one shard (WHERE uid = 5): released on the coordinator, one charge" "5|$(as_analyst c "SELECT round(dp_sum(i, 1e9, 1e-5)) FROM ta_local WHERE uid = 5") 2" \
  "$anode $(( $(charges c) - c0 ))"
aerr() {  # aerr EXPR: the first error line (with its SQLSTATE) of a query over ta and over ta_local
  for tab in ta ta_local; do
    as_analyst c '\set VERBOSITY verbose' "SELECT dept, $1 FROM $tab GROUP BY dept" | grep -m1 '^ERROR' | sed 's/ at character [0-9]*//'
  done | sort -u | wc -l | tr -d ' '
}
c0=$(charges c)
check "bad parameters without bounds (epsilon 0, NaN, infinite, too small, too large, NULL; delta 1, -1, NaN, NULL): the same error as on one node, nothing charged" "1 1 1 1 1 1 1 1 1 1 1 1 1 0" \
  "$(aerr "dp_sum(x, 0, 1e-5)") $(aerr "dp_avg(x, 'NaN', 1e-5)") $(aerr "dp_sum(x, 'Infinity', 1e-5)") $(aerr "dp_avg(x, 3e-10, 1e-5)") $(aerr "dp_var_pop(x, 5e-10, 1e-5)") $(aerr "dp_stddev_samp(x, 3e9, 1e-5)") $(aerr "dp_sum(x, NULL, 1e-5)") $(aerr "dp_var_samp(x, 1, 1)") $(aerr "dp_avg(x, 1, -1)") $(aerr "dp_stddev_pop(x, 1, 'NaN')") $(aerr "dp_sum(x, 1, NULL)") $(aerr "dp_var_pop(x, NULL, 0)") $(aerr "dp_sum(i, 1e-300, 0)") $(( $(charges c) - c0 ))"
check "... and it is not an internal error (XX000)" 0 \
  "$(as_analyst c '\set VERBOSITY verbose' "SELECT dept, dp_sum(x, 0, 1e-5) FROM ta GROUP BY dept" "SELECT dp_var_pop(x, NULL, 0) FROM ta" "SELECT dp_avg(x, 1, 1) FROM ta" "SELECT uid, dp_stddev_samp(x, 1, NULL) FROM ta GROUP BY uid" | grep -c 'XX000')"
c0=$(charges c)
check "without bounds refused as dp_sum is (0A000), nothing charged: parameters that are not constants, grouping sets, another aggregate beside, two values in one level, beside a quantile without bounds" "1 1 1 1 1 0" \
  "$(as_analyst c "SELECT dp_sum(x, 1, dept) FROM ta GROUP BY dept" | grep -c 'must be constants') $(as_analyst c "SELECT dept, dp_avg(x, 1, 0) FROM ta GROUP BY ROLLUP (dept)" | grep -c 'GROUPING SETS') $(as_analyst c "SELECT dp_var_pop(x, 1, 0), count(*) FROM ta" | grep -c 'cannot be mixed') $(as_analyst c "SELECT dept, dp_sum(x, 1, 0), dp_sum(i, 1, 0) FROM ta GROUP BY dept" | grep -c 'must read the same value') $(as_analyst c "SELECT dept, dp_sum(x, 1, 0), dp_median(x, 1, 0) FROM ta GROUP BY dept" | grep -c 'must read the same value') $(( $(charges c) - c0 ))"
check "a merge without bounds refuses a bin outside the 191, a negative count, values without their bin, a sum no count of its bin makes, squares likewise (22023)" "1 1 1 1 1 1" \
  "$(q c "SELECT dpagg_merge_auto_sum(191, 1, 0, 1, 0)" 2>&1 | grep -c 'outside the 191') $(q c "SELECT dpagg_merge_auto_avg(100, -1, 0, 1, 0)" 2>&1 | grep -c 'negative count') $(q c "SELECT dpagg_merge_auto_sum(NULL, 2, 0, 1, 0)" 2>&1 | grep -c 'without their bin') $(q c "SELECT dpagg_merge_auto_sum(120, 1, 2::numeric ^ 53, 1, 0)" 2>&1 | grep -c 'no count of values') $(q c "SELECT dpagg_merge_auto_sum(120, 1, 5, 1, 0)" 2>&1 | grep -c 'no count of values') $(q c "SELECT dpagg_merge_auto_var_pop(120, 2, 3 * 2::numeric ^ 51, 2::numeric ^ 53 + 1, 1, 0)" 2>&1 | grep -c 'sum of squares')"

# A scrollable cursor (attack review): fetching a group back and forth returns the value released
# once, and one charge; the direct form is not used for it (its top plan could not go backwards).
c0=$(charges c)
out=$(as_analyst c "BEGIN" "DECLARE sc SCROLL CURSOR FOR SELECT uid, dp_sum(x, 0.5, 1e-5, -10, 10) FROM t WHERE uid <= 6 GROUP BY uid" \
  "FETCH FORWARD 2 FROM sc" "FETCH BACKWARD 1 FROM sc" "FETCH FORWARD 1 FROM sc" "FETCH BACKWARD 1 FROM sc" "FETCH FORWARD 1 FROM sc" "COMMIT")
check "a SCROLL cursor grouped by uid: 6 rows fetched back and forth are 2 released values, one charge" "6 2 1" \
  "$(echo "$out" | grep -cE '^[0-9]+[|]') $(echo "$out" | grep -E '^[0-9]+[|]' | sort -u | wc -l | tr -d ' ') $(( $(charges c) - c0 ))"
c0=$(charges c)
check "citus.task_assignment_policy other than greedy is refused while planning, nothing charged (a plain EXPLAIN plans)" "1 0 1" \
  "$(as_analyst c "SET citus.task_assignment_policy = 'round-robin'" "SELECT dept, dp_count(1, 1e-5) FROM t GROUP BY dept" | grep -c 'task_assignment_policy = greedy') $(( $(charges c) - c0 )) $(as_analyst c "SET citus.task_assignment_policy = 'round-robin'" "EXPLAIN (COSTS OFF) SELECT dept, dp_count(1, 1e-5) FROM t GROUP BY dept" | grep -q 'Custom Scan' && echo 1)"

# --- one charge per release, on the coordinator --------------------------------------------
before=$(charges c)
as_analyst c "SELECT dept, dp_count(1, 1e-5), dp_avg(x, 1, 1e-5, 0, 50) FROM t GROUP BY dept" >/dev/null
as_analyst c "SELECT uid, dp_sum(x, 1, 1e-5, 0, 50) FROM t GROUP BY uid" >/dev/null
check "three releases: three charges in the coordinator's ledger" "$((before + 3))" "$(charges c)"
check "... and none on the workers" "0 0" "$(charges w1) $(charges w2)"
check "the coordinator's ledger records the analyst's query" 1 \
  "$(q c "SELECT count(*) FROM dp_ledger WHERE query = 'SELECT uid, dp_sum(x, 1, 1e-5, 0, 50) FROM t GROUP BY uid'")"

# --- refusals -------------------------------------------------------------------------------
out=$(q w1 "SELECT dp_set_budget(current_user::regrole, 10, 0)" "SELECT dp_count(1, 1e-5) FROM t")
check "a worker refuses to release, naming the coordinator" 1 "$(echo "$out" | grep -c 'releases only on the Citus coordinator')"
check "... and charges nothing" "0" "$(q w1 "SELECT count(*) FROM dp_ledger WHERE epsilon = 1")"
q c "SELECT dp_set_budget('analyst', 2, 0)" >/dev/null
spent=$(q c "SELECT round(epsilon_spent::numeric) FROM dp_budgets WHERE role = 'analyst'")
out=$(as_analyst c "SELECT dp_count(1, 1e-5) FROM t")
check "an exhausted budget on the coordinator refuses" 1 "$(echo "$out" | grep -c 'exhausted')"
q c "SELECT dp_set_budget('analyst', 1e12, 0.5)" >/dev/null
# Shard scans as the workers count them.  Citus's connections to the workers are not kept
# (max_cached_conns_per_worker = 0), so each worker backend reports its counters when it exits.
# (Citus hides shards from the catalog views unless override_table_visibility is off.)
ST="SELECT coalesce(sum(seq_scan), 0) FROM pg_stat_user_tables"
scans() { sleep 1.5; echo $(( $(q w1 "SET citus.override_table_visibility = off" "$ST") + $(q w2 "SET citus.override_table_visibility = off" "$ST") )); }
q c "CREATE ROLE nobudget LOGIN" "GRANT SELECT ON t TO nobudget" >/dev/null
s0=$(scans)
out=$(q c "SET citus.max_cached_conns_per_worker = 0" "SET SESSION AUTHORIZATION nobudget" "SELECT dept, dp_count(1, 1e-5) FROM t GROUP BY dept")
check "a role without a budget is refused while the query is planned" 1 "$(echo "$out" | grep -c 'has no privacy budget')"
s1=$(scans)
check "... before any worker read its shards" "$s0" "$s1"
as_analyst c "SET citus.max_cached_conns_per_worker = 0" "SELECT dept, dp_count(1, 1e-5) FROM t GROUP BY dept" >/dev/null
check "... (the same query with a budget does read them: the counters move)" yes "$([ "$(scans)" -gt "$s1" ] && echo yes)"
check "a merge refuses a partial sum its count of values could not make" 1 \
  "$(q c "SELECT dpagg_merge_sum(1e30, 1, 1, 1e-5, 0, 50, NULL, false)" 2>&1 | grep -c 'count of clamped values')"
check "... and one that is not a sum of quanta" 1 \
  "$(q c "SELECT dpagg_merge_sum(1.5, 1, 1, 1e-5, 0, 50, NULL, false)" 2>&1 | grep -c 'not an integer')"
c0=$(charges c)
check "a subquery in the select list or HAVING of a dp level on Citus is refused (0A000) and charges nothing" "1 1 0" \
  "$(q c "SELECT d.name, dp_count(0.1, 1e-6), (SELECT d.name) FROM t JOIN depts d USING (dept) GROUP BY d.name" | grep -c 'subqueries in the select list') $(q c "WITH c AS (SELECT 5 AS k) SELECT dept, dp_count(0.1, 1e-6) FROM t GROUP BY dept HAVING dept > (SELECT k FROM c)" | grep -c 'subqueries in the select list') $(( $(charges c) - c0 ))"
c0=$(charges c)
check "a HAVING dp_count in an IN subquery of a distributed query runs once, on the coordinator" "100000 1" \
  "$(q c "SELECT count(*) FROM t WHERE dept IN (SELECT dept FROM t GROUP BY dept HAVING dp_count(1, 1e-5) > 0)") $(( $(charges c) - c0 ))"
c0=$(charges c)
check "report forms on a distributed table: the value inside its interval, for a group per dept" 1 \
  "$(q c "SELECT bool_and((r).value BETWEEN (r).ci_low AND (r).ci_high AND (r).ci_low < (r).ci_high) FROM (SELECT dept, dp_sum_report(x, 1, 1e-5, 0, 50, 'laplace') r FROM t GROUP BY dept) s" | grep -c '^t$')"
check "... dp_avg_report and dp_count_report over the whole table; one charge per query (3)" "1 1 3" \
  "$(q c "SELECT ((r).ci_low <= (r).ci_high)::int FROM (SELECT dp_avg_report(x, 1, 1e-5, 0, 50) r FROM t) s") $(q c "SELECT ((r).ci_low >= 0)::int FROM (SELECT dp_count_report(1, 1e-5) r FROM t) s") $(( $(charges c) - c0 ))"
check "an integer sum on a distributed table keeps its integer calibration (discrete_laplace: whole numbers)" 1 \
  "$(q c "SELECT dp_sum(i, 1, 0, 0, 50, 'discrete_laplace') = round(dp_sum(i, 1, 0, 0, 50, 'discrete_laplace')) FROM t" | grep -c '^t$')"
check "... while a merge written by hand cannot claim integer values" 1 \
  "$(q c "SELECT dpagg_merge_sum(1, 1, 1, 0, 0, 50, 'discrete_laplace', true)" 2>&1 | grep -c 'not a sum of whole numbers')"
check "merged by hand on one node, partial sums give dp_sum's exact answer" \
  "$(q c "SELECT round(sum(greatest(0, least(x, 50))))::bigint FROM local_t")" \
  "$(q c "SELECT round(dpagg_merge_sum(s, n, $E, 1e-5, 0, 50, NULL, false))::bigint FROM (SELECT dept, sum(dpagg_quanta_sum(x, 0, 50)) s, count(x) n FROM local_t GROUP BY dept) q")"

# --- the charge stays with the login role ------------------------------------------------------
q c "CREATE ROLE rich LOGIN" "GRANT rich TO analyst" "GRANT SELECT ON t TO rich" "SELECT dp_set_budget('rich', 1000, 0.5)" >/dev/null
out=$(as_analyst c "SET ROLE rich" "SET citus.enable_local_execution = off" "SELECT dp_count(1, 1e-5) FROM t")
check "without local execution (Citus would run the release as the current role) dpagg refuses" 1 \
  "$(echo "$out" | grep -c 'needs citus.enable_local_execution = on')"
check "... also for a statement prepared and run once before it was switched off" 1 \
  "$(q c "SET plan_cache_mode = force_generic_plan" "PREPARE rel AS SELECT dp_count(1, 1e-5) FROM t" "EXECUTE rel" \
        "SET citus.enable_local_execution = off" "EXECUTE rel" | grep -cE 'backend Citus opened|needs citus.enable_local_execution')"
check "a release in a backend that Citus opened (its application_name) is refused" 1 \
  "$(q c "SET application_name = 'citus_internal gpid=1'" "SELECT dp_count(1, 1e-5) FROM local_t" | grep -c 'backend Citus opened')"
check "... and nothing was charged to the other role" "0" "$(q c "SELECT count(*) FROM dp_ledger WHERE role = 'rich'")"

# --- private relations on Citus: their shards are private too ---------------------------------
q c "CREATE TABLE pt (uid int, v int)" "SELECT create_distributed_table('pt', 'uid')" \
    "INSERT INTO pt SELECT g, g * 10 FROM generate_series(1, 1000) g" "SELECT dp_protect('pt', 'uid')" \
    "CREATE TABLE rpriv (uid int, v int)" "SELECT create_reference_table('rpriv')" \
    "INSERT INTO rpriv SELECT g, g FROM generate_series(1, 100) g" "SELECT dp_protect('rpriv', 'uid')" \
    "CREATE ROLE curious LOGIN" "GRANT SELECT ON pt, rpriv TO curious" "SELECT dp_restrict('curious')" >/dev/null
shard=$(q c "SELECT 'rpriv_' || shardid FROM pg_dist_shard WHERE logicalrelid = 'rpriv'::regclass")
out=$(q c "SET SESSION AUTHORIZATION curious" "SELECT * FROM $shard LIMIT 1")
check "a restricted role reading a private reference table's copy by its shard name is refused" 1 \
  "$(echo "$out" | grep -c 'restricted roles may read private relations only')"
out=$(q c "SET SESSION AUTHORIZATION curious" "SELECT result FROM run_command_on_shards('pt', 'SELECT sum(v) FROM %s')")
check "... and through run_command_on_shards on the workers" 0 "$(echo "$out" | grep -cE '^[0-9]+$')"

# --- privacy units on Citus: the per-unit rows pushed down, the per-unit aggregates on the coordinator
q c "CREATE TABLE pt2 (uid int, dept int, v int)" "SELECT create_distributed_table('pt2', 'uid')" \
    "INSERT INTO pt2 SELECT g % 500 + 1, (g % 500) % 5, g % 50 FROM generate_series(1, 3000) g" \
    "CREATE TABLE pt2_local AS SELECT * FROM pt2" \
    "SELECT dp_protect('pt2', 'uid')" "SELECT dp_protect('pt2_local', 'uid')" \
    "GRANT SELECT ON pt2, pt2_local TO analyst, curious" "SELECT dp_set_budget('curious', 1e12, 0.5)" >/dev/null
c0=$(charges c)
check "a private distributed table (unit = distribution column), whole table: as over a local copy" \
  "$(as_analyst c "SELECT round(dp_sum(v, $E, 1e-5, 0, 100)), dp_count($E, 1e-5), round(dp_avg(v, $E, 1e-5, 0, 100)::numeric, 3) FROM pt2_local")" \
  "$(as_analyst c "SELECT round(dp_sum(v, $E, 1e-5, 0, 100)), dp_count($E, 1e-5), round(dp_avg(v, $E, 1e-5, 0, 100)::numeric, 3) FROM pt2")"
check "... GROUP BY dept, keys from the data (private group selection), HAVING, ORDER BY: as over a local copy" \
  "$(as_analyst c "SELECT dept, dp_count($E, 1e-5) n, round(dp_sum(v, $E, 1e-5, 0, 100)) s, round(dp_avg(v, $E, 1e-5, 0, 100)) a FROM pt2_local WHERE v > 3 GROUP BY dept HAVING dp_count($E, 1e-5) > 10 ORDER BY dept" | tr '\n' ' ')" \
  "$(as_analyst c "SELECT dept, dp_count($E, 1e-5) n, round(dp_sum(v, $E, 1e-5, 0, 100)) s, round(dp_avg(v, $E, 1e-5, 0, 100)) a FROM pt2 WHERE v > 3 GROUP BY dept HAVING dp_count($E, 1e-5) > 10 ORDER BY dept" | tr '\n' ' ')"
check "... dp_sum_vector and a report form over the private distributed table: as over a local copy" \
  "$(as_analyst c "SELECT round((dp_sum_vector(ARRAY[v::float8], 1, $E, 1e-5, 100))[1]), round((dp_count_report($E, 1e-5)).value) FROM pt2_local")" \
  "$(as_analyst c "SELECT round((dp_sum_vector(ARRAY[v::float8], 1, $E, 1e-5, 100))[1]), round((dp_count_report($E, 1e-5)).value) FROM pt2")"
check "... the four variances (per unit: of the units' averages), whole table and GROUP BY dept with a report form: as over a local copy" \
  "$(as_analyst c "SELECT round(dp_var_pop(v, $E, 1e-5, 0, 100)::numeric, 6), round(dp_var_samp(v, $E, 1e-5, 0, 100)::numeric, 6), round(dp_stddev_pop(v, $E, 1e-5, 0, 100)::numeric, 6), round(dp_stddev_samp(v, $E, 1e-5, 0, 100)::numeric, 6) FROM pt2_local") $(as_analyst c "SELECT dept, round(dp_var_samp(v, $E, 1e-5, 0, 100)::numeric, 6), round((dp_stddev_pop_report(v, $E, 1e-5, 0, 100)).value::numeric, 6) FROM pt2_local GROUP BY dept ORDER BY dept" | tr '\n' ' ')" \
  "$(as_analyst c "SELECT round(dp_var_pop(v, $E, 1e-5, 0, 100)::numeric, 6), round(dp_var_samp(v, $E, 1e-5, 0, 100)::numeric, 6), round(dp_stddev_pop(v, $E, 1e-5, 0, 100)::numeric, 6), round(dp_stddev_samp(v, $E, 1e-5, 0, 100)::numeric, 6) FROM pt2") $(as_analyst c "SELECT dept, round(dp_var_samp(v, $E, 1e-5, 0, 100)::numeric, 6), round((dp_stddev_pop_report(v, $E, 1e-5, 0, 100)).value::numeric, 6) FROM pt2 GROUP BY dept ORDER BY dept" | tr '\n' ' ')"
check "... the quantiles (per unit: of the units' averages), with and without bounds, whole table and GROUP BY dept: as over a local copy (the same bins)" \
  "$(as_analyst c "SELECT dpagg_quantile_bin(dp_percentile(v, 0.377777, $E, 0, 0, 100), 0, 100), dpagg_quantile_cell(dp_percentile(v, 0.377777, $E, 0)) FROM pt2_local") $(as_analyst c "SELECT dept, dpagg_quantile_bin((dp_percentiles(v, ARRAY[0.377777], $E, 0, 0, 100))[1], 0, 100) FROM pt2_local GROUP BY dept ORDER BY dept" | tr '\n' ' ')" \
  "$(as_analyst c "SELECT dpagg_quantile_bin(dp_percentile(v, 0.377777, $E, 0, 0, 100), 0, 100), dpagg_quantile_cell(dp_percentile(v, 0.377777, $E, 0)) FROM pt2") $(as_analyst c "SELECT dept, dpagg_quantile_bin((dp_percentiles(v, ARRAY[0.377777], $E, 0, 0, 100))[1], 0, 100) FROM pt2 GROUP BY dept ORDER BY dept" | tr '\n' ' ')"
check "... dp_sum, dp_avg and the variances without bounds (per unit: of the units' totals, averages), whole table and GROUP BY dept: as over a local copy" \
  "$(as_analyst c "SELECT round(dp_sum(v, $E, 1e-5)::numeric, 3), round(dp_avg(v, $E, 1e-5)::numeric, 3), round(dp_var_pop(v, $E, 1e-5)::numeric, 3), round(dp_stddev_samp(v, $E, 1e-5)::numeric, 3) FROM pt2_local") $(as_analyst c "SELECT dept, round(dp_avg(v, $E, 1e-5)::numeric, 3), round(dp_var_samp(v, $E, 1e-5)::numeric, 3) FROM pt2_local GROUP BY dept ORDER BY dept" | tr '\n' ' ')" \
  "$(as_analyst c "SELECT round(dp_sum(v, $E, 1e-5)::numeric, 3), round(dp_avg(v, $E, 1e-5)::numeric, 3), round(dp_var_pop(v, $E, 1e-5)::numeric, 3), round(dp_stddev_samp(v, $E, 1e-5)::numeric, 3) FROM pt2") $(as_analyst c "SELECT dept, round(dp_avg(v, $E, 1e-5)::numeric, 3), round(dp_var_samp(v, $E, 1e-5)::numeric, 3) FROM pt2 GROUP BY dept ORDER BY dept" | tr '\n' ' ')"
# (The HAVING dp_count is released and charged apart from the select list's on Citus, which gathers
# each aggregate's arguments as columns of their own: one charge more, never less.)
check "... the same charges on the coordinator as the local copy's, but for the repeated call in HAVING (none on the workers)" "1 0 0" \
  "$(q c "SELECT (SELECT count(*) FROM dp_ledger WHERE seq > $c0 AND query LIKE '%FROM pt2 %') - (SELECT count(*) FROM dp_ledger WHERE seq > $c0 AND query LIKE '%FROM pt2_local %')") $(q w1 "SELECT count(*) FROM dp_ledger") $(q w2 "SELECT count(*) FROM dp_ledger")"
c0=$(charges c)
check "... a restricted role is refused while planning (the workers would refuse it the per-unit rows), nothing charged" "1 0" \
  "$(q c "SET SESSION AUTHORIZATION curious" "SELECT dp_count($E, 1e-5) FROM pt2" | grep -c 'restricted roles cannot query private relations on Citus') $(( $(charges c) - c0 ))"
check "... but not the exact one, nor the per-unit aggregates by name" "1 1" \
  "$(q c "SET SESSION AUTHORIZATION curious" "SELECT count(*) FROM pt2" | grep -c 'restricted') $(q c "SET SESSION AUTHORIZATION curious" "SELECT dpagg_unit_count(1, 1, 1e-5, NULL, 1, NULL, 'uid') FROM pt2" | grep -cE 'cannot be called directly|not allowed|restricted|does not exist')"
c0=$(charges c)
out=$(as_analyst c "PREPARE pu(int) AS SELECT dept, dp_count($E, 1e-5) FROM pt2 WHERE v > \$1 GROUP BY dept ORDER BY dept LIMIT 1" \
  "EXECUTE pu(3)" "EXECUTE pu(3)" "EXECUTE pu(3)" "EXECUTE pu(3)" "EXECUTE pu(3)" "EXECUTE pu(3)" "EXECUTE pu(3)")
check "... a prepared statement past the generic-plan switch: the same answer 7 times, 2 charges each (count, selection)" "1 7 14" \
  "$(echo "$out" | sort -u | wc -l | tr -d ' ') $(echo "$out" | grep -c '^0|') $(( $(charges c) - c0 ))"
c0=$(charges c)
check "... a report form's fields, (dp_sum_report(...)).*, over a private Citus table: refused, nothing charged" "1 0" \
  "$(as_analyst c "SELECT (dp_sum_report(v, 1, 1e-5, 0, 10)).* FROM pt2" | grep -c 'may be called only once') $(( $(charges c) - c0 ))"
c0=$(charges c)
out=$(as_analyst c "SELECT uid, ((dp_sum_report(x, 1, 1e-5, 0, 50)).ci_low + (dp_sum_report(x, 1, 1e-5, 0, 50)).ci_high) / 2 - (dp_sum_report(x, 1, 1e-5, 0, 50)).value FROM t WHERE uid <= 20 GROUP BY uid")
check "GROUP BY uid with a report's fields read apart: the safe form, one release per group (the interval centred on its value), one charge" "20 1" \
  "$(echo "$out" | awk -F'|' '$2 < 1e-6 && $2 > -1e-6' | wc -l | tr -d ' ') $(( $(charges c) - c0 ))"
q c "CREATE TABLE pt3 (uid int, dept int, v int)" "SELECT create_distributed_table('pt3', 'dept')" \
    "INSERT INTO pt3 SELECT g % 500 + 1, (g % 500) % 5, g % 50 FROM generate_series(1, 3000) g" \
    "SELECT dp_protect('pt3', 'uid')" "GRANT SELECT ON pt3 TO analyst" >/dev/null
c0=$(charges c)
check "... a private table distributed by another column than its unit: refused, nothing charged" "1 0" \
  "$(as_analyst c "SELECT dept, dp_count(1, 1e-5) FROM pt3 GROUP BY dept" | grep -c 'cannot be released on Citus') $(( $(charges c) - c0 ))"
check "... grouped by its unit, or inside an outer query: refused, nothing charged" "1 1 0" \
  "$(as_analyst c "SELECT uid, dp_count(1, 1e-5) FROM pt2 GROUP BY uid" | grep -c 'cannot be released on Citus') $(as_analyst c "SELECT count(*) FROM (SELECT dept, dp_count(1, 1e-5) FROM pt2 GROUP BY dept) q" | grep -c 'cannot be released on Citus') $(( $(charges c) - c0 ))"
check "... a scrollable cursor over a private distributed table: refused, nothing charged" "1 0" \
  "$(as_analyst c "BEGIN" "DECLARE pc SCROLL CURSOR FOR SELECT dept, dp_count(1, 1e-5) FROM pt2 GROUP BY dept" "FETCH 1 FROM pc" "COMMIT" | grep -c 'cannot be released on Citus') $(( $(charges c) - c0 ))"

# --- worker-side releases under a grant (citus_grant.c; docs/citus.md §6) ----------------------
# The same key on every node: a level grouped by the distribution column is then released on the
# workers, under a grant the coordinator seals after charging.  w1 logs its statements with their
# parameters (a DBA's view), from which the checks below take a grant to replay by hand.
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
for c in c w1 w2; do
  (umask 077; printf '%s\n' "$key" >"$tmp/$c/dpagg_citus.key")
  q "$c" "ALTER SYSTEM SET dpagg.citus_key_file = 'dpagg_citus.key'" "SELECT pg_reload_conf()" >/dev/null
done
q w1 "ALTER SYSTEM SET log_min_duration_statement = 0" "ALTER SYSTEM SET log_parameter_max_length = -1" "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
c0=$(charges c)
wplan=$(as_analyst c "EXPLAIN (VERBOSE, COSTS OFF) SELECT uid, dp_sum(x, 1, 1e-5, 0, 50) FROM t GROUP BY uid")
check "with the key: GROUP BY uid is released on the workers (the grant's qual in the shard query, a one-time filter on the coordinator, no merge); EXPLAIN charges nothing" "1 1 0 0" \
  "$(echo "$wplan" | grep -c 'One-Time Filter: dpagg_citus_release(\$1') $(echo "$wplan" | grep -c 'Query: SELECT uid, public.dp_sum(x, .* WHERE public.dpagg_citus_grant(\$1) GROUP BY uid') $(echo "$wplan" | grep -c 'dpagg_merge') $(( $(charges c) - c0 ))"
c0=$(charges c)
check "... every group as on one node (dp_count, dp_sum, dp_avg)" \
  "$(q c "SELECT md5(string_agg(uid || ':' || n || ':' || s || ':' || a, ',' ORDER BY uid)) FROM (SELECT uid, count(x) n, round(sum(greatest(0, least(x, 50))))::bigint s, round(avg(greatest(0, least(x, 50)))::numeric, 2) a FROM local_t GROUP BY uid) q")" \
  "$(as_analyst c "CREATE TEMP TABLE r AS SELECT uid, dp_count(x, $E, 1e-5) n, dp_sum(x, $E, 1e-5, 0, 50) s, dp_avg(x, $E, 1e-5, 0, 50) a FROM t GROUP BY uid" "SELECT md5(string_agg(uid || ':' || n || ':' || round(s)::bigint || ':' || round(a::numeric, 2), ',' ORDER BY uid)) FROM r")"
check "... three charges on the coordinator (one per call), none on the workers" "3 0 0" \
  "$(( $(charges c) - c0 )) $(charges w1) $(charges w2)"
c0=$(charges c)
out=$(as_analyst c "PREPARE wb(int) AS SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= \$1 GROUP BY uid" \
  "EXECUTE wb(10)" "EXECUTE wb(10)" "EXECUTE wb(10)" "EXECUTE wb(10)" "EXECUTE wb(10)" "EXECUTE wb(10)" "EXECUTE wb(10)")
check "... a prepared statement past the generic-plan switch: 7 x 10 groups of 1, 7 charges" "70 7" \
  "$(echo "$out" | grep -cE '^[0-9]+[|]1$') $(( $(charges c) - c0 ))"
c0=$(charges c)
check "... a row on one shard (WHERE uid = 7 GROUP BY uid): released on its worker, one charge" "7|1 1" \
  "$(as_analyst c "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid = 7 GROUP BY uid") $(( $(charges c) - c0 ))"
c0=$(charges c)
check "... a query pruned to no shard (WHERE false; uid = 7 AND uid = 8): no group, one charge each (its grant's; Citus's empty task on the coordinator forms no group and is not charged)" "0 2" \
  "$(as_analyst c "SELECT uid, dp_count($E, 1e-5) FROM t WHERE false GROUP BY uid" "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid = 7 AND uid = 8 GROUP BY uid" | grep -c '|') $(( $(charges c) - c0 ))"
# Replays of that last grant, taken from w1's log, sent to w1 directly.
sleep 0.3
G=$(grep -o "dpagg-grant-1:[0-9a-f]*:[0-9a-f]*" "$tmp/w1.log" | tail -1)
used=$(q w1 "SET citus.override_table_visibility = off" "SELECT 't_' || shardid FROM pg_dist_shard WHERE logicalrelid = 't'::regclass AND shardid = get_shard_id_for_distribution_column('t', 7)")
others=$(q w1 "SET citus.override_table_visibility = off" "SELECT string_agg(relname, ' ') FROM (SELECT relname FROM pg_class WHERE relname ~ '^t_[0-9]+\$' AND relname <> '$used' AND relkind = 'r' ORDER BY relname LIMIT 4) s")
set -- $others
replay() { as_analyst w1 "$1" | head -1; }
if [ -z "$G" ] || [ -z "$used" ] || [ $# -lt 4 ]; then check "a grant and shards to replay it on were found" "yes" "no: [$G] [$used] [$others]"; fi
check "replayed on w1: on the shard it was used on, refused" 1 \
  "$(replay "SELECT uid, dp_count($E, 1e-5) FROM $used WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'already used on this shard')"
check "... with a release it does not list (another epsilon), refused" 1 \
  "$(replay "SELECT uid, dp_count(2, 1e-5) FROM $1 WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'not in the coordinator.s grant')"
check "... over a shard read twice (a self-join; UNION ALL), refused" "1 1" \
  "$(replay "SELECT a.uid, dp_count($E, 1e-5) FROM $2 a JOIN $2 b USING (uid) WHERE dpagg_citus_grant('$G') GROUP BY a.uid" | grep -c 'cannot release under a Citus grant') $(replay "SELECT uid, dp_count($E, 1e-5) FROM (SELECT uid FROM $2 UNION ALL SELECT uid FROM $2) s WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'cannot release under a Citus grant')"
check "... with a grouping set (a row in two groups), refused" 1 \
  "$(replay "SELECT uid, dp_count($E, 1e-5) FROM $3 WHERE dpagg_citus_grant('$G') GROUP BY GROUPING SETS ((uid), ())" | grep -c 'cannot release under a Citus grant')"
check "... altered (one digit of its seal), refused" 1 \
  "$(replay "SELECT uid, dp_count($E, 1e-5) FROM $4 WHERE dpagg_citus_grant('${G%?}$([ "${G: -1}" = 0 ] && echo 1 || echo 0)') GROUP BY uid" | grep -c 'seal does not match')"
check "... by another role, refused" 1 \
  "$(q w1 "SELECT uid, dp_count($E, 1e-5) FROM $4 WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'another database or role')"
# By design, a grant lets each shard of its table release once: on a shard the query did not
# read, the same release (its epsilon, once per row) is allowed, and then that shard is used up.
check "... once on a shard it was not used on (each row released once per charged call), then that shard is used up" "0 1" \
  "$(replay "SELECT count(*) FROM (SELECT uid, dp_count($E, 1e-5) FROM $4 WHERE dpagg_citus_grant('$G') GROUP BY uid) q" | grep -c ERROR) $(replay "SELECT uid, dp_count($E, 1e-5) FROM $4 WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'already used on this shard')"
check "... and the workers' ledgers stay empty" "0 0" "$(charges w1) $(charges w2)"
# (attack review) a table that looks like a shard placed elsewhere (its shard id belongs to w2)
other=$(q c "SELECT 't_' || s.shardid FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid) WHERE s.logicalrelid = 't'::regclass AND n.nodeport = ${PORT[w2]} LIMIT 1")
q w1 "CREATE TABLE public.$other AS SELECT * FROM $1" "GRANT SELECT ON public.$other TO analyst" >/dev/null
check "... over a look-alike of a shard the grant places on another node, refused" 1 \
  "$(as_analyst w1 "SELECT uid, dp_count($E, 1e-5) FROM public.$other WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'does not read a shard the grant places on this node')"
q w1 "DROP TABLE public.$other" >/dev/null
"$BIN/pg_ctl" -D "$tmp/w1" -l "$tmp/w1.log" -m immediate -w restart >/dev/null 2>&1
check "... after the worker's crash restart (its record of used grants begins again), refused" 1 \
  "$(replay "SELECT uid, dp_count($E, 1e-5) FROM $2 WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'issued before this node.s record')"
c0=$(charges c)
check "ORDER BY and LIMIT at the top (Citus puts a Limit above its scan): released on the workers, charged once" "3 1" \
  "$(as_analyst c "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 10 GROUP BY uid ORDER BY uid DESC LIMIT 3" | grep -c '|1$') $(( $(charges c) - c0 ))"
c0=$(charges c)
out=$(as_analyst c "SET plan_cache_mode = force_generic_plan" "PREPARE inj(text) AS SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid IN (8, 9) GROUP BY uid ORDER BY uid" "EXECUTE inj('$G')" "EXECUTE inj('x')")
check "... a generic plan whose unused parameter an analyst fills with a grant: the grant is replaced, each execution charged" "4 2" \
  "$(echo "$out" | grep -c '|1$') $(( $(charges c) - c0 ))"
q c "ALTER ROLE analyst SET log_parameter_max_length_on_error = -1" >/dev/null
out=$(as_analyst c "SELECT uid, dp_sum(1 / (uid - 7), $E, 1e-5, 0, 1) FROM t WHERE uid = 7 GROUP BY uid")
check "an error in a shard query, with log_parameter_max_length_on_error set by the role: the grant is not in the message" "1 0" \
  "$(echo "$out" | grep -c 'division by zero') $(echo "$out" | grep -c 'dpagg-grant')"
q c "ALTER ROLE analyst RESET log_parameter_max_length_on_error" >/dev/null
# (second attack review) a copy of a worker (pg_basebackup copies the key) must not release the
# shards its original releases: a server that started in recovery refuses grants until resumed.
"$BIN/pg_basebackup" -D "$tmp/w1c" -h "$tmp" -p "${PORT[w1]}" -X stream >/dev/null 2>&1
sed -i "s/^port = .*/port = 5644/" "$tmp/w1c/postgresql.conf" "$tmp/w1c/postgresql.auto.conf" 2>/dev/null
echo "port = 5644" >>"$tmp/w1c/postgresql.auto.conf"
"$BIN/pg_ctl" -D "$tmp/w1c" -l "$tmp/w1c.log" -w start >/dev/null 2>&1
PORT[w1c]=5644
check "a copy of a worker (pg_basebackup, then started) refuses the grants its original accepts" 1 \
  "$(as_analyst w1c "SELECT uid, dp_count($E, 1e-5) FROM $3 WHERE dpagg_citus_grant('$G') GROUP BY uid" | grep -c 'started in recovery')"
check "... until a superuser resumes them (analysts may not)" "1 1" \
  "$(as_analyst w1c "SELECT dpagg_citus_grants_resume()" | grep -c 'permission denied') $(q w1c "SELECT dpagg_citus_grants_resume()" "SELECT 1" | grep -c '^1$')"
"$BIN/pg_ctl" -D "$tmp/w1c" -m immediate stop >/dev/null 2>&1; rm -rf "$tmp/w1c"
q c "CREATE ROLE carol LOGIN" "SELECT dp_set_budget('carol', 10, 0.5)" >/dev/null
c0=$(charges c)
check "a role without SELECT on the table is refused before anything is charged" "1 0" \
  "$(q c "SET SESSION AUTHORIZATION carol" "SELECT uid, dp_count(1, 1e-5) FROM t GROUP BY uid" | grep -c 'permission denied') $(( $(charges c) - c0 ))"
q c "CREATE FUNCTION above(lim float8) RETURNS TABLE (u int, n bigint) LANGUAGE plpgsql AS \$f\$ BEGIN RETURN QUERY SELECT uid, dp_count($E, 1e-5) FROM t WHERE x > lim AND uid <= 3 GROUP BY uid; END \$f\$" >/dev/null
c0=$(charges c)
out=$(as_analyst c "SELECT count(*) FROM above(0)" "SELECT count(*) FROM above(0)" "SELECT count(*) FROM above(0)" "SELECT count(*) FROM above(0)" "SELECT count(*) FROM above(0)" "SELECT count(*) FROM above(0)" "SELECT count(*) FROM above(0)")
check "PL/pgSQL with a variable, past the generic-plan switch: 7 answers, 7 charges" "7 7" \
  "$(echo "$out" | grep -c '^[0-9]$') $(( $(charges c) - c0 ))"
# One role may hold at most dpagg.citus_grants_per_role unexpired grants, refused on the coordinator
# before the charge: it cannot fill the workers' records of used grants and refuse everyone else's.
q c "CREATE ROLE dora LOGIN" "GRANT SELECT ON t TO dora" "SELECT dp_set_budget('dora', 1e12, 0.5)" \
    "CREATE ROLE eve LOGIN" "GRANT SELECT ON t TO eve" "SELECT dp_set_budget('eve', 1e12, 0.5)" \
    "ALTER SYSTEM SET dpagg.citus_grants_per_role = 2" "SELECT pg_reload_conf()" >/dev/null 2>&1
sleep 0.3
as_dora() { q c "SET SESSION AUTHORIZATION dora" "$@"; }
c0=$(charges c)
out=$(as_dora "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid" "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid")
check "dpagg.citus_grants_per_role = 2: a role's first two worker-side queries release, two charges" "6 2" \
  "$(echo "$out" | grep -c '|1$') $(( $(charges c) - c0 ))"
c0=$(charges c)
out=$(as_dora "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid")
check "... its third, while the two grants are unexpired, is refused (53400) before anything is charged" "1 0" \
  "$(echo "$out" | grep -c 'holds 2 unexpired Citus grants, the most dpagg.citus_grants_per_role allows') $(( $(charges c) - c0 ))"
c0=$(charges c)
check "... while another role still releases on the workers" "3 1" \
  "$(q c "SET SESSION AUTHORIZATION eve" "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid" | grep -c '|1$') $(( $(charges c) - c0 ))"
# (attack review) the share is the login role's, which the ledger charges: SET ROLE and SECURITY
# DEFINER functions neither give one login more nor spend another role's share
q c "CREATE ROLE grp LOGIN" "GRANT grp TO dora" "GRANT SELECT ON t TO grp" "CREATE ROLE nologin_grp NOLOGIN" "GRANT nologin_grp TO eve" "GRANT SELECT ON t TO nologin_grp" \
    "CREATE FUNCTION sd_q() RETURNS TABLE (u int, n float8) LANGUAGE sql SECURITY DEFINER AS \$f\$ SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid \$f\$" \
    "GRANT EXECUTE ON FUNCTION sd_q() TO dora, eve" >/dev/null 2>&1
c0=$(charges c)
check "... SET ROLE to another role the login belongs to: still the login's share (refused, nothing charged)" "1 0" \
  "$(as_dora "SET ROLE grp" "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid" | grep -c 'role "dora" holds 2 unexpired') $(( $(charges c) - c0 ))"
c0=$(charges c)
out=$(q c "SET SESSION AUTHORIZATION eve" "SELECT count(*) FROM sd_q()" "SELECT count(*) FROM sd_q()")
check "... a SECURITY DEFINER function (owned by a superuser) counts against the caller's share, not its owner's: eve's second grant, then refused naming eve" "1 1 1" \
  "$(echo "$out" | grep -c '^3$') $(( $(charges c) - c0 )) $(echo "$out" | grep -c 'role "eve" holds 2 unexpired')"
c0=$(charges c)
check "... SET ROLE to a role that cannot log in (Citus would connect to the workers as it): refused before the charge" "1 0" \
  "$(q c "SET SESSION AUTHORIZATION eve" "SET ROLE nologin_grp" "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid <= 3 GROUP BY uid" | grep -c 'cannot log in, and Citus would connect') $(( $(charges c) - c0 ))"
q c "ALTER SYSTEM RESET dpagg.citus_grants_per_role" "SELECT pg_reload_conf()" >/dev/null
q c "ALTER SYSTEM SET dpagg.citus_grant_lifetime = 10" "SELECT pg_reload_conf()" >/dev/null
sleep 0.3
as_analyst c "SELECT uid, dp_count($E, 1e-5) FROM t WHERE uid = 9 GROUP BY uid" >/dev/null
sleep 0.3
G2=$(grep -o "dpagg-grant-1:[0-9a-f]*:[0-9a-f]*" "$tmp/w1.log" | tail -1)
sleep 10.5
check "a grant past dpagg.citus_grant_lifetime is refused" 1 \
  "$(replay "SELECT uid, dp_count($E, 1e-5) FROM $1 WHERE dpagg_citus_grant('$G2') GROUP BY uid" | grep -c 'expired')"
q c "ALTER SYSTEM RESET dpagg.citus_grant_lifetime" "SELECT pg_reload_conf()" >/dev/null
rm -f "$tmp/w2/dpagg_citus.key"
check "a worker without the key file refuses the shard queries (the query fails; nothing is released)" 1 \
  "$(as_analyst c "SELECT uid, dp_count($E, 1e-5) FROM t GROUP BY uid" | grep -c 'could not open dpagg.citus_key_file')"

echo "citus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
