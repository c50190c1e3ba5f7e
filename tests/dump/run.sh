#!/usr/bin/env bash
# Protection survives pg_dump and restore (docs/privacy_units.md): a database with private relations is
# dumped (custom and plain formats) and restored into fresh databases; the restored databases
# list the same protections, and dpagg aggregates over the restored private relations are
# bounded per unit as over the originals.
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "dump: N passed, N failed".
# Unless DPAGG_DUMP_INSIDE is set it runs itself in pg_virtualenv.  Needs dpagg installed.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${DPAGG_DUMP_INSIDE:-}" ]; then
  export DPAGG_DUMP_INSIDE=1
  exec timeout 300 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
listing="SELECT relation::text || ' ' || relkind::text || ' ' || privacy_unit || ' ' || max_groups_contributed || ' ' || coalesce(max_rows_per_group::text, '-') FROM dp_protected ORDER BY 1"

createdb dump_src
PSQL+=(-d dump_src)
q "CREATE EXTENSION dpagg" >/dev/null
q "CREATE TABLE people (user_id bigint PRIMARY KEY, dept text)" >/dev/null
q "CREATE TABLE visits (user_id bigint, \"Day\" date, amount numeric) PARTITION BY RANGE (\"Day\")" >/dev/null
q "CREATE TABLE visits_2026 PARTITION OF visits FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')" >/dev/null
q "INSERT INTO people SELECT g, 'd' || g % 3 FROM generate_series(1, 20) g" >/dev/null
q "INSERT INTO visits SELECT g % 20 + 1, date '2026-01-01' + g % 300, g FROM generate_series(1, 200) g" >/dev/null
q "CREATE VIEW people_visits AS SELECT * FROM people JOIN visits USING (user_id)" >/dev/null
q "SELECT dp_protect('visits', 'user_id', 3, 5)" >/dev/null
q "SELECT dp_protect('people_visits', 'user_id', 2)" >/dev/null
q "SECURITY LABEL FOR dpagg ON TABLE people IS 'privacy_unit = \"user_id\"'" >/dev/null
before=$(q "$listing")
check "three relations are protected before the dump" 3 "$(printf '%s\n' "$before" | grep -c .)"

pg_dump -Fc -f "$work/src.dump" dump_src
pg_dump -Fp -f "$work/src.sql" dump_src
check "the plain dump carries the labels" 3 "$(grep -c '^SECURITY LABEL FOR dpagg ON' "$work/src.sql")"

createdb dump_custom
pg_restore -d dump_custom "$work/src.dump" 2>"$work/restore.err"
check "pg_restore (custom format) succeeds without errors" "" "$(cat "$work/restore.err")"
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -d dump_custom)
check "the restored database lists the same protections (custom format)" "$before" "$(q "$listing")"
q "SELECT dp_set_budget(current_user::regrole, 1e9, 0.5)" >/dev/null
# Bounded per unit as over the original: 20 units of 10 rows, a count takes at most 5 rows of each
# (max_rows_per_group) -> 100, not the 200 rows.  epsilon 1e6: the noise is far below the rounding.
check "an aggregate over the restored private table is bounded per unit" 100 \
  "$(q "SELECT round(dp_count(1e6, 0, 'laplace')) FROM visits")"
check "a partition of the restored private table is private" 100 \
  "$(q "SELECT round(dp_count(1e6, 0, 'laplace')) FROM visits_2026")"

createdb dump_plain
psql -X -q -v ON_ERROR_STOP=1 -d dump_plain -f "$work/src.sql" >/dev/null 2>"$work/plain.err"
check "the plain dump restores without errors" "" "$(grep -v '^$' "$work/plain.err")"
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -d dump_plain)
check "the restored database lists the same protections (plain format)" "$before" "$(q "$listing")"

echo "dump: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
