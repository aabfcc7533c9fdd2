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
//    counts, and keep the batch on one stream with pinned staging buffers
//    reused from batch to batch.
#include "devices/gpu_analysis.hpp"

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


// A device array holding a copy of `count` host elements (none: no memory).
template <class T>
void upload(DeviceArray<T>& array, const T* host, size_t count, cudaStream_t stream, const char* what) {
    array.reserve(count, 0, stream);
    if (count == 0) return;
    check(cudaMemcpyAsync(array.data(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream), what);
}

template <class T>
void download(T* host, const DeviceArray<T>& array, size_t count, cudaStream_t stream, const char* what) {
    if (count == 0) return;
    check(cudaMemcpyAsync(host, array.data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream), what);
}

unsigned blocks_for(size_t documents) {
    return static_cast<unsigned>((documents + kDocumentThreads - 1) / kDocumentThreads);
}

}  // namespace

GpuAnalysisResult gpu_analyze_batch(int device, const GpuAnalysisInput& input) {
    using namespace analysis_batch;
    check_input(input);
    const size_t documents = input.documents();
    const std::vector<uint64_t> occurrence_begin = occurrence_regions(input);
    if (documents == 0) return pack_result(input, term_regions({}), PassOutput{});
    ensure(documents <= UINT32_MAX, "gpu_analyze_batch: more than 2^32 - 1 documents in one batch");

    use_device(device);
    const cuda::ScopedStream stream;  // declared before the arrays: it outlives their frees
    const cudaStream_t s = stream.get();
    MemoryCounter memory;
    const size_t text_bytes = input.text.size();
    const auto* const text = reinterpret_cast<const unsigned char*>(input.text.data());

    // Stop words: the host set's arrays, copied, with the same lookup.
    const StopwordSet stopword_set(input.stopwords);
    DeviceArray<unsigned char> stopword_bytes(memory);
    DeviceArray<uint32_t> stopword_offsets(memory);
    DeviceArray<uint32_t> stopword_slots(memory);
    upload(stopword_bytes, reinterpret_cast<const unsigned char*>(stopword_set.bytes().data()),
           stopword_set.bytes().size(), s, "cudaMemcpyAsync (stop words)");
    upload(stopword_offsets, stopword_set.word_offsets().data(), stopword_set.word_offsets().size(), s,
           "cudaMemcpyAsync (stop word offsets)");
    upload(stopword_slots, stopword_set.slots().data(), stopword_set.slots().size(), s,
           "cudaMemcpyAsync (stop word slots)");
    StopwordTable stopwords = stopword_set.table();
    stopwords.bytes = stopword_bytes.data();
    stopwords.word_offsets = stopword_offsets.data();
    stopwords.slots = stopword_slots.data();

    // Pass 1.
    DeviceArray<unsigned char> device_text(memory);
    DeviceArray<uint64_t> device_offsets(memory);
    DeviceArray<uint32_t> device_lengths(memory);
    DeviceArray<uint8_t> device_html(memory);
    DeviceArray<uint64_t> device_occurrence_begin(memory);
    DeviceArray<unsigned char> term_bytes(memory);
    DeviceArray<TermOccurrence> occurrences(memory);
    DeviceArray<uint32_t> indexed(memory);
    DeviceArray<uint32_t> tokens(memory);
    upload(device_text, text, text_bytes, s, "cudaMemcpyAsync (text)");
    upload(device_offsets, input.offsets.data(), documents, s, "cudaMemcpyAsync (offsets)");
    upload(device_lengths, input.lengths.data(), documents, s, "cudaMemcpyAsync (lengths)");
    upload(device_html, input.html.data(), documents, s, "cudaMemcpyAsync (html flags)");
    upload(device_occurrence_begin, occurrence_begin.data(), documents + 1, s, "cudaMemcpyAsync (regions)");
    term_bytes.reserve(text_bytes, 0, s);
    occurrences.reserve(occurrence_begin.back(), 0, s);
    indexed.reserve(documents, 0, s);
    tokens.reserve(documents, 0, s);
    collect_tokens<<<blocks_for(documents), kDocumentThreads, 0, s>>>(
        device_text.data(), device_offsets.data(), device_lengths.data(), device_html.data(),
        static_cast<uint32_t>(documents), stopwords, input.stemmer == GpuStemmer::porter,
        device_occurrence_begin.data(), term_bytes.data(), occurrences.data(), indexed.data(), tokens.data());
    check_launch("collect_tokens");
    std::vector<uint32_t> host_indexed(documents);
    std::vector<uint32_t> host_tokens(documents);
    download(host_indexed.data(), indexed, documents, s, "cudaMemcpyAsync (indexed tokens)");
    download(host_tokens.data(), tokens, documents, s, "cudaMemcpyAsync (tokens)");
    check(cudaStreamSynchronize(s), "collect_tokens");
    device_text.release_async(s);  // pass 2 reads the term bytes only

    // Pass 2, in regions sized by pass 1's counts.
    const TermRegions regions = term_regions(host_indexed);
    const uint64_t occurrence_count = regions.begin.back();
    DeviceArray<uint64_t> term_begin(memory);
    DeviceArray<uint64_t> table_begin(memory);
    DeviceArray<uint32_t> table(memory);
    DeviceArray<uint32_t> occurrence_terms(memory);
    DeviceArray<GroupedTerm> terms(memory);
    DeviceArray<uint32_t> positions(memory);
    DeviceArray<uint32_t> unique(memory);
    upload(term_begin, regions.begin.data(), documents + 1, s, "cudaMemcpyAsync (term regions)");
    upload(table_begin, regions.table_begin.data(), documents + 1, s, "cudaMemcpyAsync (table regions)");
    table.reserve(regions.table_begin.back(), 0, s);
    if (regions.table_begin.back() != 0) {
        check(cudaMemsetAsync(table.data(), 0, regions.table_begin.back() * sizeof(uint32_t), s),
              "cudaMemsetAsync (term tables)");
    }
    occurrence_terms.reserve(occurrence_count, 0, s);
    terms.reserve(occurrence_count, 0, s);
    if (input.positional) positions.reserve(occurrence_count, 0, s);
    unique.reserve(documents, 0, s);
    group_terms<<<blocks_for(documents), kDocumentThreads, 0, s>>>(
        term_bytes.data(), device_offsets.data(), static_cast<uint32_t>(documents), device_occurrence_begin.data(),
        occurrences.data(), indexed.data(), term_begin.data(), table_begin.data(), table.data(), input.positional,
        occurrence_terms.data(), terms.data(), positions.data(), unique.data());
    check_launch("group_terms");

    std::vector<unsigned char> host_term_bytes(text_bytes);
    std::vector<GroupedTerm> host_terms(occurrence_count);
    std::vector<uint32_t> host_positions(input.positional ? occurrence_count : 0);
    std::vector<uint32_t> host_unique(documents);
    download(host_term_bytes.data(), term_bytes, text_bytes, s, "cudaMemcpyAsync (term bytes)");
    download(host_terms.data(), terms, occurrence_count, s, "cudaMemcpyAsync (terms)");
    download(host_positions.data(), positions, host_positions.size(), s, "cudaMemcpyAsync (positions)");
    download(host_unique.data(), unique, documents, s, "cudaMemcpyAsync (unique terms)");
    check(cudaStreamSynchronize(s), "group_terms");

    PassOutput output;
    output.term_bytes = host_term_bytes.data();
    output.indexed = host_indexed.data();
    output.tokens = host_tokens.data();
    output.unique = host_unique.data();
    output.terms = host_terms.data();
    output.positions = host_positions.data();
    return pack_result(input, regions, output);
}

}  // namespace invidx
