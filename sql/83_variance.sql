-- dp_var_pop, dp_var_samp, dp_stddev_pop and dp_stddev_samp (and their _report forms): a noisy
-- count, centred sum and centred sum of squares of the values clamped to [lower, upper], each at
-- its share of epsilon and delta, and the statistic computed from them (docs/variance.md).  At a
-- huge epsilon the answer is the exact statistic of the clamped values: checked as booleans,
-- never printed.  dp_test: v = id % 100 in six types (each value 100 times), grp in 0..4.
SELECT var_pop(f8) AS exact_var_pop, var_samp(f8) AS exact_var_samp FROM dp_test;
SELECT abs(dp_var_pop(i2, 1e9, 0, 0, 100) - var_pop(i2)) < 1e-3 AS i2,
       abs(dp_var_pop(i4, 1e9, 0, 0, 100) - var_pop(i4)) < 1e-3 AS i4,
       abs(dp_var_pop(i8, 1e9, 0, 0, 100) - var_pop(i8)) < 1e-3 AS i8,
       abs(dp_var_pop(f4, 1e9, 0, 0, 100) - var_pop(f4)) < 1e-3 AS f4,
       abs(dp_var_pop(f8, 1e9, 0, 0, 100) - var_pop(f8)) < 1e-3 AS f8,
       abs(dp_var_pop(num, 1e9, 0, 0, 100) - var_pop(num)) < 1e-3 AS num
FROM dp_test;
SELECT abs(dp_var_samp(f8, 1e9, 1e-6, 0, 100) - var_samp(f8)) < 1e-3 AS var_samp,
       abs(dp_stddev_pop(i4, 1e9, 1e-6, 0, 100, 'analytic_gaussian') - stddev_pop(i4)) < 1e-4 AS stddev_pop,
       abs(dp_stddev_samp(num, 1e9, 0, 0, 100, 'laplace') - stddev_samp(num)) < 1e-4 AS stddev_samp
FROM dp_test;
-- GROUP BY: one release per group; every group's values step by 5 from grp.
SELECT grp, abs(dp_var_pop(f8, 1e9, 0, -10, 110) - var_pop(f8)) < 1e-3 AS var_pop,
       abs(dp_stddev_samp(i8, 1e9, 0, -10, 110) - stddev_samp(i8)) < 1e-4 AS stddev_samp
FROM dp_test GROUP BY grp ORDER BY grp;
-- Values outside [lower, upper] count at the bounds (the statistic is that of the clamped
-- values); NaN counts as 0 (then clamped), as in dp_sum and dp_avg; NULLs are skipped.
SELECT abs(dp_var_pop(f8, 1e9, 0, 20, 60) - var_pop(least(greatest(f8, 20), 60))) < 1e-3 AS clamped
FROM dp_test;
SELECT abs(dp_var_pop(x, 1e9, 0, -1, 1) - var_pop(v)) < 1e-6 AS specials
FROM (VALUES (0.5, 0.5), ('NaN', 0), ('Infinity', 1), ('-Infinity', -1), (NULL, NULL)) t(x, v);
-- Too few values: the population forms need a (noisy) count of at least 1, the sample forms 2;
-- below that the answer is NULL, as var_pop and var_samp return NULL.
SELECT dp_var_pop(x, 1e9, 0, 0, 10) IS NULL AS pop_null, dp_var_samp(x, 1e9, 0, 0, 10) IS NULL AS samp_null
FROM dp_empty;
SELECT dp_var_pop(x, 1e9, 0, 0, 10) AS pop_one, dp_stddev_samp(x, 1e9, 0, 0, 10) IS NULL AS samp_null
FROM (VALUES (3.0)) v(x);
-- Whatever the noise, the answer lies in what the bounds allow: a variance in [0, B^2] (B the
-- half-width), times n / (n - 1) for the sample forms; a standard deviation its root.
SELECT bool_and(v BETWEEN 0 AND 25) AS var_in_range, bool_and(s BETWEEN 0 AND 5) AS stddev_in_range
FROM (SELECT grp, dp_var_pop(f8, 0.01, 0, 0, 10) AS v, dp_stddev_pop(f8, 0.01, 0, 0, 10) AS s
      FROM dp_test GROUP BY grp) r;
-- The report forms: the value, and an interval that holds the statistic of the clamped values
-- with probability at least dpagg.report_confidence (each part within its half-width at
-- 1 - (1 - c)/3; docs/variance.md, "Intervals").
SELECT ci_low <= value AND value <= ci_high AS inside, ci_low <= 833.25 AND 833.25 <= ci_high AS holds,
       ci_high - ci_low < 1 AS narrow, confidence, mechanism, epsilon, delta
FROM (SELECT (dp_var_pop_report(f8, 1e9, 0, 0, 100, 'laplace')).* FROM dp_test) r;
SELECT value IS NULL AS null_value, ci_low, ci_high
FROM (SELECT (dp_stddev_samp_report(x, 1e9, 0, 0, 10, 'laplace')).* FROM dp_empty) r;
-- Parallel plans: partial states travel through serialize/deserialize.
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dp_var_pop(f8, 1e9, 0, 0, 100) FROM dp_test;
SELECT abs(dp_var_pop(f8, 1e9, 0, 0, 100) - 833.25) < 1e-3 AS parallel_var,
       abs(dp_stddev_samp(num, 1e9, 0, 0, 100) - stddev_samp(num)) < 1e-4 AS parallel_stddev
FROM dp_test;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- Bad parameters: 22023 with a hint, before any row is read (and nothing is charged).
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 100, 0) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 5, 5) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_samp(f8, 1.0, 0, 0, 'Infinity') FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_samp(f8, 1.0, 0, 'NaN', 1) FROM dp_test$$);
SELECT expect_error($$SELECT dp_stddev_pop(f8, 1.0, 0, -1e71, 1e71) FROM dp_test$$);
SELECT expect_error($$SELECT dp_stddev_pop(f8, 1.0, 0, 0, 1e-71) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 0, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, -1, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 'NaN', 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, -1, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 1, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, NULL, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_stddev_samp(f8, 1.0, NULL, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_stddev_samp(f8, 1.0, 0, NULL, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 0, 100, 'no_such_mechanism') FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 0, 100, 'analytic_gaussian') FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 0, 100, 'gaussian') FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 3e-10, 0, 0, 100) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 0, 100, NULL) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 0, f8) FROM dp_test$$);
SELECT expect_error($$SELECT dp_var_pop(f8, 1.0, 0, 0, 100) OVER () FROM dp_test$$);
-- Over a private relation, per privacy unit: each unit's value in a group is its average there
-- (as dp_avg's per-unit form), clamped to [lower, upper], and the statistic is that of the
-- units' values; each of a unit's at most L groups is calibrated at (epsilon / L, delta / L).
-- v_private: 200 units (uid = id % 200), each with 50 rows of dp_test and values that vary
-- within a unit, so that the statistic of the units' averages differs from the rows' (checked).
CREATE TABLE v_private AS SELECT id % 200 AS uid, (id * 7 % 101)::float8 AS f8, grp FROM dp_test;
SELECT (SELECT var_pop(a) FROM (SELECT avg(f8) a FROM v_private GROUP BY uid) u) < var_pop(f8) / 2 AS averages_differ
FROM v_private;
SELECT dp_protect('v_private', 'uid');
SELECT abs(v - (SELECT var_pop(a) FROM (SELECT avg(f8) a FROM v_private GROUP BY uid) u)) < 1e-6 AS unit_var_pop,
       abs(s - (SELECT stddev_samp(a) FROM (SELECT avg(f8) a FROM v_private GROUP BY uid) u)) < 1e-6 AS unit_stddev_samp
FROM (SELECT dp_var_pop(f8, 1e9, 0, 0, 100) AS v, dp_stddev_samp(f8, 1e9, 1e-6, 0, 100, 'laplace') AS s
      FROM v_private) r;
-- GROUP BY over a private relation: group selection and at most L = 3 groups per unit (each unit's
-- rows fall in one grp, so every group keeps all its units and the answer is exact).
SELECT dp_protect('v_private', 'uid', 3);
SELECT grp, abs(v - (SELECT var_samp(a) FROM (SELECT avg(f8) a FROM v_private p WHERE p.grp = r.grp GROUP BY uid) u)) < 1e-6 AS exact
FROM (SELECT grp, dp_var_samp(f8, 1e9, 1e-6, 0, 100) AS v FROM v_private GROUP BY grp) r ORDER BY grp;
-- The ledger: the call's epsilon, its parts named with the unit and L (and the selection's release).
SELECT aggregate, mechanism, epsilon FROM dp_ledger WHERE role = current_user ORDER BY seq DESC LIMIT 2;
-- dp_explain: each group's parts at (epsilon_i / L, delta_i / L), the unit and L.
SELECT aggregate, privacy_unit, max_groups_contributed, epsilon, group_epsilon, mechanism,
       jsonb_path_query_array(details, '$.per_group[*].epsilon') AS part_epsilons
FROM dp_explain($$SELECT grp, dp_stddev_pop(f8, 3.0, 1e-6, 0, 100, 'laplace') FROM v_private GROUP BY grp$$);
-- What a release is calibrated with is what dp_explain says (the report's noise scale is the
-- squares part's, at epsilon_i / L).
SELECT bool_and(noise_scale = (SELECT noise_scale FROM dp_explain($$SELECT grp, dp_var_pop_report(f8, 3.0, 1e-6, 0, 100, 'laplace') FROM v_private GROUP BY grp$$) WHERE release = 1)) AS as_explained,
       min(noise_scale) AS noise_scale
FROM (SELECT grp, (dp_var_pop_report(f8, 3.0, 1e-6, 0, 100, 'laplace')).* FROM v_private GROUP BY grp) r;
-- Integer values (and integer expressions) per unit: the units' averages as double precision.
SELECT abs(v - (SELECT var_pop(a) FROM (SELECT avg(f8::int) a FROM v_private GROUP BY uid) u)) < 1e-6 AS int_unit_var_pop
FROM (SELECT dp_var_pop(f8::int, 1e9, 0, 0, 100) AS v FROM v_private) r;
SELECT (SELECT avg((a < m - 0.001)::int) FROM (SELECT avg((f8 > 50)::int) a FROM v_private GROUP BY uid) u) <= 0.5 AND
       (SELECT avg((a <= m + 0.001)::int) FROM (SELECT avg((f8 > 50)::int) a FROM v_private GROUP BY uid) u) >= 0.5 AS int_unit_median
FROM (SELECT dp_median(CASE WHEN f8 > 50 THEN 1 ELSE 0 END, 1e6, 0, 0, 1) AS m FROM v_private) r;
-- An epsilon too small for L = 3 groups per unit (GROUP BY: without it a query has one group): refused naming L.
SELECT expect_error($$SELECT grp, dp_var_pop(f8, 1e-9, 1e-6, 0, 100) FROM v_private GROUP BY grp$$);
-- The per-unit forms are the rewrite's alone.
SELECT expect_error($$SELECT dpagg_unit_var_pop(f8, 1.0, 0, 0, 100, NULL, 1, 'uid') FROM dp_test$$);
DROP TABLE v_private;
-- Nor by hand through the support functions.
CREATE ROLE v_analyst;
SELECT has_function_privilege('v_analyst', 'dpagg_var_pop_final(internal)', 'EXECUTE') AS final_callable,
       has_function_privilege('v_analyst', 'dpagg_variance_combine(internal, internal)', 'EXECUTE') AS combine_callable,
       has_function_privilege('v_analyst', 'dpagg_variance_deserialize(bytea, internal)', 'EXECUTE') AS deserialize_callable;
-- An aggregate a superuser builds from the support functions with an initial state or another
-- final function is not dpagg's: refused before anything is charged.
CREATE AGGREGATE v_mixed(float8, float8, float8, float8, float8) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = dpagg_variance_combine,
  SERIALFUNC = dpagg_variance_serialize, DESERIALFUNC = dpagg_variance_deserialize);
SELECT expect_error($$SELECT v_mixed(f8, 1.0, 0, 0, 100) FROM dp_test$$);
DROP AGGREGATE v_mixed(float8, float8, float8, float8, float8);
-- The charge: the call's epsilon, as its three parts, each part's delta only where its mechanism
-- uses one; the ledger names the form and the parts' mechanisms.
ALTER ROLE v_analyst LOGIN;
SELECT dp_set_budget('v_analyst', 5.0, 1e-6);
GRANT SELECT ON dp_test TO v_analyst;
SET SESSION AUTHORIZATION v_analyst;
SELECT dp_var_pop(f8, 0.5, 0, 0, 100) IS NOT NULL AS released FROM dp_test;
SELECT dp_stddev_samp(f8, 0.5, 1e-7, 0, 100, 'analytic_gaussian') IS NOT NULL AS released FROM dp_test;
SELECT count(*) AS groups FROM (SELECT grp, dp_var_samp(f8, 0.25, 0, 0, 100) FROM dp_test GROUP BY grp) s;
-- (no rows: NULL or a noisy answer, as the noisy count says; charged either way)
SELECT s IS NULL OR s BETWEEN 0 AND 50 AS answered
FROM (SELECT dp_stddev_pop(f8, 0.25, 0, 0, 100) AS s FROM dp_test WHERE false) q;
SELECT (dp_var_samp_report(f8, 0.5, 0, 0, 100, 'laplace')).confidence FROM dp_test;
SELECT aggregate, mechanism, epsilon, delta FROM dp_ledger WHERE role = 'v_analyst' ORDER BY seq;
SELECT epsilon_spent, delta_spent FROM dp_budgets WHERE role = 'v_analyst';
RESET SESSION AUTHORIZATION;
-- dp_explain: the three parts' calibrations and the total.
SELECT release, aggregate, epsilon, delta, group_epsilon, sensitivity, mechanism, details->'parts' AS parts,
       jsonb_path_query_array(details, '$.per_group[*].sensitivity') AS sensitivities
FROM dp_explain($$SELECT grp, dp_var_pop(f8, 1.0, 1e-6, 0, 100, 'laplace'), dp_stddev_samp(f8, 2.0, 0, -10, 10) FROM dp_test GROUP BY grp$$);
REVOKE SELECT ON dp_test FROM v_analyst;
SELECT dp_drop_budget('v_analyst');
DROP ROLE v_analyst;
-- The split for Citus (docs/variance.md, "On Citus"), on one node: the partial sums of the rows'
-- two integers (dpagg_quanta_var_squares, dpagg_quanta_var) per group, merged by
-- dpagg_merge_var_pop and its sibling forms, make the one-node state: at epsilon 1e9 every form
-- agrees with the aggregate over the rows to 1e-9, for float8 and integer values.
SELECT f, bool_and(abs(m - d) <= 1e-9 * abs(d)) AS merged_as_one_node FROM (
  SELECT 'var_pop' f, (SELECT dpagg_merge_var_pop(q, s, n, 1e9, 1e-6, -10, 90, NULL) FROM (SELECT grp, sum(dpagg_quanta_var_squares(f8, -10, 90)) q, sum(dpagg_quanta_var(f8, -10, 90)) s, count(f8) n FROM dp_test GROUP BY grp) p) m,
         (SELECT dp_var_pop(f8, 1e9, 1e-6, -10, 90) FROM dp_test) d
  UNION ALL
  SELECT 'var_samp', (SELECT dpagg_merge_var_samp(q, s, n, 1e9, 0, 0, 50, 'laplace') FROM (SELECT grp, sum(dpagg_quanta_var_squares(i4, 0, 50)) q, sum(dpagg_quanta_var(i4, 0, 50)) s, count(i4) n FROM dp_test GROUP BY grp) p),
         (SELECT dp_var_samp(i4, 1e9, 0, 0, 50, 'laplace') FROM dp_test)
  UNION ALL
  SELECT 'stddev_pop', (SELECT dpagg_merge_stddev_pop(q, s, n, 1e9, 1e-6, 10, 20, NULL) FROM (SELECT grp, sum(dpagg_quanta_var_squares(num, 10, 20)) q, sum(dpagg_quanta_var(num, 10, 20)) s, count(num) n FROM dp_test GROUP BY grp) p),
         (SELECT dp_stddev_pop(num, 1e9, 1e-6, 10, 20) FROM dp_test)
  UNION ALL
  SELECT 'stddev_samp', (SELECT (dpagg_merge_stddev_samp_report(q, s, n, 1e9, 1e-6, -10, 90, NULL)).value FROM (SELECT grp, sum(dpagg_quanta_var_squares(f4, -10, 90)) q, sum(dpagg_quanta_var(f4, -10, 90)) s, count(f4) n FROM dp_test GROUP BY grp) p),
         (SELECT (dp_stddev_samp_report(f4, 1e9, 1e-6, -10, 90)).value FROM dp_test)) x
GROUP BY f ORDER BY f;
-- A merge refuses partial sums their count could not make (each value adds at most B, and B^2/2
-- to the squares, in quanta), a count without its sums, sums that are not integers, and NULL
-- privacy parameters; an empty partial (count 0) merges as no value.
SELECT expect_error($$SELECT dpagg_merge_var_pop(1e20, 0, 1, 1, 1e-5, 0, 50, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_var_pop(0, 1e20, 1, 1, 1e-5, 0, 50, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_var_pop(NULL, NULL, 3, 1, 1e-5, 0, 50, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_var_pop(1.5, 0, 1, 1, 1e-5, 0, 50, NULL)$$);
SELECT expect_error($$SELECT dpagg_merge_var_pop(0, 0, 1, NULL, 1e-5, 0, 50, NULL)$$);
SELECT dpagg_merge_var_pop(NULL, NULL, 0, 1e9, 1e-5, 0, 50, NULL) AS empty;
-- The merges' support functions are dpagg's alone.
SELECT has_function_privilege('public', 'dpagg_merge_variance_trans(internal, numeric, numeric, bigint, double precision, double precision, double precision, double precision, text)', 'EXECUTE') AS public_may_run_the_merge_transition,
       has_function_privilege('public', 'dpagg_quanta_var_squares(double precision, double precision, double precision)', 'EXECUTE') AS public_may_run_the_quanta;
