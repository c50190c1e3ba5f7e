// rdp.cpp — see rdp.h.
#include "math/rdp.h"

#include <cmath>
#include <limits>

#include "errors.h"
#include "math/gaussian.h"

namespace dpagg {

namespace {
// ln(e^a + e^b) without overflow.
double log_add(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}
double log_Phi(double x) { return log_normal_upper_tail(-x); }
}  // namespace

double osgt_rdp(double alpha, double m, double sigma, double d) {
  if (!(alpha > 1) || !(m >= 0) || !(sigma > 0) || !(d >= 0))
    throw Error(DPAGG_INTERNAL, "osgt_rdp: needs alpha > 1, m >= 0, sigma > 0, d >= 0");
  const double r = m / sigma;
  const double t1 = log_Phi((-m + (alpha - 1) * d) / sigma);
  const double t2 = log_Phi((-m - alpha * d) / sigma);
  // e^E [Phi(b3/sigma) - Phi(b4/sigma)] = e^E [Q(b4/sigma) - Q(b3/sigma)], b4 > 0: all in logs.
  const double E = 2 * alpha * (alpha - 1) * m * (d + m) / (sigma * sigma);
  const double b3 = alpha * d + m * (2 * alpha - 1), b4 = b3 - d;
  const double lq4 = log_normal_upper_tail(b4 / sigma), lq3 = log_normal_upper_tail(b3 / sigma);
  const double t3 = (b3 > b4 && m > 0) ? E + lq4 + std::log1p(-std::exp(lq3 - lq4)) : -INFINITY;
  const double logB = log_add(log_add(t1, t2), t3);
  return alpha * d * d / (2 * sigma * sigma) + (logB - std::log(2.0) - log_normal_upper_tail(r)) / (alpha - 1);
}

double osgt_rdp_theorem2(double alpha, double m, double sigma, double d2, int k) {
  const double q = normal_upper_tail(m / sigma);
  return alpha * d2 * d2 / (2 * sigma * sigma) + k * std::log((1 - q) / q) / (alpha - 1);
}

double rdp_to_dp_delta(double alpha, double tau, double epsilon) {
  return std::exp((alpha - 1) * (tau - epsilon) + alpha * std::log1p(-1 / alpha)) / (alpha - 1);
}

double rdp_best_delta(const std::function<double(double)>& tau, double epsilon, double alpha_lo,
                      double alpha_hi, double* best_alpha) {
  auto f = [&](double a) { return std::log(rdp_to_dp_delta(a, tau(a), epsilon)); };
  const int n = 400;
  double la = std::log(alpha_lo - 1), lb = std::log(alpha_hi - 1);
  int best = 0;
  double fb = INFINITY;
  for (int i = 0; i <= n; ++i) {
    double a = 1 + std::exp(la + (lb - la) * i / n), v = f(a);
    if (v < fb) fb = v, best = i;
  }
  // Golden section between the scan's neighbours of the best point.
  double lo = 1 + std::exp(la + (lb - la) * std::max(0, best - 1) / n);
  double hi = 1 + std::exp(la + (lb - la) * std::min(n, best + 1) / n);
  const double g = 0.6180339887498949;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
  for (int it = 0; it < 100 && hi - lo > 1e-10 * hi; ++it) {
    if (f1 < f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - g * (hi - lo); f1 = f(x1); }
    else { lo = x1; x1 = x2; f1 = f2; x2 = lo + g * (hi - lo); f2 = f(x2); }
  }
  double a = f1 < f2 ? x1 : x2;
  double v = std::min(f1, f2);
  if (fb < v) { a = 1 + std::exp(la + (lb - la) * best / n); v = fb; }
  if (best_alpha) *best_alpha = a;
  return std::exp(v);
}

}  // namespace dpagg
