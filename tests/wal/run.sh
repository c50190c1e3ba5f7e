#!/usr/bin/env bash
# The ledger in the WAL (docs/ledger_wal.md), on real clusters on this machine (Unix sockets only, nothing
# listens on TCP): a primary, a streaming standby made with pg_basebackup -R, a point-in-time
# recovery from an archived base backup, a failover by SIGKILL and pg_ctl promote, pg_rewind of
# the old primary, and the carrying over of an old journal file (pg_dpagg/ledger).
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "wal: N passed, N failed".
# Needs dpagg installed.  Run as root it runs itself as the user postgres (PostgreSQL refuses
# root); every server it starts is stopped on exit, and the whole script is bounded in time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -eq 0 ]; then
  # a copy the user postgres can read wherever the checkout is (the script needs nothing else)
  copy=$(mktemp /tmp/dpagg-wal-run.XXXXXX.sh); cp "$here/run.sh" "$copy"; chmod 755 "$copy"
  timeout 600 runuser -u postgres -- env PATH="$PATH" DPAGG_WAL_INSIDE=1 "$copy" "$@"; st=$?
  rm -f "$copy"; exit $st
fi
if [ -z "${DPAGG_WAL_INSIDE:-}" ]; then
  export DPAGG_WAL_INSIDE=1
  exec timeout 600 "$here/run.sh" "$@"
fi

BIN=$(/usr/lib/postgresql/15/bin/pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
tmp=$(mktemp -d /tmp/dpagg-wal.XXXXXX)
n=0; passed=0; failed=0
check() {  # check "description" expected actual
  n=$((n + 1))
  if [ "$2" == "$3" ]; then passed=$((passed + 1)); echo "ok $n - $1"
  else failed=$((failed + 1)); echo "not ok $n - $1: expected [$2], got [$3]"; fi
}
declare -A PORT=([primary]=5601 [standby]=5602 [pitr]=5603 [fresh]=5604)
started=()
cleanup() {
  for c in "${started[@]}"; do "$BIN/pg_ctl" -D "$tmp/$c" stop -m immediate >/dev/null 2>&1; done
  for c in primary standby pitr fresh upgraded early; do
    [ -f "$tmp/$c/postmaster.pid" ] && "$BIN/pg_ctl" -D "$tmp/$c" stop -m immediate >/dev/null 2>&1
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
q() {  # q <cluster> <sql>...
  local c=$1; shift
  local args=()
  for s in "$@"; do args+=(-c "$s"); done
  "$BIN/psql" -X -q -At -h "$tmp" -p "${PORT[$c]}" -d postgres "${args[@]}" 2>&1
}
as_analyst() { local c=$1; shift; q "$c" "SET SESSION AUTHORIZATION analyst" "$@"; }
start() {  # start <cluster>
  "$BIN/pg_ctl" -D "$tmp/$1" -l "$tmp/$1.log" -w -t 60 start >/dev/null || { echo "# $1 did not start"; tail -20 "$tmp/$1.log"; }
  started+=("$1")
}
conf() {  # conf <cluster>: settings for every server of the test
  cat >>"$tmp/$1/postgresql.conf" <<EOF
port = ${PORT[$1]}
listen_addresses = ''
unix_socket_directories = '$tmp'
shared_preload_libraries = 'dpagg'
wal_level = replica
max_wal_senders = 5
hot_standby = on
fsync = on
wal_log_hints = on
archive_mode = on
archive_command = 'test ! -f $tmp/archive/%f && cp %p $tmp/archive/%f'
restore_command = 'cp $tmp/archive/%f %p'
EOF
}
spent() { q "$1" "SELECT round(epsilon_spent::numeric, 6) FROM dp_budgets WHERE role = 'analyst'"; }
charges() { q "$1" "SELECT count(*) FROM dp_ledger WHERE role = 'analyst'"; }
caught_up() {  # caught_up <standby>: wait until it has replayed the primary's WAL as it is now
  local target; target=$(q primary "SELECT pg_current_wal_lsn()")
  for _ in $(seq 1 200); do
    [ "$(q "$1" "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn")" = t ] && return 0
    sleep 0.1
  done
  echo "# $1 did not catch up to $target"
}
REL="SELECT dp_count(0.5, 0, 'laplace') FROM t"   # one release of epsilon 0.5

mkdir -p "$tmp/archive"
"$BIN/initdb" -D "$tmp/primary" -A trust >/dev/null || exit 1
conf primary
start primary
q primary "CREATE EXTENSION dpagg" >/dev/null
# A standby made before the primary has a ledger, read (an empty ledger), then promoted: it makes
# its own ledger and charges (it once kept the empty one as loaded and could not).
PORT[early]=5606
"$BIN/pg_basebackup" -h "$tmp" -p "${PORT[primary]}" -D "$tmp/early" -R -X stream -c fast >/dev/null 2>&1
sed -i '/^port = /d' "$tmp/early/postgresql.conf"
printf "port = ${PORT[early]}\narchive_mode = off\n" >>"$tmp/early/postgresql.conf"
start early
check "a standby of a primary without a ledger shows an empty one" "0" "$(q early "SELECT count(*) FROM dp_budgets")"
"$BIN/pg_ctl" -D "$tmp/early" promote -w >/dev/null
check "... and once promoted, makes its own and takes budget changes" "1" \
  "$(q early "SELECT dp_set_budget(current_user::regrole, 5, 0)" >/dev/null; q early "SELECT count(*) FROM dp_budgets")"
"$BIN/pg_ctl" -D "$tmp/early" stop -m immediate >/dev/null
q primary "CREATE TABLE t AS SELECT g AS x FROM generate_series(1, 100) g" \
  "CREATE ROLE analyst LOGIN" "GRANT SELECT ON t TO analyst" "SELECT dp_set_budget('analyst', 10, 0)" >/dev/null
for _ in 1 2 3; do as_analyst primary "$REL" >/dev/null; done
"$BIN/pg_basebackup" -h "$tmp" -p "${PORT[primary]}" -D "$tmp/base" -X stream -c fast >/dev/null 2>&1
check "3 releases on the primary" "3 1.500000" "$(charges primary) $(spent primary)"

# --- a point-in-time recovery to a time before some releases ----------------------------
# Recovery to a time stops at the first transaction commit after it; charges are not
# transactions, so the test commits a transaction between the target and the later releases.
sleep 1.1
target=$(q primary "SELECT now()")
sleep 1.1
q primary "CREATE TABLE after_target ()" >/dev/null
for _ in 1 2; do as_analyst primary "$REL" >/dev/null; done
q primary "SELECT pg_switch_wal()" >/dev/null
sleep 1
cp -a "$tmp/base" "$tmp/pitr"
sed -i '/^port = /d' "$tmp/pitr/postgresql.conf"
cat >>"$tmp/pitr/postgresql.conf" <<EOF
port = ${PORT[pitr]}
archive_mode = off
restore_command = 'cp $tmp/archive/%f %p'
recovery_target_time = '$target'
recovery_target_action = 'promote'
EOF
touch "$tmp/pitr/recovery.signal"
start pitr
for _ in $(seq 1 100); do [ "$(q pitr "SELECT pg_is_in_recovery()")" = f ] && break; sleep 0.2; done
check "point-in-time recovery to a time before the last 2 releases: the earlier totals" \
  "3 1.500000" "$(charges pitr) $(spent pitr)"
check "... and the recovered server charges from there" "4 2.000000" \
  "$(as_analyst pitr "$REL" >/dev/null; charges pitr) $(spent pitr)"
"$BIN/pg_ctl" -D "$tmp/pitr" stop -m fast >/dev/null

# --- a streaming standby -----------------------------------------------------------------
# pg_basebackup -R writes standby.signal and primary_conninfo; cluster_name names the standby
# (the walreceiver's application_name) for synchronous_standby_names below.
"$BIN/pg_basebackup" -h "$tmp" -p "${PORT[primary]}" -D "$tmp/standby" -R -X stream -c fast >/dev/null 2>&1
sed -i '/^port = /d' "$tmp/standby/postgresql.conf"
printf "port = ${PORT[standby]}\narchive_mode = off\ncluster_name = 's1'\n" >>"$tmp/standby/postgresql.conf"
start standby
as_analyst primary "$REL" >/dev/null
caught_up standby
check "the standby shows the primary's ledger and totals" "6 3.000000" "$(charges standby) $(spent standby)"
out=$(as_analyst standby "$REL")
check "the standby refuses a release (25006)" 1 "$(echo "$out" | grep -c 'cannot release or change budgets on a standby')"
check "... naming the primary it replays from" 1 "$(echo "$out" | grep -c "replays from ($tmp:${PORT[primary]})")"
check "... and charges nothing anywhere" "6 6" "$(charges standby) $(charges primary)"
check "the standby refuses budget changes" 1 \
  "$(q standby "SELECT dp_set_budget('analyst', 100, 0)" | grep -c 'on a standby')"

# --- synchronous replication --------------------------------------------------------------
q primary "ALTER SYSTEM SET synchronous_standby_names = 's1'" "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
out=$(as_analyst primary "SET synchronous_commit = remote_apply" "$REL")
check "with a synchronous standby (remote_apply), a release returns a value" 1 "$(echo "$out" | grep -cE '^[0-9]+$')"
check "... and the standby has its charge when it returns" "7" "$(charges standby)"
out=$(as_analyst primary "SET synchronous_commit = local" "SET max_parallel_workers_per_gather = 2" \
  "SET parallel_setup_cost = 0" "SET parallel_tuple_cost = 0" "SET min_parallel_table_scan_size = 0" \
  "SELECT dp_count(0.5, 0, 'laplace') > -1e9 FROM t" \
  "EXPLAIN (COSTS OFF) SELECT dp_count(0.5, 0, 'laplace') FROM t")
check "a parallel plan's release waits for the standby too (raised from synchronous_commit = local)" \
  "1 1" "$(echo "$out" | grep -cx t) $(echo "$out" | grep -c Gather)"
caught_up standby
check "... and the standby has its charge" "8" "$(charges standby)"
q primary "CREATE ROLE victim LOGIN" "GRANT SELECT ON t TO victim" "SELECT dp_set_budget('victim', 1, 0)" >/dev/null
q primary "CREATE TABLE victim_t AS SELECT g AS x FROM generate_series(1, 10) g" "GRANT SELECT ON victim_t TO victim" >/dev/null
q primary "SET SESSION AUTHORIZATION victim" "$REL" >/dev/null
q primary "REVOKE ALL ON t, victim_t FROM victim" "DROP TABLE victim_t" >/dev/null
# The standby stops: a release waits for it, as a commit would, and is not returned.
"$BIN/pg_ctl" -D "$tmp/standby" stop -m fast >/dev/null
out=$(as_analyst primary "SET synchronous_commit = local" "SET statement_timeout = '2s'" "$REL")
check "standby down: a release waits for it even under synchronous_commit = local, and returns nothing" 1 \
  "$(echo "$out" | grep -c 'stopped waiting for the synchronous standby')"
check "... no value came back" 0 "$(echo "$out" | grep -cE '^[0-9]+$')"
check "... its charge is kept on the primary" "9" "$(charges primary)"
# A DROP ROLE whose commit fails in that wait (its "role dropped" record already written) leaves
# the role and its account as they were: the record takes effect only if the DROP commits.
# (statement_timeout ends before the commit: the DBA cancels the waiting DROP)
q primary "DROP ROLE victim" >"$tmp/drop.out" 2>&1 &
sleep 2
q primary "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'DROP ROLE victim'" >/dev/null
wait
out=$(cat "$tmp/drop.out")
check "a DROP ROLE cancelled while waiting for the standby fails" 1 "$(echo "$out" | grep -c 'stopped waiting')"
check "... the role and its spending remain" "1 0.500000" \
  "$(q primary "SELECT count(*) FROM pg_roles WHERE rolname = 'victim'") $(q primary "SELECT round(epsilon_spent::numeric, 6) FROM dp_budgets WHERE role = 'victim'")"
start standby
caught_up standby
check "... and reaches the standby when it is back" "9" "$(charges standby)"

# --- failover: SIGKILL the primary, promote the standby ------------------------------------
q primary "SELECT dp_set_budget('analyst', 5.5, 0)" >/dev/null    # 4.5 spent, room for 2 more
for _ in 1 2 3 4 5 6; do as_analyst primary "SET synchronous_commit = off" "$REL" >/dev/null 2>&1 & done
wait
acked=$(charges primary); spent_acked=$(spent primary)
check "before the failover: the budget of 5.5 took 2 more releases of 0.5" "11 5.500000" "$acked $spent_acked"
pm=$(head -1 "$tmp/primary/postmaster.pid")
kill -9 $(pgrep -P "$pm") "$pm" 2>/dev/null
for _ in $(seq 1 50); do kill -0 "$pm" 2>/dev/null || break; sleep 0.1; done
sleep 0.5
"$BIN/pg_ctl" -D "$tmp/standby" promote -w >/dev/null
check "after SIGKILL of the primary and promotion: every acknowledged charge is there" \
  "$acked $spent_acked" "$(charges standby) $(spent standby)"
out=$(as_analyst standby "$REL")
check "... the promoted server refuses the analyst, whose budget is spent" 1 "$(echo "$out" | grep -c 'exhausted')"
q standby "SELECT dp_set_budget('analyst', 6.5, 0)" >/dev/null
out=$(as_analyst standby "$REL")
check "... and charges against the right remaining budget once it is raised" "12 6.000000" "$(charges standby) $(spent standby)"

# --- pg_rewind of the old primary, which becomes a standby of the new one -----------------
for _ in $(seq 1 50); do pgrep -f "$tmp/primary" >/dev/null || break; sleep 0.1; done
q standby "CHECKPOINT" >/dev/null
if "$BIN/pg_rewind" -D "$tmp/primary" --restore-target-wal --source-server="host=$tmp port=${PORT[standby]} dbname=postgres" >"$tmp/rewind.log" 2>&1; then
  # pg_rewind copies the source's configuration files too
  printf "port = ${PORT[primary]}\nprimary_conninfo = 'host=$tmp port=${PORT[standby]} application_name=s0'\n" >>"$tmp/primary/postgresql.auto.conf"
  touch "$tmp/primary/standby.signal"
  start primary
  target=$(q standby "SELECT pg_current_wal_lsn()")
  for _ in $(seq 1 200); do
    [ "$(q primary "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn")" = t ] && break; sleep 0.1
  done
  check "pg_rewind: the old primary, rewound and following the new one, shows its ledger" \
    "12 6.000000" "$(charges primary) $(spent primary)"
else
  check "pg_rewind of the old primary succeeded" 0 1; sed 's/^/# /' "$tmp/rewind.log"
fi

# --- an old journal (pg_dpagg/ledger) is carried over once --------------------------------
# The old journal's records are the ledger's records byte for byte: build one from the records
# on the new server's first ledger page, with a torn end, and give it to a fresh cluster.
"$BIN/pg_ctl" -D "$tmp/standby" stop -m fast >/dev/null
"$BIN/initdb" -D "$tmp/fresh" -A trust >/dev/null
conf fresh
mkdir -p "$tmp/fresh/pg_dpagg"
python3 - "$tmp/standby/global/4200000187" "$tmp/fresh/pg_dpagg/ledger" <<'EOF'
import struct, sys
def crc32c(data):  # CRC-32C (Castagnoli), as PostgreSQL's pg_crc32c
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
data = open(sys.argv[1], 'rb').read()
recs = b''
for off in range(8192, len(data), 8192):          # every data page after the meta page
    page = data[off:off + 8192]
    lower = struct.unpack_from('<H', page, 12)[0]
    pos = 24
    while pos < lower:                            # each record: an old journal's has, at byte
        length = struct.unpack_from('<I', page, pos + 4)[0]   # 96, the flushed hint (0 here),
        r = bytearray(page[pos:pos + length])     # where the WAL ledger keeps a statement key
        r[96:104] = bytes(8)
        r[8:12] = bytes(4)
        struct.pack_into('<I', r, 8, crc32c(bytes(r)))
        recs += bytes(r)
        pos += length
with open(sys.argv[2], 'wb') as f:
    f.write(b'DPAGGLG1' + bytes(8) + recs + b'DPRL\x40\x02\x00\x00partial')
EOF
old_total=$(python3 - "$tmp/fresh/pg_dpagg/ledger" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read(); pos = 16; n = 0
while pos + 456 <= len(b):
    length = struct.unpack_from('<I', b, pos + 4)[0]
    if b[pos:pos + 4] != b'LRPD' or length < 456 or pos + length > len(b): break
    n += struct.unpack_from('<I', b, pos + 12)[0] == 1 and b[pos + 112:pos + 119] == b'analyst'   # the analyst's releases
    pos += length
print(n)
EOF
)
start fresh
q fresh "CREATE EXTENSION dpagg" >/dev/null
records=$(charges fresh)
check "a fresh server carries over an old journal: every whole record, the torn end left behind" "$old_total" "$records"
check "... its totals are the journal's" "$(awk -v n="$old_total" 'BEGIN { printf "%.6f", n * 0.5 }')" "$(q fresh "SELECT round(epsilon_spent::numeric, 6) FROM dp_budgets WHERE role_oid = (SELECT role_oid FROM dp_ledger WHERE role = 'analyst' LIMIT 1)")"
check "... the journal is kept as pg_dpagg/ledger.migrated" "yes" "$([ -f "$tmp/fresh/pg_dpagg/ledger.migrated" ] && [ ! -f "$tmp/fresh/pg_dpagg/ledger" ] && echo yes)"
"$BIN/pg_ctl" -D "$tmp/fresh" stop -m immediate >/dev/null
start fresh
check "... once: after a crash restart the count is the same" "$records" "$(charges fresh)"

# --- pg_upgrade: the new cluster refuses an empty ledger until the old one is copied -----------
q fresh "CREATE TABLE t AS SELECT g AS x FROM generate_series(1, 100) g" "CREATE ROLE analyst LOGIN" \
  "GRANT SELECT ON t TO analyst" "SELECT dp_set_budget('analyst', 10, 0)" >/dev/null
as_analyst fresh "$REL" >/dev/null
totals="SELECT (SELECT count(*) FROM dp_ledger) || ' ' || (SELECT round(sum(epsilon_spent)::numeric, 6) FROM dp_budgets)"
# every budget and the ledger's whole history, row by row
history="SELECT string_agg(b::text, ';' ORDER BY b::text) FROM dp_budgets b"
history2="SELECT md5(string_agg(l::text, ';' ORDER BY l::text)) FROM dp_ledger l"
before_upgrade=$(q fresh "$totals")
before_budgets=$(q fresh "$history")
before_history=$(q fresh "$history2")
"$BIN/pg_ctl" -D "$tmp/fresh" stop -m fast >/dev/null
"$BIN/initdb" -D "$tmp/upgraded" -A trust >/dev/null
PORT[upgraded]=5605
conf upgraded
sed -i '/^archive_mode = /d' "$tmp/upgraded/postgresql.conf"
if (cd "$tmp" && "$BIN/pg_upgrade" -b "$BIN" -B "$BIN" -d "$tmp/fresh" -D "$tmp/upgraded" -s "$tmp" \
      -p 5606 -P 5607 >"$tmp/upgrade.log" 2>&1); then
  start upgraded
  out=$(as_analyst upgraded "$REL")
  check "pg_upgrade: the new cluster refuses releases until the old ledger is copied" 1 \
    "$(echo "$out" | grep -c 'this cluster was made by pg_upgrade')"
  out=$("$BIN/dpagg_carry_ledger" "$tmp/fresh" "$tmp/upgraded" 2>&1)
  check "dpagg_carry_ledger refuses while the new server runs" 1 "$(echo "$out" | grep -c 'is running')"
  "$BIN/pg_ctl" -D "$tmp/upgraded" stop -m fast >/dev/null
  out=$("$BIN/dpagg_carry_ledger" "$tmp/fresh" "$tmp/fresh" 2>&1)
  check "... refuses the same directory twice" 1 "$(echo "$out" | grep -c 'are the same')"
  out=$("$BIN/dpagg_carry_ledger" "$tmp/upgraded" "$tmp/fresh" 2>&1)
  check "... refuses an old cluster without a ledger" 1 "$(echo "$out" | grep -c 'has no dpagg ledger')"
  "$BIN/dpagg_carry_ledger" "$tmp/fresh" "$tmp/upgraded" >"$tmp/carry.log" 2>&1
  check "... carries the ledger over" 0 $?
  out=$("$BIN/dpagg_carry_ledger" "$tmp/fresh" "$tmp/upgraded" 2>&1)
  check "... and a second run changes nothing" 1 "$(echo "$out" | grep -c 'already has the old ledger')"
  start upgraded
  check "... and the new cluster has every charge" "$before_upgrade" "$(q upgraded "$totals")"
  check "... every budget as it was (spending, totals, caps, methods)" "$before_budgets" "$(q upgraded "$history")"
  check "... and the ledger's whole history, row by row" "$before_history" "$(q upgraded "$history2")"
  as_analyst upgraded "$REL" >/dev/null
  check "... and charges the next release" "$(( ${before_upgrade%% *} + 1 ))" "$(q upgraded "SELECT count(*) FROM dp_ledger")"
else
  check "pg_upgrade succeeded" 0 1; tail -20 "$tmp/upgrade.log" | sed 's/^/# /'
fi

echo "wal: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
