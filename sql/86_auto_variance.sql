-- dp_var_pop(value, epsilon, delta) and its forms without bounds: half of epsilon buys a noisy
-- histogram of the values' magnitudes, the range runs over the bins whose noisy count reaches the
-- threshold (not widened to 0: a variance depends on the width only), and the variance of the
-- values clamped to it is released with the rest as the bounded variance does
-- (docs/automatic_bounds.md, "Variances").  At a huge epsilon the threshold is 1, every occupied
-- bin is in the range and the noise is negligible: the answer is the exact statistic, checked to
-- a relative 1e-9.  Checked as booleans, never printed.
-- dp_test: v = id % 100 in six types (var_pop 833.25), grp in 0..4.
SELECT abs(dp_var_pop(i2, 1e9, 0) - var_pop(i2)) <= 1e-9 * var_pop(i2) AS i2,
       abs(dp_var_pop(i4, 1e9, 0) - var_pop(i4)) <= 1e-9 * var_pop(i4) AS i4,
       abs(dp_var_pop(i8, 1e9, 0) - var_pop(i8)) <= 1e-9 * var_pop(i8) AS i8,
       abs(dp_var_pop(f4, 1e9, 0) - var_pop(f4)) <= 1e-9 * var_pop(f4) AS f4,
       abs(dp_var_pop(f8, 1e9, 1e-6) - var_pop(f8)) <= 1e-9 * var_pop(f8) AS f8,
       abs(dp_var_pop(num, 1e9, 0) - var_pop(num)) <= 1e-9 * var_pop(num) AS num
FROM dp_test;
SELECT grp, abs(dp_var_pop(f8, 1e9, 0) - var_pop(f8)) <= 1e-9 * var_pop(f8) AS var_pop,
       abs(dp_var_samp(i4, 1e9, 0) - var_samp(i4)) <= 1e-9 * var_samp(i4) AS var_samp,
       abs(dp_stddev_pop(num, 1e9, 0) - stddev_pop(num)) <= 1e-9 * stddev_pop(num) AS stddev_pop,
       abs(dp_stddev_samp(i8, 1e9, 0) - stddev_samp(i8)) <= 1e-9 * stddev_samp(i8) AS stddev_samp
FROM dp_test GROUP BY grp ORDER BY grp;
-- Negative values and values of every magnitude (the range [-2^29, 2^30]); a range far from 0
-- (values in [1e6, 1.5e6]: the range [2^19, 2^21], not widened to 0); all values in one bin.
SELECT abs(dp_var_pop(x, 1e9, 0) - var_pop(x)) <= 1e-9 * var_pop(x) AS mixed,
       abs(dp_stddev_samp(x, 1e9, 0) - stddev_samp(x)) <= 1e-9 * stddev_samp(x) AS mixed_sd
FROM (SELECT (CASE WHEN g % 3 = 0 THEN -1 ELSE 1 END) * 2 ^ (g % 40 - 10) AS x FROM generate_series(1, 4000) g) s;
SELECT abs(dp_var_samp(x, 1e9, 0) - var_samp(x)) <= 1e-9 * var_samp(x) AS far_from_zero
FROM (SELECT 1e6 + 0.5e6 * sin(g) AS x FROM generate_series(1, 3000) g) s;
SELECT abs(dp_var_pop(x, 1e9, 0) - var_pop(x)) <= 1e-9 * var_pop(x) AS one_bin
FROM (SELECT 1024 + g % 7 AS x FROM generate_series(1, 700) g) s;
-- A rare outlier does not reach the threshold (38 values at epsilon 1): it is clamped to the
-- range the bulk gives (here [64, 128], B = 32), so one person's 1e9 does not dominate
-- (var_pop with it is about 1e14; clamped to 128 it is 0.08, and the noise is about 0.4).
SELECT dp_var_pop(x, 1.0, 0) < 10 AS outlier_clamped, dp_stddev_pop(x, 1.0, 0) <= 32 AS within_b
FROM (SELECT 100.0 AS x FROM generate_series(1, 10000) UNION ALL SELECT 1e9) s;
-- Values above the range count at its upper bound: 5 000 values of 65 and of 127 give the range
-- [64, 128] and a variance of 961; ten values of 30 000 (too few to reach the threshold) count as
-- 128 and leave it at 961.3, where taken as they are they would move the centred mean to about
-- 30 and the clamped answer to about 124.  The noise is about 1.
SELECT dp_var_pop(x, 1.0, 0) BETWEEN 940 AND 985 AS above_clamped
FROM (SELECT CASE WHEN g % 2 = 0 THEN 65.0 ELSE 127.0 END AS x FROM generate_series(1, 10000) g
      UNION ALL SELECT 30000.0 FROM generate_series(1, 10)) s;
-- NULLs are skipped, NaN counts as 0 (as with bounds), +-Infinity as +-2^63 (then clamped like
-- any value beyond the range: here the range reaches it, as one value counts at a huge epsilon).
SELECT abs(dp_var_pop(x, 1e9, 0) - 1.25) <= 1e-9 AS nan_as_zero
FROM (VALUES (1.0), (2.0), (3.0), (NULL), ('NaN')) v(x);
SELECT abs(dp_var_pop(x, 1e9, 0) - var_pop(y)) <= 1e-9 * var_pop(y) AS infinities
FROM (VALUES (1.0::float8, 1.0::float8), (2, 2), ('Infinity', 2 ^ 63), ('-Infinity', -(2 ^ 63))) v(x, y);
-- NULL: an empty group; one value for the sample forms (as var_samp); a group too small for any
-- bin to reach the threshold (5 values at epsilon 1, threshold 38): no range, no answer.
SELECT dp_var_pop(x, 1.0, 0) IS NULL AS empty_pop, dp_stddev_samp(x, 1e9, 0) IS NULL AS empty_samp
FROM dp_empty;
SELECT dp_var_pop(x, 1e9, 0) = 0 AS one_pop, dp_var_samp(x, 1e9, 0) IS NULL AS one_samp
FROM (VALUES (42.0)) v(x);
SELECT dp_var_pop(x, 1.0, 0) IS NULL AS too_few FROM (VALUES (1.0), (2.0), (3.0), (4.0), (5.0)) v(x);
SELECT grp, dp_var_pop(x, 1e9, 0) IS NULL AS no_values
FROM (VALUES (1, 1.0), (1, 3.0), (2, NULL)) v(grp, x) GROUP BY grp ORDER BY grp;
-- Parallel plans: the partial histograms (with their squares) travel through serialize/deserialize.
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dp_var_pop(f8, 1e9, 0) FROM dp_test;
SELECT abs(dp_var_pop(f8, 1e9, 0) - 833.25) <= 1e-9 * 833.25 AS parallel_var,
       abs(dp_stddev_samp(i4, 1e9, 0) - stddev_samp(i4)) <= 1e-9 * stddev_samp(i4) AS parallel_sd
FROM dp_test;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- Bad parameters: 22023 with a hint, before any row is read.
SELECT expect_error($$SELECT dp_var_pop(f8, NULL, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 0, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_samp(f8, 'NaN', 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_stddev_pop(f8, 7e-10, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_stddev_samp(f8, 3e9, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 1) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, NULL) FROM dp_test$$);
SET dpagg.default_mechanism = 'analytic_gaussian';
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0) FROM dp_test$$);
RESET dpagg.default_mechanism;
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0) OVER () FROM dp_test$$);
-- Over a private relation, per privacy unit (docs/automatic_bounds.md, "Per privacy unit"): the
-- statistic of the units' averages, the range found from them, each of a unit's at most L groups
-- at (epsilon / L, delta / L).  At a huge epsilon: the exact statistic of the units' averages.
CREATE TABLE av_private AS SELECT id % 200 AS uid, (id * 7 % 101)::float8 AS f8, grp FROM dp_test;
CREATE TABLE av_units AS SELECT uid, grp, avg(f8) AS a FROM av_private GROUP BY uid, grp;
SELECT dp_protect('av_private', 'uid');
SELECT abs(v / (SELECT var_pop(a) FROM av_units) - 1) < 1e-6 AS unit_var_pop,
       abs(s / (SELECT stddev_samp(a) FROM av_units) - 1) < 1e-6 AS unit_stddev_samp
FROM (SELECT dp_var_pop(f8, 1e6, 1e-6) AS v, dp_stddev_samp(f8, 1e6, 1e-6) AS s FROM av_private) r;
SELECT dp_protect('av_private', 'uid', 3);
SELECT grp, abs(v / (SELECT var_samp(a) FROM av_units u WHERE u.grp = r.grp) - 1) < 1e-6 AS exact
FROM (SELECT grp, dp_var_samp(f8, 1e6, 1e-6) AS v FROM av_private GROUP BY grp) r ORDER BY grp;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = current_user ORDER BY seq DESC LIMIT 2;
SELECT aggregate, privacy_unit, max_groups_contributed, epsilon, delta, group_epsilon, group_delta
FROM dp_explain($$SELECT grp, dp_stddev_pop(f8, 3.0, 3e-6) FROM av_private GROUP BY grp$$) WHERE release = 1;
-- The per-unit forms are the rewrite's alone.
SELECT expect_error($$SELECT dpagg_unit_auto_var_pop(f8, 1.0, 0, 1, 'uid') FROM dp_test$$);
DROP TABLE av_private, av_units;
CREATE ROLE av_analyst LOGIN;
SELECT has_function_privilege('av_analyst', 'dpagg_auto_var_pop_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('av_analyst', 'dpagg_auto_var_trans_float8(internal, double precision, double precision, double precision)', 'EXECUTE') AS trans_callable,
       has_function_privilege('av_analyst', 'dpagg_auto_var_deserialize(bytea, internal)', 'EXECUTE') AS deserialize_callable;
-- The charge: the call's epsilon and delta, as the histogram's part and the variance's (whose
-- mechanism is chosen at the release: all of delta, epsilon_part^2 / 2 under zCDP).
SELECT dp_set_budget('av_analyst', 5.0, 1e-6);
GRANT SELECT ON dp_test TO av_analyst;
SET SESSION AUTHORIZATION av_analyst;
SELECT dp_var_pop(f8, 1.0, 1e-7) BETWEEN 0 AND 4096 AS released FROM dp_test;
SELECT count(v) AS groups FROM (SELECT grp, dp_stddev_samp(i4, 0.5, 0) AS v FROM dp_test GROUP BY grp) s;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = 'av_analyst' ORDER BY seq;
SELECT round(epsilon_spent::numeric, 9) AS epsilon_spent, delta_spent FROM dp_budgets WHERE role = 'av_analyst';
RESET SESSION AUTHORIZATION;
SELECT release, aggregate, epsilon, delta, group_epsilon, group_delta, sensitivity, mechanism, details
FROM dp_explain($$SELECT grp, dp_var_pop(f8, 1.0, 1e-6), dp_stddev_samp(i4, 2.0, 0) FROM dp_test GROUP BY grp$$);
REVOKE SELECT ON dp_test FROM av_analyst;
SELECT dp_drop_budget('av_analyst');
DROP ROLE av_analyst;
-- The split for Citus (docs/automatic_bounds.md, "On Citus"), on one node: the rows counted and
-- summed per bin of magnitude, with their squares' quanta (dpagg_auto_square_quanta), and merged
-- make the one-node state: at epsilon 1e9 the four forms agree to 1e-9, whole table and per
-- group, float8, integer and numeric values, NULL, NaN and infinities, listed and dense states.
CREATE TABLE av_split AS SELECT g % 3 AS grp, CASE WHEN g % 50 = 0 THEN NULL WHEN g % 41 = 0 THEN 'NaN'
  WHEN g % 97 = 0 THEN '-Infinity' ELSE (CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END) * 2 ^ (g % 37 - 12) END::float8 AS f8
  FROM generate_series(1, 3000) g;
SELECT f, bool_and((m IS NULL) = (d IS NULL) AND coalesce(abs(m - d) <= 1e-9 * abs(d), true)) AS merged_as_one_node FROM (
  SELECT 'var_pop float8' f, (SELECT dpagg_merge_auto_var_pop(b, n, s, q, 1e9, 1e-5) FROM (SELECT grp, dpagg_auto_bin(f8) b, count(f8) n, sum(dpagg_auto_quanta(f8)) s, sum(dpagg_auto_square_quanta(f8)) q FROM dp_test GROUP BY grp, b) p) m,
         (SELECT dp_var_pop(f8, 1e9, 1e-5) FROM dp_test) d
  UNION ALL
  SELECT 'stddev_samp integer per group', m, d
  FROM (SELECT grp, dpagg_merge_auto_stddev_samp(b, n, s, q, 1e9, 1e-5) m FROM (SELECT grp, dpagg_auto_bin(i4) b, count(i4) n, sum(dpagg_auto_quanta(i4)) s, sum(dpagg_auto_square_quanta(i4)) q FROM dp_test GROUP BY grp, b) p GROUP BY grp) a
  JOIN (SELECT grp, dp_stddev_samp(i4, 1e9, 1e-5) d FROM dp_test GROUP BY grp) b USING (grp)
  UNION ALL
  SELECT 'var_samp numeric', (SELECT dpagg_merge_auto_var_samp(b, n, s, q, 1e9, 0) FROM (SELECT dpagg_auto_bin(num) b, count(num) n, sum(dpagg_auto_quanta(num)) s, sum(dpagg_auto_square_quanta(num)) q FROM dp_test GROUP BY b) p),
         (SELECT dp_var_samp(num, 1e9, 0) FROM dp_test)
  UNION ALL
  SELECT 'stddev_pop dense, per group', m, d
  FROM (SELECT grp, dpagg_merge_auto_stddev_pop(b, n, s, q, 1e9, 1e-5) m FROM (SELECT grp, dpagg_auto_bin(f8) b, count(f8) n, sum(dpagg_auto_quanta(f8)) s, sum(dpagg_auto_square_quanta(f8)) q FROM av_split GROUP BY grp, b) p GROUP BY grp) a
  JOIN (SELECT grp, dp_stddev_pop(f8, 1e9, 1e-5) d FROM av_split GROUP BY grp) b USING (grp)) x
GROUP BY f ORDER BY f;
-- No value: NULL, as over the rows on one node.
SELECT dpagg_merge_auto_var_pop(NULL, 0, NULL, NULL, 1e9, 0) IS NULL AS merged_null,
       (SELECT dp_var_pop(f8, 1e9, 0) FROM av_split WHERE f8 IS NULL) IS NULL AS one_node_null;
-- Malformed partials are refused (22023): squares below 0 or beyond 2^52 quanta a value (outside
-- the zero bin, below 2^50 a value), a count without its squares, squares without values; the
-- sums' checks are dp_sum's.
SELECT expect_error($$SELECT dpagg_merge_auto_var_pop(120, 2, 3 * 2::numeric ^ 51, -1, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_var_samp(120, 2, 3 * 2::numeric ^ 51, 2 * 2::numeric ^ 52 + 1, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_stddev_pop(120, 2, 3 * 2::numeric ^ 51, NULL, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_stddev_samp(120, 0, NULL, 3, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_var_pop(191, 1, 0, 0, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_var_pop(120, 1, 2::numeric ^ 52 + 1, 2::numeric ^ 51, 1, 0)$$);
SELECT expect_error($$SELECT dpagg_merge_auto_var_pop(120, 2, 3 * 2::numeric ^ 51, 2::numeric ^ 51 - 1, 1, 0)$$);
-- ... and partials within those checks that add up to more than the release at this epsilon can
-- represent (an attack review: the core's internal error, XX000, before).
SELECT expect_error($$SELECT dpagg_merge_auto_var_pop(150, 68719476736, 68719476736::numeric * 4503599627370496, 68719476736::numeric * 4503599627370496, 1e9, 1e-6)$$);
-- ... while the extreme values of the bin make are taken.
SELECT dpagg_merge_auto_var_pop(b, 2, 2::numeric ^ 52, 2::numeric ^ 51, 1e9, 0) IS NOT NULL AS low_taken,
       dpagg_merge_auto_var_pop(b, 2, 2::numeric ^ 53, 2::numeric ^ 53, 1e9, 0) IS NOT NULL AS high_taken FROM (VALUES (120)) v(b);
SELECT dpagg_auto_square_quanta(3::smallint) AS nine_in_quanta, dpagg_auto_square_quanta('NaN'::float8) AS nan;
CREATE ROLE av_split_role LOGIN;
SELECT has_function_privilege('av_split_role', 'dpagg_merge_auto_var_trans(internal, integer, bigint, numeric, numeric, double precision, double precision)', 'EXECUTE') AS trans_callable,
       has_function_privilege('av_split_role', 'dpagg_merge_auto_var_pop_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('av_split_role', 'dpagg_auto_square_quanta(numeric)', 'EXECUTE') AS squares_callable;
DROP ROLE av_split_role;
DROP TABLE av_split;
