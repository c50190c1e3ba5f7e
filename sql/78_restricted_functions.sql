-- The functions restricted roles may apply to private rows (dp_restricted_functions;
-- docs/guides/restricted-analysts.md; docs/restricted.md) must not raise an error for any value of their data
-- arguments: an error that depends on one row would tell about it.  LEAKPROOF is not that promise
-- (circle_lt is LEAKPROOF and raises 22003 on a huge circle), so dpagg trusts LEAKPROOF built-ins
-- only over the types it names, and every one is run here on the edge values of its argument
-- types, every combination.  The functions dpagg allows by hand (lower, substring, LIKE, casts)
-- are run the same way with valid constant arguments.
CREATE TEMP TABLE edge (t regtype, v text);
INSERT INTO edge VALUES
  ('boolean', 'true'), ('boolean', 'false'),
  ('"char"', $$'a'$$), ('"char"', $$''$$),
  ('name', $$''$$), ('name', $$repeat('n', 100)$$),
  ('smallint', '-32768'), ('smallint', '32767'), ('smallint', '0'),
  ('integer', '-2147483648'), ('integer', '2147483647'), ('integer', '0'),
  ('bigint', '-9223372036854775808'), ('bigint', '9223372036854775807'), ('bigint', '0'),
  ('oid', '0'), ('oid', '4294967295'),
  ('real', $$'NaN'$$), ('real', $$'Infinity'$$), ('real', $$'-Infinity'$$), ('real', '3.4e38'),
  ('real', '-3.4e38'), ('real', '1e-45'), ('real', '0'),
  ('double precision', $$'NaN'$$), ('double precision', $$'Infinity'$$),
  ('double precision', $$'-Infinity'$$), ('double precision', '1.7976931348623157e308'),
  ('double precision', '-1.7976931348623157e308'), ('double precision', '4.9e-324'),
  ('double precision', '0'),
  ('numeric', $$'NaN'$$), ('numeric', $$'Infinity'$$), ('numeric', $$'-Infinity'$$),
  ('numeric', $$('9' || repeat('0', 131071))$$), ('numeric', $$('-9' || repeat('0', 131071))$$),
  ('numeric', $$('0.' || repeat('0', 16382) || '1')$$), ('numeric', '0'),
  ('text', $$''$$), ('text', $$'abc'$$), ('text', $$repeat('z', 100000)$$),
  ('character varying', $$''$$), ('character varying', $$repeat('z', 100000)$$),
  ('character', $$''$$), ('character', $$repeat('z', 100000)$$),
  ('bytea', $$''$$), ('bytea', $$'\x00ff'$$), ('bytea', $$decode(repeat('ff', 100000), 'hex')$$),
  ('date', $$'infinity'$$), ('date', $$'-infinity'$$), ('date', $$'4714-11-24 BC'$$),
  ('date', $$'5874897-12-31'$$), ('date', $$'2000-01-01'$$),
  ('time without time zone', $$'00:00'$$), ('time without time zone', $$'24:00'$$),
  ('time with time zone', $$'00:00+15:59'$$), ('time with time zone', $$'24:00-15:59'$$),
  ('timestamp without time zone', $$'infinity'$$), ('timestamp without time zone', $$'-infinity'$$),
  ('timestamp without time zone', $$'4714-11-24 00:00 BC'$$),
  ('timestamp without time zone', $$'294276-12-31 23:59:59'$$),
  ('timestamp with time zone', $$'infinity'$$), ('timestamp with time zone', $$'-infinity'$$),
  ('timestamp with time zone', $$'4714-11-24 00:00+00 BC'$$),
  ('timestamp with time zone', $$'294276-12-31 23:59:59+00'$$),
  ('interval', $$'178000000 years'$$), ('interval', $$'-178000000 years'$$),
  ('interval', $$'2147483647 days 2562047788 hours'$$),
  ('interval', $$'-2147483648 days -2562047788 hours'$$), ('interval', $$'0'$$),
  ('uuid', $$'00000000-0000-0000-0000-000000000000'$$),
  ('uuid', $$'ffffffff-ffff-ffff-ffff-ffffffffffff'$$),
  ('inet', $$'0.0.0.0/0'$$), ('inet', $$'255.255.255.255'$$), ('inet', $$'ffff::ffff/128'$$),
  ('cidr', $$'0.0.0.0/0'$$), ('cidr', $$'::/0'$$),
  ('macaddr', $$'00:00:00:00:00:00'$$), ('macaddr', $$'ff:ff:ff:ff:ff:ff'$$),
  ('macaddr8', $$'00:00:00:00:00:00:00:00'$$), ('macaddr8', $$'ff:ff:ff:ff:ff:ff:ff:ff'$$),
  ('money', $$'-92233720368547758.08'$$), ('money', $$'92233720368547758.07'$$),
  ('bit', $$B''$$), ('bit', $$B'1'$$), ('bit', $$B'0101'$$),
  ('bit varying', $$B''$$), ('bit varying', $$B'1'$$), ('bit varying', $$B'0101'$$);
-- Constant arguments of the functions allowed by hand, as restrict.c validates them (a
-- non-negative length; a LIKE pattern that does not end in an escape).
CREATE TEMP TABLE constant_arg (kind text, v text);
INSERT INTO constant_arg VALUES
  ('integer', '0'), ('integer', '1'), ('integer', '-2147483648'), ('integer', '2147483647'),
  ('length', '0'), ('length', '2147483647'),
  ('pattern', $$''$$), ('pattern', $$'%'$$), ('pattern', $$'_%a\%'$$), ('pattern', $$'\\'$$),
  ('trim', $$''$$), ('trim', $$'xyz'$$);

CREATE FUNCTION pg_temp.run_all(OUT functions integer, OUT calls integer, OUT failures text)
LANGUAGE plpgsql AS $$
DECLARE
  f record;
  combos text[];
  next text[];
  vals text[];
  c text;
  v text;
  i integer;
  want text;
BEGIN
  functions := 0; calls := 0; failures := '';
  FOR f IN SELECT r.function, r.leakproof, ARRAY(SELECT unnest(p.proargtypes::oid[])) AS args, p.proname
           FROM dp_restricted_functions() r JOIN pg_proc p ON p.oid = r.function ORDER BY 1::text
  LOOP
    functions := functions + 1;
    combos := ARRAY[''];
    FOR i IN 1 .. coalesce(array_length(f.args, 1), 0) LOOP
      -- the data argument is the first; the others of a function allowed by hand are constants
      IF f.leakproof OR i = 1 THEN

        SELECT array_agg('(' || e.v || ')::' || e.t::text) INTO vals FROM edge e WHERE e.t = f.args[i]::regtype;
      ELSE
        want := CASE WHEN f.proname ~ 'like' THEN 'pattern'
                     WHEN f.proname ~ 'trim' THEN 'trim'
                     WHEN f.proname ~ '^substr' AND i = 3 THEN 'length'
                     ELSE 'integer' END;
        SELECT array_agg('(' || a.v || ')::' || format_type(f.args[i], NULL)) INTO vals
          FROM constant_arg a WHERE a.kind = want;
      END IF;
      IF vals IS NULL THEN
        failures := concat(failures, f.function::text, ' (no edge values for ', format_type(f.args[i], NULL), ') ');
        vals := ARRAY[]::text[];
      END IF;
      next := ARRAY[]::text[];
      FOREACH c IN ARRAY combos LOOP
        FOREACH v IN ARRAY vals LOOP
          next := next || (CASE WHEN c = '' THEN v ELSE c || ', ' || v END);
        END LOOP;
      END LOOP;
      combos := next;
    END LOOP;
    FOREACH c IN ARRAY combos LOOP
      calls := calls + 1;
      BEGIN
        EXECUTE format('SELECT %s(%s)', f.function::oid::regproc::text, c);
      EXCEPTION WHEN OTHERS THEN
        failures := concat(failures, f.function::text, ' (', left(c, 60), ': ', SQLSTATE, ') ');
      END;
    END LOOP;
  END LOOP;
END $$;
SET client_min_messages = warning;
SELECT functions >= 300 AS all_of_them, calls > 3000 AS many_calls, failures AS raised
FROM pg_temp.run_all();
RESET client_min_messages;

-- What is not trusted although LEAKPROOF: the geometric comparisons that raise on huge values.
SELECT 'circle_lt(circle,circle)'::regprocedure IN (SELECT function FROM dp_restricted_functions()) AS circle_lt_trusted,
       (SELECT proleakproof FROM pg_proc WHERE oid = 'circle_lt(circle,circle)'::regprocedure) AS circle_lt_leakproof;
SELECT expect_error($$SELECT circle '<(0,0),1e200>' < circle '<(0,0),1>'$$) AS circle_lt_raises;
