#!/usr/bin/env bash
# Installs what dpagg needs to build and test on Debian 12 (bookworm): PostgreSQL 15 with its
# server headers and pg_virtualenv, g++, Boost.Math, GoogleTest, OpenSSL's headers (the noise
# generator) and python3 (the build runs scripts/generate_sql.py; tests/security speaks the wire
# protocol), procps (pgrep, for the failover test) and xz-utils (the ledger fixture is a
# .tar.xz).  Idempotent.  Citus, for the multi-node test, is built by scripts/install-citus.sh
# when its test runs; the Debian package's tools by scripts/build-deb.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/as-root.sh
PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-common postgresql-client-15
          g++ make libboost-dev libboost-math-dev libgtest-dev libssl-dev python3 procps xz-utils)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "dpagg: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
