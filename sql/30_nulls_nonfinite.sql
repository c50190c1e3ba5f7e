-- NULL values are skipped; NaN and infinite values are clamped like any other (NaN counts as 0),
-- never propagated; an empty input gives a noisy 0, not NULL.
CREATE TABLE dp_special (v double precision, n numeric);
INSERT INTO dp_special SELECT 'Infinity', 'Infinity' FROM generate_series(1, 1000);
INSERT INTO dp_special SELECT '-Infinity', '-Infinity' FROM generate_series(1, 300);
INSERT INTO dp_special SELECT 'NaN', 'NaN' FROM generate_series(1, 500);
INSERT INTO dp_special SELECT NULL, NULL FROM generate_series(1, 700);
-- clamped to [-1, 1]: 1000 - 300 + 0 = 700; 1800 non-NULL values; 2500 rows.
SELECT abs(dp_sum(v, 1.0, 1e-5, 1) - 700) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS float8_ok,
       abs(dp_sum(n, 1.0, 1e-5, 1) - 700) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS numeric_ok,
       abs(dp_count(v, 1.0, 1e-5) - 1800) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS count_values_ok,
       abs(dp_count(1.0, 1e-5) - 2500) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS count_rows_ok,
       dp_avg(v, 1.0, 1e-5, -1, 1) BETWEEN -1 AND 1 AS avg_in_bounds,
       dp_sum(v, 1.0, 1e-5, 1) <> 'NaN'::float8 AND dp_sum(n, 1.0, 1e-5, 1) <> 'NaN'::float8 AS never_nan
FROM dp_special;
-- NaN clamps to 0, or to the nearest bound when 0 is outside [lower, upper].
SELECT abs(dp_sum(v, 1.0, 1e-5, 2, 3) - (1000 * 3 + 300 * 2 + 500 * 2)) < 8 * sigma('analytic_gaussian', 1, 1e-5, 3) AS nan_to_bound
FROM dp_special;

-- Only NULLs: counts near 0, sums near 0, never NULL.
SELECT dp_count(v, 1.0, 1e-5) >= 0 AND dp_count(v, 1.0, 1e-5) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS count_near_zero,
       abs(dp_sum(v, 1.0, 1e-5, 1)) < 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS sum_near_zero,
       dp_avg(v, 1.0, 1e-5, 0, 10) BETWEEN 0 AND 10 AS avg_in_bounds
FROM dp_special WHERE v IS NULL;

-- Empty input: one row, not NULL.
SELECT dp_sum(x, 1.0, 1e-5, 10) IS NOT NULL AS sum_not_null,
       abs(dp_sum(x, 1.0, 1e-5, 10)) < 8 * sigma('analytic_gaussian', 1, 1e-5, 10) AS sum_near_zero,
       dp_count(x, 1.0, 1e-5) BETWEEN 0 AND 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS count_values,
       dp_count(1.0, 1e-5) BETWEEN 0 AND 8 * sigma('analytic_gaussian', 1, 1e-5, 1) AS count_rows,
       dp_avg(x, 1.0, 1e-5, 0, 10) BETWEEN 0 AND 10 AS avg_in_bounds
FROM dp_empty;
SELECT dp_sum(x, 1.0, 0, 10, 'laplace') IS NOT NULL AS empty_with_mechanism FROM dp_empty;
-- Empty input with query parameters.
PREPARE e(float8) AS SELECT dp_sum(x, $1, 1e-5, 10) IS NOT NULL FROM dp_empty;
EXECUTE e(0.5);
DEALLOCATE e;
-- GROUP BY over no rows yields no groups.
SELECT grp, dp_sum(i4, 1.0, 1e-5, 10) FROM dp_test WHERE false GROUP BY grp;
