// search.cpp — the search half of the multi-Gaussian calibration (multi_gaussian.h): the sigma at
// which the approximate profile (grid_profile.cpp) peaks at delta, the scan over K for the least
// loss, and multi_gaussian_calibrate, which certifies (certifier.cpp) slightly above the search
// value and falls back to the analytic Gaussian's sigma (private in closed form) if that fails.
// Nothing here is a proof on its own: only the certifier's verdict, or the closed-form fallback,
// makes a sigma private.
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>

#include "interrupt.h"
#include "math/gaussian.h"
#include "mechanisms/multi_gaussian/grid_profile.h"
#include "mechanisms/multi_gaussian/multi_gaussian.h"

namespace dpagg {

using mg_detail::approx_profile_sup;

namespace {
// The smallest sigma (in units of D) dpagg uses: below it an integer-valued release is already
// almost a discrete (truncated) Laplace, and the grids of the certificate would grow without bound.
constexpr double kSigmaFloor = 0.02;
}  // namespace

double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts) {
  return multi_gaussian_search_sigma(eps, delta, K, integer_shifts, 0.0);
}

double multi_gaussian_search_sigma(double eps, double delta, int K, int integer_shifts, double hint,
                                   double log_tol) {
  check_interrupt();
  // G(x) = log(approximate sup at sigma = e^x / delta), decreasing in x.  The analytic Gaussian's
  // sigma_AG is feasible for every component pair (mixtures of DP pairs are DP), so G(log sigma_AG)
  // <= 0 (up to the approximation; if not, sigma_AG is returned and certified as the fallback).
  auto G = [&](double x) {
    return std::log(approx_profile_sup(eps, K, std::exp(x), integer_shifts, 1e-5 * delta).delta + 1e-300) -
           std::log(delta);
  };
  const double x_ag = std::log(analytic_gaussian_sigma(eps, delta, 1.0));
  const double x_floor = std::log(kSigmaFloor);
  if (x_ag <= x_floor) return std::exp(x_ag);
  // Bracket: x_lo with G > 0, x_hi with G <= 0.  Start at the hint (the sigma of a neighbouring K)
  // or at sigma_AG; step towards the root by a secant in u = 1/sigma^2 (log delta(sigma) is nearly
  // linear in it), overshooting by half, so that a bracket is found in a few evaluations.
  double x1 = x_ag;
  if (hint > 0 && std::log(hint) < x_ag && std::log(hint) > x_floor) x1 = std::log(hint);
  double g1 = G(x1);
  const double first_step = (x1 == x_ag) ? std::log(2.0) : 0.02;
  double x0 = NAN, g0 = NAN;  // the previous point
  const double dir = (g1 <= 0) ? -1.0 : 1.0;  // move down in sigma while feasible, up while not
  for (int it = 0; it < 60; ++it) {
    if ((g1 <= 0) != (dir < 0)) break;  // the sign changed: bracketed
    double step = first_step;
    if (!std::isnan(x0)) {
      const double u0 = std::exp(-2 * x0), u1 = std::exp(-2 * x1);
      const double slope = (g1 - g0) / (u1 - u0);  // > 0: G grows with u
      if (slope > 0 && std::isfinite(slope)) {
        const double u = u1 - 1.5 * g1 / slope;
        if (u > 0) step = std::fabs(-0.5 * std::log(u) - x1);
      }
      step = std::min(std::max(step, 0.005), std::log(2.0));
    }
    double x2 = x1 + dir * step;
    if (dir < 0 && x2 <= x_floor) {
      if (x1 <= x_floor) return kSigmaFloor;  // feasible all the way down to the floor
      x2 = x_floor;
    }
    if (dir > 0 && x2 >= x_ag) {
      if (x1 >= x_ag) return std::exp(x_ag);
      x2 = x_ag;
    }
    x0 = x1;
    g0 = g1;
    x1 = x2;
    g1 = G(x1);
  }
  double lo = std::min(x0, x1), hi = std::max(x0, x1);
  double glo = (lo == x0) ? g0 : g1, ghi = (hi == x0) ? g0 : g1;
  if (!(glo > 0 && ghi <= 0)) return std::exp(x_ag);  // no bracket (not expected)
  boost::uintmax_t iters = 60;
  auto tol = [log_tol](double x, double y) { return std::fabs(x - y) <= log_tol; };
  auto r = boost::math::tools::toms748_solve(G, lo, hi, glo, ghi, tol, iters);
  return std::exp(r.second);
}

// The K with the least estimated loss (search phase, not certified).  The loss is not smooth in K:
// while the outermost weight e^{-K eps}/S exceeds about delta the tail binds and sigma stays large;
// at the K where it stops binding sigma collapses and the loss drops sharply, after which it grows
// slowly with K (the discrete part's variance).  So every K is tried, from 1 up to
// K_sat ~ ln(1/delta)/eps + 2 (beyond it the tail never binds) and at most 40; once sigma has
// collapsed (below 1/sqrt(2 eps), the adjacent-peak regime) the scan stops after the loss has
// grown three K in a row.
// Each K's search starts from the previous K's sigma (sigma changes little from one K to the next,
// except where it collapses) and stops at 2e-4 in log sigma: enough to compare losses (a near-tie
// may go either way; only utility, by less than 0.05%, is at stake).  `sigma_out`: the search sigma of
// the chosen K, a hint for its calibration.
int multi_gaussian_best_k(const PrivacyRequest& req, int shifts, bool l1, int k_cap,
                          double* best_loss, double* sigma_out) {
  // One-entry memo: auto asks for the estimate, then calibrates the same request.
  struct Memo {
    double eps = -1, delta = -1, sens = -1;
    int shifts = -1, k_cap = -1;
    bool l1 = false;
    int K = 0;
    double loss = 0, sigma = 0;
  };
  static thread_local Memo memo;
  if (memo.eps == req.epsilon && memo.delta == req.delta && memo.sens == req.sensitivity &&
      memo.shifts == shifts && memo.k_cap == k_cap && memo.l1 == l1) {
    if (best_loss) *best_loss = memo.loss;
    if (sigma_out) *sigma_out = memo.sigma;
    return memo.K;
  }
  const double k_sat = std::ceil(std::log(1 / req.delta) / req.epsilon) + 2;
  double best = INFINITY, prev = INFINITY, s = 0, best_s = 0;
  int K = 1, rising = 0;
  for (int k = 1; k <= k_cap; ++k) {
    s = multi_gaussian_search_sigma(req.epsilon, req.delta, k, shifts, s, 2e-4);
    GaussLattice g(req.epsilon, k, s);
    double loss = (l1 ? g.l1() : g.l2()) * (l1 ? req.sensitivity : req.sensitivity * req.sensitivity);
    if (loss < best * (1 - 1e-6)) {
      best = loss;
      K = k;
      best_s = s;
    }
    rising = (loss > prev) ? rising + 1 : 0;
    prev = loss;
    const bool collapsed = s < 1 / std::sqrt(2 * req.epsilon);
    if (k > k_sat || (collapsed && k > K && rising >= 3)) break;
  }
  memo = Memo{req.epsilon, req.delta, req.sensitivity, shifts, k_cap, l1, K, best, best_s};
  if (best_loss) *best_loss = best;
  if (sigma_out) *sigma_out = best_s;
  return K;
}

MultiGaussianResult multi_gaussian_calibrate(double eps, double delta, int K, int integer_shifts,
                                             double hint) {
  MultiGaussianResult res{0, 0, 0, 0};
  double s0 = multi_gaussian_search_sigma(eps, delta, K, integer_shifts, hint);
  res.search_sigma = s0;
  res.worst_phi = approx_profile_sup(eps, K, s0, 0, 1e-5 * delta).phi;
  // Certify slightly above the search value; widen on failure.
  const double sigma_ag = analytic_gaussian_sigma(eps, delta, 1.0);
  for (double tau = 0.002; tau < 0.1; tau *= 2) {
    double s = std::max(s0 * (1 + tau), kSigmaFloor);
    if (s >= sigma_ag) break;
    int used = 0;
    if (multi_gaussian_certify(eps, delta, K, s, integer_shifts, &used)) {
      res.sigma = s;
      res.intervals = used;
      return res;
    }
  }
  // Fallback with a closed-form certificate: at sigma_AG(eps, delta) every pair of components
  // shifted by phi <= D is an (eps, delta)-DP Gaussian pair, and a mixture of DP pairs with the
  // same weights is DP (joint convexity of the hockey-stick divergence; docs/mixtures.md §1.3).
  res.sigma = sigma_ag;
  res.intervals = 0;
  return res;
}

}  // namespace dpagg
