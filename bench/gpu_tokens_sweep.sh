#!/usr/bin/env bash
# GPU machine (16 cores): how the token budget and the number of decoders
# bound end-to-end throughput. Builds, generates a realistic 2 GB collection,
# prints one table per setting. Usage: OUT=dir bench/gpu_tokens_sweep.sh
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
BUILD_TARGETS=invidx-run source bench/gpu_machine_build.sh
python3 bench/gen_collection.py --kind realistic --size-mb 2000 --files 32 --jobs 16 --out /tmp/coll > /tmp/gen.log 2>&1 || exit 1
for setting in "memory.tokens=16 decompress.count=4" "memory.tokens=48 decompress.count=4" "memory.tokens=48 decompress.count=6" "memory.tokens=96 decompress.count=6"; do
  sets=""; for s in $setting; do sets="$sets --set $s"; done
  name=$(echo "$setting" | sed 's/[ =.]/_/g')
  python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/coll \
    --configs bench/configs/cpu-10-6.json,bench/configs/cpu-12-4.json $sets --json "$out/$name.json" --timeout 300 > /tmp/b.txt 2>&1
  echo "== $setting"; tail -3 /tmp/b.txt
done
