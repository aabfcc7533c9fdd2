#!/usr/bin/env bash
# Query streams: builds an index from a generated
# collection as bench/query_bench.sh does (gen_collection.py, invidx-run,
# merge --layout query), then runs invidx_query_stream_bench on it: queries
# arriving by a Poisson process at doubling rates through the CPU/GPU
# scheduler, configurations cpu, gpu and both (cpu only without a GPU); mean,
# p99 and max latency per rate and the highest rate held with every query
# under the deadline (500 ms), table last.
#
#   bench/query_stream.sh [--build DIR] [--kind realistic|synthetic] [--size-mb N] [--codec NAME]
#                         [--keep DIR] [-- BENCH-OPTIONS...]
#
# Defaults: realistic, 300 MB, bp128. BENCH-OPTIONS go to the program:
# --queries N (20000 a rate), --cpu-threads N (hardware threads - 1),
# --mode and|or, --k K, --max-seconds S (4 s of arrivals a rate at most),
# --configs cpu,gpu,both, --query-file FILE (e.g. query_bench.sh's
# queries.tsv from the same --keep DIR). The collection and index live in a
# temporary directory removed at the end, unless --keep DIR (then a second
# run with the same DIR reuses them, as query_bench.sh's do).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
kind=realistic
size_mb=300
codec=bp128
keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --codec) codec=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "query_stream.sh: unknown argument $1 (program options go after --)" >&2; exit 2 ;;
  esac
done

source bench/query_index.sh
prepare_query_index invidx_query_stream_bench
"$build/invidx_query_stream_bench" "$work/index" "$@"
