#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs the C++ unit tests of the core, then
# the pg_regress suite in a throwaway PostgreSQL 15 cluster (pg_virtualenv), then the ledger's
# durability and concurrency script (tests/ledger/run.sh) in another, then the shared
# calibrations' script (tests/calibrations/run.sh) in a third, and the attacks that need a
# real cluster and the extended protocol (tests/security/run.sh) in a fourth, and
# the protection of private relations across pg_dump and restore (tests/dump/run.sh) in a fifth,
# a curious analyst's attacks on a restricted role (tests/restricted/run.sh) in a sixth, and
# the ledger's replication, failover and recovery (tests/wal/run.sh) on clusters of its own, the
# ledgers written by earlier releases (tests/ledger_fixture/run.sh), and
# dpagg on Citus (tests/citus/run.sh: it builds Citus from ../shared/vendor when it is not
# installed, and says it skipped when it can do neither), two-sided noise checks of every
# release path (tests/noise/run.sh) and the statistical DP tester (tests/dp_tester/run.sh,
# docs/dp_tester.md), the upgrade of every kept release (tests/upgrade/run.sh, docs/versions.md),
# the README and the guides as written (tests/readme/run.sh: every sql block, in order),
# the Debian package (tests/package/run.sh: built, lintian-clean, installed, the SQL tests run on
# it, removed), and last mutation testing (tests/mutation/run.sh, docs/mutation.md).
# Ends with one line "N passed, N failed, N skipped" (skipped: cluster scripts that could not run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
mkdir -p build
passed=0; failed=0; skipped=0; status=0

echo "== unit tests (GoogleTest) =="
if make -s -j"$(nproc)" unit PG_CONFIG="$PG_CONFIG" 2>&1 | tee build/unit.log; then :; else status=1; fi
n=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' build/unit.log | tail -1)
f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' build/unit.log | tail -1)
passed=$((passed + ${n:-0})); failed=$((failed + ${f:-0}))
if [ "$status" -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); fi

echo "== SQL tests (pg_regress) =="
rstatus=0
pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg make -s installcheck PG_CONFIG="$PG_CONFIG" 2>&1 | tee build/regress.log || rstatus=1
if [ "$rstatus" -ne 0 ]; then
  status=1
  [ -f build/regress/regression.diffs ] && cat build/regress/regression.diffs
fi
# pg_regress prints "ok" / "FAILED" per test
rp=$(grep -cE '^ok |^test .* \.\.\. ok|^ +[0-9a-z_]+ +\.\.\. ok' build/regress.log || true)
rf=$(grep -cE 'FAILED|failed \(ignored\)' build/regress.log || true)
if [ "$rstatus" -ne 0 ] && [ "$rf" -eq 0 ]; then rf=1; fi
passed=$((passed + rp)); failed=$((failed + rf))

# A script against a real throwaway cluster: prints "ok N - ..." / "not ok N - ..." lines.
cluster_script() {  # cluster_script <title> <script> <log>
  local st=0 p f
  echo "== $1 ($2, a real throwaway cluster) =="
  "$2" 2>&1 | tee "build/$3" || st=1
  p=$(grep -c '^ok ' "build/$3" || true)
  f=$(grep -c '^not ok ' "build/$3" || true)
  # a script that could not run (Citus without Citus or its source) says so: counted, not hidden
  if grep -q '(skipped)$' "build/$3"; then skipped=$((skipped + 1)); fi
  if [ "$st" -ne 0 ]; then status=1; [ "$f" -eq 0 ] && f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
}
cluster_script "ledger durability and concurrency" tests/ledger/run.sh ledger.log
cluster_script "shared calibrations" tests/calibrations/run.sh calibrations.log
cluster_script "attacks that need a real cluster and the wire protocol" tests/security/run.sh security.log
cluster_script "protection across pg_dump and restore" tests/dump/run.sh dump.log
cluster_script "a curious analyst against a restricted role" tests/restricted/run.sh restricted.log
cluster_script "the ledger in the WAL: standby, synchronous standby, failover, PITR, pg_rewind, migration" tests/wal/run.sh wal.log
cluster_script "a ledger written by each released version, read and replayed by this one" tests/ledger_fixture/run.sh ledger_fixture.log
cluster_script "dpagg on Citus: a coordinator and two workers (skipped without Citus or its source)" tests/citus/run.sh citus.log
cluster_script "two-sided noise checks of every release path against its calibration" tests/noise/run.sh noise.log
cluster_script "the statistical DP tester: neighbouring databases, many releases, the privacy loss bounded" tests/dp_tester/run.sh dp_tester.log
cluster_script "upgrades: every kept release updated to the current one, identical to a fresh install" tests/upgrade/run.sh upgrade.log
cluster_script "the README and the guides as written: every sql block run in order, in a fresh cluster" tests/readme/run.sh readme.log
cluster_script "the Debian package: built, lintian-clean, installed, the SQL tests on it, removed" tests/package/run.sh package.log

# The mutation catalog (tests/mutation/faults.py, docs/mutation.md) still fits the code: every
# fault's text occurs exactly once, so a change that moves it must update its fault.
echo "== the mutation catalog fits the code =="
if python3 tests/mutation/faults.py > build/mutation_catalog.log 2>&1; then
  passed=$((passed + 1)); tail -1 build/mutation_catalog.log
else
  failed=$((failed + 1)); status=1; cat build/mutation_catalog.log
fi

# The glue's folders keep their one-way order and its files their size (docs/architecture.md),
# the documentation holds together (links resolve, cited documents exist, no issue numbers), and
# the SQL surface does not change without a version and its upgrade script (docs/versions.md).
for check in check_layers check_docs check_versions check_meta; do
  echo "== scripts/$check.py =="
  if python3 "scripts/$check.py" > "build/$check.log" 2>&1; then
    passed=$((passed + 1)); tail -1 "build/$check.log"
  else
    failed=$((failed + 1)); status=1; cat "build/$check.log"
  fi
done

# Mutation testing (docs/mutation.md): every fault of the catalog planted, the library rebuilt and
# installed, and the tests that should see it run; a fault no test sees fails the suite.  Last,
# and only on a suite that passed so far: the killers must pass on the source as it is (they just
# did, so the runner's own baseline is skipped), and it swaps the installed library (the original
# is built and installed again at its end).  DPAGG_MUTATION=0 skips it (counted as skipped), for
# a quicker local run; CI runs it.
if [ "${DPAGG_MUTATION:-1}" = 0 ]; then
  echo "== mutation testing (skipped: DPAGG_MUTATION=0) =="
  skipped=$((skipped + 1))
elif [ "$status" -ne 0 ]; then
  echo "== mutation testing (skipped: the suite failed above, so its killers cannot judge) =="
  skipped=$((skipped + 1))
else
  export MUTATION_BASELINE=0
  cluster_script "mutation testing: every fault of tests/mutation/faults.py killed" tests/mutation/run.sh mutation.log
fi

echo "$passed passed, $failed failed, $skipped skipped"
exit $status
