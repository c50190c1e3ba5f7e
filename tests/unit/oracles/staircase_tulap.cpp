// staircase_tulap.cpp — see staircase_tulap.h.
#include "oracles/staircase_tulap.h"

#include <algorithm>
#include <cmath>

namespace dpagg_oracle {

namespace {

struct Level {
  LD coef;  // 0 outside the support
  LD k;     // power of b
};

// The level at t >= 0 (coef 0 beyond the truncation).
Level level_of(const StepDensity& s, LD t) {
  if (s.T > 0 && t > s.T) return {0, 0};
  // f(t) = b^k f(t - k D) for t in [x0 + k D, x0 + (k+1) D).
  LD k = 0;
  if (t >= s.x0 + s.D) {
    k = std::floor((t - s.x0) / s.D);
    LD tt = t - k * s.D;
    if (tt < s.x0) { k -= 1; tt += s.D; }
    if (tt >= s.x0 + s.D) { k += 1; tt -= s.D; }
    t = tt;
  }
  size_t i = 0;
  while (i + 1 < s.levels.size() && t >= s.edges[i + 1]) ++i;
  return {s.levels[i], k + s.lexp[i]};
}

// Unnormalised density at t >= 0.
LD level_at(const StepDensity& s, LD t) {
  const Level l = level_of(s, t);
  return l.coef == 0 ? 0 : l.coef * std::exp(-l.k * s.eps);
}

// Unnormalised mass of [0, t] within the first block [0, x0 + D), by the pieces.
LD block_mass(const StepDensity& s, LD t) {
  LD m = 0;
  for (size_t i = 0; i + 1 < s.edges.size(); ++i) {
    const LD lo = s.edges[i], hi = std::min(s.edges[i + 1], t);
    if (hi > lo) m += (hi - lo) * s.levels[i] * std::exp(-s.lexp[i] * s.eps);
  }
  return m;
}

// Unnormalised mass of [0, t], t >= 0, ignoring truncation.
LD half_mass(const StepDensity& s, LD t) {
  if (t <= s.x0 + s.D) return block_mass(s, t);
  const LD mx0 = block_mass(s, s.x0), mper = block_mass(s, s.x0 + s.D) - mx0;
  const LD k = std::floor((t - s.x0) / s.D);
  const LD bk = std::pow(s.b, k);
  return mx0 + mper * (1 - bk) / (1 - s.b) + bk * (block_mass(s, t - k * s.D) - mx0);
}

LD half_total(const StepDensity& s) {
  if (s.T > 0) return half_mass(s, s.T);
  const LD mx0 = block_mass(s, s.x0), mper = block_mass(s, s.x0 + s.D) - mx0;
  return mx0 + mper / (1 - s.b);
}

// Number of periods after which the remaining mass is below 1e-40 of the total.
LD window_periods(const StepDensity& s) {
  if (s.T > 0) return std::ceil((s.T - s.x0) / s.D) + 1;
  return std::ceil(92.2L / -std::log(s.b)) + 2;
}

// Half-line breakpoints of the density in [0, W].
std::vector<LD> half_breaks(const StepDensity& s, LD K) {
  std::vector<LD> out(s.edges.begin(), s.edges.end());
  for (LD k = 1; k <= K; ++k)
    for (LD e : s.edges)
      if (e > s.x0) {
        const LD v = e + k * s.D;
        if (s.T > 0 && v > s.T) break;
        out.push_back(v);
      }
  if (s.T > 0) out.push_back(s.T);
  std::sort(out.begin(), out.end());
  if (s.T > 0) out.erase(std::remove_if(out.begin(), out.end(), [&](LD v) { return v > s.T; }), out.end());
  return out;
}

}  // namespace

StepDensity staircase_density(LD eps, LD D, LD gamma, LD p_out) {
  StepDensity s;
  s.D = D;
  s.eps = eps;
  s.b = std::exp(-eps);
  s.x0 = 0;
  if (gamma > 0) {
    s.edges = {0, gamma * D, D};
    s.levels = {(1 - p_out) / (gamma * D), p_out / ((1 - gamma) * D)};
    s.lexp = {0, 0};
  } else {
    s.edges = {0, D};
    s.levels = {1 / D};
    s.lexp = {0};
  }
  return s;
}

StepDensity tulap_density(LD eps, LD D, LD L, LD p_outer) {
  StepDensity s;
  s.D = D;
  s.eps = eps;
  s.b = std::exp(-eps);
  s.x0 = D / 2;
  s.edges = {0, D / 2, 3 * D / 2};
  // Untruncated Tulap: density (1-b)/(1+b) b^{|round(x)|}; centre b^0, first period b^1.
  s.levels = {1, 1};
  s.lexp = {0, 1};
  s.T = L > 0 ? L * D : 0;
  if (p_outer >= 0) {
    // Reweight: the centre carries (1 - p_outer) of the (truncated) half-line mass, the rest p_outer.
    const LD mc = block_mass(s, D / 2), mo = half_total(s) - mc;
    s.levels = {(1 - p_outer) / mc, p_outer / mo};
  }
  return s;
}

LD step_pdf(const StepDensity& s, LD x) { return level_at(s, std::fabs(x)) / (2 * half_total(s)); }

LD step_cdf(const StepDensity& s, LD x) {
  LD t = std::fabs(x);
  if (s.T > 0) t = std::min(t, s.T);
  const LD h = half_mass(s, t) / (2 * half_total(s));
  return x >= 0 ? 0.5L + h : 0.5L - h;
}

namespace {
// Sum over the pieces of [0, window] of level * integral of x^p, normalised; plus nothing beyond
// (the window leaves < 1e-40 of the mass, whose moments are negligible at the tests' tolerances).
LD step_moment(const StepDensity& s, int p) {
  const LD K = window_periods(s);
  const std::vector<LD> br = half_breaks(s, K);
  LD sum = 0;
  for (size_t i = 0; i + 1 < br.size(); ++i) {
    const LD lo = br[i], hi = br[i + 1];
    if (!(hi > lo)) continue;
    const LD lev = level_at(s, (lo + hi) / 2);
    sum += lev * (p == 1 ? (hi * hi - lo * lo) / 2 : (hi * hi * hi - lo * lo * lo) / 3);
  }
  return sum / half_total(s);
}
}  // namespace

LD step_abs_mean(const StepDensity& s) { return step_moment(s, 1); }
LD step_second_moment(const StepDensity& s) { return step_moment(s, 2); }

LD step_hockey(const StepDensity& s, LD mu, LD eps) {
  const LD K = window_periods(s);
  const std::vector<LD> half = half_breaks(s, K);
  std::vector<LD> br;
  br.reserve(4 * half.size());
  for (LD v : half) {
    br.push_back(v);
    br.push_back(-v);
    br.push_back(v + mu);
    br.push_back(-v + mu);
  }
  std::sort(br.begin(), br.end());
  const LD Z = 2 * half_total(s);
  LD h = 0;
  for (size_t i = 0; i + 1 < br.size(); ++i) {
    const LD lo = br[i], hi = br[i + 1];
    if (!(hi > lo)) continue;
    const LD m = (lo + hi) / 2;
    const Level l1 = level_of(s, std::fabs(m)), l2 = level_of(s, std::fabs(m - mu));
    if (l1.coef == 0) continue;
    // f(x) - e^eps f(x - mu) = b^k1 (c1 - c2 e^{eps + (k1 - k2) eps_density}).
    const LD d = l2.coef == 0 ? l1.coef
                              : l1.coef - l2.coef * std::exp(eps + (l1.k - l2.k) * s.eps);
    if (d > 0) h += std::exp(-l1.k * s.eps) * d * (hi - lo);
  }
  h /= Z;
  if (s.T == 0) {
    // The mass of f beyond the window on both sides bounds the rest of the integral; the window
    // ends at x0 + K' D, beyond which the mass is b^K' times the periodic block's.
    const LD W = half.back();
    const LD Kp = std::round((W - s.x0) / s.D);
    const LD mper = block_mass(s, s.x0 + s.D) - block_mass(s, s.x0);
    h += 2 * std::pow(s.b, Kp) * mper / (1 - s.b) / Z;
  }
  return h;
}

double tulap_cdf(double x, double b, double q) {
  // Z = G1 - G2: P(Z = z) = (1-b)/(1+b) b^{|z|}; P(Z <= m) = b^{-m}/(1+b) (m < 0),
  // 1 - b^{m+1}/(1+b) (m >= 0).  N0 = Z + U: F(x) = P(Z <= n-1) + P(Z = n)(x - n + 1/2), n = round(x).
  const double n = std::floor(x + 0.5);
  auto le = [&](double m) {
    return m < 0 ? std::pow(b, -m) / (1 + b) : 1 - std::pow(b, m + 1) / (1 + b);
  };
  const double pz = (1 - b) / (1 + b) * std::pow(b, std::fabs(n));
  const double F = le(n - 1) + pz * (x - n + 0.5);
  if (q <= 0) return F;
  return std::min(1.0, std::max(0.0, (F - q / 2) / (1 - q)));
}

}  // namespace dpagg_oracle
