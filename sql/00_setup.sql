-- Setup shared by every dpagg regression test.
CREATE EXTENSION dpagg;
SELECT extname, extversion FROM pg_extension WHERE extname = 'dpagg';
-- The library loaded is of the same version as the SQL objects (docs/versions.md).
SELECT (dp_version()).library = extversion AS library_matches
  FROM pg_extension WHERE extname = 'dpagg';
-- Superusers are held to a budget like any role (dpagg.limit_superusers defaults to on), so the
-- role running the suite gets one, large enough for what the test files up to 40_parallel
-- release as it (epsilon 1e9 releases included).  50_statistics spends a delta no budget can hold:
-- from 45_superuser_unlimited on, superusers are unlimited.  The ledger is cluster-wide.
SELECT dp_set_budget(current_user::regrole, 1e15, 0.5);

-- 10000 rows; v = id % 100 in every numeric type, grp in 0..4.
CREATE TABLE dp_test AS
SELECT g AS id,
       (g % 100)::smallint AS i2, (g % 100)::integer AS i4, (g % 100)::bigint AS i8,
       (g % 100)::real AS f4, (g % 100)::double precision AS f8, (g % 100)::numeric AS num,
       g % 5 AS grp
FROM generate_series(1, 10000) g;
ANALYZE dp_test;
CREATE TABLE dp_empty (x integer);

-- expect_error(query): the SQLSTATE, message and hint of the error the query raises.
CREATE FUNCTION expect_error(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; hint text;
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
  RETURN st || ': ' || msg || CASE WHEN hint <> '' THEN E'\n  hint: ' || hint ELSE '' END;
END $$;

-- sigma(mechanism, eps, delta, sensitivity): the noise scale an aggregate uses.
CREATE FUNCTION sigma(m text, e float8, d float8, s float8) RETURNS float8
LANGUAGE sql AS $$ SELECT scale FROM dp_calibrate(m, e, d, s) $$;
