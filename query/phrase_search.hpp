// Queries with phrases, over positional indexes. Each
// phrase is a filter: a document must hold every phrase of the query, each
// at consecutive positions (docs/QUERY.md, "Phrases"). AND also requires every
// other term; OR leaves them optional unless required (`+term`); no result
// holds a prohibited term (`-term`), which adds nothing. A document that passes is scored by
// CONTENT.md §10 over all distinct query terms, phrase words included, summed in
// query-term order as every other algorithm does (store/bm25.hpp), so a
// phrase match scores exactly what the same words score unquoted.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "store/bm25.hpp"
#include "query/phrase_query.hpp"
#include "query/query_stats.hpp"
#include "query/query_terms.hpp"
#include "query/term_role.hpp"
#include "query/topk.hpp"
#include "store/index_reader.hpp"

namespace invidx {

// Reads each present term's list whole from the run files, positions
// included (`index` must be positional; query.post holds no positions).
// `phrases` must be non-empty, their terms among `terms`; `norms` by docid.
// By term: `weights` (what BM25 multiplies the tf part by: idf · query
// weight) and `roles` (a required term must be held, a prohibited one must
// not be and adds nothing; AND requires every term not prohibited).
std::vector<ScoredDocument> phrase_search(const IndexReader& index, const QueryTerms& terms,
                                          std::span<const double> weights, std::span<const TermRole> roles,
                                          std::span<const Phrase> phrases, bool conjunctive, const Bm25& bm25,
                                          std::span<const double> norms, size_t k, QueryStats* stats);

}  // namespace invidx
