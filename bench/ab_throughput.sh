#!/usr/bin/env bash
# Before/after throughput of two invidx-run builds on the same files: runs
# them alternately (A B A B ...) so drift of a shared machine hits both alike,
# optionally pinned to some CPUs, and prints the median MB/s of each and the
# ratio. Used to check that a change leaves throughput "within noise".
#   bench/ab_throughput.sh OLD_INVIDX_RUN NEW_INVIDX_RUN COLLECTION CONFIG [REPEAT] [CPUS] [--set K=V ...]
# CPUS: a taskset list such as 0,1 (empty: all). MB/s = uncompressed input
# over the engine's total_seconds (report.json), as in docs/PERFORMANCE.md;
# parse busy s/GB = the parse node's busy core-seconds per GB of input.
# REPORTS (optional): a directory that keeps each run's report.json
# (old-1.json, new-1.json, ...), e.g. for bench/indexer_balance.py.
set -euo pipefail
old=${1:?old invidx-run} new=${2:?new invidx-run} collection=${3:?collection} config=${4:?config}
repeat=${5:-3} cpus=${6:-}
shift $(( $# < 6 ? $# : 6 ))
pin=()
[ -n "$cpus" ] && pin=(taskset -c "$cpus")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A rates parses
for r in $(seq 1 "$repeat"); do
  for side in old new; do
    binary=$old; [ $side = new ] && binary=$new
    rm -rf "$work/idx"
    "${pin[@]}" "$binary" "$config" --input "$collection" --output "$work/idx" --quiet --progress off "$@" 2> "$work/log" ||
      { cat "$work/log"; exit 1; }
    read -r rate parse <<< "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
gb = r["input_bytes_uncompressed"] / 1e9
parse = sum(n["busy_seconds"] for n in r["nodes"] if n["kind"] == "parse")
print("%.1f %.2f" % (gb * 1e3 / r["total_seconds"], parse / gb))' "$work/idx/report.json")"
    rates[$side]+="$rate "
    parses[$side]+="$parse "
    echo "run $r $side: $rate MB/s, parse busy $parse s/GB"
    [ -n "${REPORTS:-}" ] && mkdir -p "$REPORTS" && cp "$work/idx/report.json" "$REPORTS/$side-$r.json"
  done
done
python3 - "${rates[old]}" "${rates[new]}" "${parses[old]}" "${parses[new]}" <<'PY'
import statistics, sys
old, new, old_parse, new_parse = ([float(x) for x in arg.split()] for arg in sys.argv[1:5])
mo, mn = statistics.median(old), statistics.median(new)
po, pn = statistics.median(old_parse), statistics.median(new_parse)
print("| build | runs MB/s | median MB/s | parse busy s/GB (median) |")
print("|---|---|---|---|")
print("| old | %s | %.1f | %.2f |" % (" ".join("%.1f" % x for x in old), mo, po))
print("| new | %s | %.1f | %.2f |" % (" ".join("%.1f" % x for x in new), mn, pn))
print("new/old: MB/s %.3f, parse busy per GB %.3f" % (mn / mo, pn / po))
PY
