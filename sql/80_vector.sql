-- dp_sum_vector: several sums over the same rows, released together (each row's vector clipped
-- to an l2 norm bound).  Noisy answers are checked against multiples of the noise scale.
CREATE TABLE vec AS
SELECT g AS id, ARRAY[(g % 3)::float8, 1.0, ((g % 7) - 3)::float8] AS x FROM generate_series(1, 10000) g;
-- The calibration behind it (releases nothing): the l2 mechanism wins at T = 3, the Gaussian at
-- T = 1000; delta = 0 needs the l2 mechanism (pure DP at theta = l2_bound / epsilon).
SELECT mechanism_name, round(scale::numeric, 4) AS scale, round(mse::numeric, 2) AS mse,
       rho IS NOT NULL AS zcdp, delta_certified <= 1e-5 AS certified
FROM dp_calibrate_vector('auto', 3, 1.0, 1e-5, 5.0);
SELECT mechanism_name, round(scale::numeric, 4) AS scale, round(rho::numeric, 6) AS rho
FROM dp_calibrate_vector('gaussian', 1000, 1.0, 1e-5, 1.0);
SELECT mechanism_name, scale FROM dp_calibrate_vector('auto', 5, 2.0, 0, 3.0);
-- Accuracy: each coordinate within 8 noise scales (the l2 mechanism's coordinates have standard
-- deviation theta sqrt(T + 1)); the shape is the public dimension.
WITH t AS (SELECT sum(x[1]) AS a, sum(x[2]) AS b, sum(x[3]) AS c FROM vec),
     d AS (SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 5.0) AS v FROM vec),
     s AS (SELECT sqrt(per_coordinate_variance) AS sd FROM dp_calibrate_vector('auto', 3, 1.0, 1e-5, 5.0))
SELECT array_length(v, 1) AS len, abs(v[1] - a) < 8 * sd AND abs(v[2] - b) < 8 * sd AND abs(v[3] - c) < 8 * sd AS accurate
FROM t, d, s;
WITH t AS (SELECT sum(x[1]) AS a, sum(x[3]) AS c FROM vec),
     d AS (SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 5.0, 'gaussian') AS v FROM vec),
     s AS (SELECT scale AS sd FROM dp_calibrate_vector('gaussian', 3, 1.0, 1e-5, 5.0))
SELECT abs(v[1] - a) < 8 * sd AND abs(v[3] - c) < 8 * sd AS accurate FROM t, d, s;
-- Clipping: a row is scaled down to the l2 bound; NaN counts as 0; infinite elements point along
-- their signs; NULL elements are 0; longer vectors are cut, shorter ones padded with zeros.  With
-- a huge epsilon the noise is negligible (sigma ~ 1.4e-4, far from the rounding boundaries), so
-- the clipped sums show.
SELECT (SELECT array_agg(round(e::numeric, 1)) FROM unnest(dp_sum_vector(x, 3, 1e8, 1e-5, 2.0, 'gaussian')) e) AS clipped
FROM (VALUES (ARRAY[30.0, 40.0, 0.0]::float8[])) v(x);
SELECT (SELECT array_agg(round(e::numeric, 1)) FROM unnest(dp_sum_vector(x, 3, 1e8, 1e-5, 2.0, 'gaussian')) e) AS special
FROM (VALUES (ARRAY['Infinity', '-Infinity', 5]::float8[]), (ARRAY['NaN', NULL, 1]::float8[]),
             (ARRAY[0.5]::float8[]), (ARRAY[0.25, 0, 0, 99, 99]::float8[]), (NULL)) v(x);
-- NULLs beyond the first byte of the array's null bitmap: elements are read in place.
SELECT (SELECT array_agg(round(e::numeric, 1)) FROM unnest(dp_sum_vector(x, 10, 1e8, 1e-5, 2.0, 'gaussian')) e) AS nulls
FROM (VALUES (ARRAY[NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1]::float8[]),
             (ARRAY[0.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.3, NULL]::float8[])) v(x);
-- A row whose norm overflows a double is still scaled to the bound (not dropped).
SELECT (SELECT array_agg(round(e::numeric, 1)) FROM unnest(dp_sum_vector(x, 2, 1e8, 1e-5, 2.0, 'gaussian')) e) AS huge
FROM (VALUES (ARRAY[1.7e308, 1.7e308]::float8[])) v(x);
-- Where the l2 mechanism's (eps, delta) calibration is out of reach (tiny delta at T = 2, eps
-- beyond 700, T > 256) it keeps the pure-DP theta l2_bound / eps; never an error.
SELECT mechanism_name, scale FROM dp_calibrate_vector('l2', 2, 1, 1e-15, 1);
SELECT mechanism_name, scale FROM dp_calibrate_vector('l2', 3, 1000, 1e-5, 5);
SELECT mechanism_name, scale FROM dp_calibrate_vector('l2', 10000, 1, 1e-5, 1);
-- Empty input: a noise vector of the public length.
SELECT array_length(dp_sum_vector(x, 4, 1.0, 1e-5, 1.0), 1) AS len FROM vec WHERE false;
-- GROUP BY: one vector per group.
SELECT id % 2 AS g, array_length(dp_sum_vector(x, 3, 1.0, 1e-5, 5.0, 'gaussian'), 1) AS len
FROM vec GROUP BY 1 ORDER BY 1;
-- Parallel plans: partial states travel through serialize/deserialize.
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 5.0) FROM vec;
WITH t AS (SELECT sum(x[2]) AS b FROM vec),
     d AS (SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 5.0, 'gaussian') AS v FROM vec),
     s AS (SELECT scale AS sd FROM dp_calibrate_vector('gaussian', 3, 1.0, 1e-5, 5.0))
SELECT abs(v[2] - b) < 8 * sd AS accurate FROM t, d, s;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- Every release is charged: epsilon, delta, and rho for the Gaussian.
SELECT aggregate, mechanism, epsilon, delta, rho IS NOT NULL AS zcdp
FROM dp_ledger WHERE aggregate = 'dp_sum_vector' AND role = current_user ORDER BY seq DESC LIMIT 2;
-- Bad input: a clear error with a hint.
SELECT q, expect_error(q) FROM (VALUES
  ($$SELECT dp_sum_vector(x, 0, 1.0, 1e-5, 1.0) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 10001, 1.0, 1e-5, 1.0) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 0, 1e-5, 1.0) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 1, 1.0) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 'NaN') FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 1e-5, -1) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 0, 1.0, 'gaussian') FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 1.0, 'laplace') FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, NULL, 1e-5, 1.0) FROM vec$$),
  ($$SELECT dp_sum_vector(x, id, 1.0, 1e-5, 1.0) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 1e-5, x[1]) FROM vec$$),
  ($$SELECT dp_sum_vector(x, 3, 1.0, 1e-5, 1.0) OVER () FROM vec$$),
  ($$SELECT dp_sum_vector(x, 0, 1.0, 1e-5, 1.0) FROM vec WHERE false$$)
) v(q);
DROP TABLE vec;
