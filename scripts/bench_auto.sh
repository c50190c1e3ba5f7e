#!/usr/bin/env bash
# The forms without bounds at a million groups (docs/automatic_bounds.md §3, §5, §6;
# docs/benchmarks.md): dp_median(x, 1.0, 0) against percentile_cont(0.5), dp_percentiles(x, 3 ps,
# 1.0, 0) against percentile_cont(ARRAY[3 ps]), dp_var_pop(x, 1.0, 1e-6) against var_pop and
# dp_sum(x, 1.0, 1e-6) against sum, and for reference the forms with bounds dp_median(x, 1.0, 0,
# 0, 1000) and dp_var_pop(x, 1.0, 1e-6, 0, 1000), on the same tables in the same run, serial plans,
# work_mem large enough for one batch (2GB), JIT off; at NGROUPS groups (GROUP BY k over ROWS rows,
# the table of scripts/bench_percentile.sh: 3 values a group by default) and, if time allows, at
# BIG_GROUPS groups of BIG_ROWS / BIG_GROUPS values (default 100 000 groups of 30 values).
# At ε = 1 the histogram's threshold is about 38 values in a magnitude (§2), which no group of 3 or
# 30 values reaches: every group of the forms without bounds releases NULL (histogram and charge
# paid, no quantile or variance release), as an analyst's small groups would.
# Each measurement runs in a fresh connection and reports the statement's time (the query with
# OFFSET past its last row, nothing sent to the client; timed by psql, \timing, loopback), the
# backend's CPU time (/proc/self/schedstat before and after, in the same session) and the
# backend's peak resident memory (VmHWM of /proc/self/status after the statement, less the same
# peak of a fresh connection with the same settings that only scanned the table, serially; a
# parallel scan touches fewer shared buffers in the backend and would count part of the scan as
# the aggregate's), as scripts/bench_variance.sh does in its plain mode.  Before the timed runs
# one untimed pair runs under EXPLAIN (ANALYZE, TIMING OFF), whose plans are printed (node,
# batches, disk) and checked: a HashAggregate in one batch, nothing on disk, for the dp side.
# Medians of RUNS alternating runs (native, dp, native, dp, ...); prints the ratios dp/native.
# The role must be a superuser: releases are not held to a budget for the run
# (dpagg.limit_superusers = off; set with ALTER SYSTEM and a reload when it was on, and reset on
# exit), so nothing is spent and no budget is left behind.
# Everything runs in a throwaway cluster on the loopback interface (pg_virtualenv -t), dropped on
# exit, also on a signal (its own trap; this script's trap ends the clients it started), within
# 3000 s (timeout).  With DPAGG_BENCH_INSIDE=1 it runs against the cluster PGHOST/PGPORT give
# (loopback only; shared_preload_libraries=dpagg, ideally shared_buffers=512MB), creates its
# tables there under names bench_auto_*, and drops them on exit; every statement then stops after
# DPAGG_BENCH_STATEMENT_TIMEOUT (default 300s) and the larger case is skipped unless twice the time
# taken so far is within DPAGG_BENCH_BUDGET seconds (default 2400).  It prints the installed
# library's checksum, and says so if the library was replaced during the run.
# Usage: scripts/bench_auto.sh [RUNS] [ROWS] [NGROUPS] [BIG_ROWS] [BIG_GROUPS]
#   (after dpagg is installed; default 5 3000000 1000000 3000000 100000, whole numbers; BIG_GROUPS
#   0 skips the larger case)
#   DPAGG_BENCH_INSIDE=1 PGHOST=localhost PGPORT=5496 PGUSER=postgres scripts/bench_auto.sh 5
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}; ROWS=${2:-3000000}; NGROUPS=${3:-1000000}; BIG_ROWS=${4:-3000000}; BIG_GROUPS=${5:-100000}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 3000 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg -o shared_buffers=512MB \
    -o dpagg.limit_superusers=off bash "$0" "$@"
fi
START=$SECONDS; BUDGET=${DPAGG_BENCH_BUDGET:-2400}
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
case "${PGHOST:-}" in localhost|127.0.0.1|::1) ;; *) echo "not on the loopback interface: PGHOST=${PGHOST:-}" >&2; exit 1 ;; esac
T1=bench_auto_t; T2=bench_auto_big
reset_limit=""
# End the clients this script started (its own children, by their ids), drop the tables it
# made, and put dpagg.limit_superusers back if it changed it; pg_virtualenv then stops and drops
# the cluster.
cleanup() {
  local p
  for p in $(pgrep -P $$ || true); do kill "$p" 2>/dev/null || true; done
  "${PSQL[@]}" -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $T1, $T2" >/dev/null 2>&1 || true
  if [ -n "$reset_limit" ]; then
    "${PSQL[@]}" -c "ALTER SYSTEM RESET dpagg.limit_superusers" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 130' INT TERM HUP
[ "$("${PSQL[@]}" -c "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" = t ] ||
  { echo "the role must be a superuser (releases unlimited with dpagg.limit_superusers = off)" >&2; exit 1; }
"${PSQL[@]}" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dpagg" >/dev/null
if [ "$("${PSQL[@]}" -c "SHOW dpagg.limit_superusers")" != off ]; then
  reset_limit=1
  "${PSQL[@]}" -c "ALTER SYSTEM SET dpagg.limit_superusers = off" -c "SELECT pg_reload_conf()" >/dev/null
  for _ in $(seq 1 50); do [ "$("${PSQL[@]}" -c "SHOW dpagg.limit_superusers")" = off ] && break; sleep 0.1; done
fi
[ "$("${PSQL[@]}" -c "SHOW dpagg.limit_superusers")" = off ] || { echo "dpagg.limit_superusers is still on" >&2; exit 1; }
# the data of bench_percentile.sh: k = g mod groups, x in 0, 0.1, ..., 99.9
mk() { "${PSQL[@]}" -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $1" -c "CREATE TABLE $1 AS SELECT (g % $3)::int AS k, ((g::bigint * 7919) % 1000)::float8 / 10 AS x FROM generate_series(1, $2) g" -c "VACUUM ANALYZE $1" >/dev/null; }
mk $T1 "$ROWS" "$NGROUPS"
CPU="SELECT 'cpu ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)"
SETS=(-c "SET work_mem = '2GB'" -c "SET max_parallel_workers_per_gather = 0" -c "SET jit = off"
      -c "SET statement_timeout = '${DPAGG_BENCH_STATEMENT_TIMEOUT:-300s}'")
HWM="SELECT 'hwm ' || (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+)'))[1]"
# measure MODE TABLE "<aggregate>": SELECT k, <aggregate> FROM TABLE GROUP BY k in a fresh
# connection; prints "ms cpu_ms peak_kB node batches disk" (the last three "-" in plain mode)
measure() {
  local q="SELECT k, $3 FROM $2 GROUP BY k"
  if [ "$1" = explain ]; then q="EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q"; else q="$q OFFSET 1000000000000"; fi
  "${PSQL[@]}" "${SETS[@]}" -c "$CPU" -c '\timing on' -c "$q" -c '\timing off' -c "$CPU" -c "$HWM" |
    awk '/^cpu / { if (c0 == "") c0 = $2; else c1 = $2; next } /^hwm / { h = $2; next }
         /^Time: / { w = $2; next } /Execution Time:/ { t = $3 }
         node == "" && /Aggregate/ { node = $1; if (node == "->") node = $2 }
         /Batches:/ { for (i = 1; i <= NF; i++) if ($i == "Batches:") b = $(i+1) }
         /Disk Usage/ { d = "disk" }
         END { if (t == "") t = w; if (t == "") t = "-"
               print t, (c1 - c0) / 1e6, h, (node == "" ? "-" : node), (b == "" ? "-" : b), (d == "" ? "-" : d) }'
}
# the base of the peak: a connection with the same settings (a serial scan) that only reads the table
base_of() { "${PSQL[@]}" "${SETS[@]}" -c "SELECT count(*) FROM $1" -c "$HWM" | awk '/^hwm / {print $2}'; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (y > 0) printf "%.2f", x / y; else print "-" }'; }
pairs=("percentile_cont(0.5) WITHIN GROUP (ORDER BY x)|dp_median(x, 1.0, 0)"
       "percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY x)|dp_percentiles(x, ARRAY[0.1, 0.5, 0.9], 1.0, 0)"
       "var_pop(x)|dp_var_pop(x, 1.0, 1e-6)"
       "sum(x)|dp_sum(x, 1.0, 1e-6)"
       "percentile_cont(0.5) WITHIN GROUP (ORDER BY x)|dp_median(x, 1.0, 0, 0, 1000)"
       "var_pop(x)|dp_var_pop(x, 1.0, 1e-6, 0, 1000)")
LIB="$("${PG_CONFIG:-pg_config}" --pkglibdir)/dpagg.so"
lib_id() { echo "$(md5sum <"$LIB" | cut -c1-12), $(stat -c '%s bytes, %y' "$LIB" | cut -d. -f1)"; }
LIB0=$(lib_id)
echo "$LIB: $LIB0"
echo "PostgreSQL $("${PSQL[@]}" -c 'SHOW server_version'), $(nproc) CPUs, shared_buffers $("${PSQL[@]}" -c 'SHOW shared_buffers'), load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
echo "serial plans, work_mem 2GB, jit off; medians of $RUNS alternating runs in fresh connections after one untimed pair (EXPLAIN ANALYZE)"
echo "ms: psql's \\timing of the query with OFFSET past its last row; time_x, cpu_x (backend CPU), mem_x: dp / native"
echo "peak: the backend's VmHWM after the statement less that of a connection that only scanned the table serially"
plans=(); bad=0
# run_shape NAME TABLE: the six pairs over TABLE
run_shape() {
  local sname=$1 tbl=$2 base pair nat dp t c h node b d a bb ca cb ma mb nt dt nc dc nm dm nplan dplan
  base=$(base_of "$tbl")
  echo
  echo "$sname (table $tbl; base of the peak $base kB), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-48s %10s %10s %7s %7s %10s %10s %7s\n' dp_aggregate native_ms dp_ms time_x cpu_x native_kB dp_kB mem_x
  for pair in "${pairs[@]}"; do
    nat=${pair%%|*}; dp=${pair#*|}
    read -r t c h node b d <<<"$(measure explain "$tbl" "$nat")"; nplan="$node/$b/$d"
    read -r t c h node b d <<<"$(measure explain "$tbl" "$dp")"; dplan="$node/$b/$d"
    [ "$t" != - ] || { echo "$dp failed under EXPLAIN ANALYZE" >&2; exit 1; }
    [ "$dplan" = HashAggregate/1/- ] || bad=$((bad + 1))
    plans+=("$(printf '%-20s %-48s native %-28s dp %s' "$sname" "$dp" "$nplan" "$dplan")")
    nt=(); dt=(); nc=(); dc=(); nm=(); dm=()
    for _ in $(seq 1 "$RUNS"); do
      read -r t c h _ <<<"$(measure plain "$tbl" "$nat")"
      [ "$t" != - ] || { echo "a measurement of $nat failed" >&2; exit 1; }
      nt+=("$t"); nc+=("$c"); nm+=("$((h - base))")
      read -r t c h _ <<<"$(measure plain "$tbl" "$dp")"
      [ "$t" != - ] || { echo "a measurement of $dp failed" >&2; exit 1; }
      dt+=("$t"); dc+=("$c"); dm+=("$((h - base))")
    done
    a=$(printf '%s\n' "${nt[@]}" | median); bb=$(printf '%s\n' "${dt[@]}" | median)
    ca=$(printf '%s\n' "${nc[@]}" | median); cb=$(printf '%s\n' "${dc[@]}" | median)
    ma=$(printf '%s\n' "${nm[@]}" | median); mb=$(printf '%s\n' "${dm[@]}" | median)
    printf '%-48s %10.1f %10.1f %7s %7s %10s %10s %7s\n' "$dp" "$a" "$bb" \
      "$(ratio "$bb" "$a")" "$(ratio "$cb" "$ca")" "$ma" "$mb" "$(ratio "$mb" "$ma")"
  done
}
run_shape "$NGROUPS groups, $ROWS rows" $T1
if [ "$BIG_GROUPS" -gt 0 ]; then
  took=$((SECONDS - START))
  if [ $((2 * took)) -le "$BUDGET" ]; then
    mk $T2 "$BIG_ROWS" "$BIG_GROUPS"
    run_shape "$BIG_GROUPS groups, $BIG_ROWS rows" $T2
  else
    echo; echo "the larger case ($BIG_GROUPS groups, $BIG_ROWS rows) skipped: the first took ${took} s, the budget is $BUDGET s"
  fi
fi
echo
echo "plans of the untimed EXPLAIN ANALYZE pairs (node/batches/disk):"
printf '%s\n' "${plans[@]}"
if [ "$bad" -eq 0 ]; then
  echo "check: every dp run was a HashAggregate in one batch (Batches: 1), nothing written to disk"
else
  echo "check: $bad dp run(s) NOT a one-batch in-memory HashAggregate (see above)"
fi
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs; $((SECONDS - START)) s in all"
# the server loaded the library at its start (shared_preload_libraries): a library installed
# during the run is not the one measured, but the figures may then be from a busy machine
[ "$(lib_id)" = "$LIB0" ] || echo "note: $LIB was replaced during the run (now $(lib_id)); the server kept the one it started with"
