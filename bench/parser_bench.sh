#!/usr/bin/env bash
# The analyzer's speed per core (one thread, thread CPU time), scalar token
# scan against the vector scan on each instruction set this CPU has, on
#   (i)  the HTML of the bundled sample collection, and
#   (ii) a generated realistic collection (bench/gen_collection.py);
# both decompressed and framed in memory first, so that only parsing is timed.
# Median of --passes passes; the table is printed last.
#
#   bench/parser_bench.sh [--build DIR] [--passes P] [--size-mb N] [--collection DIR]
#                         [--baseline BINARY]
#
# --collection uses an existing collection instead of generating one of
# --size-mb MB (default 100; generated into a temporary directory that is
# removed at the end). --baseline adds the rows of another build's
# invidx_parser_bench (an older commit, say) as "baseline ...", and the x
# columns are then relative to its scalar row.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
passes=5
size_mb=100
collection=""
baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --collection) collection=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "parser_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$build" -j"$(nproc)" --target invidx_parser_bench >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$collection" ]; then
  collection="$work/realistic"
  python3 bench/gen_collection.py --kind realistic --size-mb "$size_mb" --files 2 --out "$collection" >&2
fi

for input in sample realistic; do
  path=sample/debian-docs.warc.gz
  [ "$input" = realistic ] && path=$collection
  : > "$work/$input.txt"
  if [ -n "$baseline" ]; then
    "$baseline" --passes "$passes" "$path" | sed -E 's/^(scalar|vector) /baseline \1 /' | tee -a "$work/$input.txt" >&2
  fi
  "$build/invidx_parser_bench" --passes "$passes" "$path" | tee -a "$work/$input.txt" >&2
done

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
flags=$(lscpu | sed -n 's/^Flags: *//p' | tr ' ' '\n' | grep -xE 'sse4_2|avx2|avx512f|avx512bw|asimd' | tr '\n' ' ' || true)
echo
echo "CPU: $cpu ($(nproc) cores; ${flags:-no SIMD flags listed})"
echo "MB/s per core, median of $passes passes:"
# Rows of the two inputs side by side: path, MB/s and x (against the baseline or scalar row).
awk '
  FNR == 1 { file++ }
  /^(baseline )?(scalar|vector) / {
    words = $1 == "baseline" ? 2 : 1
    if ($words == "vector") words++
    name = $1; for (w = 2; w <= words; w++) name = name " " $w
    speed = $(words + 1)
    if (file == 1) { order[++n] = name; sample[name] = speed } else { real[name] = speed }
  }
  END {
    ref = ("baseline scalar" in sample) ? "baseline scalar" : "scalar"
    printf "%-24s %14s %6s %16s %6s\n", "path", "sample MB/s", "x", "realistic MB/s", "x"
    for (i = 1; i <= n; i++) {
      p = order[i]
      printf "%-24s %14.1f %6.2f %16.1f %6.2f\n", p, sample[p], sample[p] / sample[ref], real[p], real[p] / real[ref]
    }
  }' "$work/sample.txt" "$work/realistic.txt"
