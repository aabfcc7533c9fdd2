#include "store/codecs/vbyte.hpp"

#include <limits>

#include "store/codecs/codec.hpp"

namespace invidx::codecs {

static_assert(IntegerCodec<VariableByte>);

void VariableByte::encode(std::span<const uint32_t> values, std::string& out) {
    for (const uint32_t value : values) vbyte::put(out, value);
}

void VariableByte::decode(std::string_view bytes, std::span<uint32_t> decoded) {
    size_t position = 0;
    try {
        for (uint32_t& value : decoded) {
            const uint64_t wide = vbyte::get(bytes, position);
            if (wide > std::numeric_limits<uint32_t>::max()) fail_decode(kName, "value over 32 bits");
            value = static_cast<uint32_t>(wide);
        }
    } catch (const FormatError&) {
        throw;
    } catch (const Error& error) {  // vbyte::get's "ends inside an integer", as a FormatError
        fail_decode(kName, error.message());
    }
    if (position != bytes.size()) fail_decode(kName, "trailing bytes after the last value");
}

}  // namespace invidx::codecs
