#!/usr/bin/env bash
# Makes tests/ledger_fixture/ledger-<version>.tar.xz: a small PostgreSQL 15 cluster whose dpagg
# ledger was written by the dpagg installed now (run it once per released version, with that
# version installed; docs/ledger_wal.md, "Formats").  Budgets are set and releases charged, a
# checkpoint is taken, more are charged, and the server is stopped with -m immediate: the pages
# hold what came before the checkpoint and the WAL alone what came after, so a later library that
# starts the cluster must replay 1.0.0's WAL records and read 1.0.0's pages.  What dp_ledger and
# dp_budget_log show before the crash is written beside it (ledger-<version>.expected).
# Run as root or as postgres; needs dpagg installed and nothing on port 5711.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=/usr/lib/postgresql/15/bin
if [ "$(id -u)" -eq 0 ]; then
  # as postgres, from a copy of this folder it can read wherever the checkout is
  copy=$(mktemp -d /tmp/dpagg-fixture-make.XXXXXX); cp "$here/make.sh" "$here/shown.sql" "$copy"/
  chmod -R a+rX "$copy"
  out=$(mktemp -d /tmp/dpagg-fixture-out.XXXXXX); chown postgres "$out"
  st=0; runuser -u postgres -- env FIXTURE_OUT="$out" "$copy/make.sh" || st=$?
  cp "$out"/* "$here/"; rm -rf "$copy" "$out"; exit $st
fi
out=${FIXTURE_OUT:-$here}
version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$($BIN/pg_config --sharedir)/extension/dpagg.control")
tmp=$(mktemp -d /tmp/dpagg-fixture.XXXXXX)
trap '"$BIN/pg_ctl" -D "$tmp/data" stop -m immediate >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$BIN/initdb" -D "$tmp/data" -A trust --wal-segsize=1 --no-instructions >/dev/null
cat >>"$tmp/data/postgresql.conf" <<CONF
port = 5711
listen_addresses = ''
unix_socket_directories = '/tmp'
shared_preload_libraries = 'dpagg'
checkpoint_timeout = 1h
max_wal_size = 1GB
CONF
"$BIN/pg_ctl" -D "$tmp/data" -l "$tmp/log" -w start >/dev/null
q() { "$BIN/psql" -X -q -At -h /tmp -p 5711 -d postgres -v ON_ERROR_STOP=1 "$@"; }
q <<'SQL' >/dev/null
CREATE EXTENSION dpagg;
CREATE ROLE analyst_basic LOGIN;
CREATE ROLE analyst_zcdp LOGIN;
CREATE TABLE t AS SELECT g AS x, g % 3 AS k FROM generate_series(1, 300) g;
GRANT SELECT ON t TO analyst_basic, analyst_zcdp;
SELECT dp_set_budget('analyst_basic', 10, 1e-5);
SELECT dp_set_budget('analyst_zcdp', 20, 1e-4, 'zcdp', 2);
SET SESSION AUTHORIZATION analyst_basic;
SELECT dp_sum(x, 0.5, 1e-6, 0, 300) FROM t;
SELECT k, dp_count(0.25, 0, 'laplace') FROM t GROUP BY k;
RESET SESSION AUTHORIZATION;
CHECKPOINT;
SET SESSION AUTHORIZATION analyst_zcdp;
SELECT dp_avg(x, 1, 1e-6, 0, 300, 'analytic_gaussian') FROM t;
SELECT dp_sum_vector(ARRAY[x, k]::float8[], 2, 1, 1e-6, 400) FROM t;
RESET SESSION AUTHORIZATION;
SELECT dp_set_budget('analyst_basic', 12, 1e-5);
SELECT dp_drop_budget('analyst_zcdp');
SQL
{
  echo "# dp_ledger, dp_budget_log and dp_budgets of ledger-$version.tar.xz, as the server that wrote it showed them"
  q -f "$here/shown.sql"
} >"$tmp/expected"
# the crash: what came after the checkpoint is in the WAL only
"$BIN/pg_ctl" -D "$tmp/data" stop -m immediate >/dev/null
rm -f "$tmp/data/postmaster.pid" "$tmp/data/postmaster.opts"
(cd "$tmp" && tar -cJf "$out/ledger-$version.tar.xz" data)
cp "$tmp/expected" "$out/ledger-$version.expected"
echo "wrote ledger-$version.tar.xz ($(stat -c %s "$out/ledger-$version.tar.xz") bytes) and ledger-$version.expected"
