#!/usr/bin/env bash
# What the hardware allows P ranks (or P GPUs' shares) of one machine to gain
# over one: each slice of the machine (SLICE_CORES cores and one GPU, as
# bench/rank_slice.sh gives an MPI rank) does the same work alone, and then
# all slices at once, each on its own half of the files, with nothing shared
# between them but the machine. No communication, no join: the most that a
# cluster build of P ranks on this machine could reach, whatever the code.
# Measured on WARC.gz of both shapes (bench/inflate_builds.sh writes them:
# SIZE_MB of text per shape in FILES files each, kept in WORK):
#   igzip   every file gunzipped by its own process (invidx_inflate_bench
#           --gunzip igzip), SLICE_CORES at once on each slice: the inflate
#           ceiling of the slice
#   build   invidx-run CONFIG (default configs/default.json) on the slice's
#           files, the slice's GPU as gpu:0; VARIANTS adds builds with
#           settings (LABEL=K=V,K=V: "cpu=parse.gpus=none,decompress.gpus=none")
# Slice s takes the files whose index in the sorted list of each shape is s
# modulo SLICES, so every slice holds both shapes alike. A table last, per
# measurement: slice 0 alone (MB/s of text over the wall time), all slices at
# once (their text over the wall time until the last ends), the ratio of the
# two, and each slice's own rate at once against alone (1.00: the slices do
# not slow each other; 0.5: P slices do no more than one).
# On the two-GPU machine with this tree's CUDA build carried in BIN:
#   OUT=/tmp/out BIN=.carry/bin SIZE_MB=6000 FILES=48 REPEAT=3 bash bench/slice_scaling.sh
set -uo pipefail
source bench/carried_setup.sh
bindir=build-dev
slices=${SLICES:-2}
slice_cores=${SLICE_CORES:-16}
repeat=${REPEAT:-3}
config=${CONFIG:-configs/default.json}
work=${WORK:-/tmp/inflate-builds}
variants=${VARIANTS:-}
# The collections, written once (no ceilings, no builds).
COLLECTIONS=" " VARIANTS="gpu=" REPEAT=1 WORK="$work" OUT="$out/gen" BIN="$bin" bash bench/inflate_builds.sh > "$out/gen.log" 2>&1
grep -E "files, .* documents" "$out/gen.log" || { tail "$out/gen.log"; exit 1; }
sets=$work/slice-sets
rm -rf "$sets"
for s in $(seq 0 $((slices - 1))); do mkdir -p "$sets/$s"; done
for shape in per-record one-stream; do
  i=0
  for f in $(ls "$work/$shape"/*.gz | sort); do
    ln -s "$f" "$sets/$((i % slices))/$shape-$(basename "$f")"
    i=$((i + 1))
  done
done
on_slice() {  # runs "$@" on slice $1's cores and GPU
  local s=$1; shift
  OMPI_COMM_WORLD_LOCAL_RANK=$s SLICE_CORES=$slice_cores bash bench/rank_slice.sh "$@"
}
igzip_job() {  # slice $1's files, a process each, SLICE_CORES at once
  ls "$sets/$1"/*.gz | on_slice "$1" xargs -P "$slice_cores" -n1 "$bindir/invidx_inflate_bench" --gunzip igzip
}
build_job() {  # slice $1's files built with settings $2 (comma-separated K=V), its report kept as $3
  local set_args=()
  IFS=, read -r -a pairs <<< "$2"
  for pair in "${pairs[@]}"; do [ -n "$pair" ] && set_args+=(--set "$pair"); done
  rm -rf "$work/slice-idx-$1"
  on_slice "$1" "$bindir/invidx-run" "$config" --input "$sets/$1" --output "$work/slice-idx-$1" --quiet --progress off \
    "${set_args[@]}" 2> "$work/slice-build-$1.log" || { echo "build on slice $1 failed:"; cat "$work/slice-build-$1.log"; return 1; }
  mkdir -p "$out/reports" && cp "$work/slice-idx-$1/report.json" "$out/reports/$3-slice$1.json"
}
# A first build on each slice, untimed: the files in the page cache, and
# each slice's MB of text from its report.
declare -A mb
for s in $(seq 0 $((slices - 1))); do
  build_job "$s" "" warm-up || exit 1
  mb[$s]=$(python3 -c "import json; print('%.3f' % (json.load(open('$out/reports/warm-up-slice$s.json'))['input_bytes_uncompressed'] / 1e6))")
  echo "slice $s: $(ls "$sets/$s" | wc -l) files, ${mb[$s]} MB of text"
done
results=$out/slice-scaling.tsv
: > "$results"
measure() {  # label, job, settings: slice 0 alone, then every slice at once
  local label=$1 job=$2 settings=${3:-}
  local start end
  start=$(date +%s.%N)
  $job 0 "$settings" "$label-$r-alone" > /dev/null || exit 1
  end=$(date +%s.%N)
  printf '%s\talone\t%s\t0\t%s\t%s\n' "$label" "$r" "${mb[0]}" "$(python3 -c "print('%.3f' % ($end - $start))")" >> "$results"
  declare -A ended
  local pids=()
  start=$(date +%s.%N)
  for s in $(seq 0 $((slices - 1))); do
    ( $job "$s" "$settings" "$label-$r-together" > /dev/null && date +%s.%N > "$work/slice-ended-$s" ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || exit 1; done
  for s in $(seq 0 $((slices - 1))); do
    printf '%s\ttogether\t%s\t%s\t%s\t%s\n' "$label" "$r" "$s" "${mb[$s]}" \
      "$(python3 -c "print('%.3f' % ($(cat "$work/slice-ended-$s") - $start))")" >> "$results"
  done
  echo "$label run $r done"
}
for r in $(seq "$repeat"); do
  measure igzip igzip_job
  measure build build_job ""
  for variant in $variants; do measure "build-${variant%%=*}" build_job "${variant#*=}"; done
done
rm -rf "$work"/slice-idx-*
python3 - "$results" "$slices" <<'PY'
import collections, statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
slices = int(sys.argv[2])
alone, together, own = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(list)
runs = collections.defaultdict(dict)
for label, mode, r, s, mb, seconds in rows:
    runs[(label, mode, r)][int(s)] = (float(mb), float(seconds))
for (label, mode, r), per_slice in runs.items():
    if mode == "alone":
        mb, seconds = per_slice[0]
        alone[label].append(mb / seconds)
    else:
        total = sum(mb for mb, _ in per_slice.values())
        together[label].append(total / max(seconds for _, seconds in per_slice.values()))
        own[label].append(statistics.median(mb / seconds for mb, seconds in per_slice.values()))
print("MB/s of text over wall time (medians of %d runs); %d slices at once, each on its own files" % (len(alone[next(iter(alone))]), slices))
print("| what | slice 0 alone | %d slices at once | x | each slice at once / alone |" % slices)
print("|---|---:|---:|---:|---:|")
for label in alone:
    a, t, o = statistics.median(alone[label]), statistics.median(together[label]), statistics.median(own[label])
    print("| %s | %.0f | %.0f | %.2f | %.2f |" % (label, a, t, t / a, o / a))
PY
