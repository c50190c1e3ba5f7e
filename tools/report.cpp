// report — dpagg's certified numbers on the 150-cell grid of Liu, Selvi & Wiesemann, "Mind the
// Gap: Mixtures of Gaussians in Approximate Differential Privacy" (ICML 2026; docs/mixtures.md §7),
// beside the values printed in the paper.
//
//   build/report [--data DIR] [--out DIR] [--jobs N] [--cells N]
//
// Run by scripts/report.sh (which then draws the heat maps).  DIR defaults to tools/data (copies of
// the paper's tables; nothing is read from outside the repository), the output goes to
// docs/report (report.csv, report.md).  --cells N computes only the first N cells of the work
// order (a smoke test: the summary is then partial).
//
// For every (epsilon, delta) of the grid (sensitivity 1) it calibrates, through the public core
// API dpagg::calibrate:
//     analytic_gaussian, quasi_gaussian, multi_gaussian(objective=l1), multi_gaussian(objective=l2),
//     auto(objective=l1), auto(objective=l2)
// and computes the paper's metric 100 (a - m) / max(a, m) against the analytic Gaussian (a) for
// l1 = E|X| and l2 = E[X^2].  Every number is certified by dpagg (delta_bound <= delta).
//
// Comparison with the paper:
//   * quasi-Gaussian: a cell matches when dpagg's value rounds to the printed two decimals
//     (|ours - printed| <= 0.005), Table 5 (l1) and Table 6 (l2).
//   * multi-Gaussian (Table 1 for l1, Table 4 for l2): a cell "falls short" when
//     ours < printed - 0.005 (more than the rounding of the print).  A shortfall is explained when
//     the printed value is unreachable by any sigma that satisfies (eps, delta)-DP:
//       - l1: from tools/data/derived_multi_gaussian_consistency.csv (Table 3's K, the sigma the
//         printed value implies, the delta that sigma really achieves): unreachable when that
//         achieved delta exceeds the cell's delta (column consistent = false).
//       - l2: the consistency file covers Table 1 only, and Table 3's K is the l1-best K, so this
//         tool derives the same quantities for Table 4: for every K in 1..20 the sigma whose
//         closed-form E[X^2] = sigma^2 + sum_k w_k k^2 reproduces the printed value, and the delta
//         that sigma achieves from dpagg's approximate privacy profile
//         (GaussLattice::approximate_sup, a 32-points-per-sigma trapezoid rule; an estimate, not a
//         bound).  Unreachable when, for every K, no sigma exists or its achieved delta exceeds
//         delta by more than 1e-4 relative (the consistency file's tolerance).
//     The same approximate profile is evaluated at the l1-implied sigma of every Table-1 cell as a
//     cross-check of the consistency file.  A print flagged unreachable that dpagg's own certified
//     multi_gaussian(k=K), K in 1..20, still reaches to the printed two decimals is unreachable
//     only within its rounding; that shortfall is not counted as explained.
//   * It also certifies multi_gaussian(k=K) for every K in 1..20 (the paper's range of K), to tell a
//     choice of K by dpagg's best-K search from a difference in sigma (--no-kscan skips this).
//
// Parallelism: --jobs N worker processes (default 2) take cells from a shared counter; results go
// to shared memory.  Processes rather than threads: the core is written for one PostgreSQL backend
// per process and does not promise thread safety (an earlier version kept unsynchronised global
// counters).
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <new>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "mechanisms/multi_gaussian/multi_gaussian.h"
#include "registry.h"

namespace {

// ---------------------------------------------------------------------------------------------
// The grid.
const double kEps[] = {0.1, 0.25, 0.5, 0.75, 1, 2, 3, 4, 5, 10};
const double kDelta[] = {5e-7, 1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3,
                         5e-3, 0.01, 0.02, 0.05, 0.1, 0.15, 0.25};
constexpr int kNE = 10, kND = 15, kCells = kNE * kND;

enum Spec { AG = 0, QG, MG1, MG2, AU1, AU2, kSpecs };
const char* kSpecText[kSpecs] = {"analytic_gaussian",           "quasi_gaussian",
                                 "multi_gaussian(objective=l1)", "multi_gaussian(objective=l2)",
                                 "auto(objective=l1)",           "auto(objective=l2)"};
const char* kSpecCol[kSpecs] = {"ag", "quasi", "multi_l1obj", "multi_l2obj", "auto_l1obj", "auto_l2obj"};

constexpr int kMaxKScan = 20;

// Everything a worker computes for one cell; plain data in shared memory.
struct CellResult {
  int done;
  int failed;
  char error[256];
  // Phase 1: the calibrations.
  double scale[kSpecs], l1[kSpecs], l2[kSpecs], secs[kSpecs];
  int K[kSpecs];
  char chosen[kSpecs][DPAGG_MECH_SPEC_LEN];
  // Phase 2 (diagnostics).
  double l1_sigma_implied_k3;   // from Table 1 with Table 3's K (dpagg's own inversion)
  double l1_delta_approx_k3;    // approximate sup of the profile there
  double l2_sigma_implied[kMaxKScan + 1];  // index K; NaN: no sigma reproduces the print
  double l2_delta_approx[kMaxKScan + 1];
  // Certified multi_gaussian(k=K) for every K in 1..kMaxKScan (index K): the paper's "best K in 1..20"
  // done with dpagg's certificate.
  double ks_sigma[kMaxKScan + 1], ks_l1[kMaxKScan + 1], ks_l2[kMaxKScan + 1];
  double kscan_secs;
  double phase2_secs;
};

struct Shared {
  std::atomic<int> next;
  CellResult cells[kCells];
};

// ---------------------------------------------------------------------------------------------
// Paper tables.
struct PaperCell {
  double t1 = NAN, t4 = NAN, t5 = NAN, t6 = NAN;  // NaN = NA or missing
  int k3 = 0;
  bool t3_star = false;
  bool have_cons = false;
  int cons_K = 0;
  double cons_sigma_ag = NAN, cons_sigma_implied = NAN, cons_worst_phi = NAN, cons_delta_achieved = NAN,
         cons_ratio = NAN;
  bool cons_consistent = false, cons_near = false;
};
PaperCell paper[kCells];

int cell_index(double eps, double delta) {
  for (int i = 0; i < kNE; ++i)
    for (int j = 0; j < kND; ++j)
      if (std::fabs(kEps[i] - eps) <= 1e-9 * kEps[i] && std::fabs(kDelta[j] - delta) <= 1e-9 * kDelta[j])
        return i * kND + j;
  return -1;
}
double cell_eps(int c) { return kEps[c / kND]; }
double cell_delta(int c) { return kDelta[c % kND]; }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, ',')) out.push_back(cur);
  if (!s.empty() && s.back() == ',') out.push_back("");
  return out;
}

// Reads a paper CSV: a '#' comment line, a header, rows.  Calls fn(index, header->value map).
template <typename F>
int read_table(const std::string& path, F fn) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "report: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::string line;
  std::vector<std::string> header;
  int rows = 0;
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = split(line);
      continue;
    }
    std::vector<std::string> v = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < v.size(); ++i) row[header[i]] = v[i];
    int c = cell_index(std::strtod(row["epsilon"].c_str(), nullptr), std::strtod(row["delta"].c_str(), nullptr));
    if (c < 0) {
      std::fprintf(stderr, "report: %s: cell (%s, %s) is not on the grid\n", path.c_str(),
                   row["delta"].c_str(), row["epsilon"].c_str());
      std::exit(1);
    }
    fn(c, row);
    ++rows;
  }
  return rows;
}

double num_or_nan(const std::string& s) {
  if (s.empty() || s == "NA") return NAN;
  return std::strtod(s.c_str(), nullptr);
}

void load_paper(const std::string& dir) {
  auto need150 = [](const char* name, int n) {
    if (n != kCells) {
      std::fprintf(stderr, "report: %s has %d rows, expected %d\n", name, n, kCells);
      std::exit(1);
    }
  };
  need150("table1", read_table(dir + "/table1_l1_multi_vs_analytic_gaussian.csv",
                               [](int c, auto& r) { paper[c].t1 = num_or_nan(r["value"]); }));
  need150("table3", read_table(dir + "/table3_best_K_l1_multi.csv", [](int c, auto& r) {
            paper[c].k3 = std::atoi(r["value"].c_str());
            paper[c].t3_star = r["quasi_beats_multi_K1"] == "true";
          }));
  need150("table4", read_table(dir + "/table4_l2_multi_vs_analytic_gaussian.csv",
                               [](int c, auto& r) { paper[c].t4 = num_or_nan(r["value"]); }));
  need150("table5", read_table(dir + "/table5_l1_quasi_vs_analytic_gaussian.csv",
                               [](int c, auto& r) { paper[c].t5 = num_or_nan(r["value"]); }));
  need150("table6", read_table(dir + "/table6_l2_quasi_vs_analytic_gaussian.csv",
                               [](int c, auto& r) { paper[c].t6 = num_or_nan(r["value"]); }));
  read_table(dir + "/derived_multi_gaussian_consistency.csv", [](int c, auto& r) {
    PaperCell& p = paper[c];
    p.have_cons = true;
    p.cons_K = std::atoi(r["K"].c_str());
    p.cons_sigma_ag = num_or_nan(r["sigma_ag"]);
    p.cons_sigma_implied = num_or_nan(r["sigma_implied"]);
    p.cons_worst_phi = num_or_nan(r["worst_phi"]);
    p.cons_delta_achieved = num_or_nan(r["delta_achieved"]);
    p.cons_ratio = num_or_nan(r["ratio"]);
    p.cons_consistent = r["consistent"] == "true";
    p.cons_near = r["near_consistent"] == "true";
  });
}

// ---------------------------------------------------------------------------------------------
double improvement(double a, double m) { return 100 * (a - m) / std::max(a, m); }
// The loss m that gives improvement v against a.
double loss_from_improvement(double a, double v) { return v >= 0 ? a * (1 - v / 100) : a / (1 + v / 100); }

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// sigma with GaussLattice(eps, K, sigma).l1() == m (l1 is increasing in sigma); NaN if below the
// sigma -> 0 limit sum_k w_k |k|.
double sigma_for_l1(double eps, int K, double m) {
  double lo = 1e-9, hi = 1;
  if (dpagg::GaussLattice(eps, K, lo).l1() >= m) return NAN;
  while (dpagg::GaussLattice(eps, K, hi).l1() < m) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    double mid = 0.5 * (lo + hi);
    (dpagg::GaussLattice(eps, K, mid).l1() < m ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
double sigma_for_l2(double eps, int K, double m) {
  double base = dpagg::GaussLattice(eps, K, 1.0).l2() - 1.0;  // sum_k w_k k^2
  return m > base ? std::sqrt(m - base) : NAN;
}
// Estimate of sup_phi delta(phi) for the K-mixture at sigma (dpagg's trapezoid approximation).
// For very small sigma the lattice grid would be too fine: then take the largest of the
// approximate values at 64 shifts, a lower estimate of the sup (enough to show it exceeds delta).
double approx_delta(double eps, int K, double sigma) {
  dpagg::GaussLattice g(eps, K, sigma);
  if (sigma >= 0.01) return g.approximate_sup().delta;
  double best = 0;
  for (int j = 1; j <= 64; ++j) best = std::max(best, g.approximate_at(j / 64.0));
  return best;
}

// ---------------------------------------------------------------------------------------------
// Workers.
void phase1(Shared* sh, const std::vector<int>& order) {
  for (;;) {
    int i = sh->next.fetch_add(1);
    if (i >= static_cast<int>(order.size())) return;
    int c = order[static_cast<size_t>(i)];
    CellResult& r = sh->cells[c];
    dpagg::PrivacyRequest req{cell_eps(c), cell_delta(c), 1.0, false};
    try {
      for (int s = 0; s < kSpecs; ++s) {
        double t0 = now_s();
        dpagg_calibration cal = dpagg::calibrate(kSpecText[s], req);
        r.secs[s] = now_s() - t0;
        r.scale[s] = cal.scale;
        r.l1[s] = cal.l1;
        r.l2[s] = cal.l2;
        r.K[s] = dpagg::multi_gaussian_k(cal);
        std::snprintf(r.chosen[s], sizeof(r.chosen[s]), "%s", cal.spec);
      }
    } catch (const std::exception& e) {
      r.failed = 1;
      std::snprintf(r.error, sizeof(r.error), "%s", e.what());
    }
    r.done = 1;
    std::fprintf(stderr, "  [%3d/%3zu] eps=%-5g delta=%-7g  %6.1f s  (multi l1: %s, l2: %s)%s\n", i + 1,
                 order.size(), req.epsilon, req.delta,
                 std::accumulate(r.secs, r.secs + kSpecs, 0.0), r.chosen[MG1], r.chosen[MG2],
                 r.failed ? "  FAILED" : "");
  }
}

struct Phase2Task {
  int cell;
  bool l1_implied;    // l1-implied sigma at Table 3's K
  bool l2_scan;       // l2-implied sigma for every K
  bool kscan;         // certified multi_gaussian(k = K) for K = 1..20
};

void phase2(Shared* sh, const std::vector<Phase2Task>& tasks) {
  for (;;) {
    int i = sh->next.fetch_add(1);
    if (i >= static_cast<int>(tasks.size())) return;
    const Phase2Task& t = tasks[static_cast<size_t>(i)];
    const int c = t.cell;
    CellResult& r = sh->cells[c];
    const PaperCell& p = paper[c];
    const double eps = cell_eps(c), delta = cell_delta(c);
    double t0 = now_s();
    try {
      if (t.l1_implied && p.k3 > 0 && !std::isnan(p.t1)) {
        double m = loss_from_improvement(r.l1[AG], p.t1);
        r.l1_sigma_implied_k3 = sigma_for_l1(eps, p.k3, m);
        r.l1_delta_approx_k3 =
            std::isnan(r.l1_sigma_implied_k3) ? NAN : approx_delta(eps, p.k3, r.l1_sigma_implied_k3);
      }
      if (t.l2_scan && !std::isnan(p.t4)) {
        double m = loss_from_improvement(r.l2[AG], p.t4);
        for (int K = 1; K <= kMaxKScan; ++K) {
          double s = sigma_for_l2(eps, K, m);
          r.l2_sigma_implied[K] = s;
          r.l2_delta_approx[K] = std::isnan(s) ? NAN : approx_delta(eps, K, s);
        }
      }
      if (t.kscan) {
        double t1 = now_s();
        for (int K = 1; K <= kMaxKScan; ++K) {
          char spec[64];
          std::snprintf(spec, sizeof(spec), "multi_gaussian(k=%d)", K);
          dpagg_calibration cal = dpagg::calibrate(spec, dpagg::PrivacyRequest{eps, delta, 1.0, false});
          r.ks_sigma[K] = cal.scale;
          r.ks_l1[K] = cal.l1;
          r.ks_l2[K] = cal.l2;
        }
        r.kscan_secs = now_s() - t1;
      }
    } catch (const std::exception& e) {
      r.failed = 1;
      std::snprintf(r.error, sizeof(r.error), "phase 2: %s", e.what());
    }
    r.phase2_secs += now_s() - t0;
  }
}

template <typename F>
void run_workers(int jobs, Shared* sh, F body) {
  sh->next.store(0);
  std::vector<pid_t> kids;
  for (int j = 0; j < jobs; ++j) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      std::exit(1);
    }
    if (pid == 0) {
      body();
      std::fflush(stderr);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
      std::fprintf(stderr, "report: worker %d ended abnormally (status %d)\n", static_cast<int>(k), st);
  }
}

// ---------------------------------------------------------------------------------------------
// Formatting helpers.
std::string f2(double v) {
  if (std::isnan(v)) return "NA";
  char b[32];
  std::snprintf(b, sizeof(b), "%.2f", v);
  return b;
}
std::string fg(double v, int prec = 6) {
  if (std::isnan(v)) return "NA";
  char b[48];
  std::snprintf(b, sizeof(b), "%.*g", prec, v);
  return b;
}
std::string fd(double d) {  // delta as printed in the paper
  char b[32];
  std::snprintf(b, sizeof(b), "%g", d);
  return b;
}
double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool matches(double ours, double printed) { return std::fabs(ours - printed) <= 0.005 + 1e-9; }
bool short_of(double ours, double printed) { return !std::isnan(printed) && ours < printed - 0.005 - 1e-9; }

}  // namespace

int main(int argc, char** argv) {
  std::string data = "tools/data", out = "docs/report";
  int jobs = 2, max_cells = kCells;
  bool kscan = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--jobs" && i + 1 < argc) jobs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cells" && i + 1 < argc) max_cells = std::max(1, std::min(kCells, std::atoi(argv[++i])));
    else if (a == "--no-kscan") kscan = false;
    else {
      std::fprintf(stderr, "usage: %s [--data DIR] [--out DIR] [--jobs N] [--cells N] [--no-kscan]\n", argv[0]);
      return 2;
    }
  }
  load_paper(data);

  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  Shared* sh = new (mem) Shared();
  for (auto& r : sh->cells) {
    r.l1_sigma_implied_k3 = r.l1_delta_approx_k3 = NAN;
    for (int K = 0; K <= kMaxKScan; ++K) r.l2_sigma_implied[K] = r.l2_delta_approx[K] = NAN;
    for (int K = 0; K <= kMaxKScan; ++K) r.ks_sigma[K] = r.ks_l1[K] = r.ks_l2[K] = NAN;
  }

  // Work order: smallest delta first (the slowest multi-Gaussian searches), larger epsilon first.
  std::vector<int> order;
  for (int j = 0; j < kND; ++j)
    for (int i = kNE - 1; i >= 0; --i) order.push_back(i * kND + j);
  order.resize(static_cast<size_t>(max_cells));

  const double t_start = now_s();
  std::fprintf(stderr, "report: phase 1, %zu cells x %d calibrations on %d processes\n", order.size(),
               kSpecs, jobs);
  run_workers(jobs, sh, [&] { phase1(sh, order); });
  const double t_phase1 = now_s() - t_start;

  std::vector<int> cells;  // computed, in grid order
  for (int c = 0; c < kCells; ++c)
    if (sh->cells[c].done && !sh->cells[c].failed) cells.push_back(c);
    else if (sh->cells[c].failed)
      std::fprintf(stderr, "report: cell eps=%g delta=%g failed: %s\n", cell_eps(c), cell_delta(c),
                   sh->cells[c].error);

  // Metrics.
  struct Metrics {
    double q1, q2, m1, m2, a1, a2;
    bool q1_match, q2_match, m1_short, m2_short;
  };
  std::vector<Metrics> met(kCells);
  for (int c : cells) {
    const CellResult& r = sh->cells[c];
    Metrics& m = met[c];
    m.q1 = improvement(r.l1[AG], r.l1[QG]);
    m.q2 = improvement(r.l2[AG], r.l2[QG]);
    m.m1 = improvement(r.l1[AG], r.l1[MG1]);
    m.m2 = improvement(r.l2[AG], r.l2[MG2]);
    m.a1 = improvement(r.l1[AG], r.l1[AU1]);
    m.a2 = improvement(r.l2[AG], r.l2[AU2]);
    m.q1_match = matches(m.q1, paper[c].t5);
    m.q2_match = matches(m.q2, paper[c].t6);
    m.m1_short = short_of(m.m1, paper[c].t1);
    m.m2_short = short_of(m.m2, paper[c].t4);
  }

  // Phase 2: diagnostics.  l1-implied sigma for every Table-1 cell (cross-check of the consistency
  // file); the l2 scan for every Table-4 shortfall; multi_gaussian(k = K3) for every shortfall.
  std::vector<Phase2Task> tasks;
  for (int c : cells) {
    Phase2Task t{c, !std::isnan(paper[c].t1), met[c].m2_short, kscan};
    if (t.l1_implied || t.l2_scan || t.kscan) tasks.push_back(t);
  }
  const double t20 = now_s();
  std::fprintf(stderr, "report: phase 2, diagnostics for %zu cells\n", tasks.size());
  run_workers(jobs, sh, [&] { phase2(sh, tasks); });
  const double t_phase2 = now_s() - t20;
  const double t_total = now_s() - t_start;

  // ---- classification of the multi-Gaussian shortfalls ------------------------------------------
  // l1: consistency file.  l2: the scan (min over K of achieved/delta).
  auto l2_min_ratio = [&](int c, int* bestK) {
    double best = INFINITY;
    int bk = 0;
    for (int K = 1; K <= kMaxKScan; ++K) {
      double d = sh->cells[c].l2_delta_approx[K];
      if (!std::isnan(d) && d / cell_delta(c) < best) {
        best = d / cell_delta(c);
        bk = K;
      }
    }
    if (bestK) *bestK = bk;
    return best;
  };
  // The best certified multi_gaussian(k=K), K in 1..20, for a loss: its improvement and K.
  auto scan_best = [&](int c, int loss, int* bestK) -> double {
    const CellResult& r = sh->cells[c];
    double best = NAN;
    int bk = 0;
    for (int K = 1; K <= kMaxKScan; ++K) {
      double v = loss == 1 ? r.ks_l1[K] : r.ks_l2[K];
      if (std::isnan(v)) continue;
      if (std::isnan(best) || v < best) {
        best = v;
        bk = K;
      }
    }
    if (bestK) *bestK = bk;
    return std::isnan(best) ? NAN : improvement(loss == 1 ? r.l1[AG] : r.l2[AG], best);
  };
  enum Reason { kUnreachable = 0, kSearch, kMargin, kBoth, kOther };
  const char* kReasonName[] = {"unreachable", "best-K search", "certificate margin",
                               "best-K search + certificate margin", "other"};
  struct Short {
    int cell;
    int loss;  // 1 or 2
    double ours, printed;
    bool unreachable;
    std::string why;
    int reason = kOther;
    std::string note;
  };
  std::vector<Short> shorts;
  for (int c : cells) {
    const PaperCell& p = paper[c];
    if (met[c].m1_short) {
      Short s{c, 1, met[c].m1, p.t1, false, "", kOther, ""};
      char b[256];
      if (!p.have_cons) {
        s.why = "no row in the consistency file";
      } else {
        s.unreachable = !p.cons_consistent;
        std::snprintf(b, sizeof(b), "K=%d: sigma implied %.6g achieves delta %.4g = %.4g x delta", p.cons_K,
                      p.cons_sigma_implied, p.cons_delta_achieved, p.cons_ratio);
        s.why = b;
      }
      shorts.push_back(s);
    }
    if (met[c].m2_short) {
      Short s{c, 2, met[c].m2, p.t4, false, "", kOther, ""};
      int bk = 0;
      double ratio = l2_min_ratio(c, &bk);
      char b[256];
      if (!std::isfinite(ratio)) {
        s.unreachable = true;
        s.why = "no sigma > 0 gives the printed E[X^2] for any K in 1..20";
      } else {
        s.unreachable = ratio > 1.0001;
        std::snprintf(b, sizeof(b), "best K=%d: sigma implied %.6g achieves delta ~%.4g = %.4g x delta", bk,
                      sh->cells[c].l2_sigma_implied[bk], sh->cells[c].l2_delta_approx[bk], ratio);
        s.why = b;
      }
      shorts.push_back(s);
    }
  }

  // Why a reachable print was missed: (1) dpagg's own certified K-scan reaches it, so the best-K
  // search chose another K; (2) at the K whose sigma reproduces the print, dpagg's certified sigma
  // is at most 0.6% above the implied sigma (the certificate certifies the search estimate times
  // 1.002, more only if that fails, and the search itself is accurate to ~1e-4); (3) otherwise.
  // A print flagged unreachable that dpagg's own certified scan reaches to the printed two
  // decimals is unreachable only within its rounding (achieved delta barely above delta, or
  // reachable with another K): such a shortfall is not explained by unreachability.
  for (Short& s : shorts) {
    const int c = s.cell;
    const CellResult& r = sh->cells[c];
    const PaperCell& p = paper[c];
    char b[400];
    int kb = 0;
    double sb = scan_best(c, s.loss, &kb);
    const bool scan_reaches = !std::isnan(sb) && sb >= s.printed - 0.005 - 1e-9;
    if (s.unreachable && !scan_reaches) {
      s.reason = kUnreachable;
      continue;
    }
    if (scan_reaches) {
      s.reason = kSearch;
      std::snprintf(b, sizeof(b),
                    "dpagg's certified multi_gaussian(k=%d) gives %.2f; its best-K search chose K=%d%s", kb, sb,
                    r.K[s.loss == 1 ? MG1 : MG2],
                    s.unreachable ? " (the print is unreachable only within its rounding)" : "");
      s.unreachable = false;
      s.note = b;
      continue;
    }
    int kref = 0;
    double implied = NAN;
    if (s.loss == 1) {
      kref = p.cons_K;
      implied = p.cons_sigma_implied;
    } else {
      l2_min_ratio(c, &kref);
      if (kref > 0) implied = r.l2_sigma_implied[kref];
    }
    double rel = (kref >= 1 && kref <= kMaxKScan) ? r.ks_sigma[kref] / implied - 1 : NAN;
    if (!std::isnan(rel) && rel > 0 && rel <= 0.006) {
      double v = s.loss == 1 ? improvement(r.l1[AG], r.ks_l1[kref]) : improvement(r.l2[AG], r.ks_l2[kref]);
      // Most of the gap comes from the choice of K when dpagg's K differs and K = kref does clearly better.
      const bool also_k = r.K[s.loss == 1 ? MG1 : MG2] != kref && v > s.ours + 0.005;
      s.reason = also_k ? kBoth : kMargin;
      std::snprintf(b, sizeof(b),
                    "at K=%d dpagg's certified sigma %.6g is %.2f%% above the implied %.6g (gives %.2f)%s", kref,
                    r.ks_sigma[kref], 100 * rel, implied, v,
                    also_k ? "; the best-K search chose another K" : "");
      s.note = b;
    } else {
      s.reason = kOther;
      std::snprintf(b, sizeof(b), "best certified K in 1..20: K=%d gives %.2f; at K=%d certified sigma / implied = %.4f",
                    kb, sb, kref, rel + 1);
      s.note = b;
    }
  }

  // Where the paper's "best multimodal" value is the quasi-Gaussian's (docs/mixtures.md §7: e.g.
  // Table 4 at eps = 2, delta = 0.1), say so.
  for (Short& s : shorts) {
    double q = s.loss == 1 ? met[s.cell].q1 : met[s.cell].q2;
    if (s.reason != kUnreachable && matches(q, s.printed))
      s.note += "; the print equals dpagg's quasi-Gaussian value " + f2(q);
  }

  // ---- CSV ---------------------------------------------------------------------------------------
  std::string csv_path = out + "/report.csv";
  std::FILE* csv = std::fopen(csv_path.c_str(), "w");
  if (!csv) {
    std::perror(csv_path.c_str());
    return 1;
  }
  std::fprintf(csv,
               "# dpagg certified calibrations on the grid of Liu-Selvi-Wiesemann 'Mind the Gap' (Delta=1), "
               "with the paper's printed values (tools/data). impr_* = 100(a-m)/max(a,m) vs dpagg's analytic "
               "Gaussian. Written by build/report (tools/report.cpp); see docs/report/report.md.\n");
  std::fprintf(csv, "delta,epsilon");
  for (int s = 0; s < kSpecs; ++s)
    std::fprintf(csv, ",%s_spec,%s_K,%s_scale,%s_l1,%s_l2,%s_seconds", kSpecCol[s], kSpecCol[s], kSpecCol[s],
                 kSpecCol[s], kSpecCol[s], kSpecCol[s]);
  std::fprintf(csv,
               ",impr_quasi_l1,paper_t5_quasi_l1,match_t5,impr_quasi_l2,paper_t6_quasi_l2,match_t6"
               ",impr_multi_l1,paper_t1_multi_l1,short_t1,paper_t3_K,paper_t3_star,impr_multi_l2,paper_t4_multi_l2,short_t4"
               ",impr_auto_l1,impr_auto_l2"
               ",cons_K,cons_sigma_implied,cons_delta_achieved,cons_ratio,cons_consistent"
               ",dpagg_l1_sigma_implied_K3,dpagg_l1_delta_approx_K3"
               ",t4_sigma_implied_K3,t4_delta_approx_K3,t4_min_ratio_any_K,t4_min_ratio_K"
               ",certified_K3_sigma,impr_certified_K3_l1,impr_certified_K3_l2,diagnostic_seconds"
               ",t1_unreachable,t4_unreachable,short_t1_explained,short_t4_explained"
               ",kscan_best_K_l1,impr_kscan_best_l1,kscan_best_K_l2,impr_kscan_best_l2,kscan_seconds"
               ",short_t1_reason,short_t4_reason\n");
  for (int c : cells) {
    const CellResult& r = sh->cells[c];
    const PaperCell& p = paper[c];
    const Metrics& m = met[c];
    std::fprintf(csv, "%s,%g", fd(cell_delta(c)).c_str(), cell_eps(c));
    for (int s = 0; s < kSpecs; ++s)
      std::fprintf(csv, ",%s,%d,%.10g,%.10g,%.10g,%.3f", r.chosen[s], r.K[s], r.scale[s], r.l1[s], r.l2[s],
                   r.secs[s]);
    int bk = 0;
    double ratio = l2_min_ratio(c, &bk);
    int k3 = p.k3 >= 1 && p.k3 <= kMaxKScan ? p.k3 : 0;
    std::fprintf(csv, ",%.6f,%s,%d,%.6f,%s,%d", m.q1, f2(p.t5).c_str(), m.q1_match, m.q2, f2(p.t6).c_str(),
                 m.q2_match);
    std::fprintf(csv, ",%.6f,%s,%d,%d,%d,%.6f,%s,%d", m.m1, f2(p.t1).c_str(), m.m1_short, p.k3, p.t3_star, m.m2,
                 f2(p.t4).c_str(), m.m2_short);
    std::fprintf(csv, ",%.6f,%.6f", m.a1, m.a2);
    if (p.have_cons)
      std::fprintf(csv, ",%d,%s,%s,%s,%d", p.cons_K, fg(p.cons_sigma_implied).c_str(),
                   fg(p.cons_delta_achieved, 5).c_str(), fg(p.cons_ratio, 4).c_str(), p.cons_consistent);
    else
      std::fprintf(csv, ",,,,,");
    std::fprintf(csv, ",%s,%s", fg(r.l1_sigma_implied_k3).c_str(), fg(r.l1_delta_approx_k3, 5).c_str());
    std::fprintf(csv, ",%s,%s,%s,%s", k3 ? fg(r.l2_sigma_implied[k3]).c_str() : "NA",
                 k3 ? fg(r.l2_delta_approx[k3], 5).c_str() : "NA",
                 std::isfinite(ratio) ? fg(ratio, 5).c_str() : "NA", bk ? std::to_string(bk).c_str() : "NA");
    std::fprintf(csv, ",%s,%s,%s,%.3f", k3 ? fg(r.ks_sigma[k3]).c_str() : "NA",
                 k3 && !std::isnan(r.ks_l1[k3]) ? fg(improvement(r.l1[AG], r.ks_l1[k3])).c_str() : "NA",
                 k3 && !std::isnan(r.ks_l2[k3]) ? fg(improvement(r.l2[AG], r.ks_l2[k3])).c_str() : "NA",
                 r.phase2_secs);
    // t1_unreachable: the consistency file's verdict (Table 3's K); t4_unreachable: this tool's scan
    // (computed for shortfall cells only: a print at or below dpagg's certified value is reachable).
    std::string expl1, expl4, unr4 = "0";
    for (const Short& s : shorts) {
      if (s.cell != c) continue;
      (s.loss == 1 ? expl1 : expl4) = s.unreachable ? "1" : "0";
      if (s.loss == 2 && s.unreachable) unr4 = "1";
    }
    if (std::isnan(p.t4)) unr4 = "NA";
    std::fprintf(csv, ",%s,%s,%s,%s", p.have_cons ? (p.cons_consistent ? "0" : "1") : "NA", unr4.c_str(),
                 expl1.c_str(), expl4.c_str());
    int kb1 = 0, kb2 = 0;
    double sb1 = scan_best(c, 1, &kb1), sb2 = scan_best(c, 2, &kb2);
    std::string why1, why4;
    for (const Short& s : shorts)
      if (s.cell == c) (s.loss == 1 ? why1 : why4) = kReasonName[s.reason];
    std::fprintf(csv, ",%s,%s,%s,%s,%.3f,%s,%s\n", kb1 ? std::to_string(kb1).c_str() : "NA", fg(sb1).c_str(),
                 kb2 ? std::to_string(kb2).c_str() : "NA", fg(sb2).c_str(), r.kscan_secs, why1.c_str(),
                 why4.c_str());
  }
  std::fclose(csv);

  // ---- summary numbers -----------------------------------------------------------------------------
  const int n = static_cast<int>(cells.size());
  int q1m = 0, q2m = 0, qboth = 0;
  std::vector<double> v_m1, v_m2, v_a1, v_a2, v_q1, v_q2, v_t1na0, v_t4na0;
  int m1_pos = 0, m2_pos = 0, a1_pos = 0, a2_pos = 0;
  int auto_l1_worse_than_multi = 0;
  std::vector<int> auto_l1_worse_cells;
  for (int c : cells) {
    const Metrics& m = met[c];
    q1m += m.q1_match;
    q2m += m.q2_match;
    qboth += m.q1_match && m.q2_match;
    v_m1.push_back(m.m1);
    v_m2.push_back(m.m2);
    v_a1.push_back(m.a1);
    v_a2.push_back(m.a2);
    v_q1.push_back(m.q1);
    v_q2.push_back(m.q2);
    m1_pos += m.m1 > 0;
    m2_pos += m.m2 > 0;
    a1_pos += m.a1 > 0;
    a2_pos += m.a2 > 0;
    v_t1na0.push_back(std::isnan(paper[c].t1) ? 0 : paper[c].t1);
    v_t4na0.push_back(std::isnan(paper[c].t4) ? 0 : paper[c].t4);
    const CellResult& r = sh->cells[c];
    double best_l1 = std::min({r.l1[AG], r.l1[QG], r.l1[MG1], r.l1[MG2]});
    if (r.l1[AU1] > best_l1 * (1 + 1e-9)) {
      ++auto_l1_worse_than_multi;
      auto_l1_worse_cells.push_back(c);
    }
  }
  int m1_short = 0, m2_short = 0, m1_unexpl = 0, m2_unexpl = 0, m1_t1_nonNA = 0, m2_t4_nonNA = 0;
  for (int c : cells) {
    m1_t1_nonNA += !std::isnan(paper[c].t1);
    m2_t4_nonNA += !std::isnan(paper[c].t4);
  }
  int reason_count[2][5] = {{0}};
  for (const Short& s : shorts) {
    (s.loss == 1 ? m1_short : m2_short)++;
    if (!s.unreachable) (s.loss == 1 ? m1_unexpl : m2_unexpl)++;
    reason_count[s.loss - 1][s.reason]++;
  }
  // dpagg's best-K search against its own certified scan over K = 1..20.
  std::vector<double> v_s1, v_s2;
  int scan_better[2] = {0, 0}, ladder_better[2] = {0, 0};
  double scan_gap[2] = {0, 0};
  int scan_gap_cell[2] = {-1, -1};
  for (int c : cells) {
    for (int loss = 1; loss <= 2; ++loss) {
      int kb = 0;
      double sb = scan_best(c, loss, &kb);
      if (std::isnan(sb)) continue;
      double ours = loss == 1 ? met[c].m1 : met[c].m2;
      (loss == 1 ? v_s1 : v_s2).push_back(std::max(sb, ours));
      if (sb > ours + 0.005) {
        scan_better[loss - 1]++;
        if (sb - ours > scan_gap[loss - 1]) {
          scan_gap[loss - 1] = sb - ours;
          scan_gap_cell[loss - 1] = c;
        }
      } else if (ours > sb + 0.005) {
        ladder_better[loss - 1]++;
      }
    }
  }
  // Cross-check of the consistency file by dpagg's approximate profile.
  int xc_n = 0, xc_agree = 0;
  double xc_maxrel = 0;
  for (int c : cells) {
    const PaperCell& p = paper[c];
    const CellResult& r = sh->cells[c];
    if (!p.have_cons || std::isnan(r.l1_delta_approx_k3)) continue;
    ++xc_n;
    bool ours_ok = r.l1_delta_approx_k3 <= cell_delta(c) * 1.0001;
    if (ours_ok == p.cons_consistent) ++xc_agree;
    if (p.cons_ratio > 1.5 || r.l1_delta_approx_k3 > 1.5 * cell_delta(c)) continue;
    xc_maxrel = std::max(xc_maxrel, std::fabs(r.l1_delta_approx_k3 / p.cons_delta_achieved - 1));
  }
  // Slowest cells.
  std::vector<std::pair<double, int>> slow;
  for (int c : cells)
    slow.push_back({std::accumulate(sh->cells[c].secs, sh->cells[c].secs + kSpecs, 0.0), c});
  std::sort(slow.rbegin(), slow.rend());
  double max_single = 0;
  std::string max_single_what;
  for (int c : cells)
    for (int s = 0; s < kSpecs; ++s)
      if (sh->cells[c].secs[s] > max_single) {
        max_single = sh->cells[c].secs[s];
        max_single_what = std::string(kSpecText[s]) + " at eps=" + fg(cell_eps(c)) + ", delta=" + fd(cell_delta(c));
      }
  double spec_total[kSpecs] = {0};
  for (int c : cells)
    for (int s = 0; s < kSpecs; ++s) spec_total[s] += sh->cells[c].secs[s];

  // ---- markdown ----------------------------------------------------------------------------------
  std::ostringstream md;
  char date[64];
  std::time_t tt = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M %Z", std::localtime(&tt));
  md << "# dpagg on the grid of \"Mind the Gap\" (Liu, Selvi & Wiesemann, ICML 2026)\n\n";
  md << "Generated " << date << " by `scripts/report.sh` (`tools/report.cpp`, " << jobs
     << " worker processes); " << n << " of " << kCells << " cells"
     << (n < kCells ? " (PARTIAL RUN)" : "") << ". Sensitivity Δ = 1.\n\n";
  md << "Every dpagg number is a certified calibration (`dpagg::calibrate`, `delta_bound <= delta`). "
        "Improvement = 100 (a − m) / max(a, m) against dpagg's analytic Gaussian a (l1 = E|X|, "
        "l2 = E[X²]); positive = better than the analytic Gaussian. The paper's values are read from "
        "`tools/data/` (copies of its Tables 1, 3, 4, 5, 6 and of the reproduction's consistency file).\n\n";
  md << "## Headline\n\n";
  md << "* **Quasi-Gaussian vs Tables 5/6:** " << q1m << " / " << n << " cells match Table 5 (l1) and " << q2m
     << " / " << n << " match Table 6 (l2) to the printed two decimals; " << qboth
     << " match both (target ≥ 144 of 150).\n";
  char b[512];
  std::snprintf(b, sizeof(b),
                "* **Mean / median certified improvement over the analytic Gaussian** (all %d cells):\n"
                "  * multi-Gaussian (best K): l1 %.2f / %.2f (%d cells > 0), l2 %.2f / %.2f (%d cells > 0)\n"
                "  * auto: l1 %.2f / %.2f (%d cells > 0), l2 %.2f / %.2f (%d cells > 0)\n"
                "  * quasi-Gaussian: l1 %.2f / %.2f, l2 %.2f / %.2f\n",
                n, mean(v_m1), median(v_m1), m1_pos, mean(v_m2), median(v_m2), m2_pos, mean(v_a1), median(v_a1),
                a1_pos, mean(v_a2), median(v_a2), a2_pos, mean(v_q1), median(v_q1), mean(v_q2), median(v_q2));
  md << b;
  std::snprintf(b, sizeof(b),
                "  * the paper's printed multi-Gaussian, NA counted as 0: Table 1 (l1) %.2f / %.2f, "
                "Table 4 (l2) %.2f / %.2f\n",
                mean(v_t1na0), median(v_t1na0), mean(v_t4na0), median(v_t4na0));
  md << b;
  md << "* **Multi-Gaussian shortfalls** (dpagg's certified value below the printed one by more than "
        "rounding, i.e. ours < printed − 0.005): l1 "
     << m1_short << " of " << m1_t1_nonNA << " non-NA Table-1 cells, l2 " << m2_short << " of " << m2_t4_nonNA
     << " non-NA Table-4 cells. Explained by an unreachable printed value: l1 " << (m1_short - m1_unexpl)
     << ", l2 " << (m2_short - m2_unexpl) << ". **Not explained: l1 " << m1_unexpl << ", l2 " << m2_unexpl
     << "** (listed below, with the reason found: l1 " << reason_count[0][kSearch] << " best-K search, "
     << reason_count[0][kBoth] << " best-K search + certificate margin, " << reason_count[0][kMargin]
     << " certificate margin alone, " << reason_count[0][kOther] << " other; l2 " << reason_count[1][kSearch]
     << " best-K search, " << reason_count[1][kBoth] << " best-K search + certificate margin, "
     << reason_count[1][kMargin] << " certificate margin alone, " << reason_count[1][kOther] << " other).\n";
  if (!v_s1.empty()) {
    auto where = [&](int c) { return c < 0 ? std::string("-") : "(ε " + fg(cell_eps(c)) + ", δ " + fd(cell_delta(c)) + ")"; };
    std::snprintf(b, sizeof(b),
                  "* **dpagg's best-K search vs its own certified scan over K = 1..20:** the scan is better by "
                  "more than 0.005 points in %d cells for l1 (largest gap %.2f at %s) and %d for l2 (largest %.2f "
                  "at %s); the search (which may go beyond K = 20) is better in %d cells for l1 and %d for l2. ",
                  scan_better[0], scan_gap[0], where(scan_gap_cell[0]).c_str(), scan_better[1], scan_gap[1],
                  where(scan_gap_cell[1]).c_str(), ladder_better[0], ladder_better[1]);
    md << b;
    std::snprintf(b, sizeof(b),
                  "The better of the two, cell by cell: mean / median l1 %.2f / %.2f, l2 %.2f / %.2f.\n",
                  mean(v_s1), median(v_s1), mean(v_s2), median(v_s2));
    md << b;
  }
  std::snprintf(b, sizeof(b),
                "* **Runtime:** %.0f s in all (calibrations %.0f s, diagnostics %.0f s) on %d processes; "
                "slowest single calibration %.1f s (%s).\n\n",
                t_total, t_phase1, t_phase2, jobs, max_single, max_single_what.c_str());
  md << b;

  md << "## Multi-Gaussian shortfalls\n\n";
  md << "A printed value is *unreachable* when the σ it implies (for l1: with Table 3's K, from "
        "`derived_multi_gaussian_consistency.csv`; for l2: for every K in 1..20, computed here with "
        "dpagg's approximate privacy profile) achieves a δ larger than the cell's δ (by more than "
        "1e-4 relative): no (ε, δ)-DP multi-Gaussian with that loss exists, so a certified calibration "
        "cannot reach it.\n\n";
  auto short_table = [&](bool unexplained) {
    if (unexplained)
      md << "| loss | ε | δ | dpagg | printed | gap | dpagg K | Table 3 K | reachability of the print | reason | detail |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n";
    else
      md << "| loss | ε | δ | dpagg | printed | gap | dpagg K | Table 3 K | evidence | best certified K in 1..20 |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n";
    int rows = 0;
    for (const Short& s : shorts) {
      if (s.unreachable == unexplained) continue;
      const CellResult& r = sh->cells[s.cell];
      md << "| l" << s.loss << " | " << fg(cell_eps(s.cell)) << " | " << fd(cell_delta(s.cell)) << " | "
         << f2(s.ours) << " | " << f2(s.printed) << " | " << f2(s.printed - s.ours) << " | "
         << r.K[s.loss == 1 ? MG1 : MG2] << " | " << paper[s.cell].k3 << " | " << s.why << " | ";
      if (unexplained) {
        md << kReasonName[s.reason] << " | " << s.note << " |\n";
      } else {
        int kb = 0;
        double sb = scan_best(s.cell, s.loss, &kb);
        md << f2(sb) << (kb ? " (K=" + std::to_string(kb) + ")" : "") << " |\n";
      }
      ++rows;
    }
    if (rows == 0) md << "| (none) | | | | | | | | | |\n";
  };
  md << "### Not explained by unreachability\n\n";
  md << "Reasons: *best-K search* — dpagg's own certified `multi_gaussian(k=K)` for some K in 1..20 "
        "reaches the print; `multi_gaussian` without k, which chooses K by its own search on uncertified "
        "loss estimates (src/core/mechanisms/multi_gaussian/search.cpp), chose another K. *certificate margin* — at "
        "the K whose σ reproduces the print, dpagg's certified σ is at most 0.6% above that σ: the "
        "certificate is run at the search estimate × 1.002 (× 1.004, 1.008, ... only if that fails), "
        "a margin the paper's uncertified values do not pay. *best-K search + certificate margin* — both: at that K dpagg falls short only by the "
        "margin, but its best-K search chose another, clearly worse K. *other* — none of these.\n\n";
  short_table(true);
  md << "\n### Explained (the printed value is unreachable by a certified σ)\n\n";
  short_table(false);
  md << "\nCross-check of the consistency file: dpagg's approximate profile at the l1-implied σ (Table 3's K) "
        "gives the same consistent/inconsistent verdict in "
     << xc_agree << " of " << xc_n << " Table-1 cells";
  std::snprintf(b, sizeof(b), "; where both achieved δ are below 1.5 δ they differ by at most %.1f%%.\n\n",
                100 * xc_maxrel);
  md << b;

  if (auto_l1_worse_than_multi > 0) {
    md << "## Note: auto(objective=l1)\n\n";
    md << "In " << auto_l1_worse_than_multi
       << " cells `auto(objective=l1)` returns a larger E|X| than another calibration dpagg itself produced "
          "for the same request (usually `multi_gaussian(objective=l1)`): `auto` calibrates the "
          "multi-Gaussian candidate without passing its objective on, so the multi-Gaussian's K is chosen "
          "for l2. Cells: ";
    for (size_t i = 0; i < auto_l1_worse_cells.size(); ++i) {
      int c = auto_l1_worse_cells[i];
      md << (i ? ", " : "") << "(" << fg(cell_eps(c)) << ", " << fd(cell_delta(c)) << ")";
    }
    md << ".\n\n";
  }

  md << "## Runtime\n\n";
  md << "Seconds summed over the cells, per calibration: ";
  for (int s = 0; s < kSpecs; ++s) {
    std::snprintf(b, sizeof(b), "%s`%s` %.0f", s ? ", " : "", kSpecText[s], spec_total[s]);
    md << b;
  }
  md << ". Slowest cells (all six calibrations):\n\n| ε | δ | seconds | multi l1 | multi l2 | auto l1 | auto l2 |\n|---:|---:|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < slow.size() && i < 10; ++i) {
    int c = slow[i].second;
    const CellResult& r = sh->cells[c];
    std::snprintf(b, sizeof(b), "| %g | %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", cell_eps(c),
                  fd(cell_delta(c)).c_str(), slow[i].first, r.secs[MG1], r.secs[MG2], r.secs[AU1], r.secs[AU2]);
    md << b;
  }

  md << "\n## The grid\n\n";
  md << "Columns: improvement (%) over the analytic Gaussian, dpagg's certified value and the paper's "
        "printed value side by side (`paper` = Table 5 / 6 for the quasi-Gaussian, Table 1 / 4 for the "
        "multi-Gaussian; NA as printed). `K` = the modality dpagg chose for that objective (paper: "
        "Table 3's l1 K). `auto` = the mechanism dpagg's `auto` picks for that objective and its "
        "improvement. Marks: `≠` quasi cell not matching the print; `↓` multi-Gaussian value below the "
        "print by more than rounding and the print is unreachable; `‼` below the print and not "
        "explained. Heat maps: `quasi_l1.png`, `quasi_l2.png`, `multi_l1.png`, `multi_l2.png`, "
        "`paper_multi_l1.png`, `paper_multi_l2.png`.\n\n";
  md << "| ε | δ | quasi l1 | paper | quasi l2 | paper | multi l1 | paper | K | paper K | multi l2 | paper | K | "
        "auto l1 | auto l2 |\n";
  md << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
  auto mark_short = [&](int c, int loss) -> std::string {
    for (const Short& s : shorts)
      if (s.cell == c && s.loss == loss) return s.unreachable ? " ↓" : " ‼";
    return "";
  };
  auto short_name = [](const char* spec) {
    std::string s = spec;
    if (s.rfind("multi_gaussian(k=", 0) == 0) return "MG" + s.substr(17, s.size() - 18);
    if (s == "quasi_gaussian") return std::string("QG");
    if (s == "analytic_gaussian") return std::string("AG");
    if (s == "laplace") return std::string("Lap");
    return s;
  };
  for (int i = 0; i < kNE; ++i) {
    for (int j = 0; j < kND; ++j) {
      int c = i * kND + j;
      if (!sh->cells[c].done || sh->cells[c].failed) continue;
      const CellResult& r = sh->cells[c];
      const Metrics& m = met[c];
      const PaperCell& p = paper[c];
      md << "| " << fg(kEps[i]) << " | " << fd(kDelta[j]) << " | " << f2(m.q1) << (m.q1_match ? "" : " ≠") << " | "
         << f2(p.t5) << " | " << f2(m.q2) << (m.q2_match ? "" : " ≠") << " | " << f2(p.t6) << " | " << f2(m.m1)
         << mark_short(c, 1) << " | " << f2(p.t1) << " | " << r.K[MG1] << " | " << p.k3 << " | " << f2(m.m2)
         << mark_short(c, 2) << " | " << f2(p.t4) << " | " << r.K[MG2] << " | " << short_name(r.chosen[AU1])
         << " " << f2(m.a1) << " | " << short_name(r.chosen[AU2]) << " " << f2(m.a2) << " |\n";
    }
  }
  md << "\nAuto abbreviations: MGk = multi_gaussian(k=k), QG = quasi_gaussian, AG = analytic_gaussian, "
        "Lap = laplace.\n";

  std::ofstream f(out + "/report.md");
  f << md.str();
  if (!f) {
    std::fprintf(stderr, "report: cannot write %s/report.md\n", out.c_str());
    return 1;
  }
  f.close();

  // Console summary.
  std::printf("report: %d cells, %.0f s (calibrations %.0f s, diagnostics %.0f s, %d processes)\n", n, t_total,
              t_phase1, t_phase2, jobs);
  std::printf("  quasi matches: Table 5 (l1) %d/%d, Table 6 (l2) %d/%d, both %d/%d (target >= 144/150)\n", q1m, n,
              q2m, n, qboth, n);
  std::printf("  multi improvement mean/median: l1 %.2f/%.2f, l2 %.2f/%.2f\n", mean(v_m1), median(v_m1), mean(v_m2),
              median(v_m2));
  std::printf("  auto  improvement mean/median: l1 %.2f/%.2f, l2 %.2f/%.2f\n", mean(v_a1), median(v_a1), mean(v_a2),
              median(v_a2));
  std::printf("  multi shortfalls: l1 %d (unexplained %d), l2 %d (unexplained %d)\n", m1_short, m1_unexpl, m2_short,
              m2_unexpl);
  for (const Short& s : shorts)
    if (!s.unreachable)
      std::printf("    UNEXPLAINED l%d eps=%g delta=%s: dpagg %.2f vs printed %.2f (%s)\n", s.loss, cell_eps(s.cell),
                  fd(cell_delta(s.cell)).c_str(), s.ours, s.printed, s.why.c_str());
  std::printf("  slowest single calibration: %.1f s (%s)\n", max_single, max_single_what.c_str());
  std::printf("  wrote %s/report.csv and %s/report.md\n", out.c_str(), out.c_str());
  return n == kCells ? 0 : (max_cells < kCells ? 0 : 1);
}
