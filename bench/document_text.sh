#!/usr/bin/env bash
# The document store (#30): build time with "store": {"documents": true}
# against without, on the same collection, then a random document's text
# latency from the store (bench/document_store_bench.cpp).
#
#   bench/document_text.sh BUILD_DIR COLLECTION [REPEATS]
# BUILD_DIR holds invidx-run and invidx_document_store_bench (configured
# with -DINVIDX_BUILD_BENCH=ON); COLLECTION is a file or directory of input.
# PIPELINE (default configs/default.json) is the pipeline both builds use.
set -euo pipefail
build=$1 collection=$2 repeats=${3:-3} pipeline=${PIPELINE:-configs/default.json}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best() { sort -n | head -1; }
time_build() {  # $1: true|false
    for _ in $(seq "$repeats"); do
        local start end
        start=$(date +%s.%N)
        "$build/invidx-run" "$pipeline" --input "$collection" --output "$work/idx-$1" \
            --set progress=off --set store.documents="$1" >/dev/null
        end=$(date +%s.%N)
        awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
    done | best
}
off=$(time_build false)
on=$(time_build true)
echo "| store | best of $repeats build s | speed vs off |"
echo "|---|---|---|"
echo "| off | $off | 1.00 |"
echo "| on | $on | $(awk -v a="$off" -v b="$on" 'BEGIN { printf "%.2f", a / b }') |"
echo
"$build/invidx_document_store_bench" "$work/idx-true" 20000
