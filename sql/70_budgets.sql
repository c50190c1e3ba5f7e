-- Privacy budgets: administration, charging rules and what an analyst cannot do.  (Durability
-- across ROLLBACK, cursors, kills and crashes is tested against a real cluster by
-- tests/ledger/run.sh; here the cluster runs with shared_preload_libraries = dpagg.)
CREATE ROLE dp_analyst LOGIN;
CREATE ROLE dp_other LOGIN;
CREATE TABLE b_t AS SELECT g::float8 AS x, g % 4 AS k FROM generate_series(1, 400) g;
GRANT SELECT ON b_t TO dp_analyst, dp_other;
-- charges(role): releases of a role in the ledger (run as superuser: sees every row).
CREATE FUNCTION charges(r text) RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(*) FROM dp_ledger WHERE role = r $$;
CREATE FUNCTION spent(r text) RETURNS text LANGUAGE sql AS
  $$ SELECT format('eps %s of %s, delta %s of %s, releases %s', round(epsilon_spent::numeric, 9),
                   epsilon_total, delta_spent, delta_total, releases)
       FROM dp_budgets WHERE role = r $$;

-- a function that runs a DP query: every call is a release
CREATE FUNCTION released_by_function() RETURNS bigint LANGUAGE sql AS
  $$ SELECT dp_count(0.5, 0) FROM b_t $$;

-- A role without a budget may not release (dpagg.require_budget defaults to on), superusers
-- included (dpagg.limit_superusers defaults to on; the suite runs with it off since
-- 45_superuser_unlimited).  Both are PGC_SIGHUP: postgresql.conf or ALTER SYSTEM and a reload,
-- never SET or set_config(), not even by a superuser.
SHOW dpagg.require_budget;
SELECT name, context, boot_val FROM pg_settings
 WHERE name IN ('dpagg.require_budget', 'dpagg.limit_superusers') ORDER BY name;
SELECT expect_error($$SET dpagg.limit_superusers = off$$);
SELECT expect_error($$SELECT set_config('dpagg.require_budget', 'off', false)$$);
-- a trojan run by a superuser cannot switch enforcement off mid-query either
CREATE FUNCTION trojan_guc() RETURNS text LANGUAGE sql AS
  $$ SELECT set_config('dpagg.limit_superusers', 'off', true) $$;
SELECT expect_error($$SELECT trojan_guc()$$);
SELECT expect_error($$CREATE FUNCTION trojan_set_clause() RETURNS int LANGUAGE sql
                      SET dpagg.require_budget = off AS 'SELECT 1'$$);
DROP FUNCTION trojan_guc();
SET SESSION AUTHORIZATION dp_analyst;
SELECT expect_error($$SELECT dp_count(0.1, 0) FROM b_t$$);
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst');

-- Administration and its validation.
SELECT dp_set_budget('dp_analyst', 0.3, 1e-6);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', -1, 0)$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 'Infinity', 0)$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 1, 1)$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 1, 1e-6, 'rdp')$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 1, 0, 'zcdp')$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 1, 1e-6, 'basic', 0)$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 'NaN', 1e-6)$$);
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 1, 1e-6, 'basic', '-infinity')$$);
SELECT expect_error($$SELECT dp_set_budget('no_such_role', 1, 1e-6)$$);
SELECT role, method, epsilon_total, delta_total, max_release_epsilon, epsilon_spent, releases, has_budget
  FROM dp_budgets WHERE role = 'dp_analyst';

-- Charging: three releases of 0.1 fit a budget of 0.3; the fourth is refused (SQLSTATE 53DP1)
-- and releases nothing; a release refused for bad input is not charged either.
SET SESSION AUTHORIZATION dp_analyst;
SELECT dp_count(0.1, 0) IS NOT NULL AS released FROM b_t;
SELECT dp_sum(x, 0.1, 0, 0, 400, 'laplace') IS NOT NULL AS released FROM b_t;
SELECT dp_avg(x, 0.1, 0, 0, 400, 'laplace') IS NOT NULL AS released FROM b_t;
SELECT expect_error($$SELECT dp_count(0.1, 0) FROM b_t$$);
SELECT expect_error($$SELECT dp_count(-1, 0) FROM b_t$$);
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst'), spent('dp_analyst');

-- The groups of one GROUP BY share one charge per aggregate; two aggregates are two charges;
-- a correlated subquery is charged once per execution; dp_avg is charged its full epsilon.
SELECT dp_set_budget('dp_analyst', 100, 1e-6);
SET SESSION AUTHORIZATION dp_analyst;
SELECT k, dp_count(0.5, 0) IS NOT NULL AS released FROM b_t GROUP BY k ORDER BY k;
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst') AS after_group_by;
SET SESSION AUTHORIZATION dp_analyst;
SELECT dp_count(0.5, 0) IS NOT NULL AS a, dp_sum(x, 0.5, 0, 0, 400, 'laplace') IS NOT NULL AS b FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst') AS after_two_aggregates;
SET SESSION AUTHORIZATION dp_analyst;
SELECT g, (SELECT dp_count(0.5, 0) FROM b_t WHERE x <= g * 100) IS NOT NULL AS released
  FROM generate_series(1, 3) g;
SELECT g, s.c IS NOT NULL AS released
  FROM generate_series(1, 2) g, LATERAL (SELECT dp_count(0.5, 0) AS c FROM b_t WHERE x <= g * 100) s;
SELECT released_by_function() IS NOT NULL AS released FROM generate_series(1, 2);
-- the same with a sorted aggregation (a GroupAggregate resets its per-group contexts at every
-- group: still one charge), and a sorted aggregation re-executed per outer row after returning
-- only its first group (LIMIT 1): one charge per execution; also under EXPLAIN ANALYZE
SET enable_hashagg = off;
SELECT k, dp_count(0.5, 0) IS NOT NULL AS released FROM b_t GROUP BY k ORDER BY k;
SELECT g, (SELECT dp_count(0.5, 0) FROM b_t WHERE x <= g * 100 GROUP BY k ORDER BY k LIMIT 1) IS NOT NULL AS released
  FROM generate_series(1, 3) g;
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst') AS after_sorted;
SET SESSION AUTHORIZATION dp_analyst;
DO $$ DECLARE r record; BEGIN
  FOR r IN EXPLAIN (ANALYZE) SELECT g, (SELECT dp_count(0.5, 0) FROM b_t WHERE x <= g * 100 GROUP BY k ORDER BY k LIMIT 1)
                               FROM generate_series(1, 3) g LOOP END LOOP; END $$;
RESET enable_hashagg;
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst') AS after_explain_analyze;
-- a hashed aggregation rescanned without new parameters keeps its hash table and finalizes the
-- same states again (dp_count's is its bare count, so fresh noise): each loop is charged
SET SESSION AUTHORIZATION dp_analyst;
EXPLAIN (COSTS OFF) SELECT g, (SELECT c FROM (SELECT k, dp_count(0.5, 0) AS c FROM b_t GROUP BY k OFFSET 0) s
                           WHERE s.k = g % 4) FROM generate_series(1, 3) g;
SELECT g, (SELECT c FROM (SELECT k, dp_count(0.5, 0) AS c FROM b_t GROUP BY k OFFSET 0) s
           WHERE s.k = g % 4) IS NOT NULL AS released FROM generate_series(1, 3) g;
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst') AS after_hash_rescans;
SET SESSION AUTHORIZATION dp_analyst;
-- each grouping set is a release: ROLLUP (k) has two sets, charged as one record of 2 x 0.5
SELECT k, dp_count(0.5, 0) IS NOT NULL AS released FROM b_t GROUP BY ROLLUP (k) ORDER BY k;
RESET SESSION AUTHORIZATION;
SELECT aggregate, epsilon FROM dp_ledger WHERE role = 'dp_analyst' ORDER BY seq DESC LIMIT 1;
SELECT charges('dp_analyst') AS after_correlated, spent('dp_analyst');
SELECT aggregate, mechanism, epsilon, delta FROM dp_ledger WHERE role = 'dp_analyst' ORDER BY seq LIMIT 4;

-- A charge is not part of the transaction: ROLLBACK, savepoints and caught errors keep it.
SET SESSION AUTHORIZATION dp_analyst;
BEGIN;
SELECT dp_count(0.5, 0) IS NOT NULL AS released FROM b_t;
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT dp_count(0.5, 0) IS NOT NULL AS released FROM b_t;
ROLLBACK TO SAVEPOINT s;
COMMIT;
DO $$ BEGIN PERFORM dp_count(0.5, 0) FROM b_t; RAISE division_by_zero; EXCEPTION WHEN division_by_zero THEN NULL; END $$;
SELECT expect_error($$SELECT c / 0 FROM (SELECT dp_count(0.5, 0) AS c FROM b_t) s$$);
RESET SESSION AUTHORIZATION;
SELECT charges('dp_analyst') AS after_rollbacks;

-- A floor on epsilon (dpagg.min_release_epsilon, superuser-only) bounds how many releases a
-- budget allows: 53DP3 below it.
SET dpagg.min_release_epsilon = 0.01;
SET SESSION AUTHORIZATION dp_analyst;
SELECT expect_error($$SELECT dp_count(0.001, 0) FROM b_t$$);
SELECT expect_error($$SET dpagg.min_release_epsilon = 0$$);
RESET SESSION AUTHORIZATION;
RESET dpagg.min_release_epsilon;

-- Per-release cap (53DP2) and zCDP accounting: releases add rho (their own, or epsilon^2/2 plus
-- their delta for mechanisms that are not zCDP), converted with half the budget's delta:
-- epsilon = rho + 2 sqrt(rho ln(2/delta)).  (A new role: a budget change keeps what a role has
-- already spent.)
CREATE ROLE dp_z LOGIN;
GRANT SELECT ON b_t TO dp_z;
SELECT dp_set_budget('dp_z', 2, 1e-5, 'zcdp', 0.2);
SET SESSION AUTHORIZATION dp_z;
SELECT expect_error($$SELECT dp_count(0.25, 1e-7) FROM b_t$$);
SELECT dp_count(0.2, 1e-7, 'analytic_gaussian') IS NOT NULL AS released FROM b_t;
SELECT dp_count(0.2, 1e-7, 'analytic_gaussian') IS NOT NULL AS released FROM b_t;
SELECT dp_count(0.1, 0, 'laplace') IS NOT NULL AS released FROM b_t;
-- the multi-Gaussian is rho-zCDP too (Corollary 3.7 of "Mind the Gap", Liu, Selvi & Wiesemann); Laplace is epsilon^2/2-zCDP.
SELECT dp_count(0.2, 1e-7, 'multi_gaussian(k=3)') IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT mechanism, epsilon, round(rho::numeric, 9) AS rho FROM dp_ledger WHERE role = 'dp_z' ORDER BY seq;
WITH r AS (SELECT sum(rho) AS rho FROM dp_ledger WHERE role = 'dp_z')
SELECT round(b.rho_spent::numeric, 12) = round(r.rho::numeric, 12) AS rho_adds_up,
       round(b.epsilon_spent::numeric, 9) = round((r.rho + 2 * sqrt(r.rho * ln(2 / 1e-5)))::numeric, 9) AS converted,
       round(b.epsilon_spent::numeric, 6) AS epsilon_spent, b.delta_spent,
       (SELECT sum(epsilon) FROM dp_ledger WHERE role = 'dp_z') AS basic_would_be
  FROM dp_budgets b, r WHERE b.role = 'dp_z';

-- An argument left out keeps the role's current value (docs/guides/budgets.md): raising dp_z's
-- total keeps its zcdp accounting, its delta and its cap; 'infinity' removes the cap; a total
-- below what was spent is set with a NOTICE; a budget that protects little with a WARNING; a new
-- budget needs epsilon.
SELECT dp_set_budget('dp_z', 4);
SELECT method, epsilon_total, delta_total, max_release_epsilon FROM dp_budgets WHERE role = 'dp_z';
SELECT dp_set_budget('dp_z', max_release_epsilon => 'infinity');
SELECT method, epsilon_total, delta_total, max_release_epsilon FROM dp_budgets WHERE role = 'dp_z';
SELECT dp_set_budget('dp_z', delta => 2e-5, max_release_epsilon => 0.2);
SELECT method, epsilon_total, delta_total, max_release_epsilon FROM dp_budgets WHERE role = 'dp_z';
SELECT dp_set_budget('dp_z', 0.1);
SELECT dp_set_budget('dp_z', 2, 1e-5);
SELECT method, epsilon_total, delta_total, max_release_epsilon FROM dp_budgets WHERE role = 'dp_z';
-- auto weighs the budget's accounting (docs/guides/budgets.md): under zcdp it takes the least
-- expected loss per unit of rho charged, so a Gaussian-family mechanism (charged its rho, no
-- delta) rather than the staircase or Laplace it takes for the same call under basic accounting.
SET SESSION AUTHORIZATION dp_z;
SELECT mechanism_name, rho IS NOT NULL AS zcdp_mechanism FROM dp_calibrate('auto', 0.2, 1e-7, 1);
SELECT dp_count(0.2, 1e-7) IS NOT NULL AS released FROM b_t;
SELECT dp_count(0.2, 0) IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT mechanism_name, rho IS NOT NULL AS zcdp_mechanism FROM dp_calibrate('auto', 0.2, 1e-7, 1);
SELECT mechanism, delta, rho > 0 AND rho < 0.2 * 0.2 / 2 AS charged_its_rho
  FROM dp_ledger WHERE role = 'dp_z' ORDER BY seq DESC LIMIT 2;
CREATE ROLE dp_new;
SELECT expect_error($$SELECT dp_set_budget('dp_new', delta => 1e-6)$$);
SELECT dp_set_budget('dp_new', 1e6, 0.5);
SELECT dp_set_budget('dp_new', 1);
SELECT method, epsilon_total, delta_total, max_release_epsilon FROM dp_budgets WHERE role = 'dp_new';
SELECT dp_drop_budget('dp_new');
SELECT expect_error($$SELECT dp_set_budget('dp_new')$$);
DROP ROLE dp_new;

-- A release that does not fit is refused (53DP1) saying which limit is short, what it needs and
-- what is left; "exhausted" only when that limit is used up.  Nothing is charged.
CREATE ROLE dp_short LOGIN;
GRANT SELECT ON b_t TO dp_short;
SELECT dp_set_budget('dp_short', 1, 1e-6);
CREATE ROLE dp_zshort LOGIN;
GRANT SELECT ON b_t TO dp_zshort;
SELECT dp_set_budget('dp_zshort', 1, 1e-5, 'zcdp');
SET SESSION AUTHORIZATION dp_short;
SELECT dp_count(0.3, 5e-7, 'analytic_gaussian') IS NOT NULL AS released FROM b_t;
SELECT expect_error($$SELECT dp_count(0.1, 1e-6, 'analytic_gaussian') FROM b_t$$) AS delta_short;
SELECT dp_count(0.2, 5e-7, 'analytic_gaussian') IS NOT NULL AS released FROM b_t;
SELECT expect_error($$SELECT dp_count(0.1, 1e-7, 'analytic_gaussian') FROM b_t$$) AS delta_used_up;
SELECT expect_error($$SELECT dp_count(0.8, 0, 'laplace') FROM b_t$$) AS epsilon_short;
SELECT dp_count(0.5, 0, 'laplace') IS NOT NULL AS released FROM b_t;
SELECT expect_error($$SELECT dp_count(0.1, 0, 'laplace') FROM b_t$$) AS used_up;
SET SESSION AUTHORIZATION dp_zshort;
SELECT expect_error($$SELECT dp_count(0.5, 1e-7, 'laplace') FROM b_t$$) AS converted_short;
SELECT dp_count(0.1, 1e-7, 'analytic_gaussian') IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT role, count(*) AS releases FROM dp_ledger WHERE role IN ('dp_short', 'dp_zshort') GROUP BY role ORDER BY role;
REVOKE SELECT ON b_t FROM dp_short, dp_zshort;
DROP ROLE dp_short;
DROP ROLE dp_zshort;

-- Delta is charged only when the mechanism uses it (docs/guides/budgets.md, "What is charged"):
-- auto picks the staircase (pure epsilon-DP, certified delta 0) for a large bound, and the charge
-- has no delta; a Gaussian is charged its delta; a dp_avg whose two parts differ, the part's.
-- dp_explain's total is what the ledger charges, also over a table that is not private.
CREATE ROLE dp_delta LOGIN;
GRANT SELECT ON b_t TO dp_delta;
SELECT dp_set_budget('dp_delta', 10, 1e-6);
SET SESSION AUTHORIZATION dp_delta;
SELECT dp_sum(x, 1.0, 1e-6, 0, 200000) IS NOT NULL AS released FROM b_t;
SELECT dp_sum(x, 1.0, 1e-6, 0, 200000, 'analytic_gaussian') IS NOT NULL AS released FROM b_t;
SELECT dp_sum(x, 1.0, 1e-6, 0, 200000) IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT mechanism, epsilon, delta FROM dp_ledger WHERE role = 'dp_delta' ORDER BY seq;
SELECT epsilon_spent, delta_spent FROM dp_budgets WHERE role = 'dp_delta';
SELECT aggregate, epsilon, delta, mechanism, details->'charged_delta' AS charged_delta
  FROM dp_explain($$SELECT dp_sum(x, 1.0, 1e-6, 0, 200000), dp_count(1.0, 1e-6, 'analytic_gaussian'),
                           dp_avg(x, 1.0, 1e-6, 0, 200000) FROM b_t$$);
-- dp_sum_vector over a table that is not private (its argument list is vector.c's)
SELECT aggregate, epsilon, delta, mechanism
  FROM dp_explain($$SELECT dp_sum_vector(ARRAY[x, x], 2, 1.0, 1e-6, 400) FROM b_t$$);
REVOKE SELECT ON b_t FROM dp_delta;
DROP ROLE dp_delta;

-- The audit trail (docs/guides/budgets.md, "The ledger"): each release records the statement the
-- client sent (a wrapper's call with its argument, and the wrapper's query after "-- running:"),
-- the releases of one statement share a statement_id, and the role's name at the time stays in
-- the rows after a rename (role_now follows the rename; both are NULL-free until the drop, whose
-- event carries the name too).
CREATE ROLE dp_audit LOGIN;
GRANT SELECT ON b_t TO dp_audit;
SELECT dp_set_budget('dp_audit', 10, 1e-5);
CREATE FUNCTION audit_wrapper(want integer) RETURNS double precision SECURITY DEFINER
  LANGUAGE sql AS $$ SELECT dp_count(0.1, 0, 'laplace') FROM b_t WHERE k = want $$;
GRANT EXECUTE ON FUNCTION audit_wrapper(integer) TO dp_audit;
SET SESSION AUTHORIZATION dp_audit;
SELECT audit_wrapper(2) IS NOT NULL AS released;
SELECT k, dp_count(0.1, 0, 'laplace') IS NOT NULL AS a, dp_sum(x, 0.1, 0, 0, 400, 'laplace') IS NOT NULL AS b
  FROM b_t WHERE k = 1 GROUP BY k;
SELECT dp_count(0.1, 0, 'laplace') IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT query, aggregate FROM dp_ledger WHERE role = 'dp_audit' ORDER BY seq;
SELECT count(DISTINCT statement_id) AS statements, count(*) AS releases,
       count(*) FILTER (WHERE statement_id = seq) AS first_of_their_statement
  FROM dp_ledger WHERE role = 'dp_audit';
ALTER ROLE dp_audit RENAME TO dp_audit_renamed;
SELECT DISTINCT role, role_now FROM dp_ledger WHERE role_oid = 'dp_audit_renamed'::regrole;
SELECT DISTINCT j.role AS journal_of_1_0_0_shows FROM dpagg_journal() j JOIN dp_ledger l USING (seq)
  WHERE l.role_oid = 'dp_audit_renamed'::regrole;
DROP FUNCTION audit_wrapper(integer);
REVOKE SELECT ON b_t FROM dp_audit_renamed;
DROP ROLE dp_audit_renamed;
SELECT event, role, role_now FROM dp_budget_log WHERE event = 'role dropped' AND role IN ('dp_audit', 'dp_audit_renamed');

-- One epsilon per statement (docs/guides/budgets.md, "One epsilon per statement"): under
-- dpagg.statement_epsilon the epsilons written are weights, scaled to add up to the setting,
-- group selections included (at the first aggregate's weight); dpagg.statement_delta does the same
-- for the deltas asked for; dp_explain shows the split and its total; a cached plan made under
-- another setting is refused when it starts; GROUPING SETS and the selection settings are refused
-- beside it.  Without the setting each release is charged what it says, as before.
CREATE ROLE dp_stmt LOGIN;
CREATE TABLE stmt_t AS SELECT g % 50 AS uid, g % 3 AS k, g::float8 AS x FROM generate_series(1, 600) g;
SELECT dp_protect('stmt_t', 'uid', 1);
GRANT SELECT ON b_t, stmt_t TO dp_stmt;
SELECT dp_set_budget('dp_stmt', 20, 1e-4);
SET SESSION AUTHORIZATION dp_stmt;
SET dpagg.statement_epsilon = 1;
SELECT dp_count(1, 0, 'laplace') IS NOT NULL AS a, dp_sum(x, 1, 0, 0, 400, 'laplace') IS NOT NULL AS b,
       dp_avg(x, 2, 0, 0, 400, 'laplace') IS NOT NULL AS c FROM b_t;
SET dpagg.statement_delta = 1e-6;
SELECT count(*) >= 0 AS ran
  FROM (SELECT k, dp_count(1, 1e-6) AS a, dp_sum(x, 1, 1e-6, 0, 600) AS b FROM stmt_t GROUP BY k) s
 WHERE a IS NOT NULL AND b IS NOT NULL;
SELECT aggregate, epsilon, delta FROM dp_explain($$SELECT k, dp_count(1, 1e-6), dp_sum(x, 1, 1e-6, 0, 600) FROM stmt_t GROUP BY k$$);
RESET dpagg.statement_delta;
PREPARE two AS SELECT dp_count(1, 0, 'laplace') IS NOT NULL AS a, dp_count(1, 0, 'laplace') IS NOT NULL AS b FROM b_t;
SET plan_cache_mode = force_generic_plan;
EXECUTE two;
SET dpagg.statement_epsilon = 0.5;
SELECT expect_error($$EXECUTE two$$) AS planned_under_another_setting;
DEALLOCATE two;
RESET plan_cache_mode;
-- (an attack review) the merge aggregates are releases too; identical calls with volatile
-- arguments are two releases; a prepared statement's parameters are split at each custom plan,
-- and its generic plan, which cannot be split, is priced out of the plan cache (a forced one is
-- refused when it starts)
SET dpagg.statement_epsilon = 0.01;
SELECT dpagg_merge_count(1::bigint, 1.0, 0, 'laplace') IS NOT NULL AS a, dp_count(1, 0, 'laplace') IS NOT NULL AS b FROM b_t;
SELECT dp_sum(random(), 1, 0, 0, 1, 'laplace') IS NOT NULL AS a, dp_sum(random(), 1, 0, 0, 1, 'laplace') IS NOT NULL AS b FROM b_t;
PREPARE weighted(float8) AS SELECT dp_count($1, 0, 'laplace') IS NOT NULL AS a, dp_sum(x, 1, 0, 0, 400, 'laplace') IS NOT NULL AS b FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT max(seq) AS before FROM dp_ledger \gset
SET SESSION AUTHORIZATION dp_stmt;
EXECUTE weighted(1); EXECUTE weighted(1); EXECUTE weighted(1); EXECUTE weighted(1);
EXECUTE weighted(1); EXECUTE weighted(1); EXECUTE weighted(3);
SET plan_cache_mode = force_generic_plan;
SELECT expect_error($$EXECUTE weighted(1)$$) AS forced_generic;
RESET plan_cache_mode;
DEALLOCATE weighted;
-- (a second attack review) repeated identical calls are split too (one state, counted once); a
-- parallel plan's releases are counted at their partial step; a plan split under the setting and
-- cached (a function's) is refused where the setting does not apply, inside a SECURITY DEFINER
-- function, until DISCARD PLANS
SET dpagg.statement_epsilon = 0.5;
SELECT dp_count(1, 0, 'laplace') IS NOT NULL AS a, dp_count(1, 0, 'laplace') IS NOT NULL AS b FROM b_t;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET plan_cache_mode = force_generic_plan;
PREPARE par(float8) AS SELECT dp_sum(x, $1, 0, 0, 400, 'laplace') IS NOT NULL AS a FROM b_t;
SELECT expect_error($$EXECUTE par(7)$$) AS parallel_generic;
DEALLOCATE par;
RESET plan_cache_mode; RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET SESSION AUTHORIZATION;
CREATE FUNCTION stmt_helper() RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN RETURN (SELECT dp_count(0.1, 0, 'laplace') FROM b_t) IS NOT NULL; END $$;
CREATE FUNCTION stmt_wrapper() RETURNS boolean SECURITY DEFINER LANGUAGE plpgsql AS
  $$ BEGIN RETURN stmt_helper(); END $$;
GRANT EXECUTE ON FUNCTION stmt_wrapper() TO dp_stmt;
SET SESSION AUTHORIZATION dp_stmt;
SET dpagg.statement_epsilon = 0.05;
SELECT stmt_helper() AS split_to_the_setting;
SELECT expect_error($$SELECT stmt_wrapper()$$) AS cached_split_in_a_definer;
DISCARD PLANS;
SELECT stmt_wrapper() AS as_its_owner_wrote;
RESET dpagg.statement_epsilon;
SELECT epsilon FROM dp_ledger ORDER BY seq DESC LIMIT 2;
SET dpagg.statement_epsilon = 0.5;
SELECT expect_error($$SELECT k, dp_count(1, 0, 'laplace') FROM b_t GROUP BY GROUPING SETS ((k), ())$$) AS grouping_sets;
SET dpagg.selection_epsilon = 0.1;
SELECT expect_error($$SELECT k, dp_count(1, 1e-6) FROM stmt_t GROUP BY k$$) AS selection_setting;
RESET dpagg.selection_epsilon;
RESET dpagg.statement_epsilon;
SELECT dp_count(1, 0, 'laplace') IS NOT NULL AS as_written FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT dense_rank() OVER (ORDER BY statement_id) AS statement, aggregate, round(epsilon::numeric, 6) AS epsilon,
       delta, mechanism LIKE 'selection%' AS selection
  FROM dp_ledger WHERE role = 'dp_stmt' ORDER BY seq;
SELECT dense_rank() OVER (ORDER BY statement_id) AS statement, round(sum(epsilon)::numeric, 9) AS epsilon,
       sum(delta) AS delta
  FROM dp_ledger WHERE role = 'dp_stmt' GROUP BY statement_id ORDER BY statement_id;
SELECT round(epsilon::numeric, 6) AS weighted_epsilon, count(*) FROM dp_ledger
 WHERE role = 'dp_stmt' AND seq > :before GROUP BY 1 ORDER BY 1;
REVOKE SELECT ON b_t, stmt_t FROM dp_stmt;
DROP FUNCTION stmt_wrapper(), stmt_helper();
DROP TABLE stmt_t;
DROP ROLE dp_stmt;

-- From a walk-through: a caller's dpagg.statement_epsilon does not rescale the epsilons written in
-- a SECURITY DEFINER function (its owner's choice); dp_explain counts as the charge does (identical
-- calls of a level are one release, each grouping set is one, a release in a sub-select is marked
-- as charged per execution); a budget given again after a drop, below what was spent, gets its
-- NOTICE; a budget on a group role says its members are not charged to it; a correlated subquery
-- refused at a later execution says the earlier ones stay charged.
CREATE ROLE dp_walk LOGIN;
CREATE ROLE dp_walk_group;
GRANT dp_walk_group TO dp_walk;
GRANT SELECT ON b_t TO dp_walk;
SELECT dp_set_budget('dp_walk', 0.35, 0);
SELECT dp_set_budget('dp_walk_group', 1);
CREATE FUNCTION walk_wrapper() RETURNS double precision SECURITY DEFINER
  LANGUAGE sql AS $$ SELECT dp_count(0.1, 0, 'laplace') FROM b_t $$;
GRANT EXECUTE ON FUNCTION walk_wrapper() TO dp_walk;
SET SESSION AUTHORIZATION dp_walk;
SET dpagg.statement_epsilon = 0.3;
SELECT walk_wrapper() IS NOT NULL AS released;
RESET dpagg.statement_epsilon;
SELECT epsilon FROM dp_ledger WHERE role = 'dp_walk';
SELECT expect_error($$SELECT v.k, (SELECT dp_count(0.1, 0, 'laplace') FROM b_t WHERE b_t.k = v.k)
                       FROM (VALUES (1), (2), (3), (4)) v(k)$$) AS later_execution_refused;
SELECT count(*) AS charged_before_the_refusal FROM dp_ledger WHERE role = 'dp_walk';
RESET SESSION AUTHORIZATION;
SELECT aggregate, epsilon, details->'grouping_sets_counted' AS sets, details->'per_execution' AS per_execution
  FROM dp_explain($$SELECT k, dp_count(0.2, 0, 'laplace') FROM b_t GROUP BY ROLLUP (k)$$) WHERE aggregate = 'total';
SELECT aggregate, epsilon FROM dp_explain($$SELECT dp_count(0.06, 0, 'laplace'), dp_count(0.06, 0, 'laplace') FROM b_t$$);
SELECT aggregate, epsilon, details->'per_execution' AS per_execution
  FROM dp_explain($$SELECT v.k, (SELECT dp_count(0.01, 0, 'laplace') FROM b_t WHERE b_t.k = v.k) FROM (VALUES (1), (2)) v(k)$$)
 WHERE aggregate = 'total';
SELECT dp_drop_budget('dp_walk');
SELECT dp_set_budget('dp_walk', 0.1);
DROP FUNCTION walk_wrapper();
REVOKE SELECT ON b_t FROM dp_walk;
DROP ROLE dp_walk;
DROP ROLE dp_walk_group;

-- A role created in the same transaction gets no budget: the record is not transactional, and a
-- ROLLBACK would leave an account for an OID no role has (a walk-through found one, nameless).
BEGIN;
CREATE ROLE dp_ghost LOGIN;
SELECT expect_error($$SELECT dp_set_budget('dp_ghost', 3, 1e-6)$$) AS created_here;
ROLLBACK;
SELECT count(*) AS nameless_accounts FROM dp_budgets WHERE role IS NULL;

-- What the analyst cannot do.
CREATE SCHEMA dp_analyst_s AUTHORIZATION dp_analyst;
SET SESSION AUTHORIZATION dp_analyst;
SELECT expect_error($$SELECT dp_set_budget('dp_analyst', 1000, 0.1)$$);
SELECT expect_error($$SELECT dp_drop_budget('dp_analyst')$$);
SELECT expect_error($$SET dpagg.require_budget = off$$);
SELECT expect_error($$SET dpagg.limit_superusers = on$$);
SELECT expect_error($$SELECT set_config('dpagg.require_budget', 'off', false)$$);
SELECT expect_error($$CREATE FUNCTION dp_analyst_s.my_set(regrole, float8, float8, text, float8)
                      RETURNS void AS '$libdir/dpagg', 'dpagg_set_budget' LANGUAGE C$$);
SELECT expect_error($$SELECT dpagg_sum_final(NULL::dpagg_state)$$);
-- it sees only its own rows of the ledger and of the budgets
SELECT DISTINCT role FROM dp_ledger;
SELECT DISTINCT role FROM dpagg_journal();
SELECT role FROM dp_budgets;
SELECT count(*) > 0 AS own_rows_visible FROM dp_ledger;
RESET SESSION AUTHORIZATION;

-- Releases happen only where the login role asked for them.  A maintenance command (ANALYZE,
-- CREATE INDEX, REINDEX, REFRESH MATERIALIZED VIEW, ... a security-restricted operation) runs the
-- object owner's code in the session of whoever runs the command: a DBA's ANALYZE would otherwise
-- charge (and, when superusers were unlimited, not even limit) the releases of an analyst's trojan
-- statistics expression, evaluated once per sampled row; averaging them in pg_stats_ext_exprs
-- gives the exact value.  Refused (42501) unless the owner is the login role itself.
SET SESSION AUTHORIZATION dp_analyst;
CREATE TABLE dp_analyst_s.mine AS SELECT g::float8 AS x FROM generate_series(1, 5) g;
CREATE FUNCTION dp_analyst_s.leak(float8) RETURNS bigint LANGUAGE sql IMMUTABLE AS
  $$ SELECT dp_count(0.5, 0) FROM dp_analyst_s.mine $$;
CREATE STATISTICS dp_analyst_s.leak_stats ON (dp_analyst_s.leak(x)) FROM dp_analyst_s.mine;
CREATE MATERIALIZED VIEW dp_analyst_s.mv AS SELECT dp_count(0.5, 0) AS c FROM dp_analyst_s.mine WITH NO DATA;
RESET SESSION AUTHORIZATION;
SELECT max(seq) AS mark FROM dp_ledger \gset
SELECT expect_error($$ANALYZE dp_analyst_s.mine$$);
SELECT expect_error($$ANALYZE$$) AS database_wide;
SELECT expect_error($$CREATE INDEX ON dp_analyst_s.mine ((dp_analyst_s.leak(x)))$$);
SELECT expect_error($$REFRESH MATERIALIZED VIEW dp_analyst_s.mv$$);
SELECT count(*) AS charged_by_maintenance FROM dp_ledger WHERE seq > :mark;
CREATE VIEW leak_stats_built AS SELECT count(*) AS expression_stats_built
  FROM pg_statistic_ext_data d JOIN pg_statistic_ext s ON s.oid = d.stxoid
 WHERE s.stxname = 'leak_stats' AND d.stxdexpr IS NOT NULL;
SELECT * FROM leak_stats_built;
-- The owner, logged in as itself, may: it is charged (ANALYZE: per sampled row, 5 rows).
SET SESSION AUTHORIZATION dp_analyst;
ANALYZE dp_analyst_s.mine;
RESET SESSION AUTHORIZATION;
SELECT * FROM leak_stats_built;
SELECT role, aggregate, count(*) >= 5 AS charged_per_sampled_row FROM dp_ledger WHERE seq > :mark GROUP BY role, aggregate;
SELECT max(seq) AS mark FROM dp_ledger \gset
SET SESSION AUTHORIZATION dp_analyst;
REFRESH MATERIALIZED VIEW dp_analyst_s.mv;
SELECT c IS NOT NULL AS refreshed FROM dp_analyst_s.mv;
RESET SESSION AUTHORIZATION;
SELECT role, aggregate, count(*) AS charges FROM dp_ledger WHERE seq > :mark GROUP BY role, aggregate;
DROP VIEW leak_stats_built;
-- So may a superuser on its own objects (charged to it).
CREATE TABLE su_t AS SELECT g::float8 AS x FROM generate_series(1, 3) g;
CREATE FUNCTION su_leak(float8) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT dp_count(0.5, 0) FROM su_t $$;
CREATE INDEX su_t_leak ON su_t ((su_leak(x)));
SELECT count(*) AS charged_to_superuser FROM dp_ledger WHERE seq > :mark AND role = current_user;
DROP TABLE su_t;
DROP FUNCTION su_leak(float8);
-- Nor through a DBA's SECURITY DEFINER function: inside the analyst's expression it runs as the
-- DBA, who is also the login role, but the code asking is the analyst's.  Refused whoever runs
-- the command, the owner included (the definer's switch of user is what is refused).
CREATE FUNCTION dp_headcount() RETURNS bigint LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp AS $$ SELECT public.dp_count(0.5::float8, 0::float8) FROM public.b_t $$;
REVOKE ALL ON FUNCTION dp_headcount() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_headcount() TO dp_analyst;
SET SESSION AUTHORIZATION dp_analyst;
SELECT dp_headcount() IS NOT NULL AS wrapper_works_in_a_query;
CREATE TABLE dp_analyst_s.mine2 AS SELECT g::float8 AS x FROM generate_series(1, 5) g;
CREATE FUNCTION dp_analyst_s.leak2(float8) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT public.dp_headcount() $$;
CREATE STATISTICS dp_analyst_s.leak2_stats ON (dp_analyst_s.leak2(x)) FROM dp_analyst_s.mine2;
SELECT expect_error($$ANALYZE dp_analyst_s.mine2$$) AS by_owner;
RESET SESSION AUTHORIZATION;
SELECT max(seq) AS mark FROM dp_ledger \gset
SELECT expect_error($$ANALYZE dp_analyst_s.mine2$$) AS by_superuser;
SELECT count(*) AS charged_through_definer FROM dp_ledger WHERE seq > :mark;
-- A parallel worker of a client session may release (here the whole query runs in one).
SET force_parallel_mode = on;
SET SESSION AUTHORIZATION dp_analyst;
SELECT dp_count(0.5, 0) IS NOT NULL AS released_in_worker FROM b_t;
RESET SESSION AUTHORIZATION;
RESET force_parallel_mode;
SELECT role, count(*) AS charges, bool_and(pid <> pg_backend_pid()) AS in_a_worker
  FROM dp_ledger WHERE seq > :mark GROUP BY role;
DROP FUNCTION dp_headcount();
DROP STATISTICS dp_analyst_s.leak_stats, dp_analyst_s.leak2_stats;
DROP MATERIALIZED VIEW dp_analyst_s.mv;
DROP TABLE dp_analyst_s.mine, dp_analyst_s.mine2;
DROP FUNCTION dp_analyst_s.leak(float8), dp_analyst_s.leak2(float8);

-- The SECURITY DEFINER recipe (docs/guides/budgets.md).  The old shape -- unqualified dp_count(0.1, ...) under
-- search_path = pg_catalog, public -- is hijacked by an analyst who may create functions in
-- public: public.dp_count(numeric, numeric, text) matches the numeric literals better than the
-- aggregate and runs with the definer's rights (here it returns a secret salary, negated).
CREATE TABLE dp_secret AS SELECT 70000 + g AS salary FROM generate_series(1, 30) g;
CREATE FUNCTION dp_headcount_old() RETURNS bigint LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public AS $$ SELECT dp_count(0.1, 0, 'laplace') FROM dp_secret $$;
REVOKE ALL ON FUNCTION dp_headcount_old() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_headcount_old() TO dp_analyst;
GRANT CREATE ON SCHEMA public TO dp_analyst;
SET SESSION AUTHORIZATION dp_analyst;
SELECT expect_error($$SELECT max(salary) FROM dp_secret$$);
CREATE FUNCTION public.dp_count(numeric, numeric, text) RETURNS bigint LANGUAGE sql AS
  $$ SELECT -max(salary) FROM public.dp_secret $$;
SELECT dp_headcount_old() AS hijacked;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS charged_for_hijack FROM dp_ledger WHERE seq > :mark AND query LIKE '%dp_headcount_old%';
DROP FUNCTION public.dp_count(numeric, numeric, text);
DROP FUNCTION dp_headcount_old();
DROP TABLE dp_secret;
-- The new recipe: dpagg in a schema of its own (here in a database of its own, since this one
-- has it in public), every call schema-qualified with float8 literals, search_path pinned to
-- pg_catalog, pg_temp.  The analyst's look-alikes in public, exact types included, are not
-- found, and it cannot create functions in schema dpagg.
\set regress_db :DBNAME
CREATE DATABASE dp_recipe;
\c dp_recipe
CREATE SCHEMA dpagg;
CREATE EXTENSION dpagg SCHEMA dpagg;
GRANT USAGE ON SCHEMA dpagg TO PUBLIC;
GRANT CREATE ON SCHEMA public TO dp_analyst;
CREATE TABLE public.dp_secret AS SELECT 70000 + g AS salary FROM generate_series(1, 30) g;
CREATE FUNCTION public.dp_headcount() RETURNS bigint LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp
  AS $$ SELECT dpagg.dp_count(0.1::float8, 0::float8, 'laplace'::text) FROM public.dp_secret $$;
REVOKE ALL ON FUNCTION public.dp_headcount() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.dp_headcount() TO dp_analyst;
SELECT max(seq) AS mark FROM dpagg.dp_ledger \gset
SET SESSION AUTHORIZATION dp_analyst;
CREATE FUNCTION public.dp_count(numeric, numeric, text) RETURNS bigint LANGUAGE sql AS
  $$ SELECT -max(salary) FROM public.dp_secret $$;
CREATE FUNCTION public.dp_count(float8, float8, text) RETURNS bigint LANGUAGE sql AS
  $$ SELECT -max(salary) FROM public.dp_secret $$;
CREATE FUNCTION dpagg.dp_count(numeric, numeric, text) RETURNS bigint LANGUAGE sql AS $$ SELECT -1::bigint $$;
SELECT public.dp_headcount() >= 0 AS noisy_count_not_hijacked;
RESET SESSION AUTHORIZATION;
SELECT role, aggregate, epsilon FROM dpagg.dp_ledger WHERE seq > :mark;
\c :regress_db
DROP DATABASE dp_recipe;
REVOKE CREATE ON SCHEMA public FROM dp_analyst;

-- The ledger's aggregate label is the full name, with the number of grouping sets.
SET SESSION AUTHORIZATION dp_analyst;
SELECT k, dp_sum_vector(ARRAY[x], 1, 0.5, 1e-7, 400) IS NOT NULL AS released FROM b_t GROUP BY ROLLUP (k) ORDER BY k;
RESET SESSION AUTHORIZATION;
SELECT aggregate, epsilon FROM dp_ledger WHERE role = 'dp_analyst' ORDER BY seq DESC LIMIT 1;

-- Even a superuser's aggregate cannot feed a forged state to a final function: only dpagg's own
-- transition functions may build the states a release is drawn from.
CREATE FUNCTION forge(dpagg_state, int) RETURNS dpagg_state LANGUAGE sql AS
  $$ SELECT '1:2:5:0:10'::dpagg_state $$;
CREATE AGGREGATE forged(int) (sfunc = forge, stype = dpagg_state, finalfunc = dpagg_sum_final,
                              combinefunc = dpagg_combine);
SELECT expect_error($$SELECT forged(1)$$);
DROP AGGREGATE forged(int);
DROP FUNCTION forge(dpagg_state, int);

-- Another role sees none of it; pg_read_all_stats members (auditors) see everything.
SELECT dp_set_budget('dp_other', 1, 0);
SET SESSION AUTHORIZATION dp_other;
SELECT count(*) AS analyst_rows_seen_by_other FROM dp_ledger WHERE role = 'dp_analyst';
RESET SESSION AUTHORIZATION;
GRANT pg_read_all_stats TO dp_other;
SET SESSION AUTHORIZATION dp_other;
SELECT count(*) > 0 AS auditor_sees_analyst FROM dp_ledger WHERE role = 'dp_analyst';
-- auditors see the global sequence number (other roles' events fall between the analyst's) ...
SELECT max(seq) > count(*) AS auditor_sees_global_seq FROM dpagg_journal() WHERE role = 'dp_analyst';
RESET SESSION AUTHORIZATION;
-- ... any other role its own rows numbered 1, 2, ... in both views together: the global number
-- would tell how many releases and budget changes other roles made.
SET SESSION AUTHORIZATION dp_analyst;
SELECT min(seq) = 1 AND max(seq) = count(*) AND count(DISTINCT seq) = count(*) AS own_rows_numbered
  FROM dpagg_journal();
SELECT (SELECT count(*) FROM dp_ledger) + (SELECT count(*) FROM dp_budget_log)
       = (SELECT max(seq) FROM dpagg_journal()) AS views_share_the_numbering;
RESET SESSION AUTHORIZATION;
-- After ALTER ROLE ... RENAME the ledger shows the role's current name (actor: the name then).
ALTER ROLE dp_analyst RENAME TO dp_analyst_renamed;
SELECT count(*) FILTER (WHERE role = 'dp_analyst_renamed') = count(*) AS current_name,
       count(*) FILTER (WHERE actor = 'dp_analyst') > 0 AS actor_as_recorded
  FROM dp_ledger WHERE role_oid = 'dp_analyst_renamed'::regrole;
SELECT DISTINCT role FROM dp_budget_log WHERE role_oid = 'dp_analyst_renamed'::regrole;
ALTER ROLE dp_analyst_renamed RENAME TO dp_analyst;

-- Superusers are limited like anyone by default (back to it for this part): a superuser's
-- release is charged to its budget (limited) ...
ALTER SYSTEM RESET dpagg.limit_superusers;
SELECT pg_reload_conf();
\c
SHOW dpagg.limit_superusers;
CREATE ROLE dp_super SUPERUSER;
SELECT dp_set_budget('dp_super', 1, 0);
SET SESSION AUTHORIZATION dp_super;
SELECT dp_count(0.5, 0) IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT limited, epsilon FROM dp_ledger WHERE role = 'dp_super';
-- ... refused when over it: what a superuser released while unlimited counts (the suite's
-- superuser released delta 20 in 50_statistics) ...
SELECT expect_error($$SELECT dp_count(0.5, 0) FROM b_t$$) LIKE '53DP1: privacy budget of role % exhausted%' AS overspent;
-- ... and refused without a budget.
SELECT dp_drop_budget('dp_super');
SET SESSION AUTHORIZATION dp_super;
SELECT expect_error($$SELECT dp_count(0.5, 0) FROM b_t$$);
RESET SESSION AUTHORIZATION;
-- Unlimited (as the rest of the suite runs), a superuser's releases are recorded, not limited.
ALTER SYSTEM SET dpagg.limit_superusers = off;
SELECT pg_reload_conf();
\c
SHOW dpagg.limit_superusers;
SET SESSION AUTHORIZATION dp_super;
SELECT dp_count(0.5, 0) IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
SELECT limited, epsilon FROM dp_ledger WHERE role = 'dp_super' ORDER BY seq;
DROP ROLE dp_super;
-- With dpagg.require_budget off (ALTER SYSTEM and a reload; a new connection made after the
-- reload sees it), a role without a budget releases, recorded as not limited.
SELECT dp_drop_budget('dp_analyst'), dp_drop_budget('dp_analyst') AS again;
ALTER SYSTEM SET dpagg.require_budget = off;
SELECT pg_reload_conf();
\c
SHOW dpagg.require_budget;
SET SESSION AUTHORIZATION dp_analyst;
SELECT dp_count(0.5, 0) IS NOT NULL AS released FROM b_t;
RESET SESSION AUTHORIZATION;
ALTER SYSTEM RESET dpagg.require_budget;
SELECT pg_reload_conf();
\c
SHOW dpagg.require_budget;
SELECT limited FROM dp_ledger WHERE role = 'dp_analyst' ORDER BY seq DESC LIMIT 1;
SET SESSION AUTHORIZATION dp_analyst;
SELECT expect_error($$SELECT dp_count(0.5, 0) FROM b_t$$);
RESET SESSION AUTHORIZATION;
SELECT event, role, actor, epsilon, delta, method, max_release_epsilon
  FROM dp_budget_log WHERE role IN ('dp_analyst', 'dp_other') ORDER BY seq;

DROP TABLE b_t;
DROP FUNCTION charges(text), spent(text), released_by_function();
REVOKE pg_read_all_stats FROM dp_other;
-- DROP ROLE removes the role's account (a later role may get the same OID); it is logged.
SELECT count(*) AS accounts_before FROM dp_budgets WHERE role_oid = 'dp_z'::regrole;
CREATE TEMP TABLE z_oid AS SELECT 'dp_z'::regrole::oid AS oid;
BEGIN;
DROP ROLE dp_z;
ROLLBACK;
SELECT count(*) AS after_rollback FROM dp_budgets WHERE role = 'dp_z';
DROP ROLE dp_z;
SELECT count(*) AS after_drop FROM dp_budgets b JOIN z_oid z ON b.role_oid = z.oid;
SELECT event FROM dp_budget_log b JOIN z_oid z ON b.role_oid = z.oid ORDER BY seq DESC LIMIT 1;
-- a dropped role's rows keep the name they were recorded with (a later role given the same OID
-- would neither see them nor lend them its name)
SELECT DISTINCT role FROM dp_ledger b JOIN z_oid z ON b.role_oid = z.oid;
DROP SCHEMA dp_analyst_s;
DROP ROLE dp_analyst, dp_other;

-- What a DBA reads: three releases of 0.1 show 0.3 spent and 0.7 left (not 0.30000000000000004);
-- the exact accounting underneath still lets ten releases of 0.1 fit a budget of 1.0.
CREATE ROLE dp_tenth LOGIN;
CREATE TABLE tenth_t AS SELECT 1::float8 AS x;
GRANT SELECT ON tenth_t TO dp_tenth;
SELECT dp_set_budget('dp_tenth', 1.0, 0);
SET SESSION AUTHORIZATION dp_tenth;
SELECT count(*) FROM (SELECT (SELECT dp_count(0.1, 0, 'laplace') FROM tenth_t WHERE g > 0) AS c
                      FROM generate_series(1, 3) g) s WHERE c >= 0;
SELECT epsilon_spent, epsilon_remaining, releases FROM dp_budgets;
SELECT count(*) FROM (SELECT (SELECT dp_count(0.1, 0, 'laplace') FROM tenth_t WHERE g > 0) AS c
                      FROM generate_series(1, 7) g) s WHERE c >= 0;
SELECT epsilon_spent, epsilon_remaining, releases FROM dp_budgets;
SELECT expect_error($$SELECT dp_count(0.1, 0, 'laplace') FROM tenth_t$$) LIKE '53DP1%' AS eleventh_refused;
RESET SESSION AUTHORIZATION;
DROP TABLE tenth_t;
DROP ROLE dp_tenth;

-- A scrollable cursor over a grouped release on one node: PostgreSQL's planner puts a Material node
-- on top, so fetching back and forth reads the values released once, for one charge (dpagg also
-- refuses, when the executor starts, any plan whose backward scan would reach a releasing
-- aggregation: Citus builds its coordinator's plans without that node; tests/citus).
CREATE TABLE scroll_t AS SELECT g::float8 AS x, g % 4 AS k FROM generate_series(1, 400) g;
SELECT count(*) AS before_scroll FROM dp_ledger WHERE role = current_user \gset
BEGIN;
DECLARE sc SCROLL CURSOR FOR SELECT k, dp_sum(x, 1, 1e-5, 0, 400) FROM scroll_t GROUP BY k;
FETCH FORWARD 1 FROM sc \gset z_
FETCH FORWARD 1 FROM sc \gset a_
FETCH BACKWARD 1 FROM sc \gset y_
FETCH FORWARD 1 FROM sc \gset b_
COMMIT;
SELECT :'a_dp_sum' = :'b_dp_sum' AS same_value_again, (SELECT count(*) FROM dp_ledger WHERE role = current_user) - :before_scroll AS charged,
       :'z_dp_sum' = :'y_dp_sum' AS first_again;
DROP TABLE scroll_t;

-- A statement's releases are admitted together before any is charged: two releases of 1 do not fit
-- a budget of 1.5 together, so the statement is refused with nothing charged (an attack review
-- found the first one charged and the second refused, nothing released).
CREATE ROLE dp_pair LOGIN;
CREATE TABLE pair_t AS SELECT g::float8 AS x FROM generate_series(1, 10) g;
GRANT SELECT ON pair_t TO dp_pair;
SELECT dp_set_budget('dp_pair', 1.5, 0);
SET SESSION AUTHORIZATION dp_pair;
SELECT expect_error($$SELECT dp_count(1, 0, 'laplace'), dp_sum(x, 1, 0, 0, 10, 'laplace') FROM pair_t$$) LIKE '53DP1%' AS pair_refused;
SELECT releases AS after_refusal FROM dp_budgets;
SELECT dp_count(1, 0, 'laplace') >= 0 AS one_fits FROM pair_t;
SELECT releases AS after_one FROM dp_budgets;
RESET SESSION AUTHORIZATION;
DROP TABLE pair_t;
DROP ROLE dp_pair;

-- A grouped level whose WHERE is false whatever the data forms no group and releases nothing:
-- not charged (its plan shows it: a one-time filter false below the Agg). A level that finds no
-- row by the data (x > 1e9), and one without GROUP BY (it releases one noisy value of the empty
-- set), are charged; so is an empty grouping set, which makes a group of no rows.
CREATE TABLE nogroup_t AS SELECT g % 5 AS k, g::float8 AS x FROM generate_series(1, 50) g;
SELECT count(*) AS before FROM dp_ledger \gset
SELECT k, dp_count(1, 1e-5) FROM nogroup_t WHERE false GROUP BY k;
SELECT k, dp_sum(x, 1, 1e-5, 0, 10), dp_percentile(x, 0.5, 1, 0, 0, 10) FROM nogroup_t WHERE 1 = 2 AND x > 0 GROUP BY k ORDER BY k;
SELECT count(*) - :before AS charged_for_no_group FROM dp_ledger;
SELECT count(*) AS before FROM dp_ledger \gset
SELECT k, dp_count(1, 1e-5) FROM nogroup_t WHERE x > 1e9 GROUP BY k;
SELECT dp_count(1, 1e-5) IS NOT NULL AS released FROM nogroup_t WHERE false;
SELECT count(c) AS groups FROM (SELECT k, dp_count(1, 1e-5) AS c FROM nogroup_t WHERE false GROUP BY GROUPING SETS ((k), ())) q;
SELECT count(*) - :before AS charged_when_a_group_may_form FROM dp_ledger;
DROP TABLE nogroup_t;
-- A mistyped dpagg.default_mechanism in postgresql.conf (here through ALTER SYSTEM, which
-- validates as the file is read) is accepted with a WARNING, and every release that would use it
-- is refused with the setting named, nothing charged; a release naming its mechanism works.
SET client_min_messages = error;  -- the WARNING comes whenever this backend reloads
ALTER SYSTEM SET dpagg.default_mechanism = 'laplase';
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
\c
SHOW dpagg.default_mechanism;
CREATE TABLE typo_t AS SELECT g::float8 AS x FROM generate_series(1, 10) g;
SELECT count(*) AS before FROM dp_ledger \gset
SELECT expect_error($$SELECT dp_count(1, 0) FROM typo_t$$) AS default_refused;
SELECT dp_count(1, 0, 'laplace') IS NOT NULL AS named_works FROM typo_t;
SELECT count(*) - :before AS charged FROM dp_ledger;
ALTER SYSTEM RESET dpagg.default_mechanism;
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
\c
SHOW dpagg.default_mechanism;
DROP TABLE typo_t;
