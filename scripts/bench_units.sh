#!/usr/bin/env bash
# Per-unit bounding (docs/privacy_units.md): one run on ROWS rows of UNITS privacy units in NGROUP groups, with
# max_groups_contributed = 3.  Times, in medians of RUNS alternating runs (EXPLAIN ANALYZE, TIMING
# OFF, serial plans):
#   dp      SELECT g, dp_sum(x, ...) FROM private_t GROUP BY g        (dpagg's rewrite)
#   hand    the same bounding written by hand in plain SQL: per-unit GROUP BY, row_number() OVER
#           (PARTITION BY unit ORDER BY random()), keep 3, outer sum (no noise, no selection)
#   native  SELECT g, sum(x) FROM t GROUP BY g                          (no bounding at all)
# and prints the ratios dp/hand and dp/native.  Usage: scripts/bench_units.sh [RUNS] [ROWS] [UNITS] [NGROUP]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}; ROWS=${2:-5000000}; UNITS=${3:-200000}; NGROUP=${4:-1000}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 3000 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg -o work_mem=256MB "$0" "$@"
fi
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE EXTENSION dpagg" >/dev/null
"${PSQL[@]}" -c "SELECT dp_set_budget(current_user::regrole, 1e12, 0.9)" >/dev/null
"${PSQL[@]}" -c "CREATE TABLE t AS SELECT (hashint4(g) & 2147483647) % $UNITS AS uid,
                   (hashint4(g + 7) & 2147483647) % $NGROUP AS g, (g % 97)::float8 AS x
                   FROM generate_series(1, $ROWS) g" >/dev/null
"${PSQL[@]}" -c "CREATE VIEW private_t AS SELECT * FROM t" >/dev/null
"${PSQL[@]}" -c "SELECT dp_protect('private_t', 'uid', 3)" >/dev/null
"${PSQL[@]}" -c "VACUUM ANALYZE t" >/dev/null
declare -A Q
Q[dp]="SELECT g, dp_sum(x, 1.0, 1e-6, 0, 100) FROM private_t GROUP BY g"
Q[hand]="SELECT g, sum(least(greatest(s, 0), 100)) FROM (
           SELECT g, uid, sum(x) AS s, row_number() OVER (PARTITION BY uid ORDER BY random()) AS k
             FROM t WHERE uid IS NOT NULL GROUP BY g, uid) u
          WHERE k <= 3 GROUP BY g"
Q[native]="SELECT g, sum(x) FROM t GROUP BY g"
ms() {
  "${PSQL[@]}" -c "SET max_parallel_workers_per_gather = 0" -c "SET jit = off" \
    -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $1" | awk '/Execution Time:/ { print $3 }'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
"${PSQL[@]}" -c "${Q[dp]}" >/dev/null    # calibrate once, outside the timing
declare -A T
for _ in $(seq 1 "$RUNS"); do
  for k in native hand dp; do T[$k]+="$(ms "${Q[$k]}") "; done
done
echo "$ROWS rows, $UNITS units, $NGROUP groups, L = 3; serial plans, work_mem 256MB, medians of $RUNS alternating runs"
for k in native hand dp; do
  printf '%-7s %10.1f ms\n' "$k" "$(printf '%s\n' ${T[$k]} | median)"
done
d=$(printf '%s\n' ${T[dp]} | median); h=$(printf '%s\n' ${T[hand]} | median); n=$(printf '%s\n' ${T[native]} | median)
awk -v d="$d" -v h="$h" -v n="$n" 'BEGIN { printf "dp/hand %.2f   dp/native %.2f   hand/native %.2f\n", d/h, d/n, h/n }'
