#!/usr/bin/env bash
# Planning time (docs/architecture.md, docs/benchmarks.md): the same grouped dp_sum query over a
# private relation, over a plain table of the same shape, and native sum over the plain table.
# Each round plans each query N times (EXPLAIN (SUMMARY): its "Planning Time", which includes
# dpagg's planner hook: the per-unit rewrite, the checks and the planner itself) and keeps the
# mean; the rounds alternate, and the medians of RUNS rounds are printed with the ratios
# private/plain (the target: at most 2), private/hand (the rewrite against the same shape written
# by hand) and plain/native.
# Usage: scripts/bench_planning.sh [RUNS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}; N=${2:-300}
if [ -z "${DPAGG_BENCH_INSIDE:-}" ]; then
  export DPAGG_BENCH_INSIDE=1
  exec timeout 1200 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
"${PSQL[@]}" <<'SQL' >/dev/null
CREATE EXTENSION dpagg;
SELECT dp_set_budget(current_user::regrole, 1e12, 0.9);
CREATE TABLE plain_t (uid integer, g integer, x float8);
INSERT INTO plain_t SELECT i % 1000, i % 10, i FROM generate_series(1, 10000) i;
CREATE TABLE private_t AS SELECT * FROM plain_t;
SELECT dp_protect('private_t', 'uid', 3);
ANALYZE plain_t, private_t;
CREATE FUNCTION plan_ms(q text, n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE total float8 := 0; line text;
BEGIN
  FOR i IN 1..n LOOP
    FOR line IN EXECUTE 'EXPLAIN (SUMMARY ON, COSTS OFF) ' || q LOOP
      IF line LIKE 'Planning Time:%' THEN
        total := total + split_part(split_part(line, ': ', 2), ' ', 1)::float8;
      END IF;
    END LOOP;
  END LOOP;
  RETURN total / n;
END $$;
SQL
declare -A Q
Q[private]="SELECT g, dp_sum(x, 1.0, 1e-6, 0, 100) FROM private_t GROUP BY g"
Q[plain]="SELECT g, dp_sum(x, 1.0, 1e-6, 0, 100) FROM plain_t GROUP BY g"
Q[native]="SELECT g, sum(x) FROM plain_t GROUP BY g"
# the per-unit shape written by hand in plain SQL over the plain table: what the planner must plan
# for the rewritten query anyway (per-unit GROUP BY, L groups per unit by a random rank, outer sum)
Q[hand]="SELECT g, sum(least(greatest(s, 0), 100)) FROM (SELECT g, uid, sum(x) AS s, row_number() OVER (PARTITION BY uid ORDER BY random()) AS k FROM plain_t WHERE uid IS NOT NULL GROUP BY g, uid) u WHERE k <= 3 GROUP BY g HAVING count(*) > 5"
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
declare -A T
for _ in $(seq 1 "$RUNS"); do
  for k in native plain hand private; do
    T[$k]+="$("${PSQL[@]}" -c "SELECT plan_ms(\$q\$${Q[$k]}\$q\$, $N)") "
  done
done
echo "planning time per query, mean of $N plans per round, medians of $RUNS alternating rounds"
for k in native plain hand private; do
  printf '%-8s %8.4f ms   %s\n' "$k" "$(printf '%s\n' ${T[$k]} | median)" "${Q[$k]}"
done
p=$(printf '%s\n' ${T[private]} | median); d=$(printf '%s\n' ${T[plain]} | median)
n=$(printf '%s\n' ${T[native]} | median); h=$(printf '%s\n' ${T[hand]} | median)
awk -v p="$p" -v d="$d" -v n="$n" -v h="$h" \
  'BEGIN { printf "private/plain %.2f   private/hand %.2f   hand/plain %.2f   plain/native %.2f\n", p/d, p/h, h/d, d/n }'
