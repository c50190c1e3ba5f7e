#!/usr/bin/env bash
# The calibrations shared by every backend (src/pg/base/calib_cache.c), against a real throwaway
# cluster: a calibration made in one backend is the one a fresh backend gets; the cache is saved
# at a clean shutdown and read back at start; a damaged file, or one written by another build, is
# ignored (the cache starts empty) and answers stay exactly those of a fresh calibration; the
# cache can be switched off.
#
# Prints "ok N - ..." / "not ok N - ..." per check and ends with "calibrations: N passed, N failed".
# Unless DPAGG_CALIB_INSIDE is set it runs itself in pg_virtualenv.  Needs dpagg installed.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${DPAGG_CALIB_INSIDE:-}" ]; then
  export DPAGG_CALIB_INSIDE=1
  exec timeout 600 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh
datadir=$(q "SHOW data_directory")
file="$datadir/pg_dpagg/calibrations"
# saved(): number of entries in the saved file (header: magic, version, library crc, entry size,
# count, crc; all 4-byte words).
saved() { od -An -t u4 -j 16 -N 4 "$file" 2>/dev/null | tr -d ' '; }
clean_restart() { cluster_ctl stop -m fast >/dev/null 2>&1; ${1:+eval "$1"}; cluster_ctl start >/dev/null 2>&1; wait_up; }

q "CREATE EXTENSION dpagg" >/dev/null
q "SELECT dp_set_budget(current_user::regrole, 1000, 0.5)" >/dev/null 2>&1
# Parameters nobody calibrated before (an auto calibration takes milliseconds).
calib="SELECT details FROM dp_calibrate('auto', 0.731, 3.3e-7, 2.5)"
first=$(q "$calib")
second=$(q "$calib")   # a fresh backend: from the shared cache
check "a fresh backend gets exactly the calibration another backend made" "$first" "$second"
q "SELECT dp_calibrate('multi_gaussian(k=7)', 1.17, 1e-6, 1)" >/dev/null
vcalib="SELECT scale, mse, delta_certified FROM dp_calibrate_vector('l2', 7, 0.93, 2.1e-7, 3.5)"
vfirst=$(q "$vcalib")
check "a fresh backend gets exactly the vector calibration another backend made" "$vfirst" "$(q "$vcalib")"

clean_restart
s=$(saved)
check "a clean shutdown saves the shared calibrations (3 or more, one of them a vector's)" "yes" "$([ "${s:-0}" -ge 3 ] && echo yes || echo "no: ${s:-no file}")"
check "after a restart the answer is unchanged" "$first" "$(q "$calib")"
check "... and the vector one too" "$vfirst" "$(q "$vcalib")"
before=$(saved)
clean_restart
check "entries read back at start are saved again at the next shutdown" "$before" "$(saved)"

# A damaged file is ignored: the next shutdown saves only what was calibrated since.
clean_restart "printf '\\377' | dd of=\"$file\" bs=1 seek=200 conv=notrunc status=none"
check "a damaged file is ignored, the answer is still exact" "$first" "$(q "$calib")"
clean_restart
check "... and none of its entries were loaded (only the one just recalibrated is saved)" "1" "$(saved)"

# A file written by another build of dpagg (its library checksum differs) is ignored too.
clean_restart "printf '\\001' | dd of=\"$file\" bs=1 seek=8 conv=notrunc status=none"
clean_restart
check "a file of another build is ignored" "0" "$(saved)"

# Releases use the shared cache and work with it switched off.
q "CREATE TABLE t AS SELECT g::float8 AS x FROM generate_series(1, 100) g" >/dev/null
check "a release in a fresh backend" "t" "$(q "SELECT dp_sum(x, 1.0, 1e-6, 100) IS NOT NULL FROM t")"
q "ALTER SYSTEM SET dpagg.calibration_cache_entries = 0" >/dev/null
clean_restart
check "with the shared cache off, calibrations are still exact" "$first" "$(q "$calib")"
check "with the shared cache off, releases work" "t" "$(q "SELECT dp_sum(x, 1.0, 1e-6, 100) IS NOT NULL FROM t")"
q "ALTER SYSTEM RESET dpagg.calibration_cache_entries" >/dev/null

echo "calibrations: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
