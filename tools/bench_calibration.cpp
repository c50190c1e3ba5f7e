// bench_calibration — cold calibration times of dpagg's mechanisms (no PostgreSQL involved).
//
//   build/bench_calibration [--max-reps N] [--csv FILE] [--markdown FILE] [--quick]
//
// Built and run by `make bench-calibration` / scripts/bench_calibration.sh (which also measures the
// repeated, cached case through SQL).  For every mechanism and every (epsilon, delta) of the grid
// epsilon in {0.5, 1, 2, 5, 10} x delta in {1e-5, 1e-8, 1e-10} (sensitivity 1) it times
// dpagg::calibrate(spec, request) by wall clock and reports the median over the repetitions.
//
// "Cold" means a fresh calibration each time.  The only calibration cache is the per-backend table
// of the PostgreSQL glue (src/pg/dpagg.c), but the core keeps a one-entry memo of the best-K scan of
// multi_gaussian (keyed by epsilon, delta, sensitivity; auto asks for the estimate, then calibrates
// the same request).  So that every timed call redoes the whole computation, each call uses its own
// sensitivity 1 + n 1e-12 (n unique per mechanism and repetition): the mechanisms are
// scale-equivariant, so the work is that of sensitivity 1.
//
// Repetitions: the first call is timed; its duration t1 sets how many calls are timed in all
// (t1 < 50 ms: 11; < 500 ms: 7; < 2 s: 5; < 6 s: 3; otherwise 1), capped by --max-reps.  The median
// of those is reported.  Everything runs on one thread, one calibration at a time, so the two
// cores do not compete.
//
// Output: a markdown table (to stdout, and to FILE with --markdown) with the targets next to the
// figures, and with --csv every single timing.  --quick times one repetition of a reduced grid
// (a smoke test of the command, not a measurement).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "registry.h"

namespace {

struct Mech {
  const char* spec;
  const char* label;
  double target_ms;  // <= 0: no target of its own
  const char* target_text;
};

const Mech kMechs[] = {
    {"analytic_gaussian", "analytic_gaussian (reference)", 0, "none"},
    {"quasi_gaussian", "quasi_gaussian", 0.1, "<= 0.1 ms"},
    {"multi_gaussian(k=10)", "multi_gaussian(k=10)", 10, "<= 10 ms"},
    {"multi_gaussian(k=20)", "multi_gaussian(k=20)", 10, "<= 10 ms"},
    {"multi_gaussian", "multi_gaussian (best K, objective l2)", 0, "none (part of auto)"},
    {"auto", "auto (objective l2)", 100, "<= 100 ms"},
};

const double kEps[] = {0.5, 1, 2, 5, 10};
const double kDelta[] = {1e-5, 1e-8, 1e-10};

double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  f >> a >> b >> c;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", a, b, c);
  return buf;
}

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

int reps_for(double t1_ms, int max_reps) {
  int n = t1_ms < 50 ? 11 : t1_ms < 500 ? 7 : t1_ms < 2000 ? 5 : t1_ms < 6000 ? 3 : 1;
  return std::max(1, std::min(n, max_reps));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt_ms(double ms) {
  char buf[64];
  if (ms < 1) std::snprintf(buf, sizeof(buf), "%.3f", ms);
  else if (ms < 100) std::snprintf(buf, sizeof(buf), "%.1f", ms);
  else std::snprintf(buf, sizeof(buf), "%.0f", ms);
  return buf;
}

struct Cell {
  double med_ms, min_ms, max_ms, cpu_med_ms;
  int reps;
  std::string chosen;  // the spec dpagg actually used
};

}  // namespace

int main(int argc, char** argv) {
  int max_reps = 11;
  bool quick = false;
  std::string csv_path, md_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--max-reps" && i + 1 < argc) max_reps = std::atoi(argv[++i]);
    else if (a == "--csv" && i + 1 < argc) csv_path = argv[++i];
    else if (a == "--markdown" && i + 1 < argc) md_path = argv[++i];
    else if (a == "--quick") quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--max-reps N] [--csv FILE] [--markdown FILE] [--quick]\n", argv[0]);
      return 2;
    }
  }
  if (max_reps < 1) max_reps = 1;
  if (quick) max_reps = 1;

  std::vector<double> eps(std::begin(kEps), std::end(kEps));
  std::vector<double> dels(std::begin(kDelta), std::end(kDelta));
  if (quick) {
    eps = {1, 10};
    dels = {1e-5};
  }

  std::FILE* csv = nullptr;
  if (!csv_path.empty()) {
    csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) {
      std::perror(csv_path.c_str());
      return 1;
    }
    std::fprintf(csv, "mechanism,epsilon,delta,rep,wall_ms,cpu_ms,chosen_spec,scale\n");
  }

  const double t_start = now_ms();
  const std::string load_start = loadavg();
  const size_t nm = sizeof(kMechs) / sizeof(kMechs[0]);
  std::vector<std::vector<Cell>> cells(nm);
  for (size_t m = 0; m < nm; ++m) {
    for (double e : eps) {
      for (double d : dels) {
        std::vector<double> times, cpu;
        Cell c{};
        int reps = 1;
        for (int r = 0; r < reps; ++r) {
          static long unique = 0;
          dpagg::PrivacyRequest req{e, d, 1.0 + 1e-12 * static_cast<double>(++unique), false};
          double c0 = cpu_ms(), t0 = now_ms();
          dpagg_calibration cal = dpagg::calibrate(kMechs[m].spec, req);
          double t = now_ms() - t0, tc = cpu_ms() - c0;
          cpu.push_back(tc);
          if (r == 0) {
            reps = reps_for(t, max_reps);
            c.chosen = cal.spec;
          }
          times.push_back(t);
          if (csv)
            std::fprintf(csv, "%s,%g,%g,%d,%.6f,%.6f,%s,%.10g\n", kMechs[m].spec, e, d, r, t, tc, cal.spec,
                         cal.scale);
        }
        c.med_ms = median(times);
        c.cpu_med_ms = median(cpu);
        c.min_ms = *std::min_element(times.begin(), times.end());
        c.max_ms = *std::max_element(times.begin(), times.end());
        c.reps = static_cast<int>(times.size());
        cells[m].push_back(c);
        std::fprintf(stderr, "  %-22s eps=%-4g delta=%-6g median %10s ms over %2d  (%s)\n",
                     kMechs[m].spec, e, d, fmt_ms(c.med_ms).c_str(), c.reps, c.chosen.c_str());
        std::fflush(stderr);
      }
    }
  }
  const double total_s = (now_ms() - t_start) / 1000;
  const std::string load_end = loadavg();
  if (csv) std::fclose(csv);

  // ---- the table ------------------------------------------------------------------------------
  std::ostringstream out;
  char date[64];
  std::time_t tt = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M %Z", std::localtime(&tt));
  out << "Cold calibration times, sensitivity 1 (+ n 1e-12, unique per call, so that no memo is hit; median wall "
         "clock in ms; repetitions in parentheses).\n";
  out << "Measured " << date << " by build/bench_calibration, one calibration at a time on one thread"
      << (quick ? " (--quick: smoke run, 1 repetition, reduced grid)" : "") << ".\n\n";
  out << "| mechanism | target (cold) | epsilon |";
  for (double d : dels) out << " delta = " << d << " |";
  out << "\n|---|---|---:|";
  for (size_t j = 0; j < dels.size(); ++j) out << "---:|";
  out << "\n";
  for (size_t m = 0; m < nm; ++m) {
    size_t idx = 0;
    for (size_t i = 0; i < eps.size(); ++i) {
      out << "| " << (i == 0 ? kMechs[m].label : "") << " | " << (i == 0 ? kMechs[m].target_text : "")
          << " | " << eps[i] << " |";
      for (size_t j = 0; j < dels.size(); ++j, ++idx) {
        const Cell& c = cells[m][idx];
        bool miss = kMechs[m].target_ms > 0 && c.med_ms > kMechs[m].target_ms;
        out << " " << (miss ? "**" : "") << fmt_ms(c.med_ms) << (miss ? "**" : "") << " (" << c.reps
            << ")";
        const bool shows_choice = std::strcmp(kMechs[m].spec, "multi_gaussian") == 0 ||
                                  std::strcmp(kMechs[m].spec, "auto") == 0;
        if (shows_choice) out << " `" << c.chosen << "`";
        out << " |";
      }
      out << "\n";
    }
  }
  out << "\nBold: the median misses the target.  For `multi_gaussian` and `auto` the mechanism "
         "chosen is shown after the time.\n\n";
  out << "| mechanism | target | cells within target | median of the cell medians | largest cell median | "
         "largest cell median, CPU time |\n";
  out << "|---|---|---:|---:|---:|---:|\n";
  for (size_t m = 0; m < nm; ++m) {
    std::vector<double> meds, cpus;
    int within = 0;
    for (const Cell& c : cells[m]) {
      meds.push_back(c.med_ms);
      cpus.push_back(c.cpu_med_ms);
      if (kMechs[m].target_ms > 0 && c.med_ms <= kMechs[m].target_ms) ++within;
    }
    out << "| " << kMechs[m].label << " | " << kMechs[m].target_text << " | ";
    if (kMechs[m].target_ms > 0) out << within << " / " << cells[m].size();
    else out << "-";
    out << " | " << fmt_ms(median(meds)) << " ms | "
        << fmt_ms(*std::max_element(meds.begin(), meds.end())) << " ms | "
        << fmt_ms(*std::max_element(cpus.begin(), cpus.end())) << " ms |\n";
  }
  char tot[512];
  std::snprintf(tot, sizeof(tot),
                "\nTotal time of this run: %.0f s.  Load average (1, 5, 15 min) at the start: %s; at the "
                "end: %s (2 cores: above ~1, other processes competed for the CPU and the wall-clock "
                "figures are inflated; the CPU-time column is less affected).\n",
                total_s, load_start.c_str(), load_end.c_str());
  out << tot;

  std::fflush(stderr);
  std::fputs(out.str().c_str(), stdout);
  if (!md_path.empty()) {
    std::ofstream f(md_path);
    f << out.str();
    if (!f) {
      std::perror(md_path.c_str());
      return 1;
    }
  }
  return 0;
}
