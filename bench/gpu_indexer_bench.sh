#!/usr/bin/env bash
# Issue #3's benchmark, one call on the GPU machine (16 cores, one H100):
# build with the carried Debian packages (../shared/device/README.md), run the
# GPU tests and compute-sanitizer on a small input, then end-to-end MB/s and
# per-indexer tokens/s on the same generated collections for the best
# CPU-only ratios, CPU+GPU ratios, a GPU indexer alone and one CPU indexer
# alone. Logs and JSON under $OUT; the tables last.
# Usage (repo root there): OUT=/some/dir bench/gpu_indexer_bench.sh [REALISTIC_MB] [SYNTHETIC_MB]
set -uo pipefail
realistic_mb=${1:-2000}
synthetic_mb=${2:-1000}
out=${OUT:-/tmp/out}
mkdir -p "$out"
source bench/gpu_machine_build.sh
./build-gpu/invidx-run --list-kinds | tail -4
ctest --test-dir build-gpu -j8 > "$out/ctest.log" 2>&1; echo "ctest rc=$?"; grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | head -20
./build-gpu/invidx_tests -tc='*gpu*' -s > "$out/gpu-tests.log" 2>&1; echo "gpu doctest rc=$?"; tail -3 "$out/gpu-tests.log"

if [ "${SKIP_SANITIZER:-0}" != 1 ] && command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 ./build-gpu/invidx_tests \
      -tc='gpu indexer: one indexer owning everything*' > "$out/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool rc=$? ($(grep -c 'ERROR SUMMARY: 0 errors' "$out/sanitizer-$tool.log") clean summaries)"
    grep "ERROR SUMMARY" "$out/sanitizer-$tool.log" | sort | uniq -c | head -3
  done
fi

[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
# COLLECTIONS and CONFIGS narrow a run down (e.g. CONFIGS=bench/configs/gpu-15-0-1.json COLLECTIONS=real);
# SETTINGS are --set overrides for every run (default: 48 tokens, 8 decoders,
# so that reading and decoding do not hide the indexers: docs/performance-log.md,
# "GPU indexers, 16 cores and one H100").
read -r -a settings <<< "${SETTINGS:-memory.tokens=48 decompress.count=8}"
set_args=()
for setting in "${settings[@]}"; do set_args+=(--set "$setting"); done
collections=${COLLECTIONS:-real synth}
[ -d /tmp/real ] || python3 bench/gen_collection.py --kind realistic --size-mb "$realistic_mb" --files 32 --jobs 16 --out /tmp/real > /tmp/gen.log 2>&1 || { tail /tmp/gen.log; exit 1; }
case "$collections" in *synth*)
  [ -d /tmp/synth ] || python3 bench/gen_collection.py --kind synthetic --size-mb "$synthetic_mb" --files 32 --jobs 16 --out /tmp/synth > /tmp/gen2.log 2>&1 || { tail /tmp/gen2.log; exit 1; } ;;
esac
du -sh /tmp/real /tmp/synth 2> /dev/null
configs=${CONFIGS:-bench/configs/cpu-14-2.json,bench/configs/cpu-12-4.json,bench/configs/cpu-10-6.json,bench/configs/cpu-15-1.json,bench/configs/gpu-12-2-1.json,bench/configs/gpu-14-1-1.json,bench/configs/gpu-15-0-1.json,bench/configs/gpu-btree-14-1-1.json,bench/configs/gpu-btree-15-0-1.json}
for coll in $collections; do
  python3 bench/run_pipeline_bench.py --invidx-run build-gpu/invidx-run --collection /tmp/$coll \
    --configs "$configs" --repeat "${REPEAT:-2}" "${set_args[@]}" --json "$out/bench-$coll.json" --timeout 240 > "$out/bench-$coll.txt" 2>&1
  echo "== $coll"; tail -11 "$out/bench-$coll.txt"
done
for coll in $collections; do echo "== $coll per indexer"; python3 bench/indexer_table.py "$out/bench-$coll.json"; done
