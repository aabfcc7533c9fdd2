#!/usr/bin/env bash
# Issue #32's CPU half measured on a quiet machine (the GPU machine, with
# binaries built elsewhere: bench/carried_setup.sh): per-core inflate by
# decoder and file shape (invidx_inflate_bench, which writes both shapes of
# the same pages), one process per file decoding each shape with each
# decoder (the ceilings), then builds of each shape on CORES (taskset; 2 by
# default) before and after ISA-L, alternating (bench/ab_cpu_time.py):
# "before" is the same binary with INVIDX_GZIP_DECODER=libdeflate, the
# decoders invidx had before (libdeflate for whole members, zlib for
# streams), "after" its default, "isal" INVIDX_GZIP_DECODER=isal (igzip for
# members too). Tables last.
#   BIN=.carry/h5 PAGES=.carry/h5/per-record.warc.gz REPEAT=3 CORES=0,1 bash bench/inflate_carried.sh
set -uo pipefail
source bench/carried_setup.sh
pages=${PAGES:?PAGES: a WARC file (plain or gzip) of the pages}
cores=${CORES:-0,1}
repeat=${REPEAT:-3}
shapes=/tmp/shapes
build-dev/invidx_inflate_bench --repeat "$repeat" --write "$shapes" "$pages" 2>/dev/null
echo
echo "one process per file, pinned to one core (best of $repeat, seconds):"
text_mb=$(python3 -c "
import gzip, sys
with gzip.open('$shapes/per-record.warc.gz') as f:
    n = 0
    while True:
        b = f.read(1 << 22)
        if not b: break
        n += len(b)
print(n / 1e6)")
for shape in one-stream per-record; do
  for decoder in igzip libdeflate zlib; do
    best=
    for r in $(seq "$repeat"); do
      start=$(date +%s.%N)
      taskset -c "${cores%%,*}" build-dev/invidx_inflate_bench --gunzip "$decoder" "$shapes/$shape.warc.gz"
      end=$(date +%s.%N)
      best=$(python3 -c "t = $end - $start; b = '$best'; print(min(t, float(b)) if b else t)")
    done
    python3 -c "print('  %-11s %-10s %6.3f s  %7.1f MB/s of text' % ('$shape', '$decoder', $best, $text_mb / $best))"
  done
done
here=$(pwd -P)
printf '#!/bin/sh\nINVIDX_GZIP_DECODER=libdeflate exec taskset -c %s %s/build-dev/invidx-run "$@"\n' "$cores" "$here" > /tmp/before
printf '#!/bin/sh\nexec taskset -c %s %s/build-dev/invidx-run "$@"\n' "$cores" "$here" > /tmp/after
printf '#!/bin/sh\nINVIDX_GZIP_DECODER=isal exec taskset -c %s %s/build-dev/invidx-run "$@"\n' "$cores" "$here" > /tmp/isal
chmod +x /tmp/before /tmp/after /tmp/isal
for shape in one-stream per-record; do
  mkdir -p "/tmp/collection-$shape"
  ln -sf "$shapes/$shape.warc.gz" "/tmp/collection-$shape/"
  echo
  echo "== $shape.warc.gz, configs/default.json (CPU only here) on CPUs $cores"
  python3 bench/ab_cpu_time.py --collection "/tmp/collection-$shape" --config configs/default.json \
    --bin before=/tmp/before --bin after=/tmp/after --bin isal=/tmp/isal --repeat "$repeat" --set parse.gpus=none \
    --reports "$out/$shape" | tail -5
done
