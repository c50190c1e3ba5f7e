-- Parallel plans: partial aggregation in workers, combined in the leader.  With a very large
-- epsilon the noise is far below 0.5, so the combined answers must equal the exact ones: the
-- combine function loses nothing and does not depend on the order of partial states.
CREATE TABLE dp_big AS SELECT g AS id, (g % 1000)::bigint AS v, (g % 1000) / 3.0 AS f
FROM generate_series(1, 200000) g;
ANALYZE dp_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT dp_sum(v, 1.0, 1e-5, 1000), dp_count(1.0, 1e-5), dp_avg(f, 1.0, 1e-5, 0, 1000) FROM dp_big;
EXPLAIN (COSTS OFF) SELECT id % 3, dp_sum(v, 1.0, 1e-5, 1000) FROM dp_big GROUP BY id % 3;

SELECT sum(v) AS true_sum, count(*) AS n FROM dp_big;
SELECT round(dp_sum(v, 1e9, 0, 1000, 'laplace')) = sum(v) AS sum_exact,
       dp_count(1e9, 0, 'laplace') = count(*) AS count_exact,
       dp_count(v, 1e9, 0, 'laplace') = count(v) AS count_values_exact,
       abs(dp_avg(f, 1e9, 0, 0, 1000, 'laplace') - avg(f)) < 1e-6 AS avg_exact,
       abs(dp_sum(f, 1e9, 0, 0, 1000, 'laplace') - sum(f)) < 1e-3 AS float_sum_exact
FROM dp_big;
SELECT id % 3 AS g, round(dp_sum(v, 1e9, 0, 1000, 'laplace')) = sum(v) AS exact
FROM dp_big GROUP BY id % 3 ORDER BY 1;
-- Empty input in a parallel plan: the final step finds the parameters through the plan.
SELECT dp_sum(v, 1.0, 1e-5, 1000) IS NOT NULL AS sum_empty, dp_avg(f, 1.0, 1e-5, 0, 1000) BETWEEN 0 AND 1000 AS avg_empty,
       dp_count(v, 1.0, 1e-5) >= 0 AS count_values_empty, dp_count(1.0, 1e-5) >= 0 AS count_rows_empty
FROM dp_big WHERE id < 0;
EXPLAIN (COSTS OFF) SELECT dp_sum(v, 1.0, 1e-5, 1000) FROM dp_big WHERE id < 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- The same answers without parallelism.
SET max_parallel_workers_per_gather = 0;
SELECT round(dp_sum(v, 1e9, 0, 1000, 'laplace')) = sum(v) AS serial_sum_exact FROM dp_big;
RESET max_parallel_workers_per_gather;
