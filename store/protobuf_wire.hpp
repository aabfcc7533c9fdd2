// The few pieces of the protocol buffers wire format that CIFF needs
// (protobuf.dev/programming-guides/encoding): varints, 64-bit fixed fields
// and length-delimited fields. Written by hand so the product needs no
// protobuf library or code generator; docs/FORMAT.md explains the choice.
// Each helper follows proto3's serializer: a field holding its default
// (0, 0.0, "") is not written at all.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace invidx::protobuf {

enum class WireType : uint32_t { varint = 0, fixed64 = 1, length_delimited = 2 };

inline void put_varint(std::string& out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

inline void put_tag(std::string& out, uint32_t field, WireType type) {
    put_varint(out, (uint64_t{field} << 3) | static_cast<uint32_t>(type));
}

// int32 and int64 fields: negative values are sign-extended to 64 bits.
inline void put_int(std::string& out, uint32_t field, int64_t value) {
    if (value == 0) return;
    put_tag(out, field, WireType::varint);
    put_varint(out, static_cast<uint64_t>(value));
}

// double: written unless its bit pattern is all zero (as protobuf does).
inline void put_double(std::string& out, uint32_t field, double value) {
    const auto bits = std::bit_cast<uint64_t>(value);
    if (bits == 0) return;
    put_tag(out, field, WireType::fixed64);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

// string and embedded message fields. Strings skip when empty; an embedded
// message is always written (`always`), even when its encoding is empty.
inline void put_bytes(std::string& out, uint32_t field, std::string_view bytes, bool always = false) {
    if (bytes.empty() && !always) return;
    put_tag(out, field, WireType::length_delimited);
    put_varint(out, bytes.size());
    out.append(bytes);
}

}  // namespace invidx::protobuf
