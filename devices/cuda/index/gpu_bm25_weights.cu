// gpu_posting_weights (devices/gpu_weights.hpp): BM25 weights and impacts of
// every posting, composed from CUB primitives and element-wise maps as
// Wakatsuki et al. compose their GPU term weighting.
//
// Every floating-point step (bm25_weight_math.cuh) is an explicitly rounded
// intrinsic (__dmul_rn, __dadd_rn, __ddiv_rn, ...) in the order
// store/bm25.hpp evaluates it:
// nvcc would otherwise fuse multiply-adds, whose single rounding differs from
// the CPU's two in the last bit and could move a weight across an impact
// boundary. Only log differs (CUDA's is within 1 ulp of glibc's).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/index/bm25_weight_math.cuh"
#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using cuda::check;
using cuda::check_launch;

constexpr unsigned kThreads = 256;

unsigned blocks_for(uint64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// Step 1: a 1 at the first posting of every term but the first (terms
// without postings share their successor's start, hence the atomic add), so
// that the inclusive scan of the flags is each posting's term.
__global__ void mark_term_starts(const uint64_t* offsets, uint64_t terms, uint64_t postings, uint32_t* flags) {
    const uint64_t t = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x + 1;
    if (t < terms && offsets[t] < postings) atomicAdd(&flags[offsets[t]], 1u);
}

__global__ void fill_ones(uint32_t* out, uint64_t n) {
    const uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (i < n) out[i] = 1;
}

// Step 4: Bm25::score, idf · (tf·(k1 + 1)) / (tf + norm).
__global__ void posting_weights(const uint32_t* terms, const uint32_t* docids, const uint32_t* tfs, const double* idfs,
                                const double* norms, uint64_t postings, double k1, double* weights) {
    const uint64_t p = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (p >= postings) return;
    weights[p] = cuda::bm25_weight(idfs[terms[p]], tfs[p], k1, norms[docids[p]]);
}

// Step 6: ImpactQuantizer, ceil(w / max · range) clamped to [1, range].
__global__ void quantize(const double* weights, const double* max_weight, uint64_t postings, uint32_t range,
                         uint32_t* impacts) {
    const uint64_t p = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (p >= postings) return;
    impacts[p] = cuda::bm25_impact(weights[p], *max_weight, range);
}

template <class T>
void upload(cuda::DeviceArray<T>& array, const std::vector<T>& values, cudaStream_t stream) {
    array.reserve(std::max<size_t>(values.size(), 1), 0, stream);
    if (!values.empty()) {
        check(cudaMemcpyAsync(array.data(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (to the device)");
    }
}

}  // namespace

GpuWeights gpu_posting_weights(const GpuWeightInput& input, int device, bool keep_weights) {
    check_weight_input(input);
    GpuWeights out;
    out.device = "gpu:" + std::to_string(device) + " (" + cuda::use_device(device) + ")";
    const uint64_t terms = input.term_offsets.size() - 1;
    const uint64_t postings = input.docids.size();
    const uint64_t documents = input.document_lengths.size();
    if (postings == 0) return out;

    cuda::ScopedStream scoped;  // before the arrays: it outlives their frees
    const cudaStream_t stream = scoped.get();
    cuda::MemoryCounter memory;
    cuda::DeviceArray<uint64_t> offsets(memory);
    cuda::DeviceArray<uint32_t> docids(memory), tfs(memory), lengths(memory), flags(memory), posting_terms(memory), ones(memory),
        dfs(memory), impacts(memory);
    cuda::DeviceArray<double> idfs(memory), norms(memory), weights(memory), max_weight(memory), scale(memory);
    cuda::DeviceArray<unsigned char> temp(memory);
    upload(offsets, input.term_offsets, stream);
    upload(docids, input.docids, stream);
    upload(tfs, input.tfs, stream);
    upload(lengths, input.document_lengths, stream);
    for (auto* array : {&flags, &posting_terms, &ones, &impacts}) array->reserve(postings, 0, stream);
    dfs.reserve(std::max<uint64_t>(terms, 1), 0, stream);
    idfs.reserve(std::max<uint64_t>(terms, 1), 0, stream);
    norms.reserve(std::max<uint64_t>(documents, 1), 0, stream);
    weights.reserve(postings, 0, stream);
    max_weight.reserve(1, 0, stream);
    if (input.max_weight) {
        // Chunks of one index are quantized by the largest weight of all of them.
        scale.reserve(1, 0, stream);
        check(cudaMemcpyAsync(scale.data(), &*input.max_weight, sizeof(double), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (largest weight to the device)");
    }

    // 1. Each posting's term: scan of the term-start flags.
    check(cudaMemsetAsync(flags.data(), 0, postings * sizeof(uint32_t), stream), "cudaMemsetAsync");
    if (terms > 1) {
        mark_term_starts<<<blocks_for(terms - 1), kThreads, 0, stream>>>(offsets.data(), terms, postings, flags.data());
        check_launch("mark_term_starts");
    }
    const int items = static_cast<int>(postings);
    size_t scan_bytes = 0;
    check(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, flags.data(), posting_terms.data(), items, stream), "DeviceScan");
    // 2. df per term: the segmented sum of a 1 per posting.
    fill_ones<<<blocks_for(postings), kThreads, 0, stream>>>(ones.data(), postings);
    check_launch("fill_ones");
    size_t reduce_bytes = 0;
    const int segments = static_cast<int>(terms);
    check(cub::DeviceSegmentedReduce::Sum(nullptr, reduce_bytes, ones.data(), dfs.data(), segments, offsets.data(),
                                          offsets.data() + 1, stream),
          "DeviceSegmentedReduce");
    size_t max_bytes = 0;
    check(cub::DeviceReduce::Max(nullptr, max_bytes, weights.data(), max_weight.data(), items, stream), "DeviceReduce");
    temp.reserve(std::max({scan_bytes, reduce_bytes, max_bytes, size_t{1}}), 0, stream);

    check(cub::DeviceScan::InclusiveSum(temp.data(), scan_bytes, flags.data(), posting_terms.data(), items, stream), "DeviceScan");
    if (terms > 0) {
        check(cub::DeviceSegmentedReduce::Sum(temp.data(), reduce_bytes, ones.data(), dfs.data(), segments, offsets.data(),
                                              offsets.data() + 1, stream),
              "DeviceSegmentedReduce");
        cuda::bm25_idfs<uint32_t><<<blocks_for(terms), kThreads, 0, stream>>>(dfs.data(), terms, static_cast<double>(documents), idfs.data());
        check_launch("bm25_idfs");
    }
    // 3. and 4. Length norms, then every posting's weight.
    cuda::bm25_length_norms<uint32_t><<<blocks_for(documents), kThreads, 0, stream>>>(lengths.data(), documents, input.k1, input.b,
                                                                 input.average_length, norms.data());
    check_launch("bm25_length_norms");
    posting_weights<<<blocks_for(postings), kThreads, 0, stream>>>(posting_terms.data(), docids.data(), tfs.data(), idfs.data(),
                                                                   norms.data(), postings, input.k1, weights.data());
    check_launch("posting_weights");
    // 5. and 6. The largest weight, then the impacts scaled by it (or by the given one).
    check(cub::DeviceReduce::Max(temp.data(), max_bytes, weights.data(), max_weight.data(), items, stream), "DeviceReduce");
    const uint32_t range = (uint32_t{1} << input.bits) - 1;
    quantize<<<blocks_for(postings), kThreads, 0, stream>>>(weights.data(), input.max_weight ? scale.data() : max_weight.data(),
                                                            postings, range, impacts.data());
    check_launch("quantize");

    out.impacts.resize(postings);
    check(cudaMemcpyAsync(out.impacts.data(), impacts.data(), postings * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (impacts back)");
    check(cudaMemcpyAsync(&out.max_weight, max_weight.data(), sizeof(double), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (max weight back)");
    if (keep_weights) {
        out.weights.resize(postings);
        check(cudaMemcpyAsync(out.weights.data(), weights.data(), postings * sizeof(double), cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (weights back)");
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return out;
}

}  // namespace invidx
