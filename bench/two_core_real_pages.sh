#!/usr/bin/env bash
# Issue #12's 2-core comparison on real pages: Debian documentation pages
# (python3.11-doc, postgresql-doc-15, debian-reference-en; .debs from
# `apt-get download` into DEBS, default .deps/doc-debs) repeated into SIZE_MB
# of WARC.gz (bench/gen_collection.py --source, level 6, a gzip member per
# record), then, REPEAT times: invidx (configs/default.json), Xapian and
# Lucene 8 (2 threads) by bench/compare_peers.py, and GNU gzip -dc and
# Python zlib with one process per file, two at once, as the decompression
# yardsticks (their MB/s over the same document MB as the others'). Needs bench/peers/build.sh's peers (libxapian-dev,
# liblucene8-java, a JDK). Table last.
#   SIZE_MB=500 REPEAT=3 bash bench/two_core_real_pages.sh [INVIDX_RUN]
set -euo pipefail
binary=${1:-build/invidx-run}
debs=${DEBS:-.deps/doc-debs}
coll=${COLLECTION:-/tmp/real${SIZE_MB:-500}}
out=${OUT:-/tmp/two-core-peers}
mkdir -p "$out"
if [ ! -d "$coll" ]; then
  rm -rf /tmp/realdocs && mkdir -p /tmp/realdocs
  for deb in "$debs"/*.deb; do dpkg -x "$deb" /tmp/realdocs; done
  python3 bench/gen_collection.py --kind realistic --source /tmp/realdocs --size-mb "${SIZE_MB:-500}" --files 4 \
    --level 6 --jobs 2 --out "$coll" > "$out/gen.log" 2>&1
fi
for r in $(seq 1 "${REPEAT:-3}"); do
  python3 bench/compare_peers.py --invidx-run "$binary" --collection "$coll" --lucene-threads 2 \
    --json "$out/peers-$r.json" > "$out/peers-$r.txt" 2>&1
  start=$(date +%s.%N)
  ls "$coll"/*.gz | xargs -P2 -n1 sh -c 'gzip -dc "$0" > /dev/null'
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" > "$out/gzip-$r.txt"
  start=$(date +%s.%N)
  ls "$coll"/*.gz | xargs -P2 -n1 python3 bench/zlib_gunzip.py
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" > "$out/zlib-$r.txt"
done
python3 - "$out" "${REPEAT:-3}" <<'PY'
import json, statistics, sys
out, repeat = sys.argv[1], int(sys.argv[2])
rows = {}
mb = None
for r in range(1, repeat + 1):
    for system in json.load(open("%s/peers-%d.json" % (out, r)))["rows"]:
        rows.setdefault(system["system"], []).append(system["mb_s"])
        mb = system["mb"]
    for name in ("gzip", "zlib"):
        seconds = float(open("%s/%s-%d.txt" % (out, name, r)).read())
        rows.setdefault({"gzip": "GNU gzip -dc, 2 processes", "zlib": "Python zlib, 2 processes"}[name], []).append(mb / seconds)
invidx = statistics.median(rows["invidx"])
print("| system | MB/s per run | median | invidx ×, median |")
print("|---|---|---:|---:|")
for name, rates in rows.items():
    print("| %s | %s | %.1f | %.2f |" % (name, ", ".join("%.1f" % x for x in rates), statistics.median(rates),
                                      invidx / statistics.median(rates)))
PY
