-- Repeated (cached) calibration through SQL, for scripts/bench_calibration.sh.
-- Runs in a throw-away cluster (pg_virtualenv); prints lines "DPAGG_BENCH key=value ...".
-- Every measurement is a PL/pgSQL loop around one static statement (its plan is cached, as in any
-- PL/pgSQL function): rounds of 10000 executions, a round stopping early after 20 s; reported are
-- the median round in microseconds per execution, the fastest and slowest round, and the fewest
-- executions a round made.
\set ON_ERROR_STOP on
SET client_min_messages = notice;
CREATE EXTENSION dpagg;
-- Superusers are held to a budget like any role (dpagg.limit_superusers defaults to on); the dp_sum
-- loop below releases up to 50001 times at epsilon 1, delta 1e-5.
SELECT dp_set_budget(current_user::regrole, 1e6, 0.9) \g /dev/null

CREATE FUNCTION pg_temp.report(key text, r float8[], calls int) RETURNS void AS $f$
DECLARE
  us float8;
  lo float8;
  hi float8;
BEGIN
  SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), min(x), max(x) INTO us, lo, hi FROM unnest(r) x;
  RAISE NOTICE 'DPAGG_BENCH %_us=% %_lo=% %_hi=% %_calls=%', key, round(us::numeric, 2), key,
    round(lo::numeric, 2), key, round(hi::numeric, 2), key, calls;
END $f$ LANGUAGE plpgsql;

DO $$
DECLARE
  n constant int := 10000;
  cap constant interval := '20 seconds';
  t0 timestamptz;
  k int;
  calls int;
  r float8[];
BEGIN
  t0 := clock_timestamp();
  PERFORM dp_calibrate('auto', 1, 1e-5);          -- cold: calibrates and fills the cache
  RAISE NOTICE 'DPAGG_BENCH cold_us=%', round((extract(epoch FROM clock_timestamp() - t0) * 1e6)::numeric, 0);
  PERFORM dp_calibrate('multi_gaussian', 1, 1e-5);  -- fill the cache for the other statements
  PERFORM dp_sum(x, 1, 1e-5, 1.0) FROM (VALUES (0.5::float8)) v(x);

  -- auto: PERFORM dp_calibrate('auto', 1, 1e-5);
  r := '{}';
  calls := n;
  FOR j IN 1..5 LOOP
    t0 := clock_timestamp();
    k := 0;
    WHILE k < n LOOP
      PERFORM dp_calibrate('auto', 1, 1e-5);
      k := k + 1;
      EXIT WHEN k % 10 = 0 AND clock_timestamp() - t0 > cap;
    END LOOP;
    r := r || (extract(epoch FROM clock_timestamp() - t0) * 1e6 / k)::float8;
    calls := least(calls, k);
  END LOOP;
  PERFORM pg_temp.report('auto', r, calls);

  -- multi: PERFORM dp_calibrate('multi_gaussian', 1, 1e-5);
  r := '{}';
  calls := n;
  FOR j IN 1..5 LOOP
    t0 := clock_timestamp();
    k := 0;
    WHILE k < n LOOP
      PERFORM dp_calibrate('multi_gaussian', 1, 1e-5);
      k := k + 1;
      EXIT WHEN k % 10 = 0 AND clock_timestamp() - t0 > cap;
    END LOOP;
    r := r || (extract(epoch FROM clock_timestamp() - t0) * 1e6 / k)::float8;
    calls := least(calls, k);
  END LOOP;
  PERFORM pg_temp.report('multi', r, calls);

  -- laplace: PERFORM dp_calibrate('laplace', 1, 1e-5);
  r := '{}';
  calls := n;
  FOR j IN 1..5 LOOP
    t0 := clock_timestamp();
    k := 0;
    WHILE k < n LOOP
      PERFORM dp_calibrate('laplace', 1, 1e-5);
      k := k + 1;
      EXIT WHEN k % 10 = 0 AND clock_timestamp() - t0 > cap;
    END LOOP;
    r := r || (extract(epoch FROM clock_timestamp() - t0) * 1e6 / k)::float8;
    calls := least(calls, k);
  END LOOP;
  PERFORM pg_temp.report('laplace', r, calls);

  -- loop: PERFORM abs(1.0::float8);
  r := '{}';
  calls := n;
  FOR j IN 1..5 LOOP
    t0 := clock_timestamp();
    k := 0;
    WHILE k < n LOOP
      PERFORM abs(1.0::float8);
      k := k + 1;
      EXIT WHEN k % 10 = 0 AND clock_timestamp() - t0 > cap;
    END LOOP;
    r := r || (extract(epoch FROM clock_timestamp() - t0) * 1e6 / k)::float8;
    calls := least(calls, k);
  END LOOP;
  PERFORM pg_temp.report('loop', r, calls);

  -- dpsum: PERFORM dp_sum(x, 1, 1e-5, 1.0) FROM (VALUES (0.5::float8)) v(x);
  r := '{}';
  calls := n;
  FOR j IN 1..5 LOOP
    t0 := clock_timestamp();
    k := 0;
    WHILE k < n LOOP
      PERFORM dp_sum(x, 1, 1e-5, 1.0) FROM (VALUES (0.5::float8)) v(x);
      k := k + 1;
      EXIT WHEN k % 10 = 0 AND clock_timestamp() - t0 > cap;
    END LOOP;
    r := r || (extract(epoch FROM clock_timestamp() - t0) * 1e6 / k)::float8;
    calls := least(calls, k);
  END LOOP;
  PERFORM pg_temp.report('dpsum', r, calls);

  -- sum: PERFORM sum(x) FROM (VALUES (0.5::float8)) v(x);
  r := '{}';
  calls := n;
  FOR j IN 1..5 LOOP
    t0 := clock_timestamp();
    k := 0;
    WHILE k < n LOOP
      PERFORM sum(x) FROM (VALUES (0.5::float8)) v(x);
      k := k + 1;
      EXIT WHEN k % 10 = 0 AND clock_timestamp() - t0 > cap;
    END LOOP;
    r := r || (extract(epoch FROM clock_timestamp() - t0) * 1e6 / k)::float8;
    calls := least(calls, k);
  END LOOP;
  PERFORM pg_temp.report('sum', r, calls);
END $$;
