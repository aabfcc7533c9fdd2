#!/usr/bin/env bash
# Runs a command on this MPI rank's slice of the machine: its own GPU
# (CUDA_VISIBLE_DEVICES = the rank on this node, so each rank's gpu:0 is a
# different GPU) and its own SLICE_CORES cores (taskset: rank r gets cores
# r*SLICE_CORES .. (r+1)*SLICE_CORES - 1). Outside mpirun it is slice 0, so a
# single build run through it gets what one rank gets. For
# bench/cluster_ranks.sh on one multi-GPU machine:
#   LAUNCH=bench/rank_slice.sh SLICE_CORES=16 bench/cluster_ranks.sh COLLECTION CONFIG 2
set -euo pipefail
rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${PMI_LOCAL_RANK:-0}}
cores=${SLICE_CORES:-16}
first=$((rank * cores))
export CUDA_VISIBLE_DEVICES=$rank
exec taskset -c "$first-$((first + cores - 1))" "$@"
