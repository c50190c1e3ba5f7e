#!/usr/bin/env bash
# Every mechanism dpagg implements on the 150-cell grid of Liu, Selvi & Wiesemann's "Mind the Gap"
# (epsilon x delta, sensitivity 1; docs/mixtures.md §7): certified l1 and l2 of each, relative to
# the analytic Gaussian, and the winner per cell.
#
#   scripts/compare.sh [--jobs N] [--cells N]          (or: make compare)
#
# Writes docs/report/mechanisms.csv, mechanisms.md and mechanisms.png (REPORT_OUT=dir elsewhere).
# The plot needs Debian's python3-matplotlib (installed with apt-get when run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
OUT=${REPORT_OUT:-docs/report}
mkdir -p "$OUT"
make -s build/compare PG_CONFIG="$PG_CONFIG"
build/compare --out "$OUT" "$@"
rev="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
sed -i "2a\\
Core: dpagg commit $rev. Machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))." "$OUT/mechanisms.md"
scripts/ensure-matplotlib.sh
/usr/bin/python3 tools/plot_compare.py "$OUT/mechanisms.csv" "$OUT/mechanisms.png"
echo "see $OUT/mechanisms.md and $OUT/mechanisms.png"
