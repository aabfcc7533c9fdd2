// One query of a batch: its result, or why it could not run. A QueryError
// (an unterminated quote, a phrase on an index without positions, a phrase
// on the GPU) belongs to its query alone, so a batch answers every other
// query and keeps the message here; any other error (a damaged index)
// still ends the batch.
#pragma once

#include <optional>
#include <string>

#include "query/search_result.hpp"

namespace invidx {

struct SearchAttempt {
    SearchResult result;               // empty when `error` is set
    std::optional<std::string> error;  // the QueryError's message

    bool answered() const { return !error.has_value(); }
};

}  // namespace invidx
