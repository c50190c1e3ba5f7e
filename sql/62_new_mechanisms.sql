-- The non-Gaussian mechanisms with the least noise in parts of the (epsilon, delta) plane
-- (docs/guides/mechanisms.md): truncated_laplace (Geng, Ding, Guo & Kumar), staircase (Geng & Viswanath), tulap
-- (Awan & Slavkovic), and for integer-valued queries discrete_laplace (Ghosh, Roughgarden &
-- Sundararajan).  Each works through dp_calibrate, dp_sum, dp_avg, dp_count, the report forms
-- and budgets; noisy values are checked statistically (mean within 5 standard errors, spread
-- within a band around the calibrated one), never printed.

-- Calibrations: each beats the analytic Gaussian's expected absolute error where the paper says
-- the non-Gaussian benchmarks do (small epsilon), and the staircase beats Laplace at delta = 0.
SELECT m.mechanism_name, m.l1 < a.l1 AS less_l1_than_gaussian, m.rho IS NULL AS not_zcdp
FROM (VALUES ('truncated_laplace'), ('tulap'), ('staircase')) v(name),
     LATERAL dp_calibrate(name, 0.5, 1e-5) m, dp_calibrate('analytic_gaussian', 0.5, 1e-5) a
ORDER BY 1;
SELECT s.l1 < l.l1 AS staircase_l1, s.l2 < l.l2 AS staircase_l2
FROM dp_calibrate('staircase', 2, 0) s, dp_calibrate('laplace', 2, 0) l;
SELECT mechanism_name, l1 < (SELECT l1 FROM dp_calibrate('laplace', 1, 0, 1, true)) AS less_than_laplace
FROM dp_calibrate('discrete_laplace', 1, 0, 1, true);
-- auto considers them: at epsilon 0.1 a truncated Laplace or Tulap is least noisy, and for a
-- count at delta = 0 the discrete Laplace.
SELECT mechanism_name IN ('truncated_laplace', 'tulap') AS non_gaussian_wins
FROM dp_calibrate('auto(objective=l1)', 0.1, 1e-6);
SELECT mechanism_name FROM dp_calibrate('auto', 1, 0, 1, true);

-- What they refuse, with a reason and a hint, before anything is spent.
SELECT expect_error($$SELECT * FROM dp_calibrate('truncated_laplace', 1, 0)$$);
SELECT expect_error($$SELECT * FROM dp_calibrate('discrete_laplace', 1, 0)$$);
SELECT expect_error($$SELECT dp_sum(f8, 1, 0, 100, 'discrete_laplace') FROM dp_test$$);
SELECT expect_error($$SELECT dp_avg(i4, 1, 0, 0, 100, 'discrete_laplace') FROM dp_test$$);
-- Integer noise is exact only up to a scale (sensitivity / epsilon <= 2^40): beyond it two
-- geometric draws would be multiples of their ulps, and nearly cancelling draws would leave the
-- answer's low bits in the release (an attack review found 65 % of releases matching v mod 1024).
SELECT expect_error($$SELECT dp_sum(i4, 1e-10, 0, -1000000000, 1000000000, 'discrete_laplace') FROM dp_test$$);
SELECT mechanism_name <> 'discrete_laplace' AS auto_avoids_it FROM dp_calibrate('auto', 1e-10, 0, 1e9, true);
-- A merge told integer_values = true (as dpagg's Citus rewrite does for integer columns) refuses a
-- partial sum that is not a whole number: a merge written by hand cannot make an integer-valued
-- mechanism release a fraction exactly.
SELECT expect_error($$SELECT dpagg_merge_sum(s, n, 0.01, 0, 0, 10, 'discrete_laplace', true)
  FROM (SELECT sum(dpagg_quanta_sum(f8 * 0.37 + 0.1234, 0, 10)) s, count(*) n FROM dp_test) q$$);
-- ... and a partial sum its count of values clamped to the bounds could not make (one value of
-- -2^53 quanta, about -16, with bounds [0, 10]) is refused: sensitivity is enforced on merged input.
SELECT expect_error($$SELECT dpagg_merge_sum(s, n, 1.0, 0, 0, 10, NULL, false)
  FROM (VALUES (-9007199254740992::numeric, 1::bigint)) v(s, n)$$);
SELECT round(dpagg_merge_sum(s, n, 1e9, 0, 0, 10, 'laplace', false)) = 500 AS merge_in_bounds
  FROM (SELECT sum(dpagg_quanta_sum(x, 0, 10)) s, count(x) n FROM (SELECT (g % 2) * 10 AS x FROM generate_series(1, 100) g) d) q;
-- dp_sum's merge also takes partial sums without their count (NULL; its rewrite on Citus sends no
-- count): the same answer; still refused past 2^120 quanta in all, or not whole with integer_values
SELECT round(dpagg_merge_sum(s, NULL, 1e9, 0, 0, 10, 'laplace', false)) = 500 AS merge_without_count
  FROM (SELECT sum(dpagg_quanta_sum(x, 0, 10)) s FROM (SELECT (g % 2) * 10 AS x FROM generate_series(1, 100) g) d) q;
SELECT expect_error($$SELECT dpagg_merge_sum(s, NULL, 1.0, 0, 0, 10, NULL, false)
  FROM (VALUES (1e36::numeric), (1e36::numeric)) v(s)$$);
SELECT expect_error($$SELECT dpagg_merge_sum(s, NULL, 0.01, 0, 0, 10, 'discrete_laplace', true)
  FROM (SELECT sum(dpagg_quanta_sum(f8 * 0.37 + 0.1234, 0, 10)) s FROM dp_test) q$$);
-- (attack review 19) a numeric past 2^128 is refused, not read modulo 2^128 (2^128 + 5 * 2^49 was
-- read as 5 * 2^49 quanta, i.e. 5), also through trailing zeros (2^120 * 10^4); and merged sums
-- beyond what the release can take at this epsilon (its grid is finer than the quanta) are
-- refused with 22023 while merging, with or without a count, instead of an internal error
SELECT expect_error($$SELECT dpagg_merge_sum(340282366920938463463377422181535318016, NULL, 1e9, 0, 0, 10, 'discrete_laplace', true)$$);
SELECT expect_error($$SELECT dpagg_merge_sum(340282366920938463463377422181535318016, 1, 1e9, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum(1329227995784915872903807060280344576 * 10000::numeric, NULL, 1, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum(trunc(2::numeric ^ 119), NULL, 1e9, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum(9223372036854775807::numeric * 5629499534213120, 9223372036854775807, 1e9, 0, 0, 10, 'laplace', false)$$);
SELECT round(dpagg_merge_sum(trunc(2::numeric ^ 100), NULL, 1, 0, 0, 10, 'laplace', false) / 2 ^ 100 * 2 ^ 49) AS merge_large_at_epsilon_1;
-- only dp_sum's merge takes a partial sum without its count: dp_avg's releases the count
SELECT expect_error($$SELECT dpagg_merge_avg(10::numeric, NULL, 1.0, 0, 0, 10, NULL)$$);
-- The partial sums are read exactly from numeric's binary form: negative sums, sums past a bigint
-- (a million values of 10, each 10 * 2^49 quanta), and trailing zeros after the point.
SELECT round(dpagg_merge_sum(s, n, 1e9, 0, -10, 10, 'laplace', false)) = -500 AS merge_negative
  FROM (SELECT sum(dpagg_quanta_sum(x, -10, 10)) s, count(x) n FROM (SELECT -(g % 2) * 10 AS x FROM generate_series(1, 100) g) d) q;
SELECT round(dpagg_merge_sum(5629499534213120000000::numeric, 1000000, 1e9, 0, 0, 10, 'laplace', false)) = 10000000 AS merge_past_bigint,
       round(dpagg_merge_sum(5629499534213120.000::numeric, 1, 1e9, 0, 0, 10, 'laplace', false)) = 10 AS merge_trailing_zeros;
SELECT expect_error($$SELECT dpagg_merge_sum(5629499534213120.5::numeric, 1, 1, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum('NaN'::numeric, 1, 1, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum(1e40, 1, 1, 0, 0, 10, 'laplace', false)$$);
-- The direct form's partial sums (dpagg_partial_sum, _avg): the same exact sums of quanta as
-- sum(dpagg_quanta_sum(...)), as a 16-byte two's-complement integer, most significant byte first,
-- for every value type; negative sums; NULL values skipped; no row: NULL.
CREATE FUNCTION partial_as_numeric(b bytea) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN get_byte(b, 0) >= 128 THEN v - 2::numeric ^ 128 ELSE v END
    FROM (SELECT sum(get_byte(b, i)::numeric * 256::numeric ^ (15 - i)) AS v FROM generate_series(0, 15) i) q $$;
SELECT bool_and(ok) AS partial_sums_exact FROM (
  SELECT partial_as_numeric(dpagg_partial_sum(i2, -7, 93)) = sum(dpagg_quanta_sum(i2, -7, 93))
     AND partial_as_numeric(dpagg_partial_sum(i4, 0, 50)) = sum(dpagg_quanta_sum(i4, 0, 50))
     AND partial_as_numeric(dpagg_partial_sum(i8, -100, 0)) = sum(dpagg_quanta_sum(i8, -100, 0))
     AND partial_as_numeric(dpagg_partial_sum(f4, 0, 100)) = sum(dpagg_quanta_sum(f4, 0, 100))
     AND partial_as_numeric(dpagg_partial_sum(f8 * -0.37, -20, 5)) = sum(dpagg_quanta_sum(f8 * -0.37, -20, 5))
     AND partial_as_numeric(dpagg_partial_sum(num / 7, 0, 10)) = sum(dpagg_quanta_sum(num / 7, 0, 10))
     AND partial_as_numeric(dpagg_partial_avg(f8, 0, 100)) = sum(dpagg_quanta_avg(f8, 0, 100))
     AND partial_as_numeric(dpagg_partial_avg(i4, 10, 20)) = sum(dpagg_quanta_avg(i4, 10, 20))
     AND partial_as_numeric(dpagg_partial_sum(NULLIF(i4, 3), 0, 100)) = sum(dpagg_quanta_sum(NULLIF(i4, 3), 0, 100)) AS ok
  FROM dp_test GROUP BY grp) q;
SELECT dpagg_partial_sum(x, 0, 1) IS NULL AS no_row_no_partial FROM (SELECT 1.0::float8 AS x WHERE false) e;
-- ... combined exactly across parallel workers
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
SELECT partial_as_numeric(dpagg_partial_sum(f8 * 1.1, -50, 50)) = (SELECT sum(dpagg_quanta_sum(f8 * 1.1, -50, 50)) FROM dp_test)
  AS parallel_partial_exact FROM dp_test;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather; RESET parallel_leader_participation;
-- ... and merged like the numeric ones: the same checks of length and of what the count allows.
SELECT round(dpagg_merge_sum(s, n, 1e9, 0, -10, 10, 'laplace', false)) = -500 AS merge_partial_negative,
       round(dpagg_merge_avg(a, n, 1e9, 0, -10, 10, 'laplace')::numeric, 6) = -5 AS merge_partial_avg
  FROM (SELECT dpagg_partial_sum(x, -10, 10) s, dpagg_partial_avg(x, -10, 10) a, count(x) n
          FROM (SELECT -(g % 2) * 10 AS x FROM generate_series(1, 100) g) d) q;
SELECT expect_error($$SELECT dpagg_merge_sum('\x0001'::bytea, 1, 1, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum('\x7fffffffffffffffffffffffffffffff'::bytea, 1, 1, 0, 0, 10, 'laplace', false)$$);
SELECT expect_error($$SELECT dpagg_merge_sum('\xffffffffffffffffffffffffffffffff'::bytea, 1, 1, 0, 0, 10, 'laplace', false)$$);
DROP FUNCTION partial_as_numeric(bytea);
-- sum(dpagg_quanta_sum(...)) (_avg) in one call per row: planned as dpagg_quanta_sum_total
-- (_avg_total) on a node that reads its own tables (a Citus worker's shard query; here, one
-- server).  The same numeric as sum() over the quanta function, which a numeric cast keeps unfused
-- here (the oracle): every value type, negative sums, NULL values and NULL or per-row bounds
-- counting nothing, FILTER, no row and no counted value giving NULL.
SELECT bool_and(ok) AS fused_sums_exact FROM (
  SELECT sum(dpagg_quanta_sum(i2, -7, 93)) = sum(dpagg_quanta_sum(i2, -7, 93)::numeric)
     AND sum(dpagg_quanta_sum(i4, 0, 50)) = sum(dpagg_quanta_sum(i4, 0, 50)::numeric)
     AND sum(dpagg_quanta_sum(i8, -100, 0)) = sum(dpagg_quanta_sum(i8, -100, 0)::numeric)
     AND sum(dpagg_quanta_sum(f4, 0, 100)) = sum(dpagg_quanta_sum(f4, 0, 100)::numeric)
     AND sum(dpagg_quanta_sum(f8 * -0.37, -20, 5)) = sum(dpagg_quanta_sum(f8 * -0.37, -20, 5)::numeric)
     AND sum(dpagg_quanta_sum(num / 7, 0, 10)) = sum(dpagg_quanta_sum(num / 7, 0, 10)::numeric)
     AND sum(dpagg_quanta_avg(f8, 0, 100)) = sum(dpagg_quanta_avg(f8, 0, 100)::numeric)
     AND sum(dpagg_quanta_avg(i4, 10, 20)) = sum(dpagg_quanta_avg(i4, 10, 20)::numeric)
     AND sum(dpagg_quanta_sum(NULLIF(i4, 3), 0, 100)) = sum(dpagg_quanta_sum(NULLIF(i4, 3), 0, 100)::numeric)
     AND sum(dpagg_quanta_sum(f8, NULLIF(i4 % 5, 0), 100 + i4)) = sum(dpagg_quanta_sum(f8, NULLIF(i4 % 5, 0), 100 + i4)::numeric)
     AND sum(dpagg_quanta_sum(f8, 0, 100)) FILTER (WHERE i4 % 3 = 0) = sum(dpagg_quanta_sum(f8, 0, 100)::numeric) FILTER (WHERE i4 % 3 = 0)
     AS ok
  FROM dp_test GROUP BY grp) q;
-- Bounds too small for a quantum (below about 1e-300; no release takes them) give 0 quanta, not
-- an int64 overflow (an attack review).
SELECT dpagg_quanta_sum(1e-300::float8, 0, 1e-305) AS tiny_bounds_quanta,
       sum(dpagg_quanta_sum(x, -1e-310, 1e-310)) AS tiny_bounds_sum FROM (VALUES (1e-311::float8), (1.0)) v(x);
SELECT sum(dpagg_quanta_sum(x, 0, 1)) IS NULL AS no_row,
       (SELECT sum(dpagg_quanta_sum(x, 0, 1)) FROM (VALUES (NULL::float8)) v(x)) IS NULL AS no_value,
       (SELECT sum(dpagg_quanta_sum(x, NULL, 1)) FROM (VALUES (1.0::float8)) v(x)) IS NULL AS no_bound
  FROM (SELECT 1.0::float8 AS x WHERE false) e;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(dpagg_quanta_sum(f8, 0, 100)), sum(dpagg_quanta_avg(i4, 0, 100)),
  sum(DISTINCT dpagg_quanta_sum(f8, 0, 100)), count(f8) FROM dp_test;
-- count(x) beside it (dp_avg's partial sums), with the same FILTER and constant bounds, shares its
-- transition: dpagg_quanta_*_total_count, the values counted, as count(x) (0 for no row).  Not
-- with another FILTER, another expression, or bounds that are not constant.
SELECT bool_and(ok) AS fused_counts_exact FROM (
  SELECT count(NULLIF(i4, 3)) = (SELECT count(x) FROM (SELECT NULLIF(t.i4, 3) x FROM dp_test t WHERE t.grp = d.grp) u)
     AND count(f8) FILTER (WHERE i4 > 50) = count(f8::numeric) FILTER (WHERE i4 > 50)
     AS ok, sum(dpagg_quanta_avg(NULLIF(i4, 3), 0, 100)), sum(dpagg_quanta_sum(f8, -1, 1)) FILTER (WHERE i4 > 50)
  FROM dp_test d GROUP BY grp) q;
SELECT count(x) AS no_row_count, sum(dpagg_quanta_avg(x, 0, 1)) IS NULL AS no_row_sum
  FROM (SELECT 1.0::float8 AS x WHERE false) e;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(dpagg_quanta_avg(f8, 0, 100)), count(f8),
  count(f8) FILTER (WHERE i4 > 1), count(i4), sum(dpagg_quanta_sum(i4, 0, i4)), count(i4 + 0) FROM dp_test;
-- (An attack review.)  Named notation is left as written; bounds are never evaluated before the
-- planner would (a CASE branch it drops); and the privileges are those of the query as written:
-- without EXECUTE on dpagg_quanta_sum both forms are refused, also through a plan made for a
-- role that had it (the aggregate checks the function when it runs), and a revoked replacement
-- aggregate leaves the query as written.
SELECT sum(dpagg_quanta_sum(f8, upper => 100, lower => 0)) = sum(dpagg_quanta_sum(f8, 0, 100)::numeric) AS named_notation,
       CASE WHEN false THEN sum(dpagg_quanta_sum(f8, 0, 1 / 0)) END IS NULL AS bound_not_evaluated
  FROM dp_test;
CREATE ROLE dp_fuse_user;
GRANT SELECT ON dp_test TO dp_fuse_user;
PREPARE fused_sum AS SELECT sum(dpagg_quanta_sum(f8, 0, 100)) FROM dp_test;
EXECUTE fused_sum \gset
REVOKE EXECUTE ON FUNCTION dpagg_quanta_sum(double precision, double precision, double precision) FROM PUBLIC;
SET ROLE dp_fuse_user;
SELECT expect_error($$SELECT sum(dpagg_quanta_sum(f8, 0, 100)::numeric) FROM dp_test$$) AS unfused,
       expect_error($$SELECT sum(dpagg_quanta_sum(f8, 0, 100)) FROM dp_test$$) AS fused,
       expect_error($$EXECUTE fused_sum$$) AS planned_for_another_role;
-- (dpagg_partial_sum shares the transition but names no quanta function: checked as written)
SELECT dpagg_partial_sum(f8, 0, 100) IS NOT NULL AS partial_as_written FROM dp_test;
RESET ROLE;
GRANT EXECUTE ON FUNCTION dpagg_quanta_sum(double precision, double precision, double precision) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION dpagg_quanta_avg_total_count(double precision, double precision, double precision) FROM PUBLIC;
SET ROLE dp_fuse_user;
SELECT count(f8) = 10000 AS count_left_as_written, sum(dpagg_quanta_avg(f8, 0, 100)) IS NOT NULL AS sum_fused FROM dp_test;
RESET ROLE;
GRANT EXECUTE ON FUNCTION dpagg_quanta_avg_total_count(double precision, double precision, double precision) TO PUBLIC;
DEALLOCATE fused_sum;
REVOKE SELECT ON dp_test FROM dp_fuse_user;
DROP ROLE dp_fuse_user;
-- ... combined exactly across parallel workers (its state serialised between them)
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(dpagg_quanta_sum(f8 * 1.1, -50, 50)) FROM dp_test;
SELECT sum(dpagg_quanta_sum(f8 * 1.1, -50, 50)) = (SELECT sum(dpagg_quanta_sum(f8 * 1.1, -50, 50)::numeric) FROM dp_test)
  AS parallel_fused_exact FROM dp_test;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather; RESET parallel_leader_participation;
-- (Its support functions take and make internal states: SQL cannot call them, and only a
-- superuser can make another aggregate of them; each also checks that an aggregate calls it.)


-- Through the aggregates: 200 independent releases of each (a correlated subquery re-runs the
-- aggregation per outer row); the truth is sum 495000, count 10000, average 49.5.
CREATE TEMP TABLE nm AS
SELECT g,
       (SELECT dp_sum(i4, 0.5, 1e-5, 100, 'truncated_laplace') FROM dp_test WHERE g > 0) AS s_tl,
       (SELECT dp_sum(f8, 2.0, 0, 100, 'staircase') FROM dp_test WHERE g > 0) AS s_sc,
       (SELECT dp_sum(f8, 0.5, 1e-5, 100, 'tulap') FROM dp_test WHERE g > 0) AS s_tu,
       (SELECT dp_count(0.5, 0, 'discrete_laplace') FROM dp_test WHERE g > 0) AS c_dl,
       (SELECT dp_sum(i4, 1.0, 0, 0, 100, 'discrete_laplace') FROM dp_test WHERE g > 0) AS s_dl,
       (SELECT dp_avg(f8, 1.0, 1e-5, 0, 100, 'truncated_laplace') FROM dp_test WHERE g > 0) AS a_tl
FROM generate_series(1, 200) g;
WITH p AS (SELECT (SELECT sqrt(l2) FROM dp_calibrate('truncated_laplace', 0.5, 1e-5, 100)) AS tl,
                  (SELECT sqrt(l2) FROM dp_calibrate('staircase', 2, 0, 100)) AS sc,
                  (SELECT sqrt(l2) FROM dp_calibrate('tulap', 0.5, 1e-5, 100)) AS tu,
                  (SELECT sqrt(l2) FROM dp_calibrate('discrete_laplace', 0.5, 0, 1, true)) AS dl1,
                  (SELECT sqrt(l2) FROM dp_calibrate('discrete_laplace', 1, 0, 100, true)) AS dl100)
SELECT abs(avg(s_tl) - 495000) < 5 * tl / sqrt(200) AS tl_mean,
       stddev(s_tl) BETWEEN 0.6 * tl AND 1.4 * tl AS tl_spread,
       abs(avg(s_sc) - 495000) < 5 * sc / sqrt(200) AS sc_mean,
       stddev(s_sc) BETWEEN 0.6 * sc AND 1.4 * sc AS sc_spread,
       abs(avg(s_tu) - 495000) < 5 * tu / sqrt(200) AS tu_mean,
       stddev(s_tu) BETWEEN 0.6 * tu AND 1.4 * tu AS tu_spread,
       abs(avg(c_dl) - 10000) < 5 * dl1 / sqrt(200) + 0.01 AS dl_count_mean,
       bool_and(c_dl = round(c_dl)) AS dl_whole,
       abs(avg(s_dl) - 495000) < 5 * dl100 / sqrt(200) AS dl_sum_mean,
       bool_and(s_dl = round(s_dl)) AS dl_sum_whole,
       abs(avg(a_tl) - 49.5) < 0.5 AND bool_and(a_tl BETWEEN 0 AND 100) AS tl_avg
FROM nm, p GROUP BY p.tl, p.sc, p.tu, p.dl1, p.dl100;

-- The report forms: coverage of each over 4000 groups of known answers.
CREATE TABLE nm_cov AS
SELECT k, ((k + j) % 7) AS x FROM generate_series(0, 3999) k, generate_series(1, 1 + k % 20) j;
CREATE TABLE nm_truth AS SELECT k, sum(x) AS s, count(*) AS n FROM nm_cov GROUP BY k;
CREATE FUNCTION nm_coverage(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE p double precision; n bigint;
BEGIN
  EXECUTE 'SELECT avg(hit::int), count(*) FROM (' || q || ') s' INTO p, n;
  IF p < 0.95 - 5 * sqrt(0.95 * 0.05 / n) THEN
    RAISE NOTICE 'coverage % of % releases', p, n;
    RETURN false;
  END IF;
  RETURN true;
END $$;
SELECT m, nm_coverage(format($$SELECT (r).ci_low <= s AND s <= (r).ci_high AS hit
  FROM (SELECT k, dp_sum_report(x::float8, 0.5, %s, 0, 6, %L) AS r FROM nm_cov GROUP BY k) d
  JOIN nm_truth USING (k)$$, CASE WHEN m = 'staircase' THEN '0' ELSE '1e-5' END, m)) AS sum_covered
FROM unnest(ARRAY['truncated_laplace', 'staircase', 'tulap']) m ORDER BY m;
SELECT nm_coverage($$SELECT (r).ci_low <= n AND n <= (r).ci_high AS hit
  FROM (SELECT k, dp_count_report(0.5, 0, 'discrete_laplace') AS r FROM nm_cov GROUP BY k) d
  JOIN nm_truth USING (k)$$) AS count_covered;
SELECT nm_coverage($$SELECT (r).ci_low <= s AND s <= (r).ci_high AS hit
  FROM (SELECT k, dp_sum_report(x, 0.5, 0, 0, 6, 'discrete_laplace') AS r FROM nm_cov GROUP BY k) d
  JOIN nm_truth USING (k)$$) AS integer_sum_covered;
DROP FUNCTION nm_coverage(text);
DROP TABLE nm_cov, nm_truth;

-- Budgets: basic accounting adds their epsilon and delta; zCDP accounting charges each, not being
-- zCDP, as delta-approximate (epsilon^2 / 2)-zCDP (Bun & Steinke 2016).
CREATE TABLE nm_b AS SELECT g AS x FROM generate_series(1, 100) g;
CREATE ROLE dp_nm LOGIN;
GRANT SELECT ON nm_b TO dp_nm;
SELECT dp_set_budget('dp_nm', 10, 1e-4, 'zcdp');
SET SESSION AUTHORIZATION dp_nm;
SELECT dp_sum(x, 0.5, 1e-6, 0, 100, 'truncated_laplace') IS NOT NULL AS tl,
       dp_count(0.5, 0, 'discrete_laplace') IS NOT NULL AS dl FROM nm_b;
SELECT dp_sum(x, 0.5, 0, 0, 100, 'staircase') IS NOT NULL AS sc FROM nm_b;
SELECT (dp_avg_report(x, 0.5, 1e-6, 0, 100, 'tulap')).value IS NOT NULL AS tu FROM nm_b;
RESET SESSION AUTHORIZATION;
SELECT aggregate, mechanism, epsilon, delta, rho FROM dp_ledger WHERE role = 'dp_nm' ORDER BY seq;
SELECT round(rho_spent::numeric, 9) AS rho_spent, delta_spent FROM dp_budgets WHERE role = 'dp_nm';
SELECT dp_drop_budget('dp_nm');
DROP OWNED BY dp_nm;
DROP ROLE dp_nm;
DROP TABLE nm_b;
