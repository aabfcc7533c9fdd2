#!/usr/bin/env bash
# BM25 weighting on the GPU machine with carried binaries (as
# bench/gpu_machine_carried.sh: built elsewhere with nvcc for sm_90, in $BIN,
# the Debian packages in .deps/): the weighting tests on the device, an index
# of a generated realistic collection with the query layout, then
# invidx_weight_bench --gpu (CPU on every core against the GPU, from gathered
# postings and from query.post's bp128 lists), and compute-sanitizer memcheck
# on the layout weighting tests; `invidx weight` on the GPU and on the CPU
# (their query.post must be the same bytes); with QUERY=1 (default) also
# invidx_query_bench --gpu on the weighted index (BM25 and impact rows, CPU
# and GPU). Logs under $OUT, the benches' tables last. BENCH=0: the tests
# and compute-sanitizer only.
#   BIN=.carry/bin OUT=/tmp/out SIZE_MB=2000 REPEAT=5 bash bench/gpu_weight_carried.sh
set -uo pipefail
source bench/carried_setup.sh
cases='*weight*,*Weight*,impacts from the query layout*,gpu_layout*,*impact*,gpu search*'
timeout 200 build-dev/invidx_tests -tc="$cases" > "$out/weight-tests.log" 2>&1
echo "weighting tests rc=$?"; grep -E "ERROR|FATAL|test cases:" "$out/weight-tests.log" | head -20
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 200 "$sanitizer" --tool memcheck --error-exitcode 9 build-dev/invidx_tests -tc='gpu_layout*,impacts from the query layout: malformed*,gpu search: impact*' \
  > "$out/sanitizer-memcheck.log" 2>&1
echo "compute-sanitizer memcheck rc=$?"; grep -E "ERROR SUMMARY|test cases:" "$out/sanitizer-memcheck.log" | tail -2
[ "${BENCH:-1}" = 1 ] || exit 0
python3 bench/gen_collection.py --kind realistic --size-mb "${SIZE_MB:-2000}" --files 16 --jobs 16 --out /tmp/coll > /tmp/gen.log 2>&1 || tail /tmp/gen.log
build-dev/invidx-run configs/default.json --input /tmp/coll --output /tmp/idx --progress off --quiet > "$out/index.log" 2>&1 || tail -5 "$out/index.log"
build-dev/invidx merge /tmp/idx --layout query >> "$out/index.log" 2>&1 || tail -5 "$out/index.log"
timeout ${WEIGHT_TIMEOUT:-240} build-dev/invidx_weight_bench /tmp/idx --gpu --wired --repeat "${REPEAT:-5}" 2>&1 | tee "$out/weight-bench.txt"
for device in gpu cpu; do
  rm -rf "/tmp/idx-$device" && cp -r /tmp/idx "/tmp/idx-$device"
  start=$(date +%s%N)
  build-dev/invidx weight "/tmp/idx-$device" --bits 8 --device "$device" 2>&1 | tee -a "$out/weight-cli.txt"
  echo "invidx weight --device $device: $(( ($(date +%s%N) - start) / 1000000 )) ms wall (process start, opening and writing the index included)"
done
cmp /tmp/idx-gpu/query.post /tmp/idx-cpu/query.post && echo "query.post: the GPU's and the CPU's are the same bytes"
if [ "${QUERY:-1}" = 1 ]; then
  timeout ${QUERY_TIMEOUT:-200} build-dev/invidx_query_bench /tmp/idx-gpu --gpu --queries "${QUERIES:-1000}" --repeat 3 --k 10 --k 1000 --batch 128 2>&1 \
    | tee "$out/query-bench.txt" | tail -30
fi
