// Which documents a query ranks: those with every term, with any, or AND
// first and OR when the AND falls short.
#pragma once

namespace invidx {

// kAndOr: AND first; when it finds fewer than k documents, the OR top k
// instead (Ding et al. §8.3: an AND with enough results ranks as well as
// the OR and costs far less).
enum class QueryMode { kAnd, kOr, kAndOr };

}  // namespace invidx
