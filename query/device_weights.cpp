#include "query/device_weights.hpp"

#include <algorithm>
#include <limits>
#include <mutex>

#include <oneapi/tbb/parallel_for.h>

#include "devices/gpu_unusable.hpp"
#include "devices/host_reference_gpus.hpp"
#include "invidx/error.hpp"
#include "query/layout_weights.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"

namespace invidx {
namespace {

std::mutex backend_mutex;

std::shared_ptr<const DeviceWeightBackend>& current_backend() {
    static std::shared_ptr<const DeviceWeightBackend> backend =
        std::make_shared<const DeviceWeightBackend>(cuda_device_weight_backend());
    return backend;
}

// The chunk's postings, term by term, decoded in parallel into place (each
// term's df says where its postings go).
void gather_chunk(const IndexReader& index, const TermChunk& chunk, GpuWeightInput& input) {
    input.term_offsets.resize(chunk.terms + 1);
    input.term_offsets[0] = 0;
    for (uint64_t i = 0; i < chunk.terms; ++i) {
        input.term_offsets[i + 1] = input.term_offsets[i] + index.term(chunk.first_term + i).df;
    }
    input.docids.resize(chunk.postings);
    input.tfs.resize(chunk.postings);
    oneapi::tbb::parallel_for(uint64_t{0}, chunk.terms, [&](uint64_t i) {
        const auto list = index.postings(chunk.first_term + i);  // its count is checked against df
        std::copy(list.docids.begin(), list.docids.end(), input.docids.begin() + input.term_offsets[i]);
        std::copy(list.tfs.begin(), list.tfs.end(), input.tfs.begin() + input.term_offsets[i]);
    });
}

}  // namespace

std::shared_ptr<const DeviceWeightBackend> device_weight_backend() {
    std::lock_guard lock(backend_mutex);
    return current_backend();
}

DeviceWeightBackend cuda_device_weight_backend() {
    return DeviceWeightBackend{"cuda", list_gpus,
                               [](const GpuWeightInput& input, int ordinal) { return gpu_posting_weights(input, ordinal); },
                               [](const GpuLayoutWeightInput& input, std::vector<uint16_t>& impacts, int ordinal) {
                                   return gpu_layout_impacts(input, impacts.data(), impacts.size(), ordinal);
                               }};
}

DeviceWeightBackend host_reference_device_weight_backend(int gpus, uint64_t memory_bytes) {
    return DeviceWeightBackend{
        "host reference (tests)",
        [gpus, memory_bytes] { return host_reference_gpus(gpus, memory_bytes); },
        [](const GpuWeightInput& input, int) { return posting_weights_on_host(input); },
        [](const GpuLayoutWeightInput& input, std::vector<uint16_t>& impacts, int) {
            GpuLayoutImpacts out;
            out.max_weight = layout_impacts_on_host(input, impacts);
            out.device = "host reference";
            return out;
        }};
}

ScopedDeviceWeightBackend::ScopedDeviceWeightBackend(DeviceWeightBackend backend) {
    std::lock_guard lock(backend_mutex);
    previous_ = current_backend();
    current_backend() = std::make_shared<const DeviceWeightBackend>(std::move(backend));
}

ScopedDeviceWeightBackend::~ScopedDeviceWeightBackend() {
    std::lock_guard lock(backend_mutex);
    current_backend() = std::move(previous_);
}

GpuDevice weight_device(int ordinal) {
    const std::string name = "gpu:" + std::to_string(ordinal);
    const GpuInventory inventory = device_weight_backend()->inventory();
    if (const auto reason = gpu_unusable_reason(ordinal, inventory)) throw Error(name + ": " + *reason);
    return *std::find_if(inventory.devices.begin(), inventory.devices.end(),
                         [ordinal](const GpuDevice& device) { return device.ordinal == ordinal; });
}

std::vector<TermChunk> weight_chunks(const IndexReader& index, uint64_t budget_bytes) {
    const uint64_t documents = index.num_documents();
    // CUB counts items in int: a chunk stays below 2^31 - 1 postings and terms.
    constexpr uint64_t kMaxItems = uint64_t{std::numeric_limits<int>::max()} - 1;
    std::vector<TermChunk> chunks;
    TermChunk chunk;
    for (uint64_t term = 0; term < index.term_count(); ++term) {
        const uint64_t df = index.term(term).df;
        const bool fits = gpu_weight_device_bytes(chunk.terms + 1, chunk.postings + df, documents) <= budget_bytes &&
                          chunk.postings + df < kMaxItems && chunk.terms + 2 < kMaxItems;
        if (!fits && chunk.terms > 0) {
            chunks.push_back(chunk);
            chunk = TermChunk{.first_term = term};
        }
        const uint64_t alone = gpu_weight_device_bytes(1, df, documents);
        if (chunk.terms == 0 && (alone > budget_bytes || df >= kMaxItems)) {
            throw Error("term '" + std::string(index.term(term).term) + "' has " + std::to_string(df) + " postings, which need " +
                        std::to_string(alone) + " bytes of device memory with the " + std::to_string(documents) +
                        " document lengths: more than the budget of " + std::to_string(budget_bytes) + " bytes");
        }
        ++chunk.terms;
        chunk.postings += df;
    }
    if (chunk.terms > 0) chunks.push_back(chunk);
    return chunks;
}

DeviceImpacts device_posting_impacts(const IndexReader& index, const DeviceWeightOptions& options, const QueryPostings* layout) {
    const auto backend = device_weight_backend();
    const GpuDevice device = weight_device(options.device);
    DeviceImpacts out;
    out.memory_budget = options.memory_budget
                            ? *options.memory_budget
                            : static_cast<uint64_t>(static_cast<double>(device.memory_bytes) * kDeviceWeightMemoryShare);
    out.device = "gpu:" + std::to_string(options.device) + " (" + device.name + ")";

    if (layout && layout->codec().name == "bp128" &&
        gpu_layout_device_bytes(layout->raw().bytes.size(), index.term_count(), index.num_documents(), index.num_postings()) <=
            out.memory_budget) {
        GpuLayoutWeightInput input = layout_weight_input(index, *layout, options.bits);
        input.k1 = options.parameters.k1;
        input.b = options.parameters.b;
        PostingImpacts& impacts = out.impacts;
        impacts.bits = options.bits;
        impacts.impacts.resize(index.num_postings());
        const GpuLayoutImpacts result = backend->weigh_layout(input, impacts.impacts, options.device);
        if (!result.device.empty()) out.device = result.device;
        impacts.term_offsets.resize(input.term_dfs.size() + 1, 0);
        for (size_t t = 0; t < input.term_dfs.size(); ++t) impacts.term_offsets[t + 1] = impacts.term_offsets[t] + input.term_dfs[t];
        // An index without postings has no weight to scale by: any positive maximum will do, as on the CPU.
        impacts.max_weight = result.max_weight > 0.0 ? result.max_weight : 1.0;
        out.chunks = 1;
        out.source = "query.post";
        return out;
    }
    out.source = "run files";
    const std::vector<TermChunk> chunks = weight_chunks(index, out.memory_budget);
    out.chunks = chunks.size();

    GpuWeightInput input;
    input.document_lengths.resize(index.num_documents());
    for (uint32_t d = 0; d < index.num_documents(); ++d) input.document_lengths[d] = index.document_length(d);
    // An empty index has no postings to score; 1 keeps the formula finite, as Bm25 does.
    input.average_length = index.average_length() > 0.0 ? index.average_length() : 1.0;
    input.k1 = options.parameters.k1;
    input.b = options.parameters.b;
    input.bits = options.bits;

    auto weigh = [&](const TermChunk& chunk) {
        gather_chunk(index, chunk, input);
        GpuWeights weights = backend->weigh(input, options.device);
        if (!weights.device.empty()) out.device = weights.device;
        ensure(weights.impacts.size() == chunk.postings, "device weighting returned the wrong number of impacts");
        return weights;
    };

    PostingImpacts& impacts = out.impacts;
    impacts.bits = options.bits;
    impacts.term_offsets.reserve(index.term_count() + 1);
    impacts.term_offsets.push_back(0);
    impacts.impacts.reserve(index.num_postings());
    // One chunk is its own largest weight; more are scaled by the largest of all, found first.
    double max_weight = 0.0;
    if (chunks.size() > 1) {
        for (const TermChunk& chunk : chunks) max_weight = std::max(max_weight, weigh(chunk).max_weight);
        input.max_weight = max_weight;
    }
    for (const TermChunk& chunk : chunks) {
        const GpuWeights weights = weigh(chunk);
        if (chunks.size() == 1) max_weight = weights.max_weight;
        for (uint64_t i = 0; i < chunk.terms; ++i) {
            impacts.term_offsets.push_back(impacts.term_offsets.back() + (input.term_offsets[i + 1] - input.term_offsets[i]));
        }
        for (const uint32_t impact : weights.impacts) impacts.impacts.push_back(static_cast<uint16_t>(impact));
    }
    // An index without postings has no weight to scale by: any positive maximum will do, as on the CPU.
    impacts.max_weight = max_weight > 0.0 ? max_weight : 1.0;
    return out;
}

DeviceImpacts weight_index_on_device(const std::filesystem::path& index_dir, DeviceWeightOptions options) {
    MergeOptions merge;
    DeviceImpacts result;
    {
        const IndexReader index(index_dir);
        ensure(QueryPostings::present(index), "index " + index_dir.string() + " has no query layout to store impacts in");
        // The layout's own codec and BM25 parameters: its block maxima and the weights agree.
        const QueryPostings layout(index);
        merge.query_codec = std::string(layout.codec().name);
        options.parameters = layout.parameters();
        merge.query_parameters = options.parameters;
        result = device_posting_impacts(index, options, &layout);
    }
    merge.impacts = &result.impacts;
    merge.stop = options.stop;
    merge_runs(index_dir, merge);
    return result;
}

}  // namespace invidx
