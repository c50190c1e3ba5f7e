#!/usr/bin/env bash
# Mutation testing (docs/mutation.md): each fault in tests/mutation/faults.py is planted in the
# source (one exact text replaced), the library is rebuilt and INSTALLED, and the tests the fault
# names as its killers are run: at least one must fail.  A fault no test notices is a hole in the
# suite, and fails this script.  The original source is put back after each fault, and the
# original library is built and installed again at the end (also on an interrupt).
#
# It swaps the installed library: run it alone, never beside another test run.
#
#   tests/mutation/run.sh                 every fault
#   tests/mutation/run.sh ID [ID ...]     the faults named
#
# Prints "ok N - <id> killed by <test>" / "not ok N - <id> ..." and ends with
# "mutation: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/as-root.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
mkdir -p build/mutation
work=$(mktemp -d)
n=0; passed=0; failed=0

build_install() { installed=1; make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >"$1" 2>&1 && as_root make -s install PG_CONFIG="$PG_CONFIG" >>"$1" 2>&1; }

restore_all() {
  # every file a fault touched goes back, then the original library is built and installed
  if [ -n "$(ls -A "$work" 2>/dev/null)" ]; then
    for f in "$work"/*.orig; do
      [ -e "$f" ] || continue
      target=$(cat "${f%.orig}.path")
      cp "$f" "$target"; touch "$target"
      rm -f "$f" "${f%.orig}.path"
    done
  fi
}
finish() {
  restore_all
  if [ "${installed:-0}" = 0 ]; then
    make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >build/mutation/restore.log 2>&1 || {
      echo "not ok - the original source does not build again (build/mutation/restore.log)"; exit 1; }
    rm -rf "$work"; return
  fi
  if ! build_install build/mutation/restore.log; then
    echo "not ok - the original source does not build again (build/mutation/restore.log)"; exit 1
  fi
  rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT TERM

# run_killer <killer> <log>: exit status 0 when the tests pass (the fault survived them)
run_killer() {
  local k=$1 log=$2
  case "$k" in
    unit) make -s -j"$(nproc)" unit PG_CONFIG="$PG_CONFIG" >"$log" 2>&1 ;;
    unit:*)
      # the unit tests the fault's GoogleTest filter names (the whole binary takes minutes)
      make -s -j"$(nproc)" build/unit_tests PG_CONFIG="$PG_CONFIG" >"$log" 2>&1 &&
        build/unit_tests --gtest_filter="${k#unit:}" >>"$log" 2>&1 ;;
    regress:all)
      rm -f build/regress/regression.diffs
      timeout 900 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg \
        make -s installcheck PG_CONFIG="$PG_CONFIG" >"$log" 2>&1 ;;
    regress:*)
      # 00_setup, the files named (their prerequisites listed first), then 99_restore_defaults
      rm -f build/regress/regression.diffs
      timeout 900 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg \
        make -s installcheck PG_CONFIG="$PG_CONFIG" \
        REGRESS="00_setup $(tr ',' ' ' <<< "${k#regress:}") 99_restore_defaults" >"$log" 2>&1 ;;
    noise:*) timeout 900 tests/noise/run.sh "${k#noise:}" >"$log" 2>&1 ;;
    *) timeout 1800 "tests/$k/run.sh" >"$log" 2>&1 ;;
  esac
}

# The killers must pass on the source as it is, or a fault "killed" by them proves nothing.
# MUTATION_BASELINE=0 skips this when the caller has just run them (scripts/test.sh).
baseline() {
  local k
  build_install build/mutation/baseline.build || { echo "not ok - the source does not build"; exit 1; }
  for k in $(for id in "${ids[@]}"; do python3 tests/mutation/plant.py --killers "$id"; done | sed 's/:.*//' | sort -u); do
    [ "$k" = regress ] && k=regress:all
    [ "$k" = unit ] && k=unit:*
    if ! run_killer "$k" "build/mutation/baseline.${k%%:*}.log"; then
      echo "not ok - the killer $k fails on the source as it is (build/mutation/baseline.*.log)"; exit 1
    fi
  done
}

python3 tests/mutation/faults.py >build/mutation/catalog.log 2>&1 || {
  echo "not ok - the fault catalog is stale: $(grep -A3 PROBLEMS build/mutation/catalog.log | tail -3)"; exit 1; }
ids=("$@")
if [ ${#ids[@]} -eq 0 ]; then
  mapfile -t ids < <(python3 tests/mutation/plant.py --ids)
fi
[ "${MUTATION_BASELINE:-1}" = 0 ] || baseline
echo "mutation: ${#ids[@]} faults"
started=$SECONDS
for id in "${ids[@]}"; do
  n=$((n + 1)); t0=$SECONDS
  log=build/mutation/$id
  # plant the fault (the file's original is kept in $work)
  if ! python3 tests/mutation/plant.py --apply "$id" "$work" >"$log.apply" 2>&1; then
    failed=$((failed + 1)); echo "not ok $n - $id: could not be planted ($(tail -1 "$log.apply"))"; continue
  fi
  # built first; installed only when a killer other than the unit tests has to run
  if ! make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >"$log.build" 2>&1; then
    failed=$((failed + 1)); echo "not ok $n - $id: the mutant does not build ($log.build)"
    restore_all; continue
  fi
  killed=""; mutant_installed=0
  mapfile -t killers < <(python3 tests/mutation/plant.py --killers "$id")
  for k in "${killers[@]}"; do
    if [ "${k%%:*}" != unit ] && [ "$mutant_installed" = 0 ]; then
      installed=1; mutant_installed=1
      as_root make -s install PG_CONFIG="$PG_CONFIG" >>"$log.build" 2>&1
    fi
    if ! run_killer "$k" "$log.${k%%:*}.log"; then killed=$k; break; fi
  done
  restore_all
  if [ -n "$killed" ]; then
    passed=$((passed + 1)); echo "ok $n - $id killed by $killed ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); echo "not ok $n - $id survived $(python3 tests/mutation/plant.py --killers "$id" | tr '\n' ' ')"
  fi
done
echo "mutation: $passed passed, $failed failed ($((SECONDS - started)) s)"
[ "$failed" -eq 0 ]
