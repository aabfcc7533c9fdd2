#!/usr/bin/env bash
# Query latency against Lucene and Xapian, BENCHMARK-ONLY: one
# collection indexed by invidx (configs/default.json, then merge --layout
# query), Xapian (bench/peers/xapian_index) and Lucene 8
# (bench/peers/LuceneIndex, as bench/compare_peers.py runs them); ~200
# queries of 1-5 terms drawn from invidx's vocabulary by invidx_query_bench
# (--write-queries: frequent, medium and rare terms); then the three query
# drivers of bench/peers (invidx_query, xapian_query, LuceneQuery), AND and
# OR, top k, one thread each, the query set W times untimed (the JVM's JIT
# needs a few hundred passes to settle: Lucene's OR mean is ~3x higher after
# one pass than after 300; the same W for all three), then each query's
# latency is the median of R runs. Table last (bench/peers/latency_table.py).
#
#   bench/query_peers.sh [--build DIR] [--work DIR] [--kind realistic|synthetic] [--size-mb N]
#                        [--queries N] [--repeat R] [--k K] [--warmup W] [--codec NAME] [--lucene-threads N] [--java-heap SIZE]
#                        [--systems LIST]
#
# Defaults: build, work dir /tmp/invidx-query-peers (kept; a second run
# reuses its collection, indexes and queries.tsv: delete it to start over),
# a realistic collection of 200 MB, 200 queries, warmup 300, 5 runs, k 10, codec bp128,
# Lucene indexing with 1 thread (one segment at this size), heap 3g, systems
# invidx,xapian,lucene. Needs: a configured build (cmake -B build), Debian
# libxapian-dev liblucene8-java default-jdk-headless.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
work=/tmp/invidx-query-peers
kind=realistic
size_mb=200
queries=200
repeat=5
warmup=300
k=10
codec=bp128
lucene_threads=1
java_heap=3g
systems=invidx,xapian,lucene
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --size-mb) size_mb=$2; shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --k) k=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --codec) codec=$2; shift 2 ;;
    --lucene-threads) lucene_threads=$2; shift 2 ;;
    --java-heap) java_heap=$2; shift 2 ;;
    --systems) systems=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "query_peers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
has() { [[ ",$systems," == *",$1,"* ]]; }
jobs=$(nproc)

# The product, up to date with its source tree (as query_bench.sh does; invidx_query
# is compiled with that tree's headers against $build/libinvidx.a, so the two must
# agree); then the peer harnesses, built when missing.
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$build" -j"$jobs" --target invidx-run invidx-cli invidx_query_bench >&2
peers=bench/peers/build
[ -x "$peers/xapian_index" ] || ! has xapian || bench/peers/build.sh xapian >&2
[ -f "$peers/classes/LuceneIndex.class" ] || ! has lucene || bench/peers/build.sh lucene >&2
# The drivers: rebuilt when missing or older than their source (invidx_query also
# when older than $build/libinvidx.a).
[ -x "$peers/invidx_query" ] && [ "$peers/invidx_query" -nt "$build/libinvidx.a" ] \
  && [ "$peers/invidx_query" -nt bench/peers/invidx_query.cpp ] || bench/peers/build_query.sh invidx --build "$build" >&2
! has xapian || { [ -x "$peers/xapian_query" ] && [ "$peers/xapian_query" -nt bench/peers/xapian_query.cpp ]; } \
  || bench/peers/build_query.sh xapian >&2
! has lucene || { [ -f "$peers/classes/LuceneQuery.class" ] \
  && [ "$peers/classes/LuceneQuery.class" -nt bench/peers/LuceneQuery.java ]; } || bench/peers/build_query.sh lucene >&2

mkdir -p "$work"
collection=$work/collection
if ! ls "$collection"/*.warc* >/dev/null 2>&1; then
  python3 bench/gen_collection.py --kind "$kind" --size-mb "$size_mb" --files 8 --jobs "$jobs" \
    --out "$collection" --force >&2
fi
files=("$collection"/*.warc*)

if [ ! -f "$work/invidx/manifest.json" ]; then
  rm -rf "$work/invidx"
  "$build/invidx-run" configs/default.json --input "$collection" --output "$work/invidx" --progress off --quiet >&2
fi
[ -f "$work/invidx/query.post" ] || "$build/invidx" merge "$work/invidx" --layout query --codec "$codec" >&2
if has xapian && [ ! -f "$work/xapian.done" ]; then
  rm -rf "$work/xapian"
  "$peers/xapian_index" "$work/xapian" "${files[@]}" > "$work/xapian_index.txt"
  touch "$work/xapian.done"
fi
classpath=
! has lucene || classpath=$(cat "$peers/lucene.classpath")
if has lucene && [ ! -f "$work/lucene.done" ]; then
  rm -rf "$work/lucene"
  java -Xmx"$java_heap" -DramMB=1024 -cp "$classpath" LuceneIndex "$work/lucene" "$lucene_threads" "${files[@]}" \
    > "$work/lucene_index.txt"
  touch "$work/lucene.done"
fi

# Queries from invidx's vocabulary; invidx_query_bench's own table goes to query_bench.txt.
if [ ! -f "$work/queries.tsv" ]; then
  "$build/invidx_query_bench" "$work/invidx" --queries "$queries" --repeat 1 --k "$k" \
    --write-queries "$work/queries.tsv" > "$work/query_bench.txt"
fi

outs=()
for mode in and or; do
  out=$work/lat-invidx-$mode.tsv
  "$peers/invidx_query" "$work/invidx" "$work/queries.tsv" --mode "$mode" --k "$k" --repeat "$repeat" --warmup "$warmup" > "$out"
  outs+=("$out")
  if has xapian; then
    out=$work/lat-xapian-$mode.tsv
    "$peers/xapian_query" "$work/xapian" "$work/queries.tsv" --mode "$mode" --k "$k" --repeat "$repeat" --warmup "$warmup" > "$out"
    outs+=("$out")
  fi
  if has lucene; then
    out=$work/lat-lucene-$mode.tsv
    java -Xmx"$java_heap" -cp "$classpath" LuceneQuery "$work/lucene" "$work/queries.tsv" \
      --mode "$mode" --k "$k" --repeat "$repeat" --warmup "$warmup" > "$out"
    outs+=("$out")
  fi
done

echo "machine: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(date -u '+%F %H:%M UTC')"
echo "collection: gen_collection.py --kind $kind --size-mb $size_mb --files 8 ($collection)"
grep -h '^documents\|^terms\|^postings\|^segments' "$work/xapian_index.txt" "$work/lucene_index.txt" 2>/dev/null \
  | paste -sd' ' | sed 's/^/peer indexes (xapian, then lucene): /' || true
head -n 2 "$work/query_bench.txt"
python3 bench/peers/latency_table.py "${outs[@]}"
