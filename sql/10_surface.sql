-- The SQL surface: every signature, its result type, and answers within 8 noise scales of the
-- truth (a false failure has probability below 1e-14).  No noisy value is ever printed.
SELECT sum(i4) AS true_sum, count(*) AS n, avg(i4) AS true_avg FROM dp_test;

-- dp_sum with a sensitivity, every value type; true sum 495000, sensitivity 100.
SELECT pg_typeof(dp_sum(i2, 1.0, 1e-5, 100)) AS type,
       abs(dp_sum(i2, 1.0, 1e-5, 100) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS i2,
       abs(dp_sum(i4, 1.0, 1e-5, 100) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS i4,
       abs(dp_sum(i8, 1.0, 1e-5, 100) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS i8,
       abs(dp_sum(f4, 1.0, 1e-5, 100) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS f4,
       abs(dp_sum(f8, 1.0, 1e-5, 100) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS f8,
       abs(dp_sum(num, 1.0, 1e-5, 100) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS num
FROM dp_test;

-- Clamping: with sensitivity 10 every value above 10 counts as 10.  True clamped sum:
SELECT sum(least(i4, 10)) AS clamped_sum FROM dp_test;
SELECT abs(dp_sum(i4, 1.0, 1e-5, 10) - sum(least(i4, 10))) < 8 * sigma('analytic_gaussian', 1, 1e-5, 10) AS clamped_ok
FROM dp_test;

-- Bounds form: clamp to [20, 50], sensitivity max(|20|, |50|) = 50.
SELECT sum(least(greatest(i4, 20), 50)) AS clamped_sum FROM dp_test;
SELECT abs(dp_sum(i4, 1.0, 1e-5, 20, 50) - sum(least(greatest(i4, 20), 50))) < 8 * sigma('analytic_gaussian', 1, 1e-5, 50) AS bounds_ok,
       abs(dp_sum(f8, 1.0, 1e-5, 20, 50, 'laplace') - sum(least(greatest(i4, 20), 50))) < 40 * sigma('laplace', 1, 1e-5, 50) AS bounds_mech_ok,
       abs(dp_sum(num, 1.0, 1e-5, 100, 'laplace') - 495000) < 40 * sigma('laplace', 1, 1e-5, 100) AS sens_mech_ok
FROM dp_test;

-- Mechanism names are case-insensitive and may carry blanks.
SELECT abs(dp_sum(i4, 1.0, 0, 100, ' LAPLACE ') - 495000) < 40 * sigma('laplace', 1, 0, 100) AS laplace_pure
FROM dp_test;
SELECT abs(dp_sum(i4, 0.5, 1e-5, 100, 'classic_gaussian') - 495000) < 8 * sigma('classic_gaussian', 0.5, 1e-5, 100) AS classic
FROM dp_test;

-- dp_count: of values and of rows; bigint, never negative.
SELECT pg_typeof(dp_count(i4, 1.0, 1e-5)) AS type,
       abs(dp_count(i4, 1.0, 1e-5) - 10000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS values_ok,
       abs(dp_count(1.0, 1e-5) - 10000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS rows_ok,
       abs(dp_count(i4, 1.0, 0, 'laplace') - 10000) < 40 * sigma('laplace', 1, 0, 1) AS values_mech_ok,
       abs(dp_count(1.0, 0, 'laplace') - 10000) < 40 * sigma('laplace', 1, 0, 1) AS rows_mech_ok,
       abs(dp_count(f8, 1.0, 1e-5) - 10000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS f8_values_ok,
       abs(dp_count('a'::text, 1.0, 1e-5) - 10000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS any_type_ok
FROM dp_test;

-- dp_avg: double precision inside [lower, upper]; true average 49.5.
SELECT pg_typeof(dp_avg(i4, 1.0, 1e-5, 0, 100)) AS type,
       abs(dp_avg(i4, 1.0, 1e-5, 0, 100) - 49.5) < 1 AS i4,
       abs(dp_avg(i8, 1.0, 1e-5, 0, 100) - 49.5) < 1 AS i8,
       abs(dp_avg(num, 1.0, 1e-5, 0, 100) - 49.5) < 1 AS num,
       abs(dp_avg(f8, 1.0, 0, 0, 100, 'laplace') - 49.5) < 1 AS laplace,
       dp_avg(i4, 0.01, 1e-5, 40, 45) BETWEEN 40 AND 45 AS inside_bounds
FROM dp_test;

-- GROUP BY: one noisy value per group (true sums 99000 each).
SELECT grp, abs(dp_sum(i4, 1.0, 1e-5, 100) - sum(i4)) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS ok
FROM dp_test GROUP BY grp ORDER BY grp;

-- The default mechanism comes from dpagg.default_mechanism.
SHOW dpagg.default_mechanism;
SET dpagg.default_mechanism = 'laplace';
SELECT abs(dp_sum(i4, 1.0, 0, 100) - 495000) < 40 * sigma('laplace', 1, 0, 100) AS default_laplace FROM dp_test;
SELECT mechanism_name FROM dp_calibrate(NULL, 1.0, 0);
RESET dpagg.default_mechanism;
SET dpagg.default_mechanism = 'no_such_mechanism';

-- Parameters may be query parameters and stable expressions; one plan for many values.
SET plan_cache_mode = force_generic_plan;
PREPARE q(float8, float8) AS SELECT abs(dp_sum(i4, $1, 1e-5, $2) - 495000) < 8 * sigma('analytic_gaussian', $1, 1e-5, $2) FROM dp_test;
EXECUTE q(1.0, 100);
EXECUTE q(2.0, 100);
DEALLOCATE q;
RESET plan_cache_mode;
SELECT abs(dp_sum(i4, 1.0, 1e-5, 50 + 50) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS constant_expression
FROM dp_test;
-- Parameters read from a subquery or an outer query could come from the private data: refused.
SELECT expect_error($$SELECT dp_sum(i4, 1.0, 1e-5, 0, (SELECT max(i4) FROM dp_test)) FROM dp_test$$);
SELECT expect_error($$SELECT (SELECT dp_sum(i4, 1.0, 1e-5, s) FROM dp_test) FROM (VALUES (100.0::float8), (200.0)) v(s)$$);
-- ORDER BY inside the aggregate is not a parameter.
SELECT abs(dp_sum(i4, 1.0, 1e-5, 100 ORDER BY id) - 495000) < 8 * sigma('analytic_gaussian', 1, 1e-5, 100) AS order_by_ok
FROM dp_test;
-- GROUPING SETS, ROLLUP and CUBE release every set (each charged as a release of its own,
-- see 70_budgets); the answers are accurate to the noise, also for sorted and hashed plans.
SELECT d.grp, abs(d.s - t.s) < 8 * 100 AS sum_ok
FROM (SELECT grp, dp_sum(i4, 1.0, 1e-5, 100, 'laplace') AS s FROM dp_test GROUP BY ROLLUP (grp)) d
JOIN (SELECT grp, sum(i4) AS s FROM dp_test GROUP BY ROLLUP (grp)) t ON d.grp IS NOT DISTINCT FROM t.grp
ORDER BY d.grp;
SET enable_hashagg = off;
SELECT count(*) AS sets_rows, bool_and(c > 1900) AS counts_ok
FROM (SELECT dp_count(1.0, 0, 'laplace') AS c FROM dp_test GROUP BY GROUPING SETS ((grp), (grp))) s;
RESET enable_hashagg;
SELECT count(*) AS cube_rows FROM (SELECT grp, id % 2, dp_count(1.0, 0) FROM dp_test GROUP BY CUBE (grp, id % 2)) s;
-- The state type's text form round-trips.
SELECT dpagg_state_in('1:2:5:0:10')::text;

-- Overload resolution of dp_count(x, eps, delta) against dp_count(eps, delta, mechanism).
SELECT abs(dp_count(0.5, 1e-5, 'laplace') - 10000) < 40 * sigma('laplace', 0.5, 1e-5, 1) AS rows_with_mechanism,
       abs(dp_count(NULLIF(i4, 7), 1.0, 1e-5) - 9900) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS values_skip_null
FROM dp_test;

-- dp_mechanisms lists each mechanism once.
SELECT name, guarantee, accepts_zero_delta FROM dp_mechanisms() ORDER BY name;
