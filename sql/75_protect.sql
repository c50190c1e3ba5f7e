-- Private relations (docs/privacy_units.md): declaring, listing and clearing protection, the label's checks,
-- which query shapes over a private relation dpagg bounds per unit and which it refuses
-- (76_privacy_units tests what the bounded answers are).
CREATE TABLE visits (visit_id serial, user_id integer, "Account" text, amount numeric,
                     region text, t double precision);
INSERT INTO visits (user_id, "Account", amount, region, t)
SELECT g % 50, 'a' || (g % 7), g % 13, 'r' || (g % 4), g FROM generate_series(1, 500) g;
CREATE TABLE regions (region text PRIMARY KEY);
INSERT INTO regions SELECT 'r' || g FROM generate_series(0, 3) g;

-- dp_protect writes a canonical label; the view lists it.
SELECT dp_protect('visits', 'user_id', 3);
SELECT relation, relkind, privacy_unit, max_groups_contributed, max_rows_per_group, label
  FROM dp_protected;
SELECT provider, label FROM pg_seclabels WHERE objname = 'visits';
-- The same through SECURITY LABEL, with a quoted column and a row cap.
SECURITY LABEL FOR dpagg ON TABLE visits
  IS '  PRIVACY_UNIT="Account" ,max_groups_contributed=2, max_rows_per_group = 5 ';
SELECT relation, privacy_unit, max_groups_contributed, max_rows_per_group FROM dp_protected;
SELECT dp_protect('visits', 'user_id');
SELECT relation, privacy_unit, max_groups_contributed, max_rows_per_group FROM dp_protected;
-- Protected again with the same unit, an argument left out keeps its value (a change of L keeps
-- the row cap); 0 removes the cap; another unit starts from the defaults.
SELECT dp_protect('visits', 'user_id', 3, 50);
SELECT dp_protect('visits', 'user_id', max_groups_contributed => 4);
SELECT relation, privacy_unit, max_groups_contributed, max_rows_per_group FROM dp_protected;
SELECT dp_protect('visits', 'user_id', max_rows_per_group => 0);
SELECT relation, privacy_unit, max_groups_contributed, max_rows_per_group FROM dp_protected;
SELECT dp_protect('visits', 'user_id', 3, 50);
SELECT dp_protect('visits', 'region');
SELECT relation, privacy_unit, max_groups_contributed, max_rows_per_group FROM dp_protected;
SELECT dp_protect('visits', 'user_id');

CREATE ROLE dp_protect_owner;
-- Bad labels and arguments: each its own SQLSTATE, with a hint; nothing changes.
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS ''$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'max_groups_contributed = 2'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = nosuch'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, max_groups_contributed = 0'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, max_groups_contributed = 2.5'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, max_groups_contributed = x'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, max_rows_per_group = -1'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, colour = blue'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id privacy_unit = t'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, privacy_unit = t'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = "unterminated'$$),
  ($$SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = ctid'$$),
  ($$SECURITY LABEL FOR dpagg ON COLUMN visits.user_id IS 'privacy_unit = user_id'$$),
  ($$SECURITY LABEL FOR dpagg ON SEQUENCE visits_visit_id_seq IS 'privacy_unit = user_id'$$),
  ($$SECURITY LABEL FOR dpagg ON ROLE dp_protect_owner IS 'privacy_unit = user_id'$$),
  ($$SELECT dp_protect('visits', 'nosuch')$$),
  ($$SELECT dp_protect('visits', 'user_id', 0)$$),
  ($$SELECT dp_protect('visits', 'user_id', 1, -1)$$),
  ($$SELECT dp_protect('visits', '')$$),
  ($$SELECT dp_protect(NULL, 'user_id')$$),
  ($$SELECT dp_protect('nosuch_table', 'user_id')$$),
  ($$SELECT dp_protect('visits_visit_id_seq', 'user_id')$$)
) AS v(q);
CREATE TABLE odd_units (u point, x integer);
SELECT expect_error($$SELECT dp_protect('odd_units', 'u')$$) AS error;
SELECT relation, privacy_unit, max_groups_contributed, max_rows_per_group FROM dp_protected;

-- Only superusers declare or clear protection (not the owner of the table).
CREATE TABLE owned (u integer, x integer);
ALTER TABLE owned OWNER TO dp_protect_owner;
GRANT EXECUTE ON FUNCTION dp_protect(regclass, text, integer, integer) TO dp_protect_owner;
SET ROLE dp_protect_owner;
SELECT expect_error($$SECURITY LABEL FOR dpagg ON TABLE owned IS 'privacy_unit = u'$$) AS error;
SELECT expect_error($$SELECT dp_protect('owned', 'u')$$) AS error;
SELECT expect_error($$SELECT dp_unprotect('visits')$$) AS error;
RESET ROLE;
REVOKE EXECUTE ON FUNCTION dp_protect(regclass, text, integer, integer) FROM dp_protect_owner;

-- The unit column cannot be dropped or renamed while the label names it; other columns can.
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$ALTER TABLE visits DROP COLUMN user_id$$),
  ($$ALTER TABLE visits RENAME COLUMN user_id TO uid$$),
  ($$ALTER TABLE visits RENAME user_id TO uid$$),
  ($$ALTER TABLE visits ADD COLUMN spare integer$$),
  ($$ALTER TABLE visits RENAME COLUMN spare TO spare2$$),
  ($$ALTER TABLE visits DROP COLUMN spare2$$),
  ($$ALTER TABLE visits ALTER COLUMN user_id SET NOT NULL$$)
) AS v(q);
ALTER TABLE visits ALTER COLUMN user_id DROP NOT NULL;

-- Shapes dpagg bounds per privacy unit, however the relation is reached ("no error"), and shapes
-- it cannot bound, refused before anything is charged.
SELECT count(*) AS releases_before FROM dp_ledger \gset
CREATE VIEW dp_test_private_view AS SELECT t FROM visits WHERE t > 0;
CREATE TABLE visits_part (user_id integer, t double precision) PARTITION BY RANGE (t);
CREATE TABLE visits_part_1 PARTITION OF visits_part FOR VALUES FROM (0) TO (1000);
INSERT INTO visits_part SELECT user_id, t FROM visits;
SELECT dp_protect('visits_part', 'user_id');
CREATE FUNCTION visits_rows() RETURNS SETOF double precision LANGUAGE sql STABLE
  AS $$ SELECT t FROM visits $$;
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_count(1, 1e-5) FROM visits$$),
  ($$SELECT region, dp_sum(t, 1, 1e-5, 0, 10) FROM visits GROUP BY region$$),
  ($$SELECT r.region, dp_count(v.t, 1, 1e-5) FROM regions r LEFT JOIN visits v USING (region) GROUP BY 1$$),
  ($$SELECT * FROM (SELECT dp_avg(t, 1, 1e-5, 0, 10) FROM visits) s$$),
  ($$WITH c AS MATERIALIZED (SELECT t FROM visits) SELECT dp_sum(t, 1, 1e-5, 1) FROM c$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM dp_test_private_view$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 1) FROM visits_rows() x$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM visits_part$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM visits_part_1$$),
  ($$SELECT dp_sum_vector(ARRAY[t, t], 2, 1, 1e-5, 1) FROM visits$$),
  ($$EXPLAIN ANALYZE SELECT dp_count(1, 1e-5) FROM visits$$),
  ($$SELECT dp_sum(a.t, 1, 1e-5, 1) FROM visits a JOIN visits b USING (user_id)$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM visits WHERE t > (SELECT avg(t) FROM visits)$$),
  ($$SELECT dp_count(1, 1e-5) FROM regions WHERE region IN (SELECT region FROM visits)$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM (SELECT user_id, t FROM visits LIMIT 10) s$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM (SELECT user_id, sum(t) AS t FROM visits GROUP BY 1) s$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM (SELECT user_id, t FROM visits UNION ALL SELECT user_id, t FROM visits) s$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM (SELECT user_id + 1 AS u, t FROM visits) s$$),
  ($$SELECT region, dp_sum(t, 1, 1e-5, 1), count(*) FROM visits GROUP BY region$$),
  ($$SELECT region, dp_sum(t, 1, 1e-5, 1) FROM visits GROUP BY ROLLUP (region)$$),
  ($$SELECT region, dp_sum(t, 1, 1e-5, 1), (SELECT 1) FROM visits GROUP BY region$$),
  ($$SELECT region, dp_sum(t, 1, 1e-5, 1 ORDER BY t) FROM visits GROUP BY region$$),
  ($$SELECT dp_sum(DISTINCT t, 1, 1e-5, 1) FROM visits$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM visits FOR UPDATE$$),
  ($$SELECT dpagg_unit_count(1, 1, 1e-5, NULL, 1, 1, 'user_id') FROM visits$$),
  ($$SELECT dpagg_unit_select(1, 1e-5, 1, 'auto', 'user_id') FROM regions$$),
  ($$SELECT region, dp_count(1, 0, 'laplace') FROM visits GROUP BY region$$),
  ($$SELECT region, dp_count(1, 1e-5) FROM visits GROUP BY region$$),
  ($$SELECT * FROM (SELECT region, dp_sum(t, 1, 1e-5, 1) FROM visits GROUP BY region) s ORDER BY 2 DESC LIMIT 1$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 1) FROM (SELECT user_id, t FROM visits v JOIN regions r USING (region) WHERE r.region <> 'r0') s$$),
  ($$SELECT region, dp_avg(t, 1, 1e-5, 0, 500) FILTER (WHERE t > 100) FROM visits GROUP BY region$$)
) AS v(q);
-- The per-unit aggregates may not be stored in a view or a function's body either.
SELECT expect_error($$CREATE VIEW sneaky AS SELECT dpagg_unit_count(1, 1, 1e-5, NULL, 1, 1, 'user_id') FROM visits$$) AS error;
CREATE FUNCTION sneaky() RETURNS TABLE (n bigint) LANGUAGE sql
  BEGIN ATOMIC SELECT dpagg_unit_count(1, 1, 1e-5, NULL, 1, 1, 'user_id') FROM visits; END;
SELECT expect_error($$SELECT * FROM sneaky()$$) AS error;
DROP FUNCTION sneaky();
-- A SQL function the planner inlines after the rewrite may not read the private relation again.
CREATE FUNCTION all_visits() RETURNS SETOF visits STABLE LANGUAGE sql AS 'SELECT * FROM visits';
CREATE FUNCTION all_visits_atomic() RETURNS SETOF visits STABLE LANGUAGE sql
  BEGIN ATOMIC SELECT * FROM visits; END;
CREATE TABLE secrets (user_id integer, amount double precision);
INSERT INTO secrets VALUES (1, 1000);
SELECT dp_protect('secrets', 'user_id');
CREATE ROLE dp_rls_analyst;
GRANT SELECT ON visits, secrets TO dp_rls_analyst;
ALTER TABLE visits ENABLE ROW LEVEL SECURITY;
CREATE POLICY peek ON visits TO dp_rls_analyst
  USING (EXISTS (SELECT 1 FROM secrets s WHERE s.user_id = 1 AND s.amount > 500));
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_count(1, 1e-5) FROM visits WHERE EXISTS (SELECT 1 FROM all_visits() w WHERE w.user_id = 42)$$),
  ($$SELECT w.region, dp_count(1, 1e-5) FROM visits v JOIN all_visits_atomic() w ON w.user_id = 42 GROUP BY 1$$),
  ($$SET ROLE dp_rls_analyst; SELECT dp_count(1, 1e-5) FROM visits$$),
  ($$SELECT dp_sum(t, (SELECT 1.0::float8), 1e-5, 1) FROM visits$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 0, t) FROM visits$$),
  ($$SELECT dp_sum(t, 1, 1e-5, 0, user_id) FROM visits$$),
  ($$SELECT dp_sum(CASE WHEN user_id = 1 THEN 1.7e308::float8 ELSE 0 END, 1, 1e-5, 0, 1) FROM visits$$),
  ($$SELECT dp_avg(CASE WHEN user_id = 1 THEN 1.7e308::float8 ELSE 0 END, 1, 1e-5, 0, 1) FROM visits$$),
  ($$CREATE TABLE visits_child () INHERITS (visits)$$),
  ($$CREATE TABLE loose (LIKE visits); ALTER TABLE loose INHERIT visits$$)
) AS v(q);
RESET ROLE;
DROP POLICY peek ON visits;
ALTER TABLE visits DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON visits, secrets FROM dp_rls_analyst;
DROP ROLE dp_rls_analyst;
DROP TABLE secrets;
DROP FUNCTION all_visits(), all_visits_atomic();
-- Group keys whose equal values can be written differently (numeric 10 and 10.000, float 0 and
-- -0, interval, nondeterministic collations) would print one unit's spelling: refused; their text
-- is fine.  A unit join must be the units' own equality on the columns themselves.
-- Partitions cannot be labelled, nor labelled tables attached as partitions or made to inherit:
-- a private child of a table that is not private would be read through it, unbounded.
CREATE TABLE sales (region text, user_id integer) PARTITION BY LIST (region);
CREATE TABLE sales_pub PARTITION OF sales FOR VALUES IN ('r0');
CREATE TABLE sales_other PARTITION OF sales DEFAULT;
CREATE TABLE loose_priv (region text, user_id integer);
SELECT dp_protect('loose_priv', 'user_id');
CREATE TABLE pub_parent (region text, user_id integer);
CREATE TABLE text_units (uid text, g text);
SELECT dp_protect('text_units', 'uid');
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT amount, dp_count(1, 1e-5) FROM visits GROUP BY amount$$),
  ($$SELECT t, dp_count(1, 1e-5) FROM visits GROUP BY t$$),
  ($$SELECT amount::text, dp_count(1, 1e-5) FROM visits GROUP BY 1$$),
  ($$SELECT dp_count(1, 1e-5) FROM visits a JOIN visits b ON a.user_id::bigint = b.user_id::bigint$$),
  ($$SELECT dp_count(1, 1e-5) FROM text_units a JOIN text_units b ON a.uid::bpchar = b.uid::bpchar$$),
  ($$SELECT dp_count(1, 1e-5) FROM text_units a JOIN text_units b ON a.uid = b.uid$$),
  ($$SELECT dp_protect('sales_other', 'user_id')$$),
  ($$ALTER TABLE sales ATTACH PARTITION loose_priv FOR VALUES IN ('r1')$$),
  ($$ALTER TABLE loose_priv INHERIT pub_parent$$)
) AS v(q);
DROP TABLE sales, loose_priv, pub_parent, text_units;
-- Nested statements: a function that is not inlined runs statements of its own.  The first two
-- are refused when the function runs, after the outer aggregation was charged (as any error once
-- an aggregation has begun); the last two before the inner aggregation is charged.
CREATE FUNCTION visits_plpgsql() RETURNS SETOF double precision LANGUAGE plpgsql
  AS $$ BEGIN RETURN QUERY SELECT t FROM visits; END $$;
CREATE FUNCTION visits_volatile() RETURNS SETOF double precision LANGUAGE sql VOLATILE
  AS $$ SELECT t FROM visits $$;
CREATE FUNCTION dp_of(a double precision[]) RETURNS double precision LANGUAGE plpgsql
  AS $$ BEGIN RETURN (SELECT dp_sum(x, 1, 1e-5, 1) FROM unnest(a) x); END $$;
CREATE TABLE sink (t double precision);
CREATE FUNCTION sink_dp() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN PERFORM dp_sum(t, 1, 1e-5, 1) FROM new_rows; RETURN NULL; END $$;
CREATE TRIGGER sink_dp AFTER INSERT ON sink REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sink_dp();
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dp_sum(x, 1, 1e-5, 1) FROM visits_plpgsql() x$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 1) FROM visits_volatile() x$$),
  ($$SELECT dp_of(array_agg(t)) FROM visits$$),
  ($$INSERT INTO sink SELECT t FROM visits$$)
) AS v(q);
-- A cursor over a private relation that is not running does not block other dpagg queries.
BEGIN;
DECLARE raw CURSOR FOR SELECT t FROM visits;
FETCH 1 FROM raw;
SELECT round(dp_count(1e6, 0, 'laplace')) AS n FROM regions;
COMMIT;
-- A partition this backend has already looked at becomes private with its parent.
CREATE TABLE later (user_id integer, t double precision) PARTITION BY RANGE (t);
CREATE TABLE later_1 PARTITION OF later FOR VALUES FROM (0) TO (1000);
INSERT INTO later SELECT user_id, t FROM visits;
SELECT round(dp_count(1e6, 0, 'laplace')) AS n FROM later_1;
SELECT dp_protect('later', 'user_id');
SELECT expect_error($$SELECT dp_count(1e6, 0, 'laplace') FROM later_1$$) AS error;
DROP TABLE later, sink;
DROP FUNCTION visits_plpgsql(), visits_volatile(), dp_of(double precision[]), sink_dp();
-- A private view protects what it reads (here a public table).
SELECT dp_protect('dp_test_private_view', 't');
SELECT dp_unprotect('visits');
SELECT expect_error($$SELECT dp_sum(t, 1, 1e-5, 1) FROM dp_test_private_view$$) AS error;
-- Charged: the allowed shapes above (one release per aggregate, and one per group selection),
-- the two outer aggregations above whose function was refused, the count over regions, the count
-- over later_1 before and after it became private, and the private view.
SELECT count(*) - :releases_before AS charged FROM dp_ledger;
-- EXPLAIN without ANALYZE releases nothing and is allowed; other queries are unaffected.
EXPLAIN (COSTS OFF) SELECT dp_sum(t, 1, 1e-5, 1) FROM dp_test_private_view;
SELECT count(*) FROM dp_test_private_view;
SELECT round(dp_count(1e6, 0, 'laplace')) AS n FROM visits;
-- A prepared statement planned before the protection is planned again after it: 500 rows, then
-- 50 privacy units, then 500 rows again.
PREPARE count_visits AS SELECT round(dp_count(1e6, 0, 'laplace')) FROM visits;
EXECUTE count_visits;
SELECT dp_protect('visits', 'user_id');
EXECUTE count_visits;
SELECT dp_unprotect('visits');
SELECT dp_unprotect('visits');
EXECUTE count_visits;
DEALLOCATE count_visits;
SELECT relation, privacy_unit FROM dp_protected ORDER BY relation::text;

DROP FUNCTION visits_rows();
DROP VIEW dp_test_private_view;
DROP TABLE visits, visits_part, regions, odd_units, owned;
DROP ROLE dp_protect_owner;
SELECT count(*) FROM dp_protected;
