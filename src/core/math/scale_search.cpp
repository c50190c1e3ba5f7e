#include "math/scale_search.h"

#include <boost/math/tools/toms748_solve.hpp>

#include <cmath>
#include <string>
#include <utility>

#include "errors.h"
#include "interrupt.h"

namespace dpagg {

double smallest_feasible_scale(const std::function<double(double)>& upper, double delta,
                               double start, const char* who) {
  auto excess = [&](double log_s) {
    double u = upper(std::exp(log_s));
    return (std::isnan(u) ? INFINITY : u) - delta;
  };
  const double step = std::log(2.0);
  // Bracket in log s: excess(hi) <= 0 (feasible), excess(lo) > 0 (infeasible).
  double hi = std::log(start);
  double f_hi = excess(hi);
  for (int i = 0; f_hi > 0; ++i) {
    if (i > 2000) throw Error(DPAGG_INTERNAL, std::string(who) + ": no feasible scale found");
    if (i % 64 == 63) check_interrupt();
    hi += step;
    f_hi = excess(hi);
  }
  double lo = hi - step;
  double f_lo = excess(lo);
  for (int i = 0; f_lo <= 0; ++i) {
    if (i > 2000) throw Error(DPAGG_INTERNAL, std::string(who) + ": no infeasible scale found");
    if (i % 64 == 63) check_interrupt();
    hi = lo;
    f_hi = f_lo;
    lo -= step;
    f_lo = excess(lo);
  }
  boost::uintmax_t max_iter = 200;
  auto tol = [](double x, double y) { return std::fabs(x - y) <= 1e-12; };
  std::pair<double, double> r;
  if (std::isinf(f_lo)) {
    // TOMS 748 interpolates and needs finite values: bisect until the infeasible end is finite.
    while (std::isinf(f_lo) && hi - lo > 1e-12) {
      double mid = 0.5 * (lo + hi);
      double f = excess(mid);
      if (f <= 0) {
        hi = mid;
        f_hi = f;
      } else {
        lo = mid;
        f_lo = f;
      }
    }
  }
  if (std::isinf(f_lo) || hi - lo <= 1e-12) {
    r = {lo, hi};
  } else {
    r = boost::math::tools::toms748_solve(excess, lo, hi, f_lo, f_hi, tol, max_iter);
  }
  // toms748 keeps a sign-changing bracket; take its feasible end.
  double s = std::exp(excess(r.first) <= 0 ? r.first : r.second);
  // exp() rounds: step up until the certified check holds at the very double returned.
  for (int i = 0; !(upper(s) <= delta); ++i) {
    if (i > 64) throw Error(DPAGG_INTERNAL, std::string(who) + ": certificate check failed");
    s *= 1.0 + 1e-15;
  }
  return s;
}

}  // namespace dpagg
