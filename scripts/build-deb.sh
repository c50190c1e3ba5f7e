#!/usr/bin/env bash
# Builds the Debian package postgresql-15-dpagg the Debian way (debian/: debhelper with
# pg_buildext's pgxs_loop) from a copy of the tracked tree (the build cleans its tree), checks it
# with lintian (no errors, no warnings), and leaves the .deb in build/deb/.  Installs the build
# dependencies it lacks (debhelper, postgresql-server-dev-all, dpkg-dev, fakeroot, lintian, and
# those of scripts/install-deps.sh).  Prints the path of the .deb on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/as-root.sh
scripts/install-deps.sh
PACKAGES=(debhelper postgresql-server-dev-all dpkg-dev fakeroot lintian)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "dpagg: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
version=$(dpkg-parsechangelog -S Version)
rm -rf build/deb && mkdir -p build/deb/src
# the tracked and the new (not ignored) files as they are in the working tree; outside a git
# checkout, the tree without its build products
if git -c safe.directory="$PWD" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # tracked and new (not ignored) files that exist in the working tree
  git -c safe.directory="$PWD" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    xargs -0 cp --parents -t build/deb/src
else
  tar -c --exclude=./.git --exclude=./build --exclude='*.o' --exclude='*.so' --exclude='./dpagg--*.sql' \
      --exclude=./debian/.debhelper --exclude=./results . | tar -x -C build/deb/src
fi
(cd build/deb/src && dpkg-buildpackage -us -uc -b >../build.log 2>&1) || {
  tail -30 build/deb/build.log >&2; echo "dpagg: the package did not build (build/deb/build.log)" >&2; exit 1; }
deb=build/deb/postgresql-15-dpagg_${version}_$(dpkg --print-architecture).deb
# lintian refuses to run as root without saying so; its findings are what matter
if ! lintian --fail-on error,warning "build/deb/dpagg_${version}_$(dpkg --print-architecture).changes" >build/deb/lintian.log 2>&1; then
  cat build/deb/lintian.log >&2; echo "dpagg: lintian reports problems (build/deb/lintian.log)" >&2; exit 1
fi
echo "$deb"
