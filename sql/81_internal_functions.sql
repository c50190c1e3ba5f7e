-- Internal functions: no role reaches an internal error (SQLSTATE XX000) through dpagg_vadd (the
-- per-unit vector sum that the rewrite of dp_sum_vector over a private relation puts in analysts'
-- plans, src/pg/query/bound.c), its transition and combine functions, or dpagg_vquanta_sum's.  The
-- aggregate dpagg_vadd stays public; dpagg_vadd_trans and dpagg_vadd_combine are not (aggregate
-- execution checks EXECUTE on the aggregate, and on its support functions for the aggregate's
-- owner only), and whoever may still call them gets a real SQLSTATE.
CREATE ROLE dp_internal_user;
SET ROLE dp_internal_user;

-- 1. The calls of the reproduction, as an ordinary role.
-- The dimension changes between rows: 22023, not "state of the wrong size".
SELECT expect_error($$SELECT dpagg_vadd(ARRAY[1.0::float8, 2], CASE WHEN i < 3 THEN 2 ELSE 3 END) FROM generate_series(1, 5) i$$) AS error;
-- The support functions called directly, or used in an aggregate of one's own: no permission.
SELECT expect_error($$SELECT dpagg_vadd_trans(NULL, ARRAY[1.0::float8], 1)$$) AS error;
SELECT expect_error($$SELECT dpagg_vadd_combine(NULL, ARRAY[1.0::float8])$$) AS error;
SELECT expect_error($$CREATE AGGREGATE pg_temp.myv2(float8[]) (SFUNC = dpagg_vadd_combine, STYPE = float8[], INITCOND = '[0:1]={1,2}')$$) AS error;
SELECT expect_error($$CREATE AGGREGATE pg_temp.myv3(float8[], integer) (SFUNC = dpagg_vadd_trans, STYPE = float8[], INITCOND = '{NULL}')$$) AS error;
SELECT expect_error($$CREATE AGGREGATE pg_temp.myv4(float8[], integer) (SFUNC = dpagg_vadd_trans, STYPE = float8[], COMBINEFUNC = dpagg_vadd_combine)$$) AS error;
SELECT count(*) AS own_aggregates FROM pg_proc WHERE pronamespace = pg_my_temp_schema();

-- 2. dpagg_vadd itself: what it sums, and what it refuses (the dimension, by argument).
SELECT dpagg_vadd(v, 2) AS sum2, dpagg_vadd(v, 4) AS sum4
  FROM (VALUES (ARRAY[1.0::float8, NULL, 3]), (ARRAY[10.0::float8]), (NULL), (ARRAY[100.0::float8, 200, 300, 400, 500])) t(v);
SELECT dpagg_vadd(v, 2) AS empty FROM (SELECT ARRAY[1.0::float8] WHERE false) t(v);
SELECT dpagg_vadd(ARRAY[1e308::float8, -1e308], 2) AS saturated FROM generate_series(1, 2);
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dpagg_vadd(ARRAY[1.0::float8], NULL) FROM generate_series(1, 2)$$),
  ($$SELECT dpagg_vadd(ARRAY[1.0::float8], 0) FROM generate_series(1, 2)$$),
  ($$SELECT dpagg_vadd(ARRAY[1.0::float8], 10001) FROM generate_series(1, 2)$$),
  ($$SELECT dpagg_vadd(ARRAY[1.0::float8], 3 - i) FROM generate_series(1, 2) i$$),
  ($$SELECT dpagg_vadd(ARRAY[1.0::float8], i) OVER (ORDER BY i) FROM generate_series(1, 2) i$$)
) AS cases(q);
-- The dimension changes between rows of different parallel workers: the combine function refuses
-- it as the transition function does within one process (whichever of them sees it first, the
-- same SQLSTATE, message and hint).
RESET ROLE;
CREATE TABLE dp_internal_rows AS SELECT g AS id FROM generate_series(1, 100000) g;
ANALYZE dp_internal_rows;
GRANT SELECT ON dp_internal_rows TO dp_internal_user;
SET ROLE dp_internal_user;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT dpagg_vadd(ARRAY[1.0::float8, 2], CASE WHEN id > 50000 THEN 2 ELSE 1 END) FROM dp_internal_rows;
SELECT expect_error($$SELECT dpagg_vadd(ARRAY[1.0::float8, 2], CASE WHEN id > 50000 THEN 2 ELSE 1 END) FROM dp_internal_rows$$) AS error;
SELECT dpagg_vadd(ARRAY[1.0::float8, 2, 3], 2) AS parallel_sum FROM dp_internal_rows;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET ROLE;

-- The per-unit dp_sum_vector, whose rewrite sums each unit's vectors with dpagg_vadd, still runs
-- for ordinary and restricted analysts without EXECUTE on dpagg_vadd_trans or dpagg_vadd_combine,
-- in a parallel plan too.  Unit 0 has 1000 rows of (1, 1), clipped to norm 2; 100 units one row of
-- (1, 0) each; epsilon so large that the noise is far below the rounding.
CREATE TABLE dp_internal_vec (uid integer, v double precision[]);
INSERT INTO dp_internal_vec SELECT g, ARRAY[1, 0] FROM generate_series(1, 100) g;
INSERT INTO dp_internal_vec SELECT 0, ARRAY[1, 1] FROM generate_series(1, 1000);
ANALYZE dp_internal_vec;
SELECT dp_protect('dp_internal_vec', 'uid');
CREATE ROLE dp_internal_restricted;
GRANT SELECT ON dp_internal_vec TO dp_internal_user, dp_internal_restricted;
SELECT dp_restrict('dp_internal_restricted');
SELECT dp_set_budget('dp_internal_user', 1e9, 0.5), dp_set_budget('dp_internal_restricted', 1e9, 0.5);
SET dpagg.default_mechanism = 'laplace';
SET ROLE dp_internal_user;
SELECT array_agg(round(x::numeric, 2)) AS bounded_sums
  FROM unnest((SELECT dp_sum_vector(v, 2, 1e6, 1e-3, 2) FROM dp_internal_vec)) x;
SET ROLE dp_internal_restricted;
SELECT array_agg(round(x::numeric, 2)) AS bounded_sums
  FROM unnest((SELECT dp_sum_vector(v, 2, 1e6, 1e-3, 2) FROM dp_internal_vec)) x;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET ROLE dp_internal_user;
EXPLAIN (COSTS OFF) SELECT dp_sum_vector(v, 2, 1e6, 1e-3, 2) FROM dp_internal_vec;
SELECT array_agg(round(x::numeric, 2)) AS bounded_sums_parallel
  FROM unnest((SELECT dp_sum_vector(v, 2, 1e6, 1e-3, 2) FROM dp_internal_vec)) x;
SET ROLE dp_internal_restricted;
SELECT array_agg(round(x::numeric, 2)) AS bounded_sums_parallel
  FROM unnest((SELECT dp_sum_vector(v, 2, 1e6, 1e-3, 2) FROM dp_internal_vec)) x;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET ROLE;
RESET dpagg.default_mechanism;
SET ROLE dp_internal_user;

-- 3. dpagg_vquanta_sum's support functions are public (Citus's workers run them with the
-- analyst's rights): outside their aggregate, and on a state of one's own making, a real SQLSTATE.
SELECT expect_error($$SELECT dpagg_vquanta_trans(NULL, ARRAY[1.0::float8], 1, 1.0)$$) AS error;
SELECT expect_error($$SELECT dpagg_vquanta_combine(NULL, '\x00'::bytea)$$) AS error;
CREATE AGGREGATE pg_temp.vq(float8[], integer, float8) (SFUNC = dpagg_vquanta_trans, STYPE = bytea, INITCOND = '\x0100');
CREATE AGGREGATE pg_temp.vqc(bytea) (SFUNC = dpagg_vquanta_combine, STYPE = bytea);
SELECT expect_error($$SELECT pg_temp.vq(ARRAY[1.0::float8], 1, 1.0) FROM generate_series(1, 2)$$) AS error;
SELECT expect_error($$SELECT pg_temp.vqc(p) FROM (VALUES ('\x01'::bytea), ('\x02'::bytea)) t(p)$$) AS error;
SELECT expect_error($$SELECT pg_temp.vqc(p) FROM (SELECT dpagg_vquanta_sum(ARRAY[1.0::float8, 2], d, 1.0) FROM generate_series(1, 2) d GROUP BY d) t(p)$$) AS error;
DROP AGGREGATE pg_temp.vq(float8[], integer, float8);
DROP AGGREGATE pg_temp.vqc(bytea);

-- 4. By the catalog: which support functions of dpagg's aggregates an ordinary role may execute
-- (grouped by name), and what each raises when called directly.  Every other one is refused
-- (42501); a new public one shows up here.  (No SQL value is of type internal, and only a
-- superuser may create an aggregate whose state is internal.)
SELECT p.proname AS function, count(*) AS signatures,
       CASE WHEN bool_or('internal'::regtype::oid = ANY (p.proargtypes::oid[])) THEN '(takes internal: no call from SQL)'
            ELSE string_agg(DISTINCT expect_error(format('SELECT %s(%s)', p.oid::regproc,
                   (SELECT string_agg('NULL::' || format_type(t, NULL), ', ' ORDER BY o)
                      FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)))), '; ') END AS direct_call
  FROM pg_proc p
 WHERE p.oid IN (SELECT unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn,
                                     a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn])
                   FROM pg_aggregate a
                   JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = a.aggfnoid AND d.deptype = 'e'
                    AND d.refclassid = 'pg_extension'::regclass
                    AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dpagg'))
   AND has_function_privilege(p.oid, 'EXECUTE')
 GROUP BY p.proname ORDER BY 1;
SELECT f AS function, has_function_privilege(f, 'EXECUTE') AS may_execute
  FROM unnest(ARRAY['dpagg_vadd(double precision[], integer)',
                    'dpagg_vadd_trans(double precision[], double precision[], integer)',
                    'dpagg_vadd_combine(double precision[], double precision[])']::regprocedure[]) f;
RESET ROLE;

-- 5. Whoever may call them anyway (a superuser): a real SQLSTATE, never XX000.
SELECT q, expect_error(q) AS error
FROM (VALUES
  ($$SELECT dpagg_vadd_trans(NULL, ARRAY[1.0::float8], 1)$$),
  ($$SELECT dpagg_vadd_combine(NULL, ARRAY[1.0::float8])$$),
  ($$SELECT dpagg_vadd_combine(ARRAY[1.0::float8], NULL)$$)
) AS cases(q);
CREATE AGGREGATE pg_temp.myv2(float8[]) (SFUNC = dpagg_vadd_combine, STYPE = float8[], INITCOND = '[0:1]={1,2}');
CREATE AGGREGATE pg_temp.myv0(float8[]) (SFUNC = dpagg_vadd_combine, STYPE = float8[], INITCOND = '{}');
CREATE AGGREGATE pg_temp.myt(float8[], integer) (SFUNC = dpagg_vadd_trans, STYPE = float8[], INITCOND = '{1,NULL}');
CREATE AGGREGATE pg_temp.myt3(float8[], integer) (SFUNC = dpagg_vadd_trans, STYPE = float8[], INITCOND = '{1,2,3}');
SELECT q, expect_error(q) AS error
FROM (VALUES
  -- the reproduction's aggregate: a partial sum with a NULL element
  ($$SELECT pg_temp.myv2(ARRAY[1.0::float8, NULL]) FROM generate_series(1, 2)$$),
  -- partial sums of different sizes, or of none
  ($$SELECT pg_temp.myv2(ARRAY[1.0::float8, 2, 3]) FROM generate_series(1, 2)$$),
  ($$SELECT pg_temp.myv2('{}'::float8[]) FROM generate_series(1, 2)$$),
  ($$SELECT pg_temp.myv0(ARRAY[1.0::float8]) FROM generate_series(1, 2)$$),
  -- an initial state with a NULL element, or of another dimension
  ($$SELECT pg_temp.myt(ARRAY[1.0::float8], 2) FROM generate_series(1, 2)$$),
  ($$SELECT pg_temp.myt3(ARRAY[1.0::float8], 2) FROM generate_series(1, 2)$$)
) AS cases(q);
-- a well-formed partial sum is added
SELECT pg_temp.myv2(ARRAY[1.0::float8, 2]) AS combined, pg_temp.myt3(ARRAY[1.0::float8, 2, 3, 4], 3) AS summed
  FROM generate_series(1, 2);
DROP AGGREGATE pg_temp.myv2(float8[]);
DROP AGGREGATE pg_temp.myv0(float8[]);
DROP AGGREGATE pg_temp.myt(float8[], integer);
DROP AGGREGATE pg_temp.myt3(float8[], integer);
-- By the catalog: no support function of dpagg's aggregates that SQL can call directly (none
-- of its arguments internal), public or not, raises an internal error when called directly.
SELECT count(*) > 0 AS some_checked,
       count(*) FILTER (WHERE e LIKE 'XX000%') AS internal_errors,
       string_agg(f || ': ' || e, E'\n') FILTER (WHERE e LIKE 'XX000%') AS which
  FROM (SELECT p.oid::regprocedure::text AS f,
               expect_error(format('SELECT %s(%s)', p.oid::regproc,
                 (SELECT string_agg('NULL::' || format_type(t, NULL), ', ' ORDER BY o)
                    FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)))) AS e
          FROM pg_proc p
         WHERE p.oid IN (SELECT unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn,
                                             a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn])
                           FROM pg_aggregate a
                           JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = a.aggfnoid AND d.deptype = 'e'
                            AND d.refclassid = 'pg_extension'::regclass
                            AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dpagg'))
           AND NOT 'internal'::regtype::oid = ANY (p.proargtypes::oid[])) s;

DROP TABLE dp_internal_rows, dp_internal_vec;
DROP ROLE dp_internal_user, dp_internal_restricted;
