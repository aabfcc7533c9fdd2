// The kernels and device functors of GPU document analysis
// (devices/gpu_analysis.hpp), apart from their dispatch: each is one step of
// analysis/parallel_token_pass.hpp (pass 1) or analysis/parallel_group_pass.hpp
// (pass 2) over the batch, grid-stride, one thread per byte, per markup
// candidate, per token or per occurrence, or a warp per candidate or per
// document. analysis_passes.cu launches them, in its passes' order, and is
// the one file that includes this one (the kernels are defined here).
#pragma once

#include <cstdint>

#include "analysis/document_passes.hpp"
#include "analysis/html_rules.hpp"
#include "analysis/parallel_group_pass.hpp"
#include "analysis/parallel_token_pass.hpp"
#include "analysis/stopword_table.hpp"
#include "invidx/collections.hpp"

namespace invidx::cuda::analysis_kernels {

using document_passes::BatchTerm;
using document_passes::TermOccurrence;

namespace steps = parallel_token_pass;
namespace group = parallel_group_pass;

// Grid-stride index of the calling thread and the grid's stride.
__device__ inline uint64_t thread_index() { return uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ inline uint64_t grid_threads() { return uint64_t{gridDim.x} * blockDim.x; }

// ---- Pass 1 (parallel_token_pass.hpp).

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

// ---- Pass 2 (parallel_group_pass.hpp).

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

// ---- The terms kept on the device, selected.

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

}  // namespace invidx::cuda::analysis_kernels
