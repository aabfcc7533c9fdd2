#!/usr/bin/env bash
# GPU parsers against CPU parsers as the cores grow: the same collection
# built on 4, 8 and 16 cores (taskset; oneTBB sizes its threads from the
# affinity mask) with CPU parsers only (bench/configs/cpu-12-4.json), GPU
# parsers only (the same with parse.count 0 and SLOTS slots on gpu:0, "4" by
# default, e.g. SLOTS="4 8") and both
# (bench/configs/gpu-parse-12-4.json: 12 CPU parsers + 2 slots). Prints one
# table per core count (MB/s of record text, median of REPEAT runs).
#   bench/gpu_parse_cores.sh INVIDX_RUN COLLECTION [CORE_COUNTS...]
set -uo pipefail
run=${1:?usage: gpu_parse_cores.sh INVIDX_RUN COLLECTION [CORE_COUNTS...]}
collection=${2:?usage: gpu_parse_cores.sh INVIDX_RUN COLLECTION [CORE_COUNTS...]}
shift 2
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(4 8 16)
repeat=${REPEAT:-2}
common=(--repeat "$repeat" --set memory.tokens=48 --set decompress.count=8 --timeout 300)
for cores in "${counts[@]}"; do
  cpus="0-$((cores - 1))"
  echo "== $cores cores (taskset -c $cpus)"
  taskset -c "$cpus" python3 bench/run_pipeline_bench.py --invidx-run "$run" --collection "$collection" \
    --configs bench/configs/cpu-12-4.json,bench/configs/gpu-parse-12-4.json "${common[@]}" 2>&1 | tail -3
  for slots in ${SLOTS:-4}; do
    taskset -c "$cpus" python3 bench/run_pipeline_bench.py --invidx-run "$run" --collection "$collection" \
      --configs bench/configs/gpu-parse-12-4.json --set parse.count=0 \
      --set "parse.gpus=[{\"device\":\"gpu:0\",\"slots\":$slots}]" "${common[@]}" 2>&1 | tail -1 |
      sed "s/^gpu-parse-12-4.json /gpu-only-$slots-slots   /"
  done
done
