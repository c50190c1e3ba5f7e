#!/usr/bin/env bash
# The README and the guides work as written: every ```sql block of README.md and then of the
# guides (docs/guides/*.md, in the order a DBA reads them: GUIDES below) runs, in order, in a
# fresh throwaway cluster, each block in one psql session with ON_ERROR_STOP, as the superuser in
# database shop.  A block that runs as another role or in another database says so itself with a
# psql \c line (`\c - alice`, `\c hr`), the convention the README's quick start states.  A block
# that errors fails the test, naming the block's file and line and the error, unless the line
# before its fence marks it (tests/readme/blocks.py has the rules):
#   <!-- readme-test: expect-error 53DP1 -->   the block must fail with that SQLSTATE
#   <!-- readme-test: skip (needs Citus) -->   not run (needs Citus, another cluster, ...),
#                                              counted and listed with its reason
# The DBA guide's configuration table must list every dpagg.* setting the server has.
# ```sh blocks are not run (they build, install and start servers): only the commands they name
# are checked to exist.  Blocks without a language (postgresql.conf excerpts) are not run.
#
# The one hidden setup: the data the README says the reader already has (database shop with
# tables employees and visits, the list of regions, and database hr with table hr.employees,
# which the DBA guide's wrapper recipe starts from).  Roles, budgets, protections, restrictions,
# schemas and functions come from the blocks themselves, as a DBA following the text makes them.
# The cluster trusts local connections, so that the blocks' `\c - alice` connects without the
# password a DBA would type.
#
# Prints "ok N - ..." / "not ok N - ..." per block (and "skip - ..." per skipped one) and ends
# with "readme: N passed, N failed, N skipped".  Unless DPAGG_README_INSIDE is set it runs itself
# in pg_virtualenv, bounded by timeout.  Needs dpagg installed.
set -uo pipefail
cd "$(dirname "$0")/../.."

GUIDES=(budgets privacy-semantics mechanisms privacy-units restricted-analysts citus performance)

if [ -z "${DPAGG_README_INSIDE:-}" ]; then
  export DPAGG_README_INSIDE=1
  exec timeout 115 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi

# every guide is in GUIDES (a new guide is read somewhere), and every name there is a guide
listed=$(printf 'docs/guides/%s.md\n' "${GUIDES[@]}" | sort)
present=$(ls docs/guides/*.md | sort)
if [ "$listed" != "$present" ]; then
  echo "not ok 0 - GUIDES in tests/readme/run.sh does not list docs/guides/*.md: $(diff <(echo "$listed") <(echo "$present") | grep '^[<>]' | tr '\n' ' ')"
  echo "readme: 0 passed, 1 failed, 0 skipped"
  exit 1
fi

hba=$(psql -X -At -c "SHOW hba_file")
sed -i -E 's/(scram-sha-256|md5|peer)$/trust/' "$hba"
psql -X -q -At -c "SELECT pg_reload_conf()" >/dev/null

# The data the README says the reader has (its quick start and the DBA guide's wrapper recipe).
createdb shop && createdb hr
psql -X -q -v ON_ERROR_STOP=1 -d shop <<'SQL' || { echo "not ok 0 - the hidden setup failed"; exit 1; }
CREATE TABLE employees (id integer PRIMARY KEY, name text, department text,
                        salary numeric(10,2), bonus numeric(10,2));
INSERT INTO employees
  SELECT g, 'employee ' || g, (ARRAY['sales', 'engineering', 'support', 'finance'])[1 + g % 4],
         30000 + (g * 7919) % 120000, (g * 104729) % 20000
    FROM generate_series(1, 10000) g;
CREATE TABLE visits (visit_id bigint PRIMARY KEY, user_id integer, region text,
                     amount numeric(10,2), visited_at timestamptz);
INSERT INTO visits
  SELECT g, 1 + g % 5000, (ARRAY['north', 'south', 'east', 'west'])[1 + (g / 5000) % 4],
         ((g * 7919) % 30000) / 100.0, timestamptz '2026-01-01' + (g % 300) * interval '1 day'
    FROM generate_series(1, 60000) g;
CREATE TABLE regions (region text PRIMARY KEY);
INSERT INTO regions VALUES ('north'), ('south'), ('east'), ('west'), ('antarctica');
ANALYZE;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d hr <<'SQL' || { echo "not ok 0 - the hidden setup failed"; exit 1; }
CREATE SCHEMA hr;
CREATE TABLE hr.employees (id integer PRIMARY KEY, name text, department text, salary numeric(10,2));
INSERT INTO hr.employees
  SELECT g, 'employee ' || g, (ARRAY['sales', 'engineering', 'support', 'finance'])[1 + g % 4],
         30000 + (g * 7919) % 120000
    FROM generate_series(1, 2000) g;
ANALYZE;
SQL

export PGDATABASE=shop
start=$(date +%s)
python3 tests/readme/blocks.py --settings docs/guides/budgets.md \
  README.md $(printf 'docs/guides/%s.md ' "${GUIDES[@]}")
rc=$?
echo "# $(( $(date +%s) - start )) s for the blocks"
exit $rc
