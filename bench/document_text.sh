#!/usr/bin/env bash
# The document store (#30): build time with "store": {"documents": true}
# at each compression level against the same build without it, on the same
# collection, then a random document's text latency from each store
# (bench/document_store_bench.cpp). Wall time and CPU time (user + sys of
# invidx-run): on a machine shared with other jobs the CPU seconds compare
# better. Runs alternate (off, level a, level b, ..., off, ...), and each
# cell is the best of REPEATS. The table comes last.
#
#   bench/document_text.sh BUILD_DIR COLLECTION [REPEATS]
# BUILD_DIR holds invidx-run and invidx_document_store_bench (configured
# with -DINVIDX_BUILD_BENCH=ON); COLLECTION is a file or directory of input.
# PIPELINE (default configs/default.json) is the pipeline every build uses;
# LEVELS (default "0 1") the store.level values to time.
set -euo pipefail
build=$1 collection=$2 repeats=${3:-3} pipeline=${PIPELINE:-configs/default.json} levels=${LEVELS:-0 1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
variants="off"
for level in $levels; do variants="$variants $level"; done

# One build; appends "wall cpu" to $work/times-VARIANT.
time_build() {  # $1: off or a level
    local settings=(--set store.documents=false)
    [[ $1 != off ]] && settings=(--set store.documents=true --set store.level="$1")
    local TIMEFORMAT='%R %U %S'
    { time "$build/invidx-run" "$pipeline" --input "$collection" --output "$work/idx-$1" \
        --set progress=off "${settings[@]}" >/dev/null 2>"$work/stderr"; } 2>"$work/time"
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/time" >>"$work/times-$1"
}
for _ in $(seq "$repeats"); do
    for variant in $variants; do time_build "$variant"; done
done

best_wall() { sort -n -k1 "$work/times-$1" | head -1 | cut -d' ' -f1; }
best_cpu() { sort -n -k2 "$work/times-$1" | head -1 | cut -d' ' -f2; }
for level in $levels; do
    echo "lookups, level $level:"
    "$build/invidx_document_store_bench" "$work/idx-$level" 20000
    echo
done
off_wall=$(best_wall off) off_cpu=$(best_cpu off)
echo "collection: $collection; pipeline: $pipeline; best of $repeats, runs alternating"
echo
echo "| store | level | wall s | CPU s (user+sys) | speed vs off, wall | speed vs off, CPU | documents-text.bin MB |"
echo "|---|---|---|---|---|---|---|"
echo "| off | | $off_wall | $off_cpu | 1.00 | 1.00 | |"
for level in $levels; do
    wall=$(best_wall "$level") cpu=$(best_cpu "$level")
    size=$(stat -c %s "$work/idx-$level/documents-text.bin")
    echo "| on | $level | $wall | $cpu | $(awk -v a="$off_wall" -v b="$wall" 'BEGIN { printf "%.2f", a / b }') |" \
         "$(awk -v a="$off_cpu" -v b="$cpu" 'BEGIN { printf "%.2f", a / b }') | $(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }') |"
done
