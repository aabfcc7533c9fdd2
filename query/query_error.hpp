// A query the index cannot answer as written: an unterminated quote, or a
// phrase on an index built without positions. The user must change the query
// or rebuild the index, so tools report it as a usage error (invidx: exit 2).
#pragma once

#include <string>

#include "invidx/error.hpp"

namespace invidx {

class QueryError : public Error {
public:
    explicit QueryError(const std::string& message) : Error(message) {}
};

}  // namespace invidx
