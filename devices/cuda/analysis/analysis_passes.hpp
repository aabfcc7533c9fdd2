// The host side of GPU document analysis (devices/gpu_analysis.hpp) pass by
// pass, apart from the kernels (analysis_kernels.cuh), as CUB keeps its
// dispatch apart from its kernels: per pass, a function that queues the
// pass's copies and launches on the analyzer's stream, and a scratch struct
// holding the buffers it owns, which an analyzer keeps from batch to batch
// (they grow to the largest batch seen). CudaBatchAnalyzer::analyze_batch
// (gpu_analysis.cu) calls them in this order:
//
//   stopwords_on_device  the stop word table, copied when the list changes
//   upload_batch         the text and per-document arrays in (upload_seconds)
//   mark_constructs      pass 1, steps 1-3: markup candidates, their ends,
//                        the walk, the kept constructs painted (pass1_markup,
//                        pass1_candidates, pass1_walk_seconds)
//   find_token_starts    steps 4-5: token starts, their count read back
//                        (pass1_tokens_seconds)
//   make_occurrences     step 6: terms, the scan of indexed tokens, the
//                        occurrences; per-document counts read back
//                        (pass1_terms_seconds; pass1_seconds covers the
//                        three but for the wait for the token count)
//   group_occurrences    pass 2, in regions sized by pass 1's counts: the
//                        batch's terms, bytes and positions (pass2_seconds)
//   read_term_totals     their counts read back
//   keep_terms           the keep-on-device selection
//   download_terms       the rest copied back (download_seconds covers
//                        these three)
//   pack_terms           the result packed on the host (pack_seconds)
//
// A pass reads the buffers of the passes before it (const) and writes its
// own; CommonScratch is shared by all. Every pass records its own timing
// marks (PassEvents); those that read counts back wait for the stream
// (cuda::wait_napping), the counts stored into pinned host memory by a
// kernel (cuda::read_back_mapped), before they return. C++17 (nvcc), CUDA
// headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "analysis/document_passes.hpp"
#include "analysis/parallel_token_pass.hpp"
#include "analysis/stopword_table.hpp"
#include "analysis/stopwords.hpp"
#include "devices/analysis_batch.hpp"
#include "devices/cuda/analysis/resident_pool.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/gpu_analysis.hpp"
#include "invidx/resident_terms.hpp"

namespace invidx::cuda::analysis_passes {

// The analyzer's events: the timing marks of GpuAnalyzerTimes on its
// stream, each recorded by the pass named, and the one its waits poll.
struct PassEvents {
    ScopedEvent start;             // upload_batch: pass 1 from, before its copies in
    ScopedEvent uploaded;          // upload_batch: after its copies in
    ScopedEvent candidates_ended;  // mark_constructs: after the candidates' ends
    ScopedEvent walked;            // mark_constructs: after the walk
    ScopedEvent marked;            // mark_constructs: after the markup steps
    ScopedEvent token_starts;      // find_token_starts: after the token starts
    ScopedEvent terms_begin;       // make_occurrences: before the terms
    ScopedEvent terms_made;        // make_occurrences: after the terms
    ScopedEvent pass1_end;         // make_occurrences: pass 1's end
    ScopedEvent pass2_begin;       // group_occurrences: pass 2 from
    ScopedEvent pass2_end;         // group_occurrences: pass 2 to
    ScopedEvent downloaded;        // download_terms: after the copies out
    ScopedEvent stream_done{cudaEventDisableTiming};  // polled by wait_napping
};

// One batch's times, from its events (all complete), added to `times`.
void add_pass_times(GpuAnalyzerTimes& times, const PassEvents& events);

// Shared by the passes: CUB's temporary storage, and the counts its
// selections write on the device.
struct CommonScratch {
    explicit CommonScratch(MemoryCounter& device) : selected(device), cub_temp(device) {}
    DeviceArray<uint32_t> selected;  // candidates, tokens, terms kept on the device, terms back
    DeviceArray<unsigned char> cub_temp;
};

// The stop word list of the last batch, and its table on the device.
struct StopwordScratch {
    StopwordScratch(MemoryCounter& device, MemoryCounter& pinned)
        : staged_bytes(pinned), staged_offsets(pinned), staged_slots(pinned), bytes(device), offsets(device),
          slots(device) {}
    std::unique_ptr<StopwordSet> set;
    std::vector<std::string> words;
    PinnedArray<unsigned char> staged_bytes;
    PinnedArray<uint32_t> staged_offsets;
    PinnedArray<uint32_t> staged_slots;
    DeviceArray<unsigned char> bytes;
    DeviceArray<uint32_t> offsets;
    DeviceArray<uint32_t> slots;
};

// The host set's arrays with the same lookup, copied when the list
// differs from the last batch's (a build has one list: copied once).
StopwordTable stopwords_on_device(StopwordScratch& scratch, const std::vector<std::string>& words, cudaStream_t s);

// The batch on the device, copied through pinned staging.
struct UploadScratch {
    UploadScratch(MemoryCounter& device, MemoryCounter& pinned)
        : staged_text(pinned), staged_offsets(pinned), staged_lengths(pinned), staged_html(pinned),
          staged_occurrence_begin(pinned), staged_chunk_first(pinned), staged_sources(pinned), packed(device),
          sources(device), text(device), offsets(device),
          lengths(device), html(device), occurrence_begin(device), chunk_first(device) {}
    PinnedArray<unsigned char> staged_text;
    PinnedArray<uint64_t> staged_offsets;
    PinnedArray<uint32_t> staged_lengths;
    PinnedArray<uint8_t> staged_html;
    PinnedArray<uint64_t> staged_occurrence_begin;
    PinnedArray<uint32_t> staged_chunk_first;
    PinnedArray<const unsigned char*> staged_sources;  // with device pieces: where each document's bytes are on the device
    DeviceArray<unsigned char> packed;                 // with device pieces: the host pieces, back to back
    DeviceArray<const unsigned char*> sources;
    DeviceArray<unsigned char> text;
    DeviceArray<uint64_t> offsets;
    DeviceArray<uint32_t> lengths;
    DeviceArray<uint8_t> html;
    DeviceArray<uint64_t> occurrence_begin;  // analysis_batch::occurrence_regions
    DeviceArray<uint32_t> chunk_first;       // parallel_token_pass::BatchView::chunk_first
};

// Copies the input's text, offsets, lengths and html flags, the
// occurrence regions and the chunk index of document_of in, and returns
// the view of them that pass 1's kernels read. Documents whose bytes are
// already on `device` (the input's device_pieces) are copied there, not
// uploaded; their bytes are added to `device_text_bytes`.
parallel_token_pass::BatchView upload_batch(UploadScratch& upload, const GpuAnalysisInput& input,
                                            const std::vector<uint64_t>& occurrence_begin, int device, cudaStream_t s,
                                            PassEvents& events, uint64_t& device_text_bytes);

// Pass 1, steps 1-3.
struct MarkupScratch {
    explicit MarkupScratch(MemoryCounter& device) : candidates(device), ends(device), covered(device) {}
    DeviceArray<uint32_t> candidates;  // markup candidates' positions in the text
    DeviceArray<uint32_t> ends;        // each one's construct end in its document (0: none kept)
    DeviceArray<uint8_t> covered;      // per text byte: 1 inside a kept construct
};

// Markup candidates, their ends, the kept constructs painted into `covered`.
void mark_constructs(MarkupScratch& markup, CommonScratch& common, const parallel_token_pass::BatchView& batch,
                     const GpuAnalysisInput& input, cudaStream_t s, PassEvents& events);

// Pass 1, steps 4-5.
struct TokenStartScratch {
    TokenStartScratch(MemoryCounter& device, MemoryCounter& pinned)
        : token_flags(device), token_starts(device), host_selected(pinned) {}
    DeviceArray<uint8_t> token_flags;    // per text byte
    DeviceArray<uint32_t> token_starts;  // the kept tokens' starts in the text
    PinnedArray<uint32_t> host_selected;  // CommonScratch::selected's first two counts
};

// The kept tokens' starts; waits for the stream and returns their count.
uint32_t find_token_starts(TokenStartScratch& tokens, CommonScratch& common, const MarkupScratch& markup,
                           const parallel_token_pass::BatchView& batch, const GpuAnalysisInput& input,
                           cudaStream_t s, PassEvents& events);

// Pass 1, step 6.
struct TermScratch {
    TermScratch(MemoryCounter& device, MemoryCounter& pinned)
        : term_bytes(device), occurrences(device), indexed(device), tokens(device), first_token(device),
          term_lengths(device), indexed_flags(device), indexed_before(device), host_indexed(pinned),
          host_tokens(pinned) {}
    DeviceArray<unsigned char> term_bytes;  // parallel to the text
    DeviceArray<document_passes::TermOccurrence> occurrences;  // in the occurrence regions
    DeviceArray<uint32_t> indexed;      // per document: indexed tokens
    DeviceArray<uint32_t> tokens;       // per document: kept tokens
    DeviceArray<uint32_t> first_token;  // per document, and the token count
    DeviceArray<uint32_t> term_lengths;    // per token
    DeviceArray<uint32_t> indexed_flags;   // per token, and a 0 for the scan's end
    DeviceArray<uint32_t> indexed_before;  // their exclusive scan
    PinnedArray<uint32_t> host_indexed;
    PinnedArray<uint32_t> host_tokens;
};

// Each token's term, the scan of indexed tokens, the occurrences in their
// regions and each document's counts, which it brings back (host_indexed,
// host_tokens) and waits for.
void make_occurrences(TermScratch& terms, CommonScratch& common, const TokenStartScratch& tokens,
                      const UploadScratch& upload, const parallel_token_pass::BatchView& batch,
                      const GpuAnalysisInput& input, const std::vector<uint64_t>& occurrence_begin,
                      const StopwordTable& stopwords, uint32_t token_count, cudaStream_t s, PassEvents& events);

// Pass 2.
struct GroupScratch {
    GroupScratch(MemoryCounter& device, MemoryCounter& pinned)
        : staged_term_begin(pinned), staged_table_begin(pinned), term_begin(device), table_begin(device),
          table(device), first(device), tf(device), slot_of(device), is_first(device), first_tf(device),
          unique_before(device), tf_before(device), lengths_of_firsts(device), bytes_before(device),
          sort_keys(device), unsorted_positions(device), batch_terms(device), arena(device), positions(device),
          unique(device) {}
    PinnedArray<uint64_t> staged_term_begin;
    PinnedArray<uint64_t> staged_table_begin;
    DeviceArray<uint64_t> term_begin;   // analysis_batch::TermRegions::begin
    DeviceArray<uint64_t> table_begin;  // analysis_batch::TermRegions::table_begin
    DeviceArray<uint32_t> table;
    DeviceArray<uint32_t> first;
    DeviceArray<uint32_t> tf;
    DeviceArray<uint64_t> slot_of;
    DeviceArray<uint32_t> is_first;
    DeviceArray<uint32_t> first_tf;
    DeviceArray<uint32_t> unique_before;
    DeviceArray<uint32_t> tf_before;
    DeviceArray<uint32_t> lengths_of_firsts;
    DeviceArray<uint32_t> bytes_before;
    DeviceArray<uint32_t> sort_keys;  // keys, then sorted keys
    DeviceArray<uint32_t> unsorted_positions;
    // What it leaves for the copies back.
    DeviceArray<document_passes::BatchTerm> batch_terms;
    DeviceArray<unsigned char> arena;  // the batch's term bytes
    DeviceArray<uint32_t> positions;   // positional only
    DeviceArray<uint32_t> unique;      // per document: its terms
};

// The occurrences grouped into the batch's terms, dense, their bytes, the
// positions by term (positional), each document's term count.
void group_occurrences(GroupScratch& group, CommonScratch& common, const UploadScratch& upload,
                       const TermScratch& terms, const analysis_batch::TermRegions& regions,
                       const GpuAnalysisInput& input, cudaStream_t s, PassEvents& events);

// Pinned results, device to host.
struct DownloadScratch {
    explicit DownloadScratch(MemoryCounter& pinned)
        : host_totals(pinned), host_batch_terms(pinned), host_arena(pinned), host_positions(pinned),
          host_unique(pinned) {}
    PinnedArray<uint32_t> host_totals;  // the batch's terms and term bytes; keep_terms' two counts
    PinnedArray<document_passes::BatchTerm> host_batch_terms;
    PinnedArray<unsigned char> host_arena;
    PinnedArray<uint32_t> host_positions;
    PinnedArray<uint32_t> host_unique;
};

// The batch's terms and term bytes.
struct TermTotals {
    uint32_t terms = 0;
    uint32_t term_bytes = 0;
};

// Reads the totals back (waits for the stream).
TermTotals read_term_totals(DownloadScratch& results, const GroupScratch& group, uint64_t occurrence_count,
                            cudaStream_t s, PassEvents& events);

// The keep_on_device flags on the device.
struct KeepScratch {
    KeepScratch(MemoryCounter& device, MemoryCounter& pinned) : staged_keep_flags(pinned), keep_flags(device) {}
    std::vector<uint8_t> kept_flags;  // the keep_on_device flags on the device now
    PinnedArray<uint8_t> staged_keep_flags;
    DeviceArray<uint8_t> keep_flags;
};

// When the input asks and a buffer of `pool` is free: the terms of the
// flagged collections into the buffer (with the whole arena), the others
// straight into the pinned host buffer (host_batch_terms), their counts
// after them into host_totals[2], [3]. Null otherwise (counted in
// times.resident_unavailable when no buffer was free): the caller
// downloads them all.
std::shared_ptr<ResidentTerms> keep_terms(KeepScratch& keep, CommonScratch& common, DownloadScratch& results,
                                          const GroupScratch& group, ResidentPool& pool,
                                          const GpuAnalysisInput& input, const TermTotals& totals, cudaStream_t s,
                                          GpuAnalyzerTimes& times);

// Copies the terms (unless keep_terms kept some: it brought the rest back),
// term bytes, positions and term counts back, and waits for the stream.
void download_terms(DownloadScratch& results, const GroupScratch& group, const GpuAnalysisInput& input,
                    const TermTotals& totals, uint64_t occurrence_count, bool resident, cudaStream_t s,
                    PassEvents& events);

// The result, packed straight from the pinned buffers (which the next
// batch reuses), with `resident` (from keep_terms) when set; counts the
// terms kept and brought back, and the packing's time, into `times`.
GpuAnalysisResult pack_terms(const GpuAnalysisInput& input, const TermScratch& terms,
                             const DownloadScratch& results, const TermTotals& totals, uint64_t occurrence_count,
                             std::shared_ptr<ResidentTerms> resident, GpuAnalyzerTimes& times);

}  // namespace invidx::cuda::analysis_passes
