// The GPU query processor (devices/gpu_query.hpp).
#include <algorithm>
#include <cstring>
#include <list>
#include <stdexcept>
#include <unordered_map>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "devices/cuda/cuda_check.hpp"
#include "devices/cuda/device_array.hpp"
#include "devices/gpu_query.hpp"

namespace invidx {
namespace {

using cuda::check;
using cuda::DeviceArray;
using cuda::MemoryCounter;

constexpr int kThreads = 256;
unsigned blocks_for(uint64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// idf · tf·(k1+1) / (tf + norm), each operation rounded on its own as the
// host computes it (query/bm25.hpp): no contraction into fused multiply-adds.
__global__ void accumulate_term(const uint32_t* docids, const uint32_t* tfs, uint32_t count, double idf,
                                double k1_plus_1, const double* norms, double* scores, uint32_t* hits) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const uint32_t doc = docids[i];
    const double f = static_cast<double>(tfs[i]);
    const double part = __ddiv_rn(__dmul_rn(f, k1_plus_1), __dadd_rn(f, norms[doc]));
    scores[doc] = __dadd_rn(scores[doc], __dmul_rn(idf, part));
    hits[doc] += 1;  // distinct docids within a term: no two threads share a document
}

// A document is a candidate when it is in `needed` lists (1 for OR).
__global__ void mark_candidates(const uint32_t* hits, uint32_t documents, uint32_t needed, uint8_t* flags) {
    const uint32_t doc = blockIdx.x * blockDim.x + threadIdx.x;
    if (doc < documents) flags[doc] = hits[doc] >= needed ? 1 : 0;
}

// Sort keys: best score first, then smaller docid (the radix sort is stable
// and the candidates arrive in docid order). Scores are positive, so their
// bits order like the numbers.
__global__ void make_keys(const uint32_t* candidates, const uint32_t* candidate_count, const double* scores,
                          unsigned long long* keys) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= *candidate_count) return;
    keys[i] = ~static_cast<unsigned long long>(__double_as_longlong(scores[candidates[i]]));
}

__global__ void fill_sequence(uint32_t* values, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) values[i] = i;
}

class CudaQueryProcessor final : public GpuQueryProcessor {
public:
    CudaQueryProcessor(int device, const std::vector<double>& norms, double k1, size_t cache_bytes)
        : device_(device), k1_plus_1_(k1 + 1.0), cache_budget_(cache_bytes), documents_(norms.size()),
          norms_(memory_), scores_(memory_), hits_(memory_), flags_(memory_), sequence_(memory_),
          candidates_(memory_), candidate_count_(memory_), keys_(memory_), keys_sorted_(memory_),
          docs_sorted_(memory_), temp_(memory_) {
        int count = 0;
        check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        if (device < 0 || device >= count) throw std::runtime_error("gpu:" + std::to_string(device) + " does not exist");
        check(cudaSetDevice(device), "cudaSetDevice");
        cudaDeviceProp properties{};
        check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
        stats_.device = "gpu:" + std::to_string(device) + " " + properties.name;
        if (documents_ >= (size_t{1} << 32)) throw std::runtime_error("too many documents for the GPU query path");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        const size_t n = std::max<size_t>(documents_, 1);
        norms_.reserve(n, 0, stream_);
        scores_.reserve(n, 0, stream_);
        hits_.reserve(n, 0, stream_);
        flags_.reserve(n, 0, stream_);
        sequence_.reserve(n, 0, stream_);
        candidates_.reserve(n, 0, stream_);
        candidate_count_.reserve(1, 0, stream_);
        keys_.reserve(n, 0, stream_);
        keys_sorted_.reserve(n, 0, stream_);
        docs_sorted_.reserve(n, 0, stream_);
        if (documents_ > 0) {
            check(cudaMemcpyAsync(norms_.data(), norms.data(), documents_ * sizeof(double), cudaMemcpyHostToDevice,
                                  stream_),
                  "norms");
            fill_sequence<<<blocks_for(documents_), kThreads, 0, stream_>>>(sequence_.data(),
                                                                           static_cast<uint32_t>(documents_));
            cuda::check_launch("fill_sequence");
        }
        size_t select_bytes = 0, sort_bytes = 0;
        check(cub::DeviceSelect::Flagged(nullptr, select_bytes, sequence_.data(), flags_.data(), candidates_.data(),
                                         candidate_count_.data(), static_cast<int>(n)),
              "DeviceSelect (size)");
        check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_.data(), keys_sorted_.data(),
                                              candidates_.data(), docs_sorted_.data(), static_cast<int>(n)),
              "DeviceRadixSort (size)");
        temp_.reserve(std::max(select_bytes, sort_bytes), 0, stream_);
        check(cudaStreamSynchronize(stream_), "setup");
    }

    ~CudaQueryProcessor() override {
        cudaSetDevice(device_);
        if (stream_) cudaStreamSynchronize(stream_);
        cache_.clear();
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::vector<std::pair<uint32_t, double>> top_k(const std::vector<GpuQueryTerm>& terms, bool conjunctive,
                                                   size_t k) override {
        check(cudaSetDevice(device_), "cudaSetDevice");
        std::vector<std::pair<uint32_t, double>> out;
        if (terms.empty() || k == 0 || documents_ == 0) return out;
        check(cudaMemsetAsync(scores_.data(), 0, documents_ * sizeof(double), stream_), "memset");
        check(cudaMemsetAsync(hits_.data(), 0, documents_ * sizeof(uint32_t), stream_), "memset");
        // Query order: each document's sum is taken term after term, like the CPU's.
        for (const GpuQueryTerm& term : terms) {
            CachedList& list = fetch(term);
            if (list.count == 0) continue;
            accumulate_term<<<blocks_for(list.count), kThreads, 0, stream_>>>(
                list.docids.data(), list.tfs.data(), static_cast<uint32_t>(list.count), term.idf, k1_plus_1_,
                norms_.data(), scores_.data(), hits_.data());
            cuda::check_launch("accumulate_term");
            stats_.postings_scored += list.count;
        }
        const auto needed = static_cast<uint32_t>(conjunctive ? terms.size() : 1);
        const auto n = static_cast<uint32_t>(documents_);
        mark_candidates<<<blocks_for(n), kThreads, 0, stream_>>>(hits_.data(), n, needed, flags_.data());
        cuda::check_launch("mark_candidates");
        size_t bytes = temp_.capacity();
        check(cub::DeviceSelect::Flagged(temp_.data(), bytes, sequence_.data(), flags_.data(), candidates_.data(),
                                         candidate_count_.data(), static_cast<int>(n), stream_),
              "DeviceSelect");
        uint32_t candidates = 0;
        check(cudaMemcpyAsync(&candidates, candidate_count_.data(), sizeof candidates, cudaMemcpyDeviceToHost, stream_),
              "count");
        check(cudaStreamSynchronize(stream_), "query");
        if (candidates == 0) return out;
        make_keys<<<blocks_for(candidates), kThreads, 0, stream_>>>(candidates_.data(), candidate_count_.data(),
                                                                    scores_.data(), keys_.data());
        cuda::check_launch("make_keys");
        bytes = temp_.capacity();
        check(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, keys_.data(), keys_sorted_.data(),
                                              candidates_.data(), docs_sorted_.data(), static_cast<int>(candidates),
                                              0, 64, stream_),
              "DeviceRadixSort");
        const size_t take = std::min<size_t>(k, candidates);
        std::vector<uint32_t> docs(take);
        std::vector<unsigned long long> keys(take);
        check(cudaMemcpyAsync(docs.data(), docs_sorted_.data(), take * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                              stream_),
              "top docs");
        check(cudaMemcpyAsync(keys.data(), keys_sorted_.data(), take * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, stream_),
              "top keys");
        check(cudaStreamSynchronize(stream_), "top k");
        out.reserve(take);
        for (size_t i = 0; i < take; ++i) {
            const unsigned long long bits = ~keys[i];
            double score = 0;
            std::memcpy(&score, &bits, sizeof score);
            out.emplace_back(docs[i], score);
        }
        return out;
    }

    GpuQueryStats stats() const override {
        GpuQueryStats out = stats_;
        out.cache_bytes = cache_used_;
        return out;
    }

private:
    struct CachedList {
        explicit CachedList(MemoryCounter& memory) : docids(memory), tfs(memory) {}
        DeviceArray<uint32_t> docids;
        DeviceArray<uint32_t> tfs;
        size_t count = 0;
        size_t bytes = 0;
        std::list<uint64_t>::iterator recent;
    };

    // The term's list in device memory; least recently used lists go first
    // when the cache would pass its budget (a list bigger than the budget is
    // still loaded, alone).
    CachedList& fetch(const GpuQueryTerm& term) {
        auto it = cache_.find(term.term);
        if (it != cache_.end()) {
            ++stats_.cache_hits;
            recency_.splice(recency_.begin(), recency_, it->second->recent);
            return *it->second;
        }
        ++stats_.cache_misses;
        std::vector<uint32_t> docids, tfs;
        term.load(docids, tfs);
        if (docids.size() != tfs.size()) throw std::runtime_error("a list's docids and tfs differ in length");
        const size_t bytes = docids.size() * 2 * sizeof(uint32_t);
        while (!recency_.empty() && cache_used_ + bytes > cache_budget_) {
            const uint64_t victim = recency_.back();
            recency_.pop_back();
            auto found = cache_.find(victim);
            // Queued kernels may still read it: free once the stream gets there.
            found->second->docids.release_async(stream_);
            found->second->tfs.release_async(stream_);
            cache_used_ -= found->second->bytes;
            cache_.erase(found);
        }
        auto list = std::make_unique<CachedList>(memory_);
        list->count = docids.size();
        list->bytes = bytes;
        if (!docids.empty()) {
            list->docids.reserve(docids.size(), 0, stream_);
            list->tfs.reserve(tfs.size(), 0, stream_);
            // Pageable copies are staged by the driver before the call returns.
            check(cudaMemcpyAsync(list->docids.data(), docids.data(), docids.size() * sizeof(uint32_t),
                                  cudaMemcpyHostToDevice, stream_),
                  "list docids");
            check(cudaMemcpyAsync(list->tfs.data(), tfs.data(), tfs.size() * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                  stream_),
                  "list tfs");
            check(cudaStreamSynchronize(stream_), "list upload");
        }
        recency_.push_front(term.term);
        list->recent = recency_.begin();
        cache_used_ += bytes;
        CachedList& ref = *list;
        cache_.emplace(term.term, std::move(list));
        return ref;
    }

    int device_;
    double k1_plus_1_;
    size_t cache_budget_;
    size_t documents_;
    cudaStream_t stream_ = nullptr;
    MemoryCounter memory_;
    DeviceArray<double> norms_;
    DeviceArray<double> scores_;
    DeviceArray<uint32_t> hits_;
    DeviceArray<uint8_t> flags_;
    DeviceArray<uint32_t> sequence_;
    DeviceArray<uint32_t> candidates_;
    DeviceArray<uint32_t> candidate_count_;
    DeviceArray<unsigned long long> keys_;
    DeviceArray<unsigned long long> keys_sorted_;
    DeviceArray<uint32_t> docs_sorted_;
    DeviceArray<unsigned char> temp_;
    std::unordered_map<uint64_t, std::unique_ptr<CachedList>> cache_;
    std::list<uint64_t> recency_;  // most recent first
    size_t cache_used_ = 0;
    GpuQueryStats stats_;
};

}  // namespace

std::unique_ptr<GpuQueryProcessor> create_gpu_query_processor(int device, const std::vector<double>& norms, double k1,
                                                              size_t cache_bytes) {
    return std::make_unique<CudaQueryProcessor>(device, norms, k1, cache_bytes);
}

}  // namespace invidx
