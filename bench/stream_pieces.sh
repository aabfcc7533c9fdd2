#!/usr/bin/env bash
# Files of one gzip stream cut into pieces for several workers
# (decompress.split_gzip_streams, nodes/decompress/split_gzip.hpp) against
# one worker a file, in one call:
# 1. Writes FILES WARC.gz files of one gzip stream each (GNU gzip -LEVEL,
#    ClueWeb-style), SIZE_MB MB of text in all, from real pages
#    (bench/gen_collection.py realistic; SOURCE as there). Kept in WORK.
# 2. The ceiling of one core a file: each file decoded by its own igzip
#    process, all at once (what one worker a file can reach at best).
# 3. Builds with CONFIG (default configs/default.json) under each of
#    VARIANTS (LABEL=K=V,K=V,...; default: one-worker, split_gzip_streams
#    false; pieces, true; bin:DIR runs DIR/invidx-run for the variant, so
#    that two builds of the code compare run by run), plus SETS (--set for every variant, e.g.
#    parse.gpus=none), REPEAT times in turn; the first run's index exported
#    as CIFF and compared with the first variant's.
# A table last: per variant the median MB/s of text (report.json's
# total_seconds), the median run-by-run ratio to the first variant, over the
# igzip ceiling, the decompress node's busy core-seconds per GB, the
# process's CPU core-seconds per GB, peak RSS, the pieces and how many were
# decoded again, and whether the CIFF is the first variant's.
#
# On the GPU machine with binaries built elsewhere (bench/carried_setup.sh):
#   OUT=/tmp/out BIN=.carry/bin SIZE_MB=1600 FILES=2 REPEAT=3 bash bench/stream_pieces.sh
# Here, from a local build:
#   BUILD=build SIZE_MB=200 FILES=1 REPEAT=2 bash bench/stream_pieces.sh
set -uo pipefail
if [ -n "${BUILD:-}" ]; then
  out=${OUT:-/tmp/stream-pieces}
  mkdir -p "$out"
  bindir=$BUILD
else
  source bench/carried_setup.sh
  bindir=build-dev
fi
size_mb=${SIZE_MB:-1600}
files=${FILES:-2}
level=${LEVEL:-6}
repeat=${REPEAT:-3}
config=${CONFIG:-configs/default.json}
variants=${VARIANTS:-"one-worker=decompress.split_gzip_streams=false pieces=decompress.split_gzip_streams=true"}
sets=${SETS:-}
work=${WORK:-/tmp/stream-pieces-work}/s${size_mb}-f${files}-l${level}
source_args=()
[ -n "${SOURCE:-}" ] && source_args=(--source "$SOURCE")

if [ ! -f "$work/done" ]; then
  rm -rf "$work" && mkdir -p "$work/parts" "$work/in"
  # Eight parts a file, written in parallel, then joined into one stream each.
  python3 bench/gen_collection.py --kind realistic --size-mb "$size_mb" --files $((files * 8)) --gzip none \
    --out "$work/parts" "${source_args[@]}" --force >/dev/null || exit 1
  parts=("$work"/parts/part-*.warc)
  for ((f = 0; f < files; f++)); do
    name=$(printf 'stream-%03d.warc.gz' "$f")
    (cat "${parts[@]:$((f * 8)):8}" | gzip -"$level" -c > "$work/in/$name") &
  done
  wait
  rm -rf "$work/parts"
  touch "$work/done"
fi
ls -l "$work/in" | tail -n +2

# The igzip ceiling: invidx_inflate_bench --gunzip igzip (the GPU machine
# has no igzip command), else the igzip command.
if "$bindir/invidx_inflate_bench" --gunzip igzip "$(ls "$work"/in/*.gz | head -1)" 2> /dev/null; then
  igzip=("$bindir/invidx_inflate_bench" --gunzip igzip)
elif command -v igzip > /dev/null; then
  igzip=(sh -c 'igzip -dc "$0" > /dev/null')
else
  igzip=()
fi
text_mb=$(python3 -c "
import gzip, glob
n = 0
for f in glob.glob('$work/in/*.gz'):
    with gzip.open(f) as g:
        while True:
            b = g.read(1 << 22)
            if not b: break
            n += len(b)
print(n / 1e6)")
ceiling=-
if [ ${#igzip[@]} -gt 0 ]; then
  best=
  for r in 1 2; do
    start=$(date +%s.%N)
    ls "$work"/in/*.gz | xargs -P "$files" -n1 "${igzip[@]}"
    end=$(date +%s.%N)
    rate=$(python3 -c "print('%.1f' % ($text_mb / ($end - $start)))")
    best=$(python3 -c "print(max(float(x) for x in '$best $rate'.split()))")
  done
  ceiling=$best
fi
echo "igzip ceiling (one process a file, all at once): $ceiling MB/s"

rows="$out/stream-pieces.tsv"
: > "$rows"
for ((run = 1; run <= repeat; run++)); do
  for variant in $variants; do
    label=${variant%%=*}
    settings=${variant#*=}
    args=()
    run_bin=$bindir/invidx-run
    IFS=',' read -ra pairs <<< "$settings"
    for pair in "${pairs[@]}"; do
      case $pair in
        bin:*) run_bin=${pair#bin:}/invidx-run ;;
        *) args+=(--set "$pair") ;;
      esac
    done
    for pair in $sets; do args+=(--set "$pair"); done
    index=${INDEX_DIR:-/tmp/stream-pieces-index}-$label
    rm -rf "$index"
    "$run_bin" "$config" --input "$work/in" --output "$index" --quiet "${args[@]}" > "$out/log-$label-$run" 2>&1 ||
      { echo "build $label failed:"; tail -3 "$out/log-$label-$run"; continue; }
    ciff=-
    if [ "$run" = 1 ]; then
      "$bindir/invidx" export-ciff "$index" "${INDEX_DIR:-/tmp/stream-pieces-index}-$label.ciff" > /dev/null
      first=${variants%%=*}
      if [ "$label" = "$first" ]; then ciff=first
      elif cmp -s "${INDEX_DIR:-/tmp/stream-pieces-index}-$first.ciff" "${INDEX_DIR:-/tmp/stream-pieces-index}-$label.ciff"; then ciff=same
      else ciff=DIFFERENT; fi
    fi
    python3 - "$index/report.json" "$label" "$run" "$ciff" >> "$rows" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
gb = r["input_bytes_uncompressed"] / 1e9
decompress = sum(n["busy_seconds"] for n in r["nodes"] if n["kind"] == "decompress")
split = r.get("split_gzip", {})
print("\t".join([sys.argv[2], sys.argv[3], "%.1f" % (gb * 1e3 / r["total_seconds"]), "%.3f" % (decompress / gb),
                 "%.3f" % (r.get("cpu_seconds", 0) / gb), "%.2f" % (r.get("peak_rss_bytes", 0) / 1e9),
                 str(split.get("stream_files_split", 0)), str(split.get("chunks", 0)),
                 str(split.get("stream_pieces_decoded_again", 0)),
                 str(split.get("stream_files_decoded_again", split.get("files_decoded_in_order_from_a_chunk", 0)) +
                     split.get("stream_files_continued_after_a_member", 0)),
                 sys.argv[4]]))
EOF
  done
done

echo
echo "machine: $(nproc) CPUs; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "collection: $files one-stream WARC.gz files, $size_mb MB of text, gzip -$level; igzip ceiling $ceiling MB/s"
python3 - "$rows" "$ceiling" "$variants" <<'EOF'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
ceiling = float(sys.argv[2]) if sys.argv[2] != "-" else float("nan")
labels = [v.split("=", 1)[0] for v in sys.argv[3].split()]
by = {}
for r in rows:
    by.setdefault(r[0], {})[int(r[1])] = r
first = labels[0]
print("| variant | MB/s (median) | runs | x first | x igzip ceiling | decompress busy s/GB | cpu s/GB | peak RSS GB | files cut | pieces | decoded again | files in order | CIFF |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for label in labels:
    runs = by.get(label, {})
    if not runs:
        continue
    rates = [float(r[2]) for r in runs.values()]
    ratios = [float(runs[k][2]) / float(by[first][k][2]) for k in runs if k in by.get(first, {})]
    med = lambda i: statistics.median(float(r[i]) for r in runs.values())
    any_run = next(iter(runs.values()))
    ciff = runs[1][10] if 1 in runs else "-"
    print("| %s | %.1f | %s | %.2f | %.2f | %.3f | %.3f | %.2f | %s | %s | %s | %s | %s |" % (
        label, statistics.median(rates), ", ".join("%.0f" % x for x in rates),
        statistics.median(ratios) if ratios else float("nan"), statistics.median(rates) / ceiling,
        med(3), med(4), med(5), any_run[6], any_run[7], any_run[8], any_run[9], ciff))
EOF
