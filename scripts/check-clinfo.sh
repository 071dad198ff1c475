#!/usr/bin/env bash
# Runs clinfo against whatever the ICD loader sees and fails when
#   - clinfo exits non-zero (a crash in the implementation counts),
#   - any line of its output reports an error or an invalid value, or
#   - no platform named ferrocl (or $1) is listed.
#
# `make test` runs it with OCL_ICD_VENDORS=build/icd so only ferrocl is
# visible; run without that, it checks the system-wide installation.
#
# The full output is kept in build/clinfo.log.
set -uo pipefail

PLATFORM="${1:-ferrocl}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOG="$ROOT/build/clinfo.log"
mkdir -p "$(dirname "$LOG")"

command -v clinfo >/dev/null || { echo "check-clinfo: clinfo not installed (scripts/deps.sh)"; exit 1; }

status=0
clinfo >"$LOG" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    echo "check-clinfo: clinfo exited with status $rc"
    status=1
fi

# clinfo reports failed queries inline, e.g. "<clGetDeviceInfo ... error -30>"
# or "Invalid ..."; match those words anywhere.  "Error Correction support"
# is the name of a device property (CL_DEVICE_ERROR_CORRECTION_SUPPORT), not
# a failure, so it is the one exception.
bad=$(grep -n -E 'error|Error|invalid|Invalid' "$LOG" | grep -v -E '^[0-9]+:[[:space:]]*Error Correction support[[:space:]]')
if [ -n "$bad" ]; then
    echo "check-clinfo: clinfo reported errors:"
    printf '%s\n' "$bad" | sed 's/^/    /'
    status=1
fi

list=$(clinfo -l 2>&1)
if ! printf '%s\n' "$list" | grep -q -E "^Platform #[0-9]+: ${PLATFORM}\$"; then
    echo "check-clinfo: platform \"$PLATFORM\" not listed by clinfo -l:"
    if [ -n "$list" ]; then printf '%s\n' "$list" | sed 's/^/    /'; else echo "    (no platforms)"; fi
    status=1
fi

if [ $status -eq 0 ]; then
    platforms=$(printf '%s\n' "$list" | grep -c '^Platform #')
    devices=$(printf '%s\n' "$list" | grep -c 'Device #')
    echo "check-clinfo: OK ($platforms platform(s), $devices device(s), \"$PLATFORM\" listed, no errors; full output in $LOG)"
else
    echo "check-clinfo: FAILED (full output in $LOG)"
fi
exit $status
