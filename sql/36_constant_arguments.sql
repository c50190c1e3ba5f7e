-- Exact answers of the transition path in every shape of the Agg node's transition program:
-- filters, jumps in the value expression, other aggregates beside (strict ones with constant
-- arguments too), hashing that spills, grouping sets, DISTINCT and ORDER BY inside the aggregate,
-- rescans, prepared statements and JIT.  epsilon 1e9 with Laplace noise: the rounded answers are
-- exact.
CREATE TABLE c_t AS SELECT g AS id, g % 100 AS v, (g % 100)::float8 AS f, g % 7 AS k,
                           CASE WHEN g % 11 = 0 THEN NULL ELSE g % 13 END AS n
FROM generate_series(1, 20000) g;
ANALYZE c_t;
SET max_parallel_workers_per_gather = 0;
-- plain aggregation, several dpagg aggregates beside native ones (one strict with constants)
SELECT round(dp_sum(v, 1e9, 0, 0, 100, 'laplace')) = sum(v) AS sum_bounds,
       round(dp_sum(f, 1e9, 0, 100, 'laplace')) = sum(f) AS sum_sensitivity,
       round(dp_avg(v, 1e9, 0, 0, 100, 'laplace')::numeric, 6) = round(avg(v), 6) AS avg_int,
       round(dp_avg(f, 1e9, 0, -3, 50, 'laplace')::numeric, 6)
         = round(avg(least(greatest(f, -3), 50))::numeric, 6) AS avg_clamped,
       dp_count(1e9, 0, 'laplace') = count(*) AS count_rows,
       dp_count(n, 1e9, 0, 'laplace') = count(n) AS count_values,
       length(string_agg(v::text, ',')) AS native_strict_with_constant
FROM c_t;
-- FILTER, and a value expression with CASE, AND, OR, COALESCE and NULLIF (jumps)
SELECT round(dp_sum(v, 1e9, 0, 0, 100, 'laplace') FILTER (WHERE k = 3)) = sum(v) FILTER (WHERE k = 3) AS filtered,
       round(dp_sum(CASE WHEN k = 1 AND id > 10 OR id < 3 THEN v ELSE coalesce(n, 5) END, 1e9, 0, 0, 100, 'laplace'))
         = sum(CASE WHEN k = 1 AND id > 10 OR id < 3 THEN v ELSE coalesce(n, 5) END) AS jumps,
       round(dp_sum(nullif(v, 7), 1e9, 0, 0, 100, 'laplace')) = sum(nullif(v, 7)) AS nullif
FROM c_t;
-- sorted and hashed grouping, and hashing that spills to disk (programs built again)
SET enable_hashagg = off;
SELECT bool_and(d = s) AS sorted_groups FROM
  (SELECT k, round(dp_sum(v, 1e9, 0, 0, 100, 'laplace')) AS d, sum(v) AS s FROM c_t GROUP BY k) q;
RESET enable_hashagg;
SET enable_sort = off;
SET work_mem = '64kB';
SELECT count(*) AS groups, bool_and(d = s AND c = n) AS spilled_groups FROM
  (SELECT id % 5000 AS g, round(dp_sum(v, 1e9, 0, 0, 100, 'laplace')) AS d, sum(v) AS s,
          dp_count(1e9, 0, 'laplace') AS c, count(*) AS n
   FROM c_t GROUP BY id % 5000) q;
RESET work_mem;
RESET enable_sort;
-- grouping sets: several phases, sorted and hashed together
SELECT count(*) AS sets, bool_and(d = s) AS grouping_sets FROM
  (SELECT k, v % 3 AS w, round(dp_sum(v, 1e9, 0, 0, 100, 'laplace')) AS d, sum(v) AS s
   FROM c_t GROUP BY GROUPING SETS ((k), (v % 3), ())) q;
-- DISTINCT and ORDER BY inside the aggregate (the arguments go through a sort)
SELECT round(dp_sum(DISTINCT v, 1e9, 0, 0, 100, 'laplace')) = sum(DISTINCT v) AS distinct_sum,
       round(dp_sum(f, 1e9, 0, 0, 100, 'laplace' ORDER BY id DESC)) = sum(f) AS ordered_sum
FROM c_t;
-- Over 10 000 rows the executor runs a copy of the plan whose dpagg aggregates keep only their data
-- arguments (site.c, dpagg_freeze_parameters): calls with different bounds and epsilons in one
-- level each keep their own, and a call with no data argument (dp_count(epsilon, delta)) too.
SELECT round(dp_sum(i4, 1e9, 0, 0, 10, 'laplace')) = sum(least(i4, 10)) AS own_bounds_10,
       round(dp_sum(i4, 1e9, 0, 0, 50, 'laplace')) = sum(least(i4, 50)) AS own_bounds_50,
       round(dp_avg(i8, 1e9, 0, 20, 30, 'laplace')::numeric, 6) = round(avg(greatest(20, least(i8, 30))), 6) AS own_bounds_avg,
       dp_count(1e9, 0, 'laplace') = count(*) AS count_rows,
       abs(dp_sum(f8, 1e-3, 0, 0, 100, 'laplace') - sum(f8)) > 1 AS small_epsilon_noisy
FROM dp_test;
-- rescans: the aggregation runs again for each outer row
SELECT bool_and(d = s) AS rescans FROM
  (SELECT o.k, (SELECT round(dp_sum(v, 1e9, 0, 0, 100, 'laplace')) FROM c_t WHERE c_t.k = o.k) AS d,
          (SELECT sum(v) FROM c_t WHERE c_t.k = o.k) AS s
   FROM (SELECT DISTINCT k FROM c_t) o) q;
-- a prepared statement, custom and then generic plans: parameters frozen into constants
PREPARE c_q(float8, float8, float8) AS
  SELECT round(dp_sum(v, $1, 0, $2, $3, 'laplace')) = sum(v) AS ok FROM c_t;
EXECUTE c_q(1e9, 0, 100); EXECUTE c_q(1e9, 0, 100); EXECUTE c_q(1e9, 0, 100);
EXECUTE c_q(1e9, 0, 100); EXECUTE c_q(1e9, 0, 100); EXECUTE c_q(1e9, 0, 100);
DEALLOCATE c_q;
-- JIT-compiled programs are left as they are
SET jit = on;
SET jit_above_cost = 0;
SET jit_inline_above_cost = 0;
SET jit_optimize_above_cost = 0;
SELECT round(dp_sum(v, 1e9, 0, 0, 100, 'laplace') FILTER (WHERE k = 3)) = sum(v) FILTER (WHERE k = 3) AS jit_filtered,
       dp_count(1e9, 0, 'laplace') = count(*) AS jit_count
FROM c_t;
RESET jit;
RESET jit_above_cost;
RESET jit_inline_above_cost;
RESET jit_optimize_above_cost;
-- EXPLAIN shows the call with its arguments as written (dp_sum planned with its state inline:
-- dpagg_sum_inline, src/pg/aggregates/inline_sum.c)
EXPLAIN (VERBOSE, COSTS OFF) SELECT dp_sum(v, 1e9, 0, 0, 100, 'laplace') FROM c_t;
RESET max_parallel_workers_per_gather;
DROP TABLE c_t;
