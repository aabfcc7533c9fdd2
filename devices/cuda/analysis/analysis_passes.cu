// The passes of GPU document analysis (analysis_passes.hpp): each queues its
// copies, CUB calls and kernel launches (analysis_kernels.cuh) on the
// analyzer's stream, sized from the batch and from the counts the passes
// before it read back.
#include "devices/cuda/analysis/analysis_passes.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include "analysis/parallel_group_pass.hpp"
#include "devices/cuda/analysis/analysis_kernels.cuh"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "devices/cuda/common/mapped_read_back.cuh"
#include "invidx/collections.hpp"
#include "invidx/error.hpp"

namespace invidx::cuda::analysis_passes {

using namespace analysis_kernels;  // the kernels and functors launched here
using analysis_batch::BatchOutput;
using analysis_batch::TermRegions;
using document_passes::BatchTerm;
namespace steps = parallel_token_pass;

namespace {

constexpr unsigned kStepThreads = 256;
constexpr unsigned kMaxStepBlocks = 132 * 16;  // grid-stride beyond: enough to fill an H100

unsigned step_blocks(uint64_t items) {
    const uint64_t blocks = (items + kStepThreads - 1) / kStepThreads;
    return static_cast<unsigned>(blocks == 0 ? 1 : (blocks < kMaxStepBlocks ? blocks : kMaxStepBlocks));
}

// A slot's thread waits for its stream four times a batch, each time for
// steps of well under a millisecond, with every core busy: it sleeps 20 us
// between polls rather than yielding (cuda::wait_napping says why; 10 us
// measured the same).
constexpr long kSlotPollNapNs = 20000;

void wait_for_slot(cudaStream_t s, PassEvents& events, const char* what) {
    cuda::wait_napping(s, events.stream_done, what, kSlotPollNapNs);
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

// Pass 2's regions in, its tables cleared and its arrays grown to the
// batch (on `s`, before its kernels), the scans' ends zeroed.
void prepare_group(GroupScratch& group, const TermRegions& regions, const GpuAnalysisInput& input, cudaStream_t s) {
    const size_t documents = input.documents();
    const uint64_t occurrence_count = regions.begin.back();
    stage_upload(group.staged_term_begin, group.term_begin, regions.begin.data(), documents + 1, s,
                 "cudaMemcpyAsync (term regions)");
    stage_upload(group.staged_table_begin, group.table_begin, regions.table_begin.data(), documents + 1, s,
                 "cudaMemcpyAsync (table regions)");
    const uint64_t table_slots = regions.table_begin.back();
    group.table.reserve(table_slots, 0, s);
    group.first.reserve(table_slots, 0, s);
    group.tf.reserve(table_slots, 0, s);
    if (table_slots != 0) {
        check(cudaMemsetAsync(group.table.data(), 0, table_slots * sizeof(uint32_t), s),
              "cudaMemsetAsync (term tables)");
        check(cudaMemsetAsync(group.first.data(), 0xFF, table_slots * sizeof(uint32_t), s),
              "cudaMemsetAsync (firsts)");
        check(cudaMemsetAsync(group.tf.data(), 0, table_slots * sizeof(uint32_t), s), "cudaMemsetAsync (tf)");
    }
    ensure(occurrence_count < UINT32_MAX, "gpu_analyze_batch: 2^32 - 1 occurrences or more in one batch");
    group.slot_of.reserve(occurrence_count, 0, s);
    group.is_first.reserve(occurrence_count + 1, 0, s);
    group.first_tf.reserve(occurrence_count + 1, 0, s);
    group.unique_before.reserve(occurrence_count + 1, 0, s);
    group.tf_before.reserve(occurrence_count + 1, 0, s);
    group.lengths_of_firsts.reserve(occurrence_count + 1, 0, s);
    group.bytes_before.reserve(occurrence_count + 1, 0, s);
    if (input.positional) {
        group.positions.reserve(occurrence_count, 0, s);
        group.sort_keys.reserve(occurrence_count * 2, 0, s);
        group.unsorted_positions.reserve(occurrence_count, 0, s);
    }
    group.unique.reserve(documents, 0, s);
    check(cudaMemsetAsync(group.is_first.data() + occurrence_count, 0, sizeof(uint32_t), s),
          "cudaMemsetAsync (scan end)");
    check(cudaMemsetAsync(group.first_tf.data() + occurrence_count, 0, sizeof(uint32_t), s),
          "cudaMemsetAsync (scan end)");
    check(cudaMemsetAsync(group.lengths_of_firsts.data() + occurrence_count, 0, sizeof(uint32_t), s),
          "cudaMemsetAsync (scan end)");
}

// Pass 2, step 3 (positional only): the positions by term.
void sort_positions(GroupScratch& group, CommonScratch& common, const parallel_group_pass::GroupView& view,
                    uint64_t occurrence_count, cudaStream_t s) {
    const unsigned occurrence_blocks = step_blocks(occurrence_count);
    const auto scan_items = static_cast<uint32_t>(occurrence_count + 1);
    uint32_t* const keys = group.sort_keys.data();
    uint32_t* const sorted_keys = group.sort_keys.data() + occurrence_count;
    position_keys<<<occurrence_blocks, kStepThreads, 0, s>>>(view, occurrence_count, group.slot_of.data(),
                                                             group.first.data(), group.unique_before.data(), keys,
                                                             group.unsorted_positions.data());
    check_launch("position_keys");
    // Term numbers are below the occurrence count: sort only their bits.
    int end_bit = 1;
    while (end_bit < 32 && (uint64_t{1} << end_bit) <= occurrence_count) ++end_bit;
    size_t sort_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, sorted_keys, group.unsorted_positions.data(),
                                          group.positions.data(), scan_items - 1, 0, end_bit, s),
          "cub::DeviceRadixSort::SortPairs (size)");
    common.cub_temp.reserve(sort_bytes, 0, s);
    check(cub::DeviceRadixSort::SortPairs(common.cub_temp.data(), sort_bytes, keys, sorted_keys,
                                          group.unsorted_positions.data(), group.positions.data(), scan_items - 1, 0,
                                          end_bit, s),
          "cub::DeviceRadixSort::SortPairs (positions by term)");
}

}  // namespace

void add_pass_times(GpuAnalyzerTimes& times, const PassEvents& events) {
    ++times.batches;
    times.upload_seconds += events.uploaded.seconds_since(events.start);
    times.pass1_markup_seconds += events.marked.seconds_since(events.uploaded);
    times.pass1_candidates_seconds += events.candidates_ended.seconds_since(events.uploaded);
    times.pass1_walk_seconds += events.walked.seconds_since(events.candidates_ended);
    times.pass1_tokens_seconds += events.token_starts.seconds_since(events.marked);
    times.pass1_terms_seconds += events.terms_made.seconds_since(events.terms_begin);
    times.pass1_seconds +=
        events.token_starts.seconds_since(events.uploaded) + events.pass1_end.seconds_since(events.terms_begin);
    times.pass2_seconds += events.pass2_end.seconds_since(events.pass2_begin);
    times.download_seconds += events.downloaded.seconds_since(events.pass2_end);
    times.readback_idle_seconds +=
        events.terms_begin.seconds_since(events.token_starts) + events.pass2_begin.seconds_since(events.pass1_end);
}

StopwordTable stopwords_on_device(StopwordScratch& scratch, const std::vector<std::string>& words, cudaStream_t s) {
    if (!scratch.set || words != scratch.words) {
        scratch.set = std::make_unique<StopwordSet>(words);
        scratch.words = words;
        stage_upload(scratch.staged_bytes, scratch.bytes,
                     reinterpret_cast<const unsigned char*>(scratch.set->bytes().data()), scratch.set->bytes().size(),
                     s, "cudaMemcpyAsync (stop words)");
        stage_upload(scratch.staged_offsets, scratch.offsets, scratch.set->word_offsets().data(),
                     scratch.set->word_offsets().size(), s, "cudaMemcpyAsync (stop word offsets)");
        stage_upload(scratch.staged_slots, scratch.slots, scratch.set->slots().data(), scratch.set->slots().size(), s,
                     "cudaMemcpyAsync (stop word slots)");
    }
    StopwordTable table = scratch.set->table();
    table.bytes = scratch.bytes.data();
    table.word_offsets = scratch.offsets.data();
    table.slots = scratch.slots.data();
    return table;
}

namespace {

// Document d's bytes from sources[d] to text + offsets[d]: a block a document.
__global__ void gather_documents(const unsigned char* const* sources, const uint64_t* offsets, const uint32_t* lengths,
                                 unsigned char* text) {
    const uint32_t d = blockIdx.x;
    const unsigned char* from = sources[d];
    unsigned char* to = text + offsets[d];
    const uint32_t length = lengths[d];
    for (uint32_t i = threadIdx.x; i < length; i += blockDim.x) to[i] = from[i];
}

// Whether any document's bytes are on `device` already.
bool has_device_pieces(const GpuAnalysisInput& input, int device) {
    if (input.device_pieces.empty() || input.pieces_device != device) return false;
    for (const char* address : input.device_pieces) {
        if (address) return true;
    }
    return false;
}

}  // namespace

parallel_token_pass::BatchView upload_batch(UploadScratch& upload, const GpuAnalysisInput& input,
                                            const std::vector<uint64_t>& occurrence_begin, int device, cudaStream_t s,
                                            PassEvents& events, uint64_t& device_text_bytes) {
    const size_t documents = input.documents();
    const size_t text_bytes = input.text_size();
    events.start.record(s);
    upload.text.reserve(text_bytes, 0, s);
    const bool gather = has_device_pieces(input, device);
    if (!gather) {
        // The text, gathered from its pieces when it comes in pieces,
        // straight into the pinned buffer: one host copy either way.
        upload.staged_text.reserve(text_bytes);
        input.copy_text_to(reinterpret_cast<char*>(upload.staged_text.data()));
        if (text_bytes != 0) {
            check(cudaMemcpyAsync(upload.text.data(), upload.staged_text.data(), text_bytes, cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (text)");
        }
    } else {
        // Some documents are on this device already (GPU-inflated text):
        // only the others cross PCIe, back to back, and one kernel copies
        // every document to its place from wherever it is.
        uint64_t host_bytes = 0;
        for (size_t d = 0; d < documents; ++d) {
            if (!input.device_pieces[d]) host_bytes += input.lengths[d];
        }
        upload.packed.reserve(std::max<uint64_t>(host_bytes, 1), 0, s);
        upload.staged_text.reserve(std::max<uint64_t>(host_bytes, 1));
        upload.staged_sources.reserve(documents);
        uint64_t at = 0;
        for (size_t d = 0; d < documents; ++d) {
            const char* on_device = input.device_pieces[d];
            if (on_device) {
                upload.staged_sources.data()[d] = reinterpret_cast<const unsigned char*>(on_device);
                device_text_bytes += input.lengths[d];
                continue;
            }
            if (!input.pieces[d].empty()) std::memcpy(upload.staged_text.data() + at, input.pieces[d].data(), input.pieces[d].size());
            upload.staged_sources.data()[d] = upload.packed.data() + at;
            at += input.pieces[d].size();
        }
        if (host_bytes != 0) {
            check(cudaMemcpyAsync(upload.packed.data(), upload.staged_text.data(), host_bytes, cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (text pieces)");
        }
        upload.sources.reserve(documents, 0, s);
        check(cudaMemcpyAsync(upload.sources.data(), upload.staged_sources.data(), documents * sizeof(const unsigned char*),
                              cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync (piece sources)");
    }
    stage_upload(upload.staged_offsets, upload.offsets, input.offsets.data(), documents, s,
                 "cudaMemcpyAsync (offsets)");
    stage_upload(upload.staged_lengths, upload.lengths, input.lengths.data(), documents, s,
                 "cudaMemcpyAsync (lengths)");
    if (gather) {
        gather_documents<<<static_cast<unsigned>(documents), 256, 0, s>>>(upload.sources.data(), upload.offsets.data(),
                                                                          upload.lengths.data(), upload.text.data());
        check_launch("gather_documents");
    }
    stage_upload(upload.staged_html, upload.html, input.html.data(), documents, s, "cudaMemcpyAsync (html flags)");
    stage_upload(upload.staged_occurrence_begin, upload.occurrence_begin, occurrence_begin.data(), documents + 1, s,
                 "cudaMemcpyAsync (regions)");
    // The chunk index of document_of, made here (one pass over the
    // documents) straight into pinned staging.
    const uint64_t chunk_entries = steps::document_chunk_count(text_bytes) + 1;
    upload.staged_chunk_first.reserve(chunk_entries);
    steps::document_chunks(input.offsets.data(), input.lengths.data(), static_cast<uint32_t>(documents),
                           text_bytes, upload.staged_chunk_first.data());
    upload.chunk_first.reserve(chunk_entries, 0, s);
    check(cudaMemcpyAsync(upload.chunk_first.data(), upload.staged_chunk_first.data(),
                          chunk_entries * sizeof(uint32_t), cudaMemcpyHostToDevice, s),
          "cudaMemcpyAsync (document chunks)");
    events.uploaded.record(s);
    return steps::BatchView{upload.text.data(),  upload.offsets.data(), upload.lengths.data(), upload.html.data(),
                            static_cast<uint32_t>(documents), upload.chunk_first.data()};
}

void mark_constructs(MarkupScratch& markup, CommonScratch& common, const steps::BatchView& batch,
                     const GpuAnalysisInput& input, cudaStream_t s, PassEvents& events) {
    const size_t documents = input.documents();
    const auto bytes = static_cast<uint32_t>(input.text_size());
    const thrust::counting_iterator<uint32_t> positions(0);
    markup.candidates.reserve(bytes, 0, s);
    markup.ends.reserve(bytes, 0, s);
    markup.covered.reserve(bytes, 0, s);
    common.selected.reserve(4, 0, s);  // candidates, tokens, terms kept on the device, terms back

    // Steps 1-3: markup candidates, their ends, the kept constructs painted.
    const IsMarkupCandidate is_candidate{batch};
    size_t temp_bytes = 0;
    check(cub::DeviceSelect::If(nullptr, temp_bytes, positions, markup.candidates.data(), common.selected.data(),
                                bytes, is_candidate, s),
          "cub::DeviceSelect::If (candidates, size)");
    common.cub_temp.reserve(temp_bytes, 0, s);
    check(cub::DeviceSelect::If(common.cub_temp.data(), temp_bytes, positions, markup.candidates.data(),
                                common.selected.data(), bytes, is_candidate, s),
          "cub::DeviceSelect::If (candidates)");
    candidate_ends<<<step_blocks(bytes), kStepThreads, 0, s>>>(batch, markup.candidates.data(),
                                                                 common.selected.data(), markup.ends.data());
    check_launch("candidate_ends");
    candidate_ends_further<<<step_blocks(uint64_t{bytes} * 32), kStepThreads, 0, s>>>(
        batch, markup.candidates.data(), common.selected.data(), markup.ends.data());
    check_launch("candidate_ends_further");
    events.candidates_ended.record(s);
    keep_constructs<<<step_blocks(uint64_t{documents} * 32), kStepThreads, 0, s>>>(
        batch, markup.candidates.data(), common.selected.data(), markup.ends.data());
    check_launch("keep_constructs");
    events.walked.record(s);
    check(cudaMemsetAsync(markup.covered.data(), 0, bytes, s), "cudaMemsetAsync (covered)");
    paint_constructs<<<step_blocks(uint64_t{bytes} * 32), kStepThreads, 0, s>>>(
        batch, markup.candidates.data(), common.selected.data(), markup.ends.data(), markup.covered.data());
    check_launch("paint_constructs");
    events.marked.record(s);
}

uint32_t find_token_starts(TokenStartScratch& tokens, CommonScratch& common, const MarkupScratch& markup,
                           const steps::BatchView& batch, const GpuAnalysisInput& input, cudaStream_t s,
                           PassEvents& events) {
    const auto bytes = static_cast<uint32_t>(input.text_size());
    const thrust::counting_iterator<uint32_t> positions(0);
    tokens.token_starts.reserve(bytes, 0, s);

    // Steps 4-5: the kept tokens' starts, counted on the host to size the rest.
    tokens.token_flags.reserve(bytes, 0, s);
    token_flags<<<step_blocks(bytes), kStepThreads, 0, s>>>(batch, bytes, markup.covered.data(),
                                                              tokens.token_flags.data());
    check_launch("token_flags");
    const StartsKeptRun starts_token{tokens.token_flags.data(), bytes};
    size_t temp_bytes = 0;
    check(cub::DeviceSelect::If(nullptr, temp_bytes, positions, tokens.token_starts.data(), common.selected.data() + 1,
                                bytes, starts_token, s),
          "cub::DeviceSelect::If (tokens, size)");
    common.cub_temp.reserve(temp_bytes, 0, s);
    check(cub::DeviceSelect::If(common.cub_temp.data(), temp_bytes, positions, tokens.token_starts.data(),
                                common.selected.data() + 1, bytes, starts_token, s),
          "cub::DeviceSelect::If (tokens)");
    events.token_starts.record(s);
    tokens.host_selected.reserve(2);
    cuda::read_back_mapped(tokens.host_selected.data(), common.selected.data(), 2, s, "read back (token count)");
    wait_for_slot(s, events, "token starts");
    return tokens.host_selected.data()[1];
}

void make_occurrences(TermScratch& terms, CommonScratch& common, const TokenStartScratch& tokens,
                      const UploadScratch& upload, const steps::BatchView& batch, const GpuAnalysisInput& input,
                      const std::vector<uint64_t>& occurrence_begin, const StopwordTable& stopwords,
                      uint32_t token_count, cudaStream_t s, PassEvents& events) {
    const size_t documents = input.documents();
    const size_t text_bytes = input.text_size();
    const auto bytes = static_cast<uint32_t>(text_bytes);
    const bool stem = input.stemmer == GpuStemmer::porter;
    terms.term_bytes.reserve(text_bytes, 0, s);
    terms.occurrences.reserve(occurrence_begin.back(), 0, s);
    terms.indexed.reserve(documents, 0, s);
    terms.tokens.reserve(documents, 0, s);
    terms.first_token.reserve(documents + 1, 0, s);

    // Step 6: terms, the scan of indexed tokens, occurrences in place.
    events.terms_begin.record(s);
    terms.term_lengths.reserve(token_count + 1, 0, s);
    terms.indexed_flags.reserve(token_count + 1, 0, s);
    terms.indexed_before.reserve(token_count + 1, 0, s);
    check(cudaMemsetAsync(terms.indexed_flags.data() + token_count, 0, sizeof(uint32_t), s),
          "cudaMemsetAsync (scan end)");
    if (token_count != 0) {
        make_terms<<<step_blocks(token_count), kStepThreads, 0, s>>>(
            batch, tokens.token_flags.data(), bytes, stopwords, stem, tokens.token_starts.data(), token_count,
            terms.term_bytes.data(), terms.term_lengths.data(), terms.indexed_flags.data());
        check_launch("make_terms");
    }
    events.terms_made.record(s);
    size_t temp_bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, terms.indexed_flags.data(), terms.indexed_before.data(),
                                        token_count + 1, s),
          "cub::DeviceScan::ExclusiveSum (size)");
    common.cub_temp.reserve(temp_bytes, 0, s);
    check(cub::DeviceScan::ExclusiveSum(common.cub_temp.data(), temp_bytes, terms.indexed_flags.data(),
                                        terms.indexed_before.data(), token_count + 1, s),
          "cub::DeviceScan::ExclusiveSum (indexed tokens)");
    first_tokens<<<step_blocks(documents + 1), kStepThreads, 0, s>>>(batch, tokens.token_starts.data(), token_count,
                                                                      terms.first_token.data());
    check_launch("first_tokens");
    if (token_count != 0) {
        write_occurrences<<<step_blocks(token_count), kStepThreads, 0, s>>>(
            batch, tokens.token_starts.data(), terms.first_token.data(), terms.term_lengths.data(),
            terms.indexed_before.data(), upload.occurrence_begin.data(), token_count, terms.occurrences.data());
        check_launch("write_occurrences");
    }
    document_token_counts<<<step_blocks(documents), kStepThreads, 0, s>>>(
        static_cast<uint32_t>(documents), terms.first_token.data(), terms.indexed_before.data(), terms.indexed.data(),
        terms.tokens.data());
    check_launch("document_token_counts");
    events.pass1_end.record(s);
    terms.host_indexed.reserve(documents);
    terms.host_tokens.reserve(documents);
    cuda::read_back_mapped(terms.host_indexed.data(), terms.indexed.data(), documents, s, "read back (indexed tokens)");
    cuda::read_back_mapped(terms.host_tokens.data(), terms.tokens.data(), documents, s, "read back (tokens)");
    wait_for_slot(s, events, "pass 1");
}

void group_occurrences(GroupScratch& group, CommonScratch& common, const UploadScratch& upload,
                       const TermScratch& terms, const TermRegions& regions, const GpuAnalysisInput& input,
                       cudaStream_t s, PassEvents& events) {
    const size_t documents = input.documents();
    const size_t text_bytes = input.text_size();
    const uint64_t occurrence_count = regions.begin.back();
    events.pass2_begin.record(s);
    prepare_group(group, regions, input, s);
    const parallel_group_pass::GroupView view{terms.term_bytes.data(),        upload.offsets.data(),
                                              upload.occurrence_begin.data(), terms.occurrences.data(),
                                              group.term_begin.data(),        group.table_begin.data(),
                                              static_cast<uint32_t>(documents)};
    const unsigned occurrence_blocks = step_blocks(occurrence_count);
    if (occurrence_count != 0) {
        insert_occurrences<<<occurrence_blocks, kStepThreads, 0, s>>>(
            view, occurrence_count, group.table.data(), group.first.data(), group.tf.data(), group.slot_of.data());
        check_launch("insert_occurrences");
        mark_first_occurrences<<<occurrence_blocks, kStepThreads, 0, s>>>(
            view, occurrence_count, group.slot_of.data(), group.first.data(), group.tf.data(), group.is_first.data(),
            group.first_tf.data());
        check_launch("mark_first_occurrences");
    }
    const auto scan_items = static_cast<uint32_t>(occurrence_count + 1);
    size_t scan_bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, group.is_first.data(), group.unique_before.data(),
                                        scan_items, s),
          "cub::DeviceScan::ExclusiveSum (size)");
    common.cub_temp.reserve(scan_bytes, 0, s);
    check(cub::DeviceScan::ExclusiveSum(common.cub_temp.data(), scan_bytes, group.is_first.data(),
                                        group.unique_before.data(), scan_items, s),
          "cub::DeviceScan::ExclusiveSum (first occurrences)");
    check(cub::DeviceScan::ExclusiveSum(common.cub_temp.data(), scan_bytes, group.first_tf.data(),
                                        group.tf_before.data(), scan_items, s),
          "cub::DeviceScan::ExclusiveSum (tf of first occurrences)");
    if (occurrence_count != 0) {
        first_lengths<<<occurrence_blocks, kStepThreads, 0, s>>>(view, occurrence_count, group.is_first.data(),
                                                                 group.lengths_of_firsts.data());
        check_launch("first_lengths");
    }
    check(cub::DeviceScan::ExclusiveSum(common.cub_temp.data(), scan_bytes, group.lengths_of_firsts.data(),
                                        group.bytes_before.data(), scan_items, s),
          "cub::DeviceScan::ExclusiveSum (term bytes of first occurrences)");
    // The batch's terms and their bytes, dense: at most one per
    // occurrence and the text's bytes.
    group.batch_terms.reserve(occurrence_count, 0, s);
    group.arena.reserve(text_bytes, 0, s);
    if (occurrence_count != 0) {
        write_batch_terms<<<occurrence_blocks, kStepThreads, 0, s>>>(
            view, occurrence_count, group.slot_of.data(), group.tf.data(), group.is_first.data(),
            group.unique_before.data(), group.tf_before.data(), group.bytes_before.data(), input.positional,
            group.batch_terms.data(), group.arena.data());
        check_launch("write_batch_terms");
    }
    count_unique_terms<<<step_blocks(documents), kStepThreads, 0, s>>>(view, group.unique_before.data(),
                                                                        group.unique.data());
    check_launch("count_unique_terms");
    if (input.positional && occurrence_count != 0) sort_positions(group, common, view, occurrence_count, s);
    events.pass2_end.record(s);
}

TermTotals read_term_totals(DownloadScratch& results, const GroupScratch& group, uint64_t occurrence_count,
                            cudaStream_t s, PassEvents& events) {
    // Only the dense terms and bytes come back: their counts first.
    results.host_totals.reserve(4);  // terms, term bytes; keep_terms' two counts
    cuda::read_back_mapped(results.host_totals.data(), group.unique_before.data() + occurrence_count, 1, s,
                           "read back (term count)");
    cuda::read_back_mapped(results.host_totals.data() + 1, group.bytes_before.data() + occurrence_count, 1, s,
                           "read back (term byte count)");
    wait_for_slot(s, events, "pass 2 counts");
    TermTotals totals;
    totals.terms = results.host_totals.data()[0];
    totals.term_bytes = results.host_totals.data()[1];
    return totals;
}

std::shared_ptr<ResidentTerms> keep_terms(KeepScratch& keep, CommonScratch& common, DownloadScratch& results,
                                          const GroupScratch& group, ResidentPool& pool,
                                          const GpuAnalysisInput& input, const TermTotals& totals, cudaStream_t s,
                                          GpuAnalyzerTimes& times) {
    const uint32_t term_count = totals.terms;
    const uint32_t term_byte_count = totals.term_bytes;
    if (input.keep_on_device == nullptr || term_count == 0) return nullptr;
    ResidentPool::Buffer* buffer = pool.take();
    if (buffer == nullptr) {
        ++times.resident_unavailable;
        return nullptr;
    }
    std::shared_ptr<ResidentTerms> resident = pool.lend(buffer);  // gives it back on any error
    if (keep.kept_flags.size() != kCollections ||
        !std::equal(input.keep_on_device, input.keep_on_device + kCollections, keep.kept_flags.begin())) {
        keep.kept_flags.assign(input.keep_on_device, input.keep_on_device + kCollections);
        stage_upload(keep.staged_keep_flags, keep.keep_flags, keep.kept_flags.data(), kCollections, s,
                     "cudaMemcpyAsync (collections kept on the device)");
    }
    buffer->terms.reserve(term_count, 0, s);
    buffer->arena.reserve(std::max<uint32_t>(term_byte_count, 1), 0, s);
    results.host_batch_terms.reserve(term_count);
    BatchTerm* host_terms = nullptr;  // the pinned buffer as the device addresses it
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_terms), results.host_batch_terms.data(), 0),
          "cudaHostGetDevicePointer (terms)");
    size_t temp_bytes = 0;
    const KeptOnDevice kept{keep.keep_flags.data(), true};
    const KeptOnDevice back{keep.keep_flags.data(), false};
    check(cub::DeviceSelect::If(nullptr, temp_bytes, group.batch_terms.data(), buffer->terms.data(),
                                common.selected.data() + 2, term_count, kept, s),
          "cub::DeviceSelect::If (terms kept, size)");
    common.cub_temp.reserve(temp_bytes, 0, s);
    check(cub::DeviceSelect::If(common.cub_temp.data(), temp_bytes, group.batch_terms.data(), buffer->terms.data(),
                                common.selected.data() + 2, term_count, kept, s),
          "cub::DeviceSelect::If (terms kept on the device)");
    check(cub::DeviceSelect::If(common.cub_temp.data(), temp_bytes, group.batch_terms.data(), host_terms,
                                common.selected.data() + 3, term_count, back, s),
          "cub::DeviceSelect::If (terms brought back)");
    if (term_byte_count != 0) {
        check(cudaMemcpyAsync(buffer->arena.data(), group.arena.data(), term_byte_count, cudaMemcpyDeviceToDevice,
                              s),
              "cudaMemcpyAsync (term bytes kept on the device)");
    }
    check(cudaMemcpyAsync(results.host_totals.data() + 2, common.selected.data() + 2, 2 * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync (terms kept and brought back)");
    resident->occurrences = buffer->terms.data();
    resident->arena = reinterpret_cast<const char*>(buffer->arena.data());
    resident->arena_bytes = term_byte_count;
    return resident;
}

void download_terms(DownloadScratch& results, const GroupScratch& group, const GpuAnalysisInput& input,
                    const TermTotals& totals, uint64_t occurrence_count, bool resident, cudaStream_t s,
                    PassEvents& events) {
    const size_t documents = input.documents();
    if (!resident) download(results.host_batch_terms, group.batch_terms, totals.terms, s, "cudaMemcpyAsync (terms)");
    download(results.host_arena, group.arena, totals.term_bytes, s, "cudaMemcpyAsync (term bytes)");
    if (input.positional) {
        download(results.host_positions, group.positions, occurrence_count, s, "cudaMemcpyAsync (positions)");
    }
    download(results.host_unique, group.unique, documents, s, "cudaMemcpyAsync (unique terms)");
    events.downloaded.record(s);
    wait_for_slot(s, events, "pass 2");
}

GpuAnalysisResult pack_terms(const GpuAnalysisInput& input, const TermScratch& terms,
                             const DownloadScratch& results, const TermTotals& totals, uint64_t occurrence_count,
                             std::shared_ptr<ResidentTerms> resident, GpuAnalyzerTimes& times) {
    uint32_t brought_back = totals.terms;
    if (resident) {
        resident->count = results.host_totals.data()[2];
        brought_back = results.host_totals.data()[3];
        ensure(resident->count + brought_back == totals.terms,
               "gpu_analyze_batch: the terms kept on the device and brought back do not add up");
        ++times.resident_batches;
        times.resident_terms += resident->count;
    }
    times.downloaded_terms += brought_back;
    BatchOutput output;
    output.indexed = terms.host_indexed.data();
    output.tokens = terms.host_tokens.data();
    output.unique = results.host_unique.data();
    output.terms = results.host_batch_terms.data();
    output.term_count = brought_back;
    output.some_terms_on_device = resident != nullptr;
    output.term_bytes = results.host_arena.data();
    output.term_byte_count = totals.term_bytes;
    output.positions = results.host_positions.data();
    output.position_count = occurrence_count;
    const auto pack_start = std::chrono::steady_clock::now();
    GpuAnalysisResult result = analysis_batch::pack_batch_result(input, output);
    times.pack_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - pack_start).count();
    result.resident = std::move(resident);
    return result;
}

}  // namespace invidx::cuda::analysis_passes
