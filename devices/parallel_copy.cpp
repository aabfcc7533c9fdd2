#include "devices/parallel_copy.hpp"

#include <algorithm>
#include <cstring>

#include <oneapi/tbb/parallel_for.h>

namespace invidx {

void parallel_copy(void* to, const void* from, uint64_t bytes) {
    constexpr uint64_t kPiece = uint64_t{1} << 20;  // large enough that scheduling is noise
    if (bytes <= kPiece) {
        std::memcpy(to, from, bytes);
        return;
    }
    const uint64_t pieces = (bytes + kPiece - 1) / kPiece;
    oneapi::tbb::parallel_for(uint64_t{0}, pieces, [&](uint64_t i) {
        const uint64_t at = i * kPiece;
        std::memcpy(static_cast<char*>(to) + at, static_cast<const char*>(from) + at, std::min(kPiece, bytes - at));
    });
}

}  // namespace invidx
