-- dpagg 0.1.0 -> 1.0.0 (CHANGELOG.md; docs/versions.md).  Run by ALTER EXTENSION dpagg UPDATE.
\echo Use "ALTER EXTENSION dpagg UPDATE" to load this file. \quit

-- The versions of dpagg here: the library's (what the server loaded) and its SQL objects' in this
-- database (pg_extension).  While they differ, every release is refused with a hint to run ALTER
-- EXTENSION dpagg UPDATE (docs/versions.md).  New in 1.0.0.
CREATE FUNCTION dp_version(OUT library text, OUT sql_objects text)
  AS 'MODULE_PATHNAME', 'dpagg_version_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_version() IS
  'the versions of the dpagg library loaded and of its SQL objects in this database (releases are refused while they differ)';
