-- Vector releases (src/pg/vector.c, src/core/vector.h): several sums over the same rows released
-- together, each row's vector clipped to an l2 norm bound.
CREATE FUNCTION dpagg_vsum_trans(internal, double precision[], integer, double precision,
                                 double precision, double precision) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_vsum_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_vsum_trans_m(internal, double precision[], integer, double precision,
                                   double precision, double precision, text) RETURNS internal
  AS 'MODULE_PATHNAME', 'dpagg_vsum_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_vsum_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_vsum_serialize(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_vsum_deserialize(bytea, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_vsum_final(internal) RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_sum_vector(value double precision[], dimension integer,
                               epsilon double precision, delta double precision,
                               l2_bound double precision) (
  SFUNC = dpagg_vsum_trans, STYPE = internal, FINALFUNC = dpagg_vsum_final,
  FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = dpagg_vsum_combine,
  SERIALFUNC = dpagg_vsum_serialize, DESERIALFUNC = dpagg_vsum_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE dp_sum_vector(value double precision[], dimension integer,
                               epsilon double precision, delta double precision,
                               l2_bound double precision, mechanism text) (
  SFUNC = dpagg_vsum_trans_m, STYPE = internal, FINALFUNC = dpagg_vsum_final,
  FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = dpagg_vsum_combine,
  SERIALFUNC = dpagg_vsum_serialize, DESERIALFUNC = dpagg_vsum_deserialize, PARALLEL = SAFE);
COMMENT ON AGGREGATE dp_sum_vector(double precision[], integer, double precision, double precision, double precision) IS
  'differentially private sums of vectors clipped to an l2 norm bound (Gaussian or l2 mechanism, the better one)';
COMMENT ON AGGREGATE dp_sum_vector(double precision[], integer, double precision, double precision, double precision, text) IS
  'differentially private sums of vectors clipped to an l2 norm bound; mechanism gaussian, l2 or auto';

CREATE FUNCTION dp_calibrate_vector(
    mechanism text, dimension integer, epsilon double precision, delta double precision,
    l2_bound double precision DEFAULT 1.0,
    OUT mechanism_name text, OUT scale double precision, OUT mse double precision,
    OUT per_coordinate_variance double precision, OUT rho double precision,
    OUT delta_certified double precision)
  AS 'MODULE_PATHNAME', 'dpagg_calibrate_vector_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_calibrate_vector(text, integer, double precision, double precision, double precision) IS
  'calibrate a vector release (scale, expected squared l2 error, zCDP rho where it holds); releases nothing';
