#!/usr/bin/env bash
# Runs a command on this MPI rank's slice of the machine: its own GPU
# (CUDA_VISIBLE_DEVICES = the rank on this node, so each rank's gpu:0 is a
# different GPU) and its own SLICE_CORES hardware threads (taskset). A slice
# is made of whole physical cores: the hardware threads are taken core by
# core (a core's hyperthread siblings together, cores in the order of their
# first thread), rank r getting threads r*SLICE_CORES .. (r+1)*SLICE_CORES-1
# of that list. Where thread N and N+16 share a core (a 16-core, 32-thread
# host), numbering by thread would give one rank every core's first thread
# and the other their siblings: one rank alone would then have all 16 cores,
# and two ranks would share them. SLICE_BY=thread keeps that older numbering
# (rank r gets threads r*SLICE_CORES ..). Outside mpirun it is slice 0, so a
# single build run through it gets what one rank gets. For
# RANK_GPUS (optional): the GPU of each local rank, e.g. "0 0" for two ranks
# sharing one GPU on a one-GPU machine. For
# bench/cluster_ranks.sh on one multi-GPU machine:
#   LAUNCH=bench/rank_slice.sh SLICE_CORES=16 bench/cluster_ranks.sh COLLECTION CONFIG 2
set -euo pipefail
rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${PMI_LOCAL_RANK:-0}}
cores=${SLICE_CORES:-16}
if [ -n "${RANK_GPUS:-}" ]; then
  gpus=($RANK_GPUS)
  export CUDA_VISIBLE_DEVICES=${gpus[$rank]:?RANK_GPUS names no GPU for local rank $rank}
else
  export CUDA_VISIBLE_DEVICES=$rank
fi
if [ "${SLICE_BY:-core}" = thread ]; then
  first=$((rank * cores))
  exec taskset -c "$first-$((first + cores - 1))" "$@"
fi
threads=$(python3 - "$rank" "$cores" <<'PY'
import glob, os, sys
rank, cores = int(sys.argv[1]), int(sys.argv[2])
def expand(text):
    out = []
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out
groups = set()
for path in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list"):
    groups.add(tuple(sorted(expand(open(path).read()))))
if not groups:  # no topology to read (some sandboxes): one thread a core
    groups = {(t,) for t in sorted(os.sched_getaffinity(0))}
order = [t for group in sorted(groups) for t in group]
mine = order[rank * cores:(rank + 1) * cores]
if len(mine) < cores:
    sys.exit("rank_slice: slice %d of %d threads needs %d threads, the machine has %d" % (rank, cores, (rank + 1) * cores, len(order)))
print(",".join(map(str, mine)))
PY
)
exec taskset -c "$threads" "$@"
