#include "nodes/index/batch_checks.hpp"

#include "invidx/error.hpp"

namespace invidx {

void fail_batch(const RegroupedBatch& batch, const std::string& message) {
    throw Error("batch " + std::to_string(batch.sequence) + ": " + message,
                ErrorContext{.node = "index", .file = {}, .record = {}, .byte_offset = {}});
}

void check_slice(const RegroupedBatch& batch, const CollectionSlice& slice) {
    if (slice.collection >= kCollections) {
        fail_batch(batch, "slice names collection " + std::to_string(slice.collection) + ", out of range");
    }
    if (slice.begin > slice.end || slice.end > batch.occurrences.size()) {
        fail_batch(batch, "slice of collection " + std::to_string(slice.collection) +
                              " runs past the batch's occurrences");
    }
}

}  // namespace invidx
