-- People, not rows (docs/privacy_units.md): what dpagg's aggregates answer over a private relation.  Noisy
-- answers are checked against known answers: with an epsilon so large that the noise is far below
-- the rounding, in multiples of the noise scale, or as frequencies over many executions within
-- sampling error.  No random number is printed.
SET dpagg.default_mechanism = 'laplace';

-- 1. A unit with 10 000 rows in one group moves dp_sum by at most its bound; rows whose unit is
--    NULL are not released.
CREATE TABLE pay (uid integer, dept text, amount double precision);
INSERT INTO pay SELECT g, 'sales', 1 FROM generate_series(1, 100) g;     -- 100 units, one row each
INSERT INTO pay SELECT 0, 'sales', 1 FROM generate_series(1, 10000);     -- one unit, 10 000 rows
INSERT INTO pay SELECT NULL, 'sales', 1000 FROM generate_series(1, 50);  -- rows of nobody
-- Not private yet: per row.
SELECT round(dp_sum(amount, 1e6, 0, 0, 5)) AS per_row_sum, round(dp_count(1e6, 0)) AS rows FROM pay;
SELECT dp_protect('pay', 'uid');
-- Private: 100 units add 1 each, the big one at most upper = 5; 101 units; every unit's average is 1.
SELECT round(dp_sum(amount, 1e6, 0, 0, 5)) AS bounded_sum,
       round(dp_count(1e6, 0)) AS units,
       round(dp_count(amount, 1e6, 0)) AS units_with_amount,
       round(dp_avg(amount, 1e6, 0, 0, 10)::numeric, 3) AS avg_of_unit_avgs
  FROM pay;
-- With a row cap, a count takes at most max_rows_per_group rows of each unit: 100 + 3.
SELECT dp_protect('pay', 'uid', 1, 3);
SELECT round(dp_count(1e6, 0)) AS capped_rows FROM pay;
-- The sensitivity form clamps each unit's sum to [-s, s].
SELECT round(dp_sum(amount, 1e6, 0, 2)) AS bounded_sum FROM pay;

-- Integer columns: a unit's sum of bigints and its average of integers are numerics (sum(bigint)
-- and avg(integer) are), carried to the per-unit aggregate as numerics and clamped alike; a unit
-- whose bigints add up far past the bigint range is clamped to upper, not an overflow error.
CREATE TABLE ipay (uid integer, n integer, big bigint);
INSERT INTO ipay SELECT g, 2, 1 FROM generate_series(1, 100) g;
INSERT INTO ipay SELECT 0, 7, 9223372036854775807 FROM generate_series(1, 4);
SELECT dp_protect('ipay', 'uid');
SELECT round(dp_sum(big, 1e6, 0, 0, 5)) AS sum_of_bigints,   -- 100 + 5
       round(dp_sum(n, 1e6, 0, 0, 5)) AS sum_of_integers,    -- 200 + 5
       round(dp_avg(n, 1e6, 0, 0, 5)::numeric, 2) AS avg_of_unit_avgs  -- (200 + 5) / 101
  FROM ipay;
CREATE TEMP TABLE ipay_plan (line text);
DO $$
DECLARE r text;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) SELECT dp_sum(big, 1, 1e-6, 0, 5), dp_avg(n, 1, 1e-6, 0, 5) FROM ipay' LOOP
    INSERT INTO ipay_plan VALUES (r);
  END LOOP;
END $$;
SELECT count(*) FILTER (WHERE line LIKE '%dpagg_unit_sum((sum(ipay.big))%') AS bigint_sum_as_numeric,
       count(*) FILTER (WHERE line LIKE '%dpagg_unit_avg((avg(ipay.n))%') AS int_avg_as_numeric
  FROM ipay_plan WHERE line LIKE '%Output:%';

-- 2. A unit present in 50 groups appears in at most L = 3 of them, a fresh random three in each
--    execution; every other unit is in one group.
CREATE TABLE shop (uid integer, item integer);
INSERT INTO shop SELECT 0, g FROM generate_series(1, 50) g;
INSERT INTO shop SELECT 1000 * i + g, g FROM generate_series(1, 50) g, generate_series(1, 200) i;
SELECT dp_protect('shop', 'uid', 3);
-- GROUP BY the unit itself: a WARNING before anything runs (every group holds one unit, and group
-- selection releases almost none); dp_explain, which rewrites the same way, says it too.
SELECT count(*) >= 0 AS ran FROM (SELECT uid, dp_count(1, 1e-6) AS c FROM shop GROUP BY uid) s WHERE c IS NOT NULL;
SELECT count(*) AS rows FROM dp_explain($$SELECT uid, dp_count(1, 1e-6) FROM shop GROUP BY uid$$);
CREATE TEMP TABLE kept (run integer, item integer, c bigint);
DO $$ BEGIN FOR r IN 1..20 LOOP
  INSERT INTO kept SELECT r, item, c FROM (SELECT item, dp_count(1e6, 1e-3) AS c FROM shop GROUP BY item) s;
END LOOP; END $$;
SELECT count(*) AS groups_released FROM kept;                         -- 20 runs x 50 groups
SELECT DISTINCT c FROM kept ORDER BY c;                                 -- 200 units, or 201 with unit 0
SELECT DISTINCT count(*) FILTER (WHERE c = 201) AS groups_of_unit_0 FROM kept GROUP BY run;
SELECT count(DISTINCT item) FILTER (WHERE c = 201) > 3 AS the_three_change FROM kept;
-- Counts of units at epsilon 1: each group within 14 noise scales (Laplace at epsilon 1/3 per group).
SELECT bool_and(abs(c - 200) <= 1 + 14 * (SELECT scale FROM dp_calibrate('laplace', 1.0 / 3, 0, 1, true)))
       AS within_noise
  FROM (SELECT item, dp_count(1, 1e-3) AS c FROM shop GROUP BY item) s;
-- What one execution was charged: one entry per aggregate, one for the group selection; each
-- group was calibrated at epsilon / L.
SELECT aggregate, mechanism, epsilon, delta FROM dp_ledger ORDER BY seq DESC LIMIT 2;

-- 3. A group of one unit (with many rows) is released with the probability of the selection,
--    whatever the outer query does with the result (here only its rows are counted, so the
--    dp_count itself is never computed; the selection still is, and is charged).
CREATE TABLE lonely (uid integer, g text);
INSERT INTO lonely SELECT 1, 'only' FROM generate_series(1, 50);
SELECT dp_protect('lonely', 'uid');
CREATE TEMP TABLE trials (strategy text, released integer);
DO $$ BEGIN
  FOR r IN 1..1500 LOOP
    INSERT INTO trials SELECT 'auto', count(*) FROM (SELECT g, dp_count(1, 0.05) FROM lonely GROUP BY g) s;
  END LOOP;
  SET LOCAL dpagg.selection_strategy = 'gaussian';
  SET LOCAL dpagg.selection_delta = 0.2;
  FOR r IN 1..1000 LOOP
    INSERT INTO trials SELECT 'gaussian', count(*) FROM (SELECT g, dp_count(1, 0.05) FROM lonely GROUP BY g) s;
  END LOOP;
  SET LOCAL dpagg.selection_strategy = 'laplace';
  FOR r IN 1..1000 LOOP
    INSERT INTO trials SELECT 'laplace', count(*) FROM (SELECT g, dp_count(1, 0.05) FROM lonely GROUP BY g) s;
  END LOOP;
END $$;
SELECT t.strategy, s.strategy_used, round(s.keep_one_unit::numeric, 4) AS p,
       abs(avg(released) - s.keep_one_unit) <= 4.5 * sqrt(s.keep_one_unit * (1 - s.keep_one_unit) / count(*))
         AS rate_within_sampling_error
  FROM trials t
  CROSS JOIN LATERAL dp_group_selection(1, CASE t.strategy WHEN 'auto' THEN 0.05 ELSE 0.2 END, 1, t.strategy) s
 GROUP BY t.strategy, s.strategy_used, s.keep_one_unit ORDER BY 1;
SELECT strategy_used, units_for_half, units_for_99 FROM dp_group_selection(1, 1e-6, 3);
SELECT expect_error($$SELECT * FROM dp_group_selection(1, 0, 3)$$) AS error;
SELECT expect_error($$SELECT * FROM dp_group_selection(1, 1e-6, 0)$$) AS error;
SELECT expect_error($$SELECT * FROM dp_group_selection(1, 1e-6, 1, 'best')$$) AS error;
-- The selection's settings are read when a statement starts, like dpagg.default_mechanism: a
-- cached plan (here a generic one) follows a later SET, and the ledger shows what was used.
SET plan_cache_mode = force_generic_plan;
PREPARE sel AS SELECT g, dp_count(1, 0.05, 'laplace') FROM lonely GROUP BY g;
EXECUTE sel \g /dev/null
SET dpagg.selection_strategy = 'gaussian';
SET dpagg.selection_epsilon = 0.25;
SET dpagg.selection_delta = 0.2;
EXECUTE sel \g /dev/null
SELECT aggregate, mechanism, epsilon, delta FROM dp_ledger WHERE aggregate = 'group selection'
 ORDER BY seq DESC LIMIT 2;
DEALLOCATE sel;
RESET plan_cache_mode;
RESET dpagg.selection_strategy;
RESET dpagg.selection_epsilon;
RESET dpagg.selection_delta;

-- 4. Joins with public relations, and a private view that holds a join.
CREATE TABLE depts (dept text PRIMARY KEY, region text);
INSERT INTO depts VALUES ('sales', 'north');
SELECT d.region, round(dp_sum(p.amount, 1e6, 1e-3, 0, 5)) AS bounded_sum
  FROM pay p JOIN depts d USING (dept) GROUP BY d.region;
CREATE VIEW pay_regions AS SELECT p.uid, d.region, p.amount FROM pay p JOIN depts d USING (dept);
SELECT dp_protect('pay_regions', 'uid');
SELECT region, round(dp_count(1e6, 1e-3)) AS units FROM pay_regions GROUP BY region;
-- A plain view over a private table that passes the unit column through is bounded too.
CREATE VIEW pay_plain AS SELECT uid, amount FROM pay WHERE amount > 0;
SELECT round(dp_sum(amount, 1e6, 0, 0, 5)) AS bounded_sum FROM pay_plain;

-- 5. Public groups: the keys come from a relation that is not private and every one of its rows is
--    kept (LEFT JOIN from it, WHERE only on it): every key is released, an empty one with the
--    noisy answer of no units, a group of one unit too, and no selection is charged.
CREATE TABLE regions (region text PRIMARY KEY, big boolean);
INSERT INTO regions VALUES ('north', true), ('south', true), ('empty', false), ('lonely', false);
CREATE TABLE trips (uid integer, region text, km double precision);
INSERT INTO trips SELECT g, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END, 10
  FROM generate_series(1, 400) g, generate_series(1, 3);
INSERT INTO trips VALUES (9999, 'lonely', 10);
SELECT dp_protect('trips', 'uid', 2);
SELECT r.region, round(dp_count(1e6, 0)) AS units, round(dp_sum(km, 1e6, 0, 0, 100)) + 0 AS km
  FROM regions r LEFT JOIN trips t USING (region) GROUP BY r.region ORDER BY 1;
SELECT aggregate FROM dp_ledger ORDER BY seq DESC LIMIT 2;
SELECT upper(r.region) AS region, round(dp_count(1e6, 0)) AS units
  FROM regions r LEFT JOIN trips t ON t.region = r.region AND t.km > 5
 WHERE r.big GROUP BY upper(r.region) ORDER BY 1;
-- At epsilon 1, over 50 executions, all four keys are released every time.
CREATE TEMP TABLE public_runs (n bigint);
DO $$ BEGIN FOR r IN 1..50 LOOP
  INSERT INTO public_runs SELECT count(*) FROM
    (SELECT r.region, dp_count(1, 0) FROM regions r LEFT JOIN trips t USING (region) GROUP BY r.region) s;
END LOOP; END $$;
SELECT min(n), max(n) FROM public_runs;
-- Keys from the private side, or an inner join: selected as any other grouping (the empty and the
-- lonely regions do not appear; a group of one unit would with probability about 1e-12).
SET dpagg.selection_delta = 1e-12;
SELECT t.region, round(dp_count(1e6, 1e-3)) AS units
  FROM regions r LEFT JOIN trips t USING (region) GROUP BY t.region ORDER BY 1;
SELECT r.region, round(dp_count(1e6, 1e-3)) AS units
  FROM regions r JOIN trips t USING (region) GROUP BY r.region ORDER BY 1;
RESET dpagg.selection_delta;

DROP TABLE regions, trips;
-- 6. dp_explain shows, without running anything, how a query will be bounded: per release the
--    unit, L, the per-group share, the sensitivity, the mechanism and its noise, the selection,
--    and the total charge of one execution.
SELECT count(*) AS releases_before FROM dp_ledger \gset
SELECT release, aggregate, relation, privacy_unit, max_groups_contributed AS l, max_rows_per_group AS c,
       epsilon, delta, round(group_epsilon::numeric, 6) AS group_epsilon, sensitivity, mechanism,
       round(noise_scale::numeric, 3) AS noise_scale, details->'public_groups' AS public_groups, details->>'upper' AS upper
  FROM dp_explain($$SELECT item, dp_count(1, 1e-5, 'laplace'), dp_sum(uid, 0.5, 0, 0, 10, 'laplace')
                    FROM shop GROUP BY item$$);
SELECT aggregate, mechanism, details->'plan'->>'strategy' AS strategy,
       (details->>'units_for_half')::int AS units_for_half
  FROM dp_explain($$SELECT item, dp_count(1, 1e-5, 'laplace') FROM shop GROUP BY item$$)
 WHERE aggregate = 'group selection';
-- The noise it shows is the noise the release uses (dp_calibrate at the per-group share).
SELECT noise_scale = (SELECT scale FROM dp_calibrate('laplace', 1.0 / 3, 1e-5 / 3, 1, true)) AS same_noise
  FROM dp_explain($$SELECT item, dp_count(1, 1e-5, 'laplace') FROM shop GROUP BY item$$) WHERE release = 1;
SELECT release, aggregate, max_rows_per_group, sensitivity, mechanism
  FROM dp_explain($$SELECT dp_count(1, 0, 'laplace'), dp_avg(amount, 1, 0, 0, 10, 'laplace') FROM pay$$);
SELECT aggregate, details FROM dp_explain($$SELECT dp_count(1, 0) FROM generate_series(1, 3)$$);
SELECT count(*) - :releases_before AS charged FROM dp_ledger;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT * FROM dp_explain('SELECT dp_sum(a.amount, 1, 0, 1) FROM pay a JOIN pay b ON a.amount = b.amount')$$),
  ($$SELECT * FROM dp_explain('SELECT 1; SELECT 2')$$),
  ($$SELECT * FROM dp_explain('DELETE FROM pay')$$),
  ($$SELECT * FROM dp_explain('SELECT dpagg_unit_select(1, 1e-5, 1, ''auto'', ''uid'') FROM pay')$$)
) AS v(q);

-- A mechanism written NULL is refused over a private relation as over the rows (the per-unit
-- forms take NULL for an omitted one), before anything is charged.
SELECT count(*) AS releases_before FROM dp_ledger \gset
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_sum(amount, 1, 1e-5, 0, 10, NULL) FROM pay$$),
  ($$SELECT dp_count(1, 1e-5, NULL) FROM pay$$),
  ($$SELECT dp_var_pop(amount, 1, 1e-5, 0, 10, NULL) FROM pay$$),
  ($$SELECT dp_median(amount, 1, 0, 0, 10, NULL) FROM pay$$)
) AS v(q);
SELECT count(*) - :releases_before AS charged FROM dp_ledger;

-- 7. With many groups per unit, the Gaussian over the L groups (l2 sensitivity sqrt(L) x bound at
--    the full epsilon) beats any mechanism at epsilon / L: auto uses it, and the noise is what it
--    says (each of 50 groups within 6 sigma).
SELECT dp_protect('shop', 'uid', 10);
RESET dpagg.default_mechanism;
SELECT aggregate, mechanism, details->'per_group'->0->>'composition' AS composition,
       round((details->'per_group'->0->>'sensitivity')::numeric, 4) AS sensitivity
  FROM dp_explain($$SELECT item, dp_count(1, 1e-5) FROM shop GROUP BY item$$) WHERE release = 1;
SELECT bool_and(abs(c - 200.5) <= 0.5 + 6 * (SELECT noise_scale FROM dp_explain($q$SELECT item, dp_count(1, 1e-5) FROM shop GROUP BY item$q$) WHERE release = 1))
       AS within_6_sigma, count(*) AS groups
  FROM (SELECT item, dp_count(1, 1e-5) AS c FROM shop GROUP BY item) s;
SELECT aggregate, mechanism FROM dp_ledger ORDER BY seq DESC LIMIT 2;
SET dpagg.default_mechanism = 'laplace';

-- 8. Private relations joined on their privacy-unit columns are bounded per unit together, with
--    the strictest of their bounds (here people: L 1; orders: L 1, at most 4 rows per group).
CREATE TABLE people (uid integer, dept text);
INSERT INTO people SELECT g, 'd' || g % 2 FROM generate_series(1, 100) g;
CREATE TABLE orders (uid integer, amount double precision);
INSERT INTO orders SELECT g % 100 + 1, 1 FROM generate_series(1, 1000) g;   -- 10 orders each
SELECT dp_protect('people', 'uid');
SELECT dp_protect('orders', 'uid', 1, 4);
-- 50 people per department, 4 of each one's 10 orders counted, each one's sum 10 clamped to 5.
SELECT dept, round(dp_count(1e6, 1e-3)) AS capped_rows, round(dp_sum(amount, 1e6, 1e-3, 0, 5)) AS bounded_sum
  FROM people JOIN orders USING (uid) GROUP BY dept ORDER BY 1;
SELECT round(dp_count(1e6, 0)) AS capped_rows FROM people p, orders o WHERE o.uid = p.uid;
SELECT round(dp_count(1e6, 0)) AS capped_rows FROM orders a JOIN orders b USING (uid);
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_count(1, 1e-5) FROM people p LEFT JOIN orders o USING (uid)$$),
  ($$SELECT dp_count(1, 1e-5) FROM people p JOIN orders o ON p.uid = o.uid + 1$$),
  ($$SELECT dp_count(1, 1e-5) FROM orders a JOIN orders b ON a.amount = b.amount$$),
  ($$SELECT dp_count(1, 1e-5) FROM people p, orders o$$)
) AS v(q);
DROP TABLE people, orders;

-- 9. dp_sum_vector per unit: each unit's vector sum in a group is clipped to the l2 bound.
--    Unit 0 has 10 000 rows of (1, 1); the 100 others one row of (1, 0) each.
CREATE TABLE vec (uid integer, g text, v double precision[]);
INSERT INTO vec SELECT g, 'a', ARRAY[1, 0] FROM generate_series(1, 100) g;
INSERT INTO vec SELECT 0, 'a', ARRAY[1, 1] FROM generate_series(1, 10000);
SELECT dp_protect('vec', 'uid');
-- 100 x (1, 0) + unit 0's (10000, 10000) clipped to norm 2: (sqrt 2, sqrt 2).
SELECT array_agg(round(x::numeric, 2)) AS bounded_sums
  FROM unnest((SELECT dp_sum_vector(v, 2, 1e6, 1e-3, 2) FROM vec)) x;
SELECT g, array_agg(round(x::numeric, 2)) AS bounded_sums
  FROM (SELECT g, unnest(s) AS x FROM (SELECT g, dp_sum_vector(v, 2, 1e6, 1e-3, 2) AS s FROM vec GROUP BY g) q) r
 GROUP BY g;
SELECT aggregate, mechanism, sensitivity FROM dp_explain($$SELECT g, dp_sum_vector(v, 2, 1, 1e-3, 2) FROM vec GROUP BY g$$);
DROP TABLE vec;

-- 10. Parallel plans: the per-unit aggregation runs in parallel workers, the answer is the same.
CREATE TABLE big (uid integer, g integer, x double precision);
INSERT INTO big SELECT i % 3000, i % 7, 1 FROM generate_series(1, 60000) i;
ANALYZE big;
SELECT dp_protect('big', 'uid', 7);
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- Every unit is in all 7 groups (L = 7) with 2 or 3 rows each: 3000 units per group, each
-- unit's sum clamped to [0, 2] -> 6000.
EXPLAIN (COSTS OFF) SELECT g, dp_sum(x, 1e6, 1e-3, 0, 2) FROM big GROUP BY g;
SELECT g, round(dp_count(1e6, 1e-3)) AS units, round(dp_sum(x, 1e6, 1e-3, 0, 2)) AS bounded_sum
  FROM big GROUP BY g ORDER BY g;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE big;

-- 11. The split for Citus (dpagg_merge_*) releases partial sums as given: never over a private
-- relation (the per-row quanta functions are like any function: raw reads, for whoever may).
SELECT expect_error($$SELECT dpagg_merge_count(n, 1, 1e-5, NULL) FROM (SELECT count(*) AS n FROM pay) s$$) AS merge_over_private;
SELECT expect_error($$SELECT dpagg_merge_sum(s, n, 1, 1e-5, 0, 10, NULL, false) FROM (SELECT sum(dpagg_quanta_sum(amount, 0, 10)) s, count(amount) n FROM pay GROUP BY uid) q$$) AS merge_over_private_units;
SELECT expect_error($$SELECT dpagg_merge_sum(dpagg_quanta_sum(amount, 0, 10), 1, 1, 1e-5, 0, 10, NULL, false) FROM pay$$) AS merge_on_private_rows;

DROP VIEW pay_regions, pay_plain;
DROP TABLE pay, shop, lonely, depts;
RESET dpagg.default_mechanism;
