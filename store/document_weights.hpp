// BM25 term weights of documents that are not in the index, against the
// index's statistics: the use case of Wakatsuki, Keyaki & Miyazaki (a
// dictionary of known terms, a weight per (document, term)). Each term is
// looked up in a compact dictionary structure (store/term_lookup.hpp) and
// weighted per CONTENT.md §10 with the index's N, df and average length and the
// document's own length; a term the index does not know has no df, so it is
// reported as unknown instead of given an invented weight.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "store/bm25.hpp"
#include "store/index_reader.hpp"
#include "store/term_lookup.hpp"

namespace invidx {

struct DocumentTerm {
    std::string_view term;
    uint32_t tf = 0;
};

struct WeightedTerm {
    std::string_view term;
    uint32_t tf = 0;
    uint64_t term_index = 0;  // in the index's dictionary
    uint64_t df = 0;
    double weight = 0.0;      // idf(df) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
};

struct DocumentWeights {
    std::vector<WeightedTerm> known;        // in the order given
    std::vector<DocumentTerm> unknown;      // not in the index's dictionary, in the order given
    void clear() {
        known.clear();
        unknown.clear();
    }
};

class DocumentWeigher {
public:
    // The index stays open for the weigher's life.
    DocumentWeigher(const IndexReader& index, TermLookupKind dictionary, Bm25Parameters parameters);

    // `terms`: the document's distinct terms with their tfs; `length`: its
    // length (CONTENT.md §7: every term's tf, unknown terms included).
    void weigh(std::span<const DocumentTerm> terms, uint32_t length, DocumentWeights& out) const;

    const Bm25& bm25() const { return bm25_; }
    const TermLookup& dictionary() const { return lookup_; }

private:
    TermLookup lookup_;
    Bm25 bm25_;
    std::vector<uint64_t> dfs_;  // by term index: one flat read a known term
};

}  // namespace invidx
