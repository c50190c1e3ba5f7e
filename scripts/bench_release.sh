#!/usr/bin/env bash
# The latency a release adds (docs/benchmarks.md): dp_count of one row against count(*) of the same row,
# through pgbench over a Unix socket, one client and 16, with synchronous_commit = on and
# fsync = on; first on a lone primary, then with a synchronous standby (streaming, on this
# machine).  Medians of the per-transaction latencies of ROUNDS alternating runs of SECONDS each.
#
#   scripts/bench_release.sh [ROUNDS] [SECONDS]      (defaults 3 and 5; after scripts/build.sh)
#
# A benchmark, not a test: it prints a table and exits 0.  Run as root it runs itself as the user
# postgres; the clusters it makes are stopped and removed at the end.
set -uo pipefail
ROUNDS=${1:-3}; SECONDS_EACH=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -eq 0 ]; then
  copy=$(mktemp /tmp/dpagg-bench-release.XXXXXX.sh); cp "$here/bench_release.sh" "$copy"; chmod 755 "$copy"
  runuser -u postgres -- env PATH="$PATH" "$copy" "$@"; st=$?; rm -f "$copy"; exit $st
fi
BIN=/usr/lib/postgresql/15/bin
tmp=$(mktemp -d /tmp/dpagg-bench-release.XXXXXX)
cleanup() {
  for c in primary standby; do [ -f "$tmp/$c/postmaster.pid" ] && "$BIN/pg_ctl" -D "$tmp/$c" stop -m immediate >/dev/null 2>&1; done
  rm -rf "$tmp"
}
trap cleanup EXIT
q() { "$BIN/psql" -X -q -At -h "$tmp" -p "$1" -d postgres -c "$2"; }

"$BIN/initdb" -D "$tmp/primary" -A trust >/dev/null
cat >>"$tmp/primary/postgresql.conf" <<EOF
port = 5611
listen_addresses = ''
unix_socket_directories = '$tmp'
shared_preload_libraries = 'dpagg'
max_connections = 60
wal_level = replica
max_wal_senders = 4
fsync = on
synchronous_commit = on
EOF
"$BIN/pg_ctl" -D "$tmp/primary" -l "$tmp/primary.log" -w start >/dev/null
q 5611 "CREATE EXTENSION dpagg" >/dev/null
q 5611 "CREATE TABLE one AS SELECT 1.0::float8 AS x" >/dev/null
q 5611 "SELECT dp_set_budget(current_user::regrole, 1e12, 0)" >/dev/null
echo "SELECT dp_count(0.001, 0, 'laplace') FROM one;" >"$tmp/dp.sql"
echo "SELECT count(*) FROM one;" >"$tmp/native.sql"

run() {  # run <script> <clients> -> median latency in microseconds
  rm -f "$tmp"/pgbench_log.*
  (cd "$tmp" && "$BIN/pgbench" -h "$tmp" -p 5611 -n -f "$1" -c "$2" -j 2 -T "$SECONDS_EACH" -l postgres >/dev/null 2>&1)
  cat "$tmp"/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "NaN")}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "NaN")}'; }
measure() {  # measure <label>
  local c dp nat dps nats
  for c in 1 16; do
    dps=(); nats=()
    for _ in $(seq 1 "$ROUNDS"); do
      dps+=("$(run "$tmp/dp.sql" "$c")"); nats+=("$(run "$tmp/native.sql" "$c")")
    done
    dp=$(printf '%s\n' "${dps[@]}" | median); nat=$(printf '%s\n' "${nats[@]}" | median)
    printf '%-34s %7s %12s %12s %12s\n' "$1" "$c" "$nat" "$dp" "$((dp - nat))"
  done
}
echo "latency per query, median of $ROUNDS alternating runs of ${SECONDS_EACH}s (microseconds)"
printf '%-34s %7s %12s %12s %12s\n' setup clients "count(*)" dp_count added
measure "primary alone"

"$BIN/pg_basebackup" -h "$tmp" -p 5611 -D "$tmp/standby" -X stream -c fast >/dev/null 2>&1
cat >>"$tmp/standby/postgresql.conf" <<EOF
port = 5612
primary_conninfo = 'host=$tmp port=5611 application_name=s1'
EOF
touch "$tmp/standby/standby.signal"
"$BIN/pg_ctl" -D "$tmp/standby" -l "$tmp/standby.log" -w start >/dev/null
q 5611 "ALTER SYSTEM SET synchronous_standby_names = 's1'" >/dev/null
q 5611 "SELECT pg_reload_conf()" >/dev/null
sleep 1
echo "# standby: $(q 5611 "SELECT application_name || ' ' || sync_state FROM pg_stat_replication")"
measure "synchronous standby (remote_flush)"
