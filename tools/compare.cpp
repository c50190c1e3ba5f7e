// compare.cpp — every mechanism dpagg implements, side by side on the 150-cell grid of Liu, Selvi
// & Wiesemann's "Mind the Gap" (docs/mixtures.md §7: epsilon in {0.1 ... 10} x delta in
// {5e-7 ... 0.25}, sensitivity 1): the certified l1 = E|noise| and l2 = E[noise^2] of each,
// relative to the analytic Gaussian, and which one wins each cell.
//
//   build/compare --out DIR [--jobs N] [--cells N]
//
// Writes DIR/mechanisms.csv (every calibration: cell, mechanism, l1, l2, scale, seconds, or the
// refusal) and DIR/mechanisms.md (per mechanism: cells served, mean and median loss relative to
// the analytic Gaussian, cells won; and the winner of every cell).  tools/plot_compare.py draws
// DIR/mechanisms.png from the CSV.  Mechanisms come from the registry, so a new one appears here
// without changes; a mechanism with an objective option (multi_gaussian, auto) is calibrated once
// per objective and its l1 column comes from objective=l1, its l2 column from objective=l2.
// Calibrations run in N worker processes (fork), each taking the next (cell, mechanism) job.
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "errors.h"
#include "mechanism.h"
#include "registry.h"

namespace {

const double kEps[] = {0.1, 0.25, 0.5, 0.75, 1, 2, 3, 4, 5, 10};
const double kDelta[] = {5e-7, 1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3,
                         5e-3, 0.01, 0.02, 0.05, 0.1, 0.15, 0.25};
constexpr int kNE = 10, kND = 15, kCells = kNE * kND;

struct Column {             // one row of the tables: a mechanism (its l1 and l2 may come from
  std::string name;         // different objective specs)
  std::string spec_l1, spec_l2;
  std::string guarantee;
};

struct Job {
  int cell;
  int spec;  // index into specs
};

struct Result {             // in shared memory
  int done;
  int ok;
  double l1, l2, scale, seconds;
  char chosen[64];
  char error[160];
};

}  // namespace

int main(int argc, char** argv) {
  std::string out = "docs/report";
  int jobs = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  int cells = kCells;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--jobs" && i + 1 < argc) jobs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cells" && i + 1 < argc) cells = std::min(kCells, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: compare --out DIR [--jobs N] [--cells N]\n");
      return 2;
    }
  }

  // The columns: every registered mechanism except auto itself, then auto.
  std::vector<Column> cols;
  std::vector<std::string> specs;
  auto spec_index = [&](const std::string& s) {
    auto it = std::find(specs.begin(), specs.end(), s);
    if (it != specs.end()) return static_cast<int>(it - specs.begin());
    specs.push_back(s);
    return static_cast<int>(specs.size() - 1);
  };
  const dpagg::Mechanism* auto_m = nullptr;
  for (const dpagg::Mechanism* m : dpagg::all_mechanisms()) {
    if (std::string(m->name()) == "auto") {
      auto_m = m;
      continue;
    }
    const auto opts = m->option_names();
    bool objective = std::find(opts.begin(), opts.end(), "objective") != opts.end();
    Column c{m->name(), m->name(), m->name(), m->guarantee()};
    if (objective) {
      c.spec_l1 = std::string(m->name()) + "(objective=l1)";
      c.spec_l2 = std::string(m->name()) + "(objective=l2)";
    }
    cols.push_back(c);
  }
  if (auto_m) cols.push_back({"auto", "auto(objective=l1)", "auto(objective=l2)", auto_m->guarantee()});
  std::vector<std::pair<int, int>> col_specs;
  for (const Column& c : cols) col_specs.push_back({spec_index(c.spec_l1), spec_index(c.spec_l2)});

  std::vector<Job> todo;
  for (int c = 0; c < cells; ++c)
    for (int s = 0; s < static_cast<int>(specs.size()); ++s) todo.push_back({c, s});
  // Expensive specs first (better load balance): multi_gaussian and auto.
  std::stable_sort(todo.begin(), todo.end(), [&](const Job& a, const Job& b) {
    auto cost = [&](const Job& j) {
      const std::string& s = specs[static_cast<size_t>(j.spec)];
      return (s.rfind("multi", 0) == 0 || s.rfind("auto", 0) == 0) ? 0 : 1;
    };
    return cost(a) < cost(b);
  });

  const size_t n = todo.size();
  void* mem = mmap(nullptr, sizeof(std::atomic<size_t>) + n * sizeof(Result), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  auto* next = new (mem) std::atomic<size_t>(0);
  auto* results = reinterpret_cast<Result*>(static_cast<char*>(mem) + sizeof(std::atomic<size_t>));
  std::memset(results, 0, n * sizeof(Result));

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> kids;
  for (int j = 0; j < jobs; ++j) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      return 1;
    }
    if (pid == 0) {
      for (;;) {
        size_t k = next->fetch_add(1);
        if (k >= n) break;
        const Job& job = todo[k];
        Result& r = results[k];
        const double eps = kEps[job.cell / kND], delta = kDelta[job.cell % kND];
        auto s0 = std::chrono::steady_clock::now();
        try {
          dpagg_calibration cal = dpagg::calibrate(specs[static_cast<size_t>(job.spec)],
                                                   dpagg::PrivacyRequest{eps, delta, 1.0, false});
          r.ok = 1;
          r.l1 = cal.l1;
          r.l2 = cal.l2;
          r.scale = cal.scale;
          std::snprintf(r.chosen, sizeof(r.chosen), "%s", cal.spec);
        } catch (const dpagg::Error& e) {
          r.ok = 0;
          std::snprintf(r.error, sizeof(r.error), "%s", e.what());
        }
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
        r.done = 1;
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
  }
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Gather: per (cell, spec).
  std::vector<std::vector<const Result*>> by(static_cast<size_t>(cells), std::vector<const Result*>(specs.size(), nullptr));
  for (size_t k = 0; k < n; ++k) by[static_cast<size_t>(todo[k].cell)][static_cast<size_t>(todo[k].spec)] = &results[k];

  mkdir(out.c_str(), 0755);
  std::ofstream csv(out + "/mechanisms.csv");
  if (!csv) {
    std::fprintf(stderr, "compare: cannot write %s/mechanisms.csv\n", out.c_str());
    return 1;
  }
  csv << "epsilon,delta,spec,ok,l1,l2,scale,seconds,chosen,error\n";
  for (int c = 0; c < cells; ++c)
    for (size_t s = 0; s < specs.size(); ++s) {
      const Result* r = by[static_cast<size_t>(c)][s];
      char line[512];
      std::snprintf(line, sizeof(line), "%g,%g,%s,%d,%.10g,%.10g,%.10g,%.4f,\"%s\",\"%s\"\n", kEps[c / kND],
                    kDelta[c % kND], specs[s].c_str(), r && r->ok, r && r->ok ? r->l1 : NAN,
                    r && r->ok ? r->l2 : NAN, r && r->ok ? r->scale : NAN, r ? r->seconds : NAN,
                    r ? r->chosen : "", r ? r->error : "");
      csv << line;
    }

  // Per column: loss relative to the analytic Gaussian (the first column).
  int ag = -1;
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i].name == "analytic_gaussian") ag = static_cast<int>(i);
  auto loss = [&](int c, size_t col, bool l1) -> double {
    const Result* r = by[static_cast<size_t>(c)][static_cast<size_t>(l1 ? col_specs[col].first : col_specs[col].second)];
    if (!r || !r->ok) return NAN;
    return l1 ? r->l1 : r->l2;
  };
  auto stats = [](std::vector<double> v, double& mean, double& med) {
    if (v.empty()) { mean = med = NAN; return; }
    mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
    std::sort(v.begin(), v.end());
    med = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  // Winners among the concrete mechanisms (auto excluded: it is one of them).
  auto winner = [&](int c, bool l1) -> int {
    int best = -1;
    double bl = INFINITY;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].name == "auto") continue;
      double v = loss(c, i, l1);
      if (!std::isnan(v) && v < bl) { bl = v; best = static_cast<int>(i); }
    }
    return best;
  };

  std::ofstream md(out + "/mechanisms.md");
  md << "# Every mechanism on the paper's grid\n\n";
  md << "Generated by `make compare` (tools/compare.cpp): " << cells << " cells (epsilon x delta, sensitivity 1), "
     << cols.size() << " mechanisms, " << n << " certified calibrations in " << static_cast<int>(total_s)
     << " s on " << jobs << " worker processes.\n\n";
  md << "Loss relative to the analytic Gaussian in the same cell: 1 = the same, 0.5 = half.  l1 = E|noise|, "
        "l2 = E[noise^2].  A mechanism that refuses a cell (e.g. Dwork's rules for epsilon > 1) is not counted "
        "there.  *wins* counts the cells where the mechanism has the least loss (auto excluded; it is always "
        "one of the others, or ties).  The multi-Gaussian and auto use objective=l1 for the l1 column and "
        "objective=l2 for the l2 column.\n\n";
  md << "| mechanism | guarantee | cells | l1 mean | l1 median | l1 wins | l2 mean | l2 median | l2 wins | median time |\n";
  md << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < cols.size(); ++i) {
    std::vector<double> r1, r2, secs;
    int served = 0, w1 = 0, w2 = 0;
    for (int c = 0; c < cells; ++c) {
      double a1 = ag >= 0 ? loss(c, static_cast<size_t>(ag), true) : NAN;
      double a2 = ag >= 0 ? loss(c, static_cast<size_t>(ag), false) : NAN;
      double v1 = loss(c, i, true), v2 = loss(c, i, false);
      if (!std::isnan(v1) || !std::isnan(v2)) ++served;
      if (!std::isnan(v1) && a1 > 0) r1.push_back(v1 / a1);
      if (!std::isnan(v2) && a2 > 0) r2.push_back(v2 / a2);
      if (winner(c, true) == static_cast<int>(i)) ++w1;
      if (winner(c, false) == static_cast<int>(i)) ++w2;
      const Result* r = by[static_cast<size_t>(c)][static_cast<size_t>(col_specs[i].second)];
      if (r) secs.push_back(r->seconds);
    }
    double m1, d1, m2, d2, ms, ds;
    stats(r1, m1, d1);
    stats(r2, m2, d2);
    stats(secs, ms, ds);
    char line[512];
    std::snprintf(line, sizeof(line), "| %s | %s | %d | %.3f | %.3f | %s | %.3f | %.3f | %s | %.3g ms |\n",
                  cols[i].name.c_str(), cols[i].guarantee.c_str(), served, m1, d1,
                  cols[i].name == "auto" ? "-" : std::to_string(w1).c_str(), m2, d2,
                  cols[i].name == "auto" ? "-" : std::to_string(w2).c_str(), ds * 1e3);
    md << line;
  }
  md << "\n## The winner of every cell (l2 / l1)\n\n| epsilon \\\\ delta |";
  for (double d : kDelta) md << " " << d << " |";
  md << "\n|---|";
  for (int j = 0; j < kND; ++j) md << "---|";
  md << "\n";
  auto short_name = [&](int i) -> std::string {
    if (i < 0) return "-";
    std::string s = cols[static_cast<size_t>(i)].name;
    std::map<std::string, std::string> abbr = {
        {"analytic_gaussian", "AG"}, {"classic_gaussian", "D14"}, {"laplace", "Lap"},
        {"dwork2006_gaussian", "D06"}, {"zhao1_gaussian", "M1"}, {"zhao2_gaussian", "M2"},
        {"zcdp_gaussian", "zCDP"}, {"pdp_gaussian", "pOPT"}, {"zhao3_pdp_gaussian", "M3"},
        {"zhao4_pdp_gaussian", "M4"}, {"osgt", "OSGT"}, {"generalized_gaussian", "GG"},
        {"quasi_gaussian", "QG"}, {"multi_gaussian", "MG"}, {"truncated_laplace", "TL"},
        {"staircase", "SC"}, {"tulap", "TuL"}, {"discrete_laplace", "DL"}};
    auto it = abbr.find(s);
    return it == abbr.end() ? s : it->second;
  };
  for (int e = 0; e < kNE; ++e) {
    md << "| " << kEps[e] << " |";
    for (int d = 0; d < kND; ++d) {
      int c = e * kND + d;
      if (c >= cells) { md << " |"; continue; }
      md << " " << short_name(winner(c, false)) << " / " << short_name(winner(c, true)) << " |";
    }
    md << "\n";
  }
  md << "\nAbbreviations: AG analytic_gaussian, D14 classic_gaussian (Dwork 2014), D06 dwork2006_gaussian, "
        "M1/M2 zhao1/zhao2_gaussian, M3/M4 their pDP variants, pOPT pdp_gaussian, zCDP zcdp_gaussian, Lap "
        "laplace, OSGT osgt (r = 0.6745), GG generalized_gaussian (p = 1.5), QG quasi_gaussian, MG "
        "multi_gaussian (best K), TL truncated_laplace, SC staircase, TuL tulap.\n";

  // The second table: auto beside the best of the non-Gaussian benchmarks of the paper's
  // Table 2 (truncated Laplace, Tulap, staircase), and whether auto is ever beaten by any single
  // mechanism dpagg has.
  std::vector<int> bench;
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i].name == "truncated_laplace" || cols[i].name == "tulap" || cols[i].name == "staircase")
      bench.push_back(static_cast<int>(i));
  int auto_col = -1;
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i].name == "auto") auto_col = static_cast<int>(i);
  if (auto_col >= 0 && !bench.empty()) {
    auto best_bench = [&](int c, bool l1) {
      double b = INFINITY;
      for (int i : bench) {
        double v = loss(c, static_cast<size_t>(i), l1);
        if (!std::isnan(v) && v < b) b = v;
      }
      return b;
    };
    for (bool l1 : {true, false}) {
      const char* which = l1 ? "l1 = E|noise|" : "l2 = E[noise^2]";
      md << "\n## auto against the best non-Gaussian benchmark (" << which << ")\n\n"
         << "Each cell: auto's loss divided by the least loss of truncated_laplace, tulap and staircase in "
            "that cell (below 1: auto has less noise), then the mechanism auto chose.\n\n| epsilon \\\\ delta |";
      for (double d : kDelta) md << " " << d << " |";
      md << "\n|---|";
      for (int j = 0; j < kND; ++j) md << "---|";
      md << "\n";
      int auto_beaten = 0, bench_better = 0, mixture_wins = 0, new_wins = 0, compared = 0;
      for (int e = 0; e < kNE; ++e) {
        md << "| " << kEps[e] << " |";
        for (int d = 0; d < kND; ++d) {
          int c = e * kND + d;
          if (c >= cells) { md << " |"; continue; }
          const int cw = winner(c, l1);  // the best concrete mechanism of the cell
          const double a = loss(c, static_cast<size_t>(auto_col), l1);
          const double b = best_bench(c, l1);
          const double m = cw >= 0 ? loss(c, static_cast<size_t>(cw), l1) : INFINITY;
          const Result* r = by[static_cast<size_t>(c)][static_cast<size_t>(l1 ? col_specs[static_cast<size_t>(auto_col)].first : col_specs[static_cast<size_t>(auto_col)].second)];
          std::string chosen = r && r->ok ? r->chosen : "-";
          const size_t paren = chosen.find('(');
          if (paren != std::string::npos) chosen = chosen.substr(0, paren);
          if (std::isnan(a) || !std::isfinite(b)) { md << " - |"; continue; }
          ++compared;
          if (a > m * (1 + 1e-9)) ++auto_beaten;
          if (b < a) ++bench_better;
          if (cw >= 0 && (cols[static_cast<size_t>(cw)].name == "multi_gaussian" || cols[static_cast<size_t>(cw)].name == "quasi_gaussian")) ++mixture_wins;
          if (cw >= 0 && std::find(bench.begin(), bench.end(), cw) != bench.end()) ++new_wins;
          char cell[96];
          std::snprintf(cell, sizeof(cell), " %.2f %s |", a / b, chosen.c_str());
          md << cell;
        }
        md << "\n";
      }
      md << "\nIn " << compared << " cells: the best single mechanism is a Gaussian mixture (multi_gaussian or "
            "quasi_gaussian) in " << mixture_wins << ", one of truncated_laplace, tulap and staircase in " << new_wins
         << "; a benchmark has less noise than auto in " << bench_better << "; auto is beaten by some single "
            "mechanism dpagg has in " << auto_beaten << " (goal: 0).\n";
      std::printf("compare (%s): mixtures win %d cells, truncated_laplace/tulap/staircase %d, auto beaten in %d of %d\n",
                  l1 ? "l1" : "l2", mixture_wins, new_wins, auto_beaten, compared);
    }
  }
  std::printf("compare: %zu calibrations in %.0f s; wrote %s/mechanisms.csv and mechanisms.md\n", n, total_s,
              out.c_str());
  return 0;
}
