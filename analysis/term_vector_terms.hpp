// The parsers' side of pre-weighted documents (FORMAT.md "Pre-weighted
// documents (jsonvector)"): a document's text is its term vector in the
// canonical form the framer wrote (nodes/frame/term_vector.hpp), a JSON
// object of terms and their tfs, and its terms are those, verbatim.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"

namespace invidx {

// Replaces `out` with the terms of `text`, each with its tf and CONTENT.md
// §8 collection, in the text's order; the length is the sum of the tfs. No
// positions. Throws invidx::Error when `text` is not a canonical vector
// (only text that did not come from the framer can be).
void read_term_vector(std::string_view text, DocumentTerms& out);

// The terms of a query on a pre-weighted index: its words split at ASCII
// whitespace, each taken verbatim (no lowercasing, stop words or stemming).
std::vector<std::string> split_verbatim_query(std::string_view text);

}  // namespace invidx
