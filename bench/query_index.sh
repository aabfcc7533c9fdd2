# Sourced by the query benchmarks (query_bench.sh, query_stream.sh): builds
# $build's targets (invidx-run, invidx-cli and the given bench programs),
# then makes $work/index from a generated collection (gen_collection.py
# --kind $kind --size-mb $size_mb) with the query layout in $codec. $work is
# $keep when set (an index already there is reused), otherwise a temporary
# directory removed at exit. Prints the machine and collection lines.
#
#   prepare_query_index BENCH-TARGET...
prepare_query_index() {
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build "$build" -j"$(nproc)" --target invidx-run invidx-cli "$@" >&2
  if [ -n "$keep" ]; then
    work=$keep
    mkdir -p "$work"
  else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
  fi
  if [ ! -f "$work/index/manifest.json" ]; then
    python3 bench/gen_collection.py --kind "$kind" --size-mb "$size_mb" --files 8 --jobs "$(nproc)" \
      --out "$work/collection" --force >&2
    "$build/invidx-run" configs/default.json --input "$work/collection" --output "$work/index" --progress off --quiet >&2
  fi
  "$build/invidx" merge "$work/index" --layout query --codec "$codec" >&2
  echo "machine: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(date -u +%F)"
  echo "collection: gen_collection.py --kind $kind --size-mb $size_mb --files 8; merge --layout query --codec $codec"
}
