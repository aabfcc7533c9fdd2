// How many cores this process may use: the CPUs of its affinity mask, which
// taskset, Slurm and container cpusets narrow (and which oneTBB's threads
// keep to). std::thread::hardware_concurrency() counts every CPU of the
// machine, so "auto" counts sized from it oversubscribed a rank pinned to
// half of a machine (a cluster rank on its slice of cores and one GPU:
// docs/PERFORMANCE.md, "Cluster builds").
#pragma once

namespace invidx {

// At least 1; hardware_concurrency() where the mask cannot be read.
unsigned available_cores();

}  // namespace invidx
