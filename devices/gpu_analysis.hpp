// Analysis of a batch of documents on a GPU (CONTENT.md §3-8: HTML rules, tokens,
// stop words, Porter stemming, collections, positions), with the host's own
// code compiled for the device (analysis/document_passes.hpp): its terms
// equal Analyzer::analyze's byte for byte. C++17 and free of CUDA headers:
// devices/no_cuda.cpp throws for builds without CUDA.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/document_passes.hpp"
#include "invidx/resident_terms.hpp"

namespace invidx {

enum class GpuStemmer { none, porter };

// The stemmer of AnalysisSettings::stemmer ("porter" or "none"); throws
// invidx::Error for any other name (the device has no other algorithm).
GpuStemmer gpu_stemmer_named(const std::string& name);

struct GpuAnalysisInput {
    std::string_view text;            // the documents' bytes, back to back (the caller keeps them alive)
    std::vector<uint64_t> offsets;    // per document: where it starts in `text`, increasing
    std::vector<uint32_t> lengths;    // per document: its bytes; documents do not overlap
    std::vector<uint8_t> html;        // per document: 1 when the CONTENT.md §3 rules apply
    std::vector<std::string> stopwords;  // lowercased (AnalysisSettings::stopwords)
    GpuStemmer stemmer = GpuStemmer::porter;
    bool positional = false;
    // Or, for documents that lie apart in memory: `text` empty and one piece
    // per document (its bytes, which the caller keeps alive), offsets and
    // lengths laying them back to back from 0. The analyzer gathers them
    // straight into its pinned staging buffer: no copy of the batch first.
    std::vector<std::string_view> pieces;
    // Beside `pieces`, optionally: per document the address of the same
    // bytes in the memory of GPU `pieces_device` (null where they are on
    // the host only: a GPU-inflated block's, TextBlock::device_text). An
    // analyzer on that GPU copies those on the device instead of uploading
    // them; every other analyzer reads `pieces`.
    std::vector<const char*> device_pieces;
    int pieces_device = -1;
    // Or null: kCollections flags of the collections whose terms should
    // stay on the device (GpuAnalysisResult::resident) for a GPU indexer
    // there. The analyzer may bring them back anyway (no buffer free, or
    // the host reference): the result says which it did.
    const uint8_t* keep_on_device = nullptr;

    size_t documents() const { return offsets.size(); }
    // The bytes of the text the analysis runs over: `text`, or the pieces
    // back to back.
    uint64_t text_size() const {
        if (pieces.empty() || offsets.empty()) return text.size();
        return offsets.back() + lengths.back();
    }
    // Copies the text (`text`, or the pieces) to `out`, text_size() bytes.
    void copy_text_to(char* out) const;
};

// The terms of every document in the batch's own layout, which is a
// ParsedBatch's (include/invidx/messages.hpp): one Term per unique term of
// each document, documents in order and each one's terms in order of first
// occurrence, as DocumentTerms (analysis/analyzer.hpp) orders them; a Term
// has TermOccurrence's fields and layout, its term_offset into `bytes` and its
// positions_offset into `positions` (0 unless positional). Document d's terms
// are terms[term_begin[d], term_begin[d + 1]), its bytes
// [byte_begin[d], byte_begin[d + 1]) and its positions
// [position_begin[d], position_begin[d + 1]).
struct GpuAnalysisResult {
    using Term = document_passes::BatchTerm;
    std::vector<Term> terms;
    std::string bytes;
    std::vector<uint32_t> positions;
    std::vector<uint64_t> term_begin;      // documents + 1 entries, from 0
    std::vector<uint64_t> byte_begin;      // documents + 1 entries, from 0
    std::vector<uint64_t> position_begin;  // documents + 1 entries, from 0 (all 0 unless positional)
    std::vector<uint32_t> lengths;         // per document: sum of tf (CONTENT.md §7)
    std::vector<uint64_t> tokens;          // per document: kept tokens, stop words included
    // When set, the terms of the input's keep_on_device collections are
    // there, on the device, and not in `terms`, which holds the others in
    // the same order; term_begin still counts every term of a document,
    // and byte_begin is empty.
    std::shared_ptr<const ResidentTerms> resident;

    size_t documents() const { return lengths.size(); }
};

// Analyzes the documents of `input` on GPU `device`, one thread per document.
// Throws invidx::Error naming the device when it cannot be used, or when
// `input` is malformed. One batch: a stream of batches goes through a
// GpuBatchAnalyzer, which keeps its buffers.
GpuAnalysisResult gpu_analyze_batch(int device, const GpuAnalysisInput& input);

// Memory a batch analyzer holds, in bytes: now, and at most so far.
struct GpuAnalyzerMemory {
    uint64_t device_bytes = 0;
    uint64_t peak_device_bytes = 0;
    uint64_t pinned_host_bytes = 0;
};

// Analyzes one batch after another, as gpu_analyze_batch does, keeping its
// stream, pinned staging buffers and device arrays from batch to batch (they
// grow to the largest batch seen, nothing more): no allocation per batch,
// and copies that are truly asynchronous. One host thread at a time; two
// analyzers on one GPU, driven by two threads, overlap one's copies and host
// work with the other's kernels.
// Where an analyzer's time went, summed over its batches: seconds of the
// device's stream (copies in, pass 1, pass 2, copies out, from CUDA
// events) and of the calling thread inside analyze() (which includes
// waiting for the device and packing the result).
struct GpuAnalyzerTimes {
    uint64_t batches = 0;
    double upload_seconds = 0;
    double pass1_seconds = 0;
    double pass1_markup_seconds = 0;  // of which: candidates, constructs kept and painted
    double pass1_candidates_seconds = 0;  //   of which: candidates found and their ends
    double pass1_walk_seconds = 0;        //   of which: the walk per document
    double pass1_tokens_seconds = 0;  // token starts found
    double pass1_terms_seconds = 0;   // tokens lowered, stop words, Porter
    double pass2_seconds = 0;
    double download_seconds = 0;
    // The stream idle inside pass 1 and between the passes while the
    // calling thread waited for the counts it reads back (the token count,
    // the per-document counts) and queued the next steps: how late the
    // thread sees the device's work end, and how long it takes to go on.
    double readback_idle_seconds = 0;
    double pack_seconds = 0;
    double host_upload_seconds = 0;  // the calling thread staging the batch: its text gathered into page-locked memory, the copies queued
    double analyze_seconds = 0;
    uint64_t resident_batches = 0;      // batches whose indexer's terms stayed on the device
    uint64_t resident_terms = 0;        // terms that stayed
    uint64_t downloaded_terms = 0;      // terms brought back to the host
    uint64_t resident_unavailable = 0;  // batches that asked, but every buffer was in use
    uint64_t device_text_bytes = 0;     // text copied on the device from GPU-inflated blocks (device_pieces), not uploaded

    // Summed over slots, or taken apart between two readings.
    GpuAnalyzerTimes& add(const GpuAnalyzerTimes& other, double sign = 1) {
        batches = sign > 0 ? batches + other.batches : batches - other.batches;
        upload_seconds += sign * other.upload_seconds;
        pass1_seconds += sign * other.pass1_seconds;
        pass1_markup_seconds += sign * other.pass1_markup_seconds;
        pass1_candidates_seconds += sign * other.pass1_candidates_seconds;
        pass1_walk_seconds += sign * other.pass1_walk_seconds;
        pass1_tokens_seconds += sign * other.pass1_tokens_seconds;
        pass1_terms_seconds += sign * other.pass1_terms_seconds;
        pass2_seconds += sign * other.pass2_seconds;
        download_seconds += sign * other.download_seconds;
        readback_idle_seconds += sign * other.readback_idle_seconds;
        pack_seconds += sign * other.pack_seconds;
        host_upload_seconds += sign * other.host_upload_seconds;
        analyze_seconds += sign * other.analyze_seconds;
        const auto count = [sign](uint64_t a, uint64_t b) { return sign > 0 ? a + b : a - b; };
        resident_batches = count(resident_batches, other.resident_batches);
        resident_terms = count(resident_terms, other.resident_terms);
        downloaded_terms = count(downloaded_terms, other.downloaded_terms);
        resident_unavailable = count(resident_unavailable, other.resident_unavailable);
        device_text_bytes = count(device_text_bytes, other.device_text_bytes);
        return *this;
    }
};

class GpuBatchAnalyzer {
public:
    virtual ~GpuBatchAnalyzer() = default;
    virtual GpuAnalysisResult analyze(const GpuAnalysisInput& input) = 0;
    virtual GpuAnalyzerMemory memory() const = 0;
    virtual GpuAnalyzerTimes times() const { return {}; }
    // The GPU it runs on; -1 for the host reference (which reads no device_pieces).
    virtual int device_ordinal() const { return -1; }
};

// An analyzer on GPU `device`; throws invidx::Error naming it when it cannot
// be used (or in a build without CUDA).
std::unique_ptr<GpuBatchAnalyzer> create_gpu_batch_analyzer(int device);

// What gpu_analyze_batch computes, computed on the host by the same
// per-document code and the same batch layout: the reference its kernels are
// checked against, usable without a GPU.
GpuAnalysisResult analyze_batch_on_host(const GpuAnalysisInput& input);

// Whether two results are the same in every field (what a GPU result must
// be against the host reference).
bool same_analysis_result(const GpuAnalysisResult& a, const GpuAnalysisResult& b);

}  // namespace invidx
