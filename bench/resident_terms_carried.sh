#!/usr/bin/env bash
# Issue #11 on the GPU machine, binaries carried (bench/carried_setup.sh):
# configs/default.json (GPU parsers whose terms for the gpu_hash indexer
# stay on the device, CPU indexers for the popular collections), against
# the same graph bringing every term back (bench/configs/gpu-parse-gpu-index
# with resident_terms false), GPU parsers with CPU indexers only, and CPU
# parsers only (parse.gpus=none). The
# configurations run in turn, REPEAT rounds, on one collection: generated
# (COLLECTION=generated, SIZE_MB of bench/gen_collection.py's realistic
# pages, the default) or the real Debian pages of bench/real_pages_carried.sh
# (COLLECTION=real; needs .deps/doc-debs). TESTS=1 first runs the GPU test
# cases and compute-sanitizer memcheck on a small build with terms on the
# device. GPUS=2 uses the two-GPU configs (both GPUs parse, a gpu_hash
# indexer on each). Table last: MB/s per run and median, process CPU
# core-seconds per GB, share of the GPU parsers' terms that stayed on the
# device, GPU indexers' busy seconds, peak RSS. VARIANTS adds config_sweep
# variants of the GPU-indexer config (LABEL=K=V,...).
#   OUT=... COLLECTION=real SIZE_MB=8000 REPEAT=3 TESTS=0 bash bench/resident_terms_carried.sh
set -uo pipefail
source bench/carried_setup.sh
size=${SIZE_MB:-3000}
if [ "${COLLECTION:-generated}" = real ]; then
  coll=/tmp/real
  if [ ! -d "$coll" ]; then
    rm -rf /tmp/realdocs && mkdir -p /tmp/realdocs
    for deb in .deps/doc-debs/*.deb; do dpkg -x "$deb" /tmp/realdocs; done
    python3 bench/gen_collection.py --kind realistic --source /tmp/realdocs --size-mb "$size" --files 32 \
      --level 6 --jobs "$(nproc)" --out "$coll" > "$out/gen.log" 2>&1 || { tail -5 "$out/gen.log"; exit 1; }
  fi
else
  coll=/tmp/coll
  [ -d "$coll" ] || python3 bench/gen_collection.py --kind realistic --size-mb "$size" --files 16 --jobs "$(nproc)" \
    --out "$coll" > "$out/gen.log" 2>&1 || { tail -5 "$out/gen.log"; exit 1; }
fi
du -sb "$coll" | awk '{printf "collection: %.0f MB compressed\n", $1 / 1e6}'
if [ "${TESTS:-1}" = 1 ]; then
  timeout "${TEST_TIMEOUT:-300}" build-dev/invidx_tests -tc='*gpu*' > "$out/gpu-tests.txt" 2>&1
  echo "GPU test cases: rc $?"; tail -3 "$out/gpu-tests.txt"
  if command -v compute-sanitizer > /dev/null; then
    rm -rf /tmp/san-idx
    timeout 300 compute-sanitizer --tool memcheck --leak-check no build-dev/invidx-run bench/configs/gpu-parse-gpu-index.json \
      --input sample/debian-docs.warc.gz --output /tmp/san-idx --quiet --progress off \
      --set memory.batch_bytes=65536 > "$out/memcheck.txt" 2>&1
    echo "compute-sanitizer memcheck, terms on the device: rc $?, $(grep -c 'Invalid\|Error' "$out/memcheck.txt") error lines"
    tail -2 "$out/memcheck.txt"
    rm -rf /tmp/san-idx
    # Two slots: racecheck serializes the streams, and six did not finish in 300 s.
    timeout 300 compute-sanitizer --tool racecheck build-dev/invidx-run bench/configs/gpu-parse-gpu-index.json \
      --input sample/debian-docs.warc.gz --output /tmp/san-idx --quiet --progress off \
      --set memory.batch_bytes=65536 --set parse.gpus.0.slots=2 > "$out/racecheck.txt" 2>&1
    echo "compute-sanitizer racecheck, terms on the device: rc $?"; tail -2 "$out/racecheck.txt"
  fi
fi
if [ "${GPUS:-1}" = 2 ]; then
  resident_config=bench/configs/gpu-parse-gpu-index-2gpu.json
  host_terms=parse.gpus.0.resident_terms=false,parse.gpus.1.resident_terms=false
else
  resident_config=bench/configs/gpu-parse-gpu-index.json
  host_terms=parse.gpus.0.resident_terms=false
fi
for r in $(seq 1 "${REPEAT:-3}"); do
  REPORTS="$out/reports/$r" bash bench/config_sweep.sh build-dev/invidx-run "$coll" configs/default.json 1 \
    default= 'gpuparse-cpuidx=index.indexers=[{"kind":"cpu_btree"}]' cpu-only=parse.gpus=none > /dev/null 2>&1 ||
    echo "sweep failed"
  REPORTS="$out/reports/$r" bash bench/config_sweep.sh build-dev/invidx-run "$coll" "$resident_config" 1 \
    gpuidx-host=$host_terms ${VARIANTS:-} > /dev/null 2>&1 || echo "sweep failed"
done
python3 - "$out/reports" <<'PY'
import glob, json, os, statistics, sys
root = sys.argv[1]
labels = ["default", "gpuidx-host", "gpuparse-cpuidx", "cpu-only"]
for path in sorted(glob.glob(os.path.join(root, "1", "*-1.json"))):  # VARIANTS' labels too
    label = os.path.basename(path)[:-len("-1.json")]
    if label not in labels:
        labels.insert(2, label)
print("| configuration | MB/s per run | median MB/s | CPU core-s/GB | GPU parsers' terms kept on device | GPU indexer busy s | peak RSS MiB |")
print("|---|---|---:|---:|---:|---:|---:|")
for label in labels:
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(root, "*", label + "-1.json")))]
    if not runs:
        continue
    rates = [r["input_bytes_uncompressed"] / 1e6 / r["total_seconds"] for r in runs]
    cpu = statistics.median(r["cpu_seconds"] / (r["input_bytes_uncompressed"] / 1e9) for r in runs)
    gpus = [p for p in runs[-1]["parse"]["parsers"] if p["kind"] == "gpu"]
    kept = sum(p.get("terms_on_device", 0) for p in gpus)
    back = sum(p.get("terms_to_host", 0) for p in gpus)
    share = "%.1f%%" % (100.0 * kept / (kept + back)) if kept + back else "-"
    busy = sum(i.get("busy_seconds", 0) for i in runs[-1]["indexers"] if str(i.get("device", "cpu")).startswith("gpu"))
    rss = runs[-1].get("peak_rss_bytes", 0) / 2**20
    print("| %s | %s | %.0f | %.2f | %s | %s | %.0f |" % (
        label, ", ".join("%.0f" % x for x in rates), statistics.median(rates), cpu, share,
        "%.2f" % busy if busy else "-", rss))
PY
