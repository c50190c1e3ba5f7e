-- Statistical sanity of released values: 200 independent releases of each aggregate (a
-- correlated subquery re-runs the aggregation per outer row).  Their mean must lie within
-- 5 standard errors of the truth and their spread within bounds derived from the calibrated
-- noise scale; each check fails by chance with probability below 1e-6.
CREATE TEMP TABLE releases AS
SELECT g,
       (SELECT dp_sum(i4, 1.0, 1e-5, 100, 'analytic_gaussian') FROM dp_test WHERE g > 0) AS s_gauss,
       (SELECT dp_sum(i4, 1.0, 0, 100, 'laplace') FROM dp_test WHERE g > 0) AS s_laplace,
       (SELECT dp_count(1.0, 1e-5, 'analytic_gaussian') FROM dp_test WHERE g > 0) AS c_gauss,
       (SELECT dp_avg(i4, 1.0, 1e-5, 0, 100, 'analytic_gaussian') FROM dp_test WHERE g > 0) AS a_gauss,
       (SELECT dp_sum(i4, 5.0, 0.1, 100, 'quasi_gaussian') FROM dp_test WHERE g > 0) AS s_quasi,
       (SELECT dp_sum(f8, 2.0, 1e-5, 100, 'multi_gaussian(k=10)') FROM dp_test WHERE g > 0) AS s_multi
FROM generate_series(1, 200) g;

WITH p AS (SELECT sigma('analytic_gaussian', 1, 1e-5, 100) AS sg,
                  sqrt(2) * sigma('laplace', 1, 0, 100) AS sl,
                  sigma('analytic_gaussian', 1, 1e-5, 1) AS sc,
                  (SELECT sqrt(l2) FROM dp_calibrate('quasi_gaussian', 5, 0.1, 100)) AS sq,
                  (SELECT sqrt(l2) FROM dp_calibrate('multi_gaussian(k=10)', 2, 1e-5, 100)) AS sm)
SELECT abs(avg(s_gauss) - 495000) < 5 * sg / sqrt(200) AS gauss_mean,
       stddev(s_gauss) BETWEEN 0.7 * sg AND 1.3 * sg AS gauss_spread,
       abs(avg(s_laplace) - 495000) < 5 * sl / sqrt(200) AS laplace_mean,
       stddev(s_laplace) BETWEEN 0.55 * sl AND 1.45 * sl AS laplace_spread,
       abs(avg(c_gauss) - 10000) < 5 * sc / sqrt(200) + 0.5 AS count_mean,
       stddev(c_gauss) BETWEEN 0.7 * sc AND 1.3 * sc + 0.3 AS count_spread,
       count(DISTINCT s_gauss) = 200 AS all_distinct,
       abs(avg(a_gauss) - 49.5) < 0.05 AS avg_mean,
       bool_and(a_gauss BETWEEN 0 AND 100) AS avg_in_bounds,
       abs(avg(s_quasi) - 495000) < 5 * sq / sqrt(200) AS quasi_mean,
       stddev(s_quasi) BETWEEN 0.6 * sq AND 1.4 * sq AS quasi_spread,
       abs(avg(s_multi) - 495000) < 5 * sm / sqrt(200) AS multi_mean,
       stddev(s_multi) BETWEEN 0.6 * sm AND 1.4 * sm AS multi_spread
FROM releases, p GROUP BY sg, sl, sc, sq, sm;
