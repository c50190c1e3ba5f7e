// mixture_profile.cpp — see mixture_profile.h.
#include "oracles/mixture_profile.h"

#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <thread>

namespace dpagg_oracle {

namespace {

// body(i) for i in [0, n), split over two threads (the machine has two cores).
template <class F>
void parallel_for(size_t n, F body) {
  const size_t half = n / 2;
  std::thread t([&] {
    for (size_t i = 0; i < half; ++i) body(i);
  });
  for (size_t i = half; i < n; ++i) body(i);
  t.join();
}

}  // namespace

ProfileEvaluator::ProfileEvaluator(const Mixture& m, double eps) : m_(m), eps_(eps) {
  xs_ = m.cmin - kTail * m.sigma;
  xe_ = m.cmax + 1 + kTail * m.sigma;
}

std::vector<size_t> ProfileEvaluator::sign_changes(const double* sh, const double* ue, size_t n, bool* first) {
  std::vector<size_t> out;
  bool pos = sh[0] > ue[0];
  *first = pos;
  constexpr size_t B = 64;
  size_t i = 1;
  for (; i + B <= n + 1; i += B) {
    double cnt = 0;  // a double accumulator lets -O2 vectorize this loop
    for (size_t t = 0; t < B; ++t) cnt += sh[i + t] > ue[i + t] ? 1.0 : 0.0;
    if ((pos && cnt == double(B)) || (!pos && cnt == 0)) continue;
    for (size_t t = i; t < i + B; ++t) {
      bool cur = sh[t] > ue[t];
      if (cur != pos) out.push_back(t);
      pos = cur;
    }
  }
  for (; i <= n; ++i) {
    bool cur = sh[i] > ue[i];
    if (cur != pos) out.push_back(i);
    pos = cur;
  }
  return out;
}

template <class X>
DeltaValue ProfileEvaluator::integrate(LD phi, size_t n, X x_at, const double* sh, const double* ue) const {
  const LD E = std::exp(LD(eps_));
  auto v = [&](LD x) { return m_.log_density(x - phi) - m_.log_density(x) - LD(eps_); };
  auto crossing = [&](LD a, LD b) -> LD {
    LD fa = v(a), fb = v(b);
    if (fa == 0) return a;
    if (fb == 0) return b;
    // The grid sign disagrees with the exact one only where |v| is at rounding level: the
    // crossing is then at that end point.
    if ((fa > 0) == (fb > 0)) return std::fabs(fa) < std::fabs(fb) ? a : b;
    // A crossing off by t changes the integral by about |f'| t^2 / 2: t = 1e-11 sigma is plenty.
    boost::uintmax_t iters = 200;
    const LD tol_x = m_.sigma * 1e-11L;
    auto tol = [&](LD l, LD r) { return std::fabs(r - l) <= tol_x; };
    auto r = boost::math::tools::toms748_solve(v, a, b, fa, fb, tol, iters);
    return (r.first + r.second) / 2;
  };
  DeltaValue out;
  bool pos = false;
  std::vector<size_t> changes = sign_changes(sh, ue, n, &pos);
  LD start = x_at(0);
  for (size_t i : changes) {
    LD c = crossing(x_at(i - 1), x_at(i));
    if (!pos) start = c;
    else out.intervals.push_back({start, c});
    pos = !pos;
  }
  if (pos) out.intervals.push_back({start, x_at(n)});
  for (const auto& iv : out.intervals) {
    LD d = m_.mass<LD>(iv.first, iv.second, phi) - E * m_.mass<LD>(iv.first, iv.second);
    out.value += std::max(d, LD(0));
  }
  out.upper = out.value + m_.mass<LD>(-INFINITY, x_at(0), phi) + m_.mass<LD>(x_at(n), INFINITY, phi);
  return out;
}

DeltaValue ProfileEvaluator::at(LD phi) {
  ensure_direct_grid();
  std::vector<double> a(nd_ + 1);
  parallel_for(nd_ + 1, [&](size_t i) { a[i] = static_cast<double>(m_.log_density(xd(i) - phi)); });
  return integrate(phi, nd_, [&](size_t i) { return xd(i); }, a.data(), bd_.data());
}

std::vector<DeltaValue> ProfileEvaluator::lattice_profile(int M) {
  const LD h_req = m_.sigma / kPerSigma;
  size_t mult = 1, q = 1;
  if (h_req * M < 1) mult = static_cast<size_t>(std::ceil(1 / (h_req * M)));
  else q = static_cast<size_t>(std::floor(h_req * M));
  const LD hf = 1.0L / (LD(M) * mult);
  const size_t P = static_cast<size_t>(M) * mult;  // one unit of shift, in lattice steps
  const size_t N = static_cast<size_t>(std::ceil((xe_ - xs_) / (hf * q)));
  const LD base = xs_ - 1;
  std::vector<double> F(P + N * q + 1);
  parallel_for(F.size(), [&](size_t t) { F[t] = static_cast<double>(m_.log_density(base + LD(t) * hf)); });
  std::vector<double> ue(N + 1);
  for (size_t i = 0; i <= N; ++i) ue[i] = F[P + i * q] + eps_;
  std::vector<DeltaValue> out(static_cast<size_t>(M) + 1);
  auto x_at = [&](size_t i) { return base + LD(P + i * q) * hf; };
  std::vector<double> buf[2] = {std::vector<double>(q > 1 ? N + 1 : 0), std::vector<double>(q > 1 ? N + 1 : 0)};
  const size_t half = static_cast<size_t>(M) / 2;
  parallel_for(2, [&](size_t part) {
    for (size_t j = part == 0 ? 1 : half + 1; j <= (part == 0 ? half : size_t(M)); ++j) {
      const double* sh = F.data() + P - j * mult;
      if (q > 1) {
        std::vector<double>& b = buf[part];
        for (size_t i = 0; i <= N; ++i) b[i] = sh[i * q];
        sh = b.data();
      }
      out[j] = integrate(LD(j) / M, N, x_at, sh, ue.data());
    }
  });
  return out;
}

mp ProfileEvaluator::in_50_digits(LD phi, const DeltaValue& dv) const {
  const mp E = boost::multiprecision::exp(mp(eps_));
  const LD cut = 1e-12L * dv.value;
  mp total = 0;
  for (const auto& iv : dv.intervals) {
    LD ld = m_.mass<LD>(iv.first, iv.second, phi) - std::exp(LD(eps_)) * m_.mass<LD>(iv.first, iv.second);
    if (ld <= cut) {
      total += mp(std::max(ld, LD(0)));
      continue;
    }
    mp v = m_.mass<mp>(iv.first, iv.second, phi) - E * m_.mass<mp>(iv.first, iv.second);
    total += v > 0 ? v : mp(0);
  }
  return total;
}

void ProfileEvaluator::ensure_direct_grid() {
  if (!bd_.empty()) return;
  hd_ = m_.sigma / kPerSigma;
  nd_ = static_cast<size_t>(std::ceil((xe_ - xs_) / hd_));
  bd_.resize(nd_ + 1);
  parallel_for(nd_ + 1, [&](size_t i) { bd_[i] = static_cast<double>(m_.log_density(xd(i))) + eps_; });
}

LD golden_max(ProfileEvaluator& ev, LD lo, LD hi, int iters, LD* best_phi, LD* best_upper) {
  const LD g = (std::sqrt(5.0L) - 1) / 2;
  LD a = lo, b = hi;
  LD c = b - g * (b - a), d = a + g * (b - a);
  DeltaValue fc = ev.at(c), fd = ev.at(d);
  auto note = [&](LD phi, const DeltaValue& dv) {
    if (dv.upper > *best_upper) {
      *best_upper = dv.upper;
      *best_phi = phi;
    }
  };
  note(c, fc);
  note(d, fd);
  for (int i = 0; i < iters; ++i) {
    if (fc.value > fd.value) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = ev.at(c);
      note(c, fc);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = ev.at(d);
      note(d, fd);
    }
  }
  return *best_upper;
}

Sup profile_sup(const Mixture& m, double eps, int M, int refine, int golden_iters, bool check_50_digits) {
  ProfileEvaluator ev(m, eps);
  std::vector<DeltaValue> prof = ev.lattice_profile(M);
  Sup s;
  for (int j = 1; j <= M; ++j) {
    if (prof[static_cast<size_t>(j)].upper > s.sup) {
      s.sup = prof[static_cast<size_t>(j)].upper;
      s.argmax = LD(j) / M;
    }
    if (prof[static_cast<size_t>(j)].value > s.lattice_sup) {
      s.lattice_sup = prof[static_cast<size_t>(j)].value;
      s.lattice_argmax = LD(j) / M;
    }
  }
  std::vector<std::pair<LD, int>> peaks;
  for (int j = 1; j <= M; ++j) {
    LD v = prof[static_cast<size_t>(j)].value;
    LD left = j > 1 ? prof[static_cast<size_t>(j - 1)].value : LD(0);
    LD right = j < M ? prof[static_cast<size_t>(j + 1)].value : LD(-1);
    if (v > 0 && v >= left && v >= right) peaks.push_back({v, j});
  }
  std::sort(peaks.rbegin(), peaks.rend());
  for (size_t i = 0; i < peaks.size() && static_cast<int>(i) < refine; ++i) {
    int j = peaks[i].second;
    LD lo = LD(j - 1) / M, hi = std::min<LD>(1, LD(j + 1) / M);
    golden_max(ev, lo, hi, golden_iters, &s.argmax, &s.sup);
  }
  if (check_50_digits) {
    DeltaValue at_max = ev.at(s.argmax);
    s.sup_50 = ev.in_50_digits(s.argmax, at_max);
  }
  return s;
}

LD independent_sup(double eps, int K, double sigma, int integer_shifts, LD* argmax) {
  Mixture m = Mixture::multi(eps, K, sigma);
  LD best = 0;
  *argmax = 0;
  auto note = [&](LD phi, LD v) {
    if (v > best) {
      best = v;
      *argmax = phi;
    }
  };
  ProfileEvaluator ev(m, eps);
  if (integer_shifts > 0) {
    for (int k = 1; k <= integer_shifts; ++k) note(LD(k) / integer_shifts, ev.at(LD(k) / integer_shifts).upper);
    return best;
  }
  for (LD d : {1e-3L, 1e-5L, 1e-7L, 1e-9L, 0.0L}) note(1 - d, ev.at(1 - d).upper);
  Sup sup = profile_sup(m, eps, 2000, 3, 24, false);
  note(sup.argmax, sup.sup);
  return best;
}

}  // namespace dpagg_oracle
