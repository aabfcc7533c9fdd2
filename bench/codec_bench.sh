#!/usr/bin/env bash
# Integer codecs on a real index: builds an index and runs
# invidx_codec_bench on it, which prints bits per docid and per tf and the
# single-thread decode and encode speeds of every codec, table last.
#
#   bench/codec_bench.sh [--build DIR] [--repeat R] [--kind realistic|synthetic --size-mb N] [--gpu]
#
# Without --size-mb the index is the bundled sample collection (143 pages:
# short lists, few full blocks); with it, a collection of N MB made by
# bench/gen_collection.py (kind realistic by default). Index and collection
# live in a temporary directory that is removed at the end. --gpu adds the
# GPU decoding of PForDelta and Rice (every block; PForDelta also every list)
# and of bp128's full blocks, checked against the CPU (needs a CUDA build and
# device).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
repeat=5
kind=realistic
size_mb=0
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --gpu) extra+=(--gpu); shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "codec_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$build" -j"$(nproc)" --target invidx-run invidx_codec_bench >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
input=()
collection="sample/debian-docs.warc.gz"
if [ "$size_mb" != 0 ]; then
  collection="gen_collection.py --kind $kind --size-mb $size_mb --files 8"
  python3 bench/gen_collection.py --kind "$kind" --size-mb "$size_mb" --files 8 --jobs "$(nproc)" \
    --out "$work/collection" >&2
  input=(--input "$work/collection")
fi
"$build/invidx-run" configs/default.json "${input[@]}" --output "$work/index" --progress off --quiet >&2

echo "machine: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(date -u +%F)"
echo "collection: $collection"
"$build/invidx_codec_bench" "$work/index" --repeat "$repeat" "${extra[@]}"
