#!/usr/bin/env bash
# A ledger written by an earlier release is read and replayed by this one (docs/ledger_wal.md,
# "Formats").  Each tests/ledger_fixture/ledger-<version>.tar.xz is a small cluster whose ledger
# that version wrote (make.sh), stopped by a crash after a checkpoint: starting it with the
# library installed now replays that version's WAL records (the releases and budget changes
# after the checkpoint) over its pages (those before), and dp_ledger, dp_budget_log and
# dp_budgets must show what the writing server showed (ledger-<version>.expected).  Then a new
# release is charged on top, and a clean restart reads the same again.
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "ledger_fixture: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -eq 0 ]; then
  # as postgres, from a copy of this folder it can read wherever the checkout is
  copy=$(mktemp -d /tmp/dpagg-fixture-run.XXXXXX); cp "$here"/* "$here/../cluster_lib.sh" "$copy"/
  chmod -R a+rX "$copy"
  timeout 300 runuser -u postgres -- "$copy/run.sh" "$@"; st=$?
  rm -rf "$copy"; exit $st
fi
[ -f "$here/cluster_lib.sh" ] || here_lib=$here/..
. "${here_lib:-$here}/cluster_lib.sh"
BIN=/usr/lib/postgresql/15/bin
tmp=$(mktemp -d /tmp/dpagg-fixture.XXXXXX)
trap '"$BIN/pg_ctl" -D "$tmp/data" stop -m immediate >/dev/null 2>&1; rm -rf "$tmp"' EXIT
q() { "$BIN/psql" -X -q -At -h "$tmp" -p 5712 -U postgres -d postgres "$@" 2>&1; }
shown() { q -f "$here/shown.sql"; }
start() {
  "$BIN/pg_ctl" -D "$tmp/data" -l "$tmp/log" -w -t 60 \
    -o "-p 5712 -c unix_socket_directories=$tmp -c shared_preload_libraries=dpagg" start >/dev/null ||
    { echo "# the server did not start"; tail -20 "$tmp/log" | sed 's/^/# /'; }
}
fixtures=$(ls "$here"/ledger-*.tar.xz 2>/dev/null)
check "there is a fixture of a released version" yes "$([ -n "$fixtures" ] && echo yes || echo no)"
for f in $fixtures; do
  v=$(basename "$f" .tar.xz); v=${v#ledger-}
  rm -rf "$tmp/data"; tar -xJf "$f" -C "$tmp"; chmod 700 "$tmp/data"
  redo=$("$BIN/pg_controldata" "$tmp/data" | sed -n "s/^Latest checkpoint's REDO location: *//p")
  records=$("$BIN/pg_waldump" -p "$tmp/data/pg_wal" -s "$redo" 2>/dev/null | grep -c '^rmgr: custom187 ')
  check "$v: the fixture's WAL holds ledger records after its last checkpoint, for redo" yes \
    "$([ "$records" -ge 4 ] && echo yes || echo "only $records")"
  start
  check "$v: the crashed cluster starts and replays its WAL" 1 "$(grep -c 'redo done at' "$tmp/log")"
  check "$v: the views read without an error" 0 "$(shown | grep -c 'ERROR')"
  check "$v: dp_ledger, dp_budget_log and dp_budgets show what the $v server showed" \
    "$(grep -v '^#' "$here/ledger-$v.expected")" "$(shown)"
  # the SQL objects are $v's: a release needs them at the library's version (docs/versions.md)
  q -c "ALTER EXTENSION dpagg UPDATE" >/dev/null
  before=$(q -c "SELECT releases FROM dp_budgets WHERE role = 'analyst_basic'")
  q -c "SET SESSION AUTHORIZATION analyst_basic" -c "SELECT dp_count(0.5, 0, 'laplace') FROM t" >/dev/null
  check "$v: a new release is charged on top of $v's records" "$((before + 1))" \
    "$(q -c "SELECT releases FROM dp_budgets WHERE role = 'analyst_basic'")"
  after=$(shown)
  "$BIN/pg_ctl" -D "$tmp/data" stop -m fast >/dev/null
  start
  check "$v: after a clean restart the ledger reads the same" "$after" "$(shown)"
  "$BIN/pg_ctl" -D "$tmp/data" stop -m fast >/dev/null
done
echo "ledger_fixture: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
