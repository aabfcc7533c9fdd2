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
# SIZE_MB (default 1000) sizes the collection; SANITIZE=0 skips compute-sanitizer,
# PIPELINE=0 the 16-core pipeline runs, PROFILE=0 nsys; CORE_COUNTS ("4 8 16", "none" skips);
# EXTRA=1 adds BM25 weighting and dictionary benches on an index of the
# collection, and per-kernel times of the GPU parser with ncu (NCU=0 skips
# ncu, DICTIONARY=0 the dictionary bench).
set -uo pipefail
source bench/carried_setup.sh
tests=build-dev/invidx_tests
gpu_cases='*gpu*,*GPU*,*device*,scheduler*,configs/6-2-2*,--list-kinds*'
timeout 300 "$tests" -tc="$gpu_cases" > "$out/gpu-tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "ERROR|FATAL|SIGSEGV|test cases:" "$out/gpu-tests.log" | head -30
build-dev/invidx-run --list-kinds 2>&1 | tail -4

size_mb=${SIZE_MB:-1000}
python3 bench/gen_collection.py --kind realistic --size-mb "$size_mb" --files 16 --jobs 16 --out /tmp/coll > /tmp/gen.log 2>&1 || { tail /tmp/gen.log; }
du -sh /tmp/coll
echo "== one GPU analyzer alone, 2 MiB batches (checked against the host reference), then positional"
build-dev/invidx_gpu_parse_bench --check /tmp/coll 2>&1 | tee "$out/gpu-parse-bench.txt" | tail -12
build-dev/invidx_gpu_parse_bench --positions /tmp/coll 2>&1 | tee "$out/gpu-parse-bench-positions.txt" | sed -n '2p;4p;5p'
if [ "${PIPELINE:-1}" = 1 ]; then
python3 bench/run_pipeline_bench.py --invidx-run build-dev/invidx-run --collection /tmp/coll \
  --configs bench/configs/gpu-parse-12-4.json,bench/configs/cpu-12-4.json,bench/configs/gpu-12-2-1.json --repeat 2 \
  --set memory.tokens=48 --set decompress.count=8 --json "$out/parse-bench.json" --timeout 200 > "$out/parse-bench.txt" 2>&1
tail -6 "$out/parse-bench.txt"
# GPU parsers alone (parse.count 0): every batch goes through the device.
python3 bench/run_pipeline_bench.py --invidx-run build-dev/invidx-run --collection /tmp/coll \
  --configs bench/configs/gpu-parse-12-4.json --repeat 2 --set parse.count=0 \
  --set memory.tokens=48 --set decompress.count=8 --json "$out/gpu-only-2.json" --timeout 200 > "$out/gpu-only-2.txt" 2>&1
python3 bench/run_pipeline_bench.py --invidx-run build-dev/invidx-run --collection /tmp/coll \
  --configs bench/configs/gpu-parse-12-4.json --repeat 2 --set parse.count=0 --set 'parse.gpus=[{"device":"gpu:0","slots":4}]' \
  --set memory.tokens=48 --set decompress.count=8 --json "$out/gpu-only-4.json" --timeout 200 > "$out/gpu-only-4.txt" 2>&1
echo "GPU parsers only, 2 slots then 4 slots:"; tail -1 "$out/gpu-only-2.txt"; tail -1 "$out/gpu-only-4.txt"
# Where a GPU parser's time goes (report.json parse section, first run of each).
python3 - "$out/gpu-only-2.json" "$out/gpu-only-4.json" "$out/parse-bench.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    runs = json.load(open(path))["runs"]
    for config, results in runs.items():
        parse = results[0]["report"].get("parse", {})
        for p in parse.get("parsers", []):
            if p["kind"] != "gpu":
                continue
            times = {k: round(v, 3) for k, v in p.get("analyzer_seconds", {}).items()}
            print(path.split("/")[-1], p["device"], "slots", p["slots"], "batches", p["batches"],
                  "MB", round(p["text_bytes"] / 1e6), "busy s", round(p["busy_seconds"], 3), times)
PY
fi
if [ "${CORE_COUNTS:-}" != none ]; then
  echo "== GPU parsers against CPU parsers on 4, 8 and 16 cores"
  bash bench/gpu_parse_cores.sh build-dev/invidx-run /tmp/coll ${CORE_COUNTS:-4 8 16} 2>&1 | tee "$out/parse-cores.txt"
fi
echo "== configs/default.json (GPUs parse where present) against --set parse.gpus=none, 16 cores"
python3 bench/run_pipeline_bench.py --invidx-run build-dev/invidx-run --collection /tmp/coll --configs configs/default.json \
  --repeat 2 --set memory.tokens=48 --timeout 300 2>&1 | tail -1
python3 bench/run_pipeline_bench.py --invidx-run build-dev/invidx-run --collection /tmp/coll --configs configs/default.json \
  --repeat 2 --set memory.tokens=48 --set parse.gpus=none --timeout 300 2>&1 | tail -1 | sed 's/^default.json /default.json (CPU)/'
if [ "${EXTRA:-0}" = 1 ]; then
  echo "== per-kernel times (ncu), then an index of the collection: BM25 weighting and the term dictionaries on the GPU"
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
  if [ -n "$ncu" ] && [ "${NCU:-1}" = 1 ]; then
    echo "== per-kernel device time of the GPU parser (ncu, 40 MB, kernels 200-499)"
    python3 bench/gen_collection.py --kind realistic --size-mb 40 --files 2 --out /tmp/small > /dev/null 2>&1
    timeout 150 "$ncu" --metrics gpu__time_duration.sum --csv --launch-skip 200 --launch-count 300 \
      build-dev/invidx_gpu_parse_bench --passes 1 /tmp/small > "$out/ncu.csv" 2> "$out/ncu.err"
    python3 bench/kernel_times.py "$out/ncu.csv" | tail -25
  else
    echo "no ncu here"; ls /usr/local/cuda/bin | tr '\n' ' ' | head -c 600; echo
  fi
  build-dev/invidx-run configs/default.json --input /tmp/coll --output /tmp/idx --progress off --quiet > "$out/index.log" 2>&1 || tail -5 "$out/index.log"
  build-dev/invidx merge /tmp/idx --layout query >> "$out/index.log" 2>&1 || tail -5 "$out/index.log"
  timeout ${WEIGHT_TIMEOUT:-150} build-dev/invidx_weight_bench /tmp/idx --gpu --wired --repeat 3 2>&1 | tee "$out/weight-bench.txt" | tail -12
  [ "${DICTIONARY:-1}" = 1 ] && timeout 120 build-dev/invidx_dictionary_bench /tmp/idx --gpu 2>&1 | tee "$out/dictionary-bench.txt" | tail -12
fi
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys 2>/dev/null || true)
if [ -n "$nsys" ] && [ "${PROFILE:-1}" = 1 ]; then
  timeout 150 "$nsys" profile -o /tmp/gpu-parse --force-overwrite true --stats=false build-dev/invidx-run bench/configs/gpu-parse-12-4.json \
    --input /tmp/coll --output /tmp/prof-index --set parse.count=0 --quiet > "$out/nsys.log" 2>&1
  timeout 60 "$nsys" stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum --format csv -o "$out/nsys" /tmp/gpu-parse.nsys-rep > /dev/null 2>&1
  head -12 "$out"/nsys_cuda_gpu_kern_sum.csv 2>/dev/null | cut -c1-200
else
  echo "no nsys here"
fi

if [ "${SANITIZE:-1}" = 1 ]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  device_cases=${SANITIZE_CASES:-'gpu_analyze_batch: the sample*,gpu_analyze_batch: generated*,GpuBatchAnalyzer: batch after*,gpu parse batch*'}
  for tool in memcheck racecheck; do
    timeout 120 "$sanitizer" --tool "$tool" --error-exitcode 9 "$tests" -tc="$device_cases" > "$out/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases:" "$out/sanitizer-$tool.log" | tail -3
  done
fi
