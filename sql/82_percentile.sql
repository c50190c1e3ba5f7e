-- dp_percentile, dp_median and dp_percentiles: private quantiles by permute-and-flip over 1 024
-- bins of [lower, upper] (docs/quantiles.md).  At a huge epsilon the chosen bin holds the
-- quantile and the answer is a point of it, so it lies within one bin width (upper - lower) /
-- 1024 of a value next to the exact quantile: checked as booleans, never printed.
-- dp_test: v = id % 100 in six types (each value 100 times), grp in 0..4.
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f8) AS exact_median,
       percentile_disc(0.9) WITHIN GROUP (ORDER BY f8) AS exact_p90 FROM dp_test;
SELECT abs(dp_median(i2, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS i2,
       abs(dp_median(i4, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS i4,
       abs(dp_median(i8, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS i8,
       abs(dp_median(f4, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS f4,
       abs(dp_median(f8, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS f8,
       abs(dp_median(num, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS num
FROM dp_test;
SELECT abs(dp_percentile(f8, 0.9, 1e6, 0, 0, 102.4) - 89.5) <= 1 AS p90,
       abs(dp_percentile(num, 0.0, 1e6, 0, 0, 102.4, 'permute_and_flip') - 0) <= 0.2 AS p0,
       dp_percentile(i4, 1.0, 1e6, 0, 0, 102.4, 'auto') >= 98.9 AS p100
FROM dp_test;
-- (p = 1: every point at or above the largest value has rank n, so the answer is a uniform point
-- of [max, upper]; p = 0 likewise of [lower, min].  Ranks cannot tell the extremes.)
-- Several quantiles together (each at epsilon / k), answered in the order of the ps.
SELECT abs(q[1] - 89.5) <= 1 AS p90, abs(q[2] - 9.5) <= 1 AS p10, abs(q[3] - 49.5) <= 1 AS p50,
       q[2] <= q[3] AND q[3] <= q[1] AS ordered, array_length(q, 1) AS k
FROM (SELECT dp_percentiles(f8, ARRAY[0.9, 0.1, 0.5], 1e6, 0, 0, 102.4) AS q FROM dp_test) s;
-- GROUP BY: one release per group.  A group's values step by 5 (grp 0: 0, 5, ..., 95), so every
-- point of the gap at its middle is a median: checked by the share of the group's values below.
SELECT grp, (SELECT avg((t.f8 < s.m)::int) FROM dp_test t WHERE t.grp = s.grp) BETWEEN 0.45 AND 0.55 AS near
FROM (SELECT grp, dp_median(f8, 1e6, 0, 0, 102.4) AS m FROM dp_test GROUP BY grp) s ORDER BY grp;
-- Small groups keep their values' bins in a list, large ones the counts: the same answers.
SELECT count(*) FILTER (WHERE abs(m - v) <= 0.11) AS exact_enough, count(*) AS groups
FROM (SELECT id % 100 AS v, dp_median(f8, 1e6, 0, 0, 102.4) AS m FROM dp_test GROUP BY 1) s;
-- Values outside [lower, upper] count at the bounds; NaN (above every number in PostgreSQL) and
-- +-Infinity too; NULLs are skipped.
SELECT dp_median(x, 1e6, 0, 0, 1) >= 1 - 1.0 / 1024 AS top,
       dp_percentile(x, 0.0, 1e6, 0, 0, 1) <= 1.0 / 1024 AS bottom
FROM (VALUES (5.0), ('NaN'), ('Infinity'), (NULL), (NULL), ('-Infinity')) v(x);
SELECT abs(dp_median(x, 1e6, 0, 0, 10.24) - 3) <= 0.02 AS nulls_skipped
FROM (VALUES (3.0), (NULL), (NULL), (NULL)) v(x);
-- Empty input: a uniform point of [lower, upper] (no error, no NULL).
SELECT dp_median(x, 1.0, 0, -5, 5) BETWEEN -5 AND 5 AS in_bounds FROM dp_empty;
SELECT g, dp_median(x, 1.0, 0, -5, 5) BETWEEN -5 AND 5 AS in_bounds
FROM (VALUES (1, NULL::int)) v(g, x) GROUP BY g;
-- Parallel plans: partial counts travel through serialize/deserialize.
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dp_median(f8, 1e6, 0, 0, 102.4) FROM dp_test;
SELECT abs(dp_median(f8, 1e6, 0, 0, 102.4) - 49.5) <= 1 AS parallel_near,
       abs((dp_percentiles(i8, ARRAY[0.25], 1e6, 0, 0, 102.4))[1] - 24.5) <= 1 AS parallel_array
FROM dp_test;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- Bad parameters: 22023 with a hint, before any row is read (and nothing is charged).
SELECT expect_error($$SELECT dp_percentile(f8, 1.5, 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, -0.1, 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, 'NaN', 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, NULL, 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, 100, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, 5, 5) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, 0, 'Infinity') FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, -1e308, 1e308) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 'NaN', 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, -1, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 1, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, NULL, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, 0, 100, 'laplace') FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, 0, 100, NULL) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, ARRAY[]::float8[], 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, ARRAY[0.5, NULL], 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, NULL, 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, ARRAY[[0.5, 0.6]], 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentiles(f8, array_fill(0.5::float8, ARRAY[65]), 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_percentile(f8, f8 / 100, 1.0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_median(f8, 1.0, 0, 0, 100) OVER () FROM dp_test$$);
-- Over a private relation, per privacy unit: each unit's value in a group is its average there
-- (as dp_avg's per-unit form) and the quantile is that of the units' values; each of a unit's at
-- most L groups releases at epsilon / L.  q_private: 200 units, 50 rows each, values varying
-- within a unit.  Checked by the share of units' averages below the answer.
CREATE TABLE q_private AS SELECT id % 200 AS uid, (id * 7 % 101)::float8 AS f8, grp FROM dp_test;
CREATE TABLE q_averages AS SELECT uid, grp, avg(f8) AS a FROM q_private GROUP BY uid, grp;
SELECT dp_protect('q_private', 'uid');
SELECT (SELECT avg((a < m)::int) FROM q_averages) BETWEEN 0.45 AND 0.55 AS unit_median,
       (SELECT avg((a < q[1])::int) FROM q_averages) BETWEEN 0.05 AND 0.15 AS unit_p10,
       (SELECT avg((a < q[2])::int) FROM q_averages) BETWEEN 0.85 AND 0.95 AS unit_p90
FROM (SELECT dp_median(f8, 1e6, 0, 0, 102.4) AS m, dp_percentiles(f8, ARRAY[0.1, 0.9], 1e6, 0, 0, 102.4) AS q
      FROM q_private) r;
-- GROUP BY: group selection (delta > 0 for it), at most L = 3 groups per unit; every unit's rows
-- fall in one grp, so each group keeps its units.
SELECT dp_protect('q_private', 'uid', 3);
SELECT grp, (SELECT avg((a < r.m)::int) FROM q_averages v WHERE v.grp = r.grp) BETWEEN 0.35 AND 0.65 AS near
FROM (SELECT grp, dp_percentile(f8, 0.5, 1e6, 1e-6, 0, 102.4) AS m FROM q_private GROUP BY grp) r ORDER BY grp;
-- (under zCDP the L groups' rho: L (epsilon / L)^2 / 2)
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = current_user ORDER BY seq DESC LIMIT 2;
SELECT aggregate, privacy_unit, max_groups_contributed, epsilon, group_epsilon, mechanism
FROM dp_explain($$SELECT grp, dp_percentiles(f8, ARRAY[0.25, 0.75], 3.0, 1e-6, 0, 100) FROM q_private GROUP BY grp$$);
-- The per-unit forms are the rewrite's alone.
SELECT expect_error($$SELECT dpagg_unit_median(f8, 1.0, 0, 0, 100, NULL, 1, 'uid') FROM dp_test$$);
DROP TABLE q_private, q_averages;
CREATE ROLE q_analyst;
SELECT has_function_privilege('q_analyst', 'dpagg_percentile_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('q_analyst', 'dpagg_percentile_combine(internal, internal)', 'EXECUTE') AS combine_callable;
-- An aggregate a superuser builds from dp_percentile's transition and dp_percentiles' final (or
-- the reverse) is not dpagg's: refused before anything is charged.
CREATE AGGREGATE q_mixed(float8, float8, float8, float8, float8, float8) (
  SFUNC = dpagg_percentile_trans_float8, STYPE = internal, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = dpagg_percentile_combine,
  SERIALFUNC = dpagg_percentile_serialize, DESERIALFUNC = dpagg_percentile_deserialize);
SELECT expect_error($$SELECT q_mixed(f8, 0.5, 1.0, 0, 0, 100) FROM dp_test$$);
DROP AGGREGATE q_mixed(float8, float8, float8, float8, float8, float8);
-- The charge: epsilon, no delta (pure epsilon-DP), rho = epsilon^2 / 2; the ledger names the ps
-- (their number and range where the list would not fit).
ALTER ROLE q_analyst LOGIN;
SELECT dp_set_budget('q_analyst', 5.0, 1e-6);
GRANT SELECT ON dp_test TO q_analyst;
SET SESSION AUTHORIZATION q_analyst;
SELECT dp_percentiles(f8, ARRAY[0.25, 0.75], 0.5, 1e-7, 0, 100) IS NOT NULL AS released FROM dp_test;
SELECT dp_median(f8, 0.25, 0, 0, 100) IS NOT NULL AS released FROM dp_test WHERE false;
SELECT array_length(dp_percentiles(f8,
  ARRAY[0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.20, 0.21, 0.22, 0.23, 0.24, 0.25, 0.26, 0.27, 0.28, 0.29, 0.30, 0.31, 0.32, 0.33, 0.34, 0.35, 0.36, 0.37, 0.38, 0.39, 0.40, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.48, 0.49, 0.50, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59, 0.60, 0.61, 0.62, 0.63, 0.64], 0.5, 0, 0, 100), 1) AS k
FROM dp_test;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = 'q_analyst' ORDER BY seq;
SELECT epsilon_spent, delta_spent FROM dp_budgets WHERE role = 'q_analyst';
RESET SESSION AUTHORIZATION;
-- dp_explain: each quantile's epsilon, the scores' sensitivity max(p, 1 - p), no delta.
SELECT release, aggregate, epsilon, delta, group_epsilon, sensitivity, mechanism, noise_scale, details
FROM dp_explain($$SELECT grp, dp_median(f8, 1.0, 1e-6, 0, 100), dp_percentiles(f8, ARRAY[0.1, 0.75], 2.0, 0, 0, 100) FROM dp_test GROUP BY grp$$);
REVOKE SELECT ON dp_test FROM q_analyst;
SELECT dp_drop_budget('q_analyst');
DROP ROLE q_analyst;
-- The split for Citus (docs/quantiles.md, "On Citus"), on one node: the rows counted per bin
-- (dpagg_quantile_bin) and merged by dpagg_merge_percentile, _median and _percentiles make the
-- one-node state: at epsilon 1e9 the answer falls in the bin of the aggregate's over the rows (p n
-- is never a whole number here, so that bin is the only one of score 0), over the whole table (the
-- dense counts) and per group (a list of bins), for float8, integer and numeric values.
SELECT f, bool_and(m IS NOT DISTINCT FROM d) AS merged_as_one_node FROM (
  SELECT 'percentile' f, dpagg_quantile_bin((SELECT dpagg_merge_percentile(b, n, 0.377777, 1e9, 0, 0, 102.4, NULL) FROM (SELECT grp, dpagg_quantile_bin(f8, 0, 102.4) b, count(f8) n FROM dp_test GROUP BY grp, b) p), 0, 102.4)::text m,
         dpagg_quantile_bin((SELECT dp_percentile(f8, 0.377777, 1e9, 0, 0, 102.4) FROM dp_test), 0, 102.4)::text d
  UNION ALL
  SELECT 'percentile per group', dpagg_quantile_bin(m, 0, 102.4)::text, dpagg_quantile_bin(d, 0, 102.4)::text
  FROM (SELECT grp, dpagg_merge_percentile(b, n, 0.912345, 1e9, 0, 0, 102.4, 'permute_and_flip') m FROM (SELECT grp, dpagg_quantile_bin(i4, 0, 102.4) b, count(i4) n FROM dp_test GROUP BY grp, b) p GROUP BY grp) a
  JOIN (SELECT grp, dp_percentile(i4, 0.912345, 1e9, 0, 0, 102.4, 'permute_and_flip') d FROM dp_test GROUP BY grp) b USING (grp)
  UNION ALL
  SELECT 'percentiles', (SELECT ARRAY[dpagg_quantile_bin(m[1], 0, 102.4), dpagg_quantile_bin(m[2], 0, 102.4)] FROM (SELECT dpagg_merge_percentiles(b, n, ARRAY[0.912345, 0.377777], 1e9, 0, 0, 102.4, NULL) m FROM (SELECT dpagg_quantile_bin(num, 0, 102.4) b, count(num) n FROM dp_test GROUP BY b) p) s)::text,
         (SELECT ARRAY[dpagg_quantile_bin(d[1], 0, 102.4), dpagg_quantile_bin(d[2], 0, 102.4)] FROM (SELECT dp_percentiles(num, ARRAY[0.912345, 0.377777], 1e9, 0, 0, 102.4) d FROM dp_test) s)::text
  UNION ALL
  SELECT 'median', dpagg_quantile_bin((SELECT dpagg_merge_median(b, n, 1e9, 0, 0, 10.24, NULL) FROM (VALUES (100, 1::bigint), (200, 1), (300, 1), (NULL, 0)) p(b, n)), 0, 10.24)::text, '200') x
GROUP BY f ORDER BY f;
-- A merge refuses a bin outside its grid, a negative or NULL count, values counted without their
-- bin, one bound NULL (both NULL: without bounds) and what the aggregate refuses; an empty
-- partial (count 0) merges as no value: a uniform point of [lower, upper], as dp_median's of no row.
SELECT expect_error($$SELECT dpagg_merge_median(1024, 1, 1, 0, 0, 102.4, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(-1, 1, 1, 0, 0, 102.4, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(3, -1, 1, 0, 0, 102.4, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(3, NULL, 1, 0, 0, 102.4, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(NULL, 2, 1, 0, 0, 102.4, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(3, 1, 1, 0, 0, NULL, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_percentile(3, 1, 1.5, 1, 0, 0, 102.4, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_median(3, 1, 1, 0, 0, 102.4, 'laplace')$$);
SELECT dpagg_merge_median(NULL, 0, 1e9, 0, 0, 1, NULL) BETWEEN 0 AND 1 AS empty,
       dpagg_merge_median(5, 0, 1e9, 0, 0, 1, NULL) BETWEEN 0 AND 1 AS empty_bin;
-- The bin of a value as the state counts it: below lower in bin 0, NaN and +Infinity in the last;
-- no bin for bounds no quantile takes (a count made with them is refused by the merge).
SELECT dpagg_quantile_bin(-5, 0, 1) AS below, dpagg_quantile_bin('NaN'::float8, 0, 1) AS nan,
       dpagg_quantile_bin('Infinity'::numeric, 0, 1) AS inf, dpagg_quantile_bin(0.5::real, 0, 1) AS mid,
       dpagg_quantile_bin(5, 1, 1) IS NULL AS bad_bounds;
-- The merges' support functions are dpagg's alone; the bin functions are public.
SELECT has_function_privilege('public', 'dpagg_merge_percentile_trans(internal, integer, bigint, double precision, double precision, double precision, double precision, double precision, text)', 'EXECUTE') AS public_may_run_the_merge_transition,
       has_function_privilege('public', 'dpagg_quantile_bin(double precision, double precision, double precision)', 'EXECUTE') AS public_may_run_the_bin;
