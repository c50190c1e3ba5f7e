-- Restricted analysts (docs/restricted.md): a role marked restricted gets nothing but DP answers from
-- private relations; every other use of private data is refused (42501) before anything runs or
-- is charged.  Roles and their labels are cluster-wide.
CREATE TABLE staff (uid integer, dept text, salary double precision, hired timestamp);
INSERT INTO staff SELECT g, 'd' || g % 3, 1000 + g, timestamp '2020-01-01' + g * interval '1 day'
  FROM generate_series(1, 300) g;
ANALYZE staff;
CREATE TABLE depts (dept text PRIMARY KEY, region text);
INSERT INTO depts VALUES ('d0', 'north'), ('d1', 'south'), ('d2', 'south');
-- Restricted roles read only relations declared private or public (and their own temporary ones).
SECURITY LABEL FOR dpagg ON TABLE depts IS 'public';
SELECT dp_protect('staff', 'uid');
CREATE ROLE dp_analyst;
CREATE ROLE dp_team;
CREATE ROLE dp_member IN ROLE dp_team;
GRANT SELECT ON staff, depts TO dp_analyst, dp_team;
CREATE TABLE sink (dept text, n bigint);
GRANT ALL ON sink TO dp_analyst;

-- dp_date_trunc and dp_extract: date_trunc and extract (as bigint) that give NULL, not an error,
-- where the built-ins would leave the timestamp range; the same inside it.
SELECT dp_date_trunc('month', timestamp '2020-05-17 10:00') = date_trunc('month', timestamp '2020-05-17 10:00') AS same_trunc,
       dp_date_trunc('day', date '2020-05-17') AS trunc_date,
       dp_extract('year', date '2020-05-17') AS y, dp_extract('dow', timestamp '2020-05-17') AS dow,
       dp_date_trunc('millennium', timestamp '4713-01-01 BC') IS NULL AS low_end,
       dp_date_trunc('year', date '5874897-01-01') IS NULL AS beyond_timestamps,
       dp_extract('year', date 'infinity') IS NULL AS infinite;
SELECT expect_error($$SELECT date_trunc('millennium', timestamp '4713-01-01 BC')$$) AS builtin,
       expect_error($$SELECT dp_date_trunc('fortnight', timestamp '2020-01-01')$$) AS unknown_unit;

-- Marking: the label, the convenience functions, the view; superusers only.
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SECURITY LABEL FOR dpagg ON ROLE dp_analyst IS 'restricted'$$),
  ($$SELECT dp_restrict('dp_team')$$),
  ($$SECURITY LABEL FOR dpagg ON ROLE dp_member IS 'trusted'$$),
  ($$SELECT dp_restrict(current_user::regrole)$$)
) AS v(q);
SELECT rolname, dp_restricted(oid) FROM pg_roles
 WHERE rolname IN ('dp_analyst', 'dp_team', 'dp_member', current_user) ORDER BY 1;
SELECT provider, label FROM pg_seclabels WHERE objtype = 'role' AND objname = 'dp_analyst';
SELECT dp_set_budget('dp_analyst', 100, 1e-3);
SELECT role, restricted FROM dp_budgets WHERE role = 'dp_analyst';
SET ROLE dp_analyst;
SELECT expect_error($$SELECT dp_unrestrict('dp_analyst')$$) AS error;
SELECT expect_error($$SECURITY LABEL FOR dpagg ON ROLE dp_analyst IS NULL$$) AS error;
RESET ROLE;

-- Allowed shapes, as the restricted analyst: each works and is charged (the ledger grows).
SELECT count(*) AS before FROM dp_ledger \gset
SET ROLE dp_analyst;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dept, dp_count(1, 1e-5) FROM staff GROUP BY dept$$),
  ($$SELECT dp_avg(salary, 1, 1e-5, 0, 2000) FROM staff WHERE hired >= timestamp '2020-03-01' AND dept IN ('d0', 'd1')$$),
  ($$SELECT dept, dp_stddev_samp(salary, 1, 1e-5, 0, 2000), dp_var_pop_report(salary, 1, 1e-5, 0, 2000) IS NOT NULL, dp_median(salary, 1, 0, 0, 2000) FROM staff GROUP BY dept$$),
  ($$SELECT CASE WHEN hired < timestamp '2020-06-01' THEN 'h1' ELSE 'h2' END AS half, dp_count(1, 1e-5) FROM staff GROUP BY 1$$),
  ($$SELECT lower(dept), dp_sum(salary, 1, 1e-5, 0, 2000) FROM staff WHERE dept LIKE 'd%' AND salary IS NOT NULL GROUP BY 1$$),
  ($$SELECT d.region, dp_count(1, 1e-5) FROM staff s JOIN depts d USING (dept) GROUP BY d.region$$),
  ($$SELECT dept, n * 2 FROM (SELECT dept, dp_count(1, 1e-5) AS n FROM staff GROUP BY dept) s WHERE n > 0 ORDER BY n DESC LIMIT 2$$),
  ($$SELECT CASE WHEN salary > 1100 THEN 'high' ELSE 'low' END AS band, dp_count(1, 1e-5) FROM staff GROUP BY 1$$),
  ($$SELECT dp_date_trunc('month', hired) AS m, dp_count(1, 1e-5) FROM staff GROUP BY 1$$),
  ($$SELECT dp_extract('year', hired) AS y, dp_count(1, 1e-5) FROM staff WHERE dp_extract('dow', hired) < 5 GROUP BY 1$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE hired BETWEEN timestamp '2020-01-01' AND timestamp '2020-12-31' AND upper(dept) <> 'D9' AND substring(dept, 1, 1) = 'd'$$),
  ($$SELECT count(*) FROM depts$$),
  ($$EXPLAIN (COSTS OFF) SELECT count(*) FROM depts$$),
  ($$SELECT count(*) FROM dp_explain('SELECT dept, dp_count(1, 1e-5) FROM staff GROUP BY dept')$$)
) AS v(q);
RESET ROLE;
SELECT count(*) - :before AS charged FROM dp_ledger;

-- Refused shapes: 42501 with the rule in the hint, nothing charged.  A view the analyst made
-- is checked like the query; so is a private view's: its expressions run on private rows too,
-- after the analyst's filters, and salary / 1000 can fail (float division underflows).
GRANT CREATE ON SCHEMA public TO dp_analyst;
SET ROLE dp_analyst;
CREATE TEMP VIEW peek AS SELECT uid, salary / 0 AS x FROM staff;
RESET ROLE;
CREATE VIEW peek_private AS SELECT uid, dept, salary / 1000 AS x FROM staff;
SELECT dp_protect('peek_private', 'uid');
GRANT SELECT ON peek_private TO dp_analyst;
SELECT count(*) AS before FROM dp_ledger \gset
SET ROLE dp_analyst;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT * FROM staff$$),
  ($$SELECT salary FROM staff WHERE uid = 42$$),
  ($$SELECT count(*) FROM staff$$),
  ($$SELECT min(salary) FROM staff$$),
  ($$SELECT array_agg(uid) FROM staff$$),
  ($$SELECT sum(dpagg_quanta_sum(salary, 0, 2000)) FROM staff$$),
  ($$SELECT dpagg_quanta_sum_total(salary, 0, 2000) FROM staff$$),
  ($$SELECT uid, row_number() OVER () FROM staff$$),
  ($$SELECT DISTINCT dept FROM staff$$),
  ($$SELECT generate_series(1, uid) FROM staff$$),
  ($$SELECT dept, dp_count(1, 1e-5), count(*) FROM staff GROUP BY dept$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff TABLESAMPLE BERNOULLI (50)$$),
  ($$CREATE TABLE mine AS SELECT dept, dp_count(1, 1e-5) AS n FROM staff GROUP BY dept$$),
  ($$SELECT dept, dp_count(1, 1e-5) AS n INTO mine FROM staff GROUP BY dept$$),
  ($$INSERT INTO sink SELECT dept, dp_count(1, 1e-5) FROM staff GROUP BY dept$$),
  ($$DECLARE c CURSOR WITH HOLD FOR SELECT * FROM staff$$),
  ($$EXPLAIN ANALYZE SELECT dept, dp_count(1, 1e-5) FROM staff GROUP BY dept$$),
  ($$EXPLAIN SELECT * FROM staff WHERE uid = 42$$),
  ($$EXPLAIN (COSTS OFF) SELECT dept, dp_count(1, 1e-5) FROM staff GROUP BY dept$$),
  ($$SELECT most_common_vals FROM pg_stats WHERE tablename = 'staff'$$),
  ($$SELECT dp_count(1, 1e-5) FROM peek$$)
) AS v(q);
COPY staff TO STDOUT;
COPY (SELECT * FROM staff) TO STDOUT;
RESET ROLE;
SELECT count(*) - :before AS charged FROM dp_ledger;
-- The private view's own expressions run on private rows: refused like the analyst's.
SET ROLE dp_analyst;
SELECT expect_error($$SELECT dp_count(1, 1e-5) FROM peek_private WHERE x > 0$$) AS error;
RESET ROLE;

-- Side channels: an expression evaluated on private rows that could raise an error, sleep, write
-- or leak is refused before the query runs, whatever the rows.
SELECT count(*) AS before FROM dp_ledger \gset
CREATE FUNCTION leak(x double precision) RETURNS boolean LANGUAGE plpgsql
  AS $$ BEGIN RAISE NOTICE 'salary %', x; RETURN true; END $$;
CREATE SEQUENCE tick;
GRANT USAGE ON SEQUENCE tick TO dp_analyst;
SET ROLE dp_analyst;
SELECT left(q, 100) AS q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE 1 / (salary - 1042) > 0$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE salary + 1 > 0$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE salary::integer > 0$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE CASE WHEN salary > 1200 THEN pg_sleep(1) IS NULL ELSE true END$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE set_config('dp.x', salary::text, false) IS NOT NULL$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE nextval('tick') > 0 AND salary > 0$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE leak(salary)$$),
  ($$SELECT dp_sum(salary * 2, 1, 1e-5, 0, 5000) FROM staff$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE dept LIKE dept$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE dept IN (SELECT dept FROM depts)$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE salary IN (1000 + uid)$$),
  ($$SELECT dp_count(1, 1e-5) FROM (SELECT uid, salary / 0 AS x FROM staff) s$$),
  ($$SELECT (salary::text)::int, dp_count(1, 1e-5) FROM staff GROUP BY 1$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE date_trunc('year', hired) = timestamp '2020-01-01'$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE dp_date_trunc(dept, hired) IS NULL$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE uid = 42 AND dp_extract('fortnight', hired) = 1$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE uid = 42 AND substring(dept, 1, -1) = ''$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE dept LIKE 'd1\'$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE length('\x41'::bytea, dept::name) > 0$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff s, LATERAL (VALUES (leak(s.salary))) v(x) WHERE v.x$$),
  ($$SELECT dp_count(1, 1e-5) FROM staff WHERE dept = '$$ || repeat('x', 2000) || $$'$$),
  ($$SET trace_sort = on; SELECT dept, dp_count(1, 1e-5) FROM staff GROUP BY dept$$),
  ($$SELECT idx_tup_fetch FROM pg_stat_user_tables$$),
  ($$SELECT pg_stat_get_tuples_fetched('staff'::regclass)$$)
) AS v(q);
RESET ROLE;
SELECT count(*) - :before AS charged FROM dp_ledger;
SELECT currval('tick');

-- A plan made before the session was restricted (a cached generic plan) is checked when it runs.
SELECT dp_unrestrict('dp_team');
SET plan_cache_mode = force_generic_plan;
SET ROLE dp_member;
PREPARE raw_read AS SELECT salary FROM staff WHERE uid = 42;
EXECUTE raw_read;
RESET ROLE;
SELECT dp_restrict('dp_team');
SET ROLE dp_member;
SELECT expect_error($$EXECUTE raw_read$$) AS error;
RESET ROLE;
DEALLOCATE raw_read;
-- One that mixes dpagg's aggregates with raw reads passes that check, but the restriction drops
-- every cached plan: it is planned again at its next execution, and refused.
SELECT dp_unrestrict('dp_team');
SET ROLE dp_member;
PREPARE mixed AS SELECT (dp_count(1, 1e-5) > -1e9)::text FROM staff
  UNION ALL SELECT salary::text FROM staff WHERE uid = 42;
EXECUTE mixed;
RESET ROLE;
SELECT dp_restrict('dp_team');
SET ROLE dp_member;
SELECT expect_error($$EXECUTE mixed$$) AS error;
RESET ROLE;
DEALLOCATE mixed;
-- SET ROLE to a restricted role drops no plan: a cached raw read is refused when it starts.
PREPARE raw_again AS SELECT salary FROM staff WHERE uid = 42;
EXECUTE raw_again;
SET ROLE dp_analyst;
SELECT expect_error($$EXECUTE raw_again$$) AS error;
RESET ROLE;
DEALLOCATE raw_again;
-- A superuser is never restricted; one that loses SUPERUSER as a member of a restricted role is,
-- and its cached plans are made again (and refused).
CREATE ROLE dp_super SUPERUSER IN ROLE dp_team;
SET ROLE dp_super;
PREPARE su_read AS SELECT salary FROM staff WHERE uid = 42;
EXECUTE su_read;
RESET ROLE;
ALTER ROLE dp_super NOSUPERUSER;
SET ROLE dp_super;
SELECT expect_error($$EXECUTE su_read$$) AS error;
RESET ROLE;
DEALLOCATE su_read;
DROP ROLE dp_super;
RESET plan_cache_mode;
-- LIKE (and starts_with, ...) with a nondeterministic collation fails only on rows that reach it:
-- every nondeterministic collation on private data is refused up front.
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SET ROLE dp_analyst;
SELECT expect_error($$SELECT dp_count(1, 1e-5) FROM staff WHERE uid = 42 AND dept LIKE 'd%' COLLATE ci$$) AS error;
RESET ROLE;
DROP COLLATION ci;

-- Deny by default: a restricted role reads only relations declared private or public, its own
-- temporary relations and the catalog (without the sizes and statistics); it may write where it
-- is granted.  A table nobody declared (restored without its labels, say) is refused.
CREATE TABLE parted (k integer, v text) PARTITION BY LIST (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1);
INSERT INTO parted VALUES (1, 'one');
GRANT SELECT ON parted, parted_1 TO dp_analyst;
SET ROLE dp_analyst;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT count(*) FROM sink$$),
  ($$INSERT INTO sink VALUES ('d9', 1)$$),
  ($$SELECT * FROM parted$$),
  ($$CREATE TEMP TABLE own AS SELECT 1 AS x$$),
  ($$SELECT x FROM own$$),
  ($$SELECT relname, relkind FROM pg_class WHERE relname = 'staff'$$),
  ($$SELECT reltuples FROM pg_class WHERE relname = 'staff'$$),
  ($$SELECT * FROM pg_class WHERE relname = 'staff'$$),
  ($$SELECT pg_relation_size('staff')$$),
  ($$SELECT pg_total_relation_size('staff')$$),
  ($$SELECT n_live_tup FROM pg_stat_user_tables$$),
  ($$SELECT count(*) FROM dp_public$$)
) v(q);
COPY sink TO STDOUT;
RESET ROLE;
SELECT expect_error($$SECURITY LABEL FOR dpagg ON TABLE parted_1 IS 'public'$$) AS partition_label;
SECURITY LABEL FOR dpagg ON TABLE parted IS 'public';
SECURITY LABEL FOR dpagg ON TABLE sink IS ' PUBLIC ';
SELECT * FROM dp_public ORDER BY 2;
SELECT count(*) AS public_in_dp_protected FROM dp_protected WHERE relation IN ('parted'::regclass, 'sink'::regclass);
SET ROLE dp_analyst;
SELECT * FROM parted_1;
SELECT count(*) FROM sink;
COPY sink TO STDOUT;
RESET ROLE;
-- Only 'public' for a function; and a label other than a protection or 'public' is refused.
SELECT expect_error($$SECURITY LABEL FOR dpagg ON FUNCTION leak(double precision) IS 'secret'$$) AS function_label,
       expect_error($$SECURITY LABEL FOR dpagg ON TABLE sink IS 'publicly'$$) AS table_label;
SECURITY LABEL FOR dpagg ON TABLE parted IS NULL;
SECURITY LABEL FOR dpagg ON TABLE sink IS NULL;
DROP TABLE parted, own;

-- Row-security policies are checked with the query, before it is planned: the planner would
-- otherwise run the analyst's code while it plans (here folding an immutable function of theirs
-- in a policy on their own table, joined to the private rows), before the check of the finished
-- plan refuses it.  No notice may come out.
SET ROLE dp_analyst;
CREATE FUNCTION pg_temp.loud(x integer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE
  AS $$ BEGIN RAISE NOTICE 'the planner ran my function'; RETURN true; END $$;
CREATE TEMP TABLE pol (k integer);
INSERT INTO pol VALUES (1);
ALTER TABLE pol ENABLE ROW LEVEL SECURITY;
ALTER TABLE pol FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON pol USING (pg_temp.loud(1));
SELECT expect_error($$SELECT dp_count(1, 1e-5) FROM staff s JOIN pol ON pol.k <= s.uid$$) AS error;
DROP TABLE pol;
DROP FUNCTION pg_temp.loud(integer);
RESET ROLE;

-- Money columns (numeric) and timestamps with time zone: comparisons of numeric are allowed
-- (they cannot fail on any value); a cast of numeric to double precision only from a column
-- whose declared numeric(p, s) keeps it below 1e300 (the cast fails beyond 1e308); conversions
-- between date and time types are refused with a hint at dp_date_trunc, which takes each type
-- as it is.
CREATE TABLE pay (uid integer, amount numeric(10, 2), raw numeric, wide numeric(1000, 0), at timestamptz);
INSERT INTO pay SELECT g, g * 1.5, g, g, timestamptz '2020-01-01 00:00+00' + g * interval '1 day'
  FROM generate_series(1, 300) g;
SELECT dp_protect('pay', 'uid');
GRANT SELECT ON pay TO dp_analyst;
SELECT count(*) AS before FROM dp_ledger \gset
SET ROLE dp_analyst;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE amount > 100$$),
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE amount BETWEEN 10 AND 100.5 OR raw IN (1, 2, 3) OR raw <> wide$$),
  ($$SELECT CASE WHEN amount >= 200 THEN 'big' ELSE 'small' END AS band, dp_sum(amount, 1, 1e-5, 0, 500) FROM pay GROUP BY 1$$),
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE amount::float8 > 100$$),
  ($$SELECT dp_date_trunc('month', at) AS m, dp_count(1, 1e-5) FROM pay GROUP BY 1$$),
  -- built-in immutable calls on constants only: folded into a constant before any row is read
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE amount > 50 + 50 AND amount < (100 * 2)::numeric - 1.5$$)
) AS v(q);
RESET ROLE;
SELECT count(*) - :before AS charged FROM dp_ledger;
SELECT count(*) AS before FROM dp_ledger \gset
SET ROLE dp_analyst;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE raw::float8 > 100$$),
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE wide::float8 > 100$$),
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE amount + 1 > 100$$),
  ($$SELECT dp_date_trunc('month', at::timestamp) AS m, dp_count(1, 1e-5) FROM pay GROUP BY 1$$),
  -- stable (now(), timestamptz arithmetic) or over a column: not folded, still refused
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE at > now() - interval '30 days'$$),
  ($$SELECT dp_count(1, 1e-5) FROM pay WHERE amount * 2 > 50 + 50$$)
) AS v(q);
RESET ROLE;
SELECT count(*) - :before AS charged FROM dp_ledger;
DROP TABLE pay;

-- Membership counts: a member of a restricted role is restricted.
SET ROLE dp_member;
SELECT expect_error($$SELECT * FROM staff$$) AS error;
RESET ROLE;
-- Unrestricted roles are unaffected (their dpagg aggregates are bounded per unit all the same).
SELECT count(*) FROM staff;
SELECT dp_unrestrict('dp_analyst'), dp_unrestrict('dp_analyst');
SET ROLE dp_analyst;
SELECT count(*) FROM staff;
RESET ROLE;
SELECT dp_unrestrict('dp_team');

DROP VIEW peek, peek_private;
REVOKE CREATE ON SCHEMA public FROM dp_analyst;
DROP FUNCTION leak(double precision);
DROP SEQUENCE tick;
DROP TABLE staff, depts, sink;
SELECT dp_drop_budget('dp_analyst');
DROP ROLE dp_analyst, dp_member, dp_team;
