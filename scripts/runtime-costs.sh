#!/usr/bin/env bash
# The README's table of what the runtime-only library costs and saves
# beside the default one, measured on this machine in one run:
#
#   scripts/runtime-costs.sh DEFAULT_LIB RUNTIME_ONLY_LIB CLC_BINARY [RUNS]
#
# e.g. after `make build build-runtime-only build/examples/clc_vecadd.bin`:
#
#   scripts/runtime-costs.sh target/release/libferrocl.so \
#       target/runtime-only/release/libferrocl.so build/examples/clc_vecadd.bin
#
# For each library: its size stripped, the shared libraries it names (beyond
# the C library's), and the medians over RUNS (default 31)
# processes of scripts/runtime_costs.c (loader to device; a whole run from
# the binary and its peak memory), the two libraries' processes alternating.
set -euo pipefail

[ $# -ge 3 ] || { sed -n '2,15p' "$0"; exit 2; }
LIBS=("$1" "$2")
BINARY="$3"
RUNS="${4:-31}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$WORK/runtime_costs" "$ROOT/scripts/runtime_costs.c" -lOpenCL

for i in 0 1; do
    mkdir -p "$WORK/icd$i"
    realpath "${LIBS[$i]}" > "$WORK/icd$i/ferrocl.icd"
    strip -o "$WORK/lib$i.so" "${LIBS[$i]}"
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One process of each kind for each library, alternating, RUNS times.
for _ in $(seq "$RUNS"); do
    for i in 0 1; do
        OCL_ICD_VENDORS="$WORK/icd$i" "$WORK/runtime_costs" device >> "$WORK/device$i"
        OCL_ICD_VENDORS="$WORK/icd$i" FERROCL_CACHE=0 "$WORK/runtime_costs" run "$BINARY" >> "$WORK/run$i"
    done
done

for i in 0 1; do
    size=$(stat -c %s "$WORK/lib$i.so")
    needs=""
    for lib in $(readelf -d "${LIBS[$i]}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev '^(libc\.|libm\.|libgcc_s\.|ld-linux)'); do
        path=$(ldd "${LIBS[$i]}" | awk -v l="$lib" '$1 == l { print $3 }')
        needs="$needs$lib ($(( $(stat -L -c %s "$path") / 1000000 )) MB) "
    done
    echo "${LIBS[$i]}"
    printf '  stripped size       %.1f MB\n' "$(echo "$size / 1000000" | bc -l)"
    echo "  needs               ${needs:-nothing beyond the C library}"
    echo "  loader to device    $(cut -d' ' -f1 "$WORK/device$i" | median) ms"
    echo "  run from a binary   $(cut -d' ' -f1 "$WORK/run$i" | median) ms"
    echo "  peak memory         $(( $(cut -d' ' -f2 "$WORK/run$i" | median) / 1024 )) MB"
done
