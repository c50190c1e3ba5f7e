/*
 * dpagg_core.h — the C interface of the dpagg mechanism core.
 *
 * This header is the only thing the PostgreSQL glue (src/pg/, written in C) sees of the core
 * (src/core/, written in C++17).  Every function here is implemented in C++ behind a
 * try/catch: no C++ exception ever leaves it, and it never calls PostgreSQL, so no
 * ereport/elog long jump can cross a live C++ object.  Errors come back as a status plus a
 * dpagg_error the caller turns into ereport(ERROR) once it is back in C.
 *
 * All structs are plain data (no pointers), so the glue can cache them in PostgreSQL memory.
 */
#ifndef DPAGG_CORE_H
#define DPAGG_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error classes; the glue maps each to a SQLSTATE. */
typedef enum dpagg_status
{
	DPAGG_OK = 0,
	DPAGG_INVALID_PARAMETER = 1,	/* 22023 invalid_parameter_value */
	DPAGG_NOT_SUPPORTED = 2,		/* 0A000 feature_not_supported */
	DPAGG_INTERNAL = 3,				/* XX000 internal_error */
	DPAGG_CANCELED = 4				/* the host asked to stop (query cancel) */
} dpagg_status;

typedef struct dpagg_error
{
	int			status;			/* a dpagg_status */
	char		message[512];
	char		hint[512];
} dpagg_error;

#define DPAGG_MECH_SPEC_LEN 64	/* longest mechanism spec, NUL included */

/*
 * The identity of a mechanism: one value per mechanism name, fixed here for good (never
 * renumbered, never reused), so that a calibration stored by one build names the same mechanism
 * in another.  The order of dp_mechanisms() is independent of these values.
 */
typedef enum dpagg_mechanism_id
{
	DPAGG_MECH_NONE = 0,
	DPAGG_MECH_ANALYTIC_GAUSSIAN = 1,
	DPAGG_MECH_CLASSIC_GAUSSIAN = 2,
	DPAGG_MECH_LAPLACE = 3,
	DPAGG_MECH_DWORK2006_GAUSSIAN = 4,
	DPAGG_MECH_ZHAO1_GAUSSIAN = 5,
	DPAGG_MECH_ZHAO2_GAUSSIAN = 6,
	DPAGG_MECH_ZCDP_GAUSSIAN = 7,
	DPAGG_MECH_PDP_GAUSSIAN = 8,
	DPAGG_MECH_ZHAO3_PDP_GAUSSIAN = 9,
	DPAGG_MECH_ZHAO4_PDP_GAUSSIAN = 10,
	DPAGG_MECH_OSGT = 11,
	DPAGG_MECH_GENERALIZED_GAUSSIAN = 12,
	DPAGG_MECH_QUASI_GAUSSIAN = 13,
	DPAGG_MECH_MULTI_GAUSSIAN = 14,
	DPAGG_MECH_AUTO = 15,			/* never in a calibration: auto returns the one it chose */
	DPAGG_MECH_L2 = 16,				/* the l2 mechanism of vector releases (SGG(T-1, 1)) */
	DPAGG_MECH_TRUNCATED_LAPLACE = 17,
	DPAGG_MECH_STAIRCASE = 18,
	DPAGG_MECH_DISCRETE_LAPLACE = 19,
	DPAGG_MECH_TULAP = 20
} dpagg_mechanism_id;
#define DPAGG_MAX_PARAMS 8

/*
 * A calibrated mechanism: everything needed to sample its noise and to describe it.
 * Produced only by dpagg_calibrate(); the calibration is certified: delta_bound is a
 * rigorous upper bound on the mechanism's privacy profile at epsilon, and delta_bound <= delta.
 */
typedef struct dpagg_calibration
{
	char		spec[DPAGG_MECH_SPEC_LEN];	/* canonical spec of the mechanism used, e.g. "laplace" */
	char		requested[DPAGG_MECH_SPEC_LEN];	/* canonical spec asked for, e.g. "auto(objective=l2)" */
	int32_t		mechanism;		/* a dpagg_mechanism_id, of the mechanism in spec */
	int32_t		nparams;
	double		epsilon;
	double		delta;
	double		sensitivity;
	double		scale;			/* the main scale parameter (sigma, b, ...) */
	double		params[DPAGG_MAX_PARAMS];	/* mechanism-specific, named by the mechanism */
	double		l1;				/* E|X| of the noise */
	double		l2;				/* E[X^2] of the noise */
	double		delta_bound;	/* certified upper bound on delta at epsilon */
	int32_t		integer_valued;	/* calibrated for integer shifts 1..sensitivity only */
	int32_t		dimension;		/* T: 1 for a scalar release */
	int32_t		vector;			/* a vector release (dp_sum_vector): l1 = E||X||_2, l2 = E||X||_2^2 */
} dpagg_calibration;

/* One mechanism's entry for listings. */
typedef struct dpagg_mechanism_info
{
	const char *name;
	const char *summary;
	const char *guarantee;		/* e.g. "(epsilon, delta)-DP" */
	int			accepts_zero_delta;
} dpagg_mechanism_info;

int			dpagg_mechanism_count(void);
int			dpagg_mechanism_get(int index, dpagg_mechanism_info *out);

/*
 * Check that a mechanism spec names a mechanism with valid options; writes the canonical form.
 */
int			dpagg_validate_spec(const char *spec, char *canonical, size_t canonical_len,
								dpagg_error *err);

/*
 * Validate (epsilon, delta, sensitivity) and calibrate the named mechanism.
 * Returns DPAGG_OK or an error status with err filled in.
 */
int			dpagg_calibrate(const char *spec, double epsilon, double delta, double sensitivity,
							dpagg_calibration *out, dpagg_error *err);

/* As dpagg_calibrate, for an integer-valued query when integer_valued != 0 (the sensitivity must
 * then be a whole number).  The sensitivity is used as given: for a release, see
 * dpagg_calibrate_for_release. */
int			dpagg_calibrate_ex(const char *spec, double epsilon, double delta, double sensitivity,
							   int integer_valued, dpagg_calibration *out, dpagg_error *err);

/* What auto (and multi_gaussian's choice of K) minimise when the spec names no objective. */
typedef enum dpagg_objective
{
	DPAGG_OBJECTIVE_L2 = 0,		/* expected squared error (the default) */
	DPAGG_OBJECTIVE_L1 = 1		/* expected absolute error */
} dpagg_objective;

/*
 * A release to calibrate for.  A scalar release: dimension 1, vector 0.  A vector release
 * (dp_sum_vector): vector 1 and T = dimension sums over the same rows, each row's vector clipped to
 * l2 norm `sensitivity`; its mechanisms are "gaussian", "l2" and "auto" (least E||X||_2^2: the
 * objective is always l2 for vectors).  Plain data without padding, so it can be a cache key.
 */
typedef struct dpagg_request
{
	double		epsilon;
	double		delta;
	double		sensitivity;	/* what one row moves the answer by (l2 norm for vectors) */
	int32_t		integer_valued; /* scalar integer-valued query (whole-number sensitivity) */
	int32_t		dimension;
	int32_t		vector;
	int32_t		objective;		/* a dpagg_objective */
	int32_t		accounting;		/* DPAGG_ACCOUNTING_BASIC (0) or _ZCDP (1) of the budget charged:
								 * auto without an accounting option weighs it (auto.h) */
	int32_t		reserved;		/* 0: no padding in a cache key */
} dpagg_request;

/*
 * Calibrate for a release (the one entry point the glue uses): the release-grid allowance is
 * added to the sensitivity here (see release.cpp; not for integer-valued queries, whose answers
 * the grid never moves), and the objective applies to mechanisms with an objective option whose
 * spec names none (recorded in the canonical spec, e.g. "auto(objective=l2)").
 */
int			dpagg_calibrate_for_release(const char *spec, const dpagg_request *req,
										dpagg_calibration *out, dpagg_error *err);

/* Validate as dpagg_calibrate_for_release would, without calibrating (cheap). */
int			dpagg_check_for_release(const char *spec, const dpagg_request *req, dpagg_error *err);

/* Validate a request as dpagg_calibrate would, without calibrating (cheap). */
int			dpagg_check(const char *spec, double epsilon, double delta, double sensitivity,
						int integer_valued, dpagg_error *err);

/* Details of a calibration as a JSON object (NUL-terminated, truncated to buflen). */
int			dpagg_describe(const dpagg_calibration *cal, char *buf, size_t buflen, dpagg_error *err);

/*
 * Release a value: quanta * quantum is the exact true answer (an integer number of quanta, as
 * accumulated by dpagg_accum.h).  The noise of `cal` is drawn from the secure generator, the
 * answer and the noise are both snapped to a power-of-two grid chosen from public values only
 * (see release.cpp), and their exact sum is returned rounded to a double.
 * `cal` must come from dpagg_calibrate_for_release (a scalar release), which accounts for the
 * snapping.
 */
int			dpagg_release(const dpagg_calibration *cal, __int128 quanta, double quantum,
						  double *out, dpagg_error *err);

/*
 * Accuracy of a scalar release (interval.h): the half-width w of an interval that holds the
 * released value's error with probability at least `confidence` (0 < confidence < 1): for the
 * release v of a true answer a, P(|v - a| <= w) >= confidence.  w covers the noise and the
 * release grid's rounding, not the bias of clamping.  Conservative: w is never below the exact
 * quantile.  DPAGG_INVALID_PARAMETER for a confidence out of range or a mechanism whose noise has
 * no known tail.
 */
int			dpagg_noise_halfwidth(const dpagg_calibration *cal, double confidence, double *out,
								  dpagg_error *err);

/*
 * The same release with what depends only on the calibration and the quantum worked out once
 * (the mechanism, the release grid and its exponents): the glue makes a plan per call site and
 * releases every group of the site with it.  dpagg_release_planned(plan, q) returns exactly what
 * dpagg_release(cal, q, quantum) would for a fresh draw of the noise.  The plan points to `cal`,
 * which must outlive it and not change.
 */
typedef struct dpagg_release_plan
{
	const dpagg_calibration *cal;
	double		grid;
	int32_t		log2_grid;
	int32_t		log2_quantum;
} dpagg_release_plan;

int			dpagg_release_plan_init(const dpagg_calibration *cal, double quantum,
									dpagg_release_plan *plan, dpagg_error *err);
int			dpagg_release_planned(const dpagg_release_plan *plan, __int128 quanta, double *out,
								  dpagg_error *err);
/* The planned release's range: it takes a true answer of |quanta| below this bound (exclusive);
 * beyond it dpagg_release_planned fails.  Pure arithmetic on the plan. */
__int128	dpagg_release_max_quanta(const dpagg_release_plan *plan);

/* rho of the calibrated noise where the mechanism is rho-zCDP, else NaN. */
double		dpagg_zcdp_rho(const dpagg_calibration *cal);

/*
 * The delta a release of this calibration is charged, asked at `delta`: 0 when its certificate
 * bounds delta by exactly 0 (a pure epsilon-DP mechanism, e.g. the staircase auto may choose),
 * else `delta` (docs/guides/budgets.md, "What is charged").  A NaN bound charges `delta`.
 */
double		dpagg_charged_delta(const dpagg_calibration *cal, double delta);

/* Release a vector: out[j] = quanta[j] * quantum + noise_j, each snapped to the release grid;
 * `cal` from dpagg_calibrate_for_release, quanta and out of length cal->dimension. */
int			dpagg_release_vector(const dpagg_calibration *cal, const __int128 *quanta,
								 double quantum, double *out, dpagg_error *err);

/* Install the function long computations poll; a non-zero answer makes them stop with
 * DPAGG_CANCELED.  It must not long-jump. */
void		dpagg_set_interrupt_check(int (*should_stop) (void));

/* Fill buf with n bytes from the operating system's cryptographically secure generator. */
int			dpagg_secure_bytes(void *buf, size_t n, dpagg_error *err);

/* A uniform double in [0, 1) with 53 random bits from the secure generator's per-process pool
 * (random.h: OpenSSL's DRBG, fork-safe), without a system call per value. */
int			dpagg_secure_uniform(double *out, dpagg_error *err);
/* n of them at once. */
int			dpagg_secure_uniforms(double *out, size_t n, dpagg_error *err);


/*
 * Grants (grant/grant.h): how a Citus coordinator that has charged a query's releases lets its
 * workers make them.  Plain data; the seal is HMAC-SHA256 under a 32-byte key the nodes share.
 */
#define DPAGG_GRANT_KEY_LEN 32
#define DPAGG_GRANT_NONCE_LEN 16
#define DPAGG_GRANT_MAX_CALLS 16
#define DPAGG_GRANT_NAME_LEN 256	/* database, role, schema-qualified table; NUL included */
#define DPAGG_GRANT_AGG_LEN 64
#define DPAGG_GRANT_MAX_SHARDS 2048
#define DPAGG_GRANT_TEXT_MAX 65536	/* longest grant or template text, NUL included */

typedef struct dpagg_grant_part
{
	char		spec[DPAGG_MECH_SPEC_LEN];
	double		epsilon;
	double		delta;
	double		rho;
} dpagg_grant_part;

/* One release as the ledger charged it (charge.c: aggregate, epsilon, delta, parts). */
typedef struct dpagg_grant_call
{
	char		aggregate[DPAGG_GRANT_AGG_LEN];
	double		epsilon;
	double		delta;
	int			nparts;			/* 1 or 2 */
	dpagg_grant_part parts[2];
} dpagg_grant_call;

/* A shard of the grant's table and the Citus node group that holds its one placement. */
typedef struct dpagg_grant_shard
{
	int64_t		shardid;
	int32_t		groupid;
} dpagg_grant_shard;

typedef struct dpagg_grant
{
	unsigned char nonce[DPAGG_GRANT_NONCE_LEN];
	int64_t		issued_us;		/* Unix time, microseconds */
	int64_t		expires_us;
	char		database[DPAGG_GRANT_NAME_LEN];
	char		role[DPAGG_GRANT_NAME_LEN];
	char		table[DPAGG_GRANT_NAME_LEN];	/* "schema"."table", quoted as SQL would */
	int			ncalls;			/* 1 .. DPAGG_GRANT_MAX_CALLS */
	dpagg_grant_call calls[DPAGG_GRANT_MAX_CALLS];
	int			nshards;		/* 0 .. DPAGG_GRANT_MAX_SHARDS (0 in a template) */
	dpagg_grant_shard shards[DPAGG_GRANT_MAX_SHARDS];
} dpagg_grant;

/* The unsealed template of a grant (its nonce and expiry ignored), and back. */
int			dpagg_grant_template(const dpagg_grant *g, char *out, size_t outlen, dpagg_error *err);
int			dpagg_grant_from_template(const char *text, dpagg_grant *out, dpagg_error *err);
/* Seal a grant; open one: MAC (constant time), strict format, then expiry against now_us.  A
 * grant that fails any check is DPAGG_INVALID_PARAMETER, with nothing parsed from it returned. */
int			dpagg_grant_seal(const unsigned char *key, const dpagg_grant *g, char *out,
							 size_t outlen, dpagg_error *err);
int			dpagg_grant_open(const unsigned char *key, const char *text, int64_t now_us,
							 dpagg_grant *out, dpagg_error *err);
/* A key as stored: 64 hexadecimal digits, surrounding white space ignored. */
int			dpagg_grant_parse_key(const char *text, unsigned char *key, dpagg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* DPAGG_CORE_H */
