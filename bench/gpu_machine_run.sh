#!/usr/bin/env bash
# One call on the GPU machine (16 cores, H100): build with the carried Debian
# packages (../shared/device/README.md), run the test suite, then the CPU
# pipeline benchmark on a generated realistic collection. Logs under $OUT.
# Usage (from the repo root there): OUT=/some/dir bench/gpu_machine_run.sh [SIZE_MB]
set -uo pipefail
size_mb=${1:-2000}
out=${OUT:-/tmp/out}
mkdir -p "$out"
source bench/gpu_machine_build.sh
./build-gpu/invidx-run --list-kinds | tail -3
ctest --test-dir build-gpu -j16 > "$out/ctest.log" 2>&1; echo "ctest rc=$?"; grep -E "tests passed|tests failed" "$out/ctest.log"
python3 bench/gen_collection.py --kind realistic --size-mb "$size_mb" --files 32 --jobs 16 --out /tmp/coll > /tmp/gen.log 2>&1 || { tail /tmp/gen.log; exit 1; }
du -sh /tmp/coll
# Parser:indexer ratios with one decoder (the old serial decompress), then
# with several files decoded at once.
python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/coll \
  --configs bench/configs/cpu-1-1.json,bench/configs/cpu-14-2.json --set decompress.count=1 \
  --json "$out/bench-d1.json" --timeout 300 > /tmp/bench-d1.txt 2>&1; tail -4 /tmp/bench-d1.txt
for decoders in 2 4 8; do
  python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/coll \
    --configs bench/configs/cpu-6-2.json,bench/configs/cpu-10-6.json,bench/configs/cpu-12-4.json,bench/configs/cpu-14-2.json \
    --set decompress.count=$decoders --json "$out/bench-d$decoders.json" --timeout 300 > /tmp/bench-d$decoders.txt 2>&1
  echo "decompress.count=$decoders"; tail -6 /tmp/bench-d$decoders.txt
done
