-- Privacy budgets and the ledger (src/pg/ledger/budget_admin.c, budget_views.c; docs/guides/budgets.md).
-- Budgets are cluster-wide (roles are), kept in dpagg's durable ledger, not in tables: a change
-- takes effect at once and is not undone by ROLLBACK.
CREATE FUNCTION dp_set_budget(
    role regrole, epsilon double precision DEFAULT NULL, delta double precision DEFAULT NULL,
    method text DEFAULT NULL, max_release_epsilon double precision DEFAULT NULL)
  RETURNS void
  AS 'MODULE_PATHNAME', 'dpagg_set_budget' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_set_budget(regrole, double precision, double precision, text, double precision) IS
  'set or change the privacy budget of a role: total epsilon and delta, accounting method basic|zcdp, per-release epsilon cap (''infinity'': none); an argument left out keeps its current value';
CREATE FUNCTION dp_drop_budget(role regrole) RETURNS boolean
  AS 'MODULE_PATHNAME', 'dpagg_drop_budget' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION dp_drop_budget(regrole) IS
  'remove the privacy budget of a role (what it spent stays in the ledger); true if it had one';
REVOKE ALL ON FUNCTION dp_set_budget(regrole, double precision, double precision, text, double precision) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_drop_budget(regrole) FROM PUBLIC;

CREATE FUNCTION dpagg_budgets(
    OUT role name, OUT role_oid oid, OUT method text,
    OUT epsilon_total double precision, OUT delta_total double precision,
    OUT max_release_epsilon double precision,
    OUT epsilon_spent double precision, OUT delta_spent double precision, OUT rho_spent double precision,
    OUT epsilon_remaining double precision, OUT delta_remaining double precision,
    OUT releases bigint, OUT has_budget boolean)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME', 'dpagg_budgets' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE VIEW dp_budgets AS
  SELECT b.*, dp_restricted(b.role_oid) AS restricted FROM dpagg_budgets() b;
COMMENT ON VIEW dp_budgets IS
  'privacy budgets and what each role has spent, and whether it is restricted to DP answers (a role sees its own row; pg_read_all_stats members see all)';

CREATE FUNCTION dpagg_journal(
    OUT seq bigint, OUT event text, OUT at timestamptz, OUT role name, OUT role_oid oid,
    OUT database name, OUT actor name, OUT pid integer, OUT query_id bigint, OUT query text,
    OUT aggregate text, OUT mechanism text, OUT epsilon double precision,
    OUT delta double precision, OUT rho double precision, OUT limited boolean,
    OUT method text, OUT max_release_epsilon double precision)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME', 'dpagg_journal' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
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
CREATE VIEW dp_ledger AS
  SELECT seq, at AS released_at, role, role_oid, database, actor, pid, query_id, query,
         aggregate, mechanism, epsilon, delta, rho, limited, statement_id, role_now
    FROM dpagg_events() WHERE event = 'release';
COMMENT ON VIEW dp_ledger IS
  'every release: when, by which role (its name then, and now), in which database, the client statement, aggregate, mechanism, epsilon, delta and zCDP rho, and the statement it belongs to (a role sees its own rows; pg_read_all_stats members see all)';
COMMENT ON COLUMN dp_ledger.role IS 'the role charged, by its name at the time of the release';
COMMENT ON COLUMN dp_ledger.role_now IS 'the role''s name today (NULL once it is dropped)';
COMMENT ON COLUMN dp_ledger.query IS 'the statement the client sent (and, after "-- running:", the statement inside it that released, e.g. a function''s body)';
COMMENT ON COLUMN dp_ledger.statement_id IS 'the same for every release of one client statement: the seq of its first release';
CREATE VIEW dp_budget_log AS
  SELECT seq, at, event, role, role_oid, actor, epsilon, delta, method, max_release_epsilon, role_now
    FROM dpagg_events() WHERE event <> 'release';
COMMENT ON VIEW dp_budget_log IS 'every change of a privacy budget, and who made it';
COMMENT ON COLUMN dp_budget_log.role IS 'the role, by its name at the time of the change (a dropped role''s too)';
COMMENT ON COLUMN dp_budget_log.role_now IS 'the role''s name today (NULL once it is dropped)';
COMMENT ON COLUMN dp_budgets.epsilon_spent IS 'basic accounting: the sum of the releases'' epsilons; zcdp: the total rho converted to epsilon at half the budget''s delta (rho + 2 sqrt(rho ln(2/delta))), which includes a fixed cost from the first release on';
COMMENT ON COLUMN dp_budgets.delta_spent IS 'basic: the sum of the releases'' deltas (0 for mechanisms that use none); zcdp: the half of the budget''s delta reserved for the conversion (from the first release on) plus the deltas of the approximate releases';
GRANT SELECT ON dp_budgets, dp_ledger, dp_budget_log TO PUBLIC;
