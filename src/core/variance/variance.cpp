// variance.cpp — private variances and standard deviations (variance.h; docs/variance.md).
#include "variance.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "errors.h"
#include "guarded.h"

namespace dpagg {

namespace {

// x in [lo, hi]; NaN (which no noisy part should be) goes to lo.
double clamp_to(double x, double lo, double hi) {
  if (!(x >= lo)) return lo;
  return x > hi ? hi : x;
}

bool sample_form(int form) { return form == DPAGG_VAR_SAMP || form == DPAGG_STDDEV_SAMP; }
bool stddev_form(int form) { return form == DPAGG_STDDEV_POP || form == DPAGG_STDDEV_SAMP; }

// x * share, rounded toward 0: the parts never add up to more than the whole.
double share_of(double x, double share) {
  const double s = x * share;
  return s > 0 ? std::nextafter(s, 0.0) : s;
}

}  // namespace

dpagg_variance_plan variance_plan(double epsilon, double delta, double lower, double upper) {
  if (!std::isfinite(lower) || !std::isfinite(upper))
    invalid("lower and upper must be finite", "Pass finite bounds with lower < upper.");
  if (!(lower < upper))
    invalid("the variance needs lower < upper",
            "Pass finite bounds with lower < upper; the arguments are (value, epsilon, delta, "
            "lower, upper).  With lower = upper the variance is known: it is 0.");
  // The call's epsilon and delta, so that an error names the call's and not a part's; each part
  // then gets at least the least epsilon (1e-10) and delta (1e-290) a calibration takes.
  if (!(std::isfinite(epsilon) && epsilon > 0))
    invalid("epsilon must be a finite number greater than 0",
            "Pass epsilon in [4e-10, 1e9], for example 1.0.");
  if (epsilon < 4e-10 || epsilon > 1e9)
    invalid("epsilon of a variance must lie in [4e-10, 1e9]",
            "Pass epsilon in [4e-10, 1e9]: it is split into three parts of at least 1e-10 each.");
  if (!(delta >= 0 && delta < 1))
    invalid("delta must be in [0, 1)",
            "Pass delta in [0, 1): 0 for pure DP, or well below 1/n for n people, e.g. 1e-6 "
            "(epsilon comes first, then delta).");
  if (delta > 0 && delta < 4e-290)
    invalid("delta must be 0 or at least 4e-290",
            "Pass delta = 0 (pure DP, laplace) or delta in [4e-290, 1): it is split into three parts.");
  dpagg_variance_plan p{};
  p.lower = lower;
  p.upper = upper;
  p.mid = lower / 2 + upper / 2;
  p.bound = upper / 2 - lower / 2;  // no overflow for finite bounds
  if (!(p.bound >= 1e-70 && p.bound <= 1e70))
    invalid("the bounds are out of range for a variance: (upper - lower)/2 must lie in [1e-70, 1e70]",
            "Rescale the values (e.g. to thousands or to millionths) so that the half-width of "
            "[lower, upper] lies in [1e-70, 1e70]: half its square is the sensitivity of the sum "
            "of squares, which must lie in [1e-150, 1e150].");
  p.sensitivity[DPAGG_VARIANCE_SQUARES] = p.bound * p.bound / 2;
  p.sensitivity[DPAGG_VARIANCE_SUM] = p.bound;
  p.sensitivity[DPAGG_VARIANCE_COUNT] = 1.0;
  for (int i = 0; i < DPAGG_VARIANCE_PARTS; ++i) {
    p.epsilon[i] = share_of(epsilon, kVarianceShares[i]);
    p.delta[i] = share_of(delta, kVarianceShares[i]);
  }
  return p;
}

bool variance_estimate(const dpagg_variance_plan& p, int form, double squares, double sum,
                       double count, double* out) {
  const double need = sample_form(form) ? 2 : 1;
  if (!(count >= need)) return false;
  const double B2 = p.bound * p.bound;
  const double mean = clamp_to(sum / count, -p.bound, p.bound);
  const double m2 = clamp_to(squares / count + B2 / 2, 0, B2);
  double v = clamp_to(m2 - mean * mean, 0, B2);
  if (sample_form(form)) v *= count / (count - 1);
  *out = stddev_form(form) ? std::sqrt(v) : v;
  return true;
}

void variance_interval(const dpagg_variance_plan& p, int form, double squares, double sum,
                       double count, const double* w, double* lo, double* hi) {
  const bool samp = sample_form(form);
  const double need = samp ? 2 : 1;
  const double B2 = p.bound * p.bound;
  const double W = std::ceil(w[DPAGG_VARIANCE_COUNT]);
  double vlo, vhi;
  if (!(count >= need)) {
    vlo = 0;
    vhi = samp ? 2 * B2 : B2;
  } else {
    // The true count lies in [count - W, count + W], and a defined statistic has at least
    // `need` values; the true sums within their half-widths of the noisy ones.
    const double nmin = std::max(need, count - W);
    const double nmax = std::max(nmin, count + W);
    const double slo = sum - w[DPAGG_VARIANCE_SUM], shi = sum + w[DPAGG_VARIANCE_SUM];
    const double smax = std::max(std::fabs(slo), std::fabs(shi));
    const double smin = (slo <= 0 && shi >= 0) ? 0 : std::min(std::fabs(slo), std::fabs(shi));
    const double qlo = squares - w[DPAGG_VARIANCE_SQUARES];
    const double qhi = squares + w[DPAGG_VARIANCE_SQUARES];
    // E[y^2] = q/n + B^2/2 in [0, B^2]; mean^2 = (s/n)^2 in [0, B^2]; var = E[y^2] - mean^2.
    const double m2lo = clamp_to((qlo >= 0 ? qlo / nmax : qlo / nmin) + B2 / 2, 0, B2);
    const double m2hi = clamp_to((qhi >= 0 ? qhi / nmin : qhi / nmax) + B2 / 2, 0, B2);
    const double mean_hi = std::min(smax / nmin, p.bound);
    const double mean_lo = std::min(smin / nmax, p.bound);
    // Moved outward by 2^-40 B^2: the rounding of this arithmetic and of the values' quanta
    // (each at most 2^-52 of its bound) are far below it.
    const double slack = B2 * 0x1p-40;
    vlo = std::max(0.0, m2lo - mean_hi * mean_hi - slack);
    vhi = std::min(B2, m2hi - mean_lo * mean_lo + slack);
    if (vhi < vlo) vhi = vlo;
    if (samp) {
      // n/(n - 1) falls with n: the least at nmax, the most at nmin (>= 2).
      vlo = std::nextafter(vlo * (nmax / (nmax - 1)), 0.0);
      vhi = std::nextafter(vhi * (nmin / (nmin - 1)), INFINITY);
    }
  }
  if (stddev_form(form)) {
    vlo = std::nextafter(std::sqrt(vlo), 0.0);
    vhi = std::nextafter(std::sqrt(vhi), INFINITY);
    if (vlo < 0) vlo = 0;
  }
  *lo = vlo;
  *hi = vhi;
}

}  // namespace dpagg

extern "C" {

int dpagg_variance_plan_init(double epsilon, double delta, double lower, double upper,
                             dpagg_variance_plan* plan, dpagg_error* err) {
  return dpagg::guarded(err, [&] { *plan = dpagg::variance_plan(epsilon, delta, lower, upper); });
}

int dpagg_variance_estimate(const dpagg_variance_plan* plan, int form, double squares, double sum,
                            double count, double* out) {
  return dpagg::variance_estimate(*plan, form, squares, sum, count, out) ? 1 : 0;
}

void dpagg_variance_interval(const dpagg_variance_plan* plan, int form, double squares, double sum,
                             double count, const double* w, double* lo, double* hi) {
  dpagg::variance_interval(*plan, form, squares, sum, count, w, lo, hi);
}

}  // extern "C"
