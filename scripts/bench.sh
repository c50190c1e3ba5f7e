#!/usr/bin/env bash
# Benchmark: dpagg's aggregates against PostgreSQL's native ones, on the same table in one run.
#
#   scripts/bench.sh [ROWS]          ROWS defaults to 5000000
#
# A benchmark command, not a test: it prints a table and exits 0 whatever the ratios are.
# It needs dpagg built and installed in the local PostgreSQL 15 already (scripts/build.sh, or
# scripts/test.sh, or `make && make install` as root); it installs nothing itself.
#
# Unless PGPORT is set, it runs itself inside a throw-away cluster (`pg_virtualenv -t -v 15`; -t
# gives it a private directory, so it does not collide with a test run's cluster), tuned
# for a small machine (2 cores, 24 GiB): shared_buffers=1GB, work_mem=64MB, fsync off (the data
# is throw-away), JIT off.  With PGPORT set it uses that server and database as they are (the
# table dpagg_bench is created there and dropped at the end; the extension is created if absent).
#
# Method: a table of ROWS rows (x bigint, y double precision, g integer with 1000 groups) is
# filled, VACUUM (FREEZE, ANALYZE)d and read into shared buffers.  Each query is timed on the
# server, in a PL/pgSQL function, as it runs for a user: clock_timestamp() around an EXECUTE of
# SELECT count(q.*) FROM (query) q (every output column is computed; planning included, no
# client transfer); the parallel workers
# column then gives the workers planned.  With BENCH_TIMING=explain each query is instead timed
# with EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON), its "Execution Time" and the workers launched:
# the way earlier sessions measured, but instrumented plans run dpagg's aggregates with their
# constant parameters evaluated for every row (src/pg/aggregates/site.c), which a plain query does not.
# Every native/dp pair gets one untimed warm-up run of
# each, then BENCH_REPS timed runs of each, alternating native-dp, dp-native, ... to cancel
# drift; the table shows the medians (and, as a check on a busy machine, the ratio of the
# fastest runs: interference only ever adds time).  Everything runs twice: with parallelism off
# (max_parallel_workers_per_gather = 0) and with BENCH_WORKERS parallel workers.  For the serial
# runs the table also gives the ratio of the medians of the backend's CPU time (Linux
# /proc/self/schedstat, read with pg_read_file: a superuser or pg_read_server_files), which time
# spent waiting for a CPU on a busy machine does not inflate; in parallel runs it would miss the
# workers, so it is left out there.
#
# Environment: BENCH_REPS (default 7), BENCH_WORKERS (default 2), BENCH_TIMING (plain, the
# default, or explain), BENCH_CSV=file (also write
# every single measurement there as CSV), BENCH_MECHANISM=name (sets dpagg.default_mechanism for
# the run, e.g. laplace; default: the extension's own default).
#
# Calibrations are shared by all backends (and kept across restarts); the warm-up run fills that
# cache, and the leader calibrates before parallel workers start, so no timing includes one.
set -euo pipefail

ROWS=${1:-5000000}
REPS=${BENCH_REPS:-7}
WORKERS=${BENCH_WORKERS:-2}
TARGET=1.10
TIMING=${BENCH_TIMING:-plain}
case "$TIMING" in plain|explain) ;; *) echo "BENCH_TIMING must be plain or explain" >&2; exit 2;; esac
if [ -n "${BENCH_CSV:-}" ]; then BENCH_CSV=$(realpath -m "$BENCH_CSV"); export BENCH_CSV; fi
if ! [[ ${BENCH_MECHANISM:-} =~ ^[A-Za-z0-9_=,.()\ -]*$ ]]; then
  echo "bench.sh: BENCH_MECHANISM has unexpected characters" >&2; exit 2
fi

for v in ROWS REPS WORKERS; do
  if ! [[ ${!v} =~ ^[0-9]+$ ]] || [ "${!v}" -lt 1 ]; then
    echo "bench.sh: $v must be a positive integer (got '${!v}')" >&2
    echo "usage: scripts/bench.sh [ROWS]   (env: BENCH_REPS, BENCH_WORKERS, BENCH_CSV, BENCH_MECHANISM)" >&2
    exit 2
  fi
done

# ---- run inside a throw-away cluster unless a server was given --------------------------------
if [ -z "${DPAGG_BENCH_INSIDE:-}" ] && [ -z "${PGPORT:-}" ]; then
  if ! command -v pg_virtualenv >/dev/null; then
    echo "bench.sh: pg_virtualenv not found (package postgresql-common); run scripts/install-deps.sh" >&2
    exit 1
  fi
  export DPAGG_BENCH_INSIDE=1
  self=$(readlink -f "$0")
  exec pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg \
    -o shared_buffers=1GB -o work_mem=64MB -o effective_cache_size=16GB \
    -o max_worker_processes=8 -o max_parallel_workers=8 \
    -o fsync=off -o synchronous_commit=off -o full_page_writes=off \
    -o max_wal_size=8GB -o checkpoint_timeout=1h -o autovacuum=off -o jit=off \
    "$self" "$@"
fi

PSQL=(psql -X -q -v ON_ERROR_STOP=1)
sqlfile=$(mktemp "${TMPDIR:-/tmp}/dpagg-bench.XXXXXX.sql")
trap 'rm -f "$sqlfile"' EXIT

if ! "${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS dpagg" >/dev/null; then
  echo "bench.sh: cannot create extension dpagg; build and install it first:" >&2
  echo "          scripts/build.sh   (or scripts/test.sh, or make && make install as root)" >&2
  exit 1
fi

load0=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || true)

# ---- the queries: label | native | dp ---------------------------------------------------------
# All on the same table; dp parameters are constants (epsilon 1.0, delta 1e-6, bounds [0, 1000]:
# the data lie inside the bounds, so clamping changes nothing).
QUERIES=(
  "sum(bigint)|SELECT sum(x) FROM dpagg_bench|SELECT dp_sum(x, 1.0, 1e-6, 0, 1000) FROM dpagg_bench"
  "sum(bigint), sensitivity form|SELECT sum(x) FROM dpagg_bench|SELECT dp_sum(x, 1.0, 1e-6, 1000) FROM dpagg_bench"
  "avg(bigint)|SELECT avg(x) FROM dpagg_bench|SELECT dp_avg(x, 1.0, 1e-6, 0, 1000) FROM dpagg_bench"
  "count(bigint)|SELECT count(x) FROM dpagg_bench|SELECT dp_count(x, 1.0, 1e-6) FROM dpagg_bench"
  "sum(double)|SELECT sum(y) FROM dpagg_bench|SELECT dp_sum(y, 1.0, 1e-6, 0, 1000) FROM dpagg_bench"
  "sum(double), sensitivity form|SELECT sum(y) FROM dpagg_bench|SELECT dp_sum(y, 1.0, 1e-6, 1000) FROM dpagg_bench"
  "avg(double)|SELECT avg(y) FROM dpagg_bench|SELECT dp_avg(y, 1.0, 1e-6, 0, 1000) FROM dpagg_bench"
  "count(double)|SELECT count(y) FROM dpagg_bench|SELECT dp_count(y, 1.0, 1e-6) FROM dpagg_bench"
  "count(*)|SELECT count(*) FROM dpagg_bench|SELECT dp_count(1.0, 1e-6) FROM dpagg_bench"
  "sum(bigint) GROUP BY g (1000 groups)|SELECT g, sum(x) FROM dpagg_bench GROUP BY g|SELECT g, dp_sum(x, 1.0, 1e-6, 0, 1000) FROM dpagg_bench GROUP BY g"
)

# Every dp query run is a release charged to this role's budget, superusers included
# (dpagg.limit_superusers defaults to on): 2 modes x each query x (REPS + 1) runs, each of
# epsilon 1 and delta 1e-6.  In the throw-away cluster the role gets a budget for that; on a server
# given with PGPORT its budget is checked (the dp runs fail, and are reported, without one).
need_eps=$((2 * ${#QUERIES[@]} * (REPS + 1)))
if [ -n "${DPAGG_BENCH_INSIDE:-}" ]; then
  "${PSQL[@]}" -c "SELECT dp_set_budget(current_user::regrole, $need_eps * 2, least(0.5, $need_eps * 2e-6))" >/dev/null
elif [ "$("${PSQL[@]}" -At -c "SELECT coalesce((SELECT epsilon_remaining >= $need_eps AND delta_remaining >= $need_eps * 1e-6
                                                  FROM dp_budgets WHERE role = current_user AND has_budget), false)")" != t ]; then
  echo "bench.sh: warning: role $("${PSQL[@]}" -At -c "SELECT current_user") has no dpagg budget with epsilon $need_eps" \
       "and delta ${need_eps}e-6 to spare: the dp runs will be refused unless it is an unlimited superuser" \
       "(dpagg.limit_superusers = off) or dpagg.require_budget is off" >&2
fi

# ---- generate the SQL script ------------------------------------------------------------------
{
  cat <<SQL
SET client_min_messages = warning;
SET jit = off;
SET work_mem = '64MB';
${BENCH_MECHANISM:+SET dpagg.default_mechanism = '$BENCH_MECHANISM';}
SELECT name FROM dp_mechanisms() LIMIT 1 \\g /dev/null
\\echo == dpagg benchmark: $ROWS rows, $REPS runs per query and mode, median ==
\\echo machine: $(nproc) cores${cpu:+, $cpu}${mem:+, $mem RAM}; load average at start: $load0
SELECT format('server: %s; dpagg %s (default mechanism %s); shared_buffers %s; work_mem %s; max_parallel_workers %s',
              split_part(version(), ' on ', 1),
              (SELECT extversion FROM pg_extension WHERE extname = 'dpagg'),
              current_setting('dpagg.default_mechanism', true),
              current_setting('shared_buffers'), current_setting('work_mem'),
              current_setting('max_parallel_workers')) AS info \\gset
\\echo :info

\\echo -- creating the table ($ROWS rows) ...
DROP TABLE IF EXISTS dpagg_bench;
CREATE TABLE dpagg_bench (x bigint, y double precision, g integer);
SELECT setseed(0.25) \\g /dev/null
INSERT INTO dpagg_bench
  SELECT floor(random() * 1001)::bigint, random() * 1000, (i % 1000)::integer
  FROM generate_series(1, $ROWS) AS i;
ALTER TABLE dpagg_bench SET (parallel_workers = $WORKERS);
VACUUM (FREEZE, ANALYZE) dpagg_bench;
-- CHECKPOINT needs superuser or pg_checkpoint on a given server: skip it there if refused.
\\set ON_ERROR_STOP off
CHECKPOINT;
\\set ON_ERROR_STOP on
SELECT pg_size_pretty(pg_relation_size('dpagg_bench')) AS tsize \\gset
\\echo -- table size :tsize; warming the cache ...
DO \$\$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_prewarm;
  PERFORM pg_prewarm('dpagg_bench');
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_prewarm unavailable (%); warming by scans only', SQLERRM;
END
\$\$;
SELECT count(*), sum(x), sum(y) FROM dpagg_bench \\g /dev/null
SELECT count(*), sum(x), sum(y) FROM dpagg_bench \\g /dev/null

-- Server-side time of one query (BENCH_TIMING: plain, clock_timestamp() around the query run as a
-- user runs it, and the parallel workers planned; explain, EXPLAIN ANALYZE's "Execution Time"
-- without per-node timing, and the workers launched).
-- A query that fails gives ms = NULL and its error message, and the run goes on (the medians
-- are then over the runs that succeeded).
CREATE FUNCTION pg_temp.cpu_ns() RETURNS bigint LANGUAGE plpgsql AS \$f\$
BEGIN
  RETURN split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
EXCEPTION WHEN OTHERS THEN
  RETURN NULL;   -- not Linux, or not allowed to read it (pg_read_server_files)
END
\$f\$;
CREATE FUNCTION pg_temp.bench_ms(q text, OUT ms double precision, OUT workers integer,
                                 OUT error text, OUT cpu_ms double precision)
LANGUAGE plpgsql AS \$f\$
DECLARE
  plan jsonb;
  n bigint;
  t0 timestamptz;
  cpu0 bigint := pg_temp.cpu_ns();
BEGIN
  IF '$TIMING' = 'explain' THEN
    EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) ' || q INTO plan;
    cpu_ms := (pg_temp.cpu_ns() - cpu0) / 1e6;
    ms := (plan -> 0 ->> 'Execution Time')::double precision;
    workers := coalesce((SELECT max(w::text::integer)
                           FROM jsonb_path_query(plan, 'lax \$.**."Workers Launched"') AS w), 0);
  ELSE
    t0 := clock_timestamp();
    EXECUTE 'SELECT count(bench_q.*) FROM (' || q || ') AS bench_q' INTO n;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    cpu_ms := (pg_temp.cpu_ns() - cpu0) / 1e6;
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT count(bench_q.*) FROM (' || q || ') AS bench_q' INTO plan;
    workers := coalesce((SELECT max(w::text::integer)
                           FROM jsonb_path_query(plan, 'lax \$.**."Workers Planned"') AS w), 0);
  END IF;
EXCEPTION
  WHEN query_canceled THEN
    -- a real cancel (Ctrl-C, statement_timeout) stops the run; dpagg's own "canceling
    -- calibration" without one is recorded like any other failure
    IF SQLERRM NOT LIKE '%calibration%' THEN
      RAISE;
    END IF;
    error := SQLERRM;
  WHEN OTHERS THEN
    error := SQLERRM;
END
\$f\$;
CREATE TEMP TABLE bench_results (
  mode text, ord integer, query text, variant text, rep integer,
  ms double precision, workers integer, error text, sql text, cpu_ms double precision);

SQL

  modes=("serial:0" "parallel:$WORKERS")
  for m in "${modes[@]}"; do
    mode=${m%%:*}; wpg=${m#*:}
    echo "SET max_parallel_workers_per_gather = $wpg;"
    echo "\\echo -- timing, $mode (max_parallel_workers_per_gather = $wpg) ..."
    ord=0
    for entry in "${QUERIES[@]}"; do
      ord=$((ord + 1))
      IFS='|' read -r label native dp <<<"$entry"
      # warm-up: once each, untimed
      echo "SELECT pg_temp.bench_ms(\$q\$$native\$q\$) \\g /dev/null"
      echo "SELECT pg_temp.bench_ms(\$q\$$dp\$q\$) \\g /dev/null"
      for rep in $(seq 1 "$REPS"); do
        if [ $((rep % 2)) -eq 1 ]; then order="native dp"; else order="dp native"; fi
        for variant in $order; do
          if [ "$variant" = native ]; then q=$native; else q=$dp; fi
          echo "INSERT INTO bench_results SELECT '$mode', $ord, \$l\$$label\$l\$, '$variant', $rep, ms, workers, error, \$q\$$q\$q\$, cpu_ms FROM pg_temp.bench_ms(\$q\$$q\$q\$);"
        done
      done
    done
  done

  cat <<SQL

\\echo
\\pset border 2
\\pset footer off
\\pset null ''
SELECT r.mode,
       r.query,
       coalesce(round(r.native::numeric, 1)::text, 'ERROR') AS "native ms",
       coalesce(round(r.dp::numeric, 1)::text, 'ERROR')     AS "dp ms",
       round((r.dp / r.native)::numeric, 3) AS "dp/native",
       CASE WHEN r.dp / r.native <= $TARGET THEN 'ok' WHEN r.dp / r.native > $TARGET THEN 'ABOVE'
            ELSE 'failed' END AS "<= ${TARGET}x",
       round((r.dp_min / r.native_min)::numeric, 3) AS "ratio of mins",
       r.workers AS "workers n/dp",
       CASE WHEN r.mode = 'serial' THEN round((r.dp_cpu / nullif(r.native_cpu, 0))::numeric, 3) END AS "cpu dp/native"
FROM (
  SELECT mode, ord, query,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE variant = 'native') AS native,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE variant = 'dp') AS dp,
         min(ms) FILTER (WHERE variant = 'native') AS native_min,
         min(ms) FILTER (WHERE variant = 'dp') AS dp_min,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms) FILTER (WHERE variant = 'native') AS native_cpu,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms) FILTER (WHERE variant = 'dp') AS dp_cpu,
         coalesce(max(workers) FILTER (WHERE variant = 'native')::text, '-') || '/' ||
           coalesce(max(workers) FILTER (WHERE variant = 'dp')::text, '-') AS workers
  FROM bench_results
  GROUP BY mode, ord, query
) AS r
ORDER BY r.mode DESC, r.ord;
\\pset border 1
\\pset tuples_only on
SELECT format('failed: %s (%s, %s runs): %s', sql, mode, count(*), error)
FROM bench_results WHERE error IS NOT NULL
GROUP BY mode, sql, error ORDER BY mode DESC, sql;
\\pset tuples_only off
\\echo target: <= ${TARGET}x native, timing: $TIMING (BENCH_TIMING)
SQL

  if [ -n "${BENCH_CSV:-}" ]; then
    echo "\\copy (SELECT mode, query, variant, rep, ms, workers, error, cpu_ms FROM bench_results ORDER BY mode DESC, ord, rep, variant) TO '${BENCH_CSV}' WITH (FORMAT csv, HEADER)"
  fi
  echo "DROP TABLE dpagg_bench;"
} >"$sqlfile"

"${PSQL[@]}" -f "$sqlfile"
# Other work on the machine inflates and scatters the timings: say how busy it was.
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (at start: $load0)"
