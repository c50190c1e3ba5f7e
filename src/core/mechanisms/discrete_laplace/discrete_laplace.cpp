// discrete_laplace.cpp — the geometric mechanism (privacy argument in discrete_laplace.h):
// calibration of s, exact-law sampler, losses, tail.
#include <algorithm>
#include <cmath>

#include "errors.h"
#include "mechanisms/discrete_laplace/discrete_laplace.h"

namespace dpagg {
namespace {

// The largest scale s = sensitivity / epsilon served.  A draw is floor(-s ln U) with
// -ln U <= 745 (U >= 2^-1074), so below 2^40 * 745 < 2^50: every draw, and the difference of two,
// is an exact integer in a double.  Beyond 2^53 a draw is only a multiple of its own ulp, and when
// two such draws nearly cancel, the noise is small but coarse while the answer is exact: the
// release a + X then shows the low bits of a (found by an attack review; Mironov's concern for
// discrete noise).  Requests with a larger scale are refused; laplace serves them.
constexpr double kMaxScale = 0x1p40;

// G >= 0 with P(G >= k) = exp(-k/s): floor(-s ln U), U uniform on (0, 1) at full resolution
// (no cut-off of the tail at 2^-53).
double sample_geometric(double s, RandomSource& rng) {
  return std::floor(-s * std::log(rng.uniform_open01()));
}

class DiscreteLaplace final : public Mechanism {
 public:
  const char* name() const override { return "discrete_laplace"; }
  dpagg_mechanism_id id() const override { return DPAGG_MECH_DISCRETE_LAPLACE; }
  const char* summary() const override {
    return "integer-valued queries only: two-sided geometric noise, P(k) proportional to "
           "exp(-epsilon |k| / sensitivity) (Ghosh et al. 2009); pure DP, delta unused";
  }
  const char* guarantee() const override { return "epsilon-DP (delta is not used)"; }
  bool accepts_zero_delta() const override { return true; }
  std::vector<std::string> param_names() const override { return {"s", "p"}; }

  // Scalar releases of integer-valued queries only.
  bool serves(const PrivacyRequest& req) const override {
    return !req.vector && req.dimension == 1 && req.integer_valued;
  }

  void validate(const PrivacyRequest& req, const Options&) const override {
    if (req.vector || req.dimension != 1)
      invalid("mechanism discrete_laplace serves scalar releases only",
              "Use gaussian or l2 for a vector release.");
    if (!req.integer_valued)
      invalid("mechanism discrete_laplace needs an integer-valued query",
              "Use laplace for non-integer values; discrete_laplace adds integer noise to integer "
              "answers (counts, sums of integers) with a whole-number sensitivity.");
    if (!(req.sensitivity >= 1 && req.sensitivity == std::floor(req.sensitivity)))
      invalid("mechanism discrete_laplace needs a whole-number sensitivity",
              "Pass a sensitivity in 1, 2, 3, ...");
    if (!(req.sensitivity / req.epsilon <= kMaxScale / (1 + 0x1p-40)))
      invalid("mechanism discrete_laplace serves sensitivity / epsilon up to 2^40 (about 1.1e12)",
              "Its integer noise is exact only up to that scale: use laplace for a smaller epsilon "
              "or a larger sensitivity.");
  }

  void calibrate(const PrivacyRequest& req, const Options& options,
                 dpagg_calibration& cal) const override {
    validate(req, options);
    const double D = req.sensitivity, eps = req.epsilon;
    const double s = D / eps * (1 + 0x1p-48);
    // D/s <= eps for the double s: the quotient rounded up by more than its 2^-53.
    if (!(std::isfinite(s) && s > 0 && (D / s) * (1 + 0x1p-51) <= eps))
      throw Error(DPAGG_INTERNAL, "discrete_laplace: certificate check failed");
    const double p = std::exp(-1 / s);
    cal.scale = s;
    cal.nparams = 2;
    cal.params[0] = s;
    cal.params[1] = p;
    const double one_minus_p = -std::expm1(-1 / s), one_minus_p2 = -std::expm1(-2 / s);
    cal.l1 = 2 * p / one_minus_p2;
    cal.l2 = 2 * p / one_minus_p / one_minus_p;
    if (!(std::isfinite(cal.l1) && std::isfinite(cal.l2)))
      invalid("discrete_laplace: the noise for this epsilon and sensitivity is not representable",
              "Pass a larger epsilon.");
    cal.delta_bound = 0.0;
  }

  double sample(const dpagg_calibration& cal, RandomSource& rng) const override {
    if (!(cal.scale <= kMaxScale))  // a calibration made elsewhere: never draw coarse noise
      throw Error(DPAGG_INTERNAL, "discrete_laplace: scale beyond the exact range");
    const double g1 = sample_geometric(cal.scale, rng);
    const double g2 = sample_geometric(cal.scale, rng);
    return g1 - g2;
  }

  // P(|X| > w) = P(|X| >= m) = 2 p^m / (1 + p), m = floor(w) + 1 (in double m is at most the exact
  // value, so the tail at most over-estimated), raised by 2^-40 relative for exp's rounding.
  double noise_tail(const dpagg_calibration& cal, double w) const override {
    if (!(w >= 0)) return 1.0;
    const double s = cal.scale, m = std::floor(w) + 1;
    const double t = 2 * std::exp(-m / s) / (1 + std::exp(-1 / s));
    return std::min(1.0, t * (1 + 0x1p-40));
  }
};

}  // namespace

const Mechanism& discrete_laplace_mechanism() {
  static const DiscreteLaplace m;
  return m;
}

}  // namespace dpagg
