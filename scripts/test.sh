#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs the C++ unit tests of the core, then
# the pg_regress suite in a throwaway PostgreSQL 15 cluster (pg_virtualenv), then the ledger's
# durability and concurrency script (tests/ledger/run.sh) in another, then the shared
# calibrations' script (tests/calibrations/run.sh) in a third, and the attacks that need a
# real cluster and the extended protocol (tests/security/run.sh) in a fourth.
# Ends with one line "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
mkdir -p build
passed=0; failed=0; status=0

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

echo "== ledger durability and concurrency (tests/ledger/run.sh, a real throwaway cluster) =="
lstatus=0
tests/ledger/run.sh 2>&1 | tee build/ledger.log || lstatus=1
lp=$(grep -c '^ok ' build/ledger.log || true)
lf=$(grep -c '^not ok ' build/ledger.log || true)
if [ "$lstatus" -ne 0 ]; then status=1; [ "$lf" -eq 0 ] && lf=1; fi
passed=$((passed + lp)); failed=$((failed + lf))

echo "== shared calibrations (tests/calibrations/run.sh, a real throwaway cluster) =="
cstatus=0
tests/calibrations/run.sh 2>&1 | tee build/calibrations.log || cstatus=1
cp_=$(grep -c '^ok ' build/calibrations.log || true)
cf_=$(grep -c '^not ok ' build/calibrations.log || true)
if [ "$cstatus" -ne 0 ]; then status=1; [ "$cf_" -eq 0 ] && cf_=1; fi
passed=$((passed + cp_)); failed=$((failed + cf_))

echo "== attacks that need a real cluster (tests/security/run.sh) =="
sstatus=0
tests/security/run.sh 2>&1 | tee build/security.log || sstatus=1
sp_=$(grep -c '^ok ' build/security.log || true)
sf_=$(grep -c '^not ok ' build/security.log || true)
if [ "$sstatus" -ne 0 ]; then status=1; [ "$sf_" -eq 0 ] && sf_=1; fi
passed=$((passed + sp_)); failed=$((failed + sf_))

echo "$passed passed, $failed failed"
exit $status
