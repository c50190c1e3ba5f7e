-- Accuracy statements (docs/intervals.md): dp_noise_interval and the report forms
-- dp_sum_report, dp_avg_report and dp_count_report.  Intervals are checked against closed forms
-- where the noise has one, and by coverage: thousands of groups of known answers, each released
-- once; the share of groups whose true answer lies in the interval must be at least the
-- confidence (5 binomial standard errors below, failing by chance with probability below 1e-6),
-- and not far above it for the continuous mechanisms, whose intervals are exact.

-- Closed forms: Laplace(b) holds |X| <= b ln(1/(1-c)); N(0, s^2) holds |X| <= 1.959964 s at 95 %.
-- The half-width adds the release grid (about 2^-40 of the noise scale).
SELECT abs(dp_noise_interval('laplace', 1, 0, 1) / (sigma_b * ln(20)) - 1) < 1e-9 AS laplace_95,
       abs(dp_noise_interval('laplace', 1, 0, 1, 0.5) / (sigma_b * ln(2)) - 1) < 1e-9 AS laplace_50
FROM (SELECT scale AS sigma_b FROM dp_calibrate('laplace', 1, 0, 1)) c;
SELECT abs(dp_noise_interval('analytic_gaussian', 1, 1e-5, 10) / (scale * 1.959963984540054) - 1) < 1e-9 AS gaussian_95,
       abs(dp_noise_interval('analytic_gaussian', 1, 1e-5, 10, 0.99) / (scale * 2.5758293035489004) - 1) < 1e-9 AS gaussian_99
FROM dp_calibrate('analytic_gaussian', 1, 1e-5, 10);
-- Wider for more confidence, for less epsilon, for more sensitivity.
SELECT dp_noise_interval('auto', 1, 1e-5, 1, 0.99) > dp_noise_interval('auto', 1, 1e-5, 1, 0.9) AS more_confidence,
       dp_noise_interval('auto', 0.5, 1e-5, 1) > dp_noise_interval('auto', 1, 1e-5, 1) AS less_epsilon,
       dp_noise_interval('laplace', 1, 0, 2) > dp_noise_interval('laplace', 1, 0, 1) AS more_sensitivity;

-- Bad input: a clear error, nothing spent.
SELECT expect_error($$SELECT dp_noise_interval('laplace', 1, 0, 1, 1.0)$$);
SELECT expect_error($$SELECT dp_noise_interval('laplace', 1, 0, 1, 0)$$);
SELECT expect_error($$SELECT dp_noise_interval('laplace', 1, 0, 1, NULL)$$);
SELECT expect_error($$SELECT dp_noise_interval('laplace', 1, 0, -1)$$);
SELECT expect_error($$SELECT dp_noise_interval('no_such', 1, 0, 1)$$);
SELECT expect_error($$SET dpagg.report_confidence = 1$$);

-- The report row: the value, the interval around it, and what it was released under.
SELECT (r).value BETWEEN (r).ci_low AND (r).ci_high AS inside, (r).confidence, (r).mechanism,
       (r).epsilon, (r).delta,
       abs((r).ci_high - (r).ci_low - 2 * dp_noise_interval('laplace', 1, 0, 100, 0.95, true)) < 1e-6 AS width
FROM (SELECT dp_sum_report(i4, 1.0, 0, 100, 'laplace') AS r FROM dp_test) s;
SET dpagg.report_confidence = 0.9;
SELECT (r).confidence, (r).mechanism, (r).ci_low >= 0 AS count_not_negative,
       (r).ci_low = floor((r).ci_low) AND (r).ci_high = floor((r).ci_high) AS whole_numbers
FROM (SELECT dp_count_report(1.0, 1e-5, 'analytic_gaussian') AS r FROM dp_test) s;
RESET dpagg.report_confidence;
-- Every column of one report is one release: a row expanded with .* is charged once.
SELECT count(*) AS before FROM dp_ledger \gset
SELECT grp, (r).value IS NOT NULL AND (r).ci_low <= (r).ci_high AS released
FROM (SELECT grp, dp_avg_report(f8, 1.0, 1e-5, 0, 100, 'laplace') AS r FROM dp_test GROUP BY grp) s
ORDER BY grp;
SELECT (dp_sum_report(f8, 1.0, 1e-5, 0, 100, 'laplace')).ci_low <= (dp_sum_report(f8, 1.0, 1e-5, 0, 100, 'laplace')).value AS same_release
FROM dp_test;
SELECT count(*) - :before AS charges FROM dp_ledger;
-- dp_avg_report's interval stays inside the bounds.
SELECT bool_and((r).ci_low >= 0 AND (r).ci_high <= 100 AND (r).ci_low <= (r).ci_high) AS within_bounds
FROM (SELECT grp, dp_avg_report(f8, 0.1, 1e-5, 0, 100, 'laplace') AS r FROM dp_test GROUP BY grp) s;

-- Over a private relation the report forms are bounded per privacy unit like the plain ones: the
-- interval is that of the per-unit release.
CREATE TABLE rep_people AS SELECT g % 500 AS uid, (g % 10)::double precision AS x FROM generate_series(1, 5000) g;
SELECT dp_protect('rep_people', 'uid');
SELECT (r).value BETWEEN (r).ci_low AND (r).ci_high AS inside, (r).mechanism,
       abs((r).ci_high - (r).ci_low - 2 * dp_noise_interval('laplace', 1, 0, 100)) < 1e-6 AS width
FROM (SELECT dp_sum_report(x, 1, 0, 0, 100, 'laplace') AS r FROM rep_people) s;
SELECT aggregate, mechanism FROM dp_ledger ORDER BY seq DESC LIMIT 1;
SELECT (r).ci_low >= 0 AS count_interval FROM (SELECT dp_count_report(1, 1e-5, 'laplace') AS r FROM rep_people) s;
DROP TABLE rep_people;

-- Coverage: 4000 groups of 1..20 rows, values 0..6.
CREATE TABLE cov AS
SELECT k, ((k + j) % 7)::double precision AS x, (k + j) % 7 AS xi
FROM generate_series(0, 3999) k, generate_series(1, 1 + k % 20) j;
CREATE TABLE cov_truth AS SELECT k, sum(x) AS s, avg(x) AS a, count(*) AS n FROM cov GROUP BY k;
CREATE FUNCTION coverage_ok(q text, conf double precision, exact boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE p double precision; n bigint; sd double precision;
BEGIN
  EXECUTE 'SELECT avg(hit::int), count(*) FROM (' || q || ') s' INTO p, n;
  sd := sqrt(conf * (1 - conf) / n);
  IF p < conf - 5 * sd OR (exact AND p > conf + 5 * sd + 0.002) THEN
    RAISE NOTICE 'coverage % of % releases at confidence %', p, n, conf;
    RETURN false;
  END IF;
  RETURN true;
END $$;
SELECT coverage_ok($$SELECT (r).ci_low <= s AND s <= (r).ci_high AS hit
  FROM (SELECT k, dp_sum_report(x, 1, 1e-5, 0, 6, 'analytic_gaussian') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.95, true) AS sum_gaussian;
SELECT coverage_ok($$SELECT (r).ci_low <= s AND s <= (r).ci_high AS hit
  FROM (SELECT k, dp_sum_report(x, 0.5, 0, 0, 6, 'laplace') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.95, true) AS sum_laplace;
SET dpagg.report_confidence = 0.8;
SELECT coverage_ok($$SELECT (r).ci_low <= s AND s <= (r).ci_high AS hit
  FROM (SELECT k, dp_sum_report(xi, 1, 1e-5, 0, 6, 'analytic_gaussian') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.8, true) AS sum_integer_80;
-- Counts are whole numbers and clamped at 0: conservative, so only the lower side is checked.
SELECT coverage_ok($$SELECT (r).ci_low <= n AND n <= (r).ci_high AS hit
  FROM (SELECT k, dp_count_report(1, 1e-5, 'analytic_gaussian') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.8, false) AS count_80;
RESET dpagg.report_confidence;
SELECT coverage_ok($$SELECT (r).ci_low <= n AND n <= (r).ci_high AS hit
  FROM (SELECT k, dp_count_report(x, 0.3, 0, 'laplace') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.95, false) AS count_laplace;
-- dp_avg: a union bound over its two parts and the range of their ratio: conservative.
SELECT coverage_ok($$SELECT (r).ci_low <= a AND a <= (r).ci_high AS hit
  FROM (SELECT k, dp_avg_report(x, 2, 1e-5, 0, 6, 'analytic_gaussian') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.95, false) AS avg_gaussian;
SELECT coverage_ok($$SELECT (r).ci_low <= a AND a <= (r).ci_high AS hit
  FROM (SELECT k, dp_avg_report(x, 1, 0, 0, 6, 'laplace') AS r FROM cov GROUP BY k) d
  JOIN cov_truth USING (k)$$, 0.95, false) AS avg_laplace;
DROP FUNCTION coverage_ok(text, double precision, boolean);
DROP TABLE cov, cov_truth;
