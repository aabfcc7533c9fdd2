#include "query/impact_block_cursor.hpp"

#include <span>

#include "invidx/error.hpp"

namespace invidx {

ImpactBlockCursor::ImpactBlockCursor(const QueryList& list) : cursor_(list, 0.0) {
    ensure(list.has_impacts(), "ImpactBlockCursor: the query layout has no impacts (invidx weight makes them)");
}

void ImpactBlockCursor::decode_impacts() {
    const size_t k = cursor_.block();
    cursor_.list().decode_impacts(k, std::span(impacts_.data(), cursor_.list().blocks()[k].postings));
    ++impact_blocks_decoded_;
    impact_block_ = k;
}

}  // namespace invidx
