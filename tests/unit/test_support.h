// test_support.h — helpers shared by the unit tests of the dpagg core.
//
// Test-only random sources (seeded, scripted), test data, the KS statistic and the check of a
// sampler against an independent CDF live here; the independent evaluations the tests compare the
// core with (the oracles) are in tests/unit/oracles/.
// The random sources exist so that the statistical tests are deterministic; production code only
// ever uses SecureRandom.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "dpagg_core.h"
#include "errors.h"
#include "mechanism.h"
#include "random.h"
#include "registry.h"

namespace dpagg_test {

// A deterministic generator for tests: std::mt19937_64 with a fixed seed.  Never for production.
class SeededRandom final : public dpagg::RandomSource {
 public:
  explicit SeededRandom(uint64_t seed) : gen_(seed) {}
  uint64_t next_u64() override { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

// Replays a fixed script of 64-bit words, then repeats its last word forever.
class ScriptedRandom final : public dpagg::RandomSource {
 public:
  explicit ScriptedRandom(std::vector<uint64_t> words) : words_(std::move(words)) {}
  uint64_t next_u64() override {
    uint64_t v = words_[pos_];
    if (pos_ + 1 < words_.size()) ++pos_;
    return v;
  }

 private:
  std::vector<uint64_t> words_;
  size_t pos_ = 0;
};

inline double rel_err(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

// The registered mechanism a calibration refers to.
inline const dpagg::Mechanism& mechanism_of(const dpagg_calibration& cal) {
  const dpagg::Mechanism* m = dpagg::find_mechanism(cal.mechanism);
  if (m == nullptr) throw std::out_of_range("calibration names no registered mechanism");
  return *m;
}

inline dpagg_calibration calibrate(const std::string& spec, double eps, double delta, double sens,
                                   bool integer_valued = false) {
  return dpagg::calibrate(spec, dpagg::PrivacyRequest{eps, delta, sens, integer_valued});
}

// ---- test data (tests/data/), found without reading anything outside the repository ----

inline bool file_exists(const std::string& p) { return std::ifstream(p).good(); }

// Locates tests/data/<name>: first next to this header's source directory (__FILE__, as given
// to the compiler — relative to the repository root under `make unit`, or absolute), then
// relative to the test binary (build/unit_tests -> ../tests/data).
inline std::string data_path(const std::string& name) {
  std::vector<std::string> candidates;
  std::string here = __FILE__;  // .../tests/unit/test_support.h
  size_t slash = here.find_last_of('/');
  std::string unit_dir = slash == std::string::npos ? "." : here.substr(0, slash);
  candidates.push_back(unit_dir + "/../data/" + name);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    std::string e(exe);
    size_t s = e.find_last_of('/');
    if (s != std::string::npos) candidates.push_back(e.substr(0, s) + "/../tests/data/" + name);
  }
  candidates.push_back("tests/data/" + name);
  for (const auto& c : candidates)
    if (file_exists(c)) return c;
  return candidates.front();
}

// A CSV file: '#' comment lines skipped, the first other line is the header.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    out.push_back(cell);
  }
  return out;
}

inline Csv read_csv(const std::string& path) {
  Csv csv;
  std::ifstream in(path);
  std::string line;
  bool have_header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!have_header) {
      csv.header = split_csv_line(line);
      have_header = true;
    } else {
      csv.rows.push_back(split_csv_line(line));
    }
  }
  return csv;
}

// ---- statistics ----

// Asymptotic Kolmogorov p-value of the KS statistic d for n draws (Stephens' correction).
inline double ks_pvalue(double d, size_t n) {
  double sn = std::sqrt(static_cast<double>(n));
  double lambda = (sn + 0.12 + 0.11 / sn) * d;
  if (lambda < 0.2) return 1.0;
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) {
    double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-18) break;
  }
  return std::min(1.0, std::max(0.0, 2.0 * sum));
}

// One-sample KS statistic of `xs` (sorted in place) against the continuous CDF `cdf`.
template <typename Cdf>
double ks_statistic(std::vector<double>& xs, Cdf cdf) {
  std::sort(xs.begin(), xs.end());
  const double n = static_cast<double>(xs.size());
  double d = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) {
    double f = cdf(xs[i]);
    d = std::max(d, std::max(f - i / n, (i + 1) / n - f));
  }
  return d;
}

// 1e5 draws through the registered mechanism's sampler (seeded): KS against `cdf` (an independent
// CDF, tests/unit/oracles/noise_cdf.h), and mean |X|, mean X^2 within 3 standard errors (sample
// standard deviations) of the calibration's l1, l2, and a positive sign half the time.
template <class Cdf>
void check_noise(const dpagg_calibration& cal, uint64_t seed, Cdf cdf) {
  SCOPED_TRACE(testing::Message() << cal.spec << " eps=" << cal.epsilon << " delta=" << cal.delta
                                  << " sens=" << cal.sensitivity);
  // The calibration names the mechanism its spec does.
  const dpagg::Mechanism* mech = nullptr;
  for (const dpagg::Mechanism* m : dpagg::all_mechanisms())
    if (std::strncmp(cal.spec, m->name(), std::strlen(m->name())) == 0) mech = m;
  ASSERT_NE(mech, nullptr);
  ASSERT_EQ(mech, &mechanism_of(cal));
  SeededRandom rng(seed);
  const size_t n = 100000;
  std::vector<double> xs(n);
  double s1 = 0, q1 = 0, q2 = 0, pos = 0;
  for (double& x : xs) {
    x = mech->sample(cal, rng);
    s1 += std::fabs(x);
    q1 += x * x;
    q2 += x * x * x * x;
    pos += x > 0;
  }
  const double m1 = s1 / n, m2 = q1 / n;
  const double sd1 = std::sqrt(q1 / n - m1 * m1), sd2 = std::sqrt(q2 / n - m2 * m2);
  const double sn = std::sqrt(double(n));
  EXPECT_NEAR(m1, cal.l1, 3 * sd1 / sn);
  EXPECT_NEAR(m2, cal.l2, 3 * sd2 / sn);
  EXPECT_NEAR(pos / n, 0.5, 3 * 0.5 / sn);
  const double d = ks_statistic(xs, cdf);
  EXPECT_GT(ks_pvalue(d, n), 1e-3) << "KS statistic " << d;
}

}  // namespace dpagg_test
