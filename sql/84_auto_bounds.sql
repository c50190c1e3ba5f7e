-- dp_sum(value, epsilon, delta): no bounds; half of epsilon buys a noisy histogram of the values'
-- magnitudes (191 bins of powers of two), the bounds run over the bins whose noisy count reaches
-- a threshold (widened to contain 0), and the sum clamped to them is released with the rest
-- (docs/automatic_bounds.md).  At a huge epsilon the threshold is 1 and every occupied bin is
-- inside the bounds: the answer is the exact sum.  Checked as booleans, never printed.
-- dp_test: v = id % 100 in six types (each value 100 times, so the sum is 495 000), grp in 0..4.
SELECT abs(dp_sum(i2, 1e6, 0) - 495000) < 1 AS i2, abs(dp_sum(i4, 1e6, 0) - 495000) < 1 AS i4,
       abs(dp_sum(i8, 1e6, 0) - 495000) < 1 AS i8, abs(dp_sum(f4, 1e6, 0) - 495000) < 1 AS f4,
       abs(dp_sum(f8, 1e6, 1e-6) - 495000) < 1 AS f8, abs(dp_sum(num, 1e6, 0) - 495000) < 1 AS num
FROM dp_test;
SELECT grp, abs(dp_sum(f8, 1e6, 0) - sum(f8)) < 1 AS exact FROM dp_test GROUP BY grp ORDER BY grp;
-- Negative values and values of every magnitude: still the exact sum at a huge epsilon.
SELECT abs(dp_sum(x, 1e6, 0) - sum(x)) < 1e-6 * abs(sum(x)) + 1 AS mixed
FROM (SELECT (CASE WHEN g % 3 = 0 THEN -1 ELSE 1 END) * 2 ^ (g % 40 - 10) AS x FROM generate_series(1, 4000) g) s;
-- A rare outlier does not reach the threshold (38 values at epsilon 1): it is clamped to the
-- bounds the bulk of the values gives (here [0, 128]), so one person's 1e9 does not dominate.
SELECT abs(dp_sum(x, 1.0, 0) - 1000000) < 20000 AS outlier_clamped
FROM (SELECT 100.0 AS x FROM generate_series(1, 10000) UNION ALL SELECT 1e9) s;
-- NULLs are skipped, NaN counts as 0, +-Infinity as +-2^63 (then clamped like any outlier).
SELECT abs(dp_sum(x, 1e6, 0) - 6) < 1e-6 AS specials
FROM (VALUES (1.0), (2.0), (3.0), (NULL), ('NaN')) v(x);
-- Empty input: no bin counts, the bounds are the zero bin's [-2^-32, 2^-32]: a noisy 0.
SELECT abs(dp_sum(x, 1.0, 0)) < 1e-6 AS noisy_zero FROM dp_empty;
-- dp_avg(value, epsilon, delta): the same bounds, then the centred sum and the count at half of
-- the rest each, as dp_avg with bounds; the answer lies inside the chosen bounds.
SELECT abs(dp_avg(i2, 1e6, 0) - 49.5) < 1e-3 AS i2, abs(dp_avg(i4, 1e6, 0) - 49.5) < 1e-3 AS i4,
       abs(dp_avg(i8, 1e6, 0) - 49.5) < 1e-3 AS i8, abs(dp_avg(f4, 1e6, 0) - 49.5) < 1e-3 AS f4,
       abs(dp_avg(f8, 1e6, 1e-6) - 49.5) < 1e-3 AS f8, abs(dp_avg(num, 1e6, 0) - 49.5) < 1e-3 AS num
FROM dp_test;
SELECT grp, abs(dp_avg(f8, 1e6, 0) - avg(f8)) < 1e-3 AS exact FROM dp_test GROUP BY grp ORDER BY grp;
SELECT abs(dp_avg(x, 1.0, 0) - 100) < 1 AS outlier_clamped
FROM (SELECT 100.0 AS x FROM generate_series(1, 10000) UNION ALL SELECT 1e9) s;
SELECT abs(dp_avg(x, 1e6, 0) + 3) < 1e-6 AS negative FROM (VALUES (-1.0), (-3.0), (-5.0)) v(x);
SELECT abs(dp_avg(x, 1.0, 0)) <= 2 ^ (-32) AS in_zero_bin FROM dp_empty;
-- Parallel plans: the partial histograms travel through serialize/deserialize.
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dp_sum(f8, 1e6, 0) FROM dp_test;
SELECT abs(dp_sum(f8, 1e6, 0) - 495000) < 1 AS parallel_exact, abs(dp_avg(i4, 1e6, 0) - 49.5) < 1e-3 AS parallel_avg FROM dp_test;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- Bad parameters: 22023 with a hint, before any row is read.
SELECT expect_error($$SELECT dp_sum(f8, NULL, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_sum(f8, 0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_sum(f8, 'NaN', 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_sum(f8, 2e-10, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_avg(f8, 3e-10, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_sum(f8, 1.0, 1) FROM dp_test$$);
SELECT expect_error($$SELECT dp_sum(f8, 1.0, NULL) FROM dp_test$$);
SET dpagg.default_mechanism = 'analytic_gaussian';
SELECT expect_error($$SELECT dp_sum(f8, 1.0, 0) FROM dp_test$$);
RESET dpagg.default_mechanism;
SELECT expect_error($$SELECT dp_sum(f8, 1.0, 0) OVER () FROM dp_test$$);
-- Over a private relation, per privacy unit (docs/automatic_bounds.md, "Per privacy unit"): the
-- histogram counts the units' values (dp_sum: each unit's total in the group; dp_avg: its average
-- there), and each of a unit's at most L groups releases at (epsilon / L, delta / L).  At a huge
-- epsilon every unit's total is inside the bounds found: the exact sum.  a_private: 200 units of
-- 50 rows, each unit's rows in one grp.
CREATE TABLE a_private AS SELECT id % 200 AS uid, f8, grp FROM dp_test;
CREATE TABLE a_units AS SELECT uid, grp, sum(f8) AS s, avg(f8) AS a FROM a_private GROUP BY uid, grp;
SELECT dp_protect('a_private', 'uid');
SELECT abs(s - 495000) < 1 AS unit_sum, abs(a - (SELECT avg(a) FROM a_units)) < 1e-3 AS unit_avg
FROM (SELECT dp_sum(f8, 1e6, 0) AS s, dp_avg(f8, 1e6, 0) AS a FROM a_private) r;
-- One person with 10 000 rows among 1 000 with one row each: the units' totals put the bounds at
-- [0, 2] (the outlier's bin holds one unit, far below the threshold of 38 at epsilon 1), so that
-- person counts 2, not 10 000.
CREATE TABLE a_heavy AS SELECT g AS uid, 1.0::float8 AS x FROM generate_series(1, 1000) g
  UNION ALL SELECT 0, 1.0 FROM generate_series(1, 10000);
SELECT dp_protect('a_heavy', 'uid');
SELECT abs(dp_sum(x, 1.0, 0) - 1002) < 60 AS heavy_unit_clamped FROM a_heavy;
DROP TABLE a_heavy;
-- A unit's average is its sum over its count, never an error: a subnormal sum over two values
-- rounds to 0 instead of raising an underflow (which a query could aim at one unit's value, at any
-- epsilon; an attack review found it), with bounds or without, for every form that averages.
CREATE TABLE a_tiny (uid int, x float8);
INSERT INTO a_tiny VALUES (1, '5e-324'), (1, 0), (2, 1), (2, 1);
SELECT dp_protect('a_tiny', 'uid');
SELECT num_nulls(a, b, c, d, e) >= 0 AS released
FROM (SELECT dp_avg(x, 1.0, 0) AS a, dp_avg(x, 1.0, 0, 0, 1) AS b, dp_median(x, 1.0, 0) AS c,
             dp_stddev_pop(x, 1.0, 1e-6) AS d, dp_var_pop(x, 1.0, 1e-6, 0, 1) AS e FROM a_tiny) r;
DROP TABLE a_tiny;
SELECT dp_protect('a_private', 'uid', 3);
SELECT grp, abs(r.s - (SELECT sum(s) FROM a_units u WHERE u.grp = r.grp)) < 1 AS exact
FROM (SELECT grp, dp_sum(f8, 1e6, 1e-6) AS s FROM a_private GROUP BY grp) r ORDER BY grp;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = current_user ORDER BY seq DESC LIMIT 2;
SELECT aggregate, privacy_unit, max_groups_contributed, epsilon, delta, group_epsilon, group_delta,
       details->'bounds'->>'epsilon' AS bounds_group_epsilon
FROM dp_explain($$SELECT grp, dp_avg(f8, 3.0, 3e-6) FROM a_private GROUP BY grp$$) WHERE release = 1;
-- The per-unit forms are the rewrite's alone.
SELECT expect_error($$SELECT dpagg_unit_auto_sum(f8, 1.0, 0, 1, 'uid') FROM dp_test$$);
DROP TABLE a_private, a_units;
CREATE ROLE a_analyst LOGIN;
SELECT has_function_privilege('a_analyst', 'dpagg_auto_sum_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('a_analyst', 'dpagg_auto_avg_final(internal)', 'EXECUTE') AS avg_final_callable,
       has_function_privilege('a_analyst', 'dpagg_auto_sum_deserialize(bytea, internal)', 'EXECUTE') AS deserialize_callable;
-- The charge: the call's epsilon and delta, as the histogram's part and the sum's; under zCDP
-- epsilon_part^2 / 2 for each (the sum's mechanism is chosen at the release).
SELECT dp_set_budget('a_analyst', 5.0, 1e-6);
GRANT SELECT ON dp_test TO a_analyst;
SET SESSION AUTHORIZATION a_analyst;
SELECT dp_sum(f8, 1.0, 1e-7) IS NOT NULL AS released FROM dp_test;
SELECT count(v) AS groups FROM (SELECT grp, dp_sum(i4, 0.5, 0) AS v FROM dp_test GROUP BY grp) s;
SELECT dp_avg(f8, 0.5, 1e-7) BETWEEN 0 AND 128 AS released FROM dp_test;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = 'a_analyst' ORDER BY seq;
RESET SESSION AUTHORIZATION;
SELECT release, aggregate, epsilon, delta, group_epsilon, sensitivity, mechanism, details
FROM dp_explain($$SELECT grp, dp_sum(f8, 1.0, 1e-6), dp_avg(f8, 2.0, 1e-6) FROM dp_test GROUP BY grp$$);
REVOKE SELECT ON dp_test FROM a_analyst;
SELECT dp_drop_budget('a_analyst');
DROP ROLE a_analyst;
-- The split for Citus (docs/automatic_bounds.md, "On Citus"), on one node: the rows counted and
-- summed per bin of magnitude (dpagg_auto_bin, dpagg_auto_quanta) and merged make the one-node
-- state, a list of bins and past 8 of them dense: at epsilon 1e9 the answers agree to 1e-9, whole
-- table and per group, float8, integer and numeric values, NULL, NaN and infinities.
CREATE TABLE a_split AS SELECT g % 3 AS grp, CASE WHEN g % 50 = 0 THEN NULL WHEN g % 41 = 0 THEN 'NaN'
  WHEN g % 97 = 0 THEN 'Infinity' ELSE (CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END) * 2 ^ (g % 37 - 12) END::float8 AS f8
  FROM generate_series(1, 3000) g;
SELECT f, bool_and(abs(m - d) <= 1e-9 * abs(d)) AS merged_as_one_node FROM (
  SELECT 'sum float8' f, (SELECT dpagg_merge_auto_sum(b, n, s, 1e9, 1e-5) FROM (SELECT grp, dpagg_auto_bin(f8) b, count(f8) n, sum(dpagg_auto_quanta(f8)) s FROM dp_test GROUP BY grp, b) p) m,
         (SELECT dp_sum(f8, 1e9, 1e-5) FROM dp_test) d
  UNION ALL
  SELECT 'avg integer per group', m, d
  FROM (SELECT grp, dpagg_merge_auto_avg(b, n, s, 1e9, 1e-5) m FROM (SELECT grp, dpagg_auto_bin(i4) b, count(i4) n, sum(dpagg_auto_quanta(i4)) s FROM dp_test GROUP BY grp, b) p GROUP BY grp) a
  JOIN (SELECT grp, dp_avg(i4, 1e9, 1e-5) d FROM dp_test GROUP BY grp) b USING (grp)
  UNION ALL
  SELECT 'sum numeric', (SELECT dpagg_merge_auto_sum(b, n, s, 1e9, 0) FROM (SELECT dpagg_auto_bin(num) b, count(num) n, sum(dpagg_auto_quanta(num)) s FROM dp_test GROUP BY b) p),
         (SELECT dp_sum(num, 1e9, 0) FROM dp_test)
  UNION ALL
  SELECT 'sum and avg dense, per group', m, d
  FROM (SELECT grp, dpagg_merge_auto_sum(b, n, s, 1e9, 1e-5) + dpagg_merge_auto_avg(b, n, s, 1e9, 1e-5) m FROM (SELECT grp, dpagg_auto_bin(f8) b, count(f8) n, sum(dpagg_auto_quanta(f8)) s FROM a_split GROUP BY grp, b) p GROUP BY grp) a
  JOIN (SELECT grp, dp_sum(f8, 1e9, 1e-5) + dp_avg(f8, 1e9, 1e-5) d FROM a_split GROUP BY grp) b USING (grp)) x
GROUP BY f ORDER BY f;
-- No value (a group's rows all NULL: a row of count 0): as over the rows on one node.
SELECT round(dpagg_merge_auto_sum(NULL, 0, NULL, 1e9, 0)::numeric, 3) AS merged,
       round((SELECT dp_sum(f8, 1e9, 0) FROM a_split WHERE f8 IS NULL)::numeric, 3) AS one_node;
-- Malformed partials are refused (22023): a bin outside the 191, a negative or NULL count, values
-- without their bin or their sum, sums a count of values of their bin cannot make (beyond 2^52
-- quanta each, below 2^51 each outside the zero bin, or on the other side of 0), a sum without
-- values.
SELECT expect_error($$SELECT dpagg_merge_auto_sum(191, 1, 0, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(-1, 1, 0, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_avg(100, -1, 0, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_avg(100, NULL, 0, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(NULL, 2, 5, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(120, 2, NULL, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(120, 2, 2 * 2::numeric ^ 52 + 1, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(20, 2, -2 * 2::numeric ^ 52 - 1, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(120, 1, -5, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(120, 2, 2::numeric ^ 52 - 1, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(95, 2, 2 * 2::numeric ^ 52 + 1, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(20, 1, 5, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(120, 0, 5, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_sum(120, 1, 0.5, 1, 0)$$);
-- ... and counts that each fit a bigint but together do not (no rows can make them).
SELECT expect_error($$SELECT dpagg_merge_auto_sum(b, 4611686018427387904, 2::numeric ^ 113, 1, 0) FROM (VALUES (120), (121)) v(b)$$);
-- ... and partials that pass those checks but add up to more than the release at this epsilon
-- can represent (an attack review: the core's internal error, XX000, before).
SELECT expect_error($$SELECT dpagg_merge_auto_sum(100, 68719476736, 68719476736::numeric * 4503599627370496, 1e9, 1e-6)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_avg(150, 68719476736, 68719476736::numeric * 4503599627370496, 1e9, 1e-6)$$);
-- ... while the largest sums a count can make are taken.
SELECT dpagg_merge_auto_sum(b, 2, 2 * 2::numeric ^ 52, 1e9, 0) > 0 AS top_taken,
       dpagg_merge_auto_sum(b, 2, 2::numeric ^ 52, 1e9, 0) > 0 AS bottom_taken,
       dpagg_merge_auto_sum(95, 2, -2 * 2::numeric ^ 52, 1e9, 0) IS NOT NULL AS zero_bin_taken FROM (VALUES (190)) v(b);
-- The row functions are public (a value's bin and quanta are no more than the value); the
-- merges' support functions are not.
SELECT dpagg_auto_bin(0) AS zero_bin, dpagg_auto_bin('NaN'::numeric) AS nan_bin, dpagg_auto_bin('Infinity'::float8) AS inf_bin,
       dpagg_auto_bin('-Infinity'::real) AS minus_inf_bin, dpagg_auto_quanta(3::smallint) AS three, dpagg_auto_quanta(-1e300::float8) AS minus_top;
CREATE ROLE a_split_role LOGIN;
SELECT has_function_privilege('a_split_role', 'dpagg_merge_auto_sum_trans(internal, integer, bigint, numeric, double precision, double precision)', 'EXECUTE') AS trans_callable,
       has_function_privilege('a_split_role', 'dpagg_merge_auto_avg_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('a_split_role', 'dpagg_auto_quanta(double precision)', 'EXECUTE') AS quanta_callable;
DROP ROLE a_split_role;
-- The merges cannot read a private relation's rows (their partials would not be per unit).
CREATE TABLE a_split_private AS SELECT g AS uid, g::float8 AS f8 FROM generate_series(1, 10) g;
SELECT dp_protect('a_split_private', 'uid');
SELECT expect_error($$SELECT dpagg_merge_auto_avg(dpagg_auto_bin(f8), 1, dpagg_auto_quanta(f8), 1, 0) FROM a_split_private$$) AS merge_on_private_rows;
DROP TABLE a_split, a_split_private;
