#!/usr/bin/env bash
# Private quantiles at a million groups (docs/quantiles.md, docs/benchmarks.md): dp_median against
# percentile_cont(0.5), and dp_percentiles(3 ps) against percentile_cont(ARRAY[3 ps]), on the same
# table in the same run, serial plans, work_mem large enough for one batch (2GB).  Each
# measurement runs in a fresh connection: the statement's execution time (EXPLAIN ANALYZE, TIMING
# OFF), the backend's CPU time, and the backend's peak resident memory (VmHWM of /proc/self/status
# after the statement, less the same peak of a fresh connection that only read the table).
# Medians of RUNS alternating runs; prints the ratios dp/native.
# Usage: scripts/bench_percentile.sh [RUNS] [ROWS] [NGROUPS]   (default 5 3e6 1e6)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}; ROWS=${2:-3000000}; NGROUPS=${3:-1000000}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 3000 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg -o shared_buffers=512MB "$0" "$@"
fi
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE EXTENSION dpagg" >/dev/null
"${PSQL[@]}" -c "SELECT dp_set_budget(current_user::regrole, 1e9, 0.5)" >/dev/null 2>&1 || true
"${PSQL[@]}" -c "CREATE TABLE t AS SELECT (g % $NGROUPS)::int AS k, ((g::bigint * 7919) % 1000)::float8 / 10 AS x FROM generate_series(1, $ROWS) g" >/dev/null
"${PSQL[@]}" -c "VACUUM ANALYZE t" >/dev/null
CPU="SELECT 'cpu ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)"
HWM="SELECT 'hwm ' || (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+)'))[1]"
# run "<select list>": "ms cpu_ms peak_kB" of one statement in a fresh connection
run() {
  "${PSQL[@]}" -c "SET work_mem = '2GB'" -c "SET max_parallel_workers_per_gather = 0" -c "SET jit = off" \
    -c "$CPU" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT k, $1 FROM t GROUP BY k" -c "$CPU" -c "$HWM" |
    awk '/^cpu / { if (c0 == "") c0 = $2; else c1 = $2 } /^hwm / { h = $2 }
         /Execution Time:/ { t = $3 } END { print t, (c1 - c0) / 1e6, h }'
}
base=$("${PSQL[@]}" -c "SELECT count(*) FROM t" -c "$HWM" | awk '/^hwm / {print $2}')
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
pairs=("percentile_cont(0.5) WITHIN GROUP (ORDER BY x)|dp_median(x, 1.0, 0, 0, 100)"
       "percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY x)|dp_percentiles(x, ARRAY[0.1, 0.5, 0.9], 1.0, 0, 0, 100)")
echo "$NGROUPS groups over $ROWS rows, serial plans, work_mem 2GB, medians of $RUNS alternating runs (fresh connections)"
echo "peak memory: the backend's VmHWM after the statement less that of a connection that only scanned t ($base kB)"
printf '%-32s %10s %10s %7s %7s %11s %11s %7s\n' dp_aggregate native_ms dp_ms time_x cpu_x native_kB dp_kB mem_x
for pair in "${pairs[@]}"; do
  nat=${pair%%|*}; dp=${pair#*|}
  nt=(); dt=(); nc=(); dc=(); nm=(); dm=()
  for _ in $(seq 1 "$RUNS"); do
    read -r t c h < <(run "$nat"); nt+=("$t"); nc+=("$c"); nm+=("$((h - base))")
    read -r t c h < <(run "$dp"); dt+=("$t"); dc+=("$c"); dm+=("$((h - base))")
  done
  a=$(printf '%s\n' "${nt[@]}" | median); b=$(printf '%s\n' "${dt[@]}" | median)
  ca=$(printf '%s\n' "${nc[@]}" | median); cb=$(printf '%s\n' "${dc[@]}" | median)
  ma=$(printf '%s\n' "${nm[@]}" | median); mb=$(printf '%s\n' "${dm[@]}" | median)
  printf '%-32s %10.1f %10.1f %7.2f %7.2f %11s %11s %7.2f\n' "${dp%%(*}" "$a" "$b" \
    "$(awk -v x="$b" -v y="$a" 'BEGIN{print x/y}')" "$(awk -v x="$cb" -v y="$ca" 'BEGIN{print (y > 0) ? x/y : 0}')" \
    "$ma" "$mb" "$(awk -v x="$mb" -v y="$ma" 'BEGIN{print (y > 0) ? x/y : 0}')"
done
