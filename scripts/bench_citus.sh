#!/usr/bin/env bash
# dpagg on Citus (docs/citus.md): native sum/avg/count against dp_sum/dp_avg/dp_count on a table of
# ROWS rows distributed by uid over two workers (a coordinator and two workers on this machine),
# and the same queries on a local copy on the coordinator: whole table, 1 000 groups (dept), and
# GROUP BY the distribution column (uid, NGROUPS groups).  Each query is timed by the client (psql's
# \timing, rows discarded): the whole distributed execution and the transfer of the answer, as an
# analyst sees it.  (EXPLAIN ANALYZE cannot time it: Citus 13 fails on it for any aggregate it
# splits with worker_partial_agg, whose cstring result its EXPLAIN ANALYZE cannot store.)  Medians
# of RUNS alternating native/dp runs, and the ratio of the fastest runs (interference on a busy
# machine only ever adds time).
#
#   scripts/bench_citus.sh [RUNS] [ROWS] [NGROUPS]     (defaults 5, 5000000, 1000000)
#
# By default every node gets the same dpagg.citus_key_file, so GROUP BY uid is released on the
# workers under the coordinator's grant (docs/citus.md §6); BENCH_CITUS_GRANTS=off leaves the key
# out and measures the forms that release on the coordinator (the direct form for GROUP BY uid).
#
# BENCH_CITUS_TABLES (default "t local_t") and BENCH_CITUS_SHAPES (a bash regular expression over
# the shape labels, e.g. "1000|whole") measure a part only; BENCH_CITUS_WARMUP (default 1) is the
# number of untimed native/dp pairs before each query's timed runs.
#
# A benchmark, not a test: prints a table and exits 0.  Needs Citus installed
# (scripts/install-citus.sh) and dpagg built and installed.  Run as root it runs itself as the user
# postgres; the clusters it makes are stopped and removed at the end.  Ports 5651-5653.
set -uo pipefail
RUNS=${1:-5}; ROWS=${2:-5000000}; NGROUPS=${3:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -eq 0 ]; then
  copy=$(mktemp /tmp/dpagg-bench-citus.XXXXXX.sh); cp "$here/bench_citus.sh" "$copy"; chmod 755 "$copy"
  runuser -u postgres -- env PATH="$PATH" "$copy" "$@"; st=$?; rm -f "$copy"; exit $st
fi
BIN=/usr/lib/postgresql/15/bin
[ -f /usr/lib/postgresql/15/lib/citus.so ] || { echo "Citus is not installed (scripts/install-citus.sh)"; exit 0; }
tmp=$(mktemp -d /tmp/dpagg-bench-citus.XXXXXX)
declare -A PORT=([c]=5651 [w1]=5652 [w2]=5653)
cleanup() {
  for c in c w1 w2; do [ -f "$tmp/$c/postmaster.pid" ] && "$BIN/pg_ctl" -D "$tmp/$c" stop -m immediate >/dev/null 2>&1; done
  rm -rf "$tmp"
}
trap cleanup EXIT
q() { local c=$1; shift; local a=(); for s in "$@"; do a+=(-c "$s"); done
      "$BIN/psql" -X -q -At -h "$tmp" -p "${PORT[$c]}" -d postgres "${a[@]}"; }
for c in c w1 w2; do
  "$BIN/initdb" -D "$tmp/$c" -A trust >/dev/null
  cat >>"$tmp/$c/postgresql.conf" <<EOF
port = ${PORT[$c]}
listen_addresses = '127.0.0.1'
unix_socket_directories = '$tmp'
shared_preload_libraries = 'citus,dpagg'
max_connections = 100
shared_buffers = 512MB
work_mem = 256MB
fsync = off
jit = off
max_parallel_workers_per_gather = 0
EOF
  if [ "${BENCH_CITUS_GRANTS:-on}" != off ]; then
    [ -n "${key:-}" ] || key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
    (umask 077; printf '%s\n' "$key" >"$tmp/$c/dpagg_citus.key")
    echo "dpagg.citus_key_file = 'dpagg_citus.key'" >>"$tmp/$c/postgresql.conf"
  fi
  "$BIN/pg_ctl" -D "$tmp/$c" -l "$tmp/$c.log" -w start >/dev/null
  q "$c" "CREATE EXTENSION citus" >/dev/null
done
q c "SELECT citus_set_coordinator_host('127.0.0.1', ${PORT[c]})" \
    "SELECT citus_add_node('127.0.0.1', ${PORT[w1]})" "SELECT citus_add_node('127.0.0.1', ${PORT[w2]})" >/dev/null
q c "CREATE EXTENSION dpagg" "SELECT dp_set_budget(current_user::regrole, 1e12, 0.5)" >/dev/null
q c "CREATE TABLE t (uid int, dept int, x float8)" "SELECT create_distributed_table('t', 'uid')" \
    "INSERT INTO t SELECT g % $NGROUPS, g % 1000, (g % 97)::float8 FROM generate_series(1, $ROWS) g" \
    "CREATE TABLE local_t AS SELECT * FROM t" "VACUUM ANALYZE t" "VACUUM ANALYZE local_t" >/dev/null
exec_ms() { "$BIN/psql" -X -q -h "$tmp" -p "${PORT[c]}" -d postgres -c '\timing on' -c "$1" 2>&1 |
            sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "$ROWS rows, distributed by uid over 2 workers (and a local copy); medians of $RUNS alternating runs, ms; worker-side releases ${BENCH_CITUS_GRANTS:-on}"
printf '%-8s %-28s %10s %10s %7s %9s\n' table shape native dp ratio "min ratio"
for tbl in ${BENCH_CITUS_TABLES:-t local_t}; do
  for shape in "whole table|" "1000 groups|dept," "GROUP BY uid ($NGROUPS)|uid,"; do
    label=${shape%%|*}; key=${shape#*|}; grp=""; [ -n "$key" ] && grp="GROUP BY ${key%,}"
    [[ "$label" =~ ${BENCH_CITUS_SHAPES:-.} ]] || continue
    for pair in "sum(x)|dp_sum(x, 1, 1e-5, 0, 100)" "avg(x)|dp_avg(x, 1, 1e-5, 0, 100)" "count(*)|dp_count(1, 1e-5)"; do
      nat=${pair%%|*}; dp=${pair#*|}
      for _ in $(seq 1 "${BENCH_CITUS_WARMUP:-1}"); do
        exec_ms "SELECT $key $nat FROM $tbl $grp" >/dev/null; exec_ms "SELECT $key $dp FROM $tbl $grp" >/dev/null
      done
      nt=(); dt=()
      for _ in $(seq 1 "$RUNS"); do
        nt+=("$(exec_ms "SELECT $key $nat FROM $tbl $grp")"); dt+=("$(exec_ms "SELECT $key $dp FROM $tbl $grp")")
      done
      mn=$(printf '%s\n' "${nt[@]}" | median); md=$(printf '%s\n' "${dt[@]}" | median)
      # the ratio of the fastest runs too: on a busy machine interference only ever adds time
      minn=$(printf '%s\n' "${nt[@]}" | sort -g | head -1); mind=$(printf '%s\n' "${dt[@]}" | sort -g | head -1)
      printf '%-8s %-28s %10.1f %10.1f %7.2f %9.2f\n' "$tbl" "$label: ${nat%%(*}" "$mn" "$md" \
        "$(awk -v a="$md" -v b="$mn" 'BEGIN{print a/b}')" "$(awk -v a="$mind" -v b="$minn" 'BEGIN{print a/b}')"
    done
  done
done
