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
