#!/usr/bin/env bash
# Peak memory and time as the collection grows: one
# synthetic collection (Zipf over a 1M-word vocabulary, so the dictionary
# keeps growing) of 64 files, indexed as its first 4, 16 and 64 files
# (about 1/4, 1 and 4 times SIZE_MB/4 ... see the table). Prints a table last.
# Usage: bench/memory_scaling.sh INVIDX_RUN SIZE_MB [CONFIG]
set -euo pipefail
invidx_run=${1:?usage: memory_scaling.sh INVIDX_RUN SIZE_MB [CONFIG]}
size_mb=${2:?size in MB}
config=${3:-configs/default.json}
coll=${COLLECTION_DIR:-/tmp/invidx-scaling}
jobs=$(nproc)
if [ ! -f "$coll/part-00063.warc.gz" ]; then
  rm -rf "$coll"
  python3 bench/gen_collection.py --kind synthetic --size-mb "$size_mb" --files 64 --jobs "$jobs" --out "$coll" >&2
fi
rows=()
for files in 4 16 64; do
  dir=$(mktemp -d)
  for f in $(ls "$coll" | sort | head -n "$files"); do ln -s "$coll/$f" "$dir/$f"; done
  out=$(mktemp -d)/index
  "$invidx_run" "$config" --input "$dir" --output "$out" --progress off --quiet >&2
  rows+=("$(python3 - "$out/report.json" "$files" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("%5s %10.0f %8.1f %8.1f %10d %12.0f %12.0f %12.0f" % (
    sys.argv[2], r["input_bytes_uncompressed"] / 1e6, r["total_seconds"], r["throughput_mb_s"],
    r["terms"], r["peak_rss_bytes"] / 2**20, r["dictionary_memory_bytes"] / 2**20,
    (r["peak_rss_bytes"] - r["dictionary_memory_bytes"]) / 2**20))
PY
)")
  rm -rf "$dir" "$(dirname "$out")"
done
printf "%5s %10s %8s %8s %10s %12s %12s %12s\n" files MB seconds MB/s terms "RSS MiB" "dict MiB" "RSS-dict MiB"
printf "%s\n" "${rows[@]}"
