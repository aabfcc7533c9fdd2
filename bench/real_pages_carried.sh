#!/usr/bin/env bash
# Issue #11's real-pages bench on the GPU machine: Debian documentation
# packages carried as .debs (here: cd .deps/doc-debs && apt-get download
# python3.11-doc postgresql-doc-15 debian-reference-en, about 16 MB) are
# unpacked there (1,714 HTML pages), repeated into SIZE_MB of WARC.gz by
# bench/gen_collection.py (--source: each copy with 5% of its words swapped
# and a unique id term, gzip level LEVEL, one member per record as Common
# Crawl ships), then: GNU gzip -dc and Python zlib with one process per
# file (16 at once) as the decompression yardsticks, and configs/default.json
# with GPU parsers and with CPU parsers only (bench/config_sweep.sh, REPEAT
# runs each). Tables last.
#   OUT=... SIZE_MB=8000 LEVEL=6 REPEAT=2 bash bench/real_pages_carried.sh
set -uo pipefail
source bench/carried_setup.sh
rm -rf /tmp/realdocs && mkdir -p /tmp/realdocs
for deb in .deps/doc-debs/*.deb; do dpkg -x "$deb" /tmp/realdocs; done
echo "pages: $(find /tmp/realdocs -name '*.html' | wc -l)"
python3 bench/gen_collection.py --kind realistic --source /tmp/realdocs --size-mb "${SIZE_MB:-8000}" \
  --files "${FILES:-32}" --level "${LEVEL:-6}" --jobs "$(nproc)" --out /tmp/real > "$out/gen.log" 2>&1 ||
  { tail -5 "$out/gen.log"; exit 1; }
tail -2 "$out/gen.log" | head -1
text_mb=$(python3 -c "print(${SIZE_MB:-8000})")
start=$(date +%s.%N)
ls /tmp/real/*.gz | xargs -P "$(nproc)" -n1 sh -c 'gzip -dc "$0" > /dev/null'
end=$(date +%s.%N)
python3 -c "print('GNU gzip -dc, one process per file, %d at once: %.1f MB/s of WARC' % ($(nproc), $text_mb / ($end - $start)))"
start=$(date +%s.%N)
ls /tmp/real/*.gz | xargs -P "$(nproc)" -n1 python3 bench/zlib_gunzip.py
end=$(date +%s.%N)
python3 -c "print('Python zlib, one process per file, %d at once: %.1f MB/s of WARC' % ($(nproc), $text_mb / ($end - $start)))"
REPORTS="$out/real" bash bench/config_sweep.sh build-dev/invidx-run /tmp/real configs/default.json "${REPEAT:-2}" \
  gpu= cpu=parse.gpus=none 2>&1 | tail -4
python3 - "$out/real" <<'PY'
import glob, json, os, statistics, sys
for label in ("gpu", "cpu"):
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(sys.argv[1], label + "-*.json")))]
    gb = [r["input_bytes_uncompressed"] / 1e9 for r in runs]
    cpu = statistics.median(r["cpu_seconds"] / g for r, g in zip(runs, gb))
    parse = statistics.median(sum(p.get("host_cpu_seconds", p["busy_seconds"]) for p in r["parse"]["parsers"]) / g
                              for r, g in zip(runs, gb))
    print("%s: %.2f GB of WARC, %d documents, cpu %.2f core-s/GB, parsing's CPU %.2f s/GB"
          % (label, gb[0], runs[0]["documents"], cpu, parse))
PY
