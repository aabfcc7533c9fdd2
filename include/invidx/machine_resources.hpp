// What a build may use on the machine it runs on; the resolve step settles
// every "auto" of a pipeline against it (BuildPlan, graph/build_plan.hpp).
#pragma once

#include <string>
#include <vector>

namespace invidx {

struct MachineResources {
    unsigned cores = 1;      // the CPUs this process may run on (its affinity)
    std::vector<int> gpus;   // the CUDA ordinals it sees
    std::string gpus_note;   // why there are none, when there are none
};

}  // namespace invidx
