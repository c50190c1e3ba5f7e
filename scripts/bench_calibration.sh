#!/usr/bin/env bash
# Calibration benchmark: how long dpagg takes to calibrate a mechanism, cold and repeated.
#
#   scripts/bench_calibration.sh [--quick] [--max-reps N]      (or: make bench-calibration)
#
# A benchmark command, not a test: it prints tables and exits 0 whatever the figures are.
#
# 1. Cold (build/bench_calibration, tools/bench_calibration.cpp; no PostgreSQL): median wall-clock
#    time of a fresh dpagg::calibrate() for quasi_gaussian, multi_gaussian(k=10), multi_gaussian(k=20),
#    multi_gaussian (best K), auto (and analytic_gaussian for reference), for
#    epsilon in {0.5, 1, 2, 5, 10} x delta in {1e-5, 1e-8, 1e-10}, sensitivity 1 (+ n 1e-12, unique
#    per call, so that the best-K scan's one-entry memo is never hit: every call is cold).  5-11 repetitions per cell, fewer for cells that take seconds
#    (see the binary's header).  Targets: quasi <= 0.1 ms, multi one K <= 10 ms, auto <= 100 ms.
# 2. Repeated: the PostgreSQL glue caches calibrations per backend (src/pg/dpagg.c,
#    dpagg_calibrate_cached).  Measured through SQL, as a user sees it: in a throw-away cluster
#    (pg_virtualenv -t -v 15), a PL/pgSQL loop calls dp_calibrate('auto', 1, 1e-5) 10000 times
#    (after one cold call that fills the cache), 5 rounds (a round stops after 20 s); reported in
#    microseconds per call (median round), beside the same loop around dp_calibrate of other
#    mechanisms, around a trivial function (the loop's own cost), and dp_sum vs sum on a one-row
#    input (tools/bench_calibration_repeated.sql).  Target <= 5 us.
#    This needs the extension installed in the local PostgreSQL 15: if it is missing, or differs
#    from this tree's dpagg.so, the script runs `make install` when it is root (BENCH_INSTALL=0:
#    never), else it skips this part.  BENCH_SQL=0 skips it too; then the document keeps the
#    repeated-calibration section of the previous document (if any), marked as carried over.
#
# Writes docs/calibration_benchmark.md (BENCH_DOC=path to write elsewhere, BENCH_DOC=- not at all)
# and build/bench_calibration.csv (every single timing).  --quick: one repetition on a reduced grid
# (a smoke test of the command; its figures are not a measurement).  A full run takes ~4-8 minutes
# on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
DOC=${BENCH_DOC:-docs/calibration_benchmark.md}
ARGS=("$@")
for a in "${ARGS[@]}"; do
  case "$a" in
    --quick|--max-reps|[0-9]*) ;;
    *) echo "usage: scripts/bench_calibration.sh [--quick] [--max-reps N]" >&2; exit 2 ;;
  esac
done

make -s build/bench_calibration PG_CONFIG="$PG_CONFIG"
mkdir -p build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
started=$(date +%s)

echo "== cold calibration (build/bench_calibration ${ARGS[*]:-}) =="
build/bench_calibration --markdown "$tmp/cold.md" --csv build/bench_calibration.csv "${ARGS[@]}"

# ---- repeated calibration through SQL ---------------------------------------------------------
echo
echo "== repeated calibration through SQL (tools/bench_calibration_repeated.sql) =="
sql_status="not measured"
repeated=""
if [ "${BENCH_SQL:-1}" = 0 ]; then
  sql_status="skipped (BENCH_SQL=0)"
elif ! command -v pg_virtualenv >/dev/null; then
  sql_status="skipped: pg_virtualenv not found (package postgresql-common; scripts/install-deps.sh)"
else
  pkglib=$("$PG_CONFIG" --pkglibdir)
  share=$("$PG_CONFIG" --sharedir)
  installed=yes
  if [ ! -f "$share/extension/dpagg.control" ] || [ ! -f "$pkglib/dpagg.so" ]; then
    installed=no
  elif [ -f dpagg.so ] && ! make -q all PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1; then
    installed=stale   # the tree changed since dpagg.so was built
  elif [ -f dpagg.so ] && ! cmp -s dpagg.so "$pkglib/dpagg.so"; then
    installed=stale
  fi
  if [ "$installed" != yes ] && [ "${BENCH_INSTALL:-1}" != 0 ] && [ "$(id -u)" = 0 ]; then
    echo "(extension $installed in $PG_CONFIG's PostgreSQL: running make install)"
    if make -s -j2 install PG_CONFIG="$PG_CONFIG" >"$tmp/install.log" 2>&1; then installed=yes
    else tail -20 "$tmp/install.log" >&2; fi
  fi
  if [ "$installed" = no ]; then
    sql_status="skipped: dpagg is not installed in PostgreSQL 15 (run make install as root)"
  else
    [ "$installed" = stale ] && echo "(warning: the installed dpagg.so is not this tree's build; measuring the installed one)"
    if pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg psql -X -q -f tools/bench_calibration_repeated.sql >"$tmp/repeated.out" 2>&1; then
      repeated=$(grep -o 'DPAGG_BENCH.*' "$tmp/repeated.out" | sed 's/DPAGG_BENCH//' | tr '\n' ' ' || true)
    fi
    if [ -z "$repeated" ]; then
      cat "$tmp/repeated.out" >&2
      sql_status="failed (see the output above)"
    else
      sql_status="measured"
    fi
  fi
fi

val() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $repeated"; }
if [ -n "$repeated" ]; then
  verdict() { awk -v r="$1" 'BEGIN { print (r <= 5) ? "meets" : "misses" }'; }
  auto_cut=""
  [ "$(val auto_calls)" != 10000 ] && auto_cut="; a round stopped at 20 s after $(val auto_calls) calls"
  extra=$(awk -v a="$(val dpsum_us)" -v b="$(val sum_us)" 'BEGIN { printf "%.2f", a - b }')
  table=$(cat <<EOF
| figure (a PL/pgSQL loop in one backend; median of 5 rounds of 10000 calls) | us per call | target |
|---|---:|---|
| repeated \`dp_calibrate('auto', 1, 1e-5)\` (rounds $(val auto_lo) to $(val auto_hi)$auto_cut) | **$(val auto_us)** | <= 5 us: $(verdict "$(val auto_us)") |
| repeated \`dp_calibrate('multi_gaussian', 1, 1e-5)\` (cache hit; rounds $(val multi_lo) to $(val multi_hi)) | **$(val multi_us)** | <= 5 us: $(verdict "$(val multi_us)") |
| repeated \`dp_calibrate('laplace', 1, 1e-5)\` (cache hit; rounds $(val laplace_lo) to $(val laplace_hi)) | $(val laplace_us) | |
| the loop alone, around \`abs(1.0)\` (included in every row) | $(val loop_us) | |
| \`dp_sum(x, 1, 1e-5, 1.0)\` on a one-row input (default mechanism auto, cached calibration) | $(val dpsum_us) | |
| \`sum(x)\` on the same input | $(val sum_us) | |
| difference: what a repeated dp_sum adds (cache lookup, the ledger charge of the release — record, CRC, write; no fsync in this fsync=off cluster — noise draw, snapping) | $extra | not a calibration figure |
| the first (cold) \`dp_calibrate('auto', 1, 1e-5)\` of the session | $(val cold_us) | auto <= 100 ms cold |
EOF
)
else
  table="Repeated calibration: $sql_status."
fi
echo "$table"
elapsed=$(( $(date +%s) - started ))
echo
echo "benchmark done in ${elapsed} s"

# ---- the document -----------------------------------------------------------------------------
# BENCH_SQL=0: carry over the previous document's repeated-calibration section (not re-measured).
carried=""
if [ "${BENCH_SQL:-1}" = 0 ] && [ "$DOC" != "-" ] && [ -f "$DOC" ] &&
   grep -q '^## Repeated calibration' "$DOC"; then
  prev_gen=$(sed -n 's/^Generated by .* on \(.*\)\.$/\1/p' "$DOC" | head -1)
  prev_commit=$(sed -n 's/^dpagg commit \([0-9a-f]*\).*/\1/p' "$DOC" | head -1)
  carried=$(awk '/^## Repeated calibration/ { on = 1; next } /^## / { on = 0 } on' "$DOC" | sed '/./,$!d')
fi
if [ "$DOC" != "-" ]; then
  mkdir -p "$(dirname "$DOC")"
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
  {
    echo "# Calibration benchmark"
    echo
    echo "Generated by \`$(echo scripts/bench_calibration.sh ${ARGS[*]:-})\` (\`make bench-calibration\`) on $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo "Machine: $(nproc) cores ($cpu), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; $(uname -sr)."
    echo "dpagg commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ' with uncommitted changes in src/'). Whole run: ${elapsed} s."
    echo
    echo "Targets: quasi_gaussian <= 0.1 ms, multi_gaussian for one K <= 10 ms, auto <= 100 ms from cold;"
    echo "a repeated (cached) calibration <= 5 us."
    echo
    echo "## Cold calibration"
    echo
    cat "$tmp/cold.md"
    echo
    echo "## Repeated calibration (the per-backend cache of the PostgreSQL glue)"
    echo
    if [ -n "$carried" ]; then
      # Already carried over once: its note names the run that measured it; keep that one.
      if ! grep -q '^\*\*Not re-measured in this run' <<<"$carried"; then
        echo "**Not re-measured in this run (BENCH_SQL=0): carried over unchanged from the previous document"
        echo "(generated ${prev_gen:-?}, dpagg commit ${prev_commit:-?}).** Its cold \`auto\` figure is that commit's."
      fi
      echo "$carried"
    else
    echo "Measured through SQL in a throw-away PostgreSQL 15 cluster (tools/bench_calibration_repeated.sql):"
    echo "PL/pgSQL loops of 10000 calls after one cold call that fills the per-backend cache.  A"
    echo "\`dp_calibrate\` figure includes the loop, the function call, the spec check, the cache lookup and"
    echo "building the result row with its jsonb details; the \`dp_sum\` − \`sum\` difference is the"
    echo "closest SQL-visible figure for the lookup itself (it also pays for drawing the noise)."
    echo
    echo "$table"
    echo
    auto_us=$(val auto_us)
    if [ -n "$auto_us" ] && awk -v a="$auto_us" 'BEGIN { exit !(a > 1000) }'; then
      echo "**Why \`dp_calibrate('auto')\` is not faster when repeated:** the calibration itself comes from the"
      echo "cache, but \`dp_calibrate\` then describes it with \`dpagg_describe\` (src/core/capi.cpp), which for a"
      echo "calibration requested as \`auto\` lists the candidates by calling \`auto_candidates\`, i.e. by"
      echo "calibrating every mechanism again, multi-Gaussian search included, on every call. The aggregates"
      echo "do not describe, so for them the cache works (the \`dp_sum\` row, default mechanism \`auto\`)."
      echo "The cached \`dp_calibrate('multi_gaussian')\` row is the cost of a cache hit seen from SQL; most of"
      echo "it is the SQL call, the JSON description and its jsonb parsing, not the lookup."
      echo
    fi
    fi
    echo "## Method"
    echo
    echo "* Cold: \`build/bench_calibration\` (tools/bench_calibration.cpp) calls \`dpagg::calibrate(spec, {epsilon, delta, 1 + n 1e-12})\`"
    echo "  directly, n unique per call, so that the one-entry memo of the best-K scan (keyed by the request) is never"
    echo "  hit and every call is a full calibration (sensitivity 1 up to 1e-12).  The first call of a cell"
    echo "  is timed too and sets the number of repetitions (t1 < 50 ms: 11, < 500 ms: 7, < 2 s: 5, < 6 s: 3,"
    echo "  otherwise 1); the table shows the median.  One calibration at a time, one thread."
    echo "* \`multi_gaussian\` without k is what \`dp_*\` aggregates use with the default objective (l2);"
    echo "  \`auto\` = \`auto(objective=l2)\`, the default mechanism; both show the mechanism they chose."
    echo "* Raw timings: build/bench_calibration.csv (not kept in the repository)."
  } >"$DOC"
  echo "wrote $DOC"
fi
