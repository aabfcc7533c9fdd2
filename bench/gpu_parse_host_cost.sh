#!/usr/bin/env bash
# What GPU parsing costs the host, before and after a change, on the GPU
# machine with binaries carried from here (bench/carried_setup.sh):
# the GPU test cases, the analyzer alone against the host reference
# (invidx_gpu_parse_bench --check), then configs/default.json built
# alternately by BEFORE's and this tree's invidx-run (bench/ab_cpu_time.py:
# MB/s, process CPU core-seconds per GB, parse busy s/GB; BINS="a=PATH
# b=PATH ..." for more builds), once per config of CONFIGS, EXTRA adding
# options (e.g. "--set parse.gpus=none"), report.json files kept in
# $OUT/reports-CONFIG$TAG and the last build's node table printed; the
# collection is generated once (/tmp/coll), TESTS=0 skips the tests and the
# analyzer check. Tables last.
#   OUT=... BEFORE=.carry/before/invidx-run SIZE_MB=3000 REPEAT=4 bash bench/gpu_parse_host_cost.sh
set -uo pipefail
source bench/carried_setup.sh
before=${BEFORE:-.carry/before/invidx-run}
[ -d /tmp/coll ] || python3 bench/gen_collection.py --kind realistic --size-mb "${SIZE_MB:-3000}" --files 16 --jobs "$(nproc)" \
  --out /tmp/coll > "$out/gen.log" 2>&1 || { tail -5 "$out/gen.log"; exit 1; }
du -sb /tmp/coll | awk '{printf "collection: %.0f MB compressed\n", $1 / 1e6}'
if [ -x build-dev/invidx_tests ] && [ "${TESTS:-1}" = 1 ]; then
  timeout "${TEST_TIMEOUT:-300}" build-dev/invidx_tests -tc='*gpu*' > "$out/gpu-tests.txt" 2>&1
  echo "GPU test cases: rc $?"; tail -4 "$out/gpu-tests.txt"
fi
if [ -x build-dev/invidx_gpu_parse_bench ] && [ "${TESTS:-1}" = 1 ]; then
  timeout 120 build-dev/invidx_gpu_parse_bench --check $(ls -d /tmp/coll/* | head -2) > "$out/gpu-parse-bench.txt" 2>&1
  echo "invidx_gpu_parse_bench --check: rc $?"; tail -8 "$out/gpu-parse-bench.txt"
fi
bins=()
for b in ${BINS:-before=$before after=build-dev/invidx-run}; do bins+=(--bin "$b"); done
for config in ${CONFIGS:-configs/default.json}; do
  name=$(basename "$config" .json)${TAG:-}
  python3 bench/ab_cpu_time.py --collection /tmp/coll --config "$config" "${bins[@]}" --repeat "${REPEAT:-4}" \
    --reports "$out/reports-$name" ${EXTRA:-} > "$out/ab-$name.txt" 2>&1
  last=$(ls -t "$out/reports-$name"/*.json | head -1)
  python3 bench/node_table.py "$last" "$(basename "$last" .json)" | tr '|' '\n' | head -12
  tail -$(( ${#bins[@]} / 2 + 3 )) "$out/ab-$name.txt"
done
