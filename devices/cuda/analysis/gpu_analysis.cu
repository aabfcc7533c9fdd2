// gpu_analyze_batch (devices/gpu_analysis.hpp), first version: correctness
// first. One thread per document runs the host's own per-document passes
// (analysis/document_passes.hpp): pass 1 (HTML rules, tokens, stop words,
// Porter) writes each term over its token's bytes in an array parallel to
// the text and its occurrence into a region bounded by token_bound(); the
// host reads back the per-document counts, sizes pass 2's regions exactly
// (analysis_batch::term_regions) and pass 2 groups each document's terms
// through an open-addressing table in global scratch. The batch layout and
// the packing into a GpuAnalysisResult are the host reference's own
// (devices/analysis_batch.cpp), so only the launches and copies here are
// untested without a GPU.
//
// Next, for speed (what this version leaves on the table):
//  - Load balance: one thread per document idles a warp on its longest
//    document and reads text uncoalesced. Better: a warp per document (or a
//    block for long ones) that splits the text into 32 (or more) chunks.
//    Tokens are local once HTML state is known, so each lane scans its chunk
//    for construct starts and the constructs that run past its end; a warp
//    scan over "where does the construct state at my chunk's end leave the
//    next chunk" (a function composition: each chunk maps an entry offset to
//    an exit offset, of which only few distinct values occur: the chunk's
//    own start, or inside a comment/script/tag that began earlier) gives
//    every lane its true starting state; lanes then tokenize their chunk
//    (a token crossing a chunk boundary belongs to the lane where it
//    starts), and a warp prefix sum of token counts gives positions.
//  - Stop words and stems: a per-block shared-memory cache of recent
//    (token -> stem) as the CPU's TokenCache does: stemming costs far more
//    per token than the rest, and most tokens were seen a moment ago.
//  - Pass 2 per warp: a shared-memory hash table per document that fits
//    (most do), global scratch only for the long tail; or one sort by
//    (document, term hash, first position) with CUB segmented radix sort
//    followed by a stable compaction in first-occurrence order.
//  - No host round trip between passes: bound pass 2's scratch by
//    token_bound() (as pass 1's) or size it with a device-side scan of the
//    counts, so one batch is a single queue of work on its stream.
//  - The terms stay on the device for a GPU indexer instead of coming back
//    as a ParsedBatch.
//
// CudaBatchAnalyzer keeps its stream, pinned staging and device arrays from
// batch to batch; the GPU parsers of the pipeline run two per GPU, each on
// its own host thread, so one's copies and packing overlap the other's
// kernels (nodes/parse/gpu_parsers.hpp).
#include "devices/gpu_analysis.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "analysis/document_passes.hpp"
#include "analysis/stopword_table.hpp"
#include "analysis/stopwords.hpp"
#include "devices/analysis_batch.hpp"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_stream.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using namespace cuda;
using document_passes::GroupedTerm;
using document_passes::TermOccurrence;

constexpr unsigned kDocumentThreads = 128;

// Pass 1, one thread per document.
__global__ void __launch_bounds__(kDocumentThreads)
    collect_tokens(const unsigned char* text, const uint64_t* offsets, const uint32_t* lengths,
                   const uint8_t* html, uint32_t documents, StopwordTable stopwords, bool stem,
                   const uint64_t* occurrence_begin, unsigned char* term_bytes, TermOccurrence* occurrences,
                   uint32_t* indexed, uint32_t* tokens) {
    const uint32_t d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= documents) return;
    const uint64_t offset = offsets[d];
    const document_passes::TokenCounts counts = document_passes::collect_document_tokens(
        text + offset, lengths[d], html[d] != 0, stopwords, stem, term_bytes + offset,
        occurrences + occurrence_begin[d]);
    indexed[d] = counts.indexed;
    tokens[d] = counts.tokens;
}

// Pass 2, one thread per document; `table` is all zeros on entry.
__global__ void __launch_bounds__(kDocumentThreads)
    group_terms(const unsigned char* term_bytes, const uint64_t* offsets, uint32_t documents,
                const uint64_t* occurrence_begin, const TermOccurrence* occurrences, const uint32_t* indexed,
                const uint64_t* term_begin, const uint64_t* table_begin, uint32_t* table, bool positional,
                uint32_t* occurrence_terms, GroupedTerm* terms, uint32_t* positions, uint32_t* unique) {
    const uint32_t d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= documents) return;
    const uint64_t at = term_begin[d];
    unique[d] = document_passes::group_document_terms(term_bytes + offsets[d], occurrences + occurrence_begin[d],
                                                      indexed[d], table + table_begin[d], positional,
                                                      occurrence_terms + at, terms + at,
                                                      positional ? positions + at : nullptr);
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

unsigned blocks_for(size_t documents) {
    return static_cast<unsigned>((documents + kDocumentThreads - 1) / kDocumentThreads);
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
        return {device_memory_.bytes, device_memory_.peak, pinned_memory_.bytes};
    }

    GpuAnalysisResult analyze(const GpuAnalysisInput& input) override {
        using namespace analysis_batch;
        check_input(input);
        const size_t documents = input.documents();
        const std::vector<uint64_t> occurrence_begin = occurrence_regions(input);
        if (documents == 0) return pack_result(input, term_regions({}), PassOutput{});
        ensure(documents <= UINT32_MAX, "gpu_analyze_batch: more than 2^32 - 1 documents in one batch");
        check(cudaSetDevice(device_), "cudaSetDevice");
        const cudaStream_t s = stream_.get();
        const StopwordTable stopwords = stopwords_on_device(input.stopwords, s);
        const size_t text_bytes = input.text.size();

        // Pass 1.
        stage_upload(staged_text_, text_, reinterpret_cast<const unsigned char*>(input.text.data()), text_bytes, s,
                     "cudaMemcpyAsync (text)");
        stage_upload(staged_offsets_, offsets_, input.offsets.data(), documents, s, "cudaMemcpyAsync (offsets)");
        stage_upload(staged_lengths_, lengths_, input.lengths.data(), documents, s, "cudaMemcpyAsync (lengths)");
        stage_upload(staged_html_, html_, input.html.data(), documents, s, "cudaMemcpyAsync (html flags)");
        stage_upload(staged_occurrence_begin_, occurrence_begin_, occurrence_begin.data(), documents + 1, s,
                     "cudaMemcpyAsync (regions)");
        term_bytes_.reserve(text_bytes, 0, s);
        occurrences_.reserve(occurrence_begin.back(), 0, s);
        indexed_.reserve(documents, 0, s);
        tokens_.reserve(documents, 0, s);
        collect_tokens<<<blocks_for(documents), kDocumentThreads, 0, s>>>(
            text_.data(), offsets_.data(), lengths_.data(), html_.data(), static_cast<uint32_t>(documents), stopwords,
            input.stemmer == GpuStemmer::porter, occurrence_begin_.data(), term_bytes_.data(), occurrences_.data(),
            indexed_.data(), tokens_.data());
        check_launch("collect_tokens");
        download(host_indexed_, indexed_, documents, s, "cudaMemcpyAsync (indexed tokens)");
        download(host_tokens_, tokens_, documents, s, "cudaMemcpyAsync (tokens)");
        check(cudaStreamSynchronize(s), "collect_tokens");

        // Pass 2, in regions sized by pass 1's counts.
        const std::vector<uint32_t> indexed(host_indexed_.data(), host_indexed_.data() + documents);
        const TermRegions regions = term_regions(indexed);
        const uint64_t occurrence_count = regions.begin.back();
        stage_upload(staged_term_begin_, term_begin_, regions.begin.data(), documents + 1, s,
                     "cudaMemcpyAsync (term regions)");
        stage_upload(staged_table_begin_, table_begin_, regions.table_begin.data(), documents + 1, s,
                     "cudaMemcpyAsync (table regions)");
        table_.reserve(regions.table_begin.back(), 0, s);
        if (regions.table_begin.back() != 0) {
            check(cudaMemsetAsync(table_.data(), 0, regions.table_begin.back() * sizeof(uint32_t), s),
                  "cudaMemsetAsync (term tables)");
        }
        occurrence_terms_.reserve(occurrence_count, 0, s);
        terms_.reserve(occurrence_count, 0, s);
        if (input.positional) positions_.reserve(occurrence_count, 0, s);
        unique_.reserve(documents, 0, s);
        group_terms<<<blocks_for(documents), kDocumentThreads, 0, s>>>(
            term_bytes_.data(), offsets_.data(), static_cast<uint32_t>(documents), occurrence_begin_.data(),
            occurrences_.data(), indexed_.data(), term_begin_.data(), table_begin_.data(), table_.data(),
            input.positional, occurrence_terms_.data(), terms_.data(), positions_.data(), unique_.data());
        check_launch("group_terms");
        download(host_term_bytes_, term_bytes_, text_bytes, s, "cudaMemcpyAsync (term bytes)");
        download(host_terms_, terms_, occurrence_count, s, "cudaMemcpyAsync (terms)");
        if (input.positional) download(host_positions_, positions_, occurrence_count, s, "cudaMemcpyAsync (positions)");
        download(host_unique_, unique_, documents, s, "cudaMemcpyAsync (unique terms)");
        check(cudaStreamSynchronize(s), "group_terms");

        // Packed straight from the pinned buffers, which the next batch reuses.
        PassOutput output;
        output.term_bytes = host_term_bytes_.data();
        output.indexed = host_indexed_.data();
        output.tokens = host_tokens_.data();
        output.unique = host_unique_.data();
        output.terms = host_terms_.data();
        output.positions = host_positions_.data();
        return pack_result(input, regions, output);
    }

private:
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

    std::unique_ptr<StopwordSet> stopword_set_;
    std::vector<std::string> stopword_words_;

    // Pinned staging, host to device.
    PinnedArray<unsigned char> staged_text_{pinned_memory_};
    PinnedArray<uint64_t> staged_offsets_{pinned_memory_};
    PinnedArray<uint32_t> staged_lengths_{pinned_memory_};
    PinnedArray<uint8_t> staged_html_{pinned_memory_};
    PinnedArray<uint64_t> staged_occurrence_begin_{pinned_memory_};
    PinnedArray<uint64_t> staged_term_begin_{pinned_memory_};
    PinnedArray<uint64_t> staged_table_begin_{pinned_memory_};
    PinnedArray<unsigned char> staged_stopword_bytes_{pinned_memory_};
    PinnedArray<uint32_t> staged_stopword_offsets_{pinned_memory_};
    PinnedArray<uint32_t> staged_stopword_slots_{pinned_memory_};
    // Pinned results, device to host.
    PinnedArray<uint32_t> host_indexed_{pinned_memory_};
    PinnedArray<uint32_t> host_tokens_{pinned_memory_};
    PinnedArray<unsigned char> host_term_bytes_{pinned_memory_};
    PinnedArray<GroupedTerm> host_terms_{pinned_memory_};
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
    DeviceArray<unsigned char> term_bytes_{device_memory_};
    DeviceArray<TermOccurrence> occurrences_{device_memory_};
    DeviceArray<uint32_t> indexed_{device_memory_};
    DeviceArray<uint32_t> tokens_{device_memory_};
    DeviceArray<uint64_t> term_begin_{device_memory_};
    DeviceArray<uint64_t> table_begin_{device_memory_};
    DeviceArray<uint32_t> table_{device_memory_};
    DeviceArray<uint32_t> occurrence_terms_{device_memory_};
    DeviceArray<GroupedTerm> terms_{device_memory_};
    DeviceArray<uint32_t> positions_{device_memory_};
    DeviceArray<uint32_t> unique_{device_memory_};
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
