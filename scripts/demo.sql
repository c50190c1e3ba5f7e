-- dpagg demo: true answers next to differentially private ones on a sample table.
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dpagg;
-- Superusers are held to a privacy budget like any role (dpagg.limit_superusers defaults to on):
-- the demo's own releases below (about epsilon 7) are charged to this one.
SELECT dp_set_budget(current_user::regrole, 20, 1e-4) \g /dev/null
DROP TABLE IF EXISTS employees;
CREATE TABLE employees AS
SELECT g AS id,
       (ARRAY['engineering', 'sales', 'support', 'finance'])[1 + g % 4] AS department,
       round((40000 + 60000 * random() + (g % 4) * 8000)::numeric, 2) AS salary
FROM generate_series(1, 20000) g;

\echo
\echo '== Whole table: epsilon = 1, delta = 1e-6, salaries clamped to [0, 200000] =='
SELECT 'sum(salary)' AS query, round(sum(salary)) AS true_answer,
       round(dp_sum(salary, 1.0, 1e-6, 0, 200000)::numeric) AS private_answer FROM employees
UNION ALL
SELECT 'avg(salary)', round(avg(salary), 2),
       round(dp_avg(salary, 1.0, 1e-6, 0, 200000)::numeric, 2) FROM employees
UNION ALL
SELECT 'count(*)', count(*), dp_count(1.0, 1e-6) FROM employees;

\echo
\echo '== Per department (each group is one release of disjoint rows) =='
SELECT department, count(*) AS true_count, dp_count(1.0, 1e-6) AS private_count,
       round(avg(salary), 2) AS true_avg,
       round(dp_avg(salary, 1.0, 1e-6, 0, 200000)::numeric, 2) AS private_avg
FROM employees GROUP BY department ORDER BY department;

\echo
\echo '== With their accuracy: the report forms release once and say how far off they may be (95 %) =='
SELECT department, round(true_avg, 2) AS true_avg, round((r).value::numeric, 2) AS private_avg,
       round((r).ci_low::numeric, 2) AS ci_low, round((r).ci_high::numeric, 2) AS ci_high, (r).mechanism
FROM (SELECT department, avg(salary) AS true_avg FROM employees GROUP BY department) t
JOIN (SELECT department, dp_avg_report(salary, 1.0, 1e-6, 0, 200000) AS r FROM employees GROUP BY department) d
  USING (department)
ORDER BY department;

\echo
\echo '== The noise behind those answers (dp_calibrate releases nothing) =='
SELECT mechanism_name, round(scale::numeric, 4) AS scale, round(l1::numeric, 4) AS expected_abs_error
FROM dp_calibrate('analytic_gaussian', 1.0, 1e-6, 1)
UNION ALL
SELECT mechanism_name, round(scale::numeric, 4), round(l1::numeric, 4)
FROM dp_calibrate('laplace', 1.0, 0, 1)
UNION ALL
SELECT mechanism_name, round(scale::numeric, 4), round(l1::numeric, 4)
FROM dp_calibrate('classic_gaussian', 1.0, 1e-6, 1);

\echo
\echo '== Mechanisms =='
SELECT name, guarantee FROM dp_mechanisms();

\echo
\echo '== Two sums over the same rows, released together (each row clipped to l2 norm 130000) =='
SELECT round(sum(salary)) AS true_salary_sum, round(sum(salary * 0.1)) AS true_bonus_sum,
       (SELECT array_agg(round(v::numeric)) FROM unnest(dp_sum_vector(ARRAY[salary, salary * 0.1]::float8[], 2, 1.0, 1e-6, 130000)) v) AS private_sums
FROM employees;

\echo
\echo '== People, not rows: visits has many rows per person =='
DROP TABLE IF EXISTS visits;
CREATE TABLE visits AS
SELECT 1 + (g % 2000) AS user_id, (ARRAY['north', 'south', 'east', 'west'])[1 + (g * 7) % 4] AS region,
       round((5 + 45 * random())::numeric, 2) AS amount
FROM generate_series(1, 30000) g;
INSERT INTO visits SELECT 9999, 'north', 500 FROM generate_series(1, 3000);   -- one big spender
INSERT INTO visits VALUES (4242, 'island', 20);                               -- one person alone
\echo '-- without protection: the big spender and the island are plain to see'
SELECT region, count(*) AS true_rows, dp_count(1.0, 1e-6) AS private_rows,
       round(dp_sum(amount, 1.0, 1e-6, 0, 500)::numeric) AS private_sum
FROM visits GROUP BY region ORDER BY region;
SELECT dp_protect('visits', 'user_id', max_groups_contributed => 2) \g /dev/null
\echo '-- protected per user (user_id, at most 2 regions each, each user''s spend per region clamped'
\echo '-- to [0, 500]): counts are of people, and the island is not released'
SELECT region, t.true_people, p.private_people, p.private_sum
FROM (SELECT region, count(DISTINCT user_id) AS true_people FROM visits GROUP BY region) t
LEFT JOIN (SELECT region, dp_count(1.0, 1e-6) AS private_people,
                  round(dp_sum(amount, 1.0, 1e-6, 0, 500)::numeric) AS private_sum
           FROM visits GROUP BY region) p USING (region)
ORDER BY region;
\echo '-- how that query is bounded (dp_explain runs and releases nothing)'
SELECT aggregate, privacy_unit, max_groups_contributed AS l, epsilon, round(group_epsilon::numeric, 3) AS group_epsilon,
       mechanism, round((details->'per_group'->0->>'l1')::numeric, 1) AS expected_abs_error
FROM dp_explain($$SELECT region, dp_count(1.0, 1e-6), dp_sum(amount, 1.0, 1e-6, 0, 500) FROM visits GROUP BY region$$);

\echo
\echo '== Privacy budgets: analyst alice may spend epsilon 1.0 in total =='
DROP ROLE IF EXISTS alice;
CREATE ROLE alice;
GRANT SELECT ON employees TO alice;
SELECT dp_set_budget('alice', 1.0, 1e-6);
SET SESSION AUTHORIZATION alice;
SELECT dp_count(0.5, 1e-7) AS private_count FROM employees;
SELECT round(dp_avg(salary, 0.5, 1e-7, 0, 200000)::numeric, 2) AS private_avg FROM employees;
DO $$ BEGIN
  PERFORM dp_count(0.5, 1e-7) FROM employees;
EXCEPTION WHEN SQLSTATE '53DP1' THEN
  RAISE WARNING 'third release refused: %', SQLERRM;
END $$;
RESET SESSION AUTHORIZATION;
SELECT role, epsilon_total, epsilon_spent, epsilon_remaining, releases FROM dp_budgets WHERE role = 'alice';
SELECT seq, role, aggregate, mechanism, epsilon, delta FROM dp_ledger WHERE role = 'alice' ORDER BY seq;
