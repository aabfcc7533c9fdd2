// gpu_layout_impacts (devices/gpu_layout_weights.hpp): BM25 impacts from the
// bytes of query.post, walked and decoded on the device. Scans give each
// term its first block and posting; one thread a term walks its list into
// the block table (devices/layout_block_walk.hpp, the host reference's walk);
// one 128-thread block a block of postings decodes and weighs it, the first
// pass keeping only each block's largest weight, the second recomputing
// every weight and quantizing it.
//
// The arithmetic is bm25_weight_math.cuh's, as gpu_bm25_weights.cu's
// (explicitly rounded intrinsics in store/bm25.hpp's order), so weights and
// impacts are the CPU's.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "devices/cuda/codecs/bp128_decode.cuh"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/index/bm25_weight_math.cuh"
#include "devices/gpu_layout_weights.hpp"
#include "devices/layout_block_walk.hpp"
#include "devices/parallel_copy.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using cuda::check;
using cuda::check_launch;

constexpr unsigned kThreads = 256;
constexpr unsigned kBlockThreads = cuda::kBp128GroupValues;  // one thread a posting of a block

unsigned blocks_for(uint64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// Each term's blocks, to be scanned into its first block.
__global__ void blocks_per_term(const uint64_t* dfs, uint64_t terms, uint64_t* blocks) {
    const uint64_t t = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (t < terms) blocks[t] = layout_walk::blocks_of(dfs[t]);
}

// Problems found by the walk and the decoding, for the host's message.
struct Problems {
    unsigned walk;        // a layout_walk::WalkProblem (the largest code seen)
    unsigned long long term;  // the smallest term with a walk problem
    unsigned docid;       // 1: a decoded docid past the documents
};

__global__ void walk_lists(layout_walk::LayoutFile file, const uint64_t* dfs, const uint64_t* first_blocks,
                           const uint64_t* first_postings, uint64_t terms, uint64_t documents, layout_walk::BlockTable table,
                           Problems* problems) {
    const uint64_t t = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (t >= terms) return;
    const uint32_t problem = layout_walk::walk_list(file, t, dfs[t], first_blocks[t], first_postings[t], documents, table);
    if (problem != layout_walk::kWalkOk) {
        atomicMax(&problems->walk, problem);
        atomicMin(&problems->term, static_cast<unsigned long long>(t));
    }
}

struct Larger {
    __device__ double operator()(double a, double b) const { return a < b ? b : a; }
};

// Both passes over block blockIdx.x: its postings decoded and weighed
// (Bm25::score, idf · (tf·(k1 + 1)) / (tf + norm)). Impact void: the block's
// largest weight into block_max; otherwise every posting's impact,
// ImpactQuantizer's ceil(w / max · range) clamped to [1, range].
template <class Impact>
__global__ void __launch_bounds__(kBlockThreads)
    weigh_blocks(const unsigned char* file, layout_walk::BlockTable table, uint64_t blocks, uint64_t postings, const double* idfs,
                 const double* norms, uint64_t documents, double k1, const double* max_weight, uint32_t range,
                 double* block_max, Impact* impacts, Problems* problems) {
    using BlockMax = cub::BlockReduce<double, kBlockThreads>;
    __shared__ cuda::Bp128Scan::TempStorage scan;
    __shared__ typename BlockMax::TempStorage reduce;
    const uint64_t block = blockIdx.x;
    const uint64_t first = table.posting_starts[block];
    const uint64_t end = block + 1 < blocks ? table.posting_starts[block + 1] : postings;
    const unsigned count = static_cast<unsigned>(end - first);
    const unsigned i = threadIdx.x;
    const uint32_t docid = cuda::bp128_decode_group<true>(file + table.docid_starts[block], table.first_docids[block], scan, count);
    double weight = 0.0;
    if (i < count) {
        const uint32_t tf = cuda::bp128_group_value(file + table.tf_starts[block], i, count) + 1;
        if (docid < documents) {
            weight = cuda::bm25_weight(idfs[table.terms[block]], tf, k1, norms[docid]);
        } else {
            atomicExch(&problems->docid, 1u);
        }
    }
    if constexpr (std::is_void_v<Impact>) {
        const double largest = BlockMax(reduce).Reduce(weight, Larger{});
        if (i == 0) block_max[block] = largest;
    } else {
        if (i < count) {
            impacts[first + i] = static_cast<Impact>(cuda::bm25_impact(weight, *max_weight, range));
        }
    }
}

template <class T>
void upload(cuda::DeviceArray<T>& array, const T* values, size_t count, cudaStream_t stream) {
    array.reserve(std::max<size_t>(count, 1), 0, stream);
    if (count > 0) {
        check(cudaMemcpyAsync(array.data(), values, count * sizeof(T), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (to the device)");
    }
}

constexpr uint64_t kStageBytes = uint64_t{8} << 20;  // a piece of a staged copy

}  // namespace

struct GpuLayoutWeigher::State {
    explicit State(int ordinal)
        : device(ordinal),
          name(cuda::use_device(ordinal)),
          file(memory),
          temp(memory),
          dfs(memory),
          first_blocks(memory),
          first_postings(memory),
          docid_starts(memory),
          tf_starts(memory),
          posting_starts(memory),
          lengths(memory),
          first_docids(memory),
          block_terms(memory),
          idfs(memory),
          norms(memory),
          block_max(memory),
          max_weight(memory),
          scale(memory),
          impacts(memory),
          problems(memory),
          pinned(host_memory) {
        pinned.reserve(4 * kStageBytes);  // two pieces in, two out
    }

    int device;
    std::string name;
    cuda::ScopedStream scoped;  // before the arrays: it outlives their frees
    cuda::MemoryCounter memory, host_memory;
    cuda::DeviceArray<unsigned char> file, temp;
    cuda::DeviceArray<uint64_t> dfs, first_blocks, first_postings, docid_starts, tf_starts, posting_starts;
    cuda::DeviceArray<uint32_t> lengths, first_docids, block_terms;
    cuda::DeviceArray<double> idfs, norms, block_max, max_weight, scale;
    cuda::DeviceArray<unsigned char> impacts;  // 1 or 2 bytes an impact
    cuda::DeviceArray<Problems> problems;
    cuda::PinnedArray<unsigned char> pinned;
    cudaEvent_t piece_moved[4] = {};  // per pinned piece: the copy engine is done with it

    ~State() {
        for (cudaEvent_t event : piece_moved) {
            if (event) cudaEventDestroy(event);  // destructor path: errors have nowhere to go
        }
    }

    unsigned char* piece(unsigned i) const { return pinned.data() + i * kStageBytes; }

    void wait_for_piece(unsigned i) {
        if (!piece_moved[i]) check(cudaEventCreateWithFlags(&piece_moved[i], cudaEventDisableTiming), "cudaEventCreate");
        check(cudaEventSynchronize(piece_moved[i]), "cudaEventSynchronize");
    }

    // Host to device through pieces 0 and 1: the host fills one (on every
    // thread) while the copy engine empties the other.
    void staged_upload(unsigned char* to, const unsigned char* from, uint64_t bytes) {
        const cudaStream_t stream = scoped.get();
        for (uint64_t at = 0, i = 0; at < bytes; at += kStageBytes, ++i) {
            const unsigned j = i & 1;
            const uint64_t n = std::min(kStageBytes, bytes - at);
            wait_for_piece(j);
            parallel_copy(piece(j), from + at, n);
            check(cudaMemcpyAsync(to + at, piece(j), n, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (piece in)");
            check(cudaEventRecord(piece_moved[j], stream), "cudaEventRecord");
        }
    }

    // Device to host through pieces 2 and 3: the host empties one while the
    // copy engine fills the other.
    void staged_download(unsigned char* to, const unsigned char* from, uint64_t bytes) {
        const cudaStream_t stream = scoped.get();
        uint64_t waiting_at = 0, waiting = 0;
        unsigned waiting_piece = 0;
        auto take_waiting = [&] {
            wait_for_piece(waiting_piece);
            parallel_copy(to + waiting_at, piece(waiting_piece), waiting);
        };
        for (uint64_t at = 0, i = 0; at < bytes; at += kStageBytes, ++i) {
            const unsigned j = 2 + (i & 1);
            const uint64_t n = std::min(kStageBytes, bytes - at);
            wait_for_piece(j);  // created on first use; free again once taken below
            check(cudaMemcpyAsync(piece(j), from + at, n, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (piece out)");
            check(cudaEventRecord(piece_moved[j], stream), "cudaEventRecord");
            if (waiting > 0) take_waiting();
            waiting_at = at, waiting = n, waiting_piece = j;
        }
        if (waiting > 0) take_waiting();
    }

    template <class Impact>
    GpuLayoutImpacts weigh(const GpuLayoutWeightInput& input, Impact* out_impacts, uint64_t count);
};

template <class Impact>
GpuLayoutImpacts GpuLayoutWeigher::State::weigh(const GpuLayoutWeightInput& input, Impact* out_impacts, uint64_t count) {
    check_layout_weight_input(input, count, sizeof(Impact) == 1);
    const uint64_t terms = input.term_dfs.size();
    const uint64_t documents = input.document_lengths.size();
    const uint64_t postings = count;
    ensure(terms < (uint64_t{1} << 31), "layout impacts: more than 2^31 - 1 terms in one call");
    check(cudaSetDevice(device), "cudaSetDevice");
    GpuLayoutImpacts out;
    out.device = "gpu:" + std::to_string(device) + " (" + name + ")";
    if (postings == 0) return out;
    const cudaStream_t stream = scoped.get();
    cuda::ScopedEvent start, copied_in, walked, weighed, copied_out;

    start.record(stream);
    // A bp128 group's reads may run kBp128ReadSlack bytes past its end: zeros.
    file.reserve(input.file_bytes + cuda::kBp128ReadSlack, 0, stream);
    staged_upload(file.data(), input.file, input.file_bytes);
    check(cudaMemsetAsync(file.data() + input.file_bytes, 0, cuda::kBp128ReadSlack, stream), "cudaMemsetAsync");
    upload(dfs, input.term_dfs.data(), terms, stream);
    upload(lengths, input.document_lengths.data(), documents, stream);
    copied_in.record(stream);

    // 1. Each term's first block and first posting.
    first_blocks.reserve(terms + 1, 0, stream);
    first_postings.reserve(terms + 1, 0, stream);
    blocks_per_term<<<blocks_for(terms), kThreads, 0, stream>>>(dfs.data(), terms, first_postings.data());  // scratch
    check_launch("blocks_per_term");
    size_t scan_bytes = 0;
    const int items = static_cast<int>(terms);
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, dfs.data(), first_postings.data(), items, stream), "DeviceScan");
    temp.reserve(std::max<size_t>(scan_bytes, 1), 0, stream);
    // Blocks first (their counts wait in first_postings), then the postings over them.
    check(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, first_postings.data(), first_blocks.data(), items, stream),
          "DeviceScan");
    check(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, dfs.data(), first_postings.data(), items, stream), "DeviceScan");
    uint64_t blocks = 0;
    {
        uint64_t last_first = 0;
        check(cudaMemcpyAsync(&last_first, first_blocks.data() + terms - 1, sizeof(uint64_t), cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (blocks back)");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        blocks = last_first + layout_walk::blocks_of(input.term_dfs[terms - 1]);
    }
    ensure(blocks < (uint64_t{1} << 31), "layout impacts: more than 2^31 - 1 blocks in one call");

    // 2. The block table, one thread a term.
    docid_starts.reserve(blocks, 0, stream);
    tf_starts.reserve(blocks, 0, stream);
    first_docids.reserve(blocks, 0, stream);
    block_terms.reserve(blocks, 0, stream);
    posting_starts.reserve(blocks, 0, stream);
    problems.reserve(1, 0, stream);
    const Problems none{layout_walk::kWalkOk, ~0ull, 0};
    check(cudaMemcpyAsync(problems.data(), &none, sizeof(Problems), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    layout_walk::BlockTable table;
    table.docid_starts = docid_starts.data();
    table.tf_starts = tf_starts.data();
    table.first_docids = first_docids.data();
    table.terms = block_terms.data();
    table.posting_starts = posting_starts.data();
    const layout_walk::LayoutFile layout{file.data(), input.lists_start, input.table_offset, input.entry_bytes};
    walk_lists<<<blocks_for(terms), kThreads, 0, stream>>>(layout, dfs.data(), first_blocks.data(), first_postings.data(), terms,
                                                           documents, table, problems.data());
    check_launch("walk_lists");
    Problems found{};
    check(cudaMemcpyAsync(&found, problems.data(), sizeof(Problems), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    walked.record(stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (found.walk != layout_walk::kWalkOk) {
        throw Error("query.post: the list of term " + std::to_string(found.term) + " (or a later one): " +
                    layout_walk::walk_problem_text(found.walk));
    }

    // 3. Norms, idfs, the largest weight, the impacts.
    idfs.reserve(terms, 0, stream);
    norms.reserve(std::max<uint64_t>(documents, 1), 0, stream);
    block_max.reserve(blocks, 0, stream);
    max_weight.reserve(1, 0, stream);
    impacts.reserve(postings * sizeof(Impact), 0, stream);
    if (input.max_weight) {
        scale.reserve(1, 0, stream);
        check(cudaMemcpyAsync(scale.data(), &*input.max_weight, sizeof(double), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (largest weight to the device)");
    }
    cuda::bm25_idfs<uint64_t><<<blocks_for(terms), kThreads, 0, stream>>>(dfs.data(), terms, static_cast<double>(documents), idfs.data());
    check_launch("bm25_idfs");
    if (documents > 0) {
        cuda::bm25_length_norms<uint32_t><<<blocks_for(documents), kThreads, 0, stream>>>(lengths.data(), documents, input.k1, input.b,
                                                                     input.average_length, norms.data());
        check_launch("bm25_length_norms");
    }
    const uint32_t range = (uint32_t{1} << input.bits) - 1;
    const auto grid = static_cast<unsigned>(blocks);
    weigh_blocks<void><<<grid, kBlockThreads, 0, stream>>>(file.data(), table, blocks, postings, idfs.data(), norms.data(), documents,
                                                           input.k1, nullptr, range, block_max.data(), nullptr, problems.data());
    check_launch("weigh_blocks (largest weight)");
    size_t max_bytes = 0;
    check(cub::DeviceReduce::Max(nullptr, max_bytes, block_max.data(), max_weight.data(), static_cast<int>(blocks), stream),
          "DeviceReduce");
    temp.reserve(std::max<size_t>(max_bytes, 1), 0, stream);
    check(cub::DeviceReduce::Max(temp.data(), max_bytes, block_max.data(), max_weight.data(), static_cast<int>(blocks), stream),
          "DeviceReduce");
    weigh_blocks<Impact><<<grid, kBlockThreads, 0, stream>>>(file.data(), table, blocks, postings, idfs.data(), norms.data(), documents,
                                                             input.k1, input.max_weight ? scale.data() : max_weight.data(), range,
                                                             nullptr, reinterpret_cast<Impact*>(impacts.data()), problems.data());
    check_launch("weigh_blocks (impacts)");
    weighed.record(stream);

    staged_download(reinterpret_cast<unsigned char*>(out_impacts), impacts.data(), postings * sizeof(Impact));
    check(cudaMemcpyAsync(&out.max_weight, max_weight.data(), sizeof(double), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (largest weight back)");
    check(cudaMemcpyAsync(&found, problems.data(), sizeof(Problems), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    copied_out.record(stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (found.docid != 0) throw Error("query.post: a decoded docid is past the index's " + std::to_string(documents) + " documents");
    out.blocks = blocks;
    out.times = {.copies_in = copied_in.seconds_since(start),
                 .blocks = walked.seconds_since(copied_in),
                 .weights = weighed.seconds_since(walked),
                 .copies_out = copied_out.seconds_since(weighed)};
    return out;
}


GpuLayoutWeigher::GpuLayoutWeigher(int device) : state_(std::make_unique<State>(device)) {}
GpuLayoutWeigher::~GpuLayoutWeigher() = default;

GpuLayoutImpacts GpuLayoutWeigher::impacts(const GpuLayoutWeightInput& input, uint16_t* impacts, uint64_t count) {
    return state_->weigh(input, impacts, count);
}

GpuLayoutImpacts GpuLayoutWeigher::impacts(const GpuLayoutWeightInput& input, uint8_t* impacts, uint64_t count) {
    return state_->weigh(input, impacts, count);
}

uint64_t GpuLayoutWeigher::device_bytes() const { return state_->memory.bytes; }

GpuLayoutImpacts gpu_layout_impacts(const GpuLayoutWeightInput& input, uint16_t* impacts, uint64_t count, int device) {
    check_layout_weight_input(input, count, false);  // a malformed input is refused before the device is touched
    return GpuLayoutWeigher(device).impacts(input, impacts, count);
}

GpuLayoutImpacts gpu_layout_impacts(const GpuLayoutWeightInput& input, uint8_t* impacts, uint64_t count, int device) {
    check_layout_weight_input(input, count, true);
    return GpuLayoutWeigher(device).impacts(input, impacts, count);
}

}  // namespace invidx
