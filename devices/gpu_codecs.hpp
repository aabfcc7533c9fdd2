// Decoding postings on a GPU (issue #5, Ding et al. §4): the codec benchmark
// measures how fast a device decodes bp128 groups (store/codecs/
// binary_packing.hpp: a bit-width byte, then 128 values in the 4-lane
// vertical layout) that are already in device memory, one 128-thread block
// per group, optionally turning gaps into docids with a block prefix sum.
// C++17, no CUDA headers: devices/no_cuda.cpp throws for builds without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace invidx {

struct GpuDecodeResult {
    double seconds = 0;       // one pass over every group: median of the repetitions
    uint64_t integers = 0;    // values decoded per pass
    uint64_t checksum = 0;    // sum over groups of the group's last value (last docid with docids)
    std::string device;
};

// `bytes` holds the groups; group g starts at group_offsets[g] and holds 128
// values; with docids, first_docids[g] is the docid the gaps count from (the
// previous docid + 1; values are gap - 1, as codecs::docids_to_gaps makes
// them). Throws std::runtime_error when no GPU can be used.
GpuDecodeResult gpu_decode_bp128(const std::string& bytes, const std::vector<uint64_t>& group_offsets,
                                 const std::vector<uint32_t>& first_docids, bool docids, unsigned repetitions);

}  // namespace invidx
