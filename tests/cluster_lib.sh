# Sourced by the scripts that test against a real throwaway cluster (tests/*/run.sh), inside
# pg_virtualenv, after they set PSQL: the check counter and its "ok N - ..." lines, a query
# helper, and the restart helpers for the cluster pg_virtualenv made ("regress").
n=0; passed=0; failed=0
check() {  # check "description" expected actual
  n=$((n + 1))
  if [ "$2" == "$3" ]; then passed=$((passed + 1)); echo "ok $n - $1"
  else failed=$((failed + 1)); echo "not ok $n - $1: expected [$2], got [$3]"; fi
}
q() { "${PSQL[@]}" -c "$1" 2>&1; }
cluster_ctl() { pg_ctlcluster 15 regress "$@"; }
wait_up() {
  for _ in $(seq 1 120); do
    if "${PSQL[@]}" -c "SELECT 1" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "server did not come back" >&2; return 1
}
