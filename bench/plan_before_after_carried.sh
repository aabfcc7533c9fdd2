#!/usr/bin/env bash
# A whole build before and after a change of the engine's wiring (issue #27:
# one resolve step, nodes made from the plan), on the GPU machine with
# carried binaries (BIN: this tree's invidx-run, invidx, invidx_tests and
# the embedding examples; BASE: an older build's invidx-run). Runs the GPU
# test cases with the device required and the plan, pipeline and tool test
# cases, prints what configs/default.json settles to there, then builds a
# generated collection (SIZE_MB of realistic pages in FILES WARC.gz), old
# and new in turn (REPEAT each), with default.json (GPU parsers and a
# gpu_hash indexer where a GPU is) and CPU only; every build's CIFF export
# is hashed and compared. Tables last.
#   OUT=... BASE=.carry/base SIZE_MB=3000 FILES=32 REPEAT=3 bash bench/plan_before_after_carried.sh
set -uo pipefail
source bench/carried_setup.sh
base=${BASE:-.carry/base}
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  INVIDX_REQUIRE_GPU=1 ./build-dev/invidx_tests -ts=gpu > "$out/gpu-tests.log" 2>&1
  echo "invidx_tests -ts=gpu (device required) rc=$?"; tail -3 "$out/gpu-tests.log"
  tests=${TESTS:-plan:*,Device:*,*gpu*,*pipeline*,*parse*,*index*,*sampl*,*invidx-run*,*--plan*,*list-kinds*,examples:*}
  ./build-dev/invidx_tests -tc="$tests" > "$out/tests.log" 2>&1
  echo "invidx_tests -tc='$tests' rc=$?"; tail -3 "$out/tests.log"
fi
./build-dev/invidx-run configs/default.json --plan > "$out/plan.json" 2>&1
python3 bench/gen_collection.py --kind realistic --size-mb "${SIZE_MB:-3000}" --files "${FILES:-32}" \
  --jobs "$(nproc)" --out /tmp/gen > "$out/gen.log" 2>&1 || { tail -5 "$out/gen.log"; exit 1; }
mkdir -p "$out/builds"
for r in $(seq 1 "${REPEAT:-3}"); do
  for side in old new; do
    [ "$side" = old ] && run="$base/invidx-run" || run=build-dev/invidx-run
    for variant in gpu cpu; do
      sets=(); [ "$variant" = cpu ] && sets=(--set parse.gpus=none)
      rm -rf /tmp/idx
      "$run" configs/default.json --input /tmp/gen --output /tmp/idx --quiet --progress off "${sets[@]}" 2> "$out/run.log" ||
        { tail -5 "$out/run.log"; exit 1; }
      cp /tmp/idx/report.json "$out/builds/$variant-$side-$r.json"
      if [ "$r" = 1 ]; then
        ./build-dev/invidx export-ciff /tmp/idx /tmp/idx.ciff > /dev/null &&
          echo "$variant $side $(sha256sum < /tmp/idx.ciff | cut -c1-16)" >> "$out/ciff.txt"
      fi
    done
  done
done
echo "== CIFF (sha256 prefix) of each variant, old and new: one hash means one index"
cat "$out/ciff.txt"; cut -d' ' -f3 "$out/ciff.txt" | sort -u | wc -l
echo "== what default.json settled to here"
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print(json.dumps({k: p[k] for k in ('machine','memory_tokens','parse','terms_kept_on_device','sampler')}, indent=1))" "$out/plan.json" | head -40
python3 - "$out/builds" <<'PY'
import glob, json, os, statistics, sys
print("| build | MB/s per run | median | cpu core-s/GB | peak RSS MiB |")
print("|---|---|---:|---:|---:|")
for variant in ("gpu", "cpu"):
    for side in ("old", "new"):
        runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(sys.argv[1], "%s-%s-*.json" % (variant, side))))]
        if not runs: continue
        gb = [r["input_bytes_uncompressed"] / 1e9 for r in runs]
        rates = [r["throughput_mb_s"] for r in runs]
        cpu = [r["cpu_seconds"] / g for r, g in zip(runs, gb)]
        print("| %s %s | %s | %.0f | %.2f | %.0f |" % (variant, side, ", ".join("%.0f" % x for x in rates),
              statistics.median(rates), statistics.median(cpu), max(r["peak_rss_bytes"] for r in runs) / 2**20))
PY
