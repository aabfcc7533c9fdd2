#include "store/codecs/bp128.hpp"

#include <algorithm>

#include "store/codecs/bit_packing.hpp"
#include "store/codecs/codec.hpp"

namespace invidx::codecs {

static_assert(IntegerCodec<BinaryPacking>);

void BinaryPacking::encode(std::span<const uint32_t> values, std::string& out) {
    for (size_t start = 0; start < values.size(); start += kGroupValues) {
        const auto group = values.subspan(start, std::min(kGroupValues, values.size() - start));
        uint32_t any_bits = 0;
        for (const uint32_t value : group) any_bits |= value;
        const uint32_t b = bit_width32(any_bits);
        out.push_back(static_cast<char>(b));
        pack(group, b, out);
    }
}

void BinaryPacking::decode(std::string_view bytes, std::span<uint32_t> decoded) {
    size_t position = 0;
    for (size_t start = 0; start < decoded.size(); start += kGroupValues) {
        const size_t count = std::min(kGroupValues, decoded.size() - start);
        if (position >= bytes.size()) fail_decode(kName, "bytes end before the bit width of a group");
        const auto b = static_cast<uint8_t>(bytes[position++]);
        if (b > 32) fail_decode(kName, "bit width " + std::to_string(b) + " is over 32");
        const size_t size = packed_bytes(count, b);
        if (bytes.size() - position < size) fail_decode(kName, "bytes end inside a group");
        if (count == kGroupValues) {
            unpack128(bytes.data() + position, b, decoded.data() + start);
        } else {
            unpack(bytes.data() + position, b, decoded.subspan(start, count));
        }
        position += size;
    }
    if (position != bytes.size()) fail_decode(kName, "trailing bytes after the last group");
}

}  // namespace invidx::codecs
