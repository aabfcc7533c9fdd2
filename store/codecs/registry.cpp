#include "store/codecs/registry.hpp"

#include <array>

#include "store/codecs/bp128.hpp"
#include "store/codecs/pfor.hpp"
#include "store/codecs/rice.hpp"
#include "store/codecs/vbyte.hpp"

namespace invidx::codecs {
namespace {

constexpr std::array kCodecs = {
    make_codec<VariableByte>(),
    make_codec<PForDelta>(),
    make_codec<Rice>(),
    make_codec<BinaryPacking>(),
};

}  // namespace

std::span<const Codec> all_codecs() { return kCodecs; }

const Codec& find_codec(std::string_view name) {
    for (const Codec& codec : kCodecs) {
        if (codec.name == name) return codec;
    }
    throw Error("unknown codec '" + std::string(name) + "'; known: " + codec_names());
}

std::string codec_names() {
    std::string names;
    for (const Codec& codec : kCodecs) {
        if (!names.empty()) names += ", ";
        names += codec.name;
    }
    return names;
}

}  // namespace invidx::codecs
