#!/usr/bin/env bash
# Report: dpagg's certified numbers on the 150-cell grid of "Mind the Gap" (Liu, Selvi & Wiesemann,
# ICML 2026; docs/mixtures.md §7), beside the paper's printed tables, with heat maps.
#
#   scripts/report.sh [--jobs N]          (or: make report)
#
# 1. Builds build/report (tools/report.cpp, linked with the core objects) and runs it: for every
#    (epsilon, delta) of the paper's grid (10 x 15, sensitivity 1) it calibrates analytic_gaussian,
#    quasi_gaussian, multi_gaussian(objective=l1|l2) and auto(objective=l1|l2), computes the
#    paper's improvement metric against the analytic Gaussian, compares with the paper's Tables
#    1, 3, 4, 5, 6 (copies in tools/data/, nothing is read from outside the repository) and
#    classifies every multi-Gaussian shortfall (see tools/report.cpp).  N worker processes
#    (default: the number of cores).
# 2. Draws the heat maps with Debian's python3-matplotlib (installed with apt-get if missing, when
#    run as root) and /usr/bin/python3 (tools/plot_report.py).
#
# Output in docs/report/: report.csv (every number), report.md (summary and the full grid),
# quasi_l1.png, quasi_l2.png, multi_l1.png, multi_l2.png, paper_multi_l1.png, paper_multi_l2.png.
# REPORT_OUT=dir writes elsewhere.  A full run takes about 10-20 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
OUT=${REPORT_OUT:-docs/report}
JOBS=$(nproc)
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) JOBS=$2; shift 2 ;;
    --cells) EXTRA+=(--cells "$2"); shift 2 ;;   # smoke test: only the first N cells
    *) echo "usage: scripts/report.sh [--jobs N]" >&2; exit 2 ;;
  esac
done

started=$(date +%s)
make -s build/report PG_CONFIG="$PG_CONFIG"
mkdir -p "$OUT"
build/report --data tools/data --out "$OUT" --jobs "$JOBS" "${EXTRA[@]}"
# Provenance line (which tree produced the numbers).
rev="$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ', with uncommitted changes in src/')"
sed -i "3a\\
Core: dpagg commit $rev. Machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))." "$OUT/report.md"

scripts/ensure-matplotlib.sh
/usr/bin/python3 tools/plot_report.py "$OUT/report.csv" "$OUT"
echo "report done in $(( $(date +%s) - started )) s; see $OUT/report.md"
