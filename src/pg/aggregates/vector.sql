-- Calibration of a vector release (src/pg/aggregates/vector.c); the dp_sum_vector aggregates themselves are in
-- the table of scripts/generate_sql.py.
CREATE FUNCTION dp_calibrate_vector(
    mechanism text, dimension integer, epsilon double precision, delta double precision,
    l2_bound double precision DEFAULT 1.0,
    OUT mechanism_name text, OUT scale double precision, OUT mse double precision,
    OUT per_coordinate_variance double precision, OUT rho double precision,
    OUT delta_certified double precision)
  AS 'MODULE_PATHNAME', 'dpagg_calibrate_vector_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_calibrate_vector(text, integer, double precision, double precision, double precision) IS
  'calibrate a vector release (scale, expected squared l2 error, zCDP rho where it holds); releases nothing';
