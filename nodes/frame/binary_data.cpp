#include "nodes/frame/binary_data.hpp"

#include <cstring>

namespace invidx {
namespace {

bool is_binary_control(unsigned char c) {
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1B) || c == 0x7F;
}

}  // namespace

std::optional<BinaryData> find_binary_data(std::string_view start) {
    if (start.size() > kTextCheckBytes) start = start.substr(0, kTextCheckBytes);
    if (const void* nul = std::memchr(start.data(), 0, start.size())) {
        const auto at = static_cast<uint64_t>(static_cast<const char*>(nul) - start.data());
        return BinaryData{at, "a NUL byte at byte " + std::to_string(at)};
    }
    size_t controls = 0;
    size_t first = 0;
    for (size_t i = 0; i < start.size(); ++i) {
        if (!is_binary_control(static_cast<unsigned char>(start[i]))) continue;
        if (controls++ == 0) first = i;
    }
    if (controls * 16 <= start.size()) return std::nullopt;
    return BinaryData{first, std::to_string(controls) + " control characters in its first " +
                                 std::to_string(start.size()) + " bytes, the first at byte " + std::to_string(first)};
}

}  // namespace invidx
