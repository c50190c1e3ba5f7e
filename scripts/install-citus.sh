#!/usr/bin/env bash
# Installs Citus into the local PostgreSQL 15 from a source tarball (Debian does not package it),
# for the multi-node tests and benchmarks of dpagg on Citus (docs/citus.md).
#
#   scripts/install-citus.sh /path/to/citus-13.2.2-pg15.tar.gz
#
# Does nothing if citus.so is already installed.  Installs the -dev packages Citus needs to build
# (apt-get, as root or through sudo), builds in a temporary directory (about 5 minutes on 2 cores)
# and installs.  Citus 13.2.2 is the last release for PostgreSQL 15.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/as-root.sh
tarball=${1:?usage: scripts/install-citus.sh CITUS_SOURCE_TARBALL}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
  echo "citus is already installed in $("$PG_CONFIG" --pkglibdir)"; exit 0
fi
[ -f "$tarball" ] || { echo "no such file: $tarball" >&2; exit 1; }
as_root apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc make \
  postgresql-server-dev-15 libzstd-dev liblz4-dev libkrb5-dev libssl-dev libselinux1-dev \
  libxslt1-dev libpam0g-dev libreadline-dev >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
src=$(find "$work" -maxdepth 1 -mindepth 1 -type d | head -1)
(cd "$src" && ./configure --without-libcurl PG_CONFIG="$PG_CONFIG" >"$work/configure.log" 2>&1 \
  || { tail -30 "$work/configure.log"; exit 1; })
make -C "$src" -s -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -40 "$work/make.log"; exit 1; }
as_root make -C "$src" -s install >/dev/null
echo "citus installed into $("$PG_CONFIG" --pkglibdir)"
