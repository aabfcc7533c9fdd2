#!/usr/bin/env bash
# One call on the GPU machine: build the dictionary targets, run the GPU
# lookup tests (device answers against the host's), then the dictionary
# bench with --gpu on a generated synthetic collection's index (bytes per
# term, CPU lookups/s, GPU kernel and with-copies lookups/s for the XBW trie
# and the hash table). Logs under $OUT. Not yet run: written on a machine
# without a GPU.
# Usage (from the repo root there): OUT=/some/dir bench/gpu_dictionary_run.sh [SIZE_MB]
set -uo pipefail
size_mb=${1:-300}
out=${OUT:-/tmp/out}
mkdir -p "$out"
BUILD_TARGETS="invidx_tests invidx-run invidx-cli invidx_dictionary_bench"
source bench/gpu_machine_build.sh
./build-gpu/invidx_tests -tc='*gpu_find_terms*,*xbw*,*hashed terms*,*term lookup*' > "$out/tests.log" 2>&1
echo "lookup tests rc=$?"; tail -3 "$out/tests.log"
python3 bench/gen_collection.py --kind synthetic --size-mb "$size_mb" --files 16 --jobs "$(nproc)" --out /tmp/dict-coll > /tmp/gen.log 2>&1 ||
  { tail /tmp/gen.log; exit 1; }
./build-gpu/invidx-run configs/default.json --input /tmp/dict-coll --output /tmp/dict-idx --progress off --quiet > "$out/build-index.log" 2>&1 ||
  { tail "$out/build-index.log"; exit 1; }
./build-gpu/invidx_dictionary_bench /tmp/dict-idx --gpu 2>&1 | tee "$out/dictionary_bench.txt"
