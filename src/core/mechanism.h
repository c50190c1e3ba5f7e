// mechanism.h — what every noise mechanism implements.
//
// A mechanism lives in its own folder mechanisms/<name>/ (header, sources), with its privacy
// argument in the comment at the top of its header, and is registered by one line in registry.cpp.
// It turns a privacy request into a certified dpagg_calibration (plain data, cacheable by the
// glue) and samples its noise.  Mathematics shared by several mechanisms is in math/.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "dpagg_core.h"
#include "options.h"
#include "random.h"

namespace dpagg {

// What `auto` (and multi_gaussian's choice of K) minimise where the spec names no objective: the
// expected squared error (l2) or the expected absolute error (l1).  kUnset: the spec's own option
// (or its default, l2) decides, and the canonical spec is what was written.
enum class Objective { kUnset = 0, kL2 = 1, kL1 = 2 };

// (epsilon, delta) and the sensitivity of the query; validated before a mechanism sees it
// (epsilon finite > 0, 0 <= delta < 1, sensitivity finite > 0, 1 <= dimension <= 10000).
struct PrivacyRequest {
  double epsilon;
  double delta;
  double sensitivity;
  // The query takes integer values and sensitivity is an integer: neighbours differ by an integer
  // in 1..sensitivity, so only those shifts need to be private.  Mechanisms whose privacy profile
  // is monotone in the shift (Gaussian, Laplace) are unaffected.
  bool integer_valued = false;
  // The shape of the release.  A scalar release (the scalar aggregates): dimension 1, vector false.
  // A vector release (dp_sum_vector): `dimension` sums over the same rows, each row's vector clipped
  // to l2 norm `sensitivity`, so that a row moves the vector of answers by at most `sensitivity` in
  // l2 norm; its mechanisms are named by vector_name() ("gaussian", "l2", "auto"), at T = 1 too.
  int dimension = 1;
  bool vector = false;
  // The objective when the spec names none; a vector release always minimises E ||X||_2^2.
  Objective objective = Objective::kUnset;
  // The accounting of the budget charged, for a mechanism with an accounting option (auto) whose
  // spec names none: true for zcdp.
  bool zcdp_accounting = false;
};

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual const char* name() const = 0;
  // The stable identity (dpagg_core.h) a calibration names this mechanism by.
  virtual dpagg_mechanism_id id() const = 0;
  virtual const char* summary() const = 0;
  virtual const char* guarantee() const { return "(epsilon, delta)-DP"; }
  // Whether delta = 0 is acceptable (pure epsilon-DP).
  virtual bool accepts_zero_delta() const { return false; }
  // Option names this mechanism understands (the spec parser rejects any other); their values are
  // read with read_option (options.h).
  virtual std::vector<std::string> option_names() const { return {}; }
  // Names of cal.params[0..nparams-1], for descriptions.
  virtual std::vector<std::string> param_names() const = 0;

  // Refuse a request this mechanism cannot serve (dpagg::invalid), cheaply: called before any
  // calibration, including where only validation is wanted (e.g. the first row of an aggregate).
  virtual void validate(const PrivacyRequest&, const Options&) const {}

  // Calibrate: fill scale, params, l1, l2 and delta_bound (a certified upper bound on the
  // privacy profile at epsilon, which must be <= req.delta).  Throws dpagg::Error.
  virtual void calibrate(const PrivacyRequest& req, const Options& options,
                         dpagg_calibration& cal) const = 0;

  // One draw of the noise.
  virtual double sample(const dpagg_calibration& cal, RandomSource& rng) const = 0;
  // One draw of the noise vector of a calibration of dimension cal.dimension: by default
  // independent draws of sample() per coordinate (right for spherical Gaussian noise and at T = 1).
  virtual void sample_vector(const dpagg_calibration& cal, RandomSource& rng, double* out) const {
    for (int j = 0; j < cal.dimension; ++j) out[j] = sample(cal, rng);
  }

  // The two-sided tail of the calibrated noise X: an upper bound on P(|X| > w) for w >= 0 (every
  // dpagg noise is symmetric about 0), never below the exact value (rounding errs toward a larger
  // tail, so an interval built from it is at least as wide as the exact one: interval.h).  NaN
  // where the mechanism cannot say; the glue then refuses an interval.  The noise meant is the one
  // sample() draws, before the release grid (release.cpp), which interval.cpp accounts for.
  virtual double noise_tail(const dpagg_calibration&, double /*w*/) const {
    return std::numeric_limits<double>::quiet_NaN();
  }

  // The zCDP parameter rho of the calibrated noise where the mechanism is rho-zCDP, else NaN.
  virtual double zcdp_rho(const dpagg_calibration&) const;

  // Whether `auto` may choose this mechanism.
  virtual bool auto_candidate() const { return true; }

  // The releases this mechanism serves.  Scalar releases by default (the scalar-only mechanisms:
  // dimension 1); a mechanism serving vector releases names itself for them by vector_name() and
  // says for which dimensions in serves().  calibrate() fills l1 = E ||X||_2 and l2 = E ||X||_2^2
  // of the noise vector (at T = 1, E|X| and E[X^2]).
  virtual const char* vector_name() const { return nullptr; }
  virtual bool serves(const PrivacyRequest& req) const { return !req.vector && req.dimension == 1; }
  // Whether `auto` considers this mechanism for this request (it must also serve it).
  virtual bool auto_considers(const PrivacyRequest& req) const { return auto_candidate() && serves(req); }

  // A cheap estimate of the calibrated loss (l1 or l2), for mechanisms whose calibration is
  // expensive; NaN when there is none.  `auto` skips calibrating a candidate whose estimate cannot
  // beat the best loss found so far.  Affects only which mechanism is chosen, never privacy.
  virtual double estimate_loss(const PrivacyRequest&, const Options&, bool /*l1*/) const {
    return std::numeric_limits<double>::quiet_NaN();
  }
};

// Shared samplers.
double sample_standard_normal(RandomSource& rng);
double sample_laplace(double b, RandomSource& rng);

}  // namespace dpagg
