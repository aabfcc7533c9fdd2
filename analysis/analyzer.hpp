// Document analysis (CONTENT.md §3-§4): text -> tokens -> terms with tf (and
// positions), the per-document input of the index stage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "invidx/analysis_settings.hpp"
#include "analysis/token_cache.hpp"
#include "analysis/token_scan.hpp"

namespace invidx {

// The terms of one document, laid out for copying into a ParsedBatch.
struct DocumentTerms {
    struct Term {
        uint32_t term_offset;           // into `bytes`
        uint32_t term_length;
        uint32_t tf;
        uint32_t collection;            // CONTENT.md §8
        uint32_t first_position_index;  // into `positions` (when positional)
    };
    std::vector<Term> terms;            // unique terms, in order of first occurrence
    std::string bytes;                  // term bytes, back to back
    std::vector<uint32_t> positions;    // positional only: each term's tf positions,
                                        // increasing, from its first_position_index
    uint32_t length = 0;                // sum of tf (CONTENT.md §7)
    uint64_t tokens = 0;                // kept tokens, stop words included (positions used)

    void clear();
    std::string_view term(const Term& t) const { return std::string_view(bytes).substr(t.term_offset, t.term_length); }
};

// How analyze() finds the tokens of a text (CONTENT.md §3-4). Both give the same
// tokens; the scalar scan (strip_html + tokenize) is the reference and the
// only one of a build without Highway. With `vector`, documents over 16 MiB
// still take the scalar scan, which needs less memory.
enum class TokenScan { scalar, vector };

// The vector scan when this build has it, else the scalar one.
TokenScan default_token_scan();

// One per thread (it owns a libstemmer handle and scratch tables). In the
// steady state analyze() allocates nothing per token: the term table, the
// HTML buffer and the output vectors are reused from document to document.
class Analyzer {
public:
    explicit Analyzer(const AnalysisSettings& settings, TokenScan scan = default_token_scan());

    // Replaces `out` with the terms of `text`; `html` applies CONTENT.md §3 first.
    // With settings().pre_weighted, `text` is a term vector as the framer
    // wrote it, and its terms are taken verbatim (term_vector_terms.hpp).
    void analyze(std::string_view text, bool html, DocumentTerms& out);

    // The terms of a query, in order, duplicates kept (no HTML rules): how
    // `invidx term` and query tools see a word the way documents do. With
    // pre_weighted, its whitespace-separated words, verbatim.
    std::vector<std::string> analyze_query(std::string_view text);

    const AnalysisSettings& settings() const { return settings_; }
    TokenScan token_scan() const { return scan_; }

private:
    // Index of `term` (whose hash_term() is `h`) in out.terms, added with tf
    // 0 when new.
    uint32_t find_or_add(std::string_view term, uint64_t h, DocumentTerms& out);
    void start_table(size_t max_terms);
    void grow_table(const DocumentTerms& out);
    void lay_out_positions(DocumentTerms& out);

    AnalysisSettings settings_;
    TokenScan scan_;
    TokenScanner scanner_;  // the vector scan's buffers
    TokenCache cache_;  // stop word test and stem of recent tokens, and their terms here
    std::string html_text_;

    // Open-addressing table from term to its index in DocumentTerms::terms.
    // A slot belongs to the current document only if its stamp matches, so
    // a new document starts with an empty table without clearing it.
    struct Slot {
        uint32_t stamp = 0;
        uint32_t term_index = 0;
        uint64_t hash = 0;  // of the term, to pass over other terms at once
    };
    std::vector<Slot> slots_;
    std::vector<uint64_t> term_hashes_;  // per term of the current document, for rehashing
    uint32_t stamp_ = 0;
    uint64_t mask_ = 0;

    // (term index, position) of each indexed token, when positional.
    std::vector<std::pair<uint32_t, uint32_t>> occurrences_;
    std::vector<uint32_t> cursor_;
};

}  // namespace invidx
