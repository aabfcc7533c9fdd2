#!/usr/bin/env bash
# Cluster builds on one multi-GPU machine (the two-GPU machine: 32 cores, 2
# GPUs) with carried binaries: invidx-run and invidx built elsewhere with MPI
# and CUDA for sm_90 in $BIN, OpenMPI and invidx's other Debian packages in
# .deps/mpi-debs and .deps/debs (unpacked into a prefix; OpenMPI relocated by
# OPAL_PREFIX and its component paths). Then bench/cluster_ranks.sh with
# LAUNCH=bench/rank_slice.sh: one rank on one slice (SLICE_CORES cores + one
# GPU) against P ranks on P slices, for each config of CONFIGS, on a
# generated realistic collection of SIZE_MB. Logs under $OUT, tables last.
# BIN may name several builds as LABEL=DIR (BIN="before=.carry/mpi-before
# after=.carry/mpi"): each repeat runs them in turn, and the tables give
# each its own rows. Also prints how long an fsync takes on the disk the
# builds write to (the cluster's end syncs what it wrote). Every build's
# CIFF is checked against the single build's on the first run of each
# config (CIFF_EVERY_RUN=1: on every run; CIFF=0: never, for timings of
# builds checked before). EXTRA: arguments for every build ("--set K=V").
# COPIES=N: the generated collection N times over. SHAPES=mixed: instead of
# it, WARC.gz crawls of both shapes (SIZE_MB of text per shape, FILES files
# each, level 6: bench/inflate_builds.sh's per-record and one-stream).
#   BIN=.carry/mpi OUT=/tmp/out SIZE_MB=4000 RANKS="1 2" bash bench/cluster_slices_carried.sh
#   BIN=.carry/mpi OUT=/tmp/out SHAPES=mixed SIZE_MB=12000 FILES=96 CONFIGS=cluster-slice-gpu-parse-4 bash bench/cluster_slices_carried.sh
set -uo pipefail
out=${OUT:-/tmp/out}
bin=${BIN:-.carry/mpi}
mkdir -p "$out"
pfx=/tmp/pfx
rm -rf "$pfx" && eval "$(bash .deps/prefix.sh .deps/debs "$pfx")" && eval "$(bash .deps/prefix.sh .deps/mpi-debs "$pfx")"
mkdir -p /tmp/mpibin && ln -sfn "$pfx/usr/bin/orterun" /tmp/mpibin/mpirun
export PATH=/tmp/mpibin:$PATH OPAL_PREFIX=$pfx/usr
export OMPI_MCA_mca_base_component_path=$pfx/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
export PMIX_MCA_mca_base_component_path=$pfx/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nproc; nvidia-smi -L || true
mpirun --version 2>&1 | head -1
mpirun --oversubscribe -np 2 --mca btl tcp,self hostname 2>&1 | head -4
labels=()
for entry in $bin; do
  label=${entry%%=*}; dir=${entry#*=}
  [ "$label" = "$entry" ] && label=mpi
  mkdir -p "build-$label" && cp -f "$dir"/* "build-$label/"
  labels+=("$label")
done
ldd "build-${labels[0]}/invidx-run" | grep -E "not found|mpi" || true
df -T /tmp | tail -1
python3 - <<'PY'
import os, statistics, tempfile, time
d = tempfile.mkdtemp()
waits = []
for i in range(20):
    path = os.path.join(d, "f%d" % i)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, os.urandom(1 << 20))
    t = time.perf_counter(); os.fsync(fd); waits.append((time.perf_counter() - t) * 1e3)
    os.close(fd)
fd = os.open(d, os.O_RDONLY)
t = time.perf_counter(); os.fsync(fd); dir_ms = (time.perf_counter() - t) * 1e3
print("fsync of 1 MiB just written on /tmp: median %.1f ms, max %.1f ms; of its directory %.1f ms"
      % (statistics.median(waits), max(waits), dir_ms))
PY
# A second call in the same session reuses the collection.
stamp="/tmp/coll.done-${SIZE_MB:-4000}-${SHAPES:-realistic}"
if [ ! -f "$stamp" ] && [ "${SHAPES:-}" = mixed ]; then
  # Crawls of both WARC.gz shapes, as bench/inflate_builds.sh writes them:
  # SIZE_MB of text per shape in FILES files each, level 6, one gzip member
  # a record (Common Crawl-style) and one gzip stream a file (ClueWeb-style),
  # from the documentation pages of .deps/doc-debs where carried (else the
  # sample), different copies of the pages; /tmp/coll links to all of them.
  rm -rf /tmp/coll /tmp/coll-shapes /tmp/coll.done-*
  pages=sample/debian-docs.warc.gz
  if ls .deps/doc-debs/*.deb > /dev/null 2>&1; then
    mkdir -p /tmp/coll-pages && for deb in .deps/doc-debs/*.deb; do dpkg -x "$deb" /tmp/coll-pages; done
    pages=/tmp/coll-pages
  fi
  mkdir -p /tmp/coll
  for shape in per-record whole; do
    seed=1; [ "$shape" = whole ] && seed=2
    python3 bench/gen_collection.py --kind realistic --source "$pages" --size-mb "${SIZE_MB:-4000}" --files "${FILES:-96}" \
      --gzip "$shape" --level 6 --seed "$seed" --jobs "$(nproc)" --out "/tmp/coll-shapes/$shape" > "/tmp/gen-$shape.log" 2>&1 ||
      { tail "/tmp/gen-$shape.log"; exit 1; }
    for f in /tmp/coll-shapes/"$shape"/*.gz; do ln -s "$f" "/tmp/coll/$shape-$(basename "$f")"; done
  done
  touch "$stamp"
elif [ ! -f "$stamp" ]; then
  rm -rf /tmp/coll /tmp/coll.done-*
  python3 bench/gen_collection.py --kind realistic --size-mb "${SIZE_MB:-4000}" --files 32 --jobs 32 --out /tmp/coll > /tmp/gen.log 2>&1 \
    && touch "$stamp" || tail /tmp/gen.log
fi
# COPIES=N: the collection N times over (copies of the generated files under
# other names): a large input without generating it all.
for copy in $(seq 2 "${COPIES:-1}"); do
  for f in /tmp/coll/part-?????.warc.gz; do
    [ -f "${f%.warc.gz}-copy$copy.warc.gz" ] || cp "$f" "${f%.warc.gz}-copy$copy.warc.gz"
  done
done
du -shL /tmp/coll
for repeat in $(seq "${REPEATS:-1}"); do
  for label in "${labels[@]}"; do
    for config in ${CONFIGS:-cluster-slice-12-4 cluster-slice-gpu-parse-4}; do
      # One build: no label in the names, as before labels existed.
      name=$config; [ ${#labels[@]} -gt 1 ] && name=$label-$config
      echo "== $name, run $repeat: ranks ${RANKS:-1 2}, slices of ${SLICE_CORES:-16} cores + 1 GPU"
      # CIFF checked on the first run of each; later runs time the builds only.
      check=1; [ "$repeat" -gt 1 ] && [ "${CIFF_EVERY_RUN:-0}" != 1 ] && check=0
      [ "${CIFF:-1}" = 0 ] && check=0
      CHECK_CIFF=$check LAUNCH=bench/rank_slice.sh SLICE_CORES=${SLICE_CORES:-16} BUILD="build-$label" MPI_ARGS="${MPI_ARGS:---mca btl tcp,self}" \
        REPORTS="$out/reports/$name-$repeat" timeout "${CONFIG_TIMEOUT:-240}" \
        bash bench/cluster_ranks.sh /tmp/coll "bench/configs/$config.json" ${RANKS:-1 2} -- ${EXTRA:-} 2>&1 | tee "$out/$name-$repeat.txt"
    done
  done
done
# MB/s per build and run, then the medians and P=2 against P=1 and the single build.
python3 - "$out/reports" <<'PY'
import glob, json, os, statistics, sys
rates = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.json"))):
    config = os.path.basename(os.path.dirname(path)).rsplit("-", 1)[0]
    build = os.path.basename(path)[:-5]
    r = json.load(open(path))
    rates.setdefault(config, {}).setdefault(build, []).append(r["input_bytes_uncompressed"] / 1e6 / r["total_seconds"])
print("| config | build | MB/s per run | median |")
print("|---|---|---|---:|")
for config, builds in rates.items():
    for build, values in builds.items():
        print("| %s | %s | %s | %.1f |" % (config, build, ", ".join("%.1f" % v for v in values), statistics.median(values)))
for config, builds in rates.items():
    med = {b: statistics.median(v) for b, v in builds.items()}
    for p in sorted(b for b in med if b.startswith("p") and b != "p1"):
        print("%s: %s / p1 = %.2fx, %s / single = %.2fx" % (config, p, med[p] / med["p1"], p, med[p] / med["single"]))
PY
