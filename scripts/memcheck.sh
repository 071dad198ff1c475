#!/usr/bin/env bash
# Runs ferrocl's test programs under valgrind's memcheck: every C test
# program and the demo, and the Rust API test suites named in
# MEMCHECK_SUITES (all of tests/tests/ if set to "all"). A program passes
# when its own checks pass and memcheck reports no invalid access, no use
# of uninitialised memory and no definitely lost block (scripts/memcheck.supp
# names the reports of code ferrocl does not own).
#
#   scripts/memcheck.sh PROGRAM...     (the C programs; run by `make test-memcheck`)
#
# Prints one line per program, then "N passed, M failed".
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOGS="${MEMCHECK_LOGS:-$ROOT/build/memcheck}"
# Not program_globals: Clang's layout of a struct initializer at program
# scope reads memory memcheck believes undefined (bit-fields of its
# RecordDecl), and the doubt follows the bitcode into every key made of it.
SUITES="${MEMCHECK_SUITES:-handles context queue buffer event kernel program runtime command_graphs command_buffer mutable_dispatch semaphore sub_device svm usm integer_division non_uniform_work_groups generic_address_space}"
CARGO="${CARGO:-cargo}"
mkdir -p "$LOGS"

# Every build compiles, so that the compiler's paths are checked too.
export FERROCL_CACHE=0

VALGRIND=(valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite
          --error-exitcode=99 --suppressions="$ROOT/scripts/memcheck.supp"
          --fair-sched=yes)

# The Rust suites' test executables, as cargo builds them.
rust_suites() {
    "$CARGO" test --release -j2 -p ferrocl-tests --no-run --message-format=json 2>/dev/null |
        python3 -c '
import json, sys
want = sys.argv[1].split()
for line in sys.stdin:
    m = json.loads(line)
    exe = m.get("executable")
    if exe and m.get("target", {}).get("kind") == ["test"]:
        name = m["target"]["name"]
        if "all" in want or name in want:
            print(name, exe)
' "$SUITES"
}

passed=0
failed=0
run() {
    local name="$1"; shift
    local log="$LOGS/$name.log"
    local start=$SECONDS
    "${VALGRIND[@]}" "$@" >"$log" 2>&1
    local rc=$?
    local errors lost
    errors=$(grep -o 'ERROR SUMMARY: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    lost=$(grep -o 'definitely lost: [0-9,]* bytes' "$log" | tail -1 | grep -o '[0-9,]* bytes')
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "ok    $name: ${errors:-?} errors, ${lost:-0 bytes} definitely lost ($((SECONDS - start)) s)"
    else
        failed=$((failed + 1))
        echo "FAIL  $name: exit $rc, ${errors:-?} errors, ${lost:-0 bytes} definitely lost (see $log)"
    fi
}

for program in "$@"; do
    run "$(basename "$program")" "$program"
done
# Valgrind does not model the MXCSR's flush-to-zero and denormals-are-zero
# bits, so a test of flushed denormals cannot pass under it.
SKIP=(--skip denormals_are_kept_unless_the_program_allows_flushing)
while read -r name exe; do
    # Two test threads: the suites' own concurrency, at valgrind's pace.
    FERROCL_STRESS_SECS=2 run "$name" "$exe" --test-threads=2 "${SKIP[@]}"
done < <(rust_suites)

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
