// Pass 1 of document analysis (document_passes.hpp) cut into steps that run
// one GPU thread per byte, per markup candidate or per token instead of one
// per document, with the same result as collect_document_tokens. One
// implementation for host and device: the kernels
// (devices/cuda/analysis/analysis_kernels.cuh) call these functions, and the CPU
// tests run the same steps in loops against the per-document pass.
//
// Why it is exact, step by step:
//  1. Markup candidates are the '<' and '&' of HTML documents. Each one's
//     construct end (html_rules::construct_end) depends only on the bytes
//     after it, so all are computed at once, each searching at most a few
//     hundred bytes alone, then those still open at most kWarpSearchCap
//     bytes with a warp searching 32 bytes a step (kUnresolved past that: a
//     '<' inside a long script need not search to its end, and one thread
//     scanning kilobytes byte by byte kept a whole batch waiting).
//  2. A walk per document over its candidates in order keeps those the
//     sequential scan would reach (the first candidate at or after the last
//     construct's end), computing exactly the few unresolved ones it keeps.
//     It touches candidates only, not text.
//  3. Bytes inside kept constructs are painted as covered: separators.
//  4. Whether a byte belongs to a token is then local. UTF-8 needs no
//     sequential decode: a non-continuation byte always starts a character
//     (no well-formed sequence contains one), and a continuation byte belongs
//     to the well-formed character of the lead at most 3 bytes before it, or
//     is a separator. A construct starts and ends at ASCII bytes, so no
//     character spans its edge.
//  5. A token is a maximal run of token bytes; runs over kMaxTokenBytes are
//     dropped and take no position. Token starts are compacted in text order,
//     so a token's position is its index minus its document's first.
//  6. Each token is lowered, checked against the stop words and stemmed in
//     place, then its occurrence is written at its index among its
//     document's indexed tokens (an exclusive scan over the batch).
#pragma once

#include <cstdint>

#include "analysis/document_passes.hpp"
#include "analysis/html_rules.hpp"
#include "analysis/porter.hpp"
#include "analysis/stopword_table.hpp"
#include "analysis/token_bytes.hpp"
#include "invidx/host_device.hpp"

namespace invidx::parallel_token_pass {

// make_term_of's answer for a stop word (a stem may be empty: Porter takes
// some tokens of digits and marks to nothing, so 0 cannot say it).
inline constexpr uint32_t kStopWord = 0xFFFFFFFFu;
// A candidate whose construct end lies beyond its search cap.
inline constexpr uint32_t kUnresolved = 0xFFFFFFFFu;
// Bytes a candidate searches in step 1: alone, then with a warp. At least
// kMinSearchCap, so that a character reference (at most 33 bytes) and the
// checks right after a '<' never meet the cap.
inline constexpr uint32_t kThreadSearchCap = 256;
inline constexpr uint32_t kWarpSearchCap = 16384;
inline constexpr uint32_t kMinSearchCap = 64;

// The batch as the steps see it: documents at increasing offsets of `text`,
// not overlapping (gaps allowed), all below 2^32 bytes.
struct BatchView {
    const unsigned char* text = nullptr;
    const uint64_t* offsets = nullptr;
    const uint32_t* lengths = nullptr;
    const uint8_t* html = nullptr;
    uint32_t documents = 0;
    // Optional (null: document_of searches every document): for each chunk
    // of kDocumentChunkBytes text bytes, the first document that ends after
    // the chunk starts, chunks(text bytes) + 1 entries (document_chunks).
    // Steps 1-3 find the document of every markup candidate, step 4 of
    // every byte; a search over all of a batch's documents takes 15 steps
    // for tens of thousands, one through the index only the few documents
    // near the byte, which counts on large batches (docs/PERFORMANCE.md,
    // "GPU parsers").
    const uint32_t* chunk_first = nullptr;
};

inline constexpr uint32_t kDocumentChunkShift = 12;
inline constexpr uint64_t kDocumentChunkBytes = uint64_t{1} << kDocumentChunkShift;

INVIDX_HOST_DEVICE inline uint64_t document_chunk_count(uint64_t text_bytes) {
    return (text_bytes + kDocumentChunkBytes - 1) / kDocumentChunkBytes;
}

// Fills BatchView::chunk_first for documents at `offsets` of `lengths`
// (increasing, not overlapping) in `text_bytes` bytes: document_chunk_count
// + 1 entries, the last `documents`.
INVIDX_HOST_DEVICE inline void document_chunks(const uint64_t* offsets, const uint32_t* lengths, uint32_t documents,
                                               uint64_t text_bytes, uint32_t* chunk_first) {
    const uint64_t chunks = document_chunk_count(text_bytes);
    uint32_t d = 0;
    for (uint64_t c = 0; c < chunks; ++c) {
        const uint64_t start = c << kDocumentChunkShift;
        while (d < documents && offsets[d] + lengths[d] <= start) ++d;
        chunk_first[c] = d;
    }
    chunk_first[chunks] = documents;
}

// The document holding text byte `i`, or `documents` when none does.
INVIDX_HOST_DEVICE inline uint32_t document_of(const BatchView& batch, uint64_t i) {
    // The first document starting after i, searched among all or, with the
    // chunk index, among the documents from the first that ends after i's
    // chunk starts (every one before it ends before i) to the one after the
    // first that ends after the next chunk starts (every one after that
    // starts after i).
    uint32_t low = 0, high = batch.documents;  // first document starting after i
    if (batch.chunk_first != nullptr) {
        const uint64_t c = i >> kDocumentChunkShift;
        low = batch.chunk_first[c];
        high = batch.chunk_first[c + 1] + 1 < batch.documents ? batch.chunk_first[c + 1] + 1 : batch.documents;
    }
    while (low < high) {
        const uint32_t middle = low + (high - low) / 2;
        if (batch.offsets[middle] <= i) low = middle + 1;
        else high = middle;
    }
    if (low == 0) return batch.documents;
    const uint32_t d = low - 1;
    return i - batch.offsets[d] < batch.lengths[d] ? d : batch.documents;
}

// First index of the `count` increasing `positions` at or after `value`.
INVIDX_HOST_DEVICE inline uint32_t lower_bound(const uint32_t* positions, uint32_t count, uint64_t value) {
    uint32_t low = 0, high = count;
    while (low < high) {
        const uint32_t middle = low + (high - low) / 2;
        if (positions[middle] < value) low = middle + 1;
        else high = middle;
    }
    return low;
}

// Step 1's selection: a '<' or '&' of an HTML document.
INVIDX_HOST_DEVICE inline bool is_markup_candidate(const BatchView& batch, uint64_t i) {
    const unsigned char byte = batch.text[i];
    if (byte != '<' && byte != '&') return false;
    const uint32_t d = document_of(batch, i);
    return d < batch.documents && batch.html[d] != 0;
}

// Step 1: the end, relative to its document, of the construct the
// candidate at text byte `i` would start; 0 when it starts none,
// kUnresolved when the answer lies past `cap` bytes. `search` makes the
// searches (html_rules::ScalarSearch, or a warp's).
template <class Search = html_rules::ScalarSearch>
INVIDX_HOST_DEVICE uint32_t capped_construct_end(const BatchView& batch, uint64_t i, uint32_t cap,
                                                 const Search& search = Search{}) {
    if (cap < kMinSearchCap) cap = kMinSearchCap;
    const uint32_t d = document_of(batch, i);
    const unsigned char* document = batch.text + batch.offsets[d];
    const uint32_t length = batch.lengths[d];
    const auto at = static_cast<uint32_t>(i - batch.offsets[d]);
    const uint32_t limit = length - at > cap ? at + cap : length;
    const uint32_t end = html_rules::construct_end<uint32_t>(document, limit, at, search);
    // A search cut short ends at the limit: "runs to the end" then only means
    // "not found yet" (a construct ending right at the limit is recomputed too).
    if (limit < length && end == limit) return kUnresolved;
    return end;
}

// Step 2 for document `d`: `ends` holds step 1's results for the batch's
// `count` candidates (text positions, increasing); afterwards it holds each
// kept construct's end and 0 for every other candidate of the document.
template <class Search = html_rules::ScalarSearch>
INVIDX_HOST_DEVICE void keep_reached_constructs(const BatchView& batch, uint32_t d, const uint32_t* candidates,
                                                uint32_t count, uint32_t* ends, const Search& search = Search{}) {
    if (batch.html[d] == 0) return;
    const uint64_t offset = batch.offsets[d];
    const uint32_t length = batch.lengths[d];
    const unsigned char* document = batch.text + offset;
    const uint32_t last = lower_bound(candidates, count, offset + length);
    uint32_t covered_to = 0;
    for (uint32_t k = lower_bound(candidates, count, offset); k < last; ++k) {
        const auto at = static_cast<uint32_t>(candidates[k] - offset);
        if (at < covered_to) {
            ends[k] = 0;
            continue;
        }
        uint32_t end = ends[k];
        if (end == kUnresolved) end = html_rules::construct_end<uint32_t>(document, length, at, search);
        ends[k] = end;
        if (end != 0) covered_to = end;
    }
}

// Step 4: whether text byte `i`, of document `d` and not covered by a
// construct, is a token byte (what for_each_token puts into a token).
INVIDX_HOST_DEVICE inline bool is_token_byte(const BatchView& batch, const uint8_t* covered, uint32_t d, uint64_t i) {
    if (covered[i] != 0) return false;
    const unsigned char byte = batch.text[i];
    if (byte < 0x80) return utf8::ascii_token_byte(byte) != 0;
    const unsigned char* end = batch.text + batch.offsets[d] + batch.lengths[d];
    if (!utf8::is_continuation(byte)) {
        const utf8::Character character = utf8::classify_multibyte(batch.text + i, end);
        return character.bytes > 1 && character.token;
    }
    const uint64_t first = batch.offsets[d];
    for (uint32_t back = 1; back <= 3 && i - first >= back; ++back) {
        const unsigned char lead = batch.text[i - back];
        if (lead < 0x80) return false;
        if (utf8::is_continuation(lead)) continue;
        const utf8::Character character = utf8::classify_multibyte(batch.text + i - back, end);
        return character.bytes > back && character.token;
    }
    return false;
}

// Token bytes from text byte `i` on, within document `d`, counting to at
// most kMaxTokenBytes + 1 (enough to tell a kept token from a dropped one).
INVIDX_HOST_DEVICE inline uint32_t token_run(const BatchView& batch, const uint8_t* covered, uint32_t d, uint64_t i) {
    const uint64_t end = batch.offsets[d] + batch.lengths[d];
    uint32_t run = 0;
    while (i + run < end && run <= kMaxTokenBytes && is_token_byte(batch, covered, d, i + run)) ++run;
    return run;
}

// Step 5's selection: text byte `i` starts a token that is kept.
// The rule itself, byte by byte: the kernels select over token_byte_flag's
// flags with starts_kept_run instead (a byte's document and UTF-8 decoded
// once, not again for every byte of a run while the warp's other lanes
// wait), and the tests hold that to this. (Rejecting covered and separator
// bytes here before finding the document was tried: slower, its warps
// diverge.)
INVIDX_HOST_DEVICE inline bool starts_kept_token(const BatchView& batch, const uint8_t* covered, uint64_t i) {
    const uint32_t d = document_of(batch, i);
    if (d >= batch.documents || !is_token_byte(batch, covered, d, i)) return false;
    if (i > batch.offsets[d] && is_token_byte(batch, covered, d, i - 1)) return false;
    return token_run(batch, covered, d, i) <= kMaxTokenBytes;
}

// Step 4 as a byte array, for step 5 to read: 0 where text byte `i` is no
// token byte, 1 where it is one, 2 where it is one and its document's first
// byte (a run of token bytes never continues into the next document).
INVIDX_HOST_DEVICE inline uint8_t token_byte_flag(const BatchView& batch, const uint8_t* covered, uint64_t i) {
    const uint32_t d = document_of(batch, i);
    if (d >= batch.documents || !is_token_byte(batch, covered, d, i)) return 0;
    return i == batch.offsets[d] ? 2 : 1;
}

// The token bytes from text byte `i` (a token byte) on, over the flags,
// counting to at most kMaxTokenBytes + 1: token_run's answer.
INVIDX_HOST_DEVICE inline uint32_t flag_run(const uint8_t* flags, uint64_t bytes, uint64_t i) {
    uint32_t run = 1;
    while (i + run < bytes && run <= kMaxTokenBytes && flags[i + run] == 1) ++run;
    return run;
}

// Step 5's selection over step 4's flags (`bytes` of them), what
// starts_kept_token answers: text byte `i` starts a run of token bytes of
// at most kMaxTokenBytes. The lookups of the byte's document and the UTF-8
// decoding were done once per byte by the flags, not again for every byte of
// every run measured here.
INVIDX_HOST_DEVICE inline bool starts_kept_run(const uint8_t* flags, uint64_t bytes, uint64_t i) {
    const uint8_t flag = flags[i];
    if (flag == 0) return false;
    if (flag == 1 && i > 0 && flags[i - 1] != 0) return false;
    return flag_run(flags, bytes, i) <= kMaxTokenBytes;
}

// Step 6 for the token of `length` bytes starting at text byte `start`: its
// term (lowered, stemmed unless a stop word) over its bytes of `term_bytes`
// (parallel to the text). Returns the term's length, kStopWord for a stop word.
INVIDX_HOST_DEVICE inline uint32_t make_term_of(const BatchView& batch, const StopwordTable& stopwords, bool stem,
                                                uint64_t start, uint32_t length, unsigned char* term_bytes) {
    // Lowered and stemmed in a local copy: Porter reads and rewrites the
    // word many times, which a GPU does far faster in its thread's own
    // memory than in the global term array.
    unsigned char word[kMaxTokenBytes];
    for (uint32_t j = 0; j < length; ++j) {
        const unsigned char byte = batch.text[start + j];
        word[j] = byte < 0x80 ? utf8::ascii_token_byte(byte) : byte;
    }
    if (stopwords.contains(word, length)) return kStopWord;  // CONTENT.md §5: before stemming
    const uint32_t term_length = stem ? porter_stem_in_place(word, length) : length;
    for (uint32_t j = 0; j < term_length; ++j) term_bytes[start + j] = word[j];
    return term_length;
}

// make_term_of for the token starting at `start`, its length read from
// step 4's flags (no document lookup and no UTF-8 decoding again).
INVIDX_HOST_DEVICE inline uint32_t make_term_from_flags(const BatchView& batch, const uint8_t* flags, uint64_t bytes,
                                                        const StopwordTable& stopwords, bool stem, uint64_t start,
                                                        unsigned char* term_bytes) {
    return make_term_of(batch, stopwords, stem, start, flag_run(flags, bytes, start), term_bytes);
}

// The per-document result, once every token has its term: `token_starts`
// (count tokens, increasing), `first_token` (documents + 1 entries: each
// document's first token index, and `count` last), `term_lengths`
// (kStopWord for stop words) and `indexed_before` (count + 1 entries: indexed tokens
// before each token). Writes token `t`'s occurrence where
// collect_document_tokens puts it.
INVIDX_HOST_DEVICE inline void write_occurrence(const BatchView& batch, const uint32_t* token_starts,
                                                const uint32_t* first_token, const uint32_t* term_lengths,
                                                const uint32_t* indexed_before, const uint64_t* occurrence_begin,
                                                uint32_t t, document_passes::TermOccurrence* occurrences) {
    if (term_lengths[t] == kStopWord) return;
    const uint32_t d = document_of(batch, token_starts[t]);
    const uint64_t slot = occurrence_begin[d] + (indexed_before[t] - indexed_before[first_token[d]]);
    occurrences[slot] = document_passes::TermOccurrence{static_cast<uint32_t>(token_starts[t] - batch.offsets[d]),
                                                        term_lengths[t], t - first_token[d]};
}

// Document `d`'s counts, as collect_document_tokens returns them.
INVIDX_HOST_DEVICE inline document_passes::TokenCounts document_counts(const uint32_t* first_token,
                                                                       const uint32_t* indexed_before, uint32_t d) {
    return document_passes::TokenCounts{indexed_before[first_token[d + 1]] - indexed_before[first_token[d]],
                                        first_token[d + 1] - first_token[d]};
}

}  // namespace invidx::parallel_token_pass
