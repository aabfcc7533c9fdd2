// The batch layout of GPU document analysis (devices/gpu_analysis.hpp),
// host side: input checks, the per-document regions of the passes'
// arrays, and packing the passes' output into a GpuAnalysisResult. The
// device path (devices/cuda/analysis/gpu_analysis.cu) and the host reference
// (analyze_batch_on_host) share all of it, so they differ only in where the
// per-document passes (analysis/document_passes.hpp) run. C++17, no CUDA.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/document_passes.hpp"
#include "devices/gpu_analysis.hpp"

namespace invidx::analysis_batch {

// Throws invidx::Error unless `input` describes documents inside its text,
// increasing and not overlapping (pass 1 writes each document's terms over
// its own bytes of a parallel array).
void check_input(const GpuAnalysisInput& input);

// Pass 1: document d's occurrences are [begin[d], begin[d + 1]), room for
// token_bound() of its length.
std::vector<uint64_t> occurrence_regions(const GpuAnalysisInput& input);

// Pass 2, once pass 1 has counted each document's indexed tokens: its
// occurrence terms, terms and positions are [begin[d], begin[d] + indexed[d])
// and its table [table_begin[d], table_begin[d + 1]).
struct TermRegions {
    std::vector<uint64_t> begin;        // documents + 1 entries
    std::vector<uint64_t> table_begin;  // documents + 1 entries
};
TermRegions term_regions(const std::vector<uint32_t>& indexed);

// What the per-document passes left, in host memory: the term bytes parallel to
// input.text, per-document counts, and the grouped terms and positions in
// the regions of `regions`.
struct PassOutput {
    const unsigned char* term_bytes = nullptr;
    const uint32_t* indexed = nullptr;
    const uint32_t* tokens = nullptr;
    const uint32_t* unique = nullptr;
    const document_passes::GroupedTerm* terms = nullptr;
    const uint32_t* positions = nullptr;  // positional only
};
GpuAnalysisResult pack_result(const GpuAnalysisInput& input, const TermRegions& regions, const PassOutput& output);

// What the device's passes leave when they lay the terms out themselves
// (parallel_group_pass.hpp's write_batch_term): the batch's terms, term
// bytes and positions already in GpuAnalysisResult's layout, and the
// per-document counts. Packing is then copies and a loop over documents.
struct BatchOutput {
    const uint32_t* indexed = nullptr;
    const uint32_t* tokens = nullptr;
    const uint32_t* unique = nullptr;
    const document_passes::BatchTerm* terms = nullptr;
    uint64_t term_count = 0;
    const unsigned char* term_bytes = nullptr;
    uint64_t term_byte_count = 0;
    const uint32_t* positions = nullptr;  // positional only
    uint64_t position_count = 0;
    // The terms kept on the device are not among `terms`: the documents'
    // term counts (`unique`) cover both, and no byte_begin can be laid out.
    bool some_terms_on_device = false;
};
GpuAnalysisResult pack_batch_result(const GpuAnalysisInput& input, const BatchOutput& output);

}  // namespace invidx::analysis_batch
