#!/usr/bin/env bash
# The statistical differential-privacy tester (docs/dp_tester.md): for every release path, two
# neighbouring databases, many releases from each through SQL, and a test of the claimed
# (epsilon, delta) with exact (Clopper-Pearson) bounds on events chosen on one half of the
# releases and tested on the other.  A path FAILS when the privacy loss the releases show
# exceeds the claim beyond what the sample explains; a correct dpagg fails a run with
# probability at most 1e-6.
#
#   tests/dp_tester/run.sh                     the test (about a minute on 2 cores)
#   DPTEST_SELFTEST=1 tests/dp_tester/run.sh   the self-test: the same releases post-processed
#                                              into broken mechanisms must be reported
#   DPTEST_GROUPS=N                            releases per database (default 200000; fewer
#                                              keep the false-failure bound but lose power)
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "dp_tester: N passed, N
# failed".  Unless DPAGG_DPTEST_INSIDE is set it runs itself in pg_virtualenv.  Needs dpagg
# installed and python3 (standard library only).
set -uo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")/../.."

if [ -z "${DPAGG_DPTEST_INSIDE:-}" ]; then
  export DPAGG_DPTEST_INSIDE=1
  exec timeout 600 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg \
       -o work_mem=256MB "$self" "$@"
fi

PSQL=(timeout 120 psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh
start=$(date +%s)

check "the Clopper-Pearson bounds agree with binomial tails summed term by term" "0" \
      "$(timeout 60 python3 tests/dp_tester/tester.py --check-math >/dev/null 2>&1; echo $?)"
check "CREATE EXTENSION dpagg" "" "$(q "CREATE EXTENSION dpagg")"

if command -v python3 >/dev/null; then
  out=$(CHECK_BASE=$n timeout 480 python3 tests/dp_tester/tester.py 2>&1)
  rc=$?
  echo "$out"
  passed=$((passed + $(grep -c '^ok ' <<<"$out"))); failed=$((failed + $(grep -c '^not ok ' <<<"$out")))
  n=$((n + $(grep -cE '^(not )?ok ' <<<"$out")))
  if [ "$rc" -ne 0 ] || ! grep -q '^# tester: ' <<<"$out"; then
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - tester.py did not finish (exit $rc)"
  fi
else
  n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - python3 is missing"
fi

echo "# $(( $(date +%s) - start )) s inside the cluster"
echo "dp_tester: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
