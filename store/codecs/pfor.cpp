#include "store/codecs/pfor.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "store/codecs/vbyte.hpp"
#include "store/codecs/bit_packing.hpp"
#include "store/codecs/codec.hpp"

namespace invidx::codecs {

static_assert(IntegerCodec<PForDelta>);

namespace {

constexpr uint8_t kHasExceptions = 0x80;  // in the level's first byte, beside b

uint32_t widest(std::span<const uint32_t> values) {
    uint32_t any_bits = 0;
    for (const uint32_t value : values) any_bits |= value;
    return bit_width32(any_bits);
}

uint32_t fitting_bits(std::span<const uint32_t> values) {
    std::array<size_t, 33> count_by_width{};
    for (const uint32_t value : values) ++count_by_width[bit_width32(value)];
    const size_t need = (values.size() * PForDelta::kFitPercent + 99) / 100;
    size_t fit = 0;
    for (uint32_t b = 0; b <= 32; ++b) {
        fit += count_by_width[b];
        if (fit >= need) return b;
    }
    return 32;
}

void encode_level(std::span<const uint32_t> values, unsigned level, std::string& out) {
    const uint32_t b = level + 1 == PForDelta::kLevels ? widest(values) : fitting_bits(values);
    std::vector<uint32_t> high_parts, position_gaps;
    if (b < 32) {
        size_t previous = 0;
        for (size_t i = 0; i < values.size(); ++i) {
            if ((values[i] >> b) == 0) continue;
            high_parts.push_back(values[i] >> b);
            position_gaps.push_back(static_cast<uint32_t>(high_parts.size() == 1 ? i : i - previous - 1));
            previous = i;
        }
    }
    // Short sequences rarely have exceptions: then the count is left out.
    out.push_back(static_cast<char>(b | (high_parts.empty() ? 0 : kHasExceptions)));
    if (!high_parts.empty()) vbyte::put(out, high_parts.size());
    pack(values, b, out);
    if (!high_parts.empty()) {
        encode_level(high_parts, level + 1, out);
        encode_level(position_gaps, level + 1, out);
    }
}

// Exception arrays of up to 128 values (a block's) stay on the stack.
class Scratch {
public:
    std::span<uint32_t> take(size_t n) {
        if (n <= small_.size()) return {small_.data(), n};
        large_.resize(n);
        return large_;
    }

private:
    std::array<uint32_t, kGroupValues> small_;
    std::vector<uint32_t> large_;
};

void decode_level(std::string_view bytes, size_t& position, unsigned level, std::span<uint32_t> decoded) {
    constexpr std::string_view name = PForDelta::kName;
    const size_t n = decoded.size();
    if (position >= bytes.size()) fail_decode(name, "bytes end before a level's bit width");
    const auto header = static_cast<uint8_t>(bytes[position++]);
    const uint32_t b = header & ~kHasExceptions;
    if (b > 32) fail_decode(name, "bit width " + std::to_string(b) + " is over 32");
    uint64_t exceptions = 0;
    if (header & kHasExceptions) {
        try {
            exceptions = vbyte::get(bytes, position);
        } catch (const Error& error) {
            fail_decode(name, "exception count: " + error.message());
        }
        if (exceptions == 0) fail_decode(name, "exception count 0 where exceptions are announced");
    }
    if (exceptions > n) fail_decode(name, "more exceptions than values");
    if (exceptions > 0 && (b == 32 || level + 1 == PForDelta::kLevels)) {
        fail_decode(name, "exceptions where none can be");
    }
    const size_t slot_bytes = packed_bytes(n, b);
    if (bytes.size() - position < slot_bytes) fail_decode(name, "bytes end inside the slots");
    if (n == kGroupValues) {
        unpack128(bytes.data() + position, b, decoded.data());
    } else {
        unpack(bytes.data() + position, b, decoded);
    }
    position += slot_bytes;
    if (exceptions == 0) return;

    Scratch high_scratch, gap_scratch;
    const auto high_parts = high_scratch.take(exceptions);
    const auto position_gaps = gap_scratch.take(exceptions);
    decode_level(bytes, position, level + 1, high_parts);
    decode_level(bytes, position, level + 1, position_gaps);
    const uint32_t max_high = std::numeric_limits<uint32_t>::max() >> b;
    uint64_t at = position_gaps[0];
    for (size_t k = 0; k < exceptions; ++k) {
        if (k > 0) at += uint64_t{position_gaps[k]} + 1;
        if (at >= n) fail_decode(name, "exception position past the last value");
        if (high_parts[k] > max_high) fail_decode(name, "value over 32 bits");
        decoded[at] |= high_parts[k] << b;
    }
}

}  // namespace

uint32_t PForDelta::slot_bits(std::span<const uint32_t> values) { return fitting_bits(values); }

void PForDelta::encode(std::span<const uint32_t> values, std::string& out) {
    if (!values.empty()) encode_level(values, 0, out);
}

void PForDelta::decode(std::string_view bytes, std::span<uint32_t> decoded) {
    size_t position = 0;
    if (!decoded.empty()) decode_level(bytes, position, 0, decoded);
    if (position != bytes.size()) fail_decode(kName, "trailing bytes after the last level");
}

}  // namespace invidx::codecs
