#!/usr/bin/env bash
# Installs what dpagg needs, builds and installs it, starts a throwaway PostgreSQL 15 cluster and
# runs a demo that prints true vs private answers on a sample table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg psql -X -q -v ON_ERROR_STOP=1 -f scripts/demo.sql
