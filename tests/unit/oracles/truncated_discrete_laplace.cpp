// truncated_discrete_laplace.cpp — see truncated_discrete_laplace.h.
#include "oracles/truncated_discrete_laplace.h"

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace dpagg_oracle {
namespace {

// Integral of g over [lo, hi] split at the given points, Gauss-Kronrod (61 points, adaptive) on
// each smooth piece.
Quad piecewise(const std::function<LD(LD)>& g, LD lo, LD hi, std::vector<LD> cuts) {
  cuts.push_back(lo);
  cuts.push_back(hi);
  std::sort(cuts.begin(), cuts.end());
  Quad out{0.0L, 0.0L};
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const LD a = std::max(cuts[i], lo), b = std::min(cuts[i + 1], hi);
    if (!(b > a)) continue;
    LD err = 0;
    out.value += boost::math::quadrature::gauss_kronrod<LD, 61>::integrate(g, a, b, 10, 1e-16L, &err);
    out.err += err;
  }
  return out;
}

// The unnormalised density exp(-|x|/lambda) on [-A, A] in the variable u = x/lambda, and its
// normaliser (in u) by quadrature.
LD unnormalised(LD u, LD a) { return std::fabs(u) <= a ? std::exp(-std::fabs(u)) : 0.0L; }

LD normaliser(LD a) {
  auto g = [a](LD u) { return unnormalised(u, a); };
  return piecewise(g, -a, a, {0.0L}).value;
}

}  // namespace

Quad truncated_laplace_hockey(LD lambda, LD A, LD eps, LD mu) {
  const LD a = A / lambda, m = mu / lambda, z = normaliser(a), e = std::exp(eps);
  auto g = [&](LD u) {
    const LD v = (unnormalised(u, a) - e * unnormalised(u - m, a)) / z;
    return v > 0 ? v : 0.0L;
  };
  return piecewise(g, std::min(-a, m - a), std::max(a, a + m), {-a, m - a, 0.0L, m, a, m + a});
}

Quad truncated_laplace_abs_moment(LD lambda, LD A, int order) {
  const LD a = A / lambda, z = normaliser(a);
  auto g = [&](LD u) { return std::pow(std::fabs(u), order) * unnormalised(u, a) / z; };
  Quad q = piecewise(g, -a, a, {0.0L});
  const LD scale = std::pow(lambda, order);
  return {q.value * scale, q.err * scale};
}

LD truncated_laplace_tail(LD lambda, LD A, LD w) {
  const LD a = A / lambda, z = normaliser(a);
  if (w >= A) return 0.0L;
  auto g = [&](LD u) { return 2 * unnormalised(u, a) / z; };
  return piecewise(g, w / lambda, a, {}).value;
}

double truncated_laplace_cdf(double x, double lambda, double A) {
  // integral_{-A}^{x} e^{-|t|/lambda} dt / integral_{-A}^{A} e^{-|t|/lambda} dt, written out.
  const LD l = lambda, a = A / l;
  const LD half = 1.0L - std::exp(-a);  // integral over [0, A] divided by lambda
  if (x <= -A) return 0.0;
  if (x >= A) return 1.0;
  const LD y = x / l;
  if (y <= 0) return static_cast<double>((std::exp(y) - std::exp(-a)) / (2 * half));
  return static_cast<double>((half + 1.0L - std::exp(-y)) / (2 * half));
}

DiscreteLaplace::DiscreteLaplace(LD s_) : s(s_), norm(0), reach(0) {
  LD sum = 1.0L;
  long long k = 1;
  for (;; ++k) {
    const LD t = std::exp(-k / s);
    sum += 2 * t;
    if (t < 1e-45L * sum) break;
  }
  norm = sum;
  reach = k;
}

LD DiscreteLaplace::pmf(long long k) const {
  const long long a = k < 0 ? -k : k;
  return std::exp(-static_cast<LD>(a) / s) / norm;
}

LD discrete_laplace_tail(const DiscreteLaplace& d, long long k) {
  LD sum = 0;
  for (long long j = k + 1;; ++j) {
    const LD t = 2 * d.pmf(j);
    sum += t;
    if (t < 1e-40L * sum || t == 0) break;
  }
  return sum;
}

LD discrete_laplace_hockey(const DiscreteLaplace& d, LD eps, long long m) {
  const LD e = std::exp(eps);
  LD sum = 0;
  const long long lo = std::min(-d.reach, m - d.reach), hi = std::max(d.reach, m + d.reach);
  for (long long k = lo; k <= hi; ++k) {
    const LD v = d.pmf(k) - e * d.pmf(k - m);
    if (v > 0) sum += v;
  }
  return sum;
}

LD discrete_laplace_abs_moment(const DiscreteLaplace& d, int order) {
  LD sum = 0;
  for (long long k = 1; k <= d.reach; ++k) sum += 2 * std::pow(static_cast<LD>(k), order) * d.pmf(k);
  return sum;
}

}  // namespace dpagg_oracle
