-- dp_percentile(value, p, epsilon, delta), dp_median(value, epsilon, delta) and
-- dp_percentiles(value, ps, epsilon, delta): no bounds; half of epsilon buys a noisy histogram of
-- the values' magnitudes (191 bins of powers of two), the range runs from the lowest to the
-- highest bin whose noisy count reaches the threshold (not widened to contain 0), and
-- permute-and-flip chooses among that range's cells (32 per power of two) with the rest
-- (docs/automatic_bounds.md, "Quantiles").  At a huge epsilon the threshold is 1, every occupied
-- bin is in the range and the answer lies in the cell of the exact quantile: within 1/32 of its
-- power of two.  Checked as booleans, never printed.
-- dp_test: v = id % 100 in six types (each value 100 times), grp in 0..4.  The median's ranks
-- 5000 lie between 49 and 50: the cells [49, 50) and [50, 51) both hold it.
SELECT dp_median(i2, 1e6, 0) BETWEEN 49 AND 51 AS i2, dp_median(i4, 1e6, 0) BETWEEN 49 AND 51 AS i4,
       dp_median(i8, 1e6, 0) BETWEEN 49 AND 51 AS i8, dp_median(f4, 1e6, 0) BETWEEN 49 AND 51 AS f4,
       dp_median(f8, 1e6, 1e-6) BETWEEN 49 AND 51 AS f8, dp_median(num, 1e6, 0) BETWEEN 49 AND 51 AS num
FROM dp_test;
-- In a group (values 5 apart) the ranks of the 0.9-quantile lie between two values: every cell
-- from the lower value's to the upper value's holds them (cells are 2 wide in [64, 128)).
SELECT grp, dp_percentile(f8, 0.9, 1e6, 0) BETWEEN percentile_disc(0.9) WITHIN GROUP (ORDER BY f8) - 2
                                            AND percentile_disc(0.9001) WITHIN GROUP (ORDER BY f8) + 2 AS p90
FROM dp_test GROUP BY grp ORDER BY grp;
SELECT r[1] BETWEEN 9 AND 10.25 AS p10, r[2] BETWEEN 49 AND 51 AS p50, r[3] BETWEEN 88 AND 92 AS p90,
       array_length(r, 1) AS k
FROM (SELECT dp_percentiles(f8, ARRAY[0.1, 0.5, 0.9], 1e6, 0) AS r FROM dp_test) s;
CREATE TEMP TABLE mixed AS
SELECT (CASE WHEN g % 3 = 0 THEN -1 ELSE 1 END) * 2 ^ (g % 40 - 10) * (1 + (g % 7) / 10.0) AS x
FROM generate_series(1, 4000) g;
-- Negative values and values of every magnitude: each answer between the cells of the values
-- whose ranks hold the quantile (a cell's width is at most 1/32 of its values' magnitude),
-- whatever the sign.
SELECT p, dp BETWEEN lo - abs(lo) / 32 AND hi + abs(hi) / 32 AS in_cells
FROM (SELECT 0.05 AS p, dp_percentile(x, 0.05, 1e6, 0) AS dp, percentile_disc(0.05) WITHIN GROUP (ORDER BY x) AS lo,
             percentile_disc(0.0503) WITHIN GROUP (ORDER BY x) AS hi FROM mixed
      UNION ALL
      SELECT 0.3, dp_percentile(x, 0.3, 1e6, 0), percentile_disc(0.3) WITHIN GROUP (ORDER BY x),
             percentile_disc(0.3003) WITHIN GROUP (ORDER BY x) FROM mixed
      UNION ALL
      SELECT 0.77, dp_percentile(x, 0.77, 1e6, 0), percentile_disc(0.77) WITHIN GROUP (ORDER BY x),
             percentile_disc(0.7703) WITHIN GROUP (ORDER BY x) FROM mixed
      UNION ALL
      SELECT 0.99, dp_percentile(x, 0.99, 1e6, 0), percentile_disc(0.99) WITHIN GROUP (ORDER BY x),
             percentile_disc(0.9903) WITHIN GROUP (ORDER BY x) FROM mixed) t
ORDER BY p;
-- A rare outlier does not reach the threshold (38 values at epsilon 1): the range is the bulk's
-- bin [64, 128), whose cells are 2 wide, and the median lands in the cell of 100.
SELECT dp_median(x, 1.0, 0) BETWEEN 100 AND 102 AS outlier_outside_range
FROM (SELECT 100.0 AS x FROM generate_series(1, 10000) UNION ALL SELECT 1e9) s;
-- NULLs are skipped; NaN sorts above every number (the top cell, as PostgreSQL sorts it),
-- -Infinity below (the bottom cell).  The median's ranks (2 of 1, 2, 3, NaN) lie between 2 and 3.
SELECT dp_median(x, 1e6, 0) BETWEEN 2 AND 3.125 AS nulls_skipped,
       dp_percentile(x, 1, 1e6, 0) > 1e18 AS nan_on_top
FROM (VALUES (1.0), (2.0), (3.0), (NULL), ('NaN')) v(x);
SELECT dp_percentile(x, 0, 1e6, 0) < -1e18 AS minus_infinity_at_the_bottom
FROM (VALUES (1.0::float8), (2.0), ('-Infinity')) v(x);
-- No bin reaches the threshold (empty input; three values at epsilon 0.1, where a bin needs
-- hundreds): the answer is NULL, as percentile_cont's over no rows.
SELECT dp_median(x, 1e6, 0) IS NULL AS empty_is_null, dp_percentiles(x, ARRAY[0.5], 1e6, 0) IS NULL AS array_null
FROM dp_empty;
SELECT dp_median(x, 0.1, 0) IS NULL AS too_few_is_null FROM (VALUES (1.0), (2.0), (3.0)) v(x);
SELECT grp, dp_median(f8, 1e6, 0) IS NULL AS empty_group
FROM (SELECT g.grp, t.f8 FROM (VALUES (0), (7)) g(grp) LEFT JOIN dp_test t ON t.grp = g.grp) s
GROUP BY grp ORDER BY grp;
-- Parallel plans: the partial states travel through serialize/deserialize.
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dp_median(f8, 1e6, 0) FROM dp_test;
SELECT dp_median(f8, 1e6, 0) BETWEEN 49 AND 51 AS parallel_median,
       (dp_percentiles(i4, ARRAY[0.9, 0.1], 1e6, 0))[2] BETWEEN 9 AND 10.25 AS parallel_array FROM dp_test;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- Bad parameters: 22023 with a hint, before any row is read.
SELECT expect_error($$SELECT dp_median(f8, NULL, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 'Infinity', 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 2e-10, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 1) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, NULL) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, 1.5, 1.0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, NULL, 1.0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, 'NaN', 1.0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, ARRAY[0.5, NULL], 1.0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, '{}'::float8[], 1.0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, f8 / 100, 1.0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0) OVER () FROM dp_test$$);
-- Over a private relation, per privacy unit (docs/automatic_bounds.md, "Quantiles"): each unit's
-- value in a group is its average there (as with bounds, docs/quantiles.md section 8), the
-- histogram counts the units' values, and each of a unit's at most L groups releases at
-- epsilon / L (half of it for the histogram).  q_private: 200 units, 50 rows each; their averages
-- lie in [32, 64), whose cells are 1 wide: checked against the units' exact quantiles.
CREATE TABLE q_private AS SELECT id % 200 AS uid, (id * 7 % 101)::float8 AS f8, grp FROM dp_test;
CREATE TABLE q_averages AS SELECT uid, grp, avg(f8) AS a FROM q_private GROUP BY uid, grp;
SELECT dp_protect('q_private', 'uid');
SELECT min(a) >= 32 AND max(a) < 64 AS one_bin FROM q_averages;
SELECT abs(m - (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM q_averages)) <= 1 AS unit_median,
       abs(q[1] - (SELECT percentile_cont(0.1) WITHIN GROUP (ORDER BY a) FROM q_averages)) <= 1 AS unit_p10,
       abs(q[2] - (SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY a) FROM q_averages)) <= 1 AS unit_p90
FROM (SELECT dp_median(f8, 1e6, 0) AS m, dp_percentiles(f8, ARRAY[0.1, 0.9], 1e6, 0) AS q
      FROM q_private) r;
-- GROUP BY with group selection (delta > 0 for it), L = 3.
SELECT dp_protect('q_private', 'uid', 3);
SELECT grp, abs(r.m - (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM q_averages v WHERE v.grp = r.grp)) <= 1 AS near
FROM (SELECT grp, dp_percentile(f8, 0.5, 1e6, 1e-6) AS m FROM q_private GROUP BY grp) r ORDER BY grp;
-- The ledger: the unit and L, the histogram and the quantile, each half of epsilon; under zCDP
-- L (epsilon_part / L)^2 / 2 each.
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = current_user ORDER BY seq DESC LIMIT 2;
SELECT aggregate, privacy_unit, max_groups_contributed, epsilon, group_epsilon, mechanism,
       details->'bounds'->>'epsilon' AS bounds_group_epsilon
FROM dp_explain($$SELECT grp, dp_percentiles(f8, ARRAY[0.25, 0.75], 3.0, 1e-6) FROM q_private GROUP BY grp$$);
-- The per-unit forms are the rewrite's alone, and too small an epsilon per group is refused.
SELECT expect_error($$SELECT dpagg_unit_median(f8, 1.0, 0, NULL, NULL, NULL, 1, 'uid') FROM dp_test$$);
SELECT expect_error($$SELECT grp, dp_median(f8, 5e-10, 1e-6) FROM q_private GROUP BY grp$$);
DROP TABLE q_private, q_averages;
CREATE ROLE q_analyst LOGIN;
SELECT has_function_privilege('q_analyst', 'dpagg_auto_percentile_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('q_analyst', 'dpagg_auto_percentile_combine(internal, internal)', 'EXECUTE') AS combine_callable,
       has_function_privilege('q_analyst', 'dpagg_auto_median_trans_float8(internal, double precision, double precision, double precision)', 'EXECUTE') AS trans_callable;
-- The charge: the call's epsilon as the histogram's part and the quantiles' (no delta: both are
-- pure epsilon-DP); under zCDP epsilon_part^2 / 2 for each.
SELECT dp_set_budget('q_analyst', 5.0, 1e-6);
GRANT SELECT ON dp_test TO q_analyst;
SET SESSION AUTHORIZATION q_analyst;
SELECT dp_median(f8, 1.0, 1e-7) IS NOT NULL AS released FROM dp_test;
SELECT count(*) AS groups FROM (SELECT grp, dp_percentile(i4, 0.25, 0.5, 0) AS v FROM dp_test GROUP BY grp) s;
SELECT array_length(dp_percentiles(f8, ARRAY[0.1, 0.9], 0.5, 0), 1) AS k FROM dp_test;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = 'q_analyst' ORDER BY seq;
RESET SESSION AUTHORIZATION;
SELECT release, aggregate, epsilon, delta, group_epsilon, sensitivity, mechanism, details
FROM dp_explain($$SELECT grp, dp_median(f8, 1.0, 0), dp_percentiles(f8, ARRAY[0.1, 0.9], 2.0, 0) FROM dp_test GROUP BY grp$$);
REVOKE SELECT ON dp_test FROM q_analyst;
SELECT dp_drop_budget('q_analyst');
DROP ROLE q_analyst;
-- The split for Citus (docs/automatic_bounds.md, "On Citus"), on one node: the rows counted per
-- cell of the grid of magnitudes (dpagg_quantile_cell) and merged with NULL bounds make the
-- one-node state: at epsilon 1e9 the answer falls in the cell of the aggregate's over the rows,
-- whole table and per group, float8, integer and numeric values.
SELECT f, bool_and(m IS NOT DISTINCT FROM d) AS merged_as_one_node FROM (
  SELECT 'percentile' f, dpagg_quantile_cell((SELECT dpagg_merge_percentile(b, n, 0.377777, 1e9, 0, NULL, NULL, NULL) FROM (SELECT grp, dpagg_quantile_cell(f8) b, count(f8) n FROM dp_test GROUP BY grp, b) p))::text m,
         dpagg_quantile_cell((SELECT dp_percentile(f8, 0.377777, 1e9, 0) FROM dp_test))::text d
  UNION ALL
  SELECT 'percentile per group', dpagg_quantile_cell(m)::text, dpagg_quantile_cell(d)::text
  FROM (SELECT grp, dpagg_merge_percentile(b, n, 0.912345, 1e9, 0, NULL, NULL, NULL) m FROM (SELECT grp, dpagg_quantile_cell(i4) b, count(i4) n FROM dp_test GROUP BY grp, b) p GROUP BY grp) a
  JOIN (SELECT grp, dp_percentile(i4, 0.912345, 1e9, 0) d FROM dp_test GROUP BY grp) b USING (grp)
  UNION ALL
  SELECT 'percentiles', (SELECT ARRAY[dpagg_quantile_cell(m[1]), dpagg_quantile_cell(m[2])] FROM (SELECT dpagg_merge_percentiles(b, n, ARRAY[0.912345, 0.377777], 1e9, 0, NULL, NULL, NULL) m FROM (SELECT dpagg_quantile_cell(num) b, count(num) n FROM dp_test GROUP BY b) p) s)::text,
         (SELECT ARRAY[dpagg_quantile_cell(d[1]), dpagg_quantile_cell(d[2])] FROM (SELECT dp_percentiles(num, ARRAY[0.912345, 0.377777], 1e9, 0) d FROM dp_test) s)::text) x
GROUP BY f ORDER BY f;
-- A cell outside the grid is refused; no value: NULL, as without bounds on one node.
SELECT expect_error($$SELECT dpagg_merge_median(6081, 1, 1, 0, NULL, NULL, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(-1, 1, 1, 0, NULL, NULL, NULL)$$);
SELECT dpagg_merge_median(NULL, 0, 1e9, 0, NULL, NULL, NULL) IS NULL AS empty;
SELECT dpagg_quantile_cell(0) = dpagg_quantile_cell(1e-300::float8) AS zero_cell,
       dpagg_quantile_cell('NaN'::numeric) AS nan, dpagg_quantile_cell('Infinity'::float8) AS inf,
       dpagg_quantile_cell('-Infinity'::real) AS minus_inf;
