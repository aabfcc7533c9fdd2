// gpu_analyze_batch (devices/gpu_analysis.hpp). Pass 1 (HTML rules, tokens,
// stop words, Porter) runs as the data-parallel steps of
// analysis/parallel_token_pass.hpp: one thread per byte, per markup
// candidate or per token, with CUB compacting candidates and token starts
// and scanning the indexed tokens; only a light walk over each document's
// markup candidates is per document. (The first version ran the whole
// per-document pass on one thread per document: a batch of ~70 documents
// kept one SM busy while the longest document was scanned byte by byte, and
// parsed about 7 MB/s.) Pass 2 groups the terms with one thread per
// occurrence (analysis/parallel_group_pass.hpp) after the host has read back
// the per-document counts to size the regions (analysis_batch::term_regions),
// and lays the batch's terms out as the parse node hands them on
// (write_batch_term): dense, with their bytes packed, so the host copies
// them back in bulk with no work per term (analysis_batch::pack_batch_result).
// The host reference packs the per-document passes' output into the same
// GpuAnalysisResult (devices/analysis_batch.cpp).
//
// Where a GPU indexer on the same device owns collections (the input's
// keep_on_device), their terms stay on the device in a buffer of the
// analyzer's ResidentPool and only the others come back: one selection
// writes those to the device buffer, another writes the rest straight into
// the pinned host buffer (mapped), so no count crosses back first.
//
// Next, for speed: no host round trip between the passes.
//
// CudaBatchAnalyzer keeps its stream, pinned staging and device arrays from
// batch to batch; the GPU parsers of the pipeline run two per GPU, each on
// its own host thread, so one's copies and packing overlap the other's
// kernels (nodes/parse/gpu_parsers.hpp).
#include "devices/gpu_analysis.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include "analysis/document_passes.hpp"
#include "analysis/parallel_group_pass.hpp"
#include "analysis/parallel_token_pass.hpp"
#include "analysis/stopword_table.hpp"
#include "analysis/stopwords.hpp"
#include "devices/analysis_batch.hpp"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/analysis/resident_pool.hpp"
#include "invidx/collections.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using namespace cuda;
using document_passes::BatchTerm;
using document_passes::TermOccurrence;


namespace steps = parallel_token_pass;
constexpr unsigned kStepThreads = 256;
constexpr unsigned kMaxStepBlocks = 132 * 16;  // grid-stride beyond: enough to fill an H100

// Grid-stride index of the calling thread and the grid's stride.
__device__ inline uint64_t thread_index() { return uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ inline uint64_t grid_threads() { return uint64_t{gridDim.x} * blockDim.x; }

struct IsMarkupCandidate {
    steps::BatchView batch;
    __device__ bool operator()(uint32_t i) const { return steps::is_markup_candidate(batch, i); }
};

struct StartsKeptRun {
    const uint8_t* flags;
    uint64_t bytes;
    __device__ bool operator()(uint32_t i) const { return steps::starts_kept_run(flags, bytes, i); }
};

// The searches of the construct rules made by a whole warp: 32 positions
// tested a step, the first that holds found with a ballot. Every lane of
// the warp must call it with the same arguments, and every lane gets the
// answer: the scalar search's (html_rules::PredicateSearch).
struct WarpFirst {
    unsigned lane;
    template <class Size, class Predicate>
    __device__ Size operator()(Size from, Size length, const Predicate& holds) const {
        for (Size base = from; base < length; base += 32) {
            const Size p = static_cast<Size>(base + lane);
            const unsigned hits = __ballot_sync(0xFFFFFFFFu, p < length && holds(length, p));
            if (hits != 0) return static_cast<Size>(base + __ffs(hits) - 1);
        }
        return length;
    }
};
using WarpSearch = html_rules::PredicateSearch<WarpFirst>;

// Step 1: every candidate's construct end, each thread searching at most
// kThreadSearchCap bytes alone.
__global__ void candidate_ends(steps::BatchView batch, const uint32_t* candidates, const uint32_t* count,
                               uint32_t* ends) {
    const uint32_t n = *count;
    for (uint64_t k = thread_index(); k < n; k += grid_threads())
        ends[k] = steps::capped_construct_end(batch, candidates[k], steps::kThreadSearchCap);
}

// Step 1, second part: a warp per candidate still open searches on, to
// kWarpSearchCap bytes.
__global__ void candidate_ends_further(steps::BatchView batch, const uint32_t* candidates, const uint32_t* count,
                                       uint32_t* ends) {
    const uint32_t n = *count;
    const WarpSearch search{WarpFirst{threadIdx.x % 32}};
    for (uint64_t k = thread_index() / 32; k < n; k += grid_threads() / 32) {
        if (ends[k] != steps::kUnresolved) continue;  // the whole warp alike
        const uint32_t end = steps::capped_construct_end(batch, candidates[k], steps::kWarpSearchCap, search);
        if (threadIdx.x % 32 == 0) ends[k] = end;
    }
}

// One document's walk for keep_constructs, by the calling warp.
__device__ void keep_document_constructs(const steps::BatchView& batch, uint32_t d, unsigned lane,
                                         const uint32_t* candidates, uint32_t n, uint32_t* ends) {
    const uint64_t offset = batch.offsets[d];
    const uint32_t length = batch.lengths[d];
    const unsigned char* const document = batch.text + offset;
    const uint32_t first = steps::lower_bound(candidates, n, offset);
    const uint32_t last = steps::lower_bound(candidates, n, offset + length);
    uint32_t covered_to = 0;
    // The next round's candidates are loaded while this round is decided:
    // a round of real HTML takes far less than a load from memory, so the
    // walk would otherwise wait on every one.
    uint32_t next_round_at = first + lane < last ? static_cast<uint32_t>(candidates[first + lane] - offset) : 0;
    uint32_t next_round_end = first + lane < last ? ends[first + lane] : 0;
    for (uint32_t base = first; base < last; base += 32) {
        const uint32_t k = base + lane;
        const bool mine = k < last;
        const uint32_t at = next_round_at;
        const uint32_t end = next_round_end;
        if (k + 32 < last) {  // rounds write only their own candidates' ends
            next_round_at = static_cast<uint32_t>(candidates[k + 32] - offset);
            next_round_end = ends[k + 32];
        }
        uint32_t kept = 0;
        const uint32_t in_round = last - base < 32 ? last - base : 32;
        // Most rounds of real HTML are simple: each construct ends before the
        // next candidate and none is unresolved, so, when the round's first
        // candidate is reached, every candidate is reached and keeps its end.
        const uint32_t next_at = __shfl_down_sync(0xFFFFFFFFu, at, 1);
        const bool simple = !mine || end == 0 || (end != steps::kUnresolved && (lane + 1 == in_round || end <= next_at));
        if (__all_sync(0xFFFFFFFFu, simple) && __shfl_sync(0xFFFFFFFFu, at, 0) >= covered_to) {
            uint32_t furthest = mine ? end : 0;  // the last kept end, as ends increase
            for (unsigned step = 16; step > 0; step /= 2)
                furthest = max(furthest, __shfl_xor_sync(0xFFFFFFFFu, furthest, step));
            if (furthest != 0) covered_to = furthest;
            continue;  // ends[] already holds them
        }
        for (uint32_t l = 0; l < in_round; ++l) {
            const uint32_t at_l = __shfl_sync(0xFFFFFFFFu, at, l);
            uint32_t end_l = __shfl_sync(0xFFFFFFFFu, end, l);
            if (at_l < covered_to) {
                end_l = 0;
            } else {
                if (end_l == steps::kUnresolved)
                    end_l = html_rules::construct_end<uint32_t>(document, length, at_l, WarpSearch{WarpFirst{lane}});
                if (end_l != 0) covered_to = end_l;
            }
            if (lane == l) kept = end_l;
        }
        if (mine) ends[k] = kept;
    }
}

// Step 2: a warp per document walks its candidates, as
// keep_reached_constructs does: it loads 32 at a time (one coalesced read)
// and makes the walk's decisions, which depend on each other, in registers,
// every lane the same ones, each lane keeping its own candidate's.
__global__ void keep_constructs(steps::BatchView batch, const uint32_t* candidates, const uint32_t* count,
                                uint32_t* ends) {
    const unsigned lane = threadIdx.x % 32;
    for (uint64_t d = thread_index() / 32; d < batch.documents; d += grid_threads() / 32) {
        if (batch.html[d] != 0) keep_document_constructs(batch, static_cast<uint32_t>(d), lane, candidates, *count, ends);
    }
}

// Step 3: a warp per kept construct paints its bytes.
__global__ void paint_constructs(steps::BatchView batch, const uint32_t* candidates, const uint32_t* count,
                                 const uint32_t* ends, uint8_t* covered) {
    const uint32_t n = *count;
    const unsigned lane = threadIdx.x % 32;
    for (uint64_t k = thread_index() / 32; k < n; k += grid_threads() / 32) {
        if (ends[k] == 0) continue;
        const uint64_t end = batch.offsets[steps::document_of(batch, candidates[k])] + ends[k];
        for (uint64_t i = candidates[k] + lane; i < end; i += 32) covered[i] = 1;
    }
}

// Step 4: every byte's token flag.
__global__ void token_flags(steps::BatchView batch, uint64_t bytes, const uint8_t* covered, uint8_t* flags) {
    for (uint64_t i = thread_index(); i < bytes; i += grid_threads())
        flags[i] = steps::token_byte_flag(batch, covered, i);
}

// Step 6: each token's term, and whether it is indexed.
__global__ void make_terms(steps::BatchView batch, const uint8_t* flags, uint64_t bytes, StopwordTable stopwords,
                           bool stem, const uint32_t* starts, uint32_t tokens, unsigned char* term_bytes,
                           uint32_t* term_lengths, uint32_t* indexed_flags) {
    for (uint64_t t = thread_index(); t < tokens; t += grid_threads()) {
        const uint32_t length =
            steps::make_term_from_flags(batch, flags, bytes, stopwords, stem, starts[t], term_bytes);
        term_lengths[t] = length;
        indexed_flags[t] = length != steps::kStopWord ? 1 : 0;
    }
}

// Each document's first token (documents + 1 entries, `tokens` last).
__global__ void first_tokens(steps::BatchView batch, const uint32_t* starts, uint32_t tokens, uint32_t* first_token) {
    for (uint64_t d = thread_index(); d <= batch.documents; d += grid_threads())
        first_token[d] = d < batch.documents ? steps::lower_bound(starts, tokens, batch.offsets[d]) : tokens;
}

__global__ void write_occurrences(steps::BatchView batch, const uint32_t* starts, const uint32_t* first_token,
                                  const uint32_t* term_lengths, const uint32_t* indexed_before,
                                  const uint64_t* occurrence_begin, uint32_t tokens, TermOccurrence* occurrences) {
    for (uint64_t t = thread_index(); t < tokens; t += grid_threads()) {
        steps::write_occurrence(batch, starts, first_token, term_lengths, indexed_before, occurrence_begin,
                                static_cast<uint32_t>(t), occurrences);
    }
}

__global__ void document_token_counts(uint32_t documents, const uint32_t* first_token, const uint32_t* indexed_before,
                                      uint32_t* indexed, uint32_t* tokens) {
    for (uint64_t d = thread_index(); d < documents; d += grid_threads()) {
        const document_passes::TokenCounts counts =
            steps::document_counts(first_token, indexed_before, static_cast<uint32_t>(d));
        indexed[d] = counts.indexed;
        tokens[d] = counts.tokens;
    }
}

// A term stays on the device iff its collection is flagged (keep), or goes
// back iff it is not (!keep). A collection out of range goes back, where
// the regroup node names it.
struct KeptOnDevice {
    const uint8_t* flags;
    bool keep;
    __device__ bool operator()(const BatchTerm& term) const {
        const bool flagged = term.collection < kCollections && flags[term.collection] != 0;
        return flagged == keep;
    }
};

// Buffers lent per analyzer (per slot) to batches whose terms stay on the
// device. A buffer takes device memory only once lent (free ones are lent
// last-in first-out), and no more are lent at once than batches are in
// flight (memory.tokens) plus the few a GPU indexer holds until its device
// has read them: this only needs to exceed that. 12 a slot ran out for
// 10-20% of the batches with 64 tokens (docs/PERFORMANCE.md).
constexpr size_t kResidentBuffers = 48;

unsigned step_blocks(uint64_t items) {
    const uint64_t blocks = (items + kStepThreads - 1) / kStepThreads;
    return static_cast<unsigned>(blocks == 0 ? 1 : (blocks < kMaxStepBlocks ? blocks : kMaxStepBlocks));
}

namespace group = parallel_group_pass;

// The atomics of parallel_group_pass's insertion (device code only calls them).
struct DeviceAtomics {
    __host__ __device__ static uint32_t compare_and_swap(uint32_t* p, uint32_t expected, uint32_t desired) {
#if defined(__CUDA_ARCH__)
        return atomicCAS(p, expected, desired);
#else
        const uint32_t held = *p;
        if (held == expected) *p = desired;
        return held;
#endif
    }
    __host__ __device__ static void min(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
        atomicMin(p, v);
#else
        if (v < *p) *p = v;
#endif
    }
    __host__ __device__ static void add(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
        atomicAdd(p, v);
#else
        *p += v;
#endif
    }
};

// Pass 2, step 1: every occurrence into its document's table.
__global__ void insert_occurrences(group::GroupView view, uint64_t total, uint32_t* table, uint32_t* first,
                                   uint32_t* tf, uint64_t* slot_of) {
    for (uint64_t g = thread_index(); g < total; g += grid_threads())
        slot_of[g] = group::insert_occurrence<DeviceAtomics>(view, g, table, first, tf);
}

__global__ void mark_first_occurrences(group::GroupView view, uint64_t total, const uint64_t* slot_of,
                                       const uint32_t* first, const uint32_t* tf, uint32_t* is_first,
                                       uint32_t* first_tf) {
    for (uint64_t g = thread_index(); g < total; g += grid_threads())
        group::first_occurrence_flags(view, g, slot_of, first, tf, is_first, first_tf);
}

// Step 2: the terms in order of first occurrence, in the batch's own layout
// (what the parse node hands on), and each document's count.
__global__ void first_lengths(group::GroupView view, uint64_t total, const uint32_t* is_first,
                              uint32_t* lengths_of_firsts) {
    for (uint64_t g = thread_index(); g < total; g += grid_threads())
        lengths_of_firsts[g] = group::first_length(view, g, is_first);
}

__global__ void write_batch_terms(group::GroupView view, uint64_t total, const uint64_t* slot_of, const uint32_t* tf,
                                  const uint32_t* is_first, const uint32_t* unique_before, const uint32_t* tf_before,
                                  const uint32_t* bytes_before, bool positional, BatchTerm* terms,
                                  unsigned char* arena) {
    for (uint64_t g = thread_index(); g < total; g += grid_threads())
        group::write_batch_term(view, g, slot_of, tf, is_first, unique_before, tf_before, bytes_before, positional,
                                terms, arena);
}

__global__ void count_unique_terms(group::GroupView view, const uint32_t* unique_before, uint32_t* unique) {
    for (uint64_t d = thread_index(); d < view.documents; d += grid_threads())
        unique[d] = group::unique_terms(view, unique_before, static_cast<uint32_t>(d));
}

// Step 3's keys and values: each occurrence's term number and position.
__global__ void position_keys(group::GroupView view, uint64_t total, const uint64_t* slot_of, const uint32_t* first,
                              const uint32_t* unique_before, uint32_t* keys, uint32_t* positions) {
    for (uint64_t g = thread_index(); g < total; g += grid_threads()) {
        const uint32_t d = group::document_of_occurrence(view, g);
        keys[g] = group::term_number(view, g, slot_of, first, unique_before);
        positions[g] = group::occurrence(view, d, g - view.begin[d]).position;
    }
}

// Copies `count` host elements to `array` through `staging` (pinned, so the
// copy is asynchronous and leaves the caller's memory free at once).
template <class T>
void stage_upload(PinnedArray<T>& staging, DeviceArray<T>& array, const T* host, size_t count, cudaStream_t stream,
                  const char* what) {
    array.reserve(count, 0, stream);
    if (count == 0) return;
    staging.reserve(count);
    std::memcpy(staging.data(), host, count * sizeof(T));
    check(cudaMemcpyAsync(array.data(), staging.data(), count * sizeof(T), cudaMemcpyHostToDevice, stream), what);
}

// Copies `count` elements of `array` into `host` (pinned), asynchronously.
template <class T>
void download(PinnedArray<T>& host, const DeviceArray<T>& array, size_t count, cudaStream_t stream, const char* what) {
    if (count == 0) return;
    host.reserve(count);
    check(cudaMemcpyAsync(host.data(), array.data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream), what);
}


// Makes `device` current (throwing, naming it, when it does not exist)
// before the members that need it are made.
int selected(int device) {
    use_device(device);
    return device;
}

class CudaBatchAnalyzer final : public GpuBatchAnalyzer {
public:
    explicit CudaBatchAnalyzer(int device) : device_(selected(device)) {}

    ~CudaBatchAnalyzer() override {
        // The members free on this thread's current device: make it theirs.
        cudaSetDevice(device_);
        cudaStreamSynchronize(stream_.get());  // destructor path: errors have nowhere to go
    }

    GpuAnalyzerMemory memory() const override {
        return {device_memory_.bytes + resident_pool_->device_bytes(),
                device_memory_.peak + resident_pool_->peak_device_bytes(), pinned_memory_.bytes};
    }

    GpuAnalyzerTimes times() const override { return times_; }

    GpuAnalysisResult analyze(const GpuAnalysisInput& input) override {
        const auto start = std::chrono::steady_clock::now();
        GpuAnalysisResult result = analyze_batch(input);
        times_.analyze_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    }

private:
    GpuAnalysisResult analyze_batch(const GpuAnalysisInput& input) {
        using namespace analysis_batch;
        check_input(input);
        const size_t documents = input.documents();
        const std::vector<uint64_t> occurrence_begin = occurrence_regions(input);
        if (documents == 0) return pack_result(input, term_regions({}), PassOutput{});
        ensure(documents <= UINT32_MAX, "gpu_analyze_batch: more than 2^32 - 1 documents in one batch");
        check(cudaSetDevice(device_), "cudaSetDevice");
        const cudaStream_t s = stream_.get();
        const StopwordTable stopwords = stopwords_on_device(input.stopwords, s);
        const size_t text_bytes = input.text_size();

        // Pass 1, in the steps of parallel_token_pass.hpp.
        ensure(text_bytes < UINT32_MAX, "gpu_analyze_batch: a batch of 4 GiB or more");
        marks_[0].record(s);
        const auto bytes = static_cast<uint32_t>(text_bytes);
        const bool stem = input.stemmer == GpuStemmer::porter;
        // The text, gathered from its pieces when it comes in pieces,
        // straight into the pinned buffer: one host copy either way.
        text_.reserve(text_bytes, 0, s);
        staged_text_.reserve(text_bytes);
        input.copy_text_to(reinterpret_cast<char*>(staged_text_.data()));
        if (text_bytes != 0) {
            check(cudaMemcpyAsync(text_.data(), staged_text_.data(), text_bytes, cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (text)");
        }
        stage_upload(staged_offsets_, offsets_, input.offsets.data(), documents, s, "cudaMemcpyAsync (offsets)");
        stage_upload(staged_lengths_, lengths_, input.lengths.data(), documents, s, "cudaMemcpyAsync (lengths)");
        stage_upload(staged_html_, html_, input.html.data(), documents, s, "cudaMemcpyAsync (html flags)");
        stage_upload(staged_occurrence_begin_, occurrence_begin_, occurrence_begin.data(), documents + 1, s,
                     "cudaMemcpyAsync (regions)");
        // The chunk index of document_of, made here (one pass over the
        // documents) straight into pinned staging.
        const uint64_t chunk_entries = steps::document_chunk_count(text_bytes) + 1;
        staged_chunk_first_.reserve(chunk_entries);
        steps::document_chunks(input.offsets.data(), input.lengths.data(), static_cast<uint32_t>(documents),
                               text_bytes, staged_chunk_first_.data());
        chunk_first_.reserve(chunk_entries, 0, s);
        check(cudaMemcpyAsync(chunk_first_.data(), staged_chunk_first_.data(), chunk_entries * sizeof(uint32_t),
                              cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync (document chunks)");
        marks_[1].record(s);
        const steps::BatchView batch{text_.data(),  offsets_.data(), lengths_.data(), html_.data(),
                                     static_cast<uint32_t>(documents), chunk_first_.data()};
        const thrust::counting_iterator<uint32_t> positions(0);
        candidates_.reserve(bytes, 0, s);
        ends_.reserve(bytes, 0, s);
        covered_.reserve(bytes, 0, s);
        token_starts_.reserve(bytes, 0, s);
        selected_.reserve(4, 0, s);  // candidates, tokens, terms kept on the device, terms back
        term_bytes_.reserve(text_bytes, 0, s);
        occurrences_.reserve(occurrence_begin.back(), 0, s);
        indexed_.reserve(documents, 0, s);
        tokens_.reserve(documents, 0, s);
        first_token_.reserve(documents + 1, 0, s);

        // Steps 1-3: markup candidates, their ends, the kept constructs painted.
        const IsMarkupCandidate is_candidate{batch};
        size_t temp_bytes = 0;
        check(cub::DeviceSelect::If(nullptr, temp_bytes, positions, candidates_.data(), selected_.data(), bytes,
                                    is_candidate, s),
              "cub::DeviceSelect::If (candidates, size)");
        cub_temp_.reserve(temp_bytes, 0, s);
        check(cub::DeviceSelect::If(cub_temp_.data(), temp_bytes, positions, candidates_.data(), selected_.data(),
                                    bytes, is_candidate, s),
              "cub::DeviceSelect::If (candidates)");
        candidate_ends<<<step_blocks(bytes), kStepThreads, 0, s>>>(batch, candidates_.data(), selected_.data(),
                                                                     ends_.data());
        check_launch("candidate_ends");
        candidate_ends_further<<<step_blocks(uint64_t{bytes} * 32), kStepThreads, 0, s>>>(
            batch, candidates_.data(), selected_.data(), ends_.data());
        check_launch("candidate_ends_further");
        marks_[10].record(s);
        keep_constructs<<<step_blocks(uint64_t{documents} * 32), kStepThreads, 0, s>>>(
            batch, candidates_.data(), selected_.data(), ends_.data());
        check_launch("keep_constructs");
        marks_[11].record(s);
        check(cudaMemsetAsync(covered_.data(), 0, bytes, s), "cudaMemsetAsync (covered)");
        paint_constructs<<<step_blocks(uint64_t{bytes} * 32), kStepThreads, 0, s>>>(
            batch, candidates_.data(), selected_.data(), ends_.data(), covered_.data());
        check_launch("paint_constructs");
        marks_[2].record(s);

        // Steps 4-5: the kept tokens' starts, counted on the host to size the rest.
        token_flags_.reserve(bytes, 0, s);
        token_flags<<<step_blocks(bytes), kStepThreads, 0, s>>>(batch, bytes, covered_.data(), token_flags_.data());
        check_launch("token_flags");
        const StartsKeptRun starts_token{token_flags_.data(), bytes};
        check(cub::DeviceSelect::If(nullptr, temp_bytes, positions, token_starts_.data(), selected_.data() + 1, bytes,
                                    starts_token, s),
              "cub::DeviceSelect::If (tokens, size)");
        cub_temp_.reserve(temp_bytes, 0, s);
        check(cub::DeviceSelect::If(cub_temp_.data(), temp_bytes, positions, token_starts_.data(),
                                    selected_.data() + 1, bytes, starts_token, s),
              "cub::DeviceSelect::If (tokens)");
        marks_[3].record(s);
        host_selected_.reserve(2);
        check(cudaMemcpyAsync(host_selected_.data(), selected_.data(), 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (token count)");
        cuda::wait_yielding(s, stream_done_, "token starts");
        const uint32_t token_count = host_selected_.data()[1];

        // Step 6: terms, the scan of indexed tokens, occurrences in place.
        marks_[4].record(s);
        term_lengths_.reserve(token_count + 1, 0, s);
        indexed_flags_.reserve(token_count + 1, 0, s);
        indexed_before_.reserve(token_count + 1, 0, s);
        check(cudaMemsetAsync(indexed_flags_.data() + token_count, 0, sizeof(uint32_t), s),
              "cudaMemsetAsync (scan end)");
        if (token_count != 0) {
            make_terms<<<step_blocks(token_count), kStepThreads, 0, s>>>(
                batch, token_flags_.data(), bytes, stopwords, stem, token_starts_.data(), token_count, term_bytes_.data(),
                term_lengths_.data(), indexed_flags_.data());
            check_launch("make_terms");
        }
        marks_[5].record(s);
        check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, indexed_flags_.data(), indexed_before_.data(),
                                            token_count + 1, s),
              "cub::DeviceScan::ExclusiveSum (size)");
        cub_temp_.reserve(temp_bytes, 0, s);
        check(cub::DeviceScan::ExclusiveSum(cub_temp_.data(), temp_bytes, indexed_flags_.data(),
                                            indexed_before_.data(), token_count + 1, s),
              "cub::DeviceScan::ExclusiveSum (indexed tokens)");
        first_tokens<<<step_blocks(documents + 1), kStepThreads, 0, s>>>(batch, token_starts_.data(), token_count,
                                                                          first_token_.data());
        check_launch("first_tokens");
        if (token_count != 0) {
            write_occurrences<<<step_blocks(token_count), kStepThreads, 0, s>>>(
                batch, token_starts_.data(), first_token_.data(), term_lengths_.data(), indexed_before_.data(),
                occurrence_begin_.data(), token_count, occurrences_.data());
            check_launch("write_occurrences");
        }
        document_token_counts<<<step_blocks(documents), kStepThreads, 0, s>>>(
            static_cast<uint32_t>(documents), first_token_.data(), indexed_before_.data(), indexed_.data(),
            tokens_.data());
        check_launch("document_token_counts");
        marks_[6].record(s);
        download(host_indexed_, indexed_, documents, s, "cudaMemcpyAsync (indexed tokens)");
        download(host_tokens_, tokens_, documents, s, "cudaMemcpyAsync (tokens)");
        cuda::wait_yielding(s, stream_done_, "pass 1");

        // Pass 2, in regions sized by pass 1's counts.
        const std::vector<uint32_t> indexed(host_indexed_.data(), host_indexed_.data() + documents);
        const TermRegions regions = term_regions(indexed);
        const uint64_t occurrence_count = regions.begin.back();
        marks_[7].record(s);
        stage_upload(staged_term_begin_, term_begin_, regions.begin.data(), documents + 1, s,
                     "cudaMemcpyAsync (term regions)");
        stage_upload(staged_table_begin_, table_begin_, regions.table_begin.data(), documents + 1, s,
                     "cudaMemcpyAsync (table regions)");
        const uint64_t table_slots = regions.table_begin.back();
        table_.reserve(table_slots, 0, s);
        first_.reserve(table_slots, 0, s);
        tf_.reserve(table_slots, 0, s);
        if (table_slots != 0) {
            check(cudaMemsetAsync(table_.data(), 0, table_slots * sizeof(uint32_t), s), "cudaMemsetAsync (term tables)");
            check(cudaMemsetAsync(first_.data(), 0xFF, table_slots * sizeof(uint32_t), s), "cudaMemsetAsync (firsts)");
            check(cudaMemsetAsync(tf_.data(), 0, table_slots * sizeof(uint32_t), s), "cudaMemsetAsync (tf)");
        }
        ensure(occurrence_count < UINT32_MAX, "gpu_analyze_batch: 2^32 - 1 occurrences or more in one batch");
        slot_of_.reserve(occurrence_count, 0, s);
        is_first_.reserve(occurrence_count + 1, 0, s);
        first_tf_.reserve(occurrence_count + 1, 0, s);
        unique_before_.reserve(occurrence_count + 1, 0, s);
        tf_before_.reserve(occurrence_count + 1, 0, s);
        lengths_of_firsts_.reserve(occurrence_count + 1, 0, s);
        bytes_before_.reserve(occurrence_count + 1, 0, s);
        if (input.positional) {
            positions_.reserve(occurrence_count, 0, s);
            sort_keys_.reserve(occurrence_count * 2, 0, s);
            unsorted_positions_.reserve(occurrence_count, 0, s);
        }
        unique_.reserve(documents, 0, s);
        check(cudaMemsetAsync(is_first_.data() + occurrence_count, 0, sizeof(uint32_t), s), "cudaMemsetAsync (scan end)");
        check(cudaMemsetAsync(first_tf_.data() + occurrence_count, 0, sizeof(uint32_t), s), "cudaMemsetAsync (scan end)");
        check(cudaMemsetAsync(lengths_of_firsts_.data() + occurrence_count, 0, sizeof(uint32_t), s),
              "cudaMemsetAsync (scan end)");
        const group::GroupView view{term_bytes_.data(), offsets_.data(),    occurrence_begin_.data(), occurrences_.data(),
                                    term_begin_.data(), table_begin_.data(), static_cast<uint32_t>(documents)};
        const unsigned occurrence_blocks = step_blocks(occurrence_count);
        if (occurrence_count != 0) {
            insert_occurrences<<<occurrence_blocks, kStepThreads, 0, s>>>(view, occurrence_count, table_.data(),
                                                                          first_.data(), tf_.data(), slot_of_.data());
            check_launch("insert_occurrences");
            mark_first_occurrences<<<occurrence_blocks, kStepThreads, 0, s>>>(
                view, occurrence_count, slot_of_.data(), first_.data(), tf_.data(), is_first_.data(), first_tf_.data());
            check_launch("mark_first_occurrences");
        }
        const auto scan_items = static_cast<uint32_t>(occurrence_count + 1);
        size_t scan_bytes = 0;
        check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, is_first_.data(), unique_before_.data(), scan_items, s),
              "cub::DeviceScan::ExclusiveSum (size)");
        cub_temp_.reserve(scan_bytes, 0, s);
        check(cub::DeviceScan::ExclusiveSum(cub_temp_.data(), scan_bytes, is_first_.data(), unique_before_.data(),
                                            scan_items, s),
              "cub::DeviceScan::ExclusiveSum (first occurrences)");
        check(cub::DeviceScan::ExclusiveSum(cub_temp_.data(), scan_bytes, first_tf_.data(), tf_before_.data(),
                                            scan_items, s),
              "cub::DeviceScan::ExclusiveSum (tf of first occurrences)");
        if (occurrence_count != 0) {
            first_lengths<<<occurrence_blocks, kStepThreads, 0, s>>>(view, occurrence_count, is_first_.data(),
                                                                     lengths_of_firsts_.data());
            check_launch("first_lengths");
        }
        check(cub::DeviceScan::ExclusiveSum(cub_temp_.data(), scan_bytes, lengths_of_firsts_.data(),
                                            bytes_before_.data(), scan_items, s),
              "cub::DeviceScan::ExclusiveSum (term bytes of first occurrences)");
        // The batch's terms and their bytes, dense: at most one per
        // occurrence and the text's bytes.
        batch_terms_.reserve(occurrence_count, 0, s);
        arena_.reserve(text_bytes, 0, s);
        if (occurrence_count != 0) {
            write_batch_terms<<<occurrence_blocks, kStepThreads, 0, s>>>(
                view, occurrence_count, slot_of_.data(), tf_.data(), is_first_.data(), unique_before_.data(),
                tf_before_.data(), bytes_before_.data(), input.positional, batch_terms_.data(), arena_.data());
            check_launch("write_batch_terms");
        }
        count_unique_terms<<<step_blocks(documents), kStepThreads, 0, s>>>(view, unique_before_.data(), unique_.data());
        check_launch("count_unique_terms");
        if (input.positional && occurrence_count != 0) {
            uint32_t* const keys = sort_keys_.data();
            uint32_t* const sorted_keys = sort_keys_.data() + occurrence_count;
            position_keys<<<occurrence_blocks, kStepThreads, 0, s>>>(view, occurrence_count, slot_of_.data(),
                                                                     first_.data(), unique_before_.data(), keys,
                                                                     unsorted_positions_.data());
            check_launch("position_keys");
            // Term numbers are below the occurrence count: sort only their bits.
            int end_bit = 1;
            while (end_bit < 32 && (uint64_t{1} << end_bit) <= occurrence_count) ++end_bit;
            size_t sort_bytes = 0;
            check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, sorted_keys, unsorted_positions_.data(),
                                                  positions_.data(), scan_items - 1, 0, end_bit, s),
                  "cub::DeviceRadixSort::SortPairs (size)");
            cub_temp_.reserve(sort_bytes, 0, s);
            check(cub::DeviceRadixSort::SortPairs(cub_temp_.data(), sort_bytes, keys, sorted_keys,
                                                  unsorted_positions_.data(), positions_.data(), scan_items - 1, 0,
                                                  end_bit, s),
                  "cub::DeviceRadixSort::SortPairs (positions by term)");
        }
        marks_[8].record(s);
        // Only the dense terms and bytes come back: their counts first.
        host_totals_.reserve(4);  // terms, term bytes; keep_terms' two counts
        check(cudaMemcpyAsync(host_totals_.data(), unique_before_.data() + occurrence_count, sizeof(uint32_t),
                              cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (term count)");
        check(cudaMemcpyAsync(host_totals_.data() + 1, bytes_before_.data() + occurrence_count, sizeof(uint32_t),
                              cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (term byte count)");
        cuda::wait_yielding(s, stream_done_, "pass 2 counts");
        const uint32_t term_count = host_totals_.data()[0];
        const uint32_t term_byte_count = host_totals_.data()[1];
        std::shared_ptr<ResidentTerms> resident = keep_terms(input, term_count, term_byte_count, s);
        if (!resident) download(host_batch_terms_, batch_terms_, term_count, s, "cudaMemcpyAsync (terms)");
        download(host_arena_, arena_, term_byte_count, s, "cudaMemcpyAsync (term bytes)");
        if (input.positional) download(host_positions_, positions_, occurrence_count, s, "cudaMemcpyAsync (positions)");
        download(host_unique_, unique_, documents, s, "cudaMemcpyAsync (unique terms)");
        marks_[9].record(s);
        cuda::wait_yielding(s, stream_done_, "pass 2");
        ++times_.batches;
        times_.upload_seconds += marks_[1].seconds_since(marks_[0]);
        times_.pass1_markup_seconds += marks_[2].seconds_since(marks_[1]);
        times_.pass1_candidates_seconds += marks_[10].seconds_since(marks_[1]);
        times_.pass1_walk_seconds += marks_[11].seconds_since(marks_[10]);
        times_.pass1_tokens_seconds += marks_[3].seconds_since(marks_[2]);
        times_.pass1_terms_seconds += marks_[5].seconds_since(marks_[4]);
        times_.pass1_seconds += marks_[3].seconds_since(marks_[1]) + marks_[6].seconds_since(marks_[4]);
        times_.pass2_seconds += marks_[8].seconds_since(marks_[7]);
        times_.download_seconds += marks_[9].seconds_since(marks_[8]);

        // Packed straight from the pinned buffers, which the next batch reuses.
        uint32_t brought_back = term_count;
        if (resident) {
            resident->count = host_totals_.data()[2];
            brought_back = host_totals_.data()[3];
            ensure(resident->count + brought_back == term_count,
                   "gpu_analyze_batch: the terms kept on the device and brought back do not add up");
            ++times_.resident_batches;
            times_.resident_terms += resident->count;
        }
        times_.downloaded_terms += brought_back;
        BatchOutput output;
        output.indexed = host_indexed_.data();
        output.tokens = host_tokens_.data();
        output.unique = host_unique_.data();
        output.terms = host_batch_terms_.data();
        output.term_count = brought_back;
        output.some_terms_on_device = resident != nullptr;
        output.term_bytes = host_arena_.data();
        output.term_byte_count = term_byte_count;
        output.positions = host_positions_.data();
        output.position_count = occurrence_count;
        const auto pack_start = std::chrono::steady_clock::now();
        GpuAnalysisResult result = pack_batch_result(input, output);
        times_.pack_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - pack_start).count();
        result.resident = std::move(resident);
        return result;
    }

    // When the input asks and a buffer is free: the terms of the flagged
    // collections into the buffer (with the whole arena), the others
    // straight into the pinned host buffer, their counts after them into
    // host_totals_[2], [3]. Null otherwise: the caller downloads them all.
    std::shared_ptr<ResidentTerms> keep_terms(const GpuAnalysisInput& input, uint32_t term_count,
                                              uint32_t term_byte_count, cudaStream_t s) {
        if (input.keep_on_device == nullptr || term_count == 0) return nullptr;
        ResidentPool::Buffer* buffer = resident_pool_->take();
        if (buffer == nullptr) {
            ++times_.resident_unavailable;
            return nullptr;
        }
        std::shared_ptr<ResidentTerms> resident = resident_pool_->lend(buffer);  // gives it back on any error
        if (kept_flags_.size() != kCollections ||
            !std::equal(input.keep_on_device, input.keep_on_device + kCollections, kept_flags_.begin())) {
            kept_flags_.assign(input.keep_on_device, input.keep_on_device + kCollections);
            stage_upload(staged_keep_flags_, keep_flags_, kept_flags_.data(), kCollections, s,
                         "cudaMemcpyAsync (collections kept on the device)");
        }
        buffer->terms.reserve(term_count, 0, s);
        buffer->arena.reserve(std::max<uint32_t>(term_byte_count, 1), 0, s);
        host_batch_terms_.reserve(term_count);
        BatchTerm* host_terms = nullptr;  // the pinned buffer as the device addresses it
        check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_terms), host_batch_terms_.data(), 0),
              "cudaHostGetDevicePointer (terms)");
        size_t temp_bytes = 0;
        const KeptOnDevice kept{keep_flags_.data(), true};
        const KeptOnDevice back{keep_flags_.data(), false};
        check(cub::DeviceSelect::If(nullptr, temp_bytes, batch_terms_.data(), buffer->terms.data(), selected_.data() + 2,
                                    term_count, kept, s),
              "cub::DeviceSelect::If (terms kept, size)");
        cub_temp_.reserve(temp_bytes, 0, s);
        check(cub::DeviceSelect::If(cub_temp_.data(), temp_bytes, batch_terms_.data(), buffer->terms.data(),
                                    selected_.data() + 2, term_count, kept, s),
              "cub::DeviceSelect::If (terms kept on the device)");
        check(cub::DeviceSelect::If(cub_temp_.data(), temp_bytes, batch_terms_.data(), host_terms, selected_.data() + 3,
                                    term_count, back, s),
              "cub::DeviceSelect::If (terms brought back)");
        if (term_byte_count != 0) {
            check(cudaMemcpyAsync(buffer->arena.data(), arena_.data(), term_byte_count, cudaMemcpyDeviceToDevice, s),
                  "cudaMemcpyAsync (term bytes kept on the device)");
        }
        check(cudaMemcpyAsync(host_totals_.data() + 2, selected_.data() + 2, 2 * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (terms kept and brought back)");
        resident->occurrences = buffer->terms.data();
        resident->arena = reinterpret_cast<const char*>(buffer->arena.data());
        resident->arena_bytes = term_byte_count;
        return resident;
    }

    // The host set's arrays with the same lookup, copied when the list
    // differs from the last batch's (a build has one list: copied once).
    StopwordTable stopwords_on_device(const std::vector<std::string>& words, cudaStream_t s) {
        if (!stopword_set_ || words != stopword_words_) {
            stopword_set_ = std::make_unique<StopwordSet>(words);
            stopword_words_ = words;
            stage_upload(staged_stopword_bytes_, stopword_bytes_,
                         reinterpret_cast<const unsigned char*>(stopword_set_->bytes().data()),
                         stopword_set_->bytes().size(), s, "cudaMemcpyAsync (stop words)");
            stage_upload(staged_stopword_offsets_, stopword_offsets_, stopword_set_->word_offsets().data(),
                         stopword_set_->word_offsets().size(), s, "cudaMemcpyAsync (stop word offsets)");
            stage_upload(staged_stopword_slots_, stopword_slots_, stopword_set_->slots().data(),
                         stopword_set_->slots().size(), s, "cudaMemcpyAsync (stop word slots)");
        }
        StopwordTable table = stopword_set_->table();
        table.bytes = stopword_bytes_.data();
        table.word_offsets = stopword_offsets_.data();
        table.slots = stopword_slots_.data();
        return table;
    }

    // In destruction order reversed: the device is selected before the
    // stream is made, the counters outlive the arrays, and the stream
    // outlives every array's free.
    const int device_;
    MemoryCounter device_memory_;
    MemoryCounter pinned_memory_;
    const cuda::ScopedStream stream_;
    // Pass 1: from, after its copies in, after the markup steps, after the
    // token starts, before and after the terms, its end; pass 2: from, to,
    // after its copies out; within the markup steps: after the candidates'
    // ends, after the walk.
    cuda::ScopedEvent marks_[12];
    cuda::ScopedEvent stream_done_{cudaEventDisableTiming};  // polled by wait_yielding
    GpuAnalyzerTimes times_;

    // Lent buffers may outlive the analyzer (a GPU indexer still holds them).
    const std::shared_ptr<ResidentPool> resident_pool_ = std::make_shared<ResidentPool>(device_, kResidentBuffers);
    std::vector<uint8_t> kept_flags_;  // the keep_on_device flags on the device now
    PinnedArray<uint8_t> staged_keep_flags_{pinned_memory_};
    DeviceArray<uint8_t> keep_flags_{device_memory_};

    std::unique_ptr<StopwordSet> stopword_set_;
    std::vector<std::string> stopword_words_;

    // Pinned staging, host to device.
    PinnedArray<unsigned char> staged_text_{pinned_memory_};
    PinnedArray<uint64_t> staged_offsets_{pinned_memory_};
    PinnedArray<uint32_t> staged_lengths_{pinned_memory_};
    PinnedArray<uint8_t> staged_html_{pinned_memory_};
    PinnedArray<uint64_t> staged_occurrence_begin_{pinned_memory_};
    PinnedArray<uint32_t> staged_chunk_first_{pinned_memory_};
    PinnedArray<uint64_t> staged_term_begin_{pinned_memory_};
    PinnedArray<uint64_t> staged_table_begin_{pinned_memory_};
    PinnedArray<unsigned char> staged_stopword_bytes_{pinned_memory_};
    PinnedArray<uint32_t> staged_stopword_offsets_{pinned_memory_};
    PinnedArray<uint32_t> staged_stopword_slots_{pinned_memory_};
    // Pinned results, device to host.
    PinnedArray<uint32_t> host_indexed_{pinned_memory_};
    PinnedArray<uint32_t> host_tokens_{pinned_memory_};
    PinnedArray<uint32_t> host_totals_{pinned_memory_};  // the batch's terms and term bytes
    PinnedArray<BatchTerm> host_batch_terms_{pinned_memory_};
    PinnedArray<unsigned char> host_arena_{pinned_memory_};
    PinnedArray<uint32_t> host_positions_{pinned_memory_};
    PinnedArray<uint32_t> host_unique_{pinned_memory_};
    // Device arrays, grown to the largest batch.
    DeviceArray<unsigned char> stopword_bytes_{device_memory_};
    DeviceArray<uint32_t> stopword_offsets_{device_memory_};
    DeviceArray<uint32_t> stopword_slots_{device_memory_};
    DeviceArray<unsigned char> text_{device_memory_};
    DeviceArray<uint64_t> offsets_{device_memory_};
    DeviceArray<uint32_t> lengths_{device_memory_};
    DeviceArray<uint8_t> html_{device_memory_};
    DeviceArray<uint64_t> occurrence_begin_{device_memory_};
    DeviceArray<uint32_t> chunk_first_{device_memory_};  // steps::BatchView::chunk_first
    DeviceArray<unsigned char> term_bytes_{device_memory_};
    DeviceArray<TermOccurrence> occurrences_{device_memory_};
    DeviceArray<uint32_t> indexed_{device_memory_};
    DeviceArray<uint32_t> tokens_{device_memory_};
    DeviceArray<uint64_t> term_begin_{device_memory_};
    DeviceArray<uint64_t> table_begin_{device_memory_};
    DeviceArray<uint32_t> table_{device_memory_};
    DeviceArray<BatchTerm> batch_terms_{device_memory_};
    DeviceArray<unsigned char> arena_{device_memory_};  // the batch's term bytes
    DeviceArray<uint32_t> positions_{device_memory_};
    DeviceArray<uint32_t> unique_{device_memory_};
    // Pass 1's steps.
    DeviceArray<uint32_t> candidates_{device_memory_};
    DeviceArray<uint32_t> ends_{device_memory_};
    DeviceArray<uint8_t> covered_{device_memory_};
    DeviceArray<uint8_t> token_flags_{device_memory_};
    DeviceArray<uint32_t> token_starts_{device_memory_};
    DeviceArray<uint32_t> selected_{device_memory_};  // candidates, tokens
    DeviceArray<uint32_t> term_lengths_{device_memory_};
    DeviceArray<uint32_t> indexed_flags_{device_memory_};
    DeviceArray<uint32_t> indexed_before_{device_memory_};
    DeviceArray<uint32_t> first_token_{device_memory_};
    DeviceArray<unsigned char> cub_temp_{device_memory_};
    PinnedArray<uint32_t> host_selected_{pinned_memory_};
    // Pass 2's steps.
    DeviceArray<uint32_t> first_{device_memory_};
    DeviceArray<uint32_t> tf_{device_memory_};
    DeviceArray<uint64_t> slot_of_{device_memory_};
    DeviceArray<uint32_t> is_first_{device_memory_};
    DeviceArray<uint32_t> first_tf_{device_memory_};
    DeviceArray<uint32_t> unique_before_{device_memory_};
    DeviceArray<uint32_t> tf_before_{device_memory_};
    DeviceArray<uint32_t> lengths_of_firsts_{device_memory_};
    DeviceArray<uint32_t> bytes_before_{device_memory_};
    DeviceArray<uint32_t> sort_keys_{device_memory_};  // keys, then sorted keys
    DeviceArray<uint32_t> unsorted_positions_{device_memory_};
};

}  // namespace

std::unique_ptr<GpuBatchAnalyzer> create_gpu_batch_analyzer(int device) {
    return std::make_unique<CudaBatchAnalyzer>(device);
}

GpuAnalysisResult gpu_analyze_batch(int device, const GpuAnalysisInput& input) {
    // An empty batch needs no device (and asks for none).
    analysis_batch::check_input(input);
    if (input.documents() == 0) {
        return analysis_batch::pack_result(input, analysis_batch::term_regions({}), analysis_batch::PassOutput{});
    }
    return CudaBatchAnalyzer(device).analyze(input);
}

}  // namespace invidx
