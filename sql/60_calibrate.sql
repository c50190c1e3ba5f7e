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

-- The quasi-Gaussian (Liu, Selvi & Wiesemann, "Mind the Gap", Theorem 4.2): sigma = max(sigma1, sigma2) and its losses match the
-- independent recomputation of the paper's grid (tests/data, docs/mixtures.md §8).
SELECT eps, delta, round(scale::numeric, 6) AS sigma,
       round((details->'parameters'->>'sigma1')::numeric, 6) AS sigma1,
       round((details->'parameters'->>'sigma2')::numeric, 6) AS sigma2,
       round(l1::numeric, 6) AS l1, round(l2::numeric, 6) AS l2
FROM (VALUES (1.0::float8, 1e-5::float8), (5, 1e-5), (10, 1e-6), (1, 0.25), (10, 0.1)) v(eps, delta),
     LATERAL dp_calibrate('quasi_gaussian', eps, delta, 1);
-- At epsilon >= 5 it beats the analytic Gaussian in both losses.
SELECT q.l1 < a.l1 AS l1_better, q.l2 < a.l2 AS l2_better
FROM dp_calibrate('quasi_gaussian', 5, 1e-5) q, dp_calibrate('analytic_gaussian', 5, 1e-5) a;
SELECT expect_error($$SELECT * FROM dp_calibrate('quasi_gaussian', 1, 0.5, 1)$$);

-- auto: the candidate with the least expected loss (dpagg.objective), with every candidate listed.
SHOW dpagg.objective;
-- (K is shown as K: which K wins may move with the search's fine details.)
SELECT regexp_replace(mechanism_name, 'k=\d+', 'k=K') AS mechanism_name, details->>'requested' AS requested,
       (SELECT string_agg(regexp_replace(c->>'mechanism', 'k=\d+', 'k=K'), ', ' ORDER BY c->>'mechanism')
          FROM jsonb_array_elements(details->'candidates') c) AS candidates,
       l2 = (SELECT min((c->>'l2')::float8) FROM jsonb_array_elements(details->'candidates') c) AS least_l2
FROM dp_calibrate('auto', 1, 1e-5);
SET dpagg.objective = 'l1';
SELECT regexp_replace(mechanism_name, 'k=\d+', 'k=K') AS mechanism_name, details->>'requested' AS requested,
       l1 = (SELECT min((c->>'l1')::float8) FROM jsonb_array_elements(details->'candidates') c) AS least_l1
FROM dp_calibrate('auto', 1, 1e-5);
RESET dpagg.objective;
SELECT regexp_replace(mechanism_name, 'k=\d+', 'k=K') AS mechanism_name, details->>'requested' AS requested FROM dp_calibrate('auto(objective=l1)', 2, 0.2);
-- delta = 0 leaves only pure-DP candidates.
SELECT mechanism_name, jsonb_array_length(details->'candidates') AS n FROM dp_calibrate('auto', 1, 0);
-- zCDP rho where it holds: Gaussian D^2/(2 sigma^2); Laplace (D/b)^2/2; none for the quasi-Gaussian.
SELECT mechanism_name, round(rho::numeric, 6) AS rho
FROM (VALUES ('analytic_gaussian'), ('laplace'), ('quasi_gaussian')) m(name),
     LATERAL dp_calibrate(name, 1, 1e-5) ORDER BY 1;

-- The multi-Gaussian (Liu, Selvi & Wiesemann, "Mind the Gap", Def. 3.1), certified over every shift in [0, D]: within 0.5% of
-- the exact smallest sigma (reference sigma* = 0.3072939 at eps 2, delta 1e-5, K 10).
SELECT mechanism_name, (details->>'K')::int AS k,
       scale BETWEEN 0.3072939 AND 0.3072939 * 1.005 AS tight,
       (details->>'delta_certified')::float8 <= 1e-5 AS certified,
       abs(rho * 2 * scale * scale - 1) < 1e-6 AS rho_is_zcdp_of_sigma
FROM dp_calibrate('multi_gaussian(k=10)', 2, 1e-5);
-- Without k it chooses K; at epsilon >= 1 it halves (and more) the analytic Gaussian's error.
SELECT regexp_replace(m.mechanism_name, 'k=\d+', 'k=K') AS mechanism_name, m.l2 < 0.5 * a.l2 AS l2_halved, m.l1 < 0.5 * a.l1 AS l1_halved
FROM dp_calibrate('multi_gaussian', 1, 1e-5) m, dp_calibrate('analytic_gaussian', 1, 1e-5) a;
-- Integer-valued queries (counts, sums of integers) certify only the shifts 1..D: far less noise.
SELECT i.l2 < 0.5 * r.l2 AS integer_gain, i.details->>'integer_valued' AS integer_valued
FROM dp_calibrate('multi_gaussian', 5, 1e-5, 1, true) i, dp_calibrate('multi_gaussian', 5, 1e-5, 1, false) r;
SELECT expect_error($$SELECT * FROM dp_calibrate('multi_gaussian(k=41)', 1, 1e-5)$$);
SELECT expect_error($$SELECT * FROM dp_calibrate('analytic_gaussian', 1, 1e-5, 2.5, true)$$);

-- A long calibration can be cancelled like any query, and the backend stays healthy.
SET statement_timeout = '100ms';
SELECT mechanism_name FROM dp_calibrate('multi_gaussian', 0.01, 1e-290);  -- about 1.5 s
RESET statement_timeout;
SELECT mechanism_name FROM dp_calibrate('laplace', 0.5, 0);
