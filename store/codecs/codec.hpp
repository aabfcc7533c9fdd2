// What an integer codec must offer, so that the query layout can take any of them by name: turn a sequence of uint32
// values (docid gaps, tfs) into bytes and back. The number of values is not
// stored: the caller keeps it (a block of a postings list knows its length),
// so a codec spends no bytes on it. The caller also keeps each encoding's byte
// length, and decode checks that the bytes are exactly one encoding of that
// many values: damage is a FormatError, never a read past the end.
//
// Stated as a concept, as PISA does for its block codecs
// (include/pisa/concepts/), so each codec is checked by the compiler; the
// registry (store/codecs/registry.hpp) erases the type so an index or a
// benchmark can pick one by name.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "invidx/error.hpp"

namespace invidx::codecs {

template <class C>
concept IntegerCodec = requires(std::span<const uint32_t> values, std::string& out, std::string_view bytes,
                                std::span<uint32_t> decoded) {
    { C::kName } -> std::convertible_to<std::string_view>;
    { C::kDescription } -> std::convertible_to<std::string_view>;
    // Appends the encoding of every value to out.
    { C::encode(values, out) } -> std::same_as<void>;
    // Decodes exactly decoded.size() values from all of bytes; throws FormatError.
    { C::decode(bytes, decoded) } -> std::same_as<void>;
};

// A codec chosen at run time: its name and its two functions.
struct Codec {
    std::string_view name;
    std::string_view description;
    void (*encode)(std::span<const uint32_t> values, std::string& out) = nullptr;
    void (*decode)(std::string_view bytes, std::span<uint32_t> decoded) = nullptr;
};

template <IntegerCodec C>
constexpr Codec make_codec() {
    return Codec{C::kName, C::kDescription, &C::encode, &C::decode};
}

// The error every decoder throws on damaged bytes. The codec does not know
// the file; readers rethrow it with the file name (FormatError(file, message)).
[[noreturn]] inline void fail_decode(std::string_view codec, std::string_view problem) {
    throw FormatError("", "codec '" + std::string(codec) + "': " + std::string(problem));
}

}  // namespace invidx::codecs
