#include "analysis/collection.hpp"

#include "invidx/error.hpp"

namespace invidx {
namespace {

void check_collection(uint32_t collection) {
    // Not ensure(): the indexers call this once per slice of every batch, and
    // ensure() would build the message each time.
    if (collection >= kCollections) [[unlikely]] {
        throw Error("collection " + std::to_string(collection) + " out of range (0.." +
                    std::to_string(kCollections - 1) + ")");
    }
}

}  // namespace

uint32_t collection_prefix_length(uint32_t collection) {
    check_collection(collection);
    return collection >= kHashedCollections ? kCollectionPrefixBytes : 0;
}

std::string collection_prefix(uint32_t collection) {
    check_collection(collection);
    if (collection < kHashedCollections) return {};
    const uint32_t letters = collection - kHashedCollections;
    return {static_cast<char>('a' + letters / 676), static_cast<char>('a' + letters / 26 % 26),
            static_cast<char>('a' + letters % 26)};
}

}  // namespace invidx
