#!/usr/bin/env bash
# Query latency: builds an index from a generated collection,
# merges it with the query layout, and runs invidx_query_bench on it, which
# times ~200 queries drawn from the index's vocabulary (1-5 terms, frequent,
# medium and rare) on one thread, AND and OR, on the run files (lists decoded
# whole; MaxScore for OR) and on the query layout (block skipping; block-max
# MaxScore for OR, and Block-Max WAND for comparison): mean and p99 latency
# per mode, k and path, table last.
#
#   bench/query_bench.sh [--build DIR] [--kind realistic|synthetic] [--size-mb N] [--codec NAME]
#                        [--queries N] [--repeat R] [--k K]... [--keep DIR] [--impacts BITS]
#
# Defaults: realistic, 300 MB, bp128, 200 queries, 5 runs each, k 10 and 1000.
# The collection and index live in a temporary directory removed at the end,
# unless --keep DIR (then they stay in DIR, with the queries in queries.tsv,
# and a second run with the same DIR reuses them). --gpu adds the GPU path
# (lists cached on the device; needs a CUDA build and device). --impacts BITS
# runs `invidx weight --bits BITS` on the index after the merge, which adds
# rows for --scoring impact (quantized BM25 impacts) on the same index.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
kind=realistic
size_mb=300
codec=bp128
queries=200
repeat=5
depths=()
keep=
impacts=
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --codec) codec=$2; shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --k) depths+=(--k "$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --gpu) extra+=(--gpu); shift ;;
    --impacts) impacts=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "query_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

source bench/query_index.sh
prepare_query_index invidx_query_bench
if [ -n "$impacts" ]; then
  "$build/invidx" weight "$work/index" --bits "$impacts" >&2
fi
"$build/invidx_query_bench" "$work/index" --queries "$queries" --repeat "$repeat" "${depths[@]}" \
  --write-queries "$work/queries.tsv" "${extra[@]}"
