// `invidx weight --device gpu`: an index's BM25 impacts computed on a GPU
// (devices/gpu_weights.hpp) and stored in its query layout by the same
// writer as the CPU's (store/query_postings_writer.hpp), so the query.post
// is byte for byte the CPU's wherever the impacts and the largest weight
// are.
//
// The postings are gathered term by term into chunks that each fit the
// device memory budget (gpu_weight_device_bytes); a term is never split, as
// its df is its postings' count. With more than one chunk the largest
// weight of all chunks is found first (a pass of its own) and every chunk is
// then quantized by it, so chunking never changes an impact. The impacts
// wait in host memory (two bytes a posting) until merge stores them.
//
// The computation comes from a backend: CUDA's, or for tests a host
// reference (posting_weights_on_host on pretend GPUs) that lets the CPU test
// suite run this whole path; a user cannot name it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "devices/gpu_layout_weights.hpp"
#include "devices/gpu_weights.hpp"
#include "store/bm25.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

struct DeviceWeightBackend {
    std::string name;                                                  // "cuda", "host reference (tests)"
    std::function<GpuInventory()> inventory;                           // the GPUs --device gpu:N may name
    std::function<GpuWeights(const GpuWeightInput&, int ordinal)> weigh;
    // From query.post's own bytes (devices/gpu_layout_weights.hpp), into impacts (sized by the caller).
    std::function<GpuLayoutImpacts(const GpuLayoutWeightInput&, std::vector<uint16_t>& impacts, int ordinal)> weigh_layout;
};

// The backend in use: CUDA's, unless a test has put another in place.
std::shared_ptr<const DeviceWeightBackend> device_weight_backend();
DeviceWeightBackend cuda_device_weight_backend();
// For tests: `gpus` pretend GPUs of `memory_bytes` each, weighting on the host.
DeviceWeightBackend host_reference_device_weight_backend(int gpus, uint64_t memory_bytes);

// For tests: `backend` is the one in use while this lives.
class ScopedDeviceWeightBackend {
public:
    explicit ScopedDeviceWeightBackend(DeviceWeightBackend backend);
    ~ScopedDeviceWeightBackend();
    ScopedDeviceWeightBackend(const ScopedDeviceWeightBackend&) = delete;
    ScopedDeviceWeightBackend& operator=(const ScopedDeviceWeightBackend&) = delete;

private:
    std::shared_ptr<const DeviceWeightBackend> previous_;
};

// The part of a GPU's memory a chunk may take when no budget is given: the
// rest is left to the CUDA context, the allocator's pools and other users.
inline constexpr double kDeviceWeightMemoryShare = 0.5;

// GPU `ordinal` of the backend, or an invidx::Error naming gpu:N and why
// it cannot be used (a build without CUDA, no device, no such ordinal).
GpuDevice weight_device(int ordinal);

// Consecutive terms [first_term, first_term + terms) holding `postings`.
struct TermChunk {
    uint64_t first_term = 0;
    uint64_t terms = 0;
    uint64_t postings = 0;
};

// The index's terms in chunks of at most `budget_bytes` of device memory
// each (and fewer than 2^31 postings, CUB's count); an Error naming the
// term when one term alone does not fit.
std::vector<TermChunk> weight_chunks(const IndexReader& index, uint64_t budget_bytes);

struct DeviceWeightOptions {
    int device = 0;
    unsigned bits = kDefaultImpactBits;
    Bm25Parameters parameters;
    // Device bytes per chunk; none: kDeviceWeightMemoryShare of the device's memory.
    std::optional<uint64_t> memory_budget;
    // weight_index_on_device: a stop request while the impacts are stored
    // (MergeOptions::stop) leaves the index as it was.
    std::stop_token stop;
};

struct DeviceImpacts {
    PostingImpacts impacts;
    std::string device;  // as the backend names it: "gpu:0 (NVIDIA H100 ...)"
    size_t chunks = 0;
    uint64_t memory_budget = 0;
    std::string source;  // "query.post" (its bp128 bytes, one call) or "run files" (gathered, in chunks)
};

// Every posting's impact, computed on the device: from `layout`'s own bytes
// in one call when it is given, is bp128 and fits the budget (the fast
// path: about 1.6 bytes a posting cross PCIe); otherwise from postings
// gathered from the run files, in chunks of terms under the budget.
DeviceImpacts device_posting_impacts(const IndexReader& index, const DeviceWeightOptions& options,
                                     const QueryPostings* layout = nullptr);

// The whole of `invidx weight IDX --device gpu:N`: the impacts on the
// device with the k1, b and codec of the index's query layout, stored by
// merge_runs (written beside the index and renamed over it, so a failure
// leaves the index as it was). The index must have a query layout.
DeviceImpacts weight_index_on_device(const std::filesystem::path& index_dir, DeviceWeightOptions options);

}  // namespace invidx
