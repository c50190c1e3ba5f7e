#!/usr/bin/env bash
# The first release in a fresh backend, against native sum in a fresh backend (docs/benchmarks.md):
# every sample opens a new connection and times its first query (psql \timing), alternating
# sum / dp_sum with parameters another backend calibrated before (shared cache) / dp_sum with
# parameters nobody calibrated (a full calibration), RUNS times each; prints the medians and the
# differences.  Usage: scripts/bench_fresh.sh [RUNS]   (after scripts/build.sh; default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-15}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 900 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE EXTENSION dpagg" >/dev/null
"${PSQL[@]}" -c "SELECT dp_set_budget(current_user::regrole, 1e9, 0.5)" >/dev/null 2>&1
"${PSQL[@]}" -c "CREATE TABLE t AS SELECT g::float8 AS x FROM generate_series(1, 1000) g" -c "VACUUM ANALYZE t" >/dev/null
# Another backend calibrates the parameters first.
"${PSQL[@]}" -c "SELECT dp_sum(x, 0.9, 1e-6, 100) FROM t" >/dev/null
first_query_ms() {  # the time of the first query of a new connection
  "${PSQL[@]}" -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
native=(); shared=(); cold=()
for i in $(seq 1 "$RUNS"); do
  native+=("$(first_query_ms "SELECT sum(x) FROM t")")
  shared+=("$(first_query_ms "SELECT dp_sum(x, 0.9, 1e-6, 100) FROM t")")
  cold+=("$(first_query_ms "SELECT dp_sum(x, 0.9, 1e-6, 100 + $i * 1e-6) FROM t")")
done
mn=$(printf '%s\n' "${native[@]}" | median)
ms=$(printf '%s\n' "${shared[@]}" | median)
mc=$(printf '%s\n' "${cold[@]}" | median)
echo "first query of a fresh backend, medians of $RUNS alternating runs (ms):"
echo "  sum(x)                                      $mn"
echo "  dp_sum(x, 0.9, 1e-6, 100), calibrated before $ms   (+$(awk -v a="$ms" -v b="$mn" 'BEGIN{printf "%.3f", a-b}') ms over sum)"
echo "  dp_sum with parameters never calibrated     $mc   (+$(awk -v a="$mc" -v b="$mn" 'BEGIN{printf "%.3f", a-b}') ms over sum)"
