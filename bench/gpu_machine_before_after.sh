#!/usr/bin/env bash
# One call on the GPU machine (16 cores, one H100): builds this tree (with
# CUDA and the carried Debian packages) and an older tree from a source
# tarball (CPU only, same compiler), runs the tests, then compares the two
# on the same generated collections: 2 cores (taskset 0,1) and all 16 cores,
# CPU-only configurations, plus the parser's own MB/s per instruction set
# and a CPU+GPU-indexer configuration of the new build. Tables last.
#   OLD_SRC=.carry/base-src.tar.gz OUT=/some/dir bench/gpu_machine_before_after.sh
# SKIP_TESTS=1 skips ctest; REPEAT (default 3) runs per side.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
source bench/gpu_machine_build.sh
repeat=${REPEAT:-3}
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  ctest --test-dir build-gpu -j8 > "$out/ctest.log" 2>&1; echo "ctest rc=$?"
  grep -E "tests passed|tests failed" "$out/ctest.log"; grep -E '\(Failed\)' "$out/ctest.log" | head
  ./build-gpu/invidx_tests -tc='*gpu*' > "$out/gpu-tests.log" 2>&1; echo "gpu doctest rc=$?"; tail -3 "$out/gpu-tests.log"
fi
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xzf "${OLD_SRC:?OLD_SRC: a source tarball of the older tree}" -C /tmp/old --strip-components=1
cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DINVIDX_WITH_CUDA=OFF -DINVIDX_BUILD_TESTS=OFF > /tmp/old-cmake.log 2>&1 &&
  cmake --build /tmp/old/build -j16 --target invidx-run > /tmp/old-build.log 2>&1 || { tail -20 /tmp/old-build.log; exit 1; }
[ -d /tmp/r600 ] || python3 bench/gen_collection.py --kind realistic --size-mb 600 --files 8 --jobs 16 --out /tmp/r600 > /dev/null 2>&1
[ -d /tmp/r2000 ] || python3 bench/gen_collection.py --kind realistic --size-mb 2000 --files 32 --jobs 16 --out /tmp/r2000 > /dev/null 2>&1
{
  echo "== parser alone, one thread (MB/s per core by instruction set)"
  bench/parser_bench.sh --build build-gpu --collection /tmp/r600 2>&1 | tail -12
  echo "== 2 cores (taskset 0,1), cpu 2:1, 600 MB realistic"
  bench/ab_throughput.sh /tmp/old/build/invidx-run build-gpu/invidx-run /tmp/r600 bench/configs/cpu-2-1.json "$repeat" 0,1 \
    --set memory.tokens=16 --set decompress.count=1 2>&1 | tail -5
  for config in cpu-12-4 cpu-14-2; do
    echo "== 16 cores, $config, 2 GB realistic"
    bench/ab_throughput.sh /tmp/old/build/invidx-run build-gpu/invidx-run /tmp/r2000 bench/configs/$config.json "$repeat" "" \
      --set memory.tokens=48 --set decompress.count=8 2>&1 | tail -5
  done
  echo "== 16 cores + H100, new build only, gpu 12:2:1, 2 GB realistic"
  python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/r2000 \
    --configs bench/configs/gpu-12-2-1.json,bench/configs/cpu-12-4.json --repeat 2 --set memory.tokens=48 --set decompress.count=8 2>&1 | tail -5
  echo "== 16 cores + H100, new build only, GPU parsers beside 12 CPU parsers against CPU parsers only, 2 GB realistic"
  python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/r2000 \
    --configs bench/configs/gpu-parse-12-4.json,bench/configs/cpu-12-4.json --repeat 2 --set memory.tokens=48 --set decompress.count=8 2>&1 | tail -5
} 2>&1 | tee "$out/before_after.txt"
