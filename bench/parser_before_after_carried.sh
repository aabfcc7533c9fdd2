#!/usr/bin/env bash
# The CPU parser before and after, on the GPU machine with carried binaries
# (BIN: this tree's, BASE: an older build's invidx-run and
# invidx_parser_bench): the GPU test cases and the analyzer's (every
# instruction set the host has; TESTS overrides the doctest filter),
# then the real pages of bench/real_pages_carried.sh (SIZE_MB of Debian
# documentation pages in WARC.gz), the parser alone per instruction set
# (two files, one thread), and CPU-only builds on all cores, old and new in
# turn (REPEAT each), with default.json (GPU parsers) once each. Tables last.
#   OUT=... BASE=.carry/base SIZE_MB=8000 REPEAT=3 bash bench/parser_before_after_carried.sh
set -uo pipefail
source bench/carried_setup.sh
base=${BASE:-.carry/base}
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  tests=${TESTS:-*gpu*,*vector token scan*,*TokenCache*,*short term*,*hash_term*,*analyzer*,*Analyzer*}
  ./build-dev/invidx_tests -tc="$tests" > "$out/tests.log" 2>&1; echo "invidx_tests -tc='$tests' rc=$?"; tail -3 "$out/tests.log"
fi
rm -rf /tmp/realdocs && mkdir -p /tmp/realdocs
for deb in .deps/doc-debs/*.deb; do dpkg -x "$deb" /tmp/realdocs; done
python3 bench/gen_collection.py --kind realistic --source /tmp/realdocs --size-mb "${SIZE_MB:-8000}" \
  --files "${FILES:-32}" --level "${LEVEL:-6}" --jobs "$(nproc)" --out /tmp/real > "$out/gen.log" 2>&1 ||
  { tail -5 "$out/gen.log"; exit 1; }
{
  for side in old new; do
    [ "$side" = old ] && pb="$base/invidx_parser_bench" || pb=build-dev/invidx_parser_bench
    echo "== parser alone, $side"
    "$pb" --passes 3 /tmp/real/part-00000.warc.gz /tmp/real/part-00001.warc.gz 2>&1 | tail -6
  done
} > "$out/parser.txt" 2>&1
cat "$out/parser.txt"
mkdir -p "$out/builds"
for r in $(seq 1 "${REPEAT:-3}"); do
  for side in old new; do
    [ "$side" = old ] && run="$base/invidx-run" || run=build-dev/invidx-run
    for variant in cpu gpu; do
      [ "$variant" = gpu ] && [ "$r" -gt 1 ] && continue
      sets=(); [ "$variant" = cpu ] && sets=(--set parse.gpus=none)
      rm -rf /tmp/idx
      "$run" configs/default.json --input /tmp/real --output /tmp/idx --quiet --progress off "${sets[@]}" 2> "$out/run.log" ||
        { tail -5 "$out/run.log"; exit 1; }
      cp /tmp/idx/report.json "$out/builds/$variant-$side-$r.json"
    done
  done
done
python3 - "$out/builds" <<'PY'
import glob, json, os, statistics, sys
print("| build | MB/s per run | median | cpu core-s/GB | parse busy s/GB | decompress busy s/GB | peak RSS MiB |")
print("|---|---|---:|---:|---:|---:|---:|")
for variant in ("cpu", "gpu"):
    for side in ("old", "new"):
        runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(sys.argv[1], "%s-%s-*.json" % (variant, side))))]
        if not runs: continue
        gb = [r["input_bytes_uncompressed"] / 1e9 for r in runs]
        rates = [r["throughput_mb_s"] for r in runs]
        def node(r, name):
            return next((n["busy_seconds"] for n in r["nodes"] if n["name"] == name), float("nan")) if isinstance(r["nodes"], list) else r["nodes"].get(name, {}).get("busy_seconds", float("nan"))
        cpu = [r["cpu_seconds"] / g for r, g in zip(runs, gb)]
        parse = [node(r, "parse") / g for r, g in zip(runs, gb)]
        dec = [node(r, "decompress") / g for r, g in zip(runs, gb)]
        print("| %s %s | %s | %.0f | %.2f | %.2f | %.2f | %.0f |" % (variant, side, ", ".join("%.0f" % x for x in rates),
              statistics.median(rates), statistics.median(cpu), statistics.median(parse), statistics.median(dec),
              max(r["peak_rss_bytes"] for r in runs) / 2**20))
PY
