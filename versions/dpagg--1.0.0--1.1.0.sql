-- dpagg 1.0.0 -> 1.1.0 (CHANGELOG.md; docs/versions.md).  Run by ALTER EXTENSION dpagg UPDATE.
\echo Use "ALTER EXTENSION dpagg UPDATE" to load this file. \quit

-- dp_set_budget: an argument left out keeps the role's current value (a new budget needs
-- epsilon); max_release_epsilon => 'infinity' removes a cap (docs/guides/budgets.md).
CREATE OR REPLACE FUNCTION dp_set_budget(
    role regrole, epsilon double precision DEFAULT NULL, delta double precision DEFAULT NULL,
    method text DEFAULT NULL, max_release_epsilon double precision DEFAULT NULL)
  RETURNS void
  AS 'MODULE_PATHNAME', 'dpagg_set_budget' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_set_budget(regrole, double precision, double precision, text, double precision) IS
  'set or change the privacy budget of a role: total epsilon and delta, accounting method basic|zcdp, per-release epsilon cap (''infinity'': none); an argument left out keeps its current value';

-- dp_explain describes every release of a query, also over relations that are not private, and
-- its total is the charge (delta only where the mechanism uses it).
COMMENT ON FUNCTION dp_explain(text) IS
  'what a query will release and be charged: each release''s epsilon, delta, mechanism, noise and delta charged, over private relations its unit, L, bounds, per-group share and the group selection, and the total charge; runs nothing';

-- The ledger's views: the name of the role at the time, the client statement and the statement id
-- of each release (budget_views.c); the columns of 1.0.0 keep their order and types.
-- 1.1.0: the journal with the statement of each release and the names recorded at the time
-- (budget_views.c); dpagg_journal() is kept as it was for what a DBA built on it.
CREATE FUNCTION dpagg_events(
    OUT seq bigint, OUT event text, OUT at timestamptz, OUT role name, OUT role_oid oid,
    OUT database name, OUT actor name, OUT pid integer, OUT query_id bigint, OUT query text,
    OUT aggregate text, OUT mechanism text, OUT epsilon double precision,
    OUT delta double precision, OUT rho double precision, OUT limited boolean,
    OUT method text, OUT max_release_epsilon double precision,
    OUT statement_id bigint, OUT role_now name)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME', 'dpagg_journal' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE OR REPLACE VIEW dp_ledger AS
  SELECT seq, at AS released_at, role, role_oid, database, actor, pid, query_id, query,
         aggregate, mechanism, epsilon, delta, rho, limited, statement_id, role_now
    FROM dpagg_events() WHERE event = 'release';
COMMENT ON VIEW dp_ledger IS
  'every release: when, by which role (its name then, and now), in which database, the client statement, aggregate, mechanism, epsilon, delta and zCDP rho, and the statement it belongs to (a role sees its own rows; pg_read_all_stats members see all)';
COMMENT ON COLUMN dp_ledger.role IS 'the role charged, by its name at the time of the release';
COMMENT ON COLUMN dp_ledger.role_now IS 'the role''s name today (NULL once it is dropped)';
COMMENT ON COLUMN dp_ledger.query IS 'the statement the client sent (and, after "-- running:", the statement inside it that released, e.g. a function''s body)';
COMMENT ON COLUMN dp_ledger.statement_id IS 'the same for every release of one client statement: the seq of its first release';
CREATE OR REPLACE VIEW dp_budget_log AS
  SELECT seq, at, event, role, role_oid, actor, epsilon, delta, method, max_release_epsilon, role_now
    FROM dpagg_events() WHERE event <> 'release';
COMMENT ON VIEW dp_budget_log IS 'every change of a privacy budget, and who made it';
COMMENT ON COLUMN dp_budget_log.role IS 'the role, by its name at the time of the change (a dropped role''s too)';
COMMENT ON COLUMN dp_budget_log.role_now IS 'the role''s name today (NULL once it is dropped)';
COMMENT ON COLUMN dp_budgets.epsilon_spent IS 'basic accounting: the sum of the releases'' epsilons; zcdp: the total rho converted to epsilon at half the budget''s delta (rho + 2 sqrt(rho ln(2/delta))), which includes a fixed cost from the first release on';
COMMENT ON COLUMN dp_budgets.delta_spent IS 'basic: the sum of the releases'' deltas (0 for mechanisms that use none); zcdp: the half of the budget''s delta reserved for the conversion (from the first release on) plus the deltas of the approximate releases';

-- dp_protect: protected again with the same unit, an argument left out keeps its value; 0 removes
-- the row cap (labels/protect.c).
CREATE OR REPLACE FUNCTION dp_protect(relation regclass, privacy_unit text,
                           max_groups_contributed integer DEFAULT NULL,
                           max_rows_per_group integer DEFAULT NULL)
  RETURNS void
  AS 'MODULE_PATHNAME', 'dpagg_protect' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_protect(regclass, text, integer, integer) IS
  'declare a relation private: its privacy-unit column, the most groups a unit may contribute to (default 1), and optionally the most rows per group a count takes from one unit (0: none); protected again with the same unit, an argument left out keeps its value';


-- Private quantiles: dp_percentile, dp_median, dp_percentiles (src/pg/aggregates/percentile.c,
-- docs/quantiles.md).  Their support functions are for them only (the REVOKE below).
-- dp_percentile and dp_median: a private quantile of values counted in 1 024 bins of [lower, upper].
CREATE FUNCTION dpagg_percentile_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_percentile_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_percentile_serialize(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_percentile_deserialize(bytea, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_percentile_trans_int2(internal, value smallint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value smallint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentile_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value smallint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_int2(internal, value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_median_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_int2_m(internal, value smallint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value smallint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentile_trans_int2_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value smallint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_int2_m(internal, value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_median_trans_int2_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_int4(internal, value integer, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value integer, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentile_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value integer, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_int4(internal, value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_median_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_int4_m(internal, value integer, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value integer, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentile_trans_int4_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value integer, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_int4_m(internal, value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_median_trans_int4_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_int8(internal, value bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentile_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_int8(internal, value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_median_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_int8_m(internal, value bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentile_trans_int8_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_int8_m(internal, value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_median_trans_int8_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_float4(internal, value real, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value real, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentile_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value real, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_float4(internal, value real, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_median_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_float4_m(internal, value real, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value real, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentile_trans_float4_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value real, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_float4_m(internal, value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_median_trans_float4_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_float8(internal, value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentile_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_float8(internal, value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_median_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_float8_m(internal, value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentile_trans_float8_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_float8_m(internal, value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_median_trans_float8_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_numeric(internal, value numeric, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value numeric, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentile_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value numeric, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_numeric(internal, value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_median_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_percentile_trans_numeric_m(internal, value numeric, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value numeric, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentile_trans_numeric_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value numeric, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile of values in [lower, upper] (permute-and-flip)';

CREATE FUNCTION dpagg_median_trans_numeric_m(internal, value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_median_trans_numeric_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median of values in [lower, upper] (permute-and-flip)';

-- dp_percentiles: several private quantiles released together (each at epsilon / k).
CREATE FUNCTION dpagg_percentiles_final(internal) RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_percentiles_trans_int2(internal, value smallint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value smallint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentiles_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value smallint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_int2_m(internal, value smallint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value smallint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentiles_trans_int2_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value smallint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_int4(internal, value integer, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value integer, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentiles_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value integer, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_int4_m(internal, value integer, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value integer, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentiles_trans_int4_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value integer, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_int8(internal, value bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentiles_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_int8_m(internal, value bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentiles_trans_int8_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_float4(internal, value real, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value real, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentiles_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value real, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_float4_m(internal, value real, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value real, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentiles_trans_float4_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value real, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_float8(internal, value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentiles_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_float8_m(internal, value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentiles_trans_float8_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_numeric(internal, value numeric, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value numeric, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_percentiles_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value numeric, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private quantiles of values in [lower, upper], released together';

CREATE FUNCTION dpagg_percentiles_trans_numeric_m(internal, value numeric, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value numeric, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_percentiles_trans_numeric_m, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value numeric, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles of values in [lower, upper], released together';

REVOKE ALL ON FUNCTION
  dpagg_percentile_combine(internal, internal),
  dpagg_percentile_final(internal),
  dpagg_percentile_serialize(internal),
  dpagg_percentile_deserialize(bytea, internal),
  dpagg_percentile_trans_int2(internal, smallint, double precision, double precision, double precision, double precision, double precision),
  dpagg_median_trans_int2(internal, smallint, double precision, double precision, double precision, double precision),
  dpagg_percentile_trans_int2_m(internal, smallint, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_median_trans_int2_m(internal, smallint, double precision, double precision, double precision, double precision, text),
  dpagg_percentile_trans_int4(internal, integer, double precision, double precision, double precision, double precision, double precision),
  dpagg_median_trans_int4(internal, integer, double precision, double precision, double precision, double precision),
  dpagg_percentile_trans_int4_m(internal, integer, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_median_trans_int4_m(internal, integer, double precision, double precision, double precision, double precision, text),
  dpagg_percentile_trans_int8(internal, bigint, double precision, double precision, double precision, double precision, double precision),
  dpagg_median_trans_int8(internal, bigint, double precision, double precision, double precision, double precision),
  dpagg_percentile_trans_int8_m(internal, bigint, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_median_trans_int8_m(internal, bigint, double precision, double precision, double precision, double precision, text),
  dpagg_percentile_trans_float4(internal, real, double precision, double precision, double precision, double precision, double precision),
  dpagg_median_trans_float4(internal, real, double precision, double precision, double precision, double precision),
  dpagg_percentile_trans_float4_m(internal, real, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_median_trans_float4_m(internal, real, double precision, double precision, double precision, double precision, text),
  dpagg_percentile_trans_float8(internal, double precision, double precision, double precision, double precision, double precision, double precision),
  dpagg_median_trans_float8(internal, double precision, double precision, double precision, double precision, double precision),
  dpagg_percentile_trans_float8_m(internal, double precision, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_median_trans_float8_m(internal, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_percentile_trans_numeric(internal, numeric, double precision, double precision, double precision, double precision, double precision),
  dpagg_median_trans_numeric(internal, numeric, double precision, double precision, double precision, double precision),
  dpagg_percentile_trans_numeric_m(internal, numeric, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_median_trans_numeric_m(internal, numeric, double precision, double precision, double precision, double precision, text),
  dpagg_percentiles_final(internal),
  dpagg_percentiles_trans_int2(internal, smallint, double precision[], double precision, double precision, double precision, double precision),
  dpagg_percentiles_trans_int2_m(internal, smallint, double precision[], double precision, double precision, double precision, double precision, text),
  dpagg_percentiles_trans_int4(internal, integer, double precision[], double precision, double precision, double precision, double precision),
  dpagg_percentiles_trans_int4_m(internal, integer, double precision[], double precision, double precision, double precision, double precision, text),
  dpagg_percentiles_trans_int8(internal, bigint, double precision[], double precision, double precision, double precision, double precision),
  dpagg_percentiles_trans_int8_m(internal, bigint, double precision[], double precision, double precision, double precision, double precision, text),
  dpagg_percentiles_trans_float4(internal, real, double precision[], double precision, double precision, double precision, double precision),
  dpagg_percentiles_trans_float4_m(internal, real, double precision[], double precision, double precision, double precision, double precision, text),
  dpagg_percentiles_trans_float8(internal, double precision, double precision[], double precision, double precision, double precision, double precision),
  dpagg_percentiles_trans_float8_m(internal, double precision, double precision[], double precision, double precision, double precision, double precision, text),
  dpagg_percentiles_trans_numeric(internal, numeric, double precision[], double precision, double precision, double precision, double precision),
  dpagg_percentiles_trans_numeric_m(internal, numeric, double precision[], double precision, double precision, double precision, double precision, text)
  FROM PUBLIC;

-- Private variances and standard deviations: dp_var_pop, dp_var_samp, dp_stddev_pop,
-- dp_stddev_samp and their _report forms (src/pg/aggregates/variance.c, docs/variance.md).
-- Their support functions are for them only (the REVOKE below).
-- dp_var_pop: the population variance of values clamped to [lower, upper], from a noisy count, sum and sum of squares.
CREATE FUNCTION dpagg_variance_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_var_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_var_pop_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_variance_serialize(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_variance_deserialize(bytea, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_variance_trans_int2(internal, value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_int2_m(internal, value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_int4(internal, value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_int4_m(internal, value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_int8(internal, value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_int8_m(internal, value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_float4(internal, value real, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_float4_m(internal, value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_float8(internal, value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_float8_m(internal, value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_numeric(internal, value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE FUNCTION dpagg_variance_trans_numeric_m(internal, value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_variance_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance of values clamped to [lower, upper], with its noise interval (one release)';

-- dp_var_samp: the sample variance of values clamped to [lower, upper], from a noisy count, sum and sum of squares.
CREATE FUNCTION dpagg_var_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_var_samp_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_var_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_var_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper]';

CREATE AGGREGATE dp_var_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_var_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance of values clamped to [lower, upper], with its noise interval (one release)';

-- dp_stddev_pop: the population standard deviation of values clamped to [lower, upper], from a noisy count, sum and sum of squares.
CREATE FUNCTION dpagg_stddev_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_stddev_pop_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_stddev_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_pop_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

-- dp_stddev_samp: the sample standard deviation of values clamped to [lower, upper], from a noisy count, sum and sum of squares.
CREATE FUNCTION dpagg_stddev_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_stddev_samp_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_stddev_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int2, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int2_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value smallint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value integer, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_int8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_int8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float4, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float4_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value real, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_float8, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_float8_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) (
  SFUNC = dpagg_variance_trans_numeric, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';

CREATE AGGREGATE dp_stddev_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper]';

CREATE AGGREGATE dp_stddev_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_variance_trans_numeric_m, STYPE = internal, SSPACE = 64,
  COMBINEFUNC = dpagg_variance_combine, SERIALFUNC = dpagg_variance_serialize,
  DESERIALFUNC = dpagg_variance_deserialize, FINALFUNC = dpagg_stddev_samp_report_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp_report(value numeric, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation of values clamped to [lower, upper], with its noise interval (one release)';
REVOKE ALL ON FUNCTION
  dpagg_variance_combine(internal, internal),
  dpagg_var_pop_final(internal),
  dpagg_var_pop_report_final(internal),
  dpagg_variance_serialize(internal),
  dpagg_variance_deserialize(bytea, internal),
  dpagg_variance_trans_int2(internal, smallint, double precision, double precision, double precision, double precision),
  dpagg_variance_trans_int2_m(internal, smallint, double precision, double precision, double precision, double precision, text),
  dpagg_variance_trans_int4(internal, integer, double precision, double precision, double precision, double precision),
  dpagg_variance_trans_int4_m(internal, integer, double precision, double precision, double precision, double precision, text),
  dpagg_variance_trans_int8(internal, bigint, double precision, double precision, double precision, double precision),
  dpagg_variance_trans_int8_m(internal, bigint, double precision, double precision, double precision, double precision, text),
  dpagg_variance_trans_float4(internal, real, double precision, double precision, double precision, double precision),
  dpagg_variance_trans_float4_m(internal, real, double precision, double precision, double precision, double precision, text),
  dpagg_variance_trans_float8(internal, double precision, double precision, double precision, double precision, double precision),
  dpagg_variance_trans_float8_m(internal, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_variance_trans_numeric(internal, numeric, double precision, double precision, double precision, double precision),
  dpagg_variance_trans_numeric_m(internal, numeric, double precision, double precision, double precision, double precision, text),
  dpagg_var_samp_final(internal),
  dpagg_var_samp_report_final(internal),
  dpagg_stddev_pop_final(internal),
  dpagg_stddev_pop_report_final(internal),
  dpagg_stddev_samp_final(internal),
  dpagg_stddev_samp_report_final(internal)
  FROM PUBLIC;

-- The per-unit forms of the variances (src/pg/query/bound.c rewrites dp_var_pop and its
-- sibling forms over a private relation into them; docs/variance.md, "Per privacy unit").
-- dpagg_unit_var_pop: the population variance of per-unit averages clamped to [lower, upper].
CREATE FUNCTION dpagg_unit_var_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_var_pop_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_variance_trans(internal, value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_variance_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_var_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_var_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_var_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_var_pop over a private relation, per unit';

CREATE AGGREGATE dpagg_unit_var_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_var_pop_report_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_var_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_var_pop over a private relation, per unit, with its noise interval (one release)';
-- dpagg_unit_var_samp: the sample variance of per-unit averages clamped to [lower, upper].
CREATE FUNCTION dpagg_unit_var_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_var_samp_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_var_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_var_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_var_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_var_samp over a private relation, per unit';

CREATE AGGREGATE dpagg_unit_var_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_var_samp_report_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_var_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_var_samp over a private relation, per unit, with its noise interval (one release)';
-- dpagg_unit_stddev_pop: the population standard deviation of per-unit averages clamped to [lower, upper].
CREATE FUNCTION dpagg_unit_stddev_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_stddev_pop_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_stddev_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_stddev_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_stddev_pop(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_stddev_pop over a private relation, per unit';

CREATE AGGREGATE dpagg_unit_stddev_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_stddev_pop_report_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_stddev_pop_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_stddev_pop over a private relation, per unit, with its noise interval (one release)';
-- dpagg_unit_stddev_samp: the sample standard deviation of per-unit averages clamped to [lower, upper].
CREATE FUNCTION dpagg_unit_stddev_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_stddev_samp_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_stddev_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_stddev_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_stddev_samp(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_stddev_samp over a private relation, per unit';

CREATE AGGREGATE dpagg_unit_stddev_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_unit_stddev_samp_report_final, FINALFUNC_MODIFY = READ_WRITE,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_stddev_samp_report(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_stddev_samp over a private relation, per unit, with its noise interval (one release)';
REVOKE ALL ON FUNCTION
  dpagg_unit_var_pop_final(internal),
  dpagg_unit_var_pop_report_final(internal),
  dpagg_unit_variance_trans(internal, double precision, double precision, double precision, double precision, double precision, text, integer, text),
  dpagg_unit_var_samp_final(internal),
  dpagg_unit_var_samp_report_final(internal),
  dpagg_unit_stddev_pop_final(internal),
  dpagg_unit_stddev_pop_report_final(internal),
  dpagg_unit_stddev_samp_final(internal),
  dpagg_unit_stddev_samp_report_final(internal)
  FROM PUBLIC;

-- The per-unit forms of the quantiles (src/pg/query/bound.c rewrites dp_percentile, dp_median and
-- dp_percentiles over a private relation into them; docs/quantiles.md, "Per privacy unit").
-- dpagg_unit_percentile and dpagg_unit_median: a private quantile of per-unit averages.
CREATE FUNCTION dpagg_unit_percentile_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_percentile_trans(internal, value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_percentile_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_percentile(value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_percentile_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_unit_percentile_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_percentile(value double precision, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_percentile over a private relation, per unit';

CREATE FUNCTION dpagg_unit_median_trans(internal, value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_percentile_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_median(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_median_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_unit_percentile_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_median(value double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_median over a private relation, per unit';

-- dpagg_unit_percentiles: several private quantiles of per-unit averages.
CREATE FUNCTION dpagg_unit_percentiles_final(internal) RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_percentiles_trans(internal, value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_percentile_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_percentiles_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_unit_percentiles_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text, max_groups integer, privacy_unit text) IS 'internal: dp_percentiles over a private relation, per unit';
REVOKE ALL ON FUNCTION
  dpagg_unit_percentile_final(internal),
  dpagg_unit_percentile_trans(internal, double precision, double precision, double precision, double precision, double precision, double precision, text, integer, text),
  dpagg_unit_median_trans(internal, double precision, double precision, double precision, double precision, double precision, text, integer, text),
  dpagg_unit_percentiles_final(internal),
  dpagg_unit_percentiles_trans(internal, double precision, double precision[], double precision, double precision, double precision, double precision, text, integer, text)
  FROM PUBLIC;

-- dp_sum without bounds: the bounds chosen privately (src/pg/aggregates/auto_bounds.c,
-- docs/automatic_bounds.md).  Its support functions are for it only (the REVOKE below).
-- dp_sum without bounds: the bounds chosen privately from a histogram of magnitudes (half of epsilon).
CREATE FUNCTION dpagg_auto_sum_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_sum_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_sum_serialize(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_sum_deserialize(bytea, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_sum_trans_int2(internal, value smallint, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_sum_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_sum(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_sum_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_sum(value smallint, epsilon double precision, delta double precision) IS 'differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_sum_trans_int4(internal, value integer, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_sum_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_sum(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_sum_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_sum(value integer, epsilon double precision, delta double precision) IS 'differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_sum_trans_int8(internal, value bigint, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_sum_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_sum(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_sum_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_sum(value bigint, epsilon double precision, delta double precision) IS 'differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_sum_trans_float4(internal, value real, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_sum_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_sum(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_sum_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_sum(value real, epsilon double precision, delta double precision) IS 'differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_sum_trans_float8(internal, value double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_sum_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_sum(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_sum_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_sum(value double precision, epsilon double precision, delta double precision) IS 'differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_sum_trans_numeric(internal, value numeric, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_sum_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_sum(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_sum_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_sum(value numeric, epsilon double precision, delta double precision) IS 'differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data';
REVOKE ALL ON FUNCTION
  dpagg_auto_sum_combine(internal, internal),
  dpagg_auto_sum_final(internal),
  dpagg_auto_sum_serialize(internal),
  dpagg_auto_sum_deserialize(bytea, internal),
  dpagg_auto_sum_trans_int2(internal, smallint, double precision, double precision),
  dpagg_auto_sum_trans_int4(internal, integer, double precision, double precision),
  dpagg_auto_sum_trans_int8(internal, bigint, double precision, double precision),
  dpagg_auto_sum_trans_float4(internal, real, double precision, double precision),
  dpagg_auto_sum_trans_float8(internal, double precision, double precision, double precision),
  dpagg_auto_sum_trans_numeric(internal, numeric, double precision, double precision)
  FROM PUBLIC;

-- dp_avg without bounds (src/pg/aggregates/auto_bounds.c, docs/automatic_bounds.md).
-- dp_avg without bounds: the bounds chosen privately from a histogram of magnitudes (half of epsilon).
CREATE FUNCTION dpagg_auto_avg_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_avg(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_avg_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_avg(value smallint, epsilon double precision, delta double precision) IS 'differentially private average, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_avg(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_avg_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_avg(value integer, epsilon double precision, delta double precision) IS 'differentially private average, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_avg(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_avg_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_avg(value bigint, epsilon double precision, delta double precision) IS 'differentially private average, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_avg(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_avg_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_avg(value real, epsilon double precision, delta double precision) IS 'differentially private average, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_avg(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_avg_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_avg(value double precision, epsilon double precision, delta double precision) IS 'differentially private average, its clamping bounds chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_avg(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_sum_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_sum_combine, SERIALFUNC = dpagg_auto_sum_serialize,
  DESERIALFUNC = dpagg_auto_sum_deserialize, FINALFUNC = dpagg_auto_avg_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_avg(value numeric, epsilon double precision, delta double precision) IS 'differentially private average, its clamping bounds chosen privately (half of epsilon) from the data';
REVOKE ALL ON FUNCTION
  dpagg_auto_avg_final(internal)
  FROM PUBLIC;

-- dp_percentile, dp_median and dp_percentiles without bounds: the range found privately
-- (src/pg/aggregates/percentile.c, docs/automatic_bounds.md).  Their support functions are for
-- them only (the REVOKE below).
-- dp_percentile and dp_median without bounds: the range found privately (half of epsilon), then permute-and-flip over a grid of magnitudes.
CREATE FUNCTION dpagg_auto_percentile_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_percentile_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_percentile_trans_int2(internal, value smallint, p double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value smallint, p double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentile_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value smallint, p double precision, epsilon double precision, delta double precision) IS 'differentially private p-quantile, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_median_trans_int2(internal, value smallint, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_median_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value smallint, epsilon double precision, delta double precision) IS 'differentially private median, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentile_trans_int4(internal, value integer, p double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value integer, p double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentile_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value integer, p double precision, epsilon double precision, delta double precision) IS 'differentially private p-quantile, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_median_trans_int4(internal, value integer, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_median_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value integer, epsilon double precision, delta double precision) IS 'differentially private median, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentile_trans_int8(internal, value bigint, p double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value bigint, p double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentile_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value bigint, p double precision, epsilon double precision, delta double precision) IS 'differentially private p-quantile, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_median_trans_int8(internal, value bigint, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_median_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value bigint, epsilon double precision, delta double precision) IS 'differentially private median, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentile_trans_float4(internal, value real, p double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value real, p double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentile_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value real, p double precision, epsilon double precision, delta double precision) IS 'differentially private p-quantile, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_median_trans_float4(internal, value real, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_median_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value real, epsilon double precision, delta double precision) IS 'differentially private median, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentile_trans_float8(internal, value double precision, p double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value double precision, p double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentile_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value double precision, p double precision, epsilon double precision, delta double precision) IS 'differentially private p-quantile, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_median_trans_float8(internal, value double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_median_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value double precision, epsilon double precision, delta double precision) IS 'differentially private median, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentile_trans_numeric(internal, value numeric, p double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentile(value numeric, p double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentile_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentile(value numeric, p double precision, epsilon double precision, delta double precision) IS 'differentially private p-quantile, its range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_median_trans_numeric(internal, value numeric, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_median(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_median_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentile_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_median(value numeric, epsilon double precision, delta double precision) IS 'differentially private median, its range found privately (half of epsilon) from the data';

-- dp_percentiles without bounds: several private quantiles released together.
CREATE FUNCTION dpagg_auto_percentiles_final(internal) RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_percentiles_trans_int2(internal, value smallint, p double precision[], epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value smallint, p double precision[], epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentiles_trans_int2, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value smallint, p double precision[], epsilon double precision, delta double precision) IS 'differentially private quantiles released together, their range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentiles_trans_int4(internal, value integer, p double precision[], epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value integer, p double precision[], epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentiles_trans_int4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value integer, p double precision[], epsilon double precision, delta double precision) IS 'differentially private quantiles released together, their range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentiles_trans_int8(internal, value bigint, p double precision[], epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value bigint, p double precision[], epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentiles_trans_int8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value bigint, p double precision[], epsilon double precision, delta double precision) IS 'differentially private quantiles released together, their range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentiles_trans_float4(internal, value real, p double precision[], epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value real, p double precision[], epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentiles_trans_float4, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value real, p double precision[], epsilon double precision, delta double precision) IS 'differentially private quantiles released together, their range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentiles_trans_float8(internal, value double precision, p double precision[], epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentiles_trans_float8, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value double precision, p double precision[], epsilon double precision, delta double precision) IS 'differentially private quantiles released together, their range found privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_percentiles_trans_numeric(internal, value numeric, p double precision[], epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_percentile_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_percentiles(value numeric, p double precision[], epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_percentiles_trans_numeric, STYPE = internal, SSPACE = 128,
  COMBINEFUNC = dpagg_auto_percentile_combine, SERIALFUNC = dpagg_percentile_serialize,
  DESERIALFUNC = dpagg_percentile_deserialize, FINALFUNC = dpagg_auto_percentiles_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_percentiles(value numeric, p double precision[], epsilon double precision, delta double precision) IS 'differentially private quantiles released together, their range found privately (half of epsilon) from the data';

REVOKE ALL ON FUNCTION
  dpagg_auto_percentile_combine(internal, internal),
  dpagg_auto_percentile_final(internal),
  dpagg_auto_percentile_trans_int2(internal, smallint, double precision, double precision, double precision),
  dpagg_auto_median_trans_int2(internal, smallint, double precision, double precision),
  dpagg_auto_percentile_trans_int4(internal, integer, double precision, double precision, double precision),
  dpagg_auto_median_trans_int4(internal, integer, double precision, double precision),
  dpagg_auto_percentile_trans_int8(internal, bigint, double precision, double precision, double precision),
  dpagg_auto_median_trans_int8(internal, bigint, double precision, double precision),
  dpagg_auto_percentile_trans_float4(internal, real, double precision, double precision, double precision),
  dpagg_auto_median_trans_float4(internal, real, double precision, double precision),
  dpagg_auto_percentile_trans_float8(internal, double precision, double precision, double precision, double precision),
  dpagg_auto_median_trans_float8(internal, double precision, double precision, double precision),
  dpagg_auto_percentile_trans_numeric(internal, numeric, double precision, double precision, double precision),
  dpagg_auto_median_trans_numeric(internal, numeric, double precision, double precision),
  dpagg_auto_percentiles_final(internal),
  dpagg_auto_percentiles_trans_int2(internal, smallint, double precision[], double precision, double precision),
  dpagg_auto_percentiles_trans_int4(internal, integer, double precision[], double precision, double precision),
  dpagg_auto_percentiles_trans_int8(internal, bigint, double precision[], double precision, double precision),
  dpagg_auto_percentiles_trans_float4(internal, real, double precision[], double precision, double precision),
  dpagg_auto_percentiles_trans_float8(internal, double precision, double precision[], double precision, double precision),
  dpagg_auto_percentiles_trans_numeric(internal, numeric, double precision[], double precision, double precision)
  FROM PUBLIC;

-- The variances without bounds: the range chosen privately (src/pg/aggregates/auto_variance.c,
-- docs/automatic_bounds.md, "Variances").  Their support functions are for them only (the REVOKE below).
-- dp_var_pop without bounds: the range chosen privately from a histogram of magnitudes (half of epsilon).
CREATE FUNCTION dpagg_auto_var_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_var_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_var_serialize(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_var_deserialize(bytea, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_var_trans_int2(internal, value smallint, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_var_trans_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int2, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value smallint, epsilon double precision, delta double precision) IS 'differentially private population variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_var_trans_int4(internal, value integer, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_var_trans_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value integer, epsilon double precision, delta double precision) IS 'differentially private population variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_var_trans_int8(internal, value bigint, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_var_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value bigint, epsilon double precision, delta double precision) IS 'differentially private population variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_var_trans_float4(internal, value real, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_var_trans_float4' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value real, epsilon double precision, delta double precision) IS 'differentially private population variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_var_trans_float8(internal, value double precision, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_var_trans_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value double precision, epsilon double precision, delta double precision) IS 'differentially private population variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE FUNCTION dpagg_auto_var_trans_numeric(internal, value numeric, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_auto_var_trans_numeric' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_var_pop(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_numeric, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_pop(value numeric, epsilon double precision, delta double precision) IS 'differentially private population variance, its clamping range chosen privately (half of epsilon) from the data';

-- dp_var_samp without bounds: the range chosen privately from a histogram of magnitudes (half of epsilon).
CREATE FUNCTION dpagg_auto_var_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_var_samp(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int2, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value smallint, epsilon double precision, delta double precision) IS 'differentially private sample variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_var_samp(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value integer, epsilon double precision, delta double precision) IS 'differentially private sample variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_var_samp(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value bigint, epsilon double precision, delta double precision) IS 'differentially private sample variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_var_samp(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value real, epsilon double precision, delta double precision) IS 'differentially private sample variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_var_samp(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value double precision, epsilon double precision, delta double precision) IS 'differentially private sample variance, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_var_samp(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_numeric, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_var_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_var_samp(value numeric, epsilon double precision, delta double precision) IS 'differentially private sample variance, its clamping range chosen privately (half of epsilon) from the data';

-- dp_stddev_pop without bounds: the range chosen privately from a histogram of magnitudes (half of epsilon).
CREATE FUNCTION dpagg_auto_stddev_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_stddev_pop(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int2, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value smallint, epsilon double precision, delta double precision) IS 'differentially private population standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_pop(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value integer, epsilon double precision, delta double precision) IS 'differentially private population standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_pop(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value bigint, epsilon double precision, delta double precision) IS 'differentially private population standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_pop(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value real, epsilon double precision, delta double precision) IS 'differentially private population standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_pop(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value double precision, epsilon double precision, delta double precision) IS 'differentially private population standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_pop(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_numeric, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_pop_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_pop(value numeric, epsilon double precision, delta double precision) IS 'differentially private population standard deviation, its clamping range chosen privately (half of epsilon) from the data';

-- dp_stddev_samp without bounds: the range chosen privately from a histogram of magnitudes (half of epsilon).
CREATE FUNCTION dpagg_auto_stddev_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_stddev_samp(value smallint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int2, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value smallint, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_samp(value integer, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value integer, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_samp(value bigint, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_int8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value bigint, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_samp(value real, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float4, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value real, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_samp(value double precision, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_float8, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value double precision, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation, its clamping range chosen privately (half of epsilon) from the data';

CREATE AGGREGATE dp_stddev_samp(value numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_auto_var_trans_numeric, STYPE = internal, SSPACE = 368,
  COMBINEFUNC = dpagg_auto_var_combine, SERIALFUNC = dpagg_auto_var_serialize,
  DESERIALFUNC = dpagg_auto_var_deserialize, FINALFUNC = dpagg_auto_stddev_samp_final,
  FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dp_stddev_samp(value numeric, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation, its clamping range chosen privately (half of epsilon) from the data';
REVOKE ALL ON FUNCTION
  dpagg_auto_var_combine(internal, internal),
  dpagg_auto_var_pop_final(internal),
  dpagg_auto_var_serialize(internal),
  dpagg_auto_var_deserialize(bytea, internal),
  dpagg_auto_var_trans_int2(internal, smallint, double precision, double precision),
  dpagg_auto_var_trans_int4(internal, integer, double precision, double precision),
  dpagg_auto_var_trans_int8(internal, bigint, double precision, double precision),
  dpagg_auto_var_trans_float4(internal, real, double precision, double precision),
  dpagg_auto_var_trans_float8(internal, double precision, double precision, double precision),
  dpagg_auto_var_trans_numeric(internal, numeric, double precision, double precision),
  dpagg_auto_var_samp_final(internal),
  dpagg_auto_stddev_pop_final(internal),
  dpagg_auto_stddev_samp_final(internal)
  FROM PUBLIC;

-- dp_sum, dp_avg and the variances without bounds over a private relation, per unit: the
-- rewrite's per-unit forms (src/pg/query/bound.c, docs/automatic_bounds.md).  Their support
-- functions are for them only (the REVOKE below).
-- dpagg_unit_auto_sum: dp_sum without bounds of per-unit values.
CREATE FUNCTION dpagg_unit_auto_sum_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_auto_sum_trans(internal, value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_auto_sum_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_auto_sum(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_auto_sum_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_unit_auto_sum_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_auto_sum(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) IS 'internal: dp_sum without bounds over a private relation, per unit';

-- dpagg_unit_auto_avg: dp_avg without bounds of per-unit values.
CREATE FUNCTION dpagg_unit_auto_avg_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_auto_avg_trans(internal, value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_auto_sum_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_auto_avg(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_auto_avg_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_unit_auto_avg_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_auto_avg(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) IS 'internal: dp_avg without bounds over a private relation, per unit';

-- dpagg_unit_auto_var_pop: dp_var_pop without bounds of per-unit values.
CREATE FUNCTION dpagg_unit_auto_var_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_auto_var_pop_trans(internal, value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_auto_var_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_auto_var_pop(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_auto_var_pop_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_unit_auto_var_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_auto_var_pop(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) IS 'internal: dp_var_pop without bounds over a private relation, per unit';

-- dpagg_unit_auto_var_samp: dp_var_samp without bounds of per-unit values.
CREATE FUNCTION dpagg_unit_auto_var_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_auto_var_samp_trans(internal, value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_auto_var_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_auto_var_samp(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_auto_var_samp_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_unit_auto_var_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_auto_var_samp(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) IS 'internal: dp_var_samp without bounds over a private relation, per unit';

-- dpagg_unit_auto_stddev_pop: dp_stddev_pop without bounds of per-unit values.
CREATE FUNCTION dpagg_unit_auto_stddev_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_auto_stddev_pop_trans(internal, value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_auto_var_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_auto_stddev_pop(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_auto_stddev_pop_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_unit_auto_stddev_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_auto_stddev_pop(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) IS 'internal: dp_stddev_pop without bounds over a private relation, per unit';

-- dpagg_unit_auto_stddev_samp: dp_stddev_samp without bounds of per-unit values.
CREATE FUNCTION dpagg_unit_auto_stddev_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_unit_auto_stddev_samp_trans(internal, value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_unit_auto_var_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_unit_auto_stddev_samp(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) (
  SFUNC = dpagg_unit_auto_stddev_samp_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_unit_auto_stddev_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_unit_auto_stddev_samp(value double precision, epsilon double precision, delta double precision, max_groups integer, privacy_unit text) IS 'internal: dp_stddev_samp without bounds over a private relation, per unit';

REVOKE ALL ON FUNCTION
  dpagg_unit_auto_sum_final(internal),
  dpagg_unit_auto_sum_trans(internal, double precision, double precision, double precision, integer, text),
  dpagg_unit_auto_avg_final(internal),
  dpagg_unit_auto_avg_trans(internal, double precision, double precision, double precision, integer, text),
  dpagg_unit_auto_var_pop_final(internal),
  dpagg_unit_auto_var_pop_trans(internal, double precision, double precision, double precision, integer, text),
  dpagg_unit_auto_var_samp_final(internal),
  dpagg_unit_auto_var_samp_trans(internal, double precision, double precision, double precision, integer, text),
  dpagg_unit_auto_stddev_pop_final(internal),
  dpagg_unit_auto_stddev_pop_trans(internal, double precision, double precision, double precision, integer, text),
  dpagg_unit_auto_stddev_samp_final(internal),
  dpagg_unit_auto_stddev_samp_trans(internal, double precision, double precision, double precision, integer, text)
  FROM PUBLIC;

-- a / b in IEEE arithmetic, never an error (an underflow is 0, an overflow +-Infinity; NULL for
-- b = 0): a unit's average is dpagg_fdiv(its sum, its count), since float8div's underflow error
-- would tell whether one unit's values add up to a subnormal.
CREATE FUNCTION dpagg_fdiv(double precision, double precision) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- dp_var_pop, dp_var_samp, dp_stddev_pop and dp_stddev_samp on Citus (src/pg/citus/citus.c,
-- docs/citus.md): the workers sum each row's quanta of the variance's two exact sums (the quanta
-- functions stay public, as dpagg_quanta_sum does: an exact clamped value is no more than the
-- value), and the merges release on the coordinator.  Their support functions are for them only
-- (the REVOKE below).
-- One row's contribution to dp_var_pop's exact sums (the centred value's and its centred square's
-- quanta; src/pg/aggregates/variance.c): Citus sums them with sum(bigint) on the workers for
-- dpagg_merge_var_pop and its sibling forms.
CREATE FUNCTION dpagg_quanta_var(value smallint, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var(value integer, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var(value bigint, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var(value real, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var(value double precision, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var(value numeric, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var_squares(value smallint, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_squares_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var_squares(value integer, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_squares_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var_squares(value bigint, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_squares_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var_squares(value real, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_squares_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var_squares(value double precision, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_squares_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_var_squares(value numeric, lower double precision, upper double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_quanta_var_squares_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- dpagg_merge_var_pop: dp_var_pop over partial sums.
CREATE FUNCTION dpagg_merge_var_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_var_pop_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_variance_trans(internal, squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_merge_variance_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_var_pop(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_var_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_var_pop(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance from partial sums of quanta (dp_var_pop split for Citus)';

CREATE AGGREGATE dpagg_merge_var_pop_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_var_pop_report_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_var_pop_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population variance from partial sums of quanta (dp_var_pop split for Citus), with its noise interval (one release)';

-- dpagg_merge_var_samp: dp_var_samp over partial sums.
CREATE FUNCTION dpagg_merge_var_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_var_samp_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_var_samp(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_var_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_var_samp(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance from partial sums of quanta (dp_var_samp split for Citus)';

CREATE AGGREGATE dpagg_merge_var_samp_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_var_samp_report_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_var_samp_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample variance from partial sums of quanta (dp_var_samp split for Citus), with its noise interval (one release)';

-- dpagg_merge_stddev_pop: dp_stddev_pop over partial sums.
CREATE FUNCTION dpagg_merge_stddev_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_stddev_pop_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_stddev_pop(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_stddev_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_stddev_pop(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation from partial sums of quanta (dp_stddev_pop split for Citus)';

CREATE AGGREGATE dpagg_merge_stddev_pop_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_stddev_pop_report_final, FINALFUNC_MODIFY = READ_WRITE,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_stddev_pop_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private population standard deviation from partial sums of quanta (dp_stddev_pop split for Citus), with its noise interval (one release)';

-- dpagg_merge_stddev_samp: dp_stddev_samp over partial sums.
CREATE FUNCTION dpagg_merge_stddev_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_stddev_samp_report_final(internal) RETURNS dp_report
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_stddev_samp(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_stddev_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_stddev_samp(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation from partial sums of quanta (dp_stddev_samp split for Citus)';

CREATE AGGREGATE dpagg_merge_stddev_samp_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_variance_trans, STYPE = internal, SSPACE = 64,
  FINALFUNC = dpagg_merge_stddev_samp_report_final, FINALFUNC_MODIFY = READ_WRITE,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_stddev_samp_report(squares numeric, sum numeric, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private sample standard deviation from partial sums of quanta (dp_stddev_samp split for Citus), with its noise interval (one release)';

REVOKE ALL ON FUNCTION
  dpagg_merge_var_pop_final(internal),
  dpagg_merge_var_pop_report_final(internal),
  dpagg_merge_variance_trans(internal, numeric, numeric, bigint, double precision, double precision, double precision, double precision, text),
  dpagg_merge_var_samp_final(internal),
  dpagg_merge_var_samp_report_final(internal),
  dpagg_merge_stddev_pop_final(internal),
  dpagg_merge_stddev_pop_report_final(internal),
  dpagg_merge_stddev_samp_final(internal),
  dpagg_merge_stddev_samp_report_final(internal)
  FROM PUBLIC;

-- dp_percentile, dp_median and dp_percentiles, with and without bounds, on Citus
-- (src/pg/citus/citus.c, docs/quantiles.md): the workers count a group's values per bin,
-- grouped by dpagg_quantile_bin(x, lower, upper) or dpagg_quantile_cell(x) (which stay public,
-- as the quanta functions do: a value's bin is no more than the value), and the merges release
-- on the coordinator.  Their support functions are for them only (the REVOKE below).
-- One row's bin as dp_percentile's state counts it (of [lower, upper], or without bounds its cell of
-- the grid of magnitudes; src/pg/aggregates/percentile.c): Citus's workers group by it and count
-- for dpagg_merge_percentile and its sibling forms.
CREATE FUNCTION dpagg_quantile_bin(value smallint, lower double precision, upper double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_bin_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_bin(value integer, lower double precision, upper double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_bin_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_bin(value bigint, lower double precision, upper double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_bin_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_bin(value real, lower double precision, upper double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_bin_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_bin(value double precision, lower double precision, upper double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_bin_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_bin(value numeric, lower double precision, upper double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_bin_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_cell(value smallint) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_cell_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_cell(value integer) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_cell_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_cell(value bigint) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_cell_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_cell(value real) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_cell_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_cell(value double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_cell_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quantile_cell(value numeric) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_quantile_cell_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- dpagg_merge_percentile and dpagg_merge_median: dp_percentile and dp_median over partial counts of bins.
CREATE FUNCTION dpagg_merge_percentile_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_percentile_trans(internal, bin integer, n bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_merge_percentile_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_percentile(bin integer, n bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_percentile_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_merge_percentile_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_percentile(bin integer, n bigint, p double precision, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private p-quantile from partial counts of bins (dp_percentile split for Citus)';

CREATE FUNCTION dpagg_merge_median_trans(internal, bin integer, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_merge_percentile_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_median(bin integer, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_median_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_merge_percentile_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_median(bin integer, n bigint, epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private median from partial counts of bins (dp_median split for Citus)';

-- dpagg_merge_percentiles: dp_percentiles over partial counts of bins.
CREATE FUNCTION dpagg_merge_percentiles_final(internal) RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_percentiles_trans(internal, bin integer, n bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_merge_percentile_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_percentiles(bin integer, n bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) (
  SFUNC = dpagg_merge_percentiles_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_merge_percentiles_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_percentiles(bin integer, n bigint, p double precision[], epsilon double precision, delta double precision, lower double precision, upper double precision, mechanism text) IS 'differentially private quantiles from partial counts of bins (dp_percentiles split for Citus)';
REVOKE ALL ON FUNCTION
  dpagg_merge_percentile_final(internal),
  dpagg_merge_percentile_trans(internal, integer, bigint, double precision, double precision, double precision, double precision, double precision, text),
  dpagg_merge_median_trans(internal, integer, bigint, double precision, double precision, double precision, double precision, text),
  dpagg_merge_percentiles_final(internal),
  dpagg_merge_percentiles_trans(internal, integer, bigint, double precision[], double precision, double precision, double precision, double precision, text)
  FROM PUBLIC;

-- dp_sum, dp_avg and the variances without bounds on Citus (src/pg/citus/citus.c,
-- docs/automatic_bounds.md section 7): the workers count and sum a group's values per bin of
-- magnitude, grouped by dpagg_auto_bin(x), with sum(dpagg_auto_quanta(x)) and
-- sum(dpagg_auto_square_quanta(x)) (which stay public, as the quanta functions do: a value's bin
-- and quanta are no more than the value), and the merges release on the coordinator.  Their
-- support functions are for them only (the REVOKE below).
-- One row as dp_sum's state without bounds adds it (src/pg/aggregates/auto_bounds.c): its bin of
-- magnitude, its value in the bin's quanta and its square in the bin's square quanta.  Citus's
-- workers group by the bin, count and sum them for dpagg_merge_auto_sum and its sibling forms.
CREATE FUNCTION dpagg_auto_bin(value smallint) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_auto_bin_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_quanta(value smallint) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_quanta_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_square_quanta(value smallint) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_square_quanta_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_bin(value integer) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_auto_bin_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_quanta(value integer) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_quanta_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_square_quanta(value integer) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_square_quanta_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_bin(value bigint) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_auto_bin_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_quanta(value bigint) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_quanta_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_square_quanta(value bigint) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_square_quanta_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_bin(value real) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_auto_bin_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_quanta(value real) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_quanta_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_square_quanta(value real) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_square_quanta_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_bin(value double precision) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_auto_bin_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_quanta(value double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_quanta_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_square_quanta(value double precision) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_square_quanta_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_bin(value numeric) RETURNS integer
  AS 'MODULE_PATHNAME', 'dpagg_auto_bin_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_quanta(value numeric) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_quanta_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_auto_square_quanta(value numeric) RETURNS bigint
  AS 'MODULE_PATHNAME', 'dpagg_auto_square_quanta_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- dpagg_merge_auto_sum: dp_sum without bounds over partial sums per bin.
CREATE FUNCTION dpagg_merge_auto_sum_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_auto_sum_trans(internal, bin integer, n bigint, s numeric, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_merge_auto_sum_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_auto_sum(bin integer, n bigint, s numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_merge_auto_sum_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_merge_auto_sum_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_auto_sum(bin integer, n bigint, s numeric, epsilon double precision, delta double precision) IS 'differentially private sum without bounds from partial sums per bin (dp_sum split for Citus)';

-- dpagg_merge_auto_avg: dp_avg without bounds over partial sums per bin.
CREATE FUNCTION dpagg_merge_auto_avg_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_auto_avg(bin integer, n bigint, s numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_merge_auto_sum_trans, STYPE = internal, SSPACE = 128,
  FINALFUNC = dpagg_merge_auto_avg_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_auto_avg(bin integer, n bigint, s numeric, epsilon double precision, delta double precision) IS 'differentially private average without bounds from partial sums per bin (dp_avg split for Citus)';

-- dpagg_merge_auto_var_pop: dp_var_pop without bounds over partial sums per bin.
CREATE FUNCTION dpagg_merge_auto_var_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dpagg_merge_auto_var_trans(internal, bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_merge_auto_var_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_auto_var_pop(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_merge_auto_var_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_merge_auto_var_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_auto_var_pop(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) IS 'differentially private population variance without bounds from partial sums per bin (dp_var_pop split for Citus)';

-- dpagg_merge_auto_var_samp: dp_var_samp without bounds over partial sums per bin.
CREATE FUNCTION dpagg_merge_auto_var_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_auto_var_samp(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_merge_auto_var_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_merge_auto_var_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_auto_var_samp(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) IS 'differentially private sample variance without bounds from partial sums per bin (dp_var_samp split for Citus)';

-- dpagg_merge_auto_stddev_pop: dp_stddev_pop without bounds over partial sums per bin.
CREATE FUNCTION dpagg_merge_auto_stddev_pop_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_auto_stddev_pop(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_merge_auto_var_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_merge_auto_stddev_pop_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_auto_stddev_pop(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) IS 'differentially private population standard deviation without bounds from partial sums per bin (dp_stddev_pop split for Citus)';

-- dpagg_merge_auto_stddev_samp: dp_stddev_samp without bounds over partial sums per bin.
CREATE FUNCTION dpagg_merge_auto_stddev_samp_final(internal) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dpagg_merge_auto_stddev_samp(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) (
  SFUNC = dpagg_merge_auto_var_trans, STYPE = internal, SSPACE = 368,
  FINALFUNC = dpagg_merge_auto_stddev_samp_final, FINALFUNC_MODIFY = READ_WRITE, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_merge_auto_stddev_samp(bin integer, n bigint, s numeric, squares numeric, epsilon double precision, delta double precision) IS 'differentially private sample standard deviation without bounds from partial sums per bin (dp_stddev_samp split for Citus)';
REVOKE ALL ON FUNCTION
  dpagg_merge_auto_sum_final(internal),
  dpagg_merge_auto_sum_trans(internal, integer, bigint, numeric, double precision, double precision),
  dpagg_merge_auto_avg_final(internal),
  dpagg_merge_auto_var_pop_final(internal),
  dpagg_merge_auto_var_trans(internal, integer, bigint, numeric, numeric, double precision, double precision),
  dpagg_merge_auto_var_samp_final(internal),
  dpagg_merge_auto_stddev_pop_final(internal),
  dpagg_merge_auto_stddev_samp_final(internal)
  FROM PUBLIC;
