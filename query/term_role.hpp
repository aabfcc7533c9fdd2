// What a query term's clauses ask of a document (docs/QUERY.md, "Query syntax").
#pragma once

#include <cstdint>

namespace invidx {

enum class TermRole : uint8_t {
    kOptional,    // adds to the score; without required terms, a result holds one at least
    kRequired,    // `+term`, `a AND b`, or a phrase's word: every result holds it
    kProhibited,  // `-term`, `NOT term`: no result holds it; it adds nothing
};

}  // namespace invidx
