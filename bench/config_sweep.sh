#!/usr/bin/env bash
# One pipeline config under several `--set` variants on the same files, run
# in turn (v1 v2 ... v1 v2 ...) so drift of a shared machine hits all alike.
# Prints per variant the MB/s of each run and the median, the parse node's
# busy core-seconds per GB, and how evenly the indexers shared the work
# (busiest indexer's busy seconds over the mean; the index node waits for
# the busiest), and keeps every report.json under $REPORTS (default
# $OUT/reports or /tmp/sweep-reports) for bench/node_table.py and
# bench/indexer_balance.py.
#   bench/config_sweep.sh INVIDX_RUN COLLECTION CONFIG REPEAT LABEL=K=V[,K=V...] ...
# A variant with no settings: LABEL= . Example:
#   bench/config_sweep.sh build/invidx-run /tmp/coll configs/default.json 3 \
#     idx4=index.indexers.0.count=4 idx6=index.indexers.0.count=6
set -euo pipefail
binary=${1:?invidx-run} collection=${2:?collection} config=${3:?config} repeat=${4:?repeat}
shift 4
reports=${REPORTS:-${OUT:-/tmp}/sweep-reports}
mkdir -p "$reports"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
labels=()
for r in $(seq 1 "$repeat"); do
  for variant in "$@"; do
    label=${variant%%=*} settings=${variant#*=}
    [ "$r" = 1 ] && labels+=("$label")
    args=()
    IFS=, read -r -a pairs <<< "$settings"
    for pair in "${pairs[@]}"; do [ -n "$pair" ] && args+=(--set "$pair"); done
    rm -rf "$work/idx"
    "$binary" "$config" --input "$collection" --output "$work/idx" --quiet --progress off "${args[@]}" 2> "$work/log" ||
      { cat "$work/log"; exit 1; }
    cp "$work/idx/report.json" "$reports/$label-$r.json"
    echo "run $r $label done"
  done
done
python3 - "$reports" "${labels[@]}" <<'PY'
import glob, json, os, statistics, sys
reports, labels = sys.argv[1], sys.argv[2:]
print("| variant | MB/s per run | median MB/s | parse busy s/GB | indexers | busiest / mean indexer busy | peak RSS MiB |")
print("|---|---|---:|---:|---:|---:|---:|")
for label in labels:
    rates, parse, spread, rss, count = [], [], [], [], 0
    for path in sorted(glob.glob(os.path.join(reports, label + "-[0-9]*.json"))):
        r = json.load(open(path))
        gb = r["input_bytes_uncompressed"] / 1e9
        rates.append(gb * 1e3 / r["total_seconds"])
        parse.append(sum(n["busy_seconds"] for n in r["nodes"] if n["kind"] == "parse") / gb)
        busy = [i.get("busy_seconds", 0) for i in r.get("indexers", [])]
        count = len(busy)
        if busy and sum(busy):
            spread.append(max(busy) / (sum(busy) / len(busy)))
        rss.append(r.get("peak_rss_bytes", 0) / 2**20)
    print("| %s | %s | %.1f | %.2f | %d | %.2f | %.0f |" % (
        label, ", ".join("%.1f" % v for v in rates), statistics.median(rates), statistics.median(parse), count,
        statistics.median(spread) if spread else 0, statistics.median(rss)))
PY
