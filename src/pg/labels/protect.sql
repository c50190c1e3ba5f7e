
-- Private relations and their privacy units (src/pg/labels/protect.c; docs/guides/privacy-units.md).
-- A relation is private when it carries a security label of the provider dpagg, e.g.
--   SECURITY LABEL FOR dpagg ON TABLE visits IS 'privacy_unit = user_id, max_groups_contributed = 3';
-- dp_protect writes that label; pg_dump keeps it.  Only superusers may set or clear one.
CREATE FUNCTION dp_protect(relation regclass, privacy_unit text,
                           max_groups_contributed integer DEFAULT NULL,
                           max_rows_per_group integer DEFAULT NULL)
  RETURNS void
  AS 'MODULE_PATHNAME', 'dpagg_protect' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_protect(regclass, text, integer, integer) IS
  'declare a relation private: its privacy-unit column, the most groups a unit may contribute to (default 1), and optionally the most rows per group a count takes from one unit (0: none); protected again with the same unit, an argument left out keeps its value';
CREATE FUNCTION dp_unprotect(relation regclass) RETURNS boolean
  AS 'MODULE_PATHNAME', 'dpagg_unprotect' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_unprotect(regclass) IS
  'remove the protection of a relation; true if it had one';
REVOKE ALL ON FUNCTION dp_protect(regclass, text, integer, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_unprotect(regclass) FROM PUBLIC;

CREATE FUNCTION dpagg_protection_fields(label text,
    OUT privacy_unit text, OUT max_groups_contributed integer, OUT max_rows_per_group integer)
  RETURNS record
  AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE VIEW dp_protected AS
  SELECT s.objoid::regclass AS relation, c.relkind, f.privacy_unit,
         f.max_groups_contributed, f.max_rows_per_group, s.label
    FROM pg_seclabel s
    JOIN pg_class c ON c.oid = s.objoid
    CROSS JOIN LATERAL dpagg_protection_fields(s.label) f
   WHERE s.provider = 'dpagg' AND s.classoid = 'pg_class'::regclass AND s.objsubid = 0
     AND lower(btrim(s.label, E' \t\n\r')) <> 'public';
COMMENT ON VIEW dp_protected IS
  'the relations declared private in this database, with their privacy unit and contribution bounds (partitions of a private table are private too)';
GRANT SELECT ON dp_protected TO PUBLIC;

-- What restricted roles may read raw besides the catalog and their own temporary objects, and the
-- functions in C of other extensions they may call (src/pg/query/restrict_objects.c): objects a
-- superuser labelled 'public', e.g.  SECURITY LABEL FOR dpagg ON TABLE regions IS 'public';
CREATE VIEW dp_public AS
  SELECT s.objtype AS object_type, s.objname AS object
    FROM pg_seclabels s
   WHERE s.provider = 'dpagg' AND s.objtype <> 'role'
     AND lower(btrim(s.label, E' \t\n\r')) = 'public';
COMMENT ON VIEW dp_public IS
  'the relations restricted roles may read raw and the functions in C they may call, declared public by a superuser (SECURITY LABEL FOR dpagg ... IS ''public'')';
GRANT SELECT ON dp_public TO PUBLIC;

-- The order in which each privacy unit keeps at most max_groups_contributed of its groups: a
-- uniform number in [0, 1) from dpagg's secure generator, drawn afresh on every call (setseed
-- does not reach it).  Queries over private relations are rewritten to use it (src/pg/query/bound.c).
CREATE FUNCTION dpagg_random() RETURNS double precision
  AS 'MODULE_PATHNAME', 'dpagg_random' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION dpagg_random() IS
  'a uniform number in [0, 1) from the secure generator (used to choose the groups a privacy unit keeps)';

-- How private group selection behaves for given parameters; releases nothing (src/pg/aggregates/selection.c).
CREATE FUNCTION dp_group_selection(epsilon double precision, delta double precision,
    max_groups_contributed integer DEFAULT 1, strategy text DEFAULT 'auto',
    OUT strategy_used text, OUT keep_one_unit double precision,
    OUT units_for_half bigint, OUT units_for_99 bigint, OUT details jsonb)
  RETURNS record
  AS 'MODULE_PATHNAME', 'dpagg_group_selection_sql' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_group_selection(double precision, double precision, integer, text) IS
  'private group selection for (epsilon, delta, L): the strategy, the chance a group of one unit is released, the units needed for a 50 % and a 99 % chance; releases nothing';

-- How a query over private relations will be bounded; runs and releases nothing (src/pg/query/explain.c).
CREATE FUNCTION dp_explain(query text,
    OUT release integer, OUT aggregate text, OUT relation regclass, OUT privacy_unit text,
    OUT max_groups_contributed integer, OUT max_rows_per_group integer,
    OUT epsilon double precision, OUT delta double precision,
    OUT group_epsilon double precision, OUT group_delta double precision,
    OUT sensitivity double precision, OUT mechanism text, OUT noise_scale double precision,
    OUT details jsonb)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME', 'dpagg_explain_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_explain(text) IS
  'what a query will release and be charged: each release''s epsilon, delta, mechanism, noise and delta charged, over private relations its unit, L, bounds, per-group share and the group selection, and the total charge; runs nothing';

-- Restricted analysts (src/pg/query/restrict.c; docs/guides/restricted-analysts.md): a role labelled
-- 'restricted' (and every member of it) gets nothing but DP answers from private relations.
CREATE FUNCTION dp_restrict(role regrole) RETURNS void
  AS 'MODULE_PATHNAME', 'dpagg_restrict_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_restrict(regrole) IS
  'restrict a role (and its members) to differentially private answers from private relations';
CREATE FUNCTION dp_unrestrict(role regrole) RETURNS boolean
  AS 'MODULE_PATHNAME', 'dpagg_unrestrict_sql' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_unrestrict(regrole) IS
  'lift the restriction of a role; true if it was restricted itself (it may still be restricted through membership)';
REVOKE ALL ON FUNCTION dp_restrict(regrole) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_unrestrict(regrole) FROM PUBLIC;
CREATE FUNCTION dp_restricted(role oid) RETURNS boolean
  AS 'MODULE_PATHNAME', 'dpagg_role_restricted_sql' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_restricted(oid) IS
  'is the role restricted to differentially private answers (itself or as a member of a restricted role)?';

CREATE FUNCTION dp_restricted_functions(OUT function regprocedure, OUT leakproof boolean)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME', 'dpagg_restricted_functions_sql' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_restricted_functions() IS
  'the built-in functions (and so operators) restricted roles may apply to private rows: LEAKPROOF ones over the types dpagg trusts (leakproof = true), and the others dpagg checked by hand (besides dp_date_trunc and dp_extract)';

-- Date bucketing that never raises an error (src/pg/base/safe_date.c): NULL, not an error, where
-- date_trunc or extract would leave the timestamp range; restricted analysts may use these on
-- private rows (with a literal unit), not the built-ins.
CREATE FUNCTION dp_date_trunc(unit text, value timestamp) RETURNS timestamp
  AS 'MODULE_PATHNAME', 'dpagg_date_trunc_ts' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_date_trunc(unit text, value timestamptz) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'dpagg_date_trunc_tstz' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_date_trunc(unit text, value date) RETURNS timestamp
  AS 'MODULE_PATHNAME', 'dpagg_date_trunc_date' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_extract(field text, value timestamp) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_extract_ts' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_extract(field text, value timestamptz) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_extract_tstz' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_extract(field text, value date) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_extract_date' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_date_trunc(text, timestamp) IS
  'date_trunc that gives NULL instead of an error at the ends of the timestamp range (allowed on private rows for restricted roles)';
COMMENT ON FUNCTION dp_extract(text, timestamp) IS
  'extract of an integral field as bigint, NULL instead of an error at the ends of the range (allowed on private rows for restricted roles)';
