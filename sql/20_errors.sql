-- Bad input: a clear ERROR with SQLSTATE 22023 and a hint, never a crash, a NaN or a default.
-- Each case is run on a non-empty and on an empty table (where no row ever reaches the
-- transition function).
SELECT t AS tbl, q, expect_error(format(q, t)) AS error
FROM (VALUES
  -- epsilon
  ($$SELECT dp_sum(x, 0, 1e-5, 10) FROM %s$$),
  ($$SELECT dp_sum(x, -1, 1e-5, 10) FROM %s$$),
  ($$SELECT dp_sum(x, 'NaN', 1e-5, 10) FROM %s$$),
  ($$SELECT dp_sum(x, 'Infinity', 1e-5, 10) FROM %s$$),
  ($$SELECT dp_sum(x, NULL, 1e-5, 10) FROM %s$$),
  -- delta
  ($$SELECT dp_sum(x, 1, -1e-5, 10) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1, 10) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 'NaN', 10) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 0, 10, 'analytic_gaussian') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 10, 'auto(objective=l3)') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 0, 10, 'classic_gaussian') FROM %s$$),
  -- sensitivity and bounds
  ($$SELECT dp_sum(x, 1, 1e-5, 0) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, -3) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 'NaN') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 'Infinity') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 10, 5) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, '-Infinity', 5) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 0, 'NaN'::float8) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 0, 0) FROM %s$$),
  ($$SELECT dp_avg(x, 1, 1e-5, 5, 5) FROM %s$$),
  ($$SELECT dp_avg(x, 1, 1e-5, 10, 0) FROM %s$$),
  -- mechanisms
  ($$SELECT dp_sum(x, 1, 1e-5, 10, 'no_such_mechanism') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 10, 'laplace(k=3)') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 10, 'laplace(') FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 10, NULL) FROM %s$$),
  ($$SELECT dp_sum(x, 2, 1e-5, 10, 'classic_gaussian') FROM %s$$),
  ($$SELECT dp_count(x, 2, 1e-5, 'classic_gaussian') FROM %s$$),
  ($$SELECT dp_avg(x, 4, 1e-5, 0, 10, 'classic_gaussian') FROM %s$$),
  -- parameters that vary per row
  ($$SELECT dp_sum(x, CASE WHEN x > 5 THEN 10 ELSE 0.1 END, 1e-5, 10) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, x) FROM %s$$),
  ($$SELECT dp_sum(x, 1, 1e-5, 0, x) FROM %s$$),
  ($$SELECT dp_avg(x, 1, 1e-5, 0, 10, CASE WHEN x > 5 THEN 'laplace' ELSE 'analytic_gaussian' END) FROM %s$$),
  ($$SELECT dp_count(x, 1, random() * 1e-5) FROM %s$$),
  ($$SELECT dp_count(1 + x, 1e-5) FROM %s$$),
  -- window use
  ($$SELECT dp_sum(x, 1, 1e-5, 10) OVER () FROM %s$$),
  ($$SELECT dp_count(1, 1e-5) OVER (ORDER BY x) FROM %s$$)
) AS cases(q), (VALUES ('(SELECT i4 AS x FROM dp_test) s'), ('dp_empty')) AS tables(t)
ORDER BY q, t;

-- The support functions cannot be called directly or reused by another aggregate: that could
-- reveal an exact state or release noise outside dpagg's aggregates.
SELECT expect_error($$SELECT dpagg_sum_final(NULL::dpagg_state)$$);
SELECT expect_error($$SELECT dpagg_sum_trans_int4_s(NULL, 1, 1.0, 1e-5, 10)$$);
CREATE AGGREGATE leak_sum(integer, float8, float8, float8) (
  SFUNC = dpagg_sum_trans_int4_s, STYPE = dpagg_state);
SELECT expect_error($$SELECT leak_sum(i4, 1.0, 1e-5, 100) FROM dp_test$$);
DROP AGGREGATE leak_sum(integer, float8, float8, float8);
-- Nor with dpagg's final function but a foreign combine function or an initial state.
CREATE FUNCTION spy(dpagg_state, dpagg_state) RETURNS dpagg_state LANGUAGE sql AS 'SELECT $2';
CREATE AGGREGATE leak_combine(integer, float8, float8, float8) (
  SFUNC = dpagg_sum_trans_int4_s, STYPE = dpagg_state, FINALFUNC = dpagg_sum_final,
  COMBINEFUNC = spy, FINALFUNC_MODIFY = READ_WRITE);
SELECT expect_error($$SELECT leak_combine(i4, 1.0, 1e-5, 100) FROM dp_test$$);
CREATE AGGREGATE leak_init(integer, float8, float8, float8) (
  SFUNC = dpagg_sum_trans_int4_s, STYPE = dpagg_state, FINALFUNC = dpagg_sum_final,
  COMBINEFUNC = dpagg_combine, FINALFUNC_MODIFY = READ_WRITE,
  INITCOND = '1:2:0:0:0');
SELECT expect_error($$SELECT leak_init(i4, 1.0, 1e-5, 100) FROM dp_test$$);
DROP AGGREGATE leak_combine(integer, float8, float8, float8);
DROP AGGREGATE leak_init(integer, float8, float8, float8);
DROP FUNCTION spy(dpagg_state, dpagg_state);

-- dp_calibrate validates too.
SELECT expect_error($$SELECT * FROM dp_calibrate('analytic_gaussian', 0, 1e-5, 1)$$);
SELECT expect_error($$SELECT * FROM dp_calibrate('analytic_gaussian', 1, 1e-5, 0)$$);
SELECT expect_error($$SELECT * FROM dp_calibrate('nope', 1, 1e-5, 1)$$);
SELECT expect_error($$SELECT * FROM dp_calibrate('laplace', 1, NULL, 1)$$);

-- An oversized argument is quoted cut to 40 bytes, not whole (nor into the server log).
SELECT q, length(e) < 200 AS short, e
FROM (SELECT q, expect_error(q) AS e FROM (VALUES
  ($$SELECT dp_sum(i4, 1, 1e-5, 10, repeat('x', 100000)) FROM dp_test$$),
  ($$SELECT dp_sum(i4, 1, 1e-5, 10, repeat('é', 50)) FROM dp_test$$),
  ($$SELECT dp_sum_vector(ARRAY[i4::float8], 1, 1, 1e-5, 10, repeat('x', 100000)) FROM dp_test$$),
  ($$SELECT * FROM dp_calibrate(repeat('x', 100000), 1, 1e-5)$$),
  ($$SELECT * FROM dp_calibrate('laplace(' || repeat('k', 1000) || '=1)', 1, 1e-5)$$),
  ($$SELECT * FROM dp_calibrate_vector(repeat('y', 100000), 2, 1, 1e-5)$$)) v(q)) s;

-- Tiny epsilons (a sweep once found internal errors there): refused with 22023 and the range, or released; never XX000.
SELECT q, expect_error(q) AS e
FROM (VALUES
  ($$SELECT dp_count(1e-16, 0, 'laplace') FROM dp_test$$),
  ($$SELECT dp_count(1e-300, 0, 'laplace') FROM dp_test$$),
  ($$SELECT dp_sum_vector(ARRAY[i4::float8, i4], 1, 8.8e-9, 1e-290, 1e-150, 'gaussian') IS NOT NULL FROM dp_test$$),
  ($$SELECT * FROM dp_calibrate('quasi_gaussian', 1.4e-272, 2e-290, 1e150)$$),
  ($$SELECT dp_sum(i4, 1e-10, 1e-290, 1e150, 'laplace') FROM dp_test$$),
  ($$SELECT dp_sum(i4, 1e-10, 1e-290, 1e139, 'analytic_gaussian') IS NOT NULL FROM dp_test$$),
  ($$SELECT dp_count(1e-10, 1e-290) >= 0 FROM dp_test$$)) v(q);
