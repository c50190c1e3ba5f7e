-- dp_sum planned with its state inline (src/pg/aggregates/inline_sum.c): an Agg node that accumulates and
-- finalizes runs dpagg_sum_inline, whose state is the exact sum in the group's hash entry while it
-- fits in 62 bits, and a pointer to a full state past that.  A split aggregation keeps dp_sum.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE in_t AS
SELECT g AS id, g % 1000 AS k,
       (g % 100)::double precision AS x,
       -- 3000 rows at 1e15 in group 0, -1e15 in group 1 (quanta of 1/8: 2^52.8 each, so the
       -- inline sum overflows after about 580 rows); group 2 goes up 1500 rows and back down
       CASE WHEN g <= 3000 THEN 1e15 WHEN g <= 6000 THEN -1e15
            WHEN g <= 7500 THEN 1e15 ELSE -1e15 END::double precision AS big,
       CASE WHEN g <= 3000 THEN 0 WHEN g <= 6000 THEN 1 ELSE 2 END AS bg,
       CASE WHEN g <= 3000 THEN 1125899906842624 ELSE -1125899906842624 END::bigint AS i8,
       CASE WHEN g <= 3000 THEN 1e15 ELSE -1e15 END::numeric AS num
FROM generate_series(1, 9000) g;
ANALYZE in_t;

-- The plan: inline in a hashed, a sorted and a plain aggregation; HAVING too
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, dp_sum(x, 1, 1e-6, 0, 100) FROM in_t GROUP BY k;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF, VERBOSE) SELECT k, dp_sum(x, 1, 1e-6, 0, 100) FROM in_t GROUP BY k
  HAVING dp_sum(x, 1, 1e-6, 0, 100) > 0;
RESET enable_hashagg;
-- ... not in a split (parallel) aggregation, nor for the report form
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT dp_sum(x, 1, 1e-6, 0, 100), dp_sum_report(x, 1, 1e-6, 0, 100) FROM in_t;
SELECT abs(dp_sum(x, 1e6, 0, 0, 100, 'laplace') - 445500) < 1 AS parallel_whole FROM in_t;
SET max_parallel_workers_per_gather = 0;

-- The same exact sums: at epsilon 1e6 with Laplace noise the scale is sensitivity * 1e-6, and
-- every answer is within 100 scales of the true sum (a miss has probability below e^-100)
SELECT count(*) AS groups,
       count(*) FILTER (WHERE abs(d - s) > 100 * 100 * 1e-6) AS misses
  FROM (SELECT k, dp_sum(x, 1e6, 0, 0, 100, 'laplace') AS d, sum(x) AS s FROM in_t GROUP BY k) q;
-- Past the inline range (both signs, and out and back: exact either way)
SELECT bg, abs(dp_sum(big, 1e6, 0, -1e15, 1e15, 'laplace') - sum(big)) < 100 * 1e15 * 1e-6 AS within
  FROM in_t GROUP BY bg ORDER BY bg;
SELECT bg, abs(dp_sum(i8, 1e6, 0, -1125899906842624, 1125899906842624, 'laplace') - sum(i8)) <
           100 * 1125899906842624 * 1e-6 AS int8_within,
       abs(dp_sum(num, 1e6, 0, -1e15, 1e15, 'laplace') - sum(num)) < 100 * 1e15 * 1e-6 AS numeric_within
  FROM in_t GROUP BY bg ORDER BY bg;
-- sorted and plain aggregation, with a spilled state
SET enable_hashagg = off;
SELECT bg, abs(dp_sum(big, 1e6, 0, -1e15, 1e15, 'laplace') - sum(big)) < 100 * 1e15 * 1e-6 AS sorted_within
  FROM in_t GROUP BY bg ORDER BY bg;
RESET enable_hashagg;
SELECT abs(dp_sum(big, 1e6, 0, 1e15, 'laplace') - sum(big)) < 100 * 1e15 * 1e-6 AS whole_within FROM in_t;
-- a hash aggregation that spills to disk (hash_mem exceeded): the groups of every batch
SET work_mem = '64kB';
SELECT count(*) AS groups,
       count(*) FILTER (WHERE abs(d - s) > 100 * 100 * 1e-6) AS misses
  FROM (SELECT id % 5000 AS k, dp_sum(x, 1e6, 0, 0, 100, 'laplace') AS d, sum(x) AS s
          FROM in_t GROUP BY id % 5000) q;
-- ... sized as sum's: the planner's space for a by-reference state per group is taken back
CREATE FUNCTION in_batches(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE p json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO p;
  RETURN (p -> 0 -> 'Plan' ->> 'HashAgg Batches')::int;
END $$;
-- (100 000 rows in 50 000 groups with 1MB: 9 batches for sum, 17 for dp_sum while the planner's
-- space for a by-reference state was left in the plan)
CREATE TABLE in_b AS SELECT g AS id, (g % 100)::double precision AS x FROM generate_series(1, 100000) g;
ANALYZE in_b;
SET work_mem = '1MB';
SET enable_sort = off;
SELECT in_batches('SELECT id % 50000, sum(x) FROM in_b GROUP BY id % 50000') > 1 AS spills,
       in_batches('SELECT id % 50000, sum(x) FROM in_b GROUP BY id % 50000') =
       in_batches('SELECT id % 50000, dp_sum(x, 1e6, 0, 0, 100) FROM in_b GROUP BY id % 50000') AS batches_as_sum;
RESET enable_sort;
DROP FUNCTION in_batches(text);
DROP TABLE in_b;
RESET work_mem;
-- an empty group: a noisy 0; NULL values count as nothing
SELECT abs(dp_sum(x, 1e6, 0, 0, 100, 'laplace')) < 1 AS empty FROM in_t WHERE false;
SELECT abs(dp_sum(NULL::float8, 1e6, 0, 0, 100, 'laplace')) < 1 AS nulls FROM in_t GROUP BY k LIMIT 1;

-- Nobody names it
SELECT expect_error($$SELECT dpagg_sum_inline(x, 1, 1e-6, 0, 100) FROM in_t$$) AS direct;
SELECT expect_error($$SELECT sum(x) FROM in_t GROUP BY k HAVING dpagg_sum_inline(x, 1, 1e-6, 0, 100) > 0$$) AS in_having;

-- ... nor through a SQL function the planner inlines (its body escapes the parse-analysis check)
CREATE FUNCTION in_f() RETURNS SETOF float8 LANGUAGE sql STABLE
  BEGIN ATOMIC SELECT dpagg_sum_inline(x, 1, 1e-6, 0, 100) FROM in_t; END;
SELECT expect_error($$SELECT * FROM in_f()$$) AS inlined_function;
DROP FUNCTION in_f();

-- Not in a plan that reads a private relation (a hash aggregation's memory shows which groups'
-- sums left the inline range: only tables an analyst may read row by row are aggregated inline)
CREATE TABLE in_private AS SELECT g AS uid, g % 10 AS k FROM generate_series(1, 100) g;
SELECT dp_protect('in_private', 'uid');
EXPLAIN (VERBOSE, COSTS OFF)
SELECT * FROM (SELECT dp_sum(x, 1, 1e-6, 0, 100) FROM in_t) a, (SELECT dp_count(1, 1e-6) FROM in_private) b;
DROP TABLE in_private;

-- Privileges are dp_sum's: without EXECUTE on dp_sum the inline plan is refused too, also a plan
-- made for a role that had it; without EXECUTE on dpagg_sum_inline, dp_sum is planned as written.
CREATE ROLE dp_inline_user;
GRANT SELECT ON in_t TO dp_inline_user;
SELECT dp_set_budget('dp_inline_user'::regrole, 100, 0.5) IS NOT NULL AS budget;
-- (revoked before the plan is made: a change of an aggregate's privileges invalidates the plans
-- that use it, while a change of role membership, or a plan run by another role, does not)
REVOKE EXECUTE ON FUNCTION dp_sum(double precision, double precision, double precision, double precision, double precision) FROM PUBLIC;
PREPARE inline_sum AS SELECT count(d) FROM (SELECT k, dp_sum(x, 1, 1e-6, 0, 100) AS d FROM in_t GROUP BY k) s;
EXECUTE inline_sum;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE inline_sum;
SET SESSION AUTHORIZATION dp_inline_user;
SELECT expect_error($$SELECT k, dp_sum(x, 1, 1e-6, 0, 100) FROM in_t GROUP BY k$$) AS as_written,
       expect_error($$EXECUTE inline_sum$$) AS planned_for_another_role;
RESET SESSION AUTHORIZATION;
GRANT EXECUTE ON FUNCTION dp_sum(double precision, double precision, double precision, double precision, double precision) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION dpagg_sum_inline(double precision, double precision, double precision, double precision, double precision) FROM PUBLIC;
SET SESSION AUTHORIZATION dp_inline_user;
EXPLAIN (VERBOSE, COSTS OFF) SELECT dp_sum(x, 1, 1e-6, 0, 100) FROM in_t;
SELECT dp_sum(x, 1, 1e-6, 0, 100) IS NOT NULL AS as_written FROM in_t;
RESET SESSION AUTHORIZATION;
GRANT EXECUTE ON FUNCTION dpagg_sum_inline(double precision, double precision, double precision, double precision, double precision) TO PUBLIC;
DEALLOCATE inline_sum;
-- ... and a plan made with it is made again as written once it is revoked
PREPARE inline_sum AS SELECT dp_sum(x, 1, 1e-6, 0, 100) FROM in_t;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE inline_sum;
REVOKE EXECUTE ON FUNCTION dpagg_sum_inline(double precision, double precision, double precision, double precision, double precision) FROM PUBLIC;
SET SESSION AUTHORIZATION dp_inline_user;
SELECT expect_error($$EXECUTE inline_sum$$) AS cached_plan_after_revoke;
RESET SESSION AUTHORIZATION;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE inline_sum;
GRANT EXECUTE ON FUNCTION dpagg_sum_inline(double precision, double precision, double precision, double precision, double precision) TO PUBLIC;
DEALLOCATE inline_sum;

-- A hashed aggregation rescanned without new parameters finalizes the same states again (no
-- released mark: fresh noise), and each loop is charged
SELECT count(*) AS charges_before FROM dp_ledger WHERE role = 'dp_inline_user' \gset
SET SESSION AUTHORIZATION dp_inline_user;
EXPLAIN (COSTS OFF) SELECT g, (SELECT d FROM (SELECT k, dp_sum(x, 0.5, 0, 0, 100) AS d FROM in_t GROUP BY k OFFSET 0) s
                               WHERE s.k = g % 4) FROM generate_series(1, 3) g;
SELECT g, (SELECT d FROM (SELECT k, dp_sum(x, 0.5, 0, 0, 100) AS d FROM in_t GROUP BY k OFFSET 0) s
           WHERE s.k = g % 4) IS NOT NULL AS released FROM generate_series(1, 3) g;
RESET SESSION AUTHORIZATION;
SELECT count(*) - :charges_before AS charges_for_three_loops FROM dp_ledger WHERE role = 'dp_inline_user';

REVOKE SELECT ON in_t FROM dp_inline_user;
DROP ROLE dp_inline_user;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE in_t;
