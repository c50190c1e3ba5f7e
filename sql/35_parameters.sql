-- The privacy parameters are read once per query, before any row, and every group and the
-- charge use those values (docs/guides/privacy-semantics.md, "The privacy parameters").  Reproductions of the attacks
-- on them (parameters that change while a query runs, plan shapes, parameters read from tables) and what still works.
CREATE TABLE p_t AS SELECT g % 10 AS g, g::float8 AS x FROM generate_series(0, 999) g;
ANALYZE p_t;
-- releases(): how many releases the current role has in the ledger; eps(): the epsilon of its
-- last release.
CREATE FUNCTION releases() RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(*) FROM dp_ledger WHERE role = current_user $$;
CREATE FUNCTION last_release() RETURNS text LANGUAGE sql AS
  $$ SELECT format('%s eps=%s delta=%s %s', aggregate, epsilon, delta, mechanism)
       FROM dp_ledger WHERE role = current_user ORDER BY seq DESC LIMIT 1 $$;

-- 1. A parameter that changes between groups (sorted aggregation finalizes group 0 first).
SET enable_hashagg = off;
SELECT expect_error($$
  SELECT g, dp_count(set_config('adv.eps', CASE WHEN g = 0 THEN '0.001' ELSE '1000' END, false),
                     current_setting('adv.eps')::float8, 1e-6, 'laplace')
  FROM p_t GROUP BY g ORDER BY g$$);
-- ... through a STABLE user function that answers 0.001 and then 1e6,
CREATE FUNCTION flip_eps() RETURNS float8 LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM set_config('adv.calls', (coalesce(nullif(current_setting('adv.calls', true), ''), '0')::int + 1)::text, false);
  RETURN CASE WHEN current_setting('adv.calls')::int = 1 THEN 0.001 ELSE 1e6 END;
END $$;
SELECT expect_error($$SELECT g, dp_count(flip_eps(), 1e-6, 'laplace') FROM p_t GROUP BY g$$);
-- ... one that lies about its volatility (declared IMMUTABLE, reads a setting) and takes a
-- column, so that it is not folded into a constant when planned,
CREATE FUNCTION lying_eps(float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS
  $$ BEGIN RETURN current_setting('adv.eps')::float8; END $$;
SELECT expect_error($$SELECT g, dp_count(lying_eps(g), 1e-6, 'laplace') FROM p_t GROUP BY g$$);
-- (without arguments the planner folds it into one constant: one value for the whole query,
-- the one charged)
SET adv.eps = '2';
CREATE FUNCTION lying_eps() RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS
  $$ BEGIN RETURN current_setting('adv.eps')::float8; END $$;
SELECT count(*) AS groups, bool_and(c >= 0) AS released
FROM (SELECT g, dp_count(set_config('adv.eps', '1000', false), lying_eps(), 1e-6, 'laplace') AS c
      FROM p_t GROUP BY g) s;
SELECT last_release();
-- ... an IMMUTABLE SQL function of a query parameter (not inlined into a constant),
CREATE FUNCTION lying_sql(float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS
  $$ SELECT $1 * current_setting('adv.scale')::float8 $$;
PREPARE lying_p(float8) AS SELECT g, dp_count(lying_sql($1), 1e-6, 'laplace') FROM p_t GROUP BY g;
SET plan_cache_mode = force_generic_plan;
SELECT expect_error($$EXECUTE lying_p(1)$$);
-- ... a built-in text round trip whose output depends on a setting (extra_float_digits),
PREPARE roundtrip_p(float8) AS
  SELECT g, dp_count(set_config('extra_float_digits', CASE WHEN g = 0 THEN '-15' ELSE '1' END, false),
                     $1::text::float8, 1e-6, 'laplace') FROM p_t GROUP BY g;
SELECT expect_error($$EXECUTE roundtrip_p(0.00123456789)$$);
RESET extra_float_digits;
-- ... a STABLE function that reads a table (a subquery in disguise),
CREATE TABLE p_secret AS SELECT 0.5::float8 AS e;
CREATE FUNCTION eps_from_table() RETURNS float8 LANGUAGE sql STABLE AS $$ SELECT e FROM p_secret $$;
SELECT expect_error($$SELECT dp_count(eps_from_table(), 0) FROM p_t$$);
-- ... or the mechanism through a setting read mid-query.
SELECT expect_error($$SELECT dp_sum(x, 1, 1e-6, 1000, current_setting('adv.mech')) FROM p_t$$);
-- Nothing of the refused queries was charged.
SELECT releases() AS releases_before \gset

-- What works: constants, query parameters (generic and custom plans), PL/pgSQL variables and
-- built-in arithmetic of them.  Every group is released under the charged epsilon.
PREPARE ok_p(float8, float8) AS
  SELECT count(*) AS groups, bool_and(c BETWEEN 50 AND 150) AS near
  FROM (SELECT g, dp_count(1.0 / $1, $2, 'laplace') AS c FROM p_t GROUP BY g) s;
EXECUTE ok_p(0.5, 0);
SELECT releases() - :releases_before AS charges, last_release();
RESET plan_cache_mode;
EXECUTE ok_p(0.25, 0);
SELECT last_release();
DO $$
DECLARE e float8 := 0.75; n bigint;
BEGIN
  SELECT count(*) INTO n FROM (SELECT g, dp_count(e, 0, 'laplace') AS c FROM p_t GROUP BY g) s
  WHERE c >= 0;
  RAISE NOTICE 'groups %', n;
END $$;
SELECT last_release();
-- (An answer nobody reads is not computed: the planner drops unused subquery outputs, so
-- nothing is released and nothing charged.)
SELECT releases() AS r \gset
SELECT count(*) AS groups FROM (SELECT g, dp_count(1.0, 0, 'laplace') FROM p_t GROUP BY g) s;
SELECT releases() - :r AS charges;
RESET enable_hashagg;

-- The default mechanism is read when the query starts: a set_config() in the value argument
-- (run at the first row) cannot choose it from the data.
SET dpagg.default_mechanism = 'laplace';
SELECT dp_count(set_config('dpagg.default_mechanism', 'analytic_gaussian', false), 1, 1e-6) >= 0 AS released
FROM p_t;
SELECT last_release();
RESET dpagg.default_mechanism;

-- 2. dp_sum_vector whose dimension changes between groups: refused, the server stays up.
SET enable_hashagg = off;
SELECT expect_error($$
  SELECT g, array_length(dp_sum_vector(
           CASE WHEN set_config('adv.dim', CASE WHEN g = 0 THEN '1' ELSE '10000' END, false) IS NOT NULL
                THEN array_fill(1.0::float8, ARRAY[10000]) END,
           current_setting('adv.dim')::int, 1.0, 1e-6, 1.0, 'gaussian'), 1)
  FROM p_t GROUP BY g ORDER BY g$$);
-- Rows longer than the dimension in every group of a sorted aggregation: each answer has the
-- call's dimension.
SELECT count(*) AS groups, bool_and(n = 2) AS dims
FROM (SELECT g, array_length(dp_sum_vector(array_fill(1.0::float8, ARRAY[10000]), 2, 1e6, 1e-6, 1.0,
                                           'gaussian'), 1) AS n
      FROM p_t GROUP BY g) s;
RESET enable_hashagg;
SELECT 1 AS still_up;

-- 4. Partitioned tables with partitionwise aggregation: empty input gives a noisy answer and
-- one charge, like rows do; a GROUP BY over partitions is one release, charged once.
CREATE TABLE p_part (k text, v float8) PARTITION BY LIST (k);
CREATE TABLE p_part_a PARTITION OF p_part FOR VALUES IN ('a');
CREATE TABLE p_part_b PARTITION OF p_part FOR VALUES IN ('b');
CREATE TABLE p_part_c PARTITION OF p_part FOR VALUES IN ('c', 'secret_project');
INSERT INTO p_part SELECT (ARRAY['a', 'b', 'c'])[1 + g % 3], g % 300 FROM generate_series(1, 60000) g;
ANALYZE p_part;
SET enable_partitionwise_aggregate = on;
SELECT releases() AS r0 \gset
SELECT dp_count(1.0, 0, 'laplace') >= 0 AS empty_ok FROM p_part WHERE k = 'secret_project';
SELECT dp_count(1.0, 0, 'laplace') >= 0 AS rows_ok FROM p_part WHERE k = 'a';
SELECT dp_sum(v, 1.0, 0, 0, 300, 'laplace') IS NOT NULL AS empty_sum_ok,
       dp_avg(v, 1.0, 1e-6, 0, 300) BETWEEN 0 AND 300 AS empty_avg_ok,
       dp_sum_vector(ARRAY[v], 1, 1.0, 1e-6, 1.0) IS NOT NULL AS empty_vector_ok
FROM p_part WHERE k = 'secret_project';
SELECT count(*) AS groups, bool_and(c >= 0) AS released
FROM (SELECT k, dp_count(1.0, 0, 'laplace') AS c FROM p_part GROUP BY k) s;
SELECT count(*) AS groups, bool_and(c >= 0) AS released
FROM (SELECT v > 150, dp_count(1.0, 0, 'laplace') AS c FROM p_part GROUP BY 1) s;
-- 1 + 1 + 3 + 1 + 1 releases, each charged once (not once per partition).
SELECT releases() - :r0 AS charges;
-- The plans use one aggregation, not one per partition.
EXPLAIN (COSTS OFF) SELECT k, dp_count(1.0, 0, 'laplace') FROM p_part GROUP BY k;
-- A plain aggregate is still planned partitionwise (only dpagg's queries are re-planned).
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM p_part GROUP BY k;
-- Parallel partial aggregation over an empty partitioned input: a noisy 0 and one charge.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_partitionwise_aggregate = off;
EXPLAIN (COSTS OFF) SELECT dp_count(1.0, 0, 'laplace') FROM p_part WHERE v + 1 < 0;
SELECT releases() AS r1 \gset
SELECT dp_count(1.0, 0, 'laplace') >= 0 AS parallel_empty_ok FROM p_part WHERE v + 1 < 0;
SELECT dp_sum_vector(ARRAY[v], 1, 1.0, 1e-6, 1.0) IS NOT NULL AS parallel_empty_vector_ok
FROM p_part WHERE v + 1 < 0;
SELECT releases() - :r1 AS charges;
RESET ALL;

-- The empty-input oracle through a SECURITY DEFINER wrapper is gone: both answers are released
-- and charged.
CREATE FUNCTION dept_headcount(d text) RETURNS bigint LANGUAGE sql SECURITY DEFINER
  SET enable_partitionwise_aggregate = on AS
  $$ SELECT dp_count(1.0::float8, 0::float8, 'laplace'::text) FROM p_part WHERE k = d $$;
SELECT releases() AS r2 \gset
SELECT dept_headcount('secret_project') >= 0 AS secret_ok, dept_headcount('a') >= 0 AS a_ok;
SELECT releases() - :r2 AS charges;

-- A function folded while the query is planned cannot turn partitionwise aggregation on behind
-- the planner hook's back (it would be one charge per partition): refused, nothing charged.
CREATE FUNCTION flip_partitionwise() RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS
  $$ BEGIN PERFORM set_config('enable_partitionwise_aggregate', 'on', false); RETURN 1.0; END $$;
SET enable_partitionwise_aggregate = off;
SELECT releases() AS r3 \gset
SELECT expect_error($$SELECT k, dp_count(flip_partitionwise(), 0, 'laplace') FROM p_part GROUP BY k$$);
SELECT releases() - :r3 AS charges;
RESET enable_partitionwise_aggregate;

-- Refusals come before any row is read: the same answer whether the group exists or not.
SELECT expect_error($$SELECT 1, dp_sum(v, 1e-9, 0, 1e150, 'laplace') FROM p_part WHERE k = 'a' GROUP BY 1$$) =
       expect_error($$SELECT 1, dp_sum(v, 1e-9, 0, 1e150, 'laplace') FROM p_part WHERE k = 'secret_project' GROUP BY 1$$)
       AS same_refusal;

DROP FUNCTION dept_headcount(text), flip_partitionwise();
DROP TABLE p_part, p_t, p_secret;
DROP FUNCTION flip_eps(), lying_eps(), lying_eps(float8), lying_sql(float8), eps_from_table(), releases(), last_release();
