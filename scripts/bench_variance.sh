#!/usr/bin/env bash
# Private variances (src/pg/aggregates/variance.c, docs/benchmarks.md): dp_var_pop against var_pop,
# and dp_stddev_samp against stddev_samp, on the same tables in the same run, serial plans, work_mem
# large enough for one batch (2GB); at NGROUPS groups (GROUP BY k over ROWS rows, the table of
# scripts/bench_percentile.sh) and over a whole table of WHOLE rows (no GROUP BY: per-row cost).
# Each measurement runs in a fresh connection and reports the statement's time, the backend's CPU
# time (/proc/self/schedstat before and after, in the same session) and the backend's peak
# resident memory (VmHWM of /proc/self/status after the statement, less the same peak of a fresh
# connection that only read the table), as scripts/bench_percentile.sh does, except that the
# connection that only reads runs with the same settings (a serial scan: a parallel one touches
# fewer of the table's shared buffers in the backend, which would count part of the scan as the
# aggregate's).  Two modes:
#   explain  EXPLAIN (ANALYZE, TIMING OFF), server-timed (as bench_percentile.sh and
#            bench_groups.sh); it also gives the plan, its batches and the hash table's memory.
#            Under EXPLAIN ANALYZE dpagg keeps its constant parameters in the Aggref, so the
#            executor evaluates them for every row (src/pg/aggregates/site.c).
#   plain    the query itself with OFFSET past its last row (nothing sent to the client; the
#            parameters are off the per-row path), timed by psql (\timing, loopback).
# Medians of RUNS alternating runs (native, dp, native, dp, ...) after one untimed pair; prints
# the ratios dp/native, and whether the grouped plans are a HashAggregate in one batch (no spill).
# Everything runs in a throwaway cluster on the loopback interface (pg_virtualenv -t), dropped on
# exit, also on a signal (its own trap; this script's trap ends the clients it started).  It
# prints the installed library's checksum, and says so if the library was replaced during the run.
# Usage: scripts/bench_variance.sh [RUNS] [ROWS] [NGROUPS] [WHOLE]   (after dpagg is installed;
# default 5 3e6 1e6 1e7)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}; ROWS=${2:-3000000}; NGROUPS=${3:-1000000}; WHOLE=${4:-10000000}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 3000 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg -o shared_buffers=512MB bash "$0" "$@"
fi
# End the clients this script started (its own children, by their ids); pg_virtualenv then
# stops and drops the cluster.
stop_children() { local p; for p in $(pgrep -P $$ || true); do kill "$p" 2>/dev/null || true; done; }
trap stop_children EXIT
trap 'stop_children; trap - EXIT; exit 130' INT TERM HUP
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
case "${PGHOST:-}" in localhost|127.0.0.1|::1) ;; *) echo "not on the loopback interface: PGHOST=${PGHOST:-}" >&2; exit 1 ;; esac
"${PSQL[@]}" -c "CREATE EXTENSION dpagg" >/dev/null
"${PSQL[@]}" -c "SELECT dp_set_budget(current_user::regrole, 1e9, 0.5)" >/dev/null 2>&1 || true
# the data of bench_percentile.sh: k = g mod NGROUPS, x in 0, 0.1, ..., 99.9
"${PSQL[@]}" -c "CREATE TABLE t AS SELECT (g % $NGROUPS)::int AS k, ((g::bigint * 7919) % 1000)::float8 / 10 AS x FROM generate_series(1, $ROWS) g" >/dev/null
"${PSQL[@]}" -c "CREATE TABLE tw AS SELECT (g % $NGROUPS)::int AS k, ((g::bigint * 7919) % 1000)::float8 / 10 AS x FROM generate_series(1, $WHOLE) g" >/dev/null
"${PSQL[@]}" -c "VACUUM ANALYZE t" -c "VACUUM ANALYZE tw" >/dev/null
CPU="SELECT 'cpu ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)"
SETS=(-c "SET work_mem = '2GB'" -c "SET max_parallel_workers_per_gather = 0" -c "SET jit = off")
HWM="SELECT 'hwm ' || (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+)'))[1]"
# measure MODE TABLE "<select list>" "<GROUP BY clause or nothing>": one statement in a fresh
# connection; prints "ms cpu_ms peak_kB node batches hash_kB disk" (the last four "-" in plain mode)
measure() {
  local q="SELECT $3 FROM $2 $4"
  if [ "$1" = explain ]; then q="EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q"; else q="$q OFFSET 1000000000000"; fi
  "${PSQL[@]}" "${SETS[@]}" -c "$CPU" -c '\timing on' -c "$q" -c '\timing off' -c "$CPU" -c "$HWM" |
    awk '/^cpu / { if (c0 == "") c0 = $2; else c1 = $2; next } /^hwm / { h = $2; next }
         /^Time: / { w = $2; next } /Execution Time:/ { t = $3 }
         node == "" && /Aggregate/ { node = $1; if (node == "->") node = $2 }
         /Batches:/ { for (i = 1; i <= NF; i++) { if ($i == "Batches:") b = $(i+1); if ($i == "Usage:") m = $(i+1) } }
         /Disk Usage/ { d = "disk" }
         END { sub(/kB/, "", m); if (t == "") t = w; if (t == "") t = "-"
               print t, (c1 - c0) / 1e6, h, (node == "" ? "-" : node), (b == "" ? "-" : b), (m == "" ? "-" : m), (d == "" ? "-" : d) }'
}
# the base of the peak: a connection with the same settings (a serial scan) that only reads the table
base_t=$("${PSQL[@]}" "${SETS[@]}" -c "SELECT count(*) FROM t" -c "$HWM" | awk '/^hwm / {print $2}')
base_tw=$("${PSQL[@]}" "${SETS[@]}" -c "SELECT count(*) FROM tw" -c "$HWM" | awk '/^hwm / {print $2}')
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (y > 0) printf "%.2f", x / y; else print "-" }'; }
pairs=("var_pop(x)|dp_var_pop(x, 1, 1e-6, 0, 100)" "stddev_samp(x)|dp_stddev_samp(x, 1, 1e-6, 0, 100)")
shapes=("$NGROUPS groups|t|k, |GROUP BY k|$base_t" "1 group, $WHOLE rows|tw||-|$base_tw")
LIB="$("${PG_CONFIG:-pg_config}" --pkglibdir)/dpagg.so"
lib_id() { echo "$(md5sum <"$LIB" | cut -c1-12), $(stat -c '%s bytes, %y' "$LIB" | cut -d. -f1)"; }
LIB0=$(lib_id)
echo "$LIB: $LIB0"
echo "PostgreSQL $("${PSQL[@]}" -c 'SHOW server_version'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
echo "$NGROUPS groups over $ROWS rows (table t) and one group over $WHOLE rows (table tw), serial plans, work_mem 2GB, jit off"
echo "medians of $RUNS alternating runs in fresh connections after one untimed pair; time_x, cpu_x, mem_x: dp / native"
echo "peak: the backend's VmHWM after the statement less that of a connection that only scanned the table (t: $base_t kB, tw: $base_tw kB)"
printf '%-24s %-16s %-8s %10s %10s %7s %7s %10s %10s %7s\n' shape dp_aggregate mode native_ms dp_ms time_x cpu_x native_kB dp_kB mem_x
plans=(); bad=0
for shape in "${shapes[@]}"; do
  IFS='|' read -r sname tbl keys grp base <<<"$shape"
  [ "$grp" = - ] && grp=""
  for pair in "${pairs[@]}"; do
    nat=${pair%%|*}; dp=${pair#*|}
    for mode in explain plain; do
      measure "$mode" "$tbl" "$keys$nat" "$grp" >/dev/null; measure "$mode" "$tbl" "$keys$dp" "$grp" >/dev/null
      nt=(); dt=(); nc=(); dc=(); nm=(); dm=(); nh=(); dh=(); nplan=""; dplan=""
      for _ in $(seq 1 "$RUNS"); do
        read -r t c h node b m d <<<"$(measure "$mode" "$tbl" "$keys$nat" "$grp")"
        [ "$t" != - ] || { echo "a measurement of $nat failed" >&2; exit 1; }
        nt+=("$t"); nc+=("$c"); nm+=("$((h - base))"); nh+=("$m"); nplan="$nplan $node/$b/$d"
        read -r t c h node b m d <<<"$(measure "$mode" "$tbl" "$keys$dp" "$grp")"
        [ "$t" != - ] || { echo "a measurement of $dp failed" >&2; exit 1; }
        dt+=("$t"); dc+=("$c"); dm+=("$((h - base))"); dh+=("$m"); dplan="$dplan $node/$b/$d"
      done
      a=$(printf '%s\n' "${nt[@]}" | median); b=$(printf '%s\n' "${dt[@]}" | median)
      ca=$(printf '%s\n' "${nc[@]}" | median); cb=$(printf '%s\n' "${dc[@]}" | median)
      ma=$(printf '%s\n' "${nm[@]}" | median); mb=$(printf '%s\n' "${dm[@]}" | median)
      printf '%-24s %-16s %-8s %10.1f %10.1f %7s %7s %10s %10s %7s\n' "$sname" "${dp%%(*}" "$mode" "$a" "$b" \
        "$(ratio "$b" "$a")" "$(ratio "$cb" "$ca")" "$ma" "$mb" "$(ratio "$mb" "$ma")"
      if [ "$mode" = explain ]; then
        # node/batches/disk of every run, and the median of the hash table's memory (EXPLAIN's
        # "Memory Usage", the aggregate's contexts included)
        for side in native dp; do
          if [ $side = native ]; then name=${nat%%(*}; runs=$nplan; hm=("${nh[@]}"); else name=${dp%%(*}; runs=$dplan; hm=("${dh[@]}"); fi
          plans+=("$(printf '%-24s %-16s Memory Usage (median) %s kB; runs (node/batches/disk):%s' "$sname" "$name" \
            "$(printf '%s\n' "${hm[@]}" | grep -v '^-$' | median || true)" "$runs")")
          if [ -n "$grp" ]; then
            for r in $runs; do [ "$r" = HashAggregate/1/- ] || bad=$((bad + 1)); done
          fi
        done
      fi
    done
  done
done
echo
echo "plans (EXPLAIN ANALYZE runs):"
printf '%s\n' "${plans[@]}"
if [ "$bad" -eq 0 ]; then
  echo "check: every grouped run was a HashAggregate in one batch (Batches: 1), nothing written to disk"
else
  echo "check: $bad grouped run(s) NOT a one-batch in-memory HashAggregate (see above)"
fi
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs"
# the server loaded the library at its start (shared_preload_libraries): a library installed
# during the run is not the one measured, but the figures may then be from a busy machine
[ "$(lib_id)" = "$LIB0" ] || echo "note: $LIB was replaced during the run (now $(lib_id)); the server kept the one it started with"
