#!/usr/bin/env bash
# The Debian package (debian/, scripts/build-deb.sh): built and checked by lintian, installed in
# place of `make install`'s files, the pg_regress suite run against the installed package, then
# removed cleanly; `make install` puts the library back for the tests after this one.
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "package: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/as-root.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
. tests/cluster_lib.sh
lib=$($PG_CONFIG --pkglibdir)/dpagg.so
ext=$($PG_CONFIG --sharedir)/extension
carry=$($PG_CONFIG --bindir)/dpagg_carry_ledger
restore() { as_root make -s install PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1; }
trap restore EXIT

deb=$(scripts/build-deb.sh 2>build/package-build.err | tail -1)
check "the package builds and lintian reports no error or warning" yes "$([ -f "$deb" ] && echo yes || echo "no: $(tail -3 build/package-build.err | tr '\n' ' ')")"
[ -f "$deb" ] || { echo "package: $passed passed, $failed failed"; exit 1; }
check "it holds the library, the control file and every install and upgrade script" \
  "$( (ls versions | grep '^dpagg--.*\.sql$'; echo dpagg.control; echo dpagg.so) | LC_ALL=C sort | tr '\n' ' ')" \
  "$(dpkg -c "$deb" | awk '{print $6}' | grep -E 'extension/dpagg|lib/dpagg' | sed 's|.*/||' | LC_ALL=C sort | tr '\n' ' ')"

check "... and dpagg_carry_ledger beside pg_upgrade" 1 "$(dpkg -c "$deb" | awk '{print $6}' | grep -c "^\.$carry\$")"

# make install's files out, the package's in
as_root make -s uninstall PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
check "without make install's files there is no library" no "$([ -e "$lib" ] && echo yes || echo no)"
as_root dpkg -i "$deb" >build/package-install.log 2>&1
check "the package installs" "install ok installed" "$(dpkg-query -W -f='${Status}' postgresql-15-dpagg 2>/dev/null)"
check "the library is the package's" "postgresql-15-dpagg" "$(dpkg -S "$lib" 2>/dev/null | cut -d: -f1)"
rm -f build/regress/regression.diffs
if timeout 900 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg \
     make -s installcheck PG_CONFIG="$PG_CONFIG" >build/package-regress.log 2>&1; then r=passed
else r="failed: $(grep -E 'FAILED|failed' build/package-regress.log | head -3 | tr '\n' ' ')"; fi
check "the pg_regress suite passes against the installed package" passed "$r"
as_root dpkg -r postgresql-15-dpagg >build/package-remove.log 2>&1
check "the package is removed" "" "$(dpkg-query -W -f='${Status}' postgresql-15-dpagg 2>/dev/null | grep 'install ok installed')"
check "removing it leaves none of its files" 0 \
  "$(ls "$lib" "$ext"/dpagg* "$carry" 2>/dev/null | wc -l)"
echo "package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
