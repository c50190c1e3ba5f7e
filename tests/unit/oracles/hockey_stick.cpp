// hockey_stick.cpp — see hockey_stick.h.
#include "oracles/hockey_stick.h"

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpagg_oracle {

Quad hockey_stick(const LossModel& m, LD eps) {
  // Locate x* = inf { x : ℓ(x) > eps } by bracketing and bisection.
  LD hi = m.shift;
  int guard = 0;
  while (m.llr(hi) <= eps) {
    hi += m.scale * std::ldexp(1.0L, std::min(guard, 60));
    if (++guard > 200) return {0.0L, 0.0L};  // ℓ never exceeds eps: pure eps-DP, delta = 0
  }
  LD lo = hi - m.scale;
  for (guard = 0; m.llr(lo) > eps; ++guard) {
    lo -= m.scale * std::ldexp(1.0L, std::min(guard, 60));
    if (guard > 200) return {1.0L, 0.0L};
  }
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    LD mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (m.llr(mid) > eps ? hi : lo) = mid;
  }
  const LD xstar = hi;
  // Integrand in u = (x − x*)/scale, written so that no cancellation occurs near x*.
  auto f = [&](LD u) -> LD {
    LD x = xstar + m.scale * u;
    LD gap = eps - m.llr(x);  // <= 0 on the domain
    if (gap >= 0) return 0.0L;
    return m.scale * std::exp(m.log_p(x - m.shift)) * -std::expm1(gap);
  };
  LD total = 0.0L, start = 0.0L, err_total = 0.0L;
  for (LD k : m.kinks) {
    LD uk = (k - xstar) / m.scale;
    if (uk <= start) continue;
    LD err = 0;
    total += boost::math::quadrature::gauss_kronrod<LD, 61>::integrate(f, start, uk, 8, 1e-17L, &err);
    err_total += err;
    start = uk;
  }
  boost::math::quadrature::exp_sinh<LD> tail;
  LD err = 0, l1 = 0;
  total += tail.integrate(f, start, std::numeric_limits<LD>::infinity(), 1e-17L, &err, &l1);
  err_total += err;
  return {total, err_total};
}

Quad gaussian_delta_quad(double sigma, double eps, double sens) {
  const LD s = sigma, d = sens;
  LossModel m;
  m.log_p = [s](LD x) { return -x * x / (2 * s * s) - std::log(s * std::sqrt(2 * M_PIl)); };
  m.llr = [s, d](LD x) { return d * (2 * x - d) / (2 * s * s); };
  m.shift = d;
  m.scale = s;
  return hockey_stick(m, eps);
}

Quad laplace_delta_quad(double b_d, double eps, double sens) {
  const LD b = b_d, d = sens;
  LossModel m;
  m.log_p = [b](LD x) { return -std::fabs(x) / b - std::log(2 * b); };
  // (|x| − |x − Δ|)/b, evaluated piecewise (a clipped ramp).
  m.llr = [b, d](LD x) { return x <= 0 ? -d / b : x >= d ? d / b : (2 * x - d) / b; };
  m.shift = d;
  m.scale = b;
  m.kinks = {d};
  return hockey_stick(m, eps);
}

Quad brute_hockey(const std::function<LD(LD)>& log_p, LD S, LD eps, LD W) {
  auto g = [&](LD x) { return log_p(x - S) - log_p(x) - eps; };
  auto integrand = [&](LD x) -> LD {
    LD gx = g(x);
    if (!(gx > 0)) return 0.0L;
    return std::exp(log_p(x - S)) * -std::expm1(-gx);
  };
  std::vector<LD> cuts = {0.0L, S};
  // Grid: geometric outwards from 0, S/2 and S (first step 1e-9 S, ratio ~1.02), out to ±W.
  std::vector<LD> grid;
  const int n = 2000;
  const LD a = S * 1e-9L, umax = std::log(W / a + 1);
  for (LD c : {0.0L, S / 2, S})
    for (int i = 0; i <= n; ++i) {
      const LD d = a * std::expm1(umax * i / n);
      grid.push_back(c - d);
      grid.push_back(c + d);
    }
  std::sort(grid.begin(), grid.end());
  LD prev_x = grid.front(), prev_g = g(prev_x);
  for (size_t i = 1; i < grid.size(); ++i) {
    LD x = grid[i];
    LD gx = g(x);
    if ((prev_g > 0) != (gx > 0)) {
      LD lo = prev_x, hi = x;
      for (int j = 0; j < 200 && hi - lo > 0; ++j) {
        LD mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        ((g(mid) > 0) == (prev_g > 0) ? lo : hi) = mid;
      }
      cuts.push_back(lo + (hi - lo) / 2);
    }
    prev_x = x;
    prev_g = gx;
  }
  std::sort(cuts.begin(), cuts.end());
  LD total = 0, err_total = 0;
  // (-inf, cuts[0]]
  if (g(cuts.front() - W) > 0) {
    boost::math::quadrature::exp_sinh<LD> es;
    LD err = 0, l1 = 0;
    total += es.integrate([&](LD u) { return integrand(cuts.front() - u); }, 0.0L,
                          std::numeric_limits<LD>::infinity(), 1e-16L, &err, &l1);
    err_total += err;
  }
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    if (!(cuts[i + 1] > cuts[i])) continue;
    if (!(g(cuts[i] + (cuts[i + 1] - cuts[i]) / 2) > 0)) continue;
    // tanh-sinh: the integrand has a cusp at 0 or S when p < 1, which it handles at an endpoint
    // (Gauss-Kronrod's error estimate there is ~1e-5 relative).
    boost::math::quadrature::tanh_sinh<LD> ts;
    LD err = 0, l1 = 0;
    const LD a = cuts[i], w = cuts[i + 1] - cuts[i];  // over u in [0, 1]: no cancellation at the ends
    total += ts.integrate([&](LD u) -> LD { return w * integrand(a + w * u); }, 0.0L, 1.0L,
                          static_cast<LD>(1e-15L), &err, &l1);
    err_total += err;
  }
  if (g(cuts.back() + W) > 0) {
    boost::math::quadrature::exp_sinh<LD> es;
    LD err = 0, l1 = 0;
    total += es.integrate([&](LD u) { return integrand(cuts.back() + u); }, 0.0L,
                          std::numeric_limits<LD>::infinity(), 1e-16L, &err, &l1);
    err_total += err;
  }
  return {total, err_total + 1e-18L * total};
}

std::function<LD(LD)> osgt_log_density(LD sigma, LD r) {
  const LD m = r * sigma;
  const LD log_norm = std::log(2 * std::sqrt(2 * M_PIl) * sigma * (std::erfc(r / std::sqrt(2.0L)) / 2));
  return [=](LD y) { LD a = std::fabs(y) + m; return -a * a / (2 * sigma * sigma) - log_norm; };
}

std::function<LD(LD)> gg_log_density(LD s, LD p) {
  // p / (2 s Gamma(1/p)) exp(-|x/s|^p) = exp(-|x/s|^p) / (2 s Gamma(1 + 1/p))
  const LD log_norm = std::log(2 * s) + std::lgamma(1 + 1 / p);
  return [=](LD x) { return -std::pow(std::fabs(x) / s, p) - log_norm; };
}

}  // namespace dpagg_oracle
