#!/usr/bin/env bash
# Builds dpagg and installs it into the local PostgreSQL 15 (needs root for the install step).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/as-root.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
as_root make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
