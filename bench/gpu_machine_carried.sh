#!/usr/bin/env bash
# One call on the GPU machine without building there: runs binaries built on
# a CPU machine (nvcc, -DCMAKE_CUDA_ARCHITECTURES=90 -DINVIDX_WITH_MPI=OFF)
# and carried in $BIN with the Debian packages in .deps/. Runs the GPU tests,
# then GPU parsers beside CPU parsers against CPU parsers alone on a
# generated collection, then compute-sanitizer on the device tests. Logs
# under $OUT, a short table last.
#   On the CPU machine: cmake -S . -B build-dev -DCMAKE_CUDA_ARCHITECTURES=90 -DINVIDX_WITH_MPI=OFF
#     && cmake --build build-dev && mkdir -p .carry/bin && cp build-dev/invidx* .carry/bin && strip .carry/bin/*
#   There: BUILT_AT=/path/of/the/tree/where/built BIN=.carry/bin OUT=... bench/gpu_machine_carried.sh
# SIZE_MB (default 1000) sizes the collection; SANITIZE=0 skips compute-sanitizer.
set -uo pipefail
out=${OUT:-/tmp/out}
bin=${BIN:-.carry/bin}
mkdir -p "$out"
rm -rf /tmp/pfx && eval "$(bash .deps/prefix.sh .deps/debs /tmp/pfx)"
nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
# The tests find the sample collection and the command-line tools at the
# paths of the tree they were built in (INVIDX_SOURCE_DIR, INVIDX_TOOLS_DIR).
built_at=${BUILT_AT:-/work/main}
if [ "$(cd "$built_at" 2>/dev/null && pwd -P)" != "$(pwd -P)" ]; then
  mkdir -p "$(dirname "$built_at")" && ln -sfn "$(pwd -P)" "$built_at" || echo "cannot link $built_at here: tests reading the sample will fail"
fi
mkdir -p build-dev && cp -f "$bin"/* build-dev/ 2>/dev/null
tests=build-dev/invidx_tests
gpu_cases='*gpu*,*GPU*,*device*,scheduler*,configs/6-2-2*,--list-kinds*'
timeout 300 "$tests" -tc="$gpu_cases" > "$out/gpu-tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "ERROR|FATAL|SIGSEGV|test cases:" "$out/gpu-tests.log" | head -30
build-dev/invidx-run --list-kinds 2>&1 | tail -4

size_mb=${SIZE_MB:-1000}
python3 bench/gen_collection.py --kind realistic --size-mb "$size_mb" --files 16 --jobs 16 --out /tmp/coll > /tmp/gen.log 2>&1 || { tail /tmp/gen.log; }
du -sh /tmp/coll
python3 bench/run_pipeline_bench.py --invidx-run build-dev/invidx-run --collection /tmp/coll \
  --configs bench/configs/gpu-parse-12-4.json,bench/configs/cpu-12-4.json,bench/configs/gpu-12-2-1.json --repeat 2 \
  --set memory.tokens=48 --set decompress.count=8 --json "$out/parse-bench.json" --timeout 200 > "$out/parse-bench.txt" 2>&1
tail -6 "$out/parse-bench.txt"

if [ "${SANITIZE:-1}" = 1 ]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  device_cases='gpu_analyze_batch*,GpuBatchAnalyzer*,gpu parse batch*,gpu_find_terms*,GPU weights*'
  for tool in memcheck racecheck; do
    timeout 150 "$sanitizer" --tool "$tool" --error-exitcode 9 "$tests" -tc="$device_cases" > "$out/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases:" "$out/sanitizer-$tool.log" | tail -3
  done
fi
