#!/usr/bin/env bash
# A million groups (docs/benchmarks.md): dp_sum, dp_avg and dp_count against sum, avg and count on the same
# table in the same run, serial plans, EXPLAIN ANALYZE (TIMING OFF): medians of RUNS alternating
# runs of the execution time and of the backend's CPU time, and the hash aggregate's memory and batches; with work_mem large
# enough for one batch (2GB) and with the default (4MB).  Prints one table and the ratios.
# EXPLAIN ANALYZE gives the hash table's memory and batches; its instrumentation also makes dpagg
# evaluate its constant parameters for every row (src/pg/aggregates/site.c), which a plain query does not,
# so the dp times here are of that path (about 3 rows per group: a small share of the time).
# Usage: scripts/bench_groups.sh [RUNS] [ROWS] [NGROUPS]   (after scripts/build.sh; default 7 3e6 1e6)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}; ROWS=${2:-3000000}; NGROUPS=${3:-1000000}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 3000 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE EXTENSION dpagg" >/dev/null
"${PSQL[@]}" -c "SELECT dp_set_budget(current_user::regrole, 1e9, 0.5)" >/dev/null 2>&1 || true
"${PSQL[@]}" -c "CREATE TABLE t AS SELECT (g % $NGROUPS)::int AS k, (g % 97)::float8 AS x FROM generate_series(1, $ROWS) g" >/dev/null
"${PSQL[@]}" -c "VACUUM ANALYZE t" >/dev/null
# explain "<work_mem>" "<aggregate>": prints "ms memory_kB batches cpu_ms", where cpu_ms is the
# backend's CPU time for the statement (/proc/self/schedstat, read before and after it in the same
# session): time spent waiting for a CPU on a busy machine does not inflate it.
CPU="SELECT 'cpu ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)"
explain() {
  "${PSQL[@]}" -c "SET work_mem = '$1'" -c "SET max_parallel_workers_per_gather = 0" -c "SET jit = off" \
    -c "$CPU" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT k, $2 FROM t GROUP BY k" -c "$CPU" |
    awk '/Batches:/ { for (i = 1; i <= NF; i++) { if ($i == "Batches:") b = $(i+1); if ($i == "Usage:") m = $(i+1) } }
         /^cpu / { if (c0 == "") c0 = $2; else c1 = $2 }
         /Execution Time:/ { t = $3 } END { sub(/kB/, "", m); print t, m, b, (c1 - c0) / 1e6 }'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
pairs=("sum(x)|dp_sum(x, 1.0, 1e-5, 0, 100)" "avg(x)|dp_avg(x, 1.0, 1e-5, 0, 100)" "count(*)|dp_count(1.0, 1e-5)")
echo "$NGROUPS groups over $ROWS rows, serial hash aggregation, medians of $RUNS alternating runs"
printf '%-8s %-32s %10s %10s %8s %8s %12s %12s %8s %7s %7s\n' work_mem dp_aggregate "native_ms" "dp_ms" "time_x" "cpu_x" "native_kB" "dp_kB" "mem_x" "n_batch" "dp_batch"
for wm in 2GB 4MB; do
  for pair in "${pairs[@]}"; do
    nat=${pair%%|*}; dp=${pair#*|}
    "${PSQL[@]}" -c "SELECT $dp FROM t LIMIT 1" >/dev/null   # calibrate once, outside the timing
    nt=(); dt=(); nc=(); dc=(); nm=""; dm=""; nb=""; db=""
    for _ in $(seq 1 "$RUNS"); do
      read -r t m b c < <(explain "$wm" "$nat"); nt+=("$t"); nc+=("$c"); nm=$m; nb=$b
      read -r t m b c < <(explain "$wm" "$dp"); dt+=("$t"); dc+=("$c"); dm=$m; db=$b
    done
    mn=$(printf '%s\n' "${nt[@]}" | median); md=$(printf '%s\n' "${dt[@]}" | median)
    cn=$(printf '%s\n' "${nc[@]}" | median); cd=$(printf '%s\n' "${dc[@]}" | median)
    printf '%-8s %-32s %10.1f %10.1f %8.2f %8.2f %12s %12s %8.2f %7s %7s\n' "$wm" "$dp" "$mn" "$md" \
      "$(awk -v a="$md" -v b="$mn" 'BEGIN{print a/b}')" "$(awk -v a="$cd" -v b="$cn" 'BEGIN{print (b > 0) ? a/b : 0}')" "$nm" "$dm" \
      "$(awk -v a="$dm" -v b="$nm" 'BEGIN{print (b > 0) ? a/b : 0}')" "$nb" "$db"
  done
done
