-- dp_calibrate: the calibration an aggregate would use, releasing nothing.  Values are those of
-- the papers' vectors (docs: Z20, D2) up to the 1 + 2^-29 sensitivity factor of the release grid.
SELECT mechanism_name, round(scale::numeric, 6) AS scale, round(l1::numeric, 6) AS l1,
       round(l2::numeric, 5) AS l2
FROM dp_calibrate('analytic_gaussian', 1, 1e-5, 1);
SELECT mechanism_name, round(scale::numeric, 6) AS scale FROM dp_calibrate('classic_gaussian', 1, 1e-5, 1);
SELECT mechanism_name, round(scale::numeric, 9) AS scale, round(l2::numeric, 8) AS l2
FROM dp_calibrate('laplace', 1, 1e-5);
SELECT mechanism_name, round(scale::numeric, 6) AS scale FROM dp_calibrate('laplace', 0.5, 0, 3);
-- Named arguments and the default sensitivity of 1.
SELECT round(scale::numeric, 6) AS scale
FROM dp_calibrate(mechanism => 'analytic_gaussian', epsilon => 0.5, delta => 1e-5);
-- Details: the certificate never exceeds delta; the grid is far below the noise.
SELECT details->>'mechanism' AS mechanism,
       details->>'guarantee' AS guarantee,
       (details->>'delta_certified')::float8 <= 1e-5 AS certified,
       (details->>'requested_sensitivity')::float8 AS requested_sensitivity,
       (details->>'sensitivity')::float8 >= 10 AS effective_sensitivity_covers_grid,
       (details->>'release_grid')::float8 < scale * 1e-9 AS grid_fine,
       jsonb_typeof(details->'parameters') AS parameters
FROM dp_calibrate('analytic_gaussian', 1, 1e-5, 10);
SELECT (details->>'delta_certified')::float8 AS delta_certified, details->>'guarantee' AS guarantee
FROM dp_calibrate('laplace', 1, 0);
-- Larger epsilon, less noise; the analytic Gaussian beats the classic rule where both apply.
SELECT bool_and(a.scale < c.scale) AS analytic_beats_classic
FROM generate_series(1, 10) i,
     LATERAL dp_calibrate('analytic_gaussian', i / 10.0, 1e-6, 1) a,
     LATERAL dp_calibrate('classic_gaussian', i / 10.0, 1e-6, 1) c;
