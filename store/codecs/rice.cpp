#include "store/codecs/rice.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "store/codecs/bit_packing.hpp"
#include "store/codecs/codec.hpp"

namespace invidx::codecs {

static_assert(IntegerCodec<Rice>);

uint32_t Rice::parameter(std::span<const uint32_t> values) {
    if (values.empty()) return 0;
    uint64_t sum = 0;
    for (const uint32_t value : values) sum += value;
    const uint64_t mean = sum / values.size();  // < 2^32, so the product below fits
    const uint64_t target = mean * 69 / 100;
    return target == 0 ? 0 : static_cast<uint32_t>(std::bit_width(target)) - 1;
}

void Rice::encode(std::span<const uint32_t> values, std::string& out) {
    if (values.empty()) return;
    const uint32_t b = parameter(values);
    out.push_back(static_cast<char>(b));
    pack(values, b, out);  // the low b bits: the binary part

    uint64_t buffer = 0;  // unary part, least significant bit first
    unsigned filled = 0;
    auto flush_bytes = [&] {
        while (filled >= 8) {
            out.push_back(static_cast<char>(buffer & 0xFF));
            buffer >>= 8;
            filled -= 8;
        }
    };
    for (const uint32_t value : values) {
        uint32_t ones = value >> b;
        while (ones > 0) {
            const unsigned take = std::min(ones, 32u);
            buffer |= ((uint64_t{1} << take) - 1) << filled;
            filled += take;
            ones -= take;
            flush_bytes();
        }
        filled += 1;  // the terminating zero
        flush_bytes();
    }
    if (filled > 0) out.push_back(static_cast<char>(buffer & 0xFF));
}

void Rice::decode(std::string_view bytes, std::span<uint32_t> decoded) {
    const size_t n = decoded.size();
    if (n == 0) {
        if (!bytes.empty()) fail_decode(kName, "bytes given for an empty sequence");
        return;
    }
    if (bytes.empty()) fail_decode(kName, "no parameter byte");
    const auto b = static_cast<uint8_t>(bytes[0]);
    if (b > 31) fail_decode(kName, "parameter " + std::to_string(b) + " is over 31");
    const size_t binary_bytes = packed_bytes(n, b);
    if (bytes.size() - 1 < binary_bytes) fail_decode(kName, "bytes end inside the binary part");
    unpack(bytes.data() + 1, b, decoded);

    const char* unary = bytes.data() + 1 + binary_bytes;
    const size_t unary_bytes = bytes.size() - 1 - binary_bytes;
    const uint32_t max_quotient = std::numeric_limits<uint32_t>::max() >> b;
    size_t i = 0;
    uint64_t code_start = 0;  // bit where the current value's unary code starts
    for (size_t word_at = 0; i < n && word_at < unary_bytes; word_at += 8) {
        const size_t chunk = std::min<size_t>(8, unary_bytes - word_at);
        uint64_t word = 0;
        std::memcpy(&word, unary + word_at, chunk);
        uint64_t terminators = ~word;
        if (chunk < 8) terminators &= (uint64_t{1} << (8 * chunk)) - 1;
        while (terminators != 0 && i < n) {
            const uint64_t bit = word_at * 8 + static_cast<unsigned>(std::countr_zero(terminators));
            const uint64_t quotient = bit - code_start;
            if (quotient > max_quotient) fail_decode(kName, "value over 32 bits");
            decoded[i++] |= static_cast<uint32_t>(quotient) << b;
            code_start = bit + 1;
            terminators &= terminators - 1;
        }
    }
    if (i < n) fail_decode(kName, "unary part ends before the last value");
    const size_t used_bytes = (code_start + 7) / 8;
    if (used_bytes != unary_bytes) fail_decode(kName, "trailing bytes after the unary part");
    if (code_start % 8 != 0 && (static_cast<uint8_t>(unary[used_bytes - 1]) >> (code_start % 8)) != 0) {
        fail_decode(kName, "unary part ends inside a value");
    }
}

}  // namespace invidx::codecs
