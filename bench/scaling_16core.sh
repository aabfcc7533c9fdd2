#!/usr/bin/env bash
# Issue #4 item 4: throughput against the number of parsers on the GPU
# machine's 16 cores, CPU only, default settings, one realistic collection.
# Usage (repo root there, .deps carried): OUT=/dir bench/scaling_16core.sh [SIZE_MB]
set -uo pipefail
size_mb=${1:-2000}
out=${OUT:-/tmp/out}
mkdir -p "$out"
BUILD_TARGETS=invidx-run source bench/gpu_machine_build.sh
[ -d /tmp/real ] || python3 bench/gen_collection.py --kind realistic --size-mb "$size_mb" --files 32 --jobs 16 --out /tmp/real > /tmp/gen.log 2>&1
configs=""
for c in 1-1 2-1 4-2 6-2 8-4 10-6 12-4 14-2; do configs="$configs${configs:+,}bench/configs/cpu-$c.json"; done
python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/real --configs "$configs" \
  --repeat "${REPEAT:-1}" --json "$out/scaling.json" --timeout 300 > "$out/scaling.txt" 2>&1
tail -12 "$out/scaling.txt"
