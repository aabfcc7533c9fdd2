// Every mix of gzip decoders this build has (gzip_stream.hpp's GzipDecoders):
// zlib alone, and with ISA-L's igzip and/or libdeflate where built, so that
// a test runs each decoding path the build can take.
#pragma once

#include <vector>

#include "nodes/decompress/gzip_stream.hpp"

namespace invidx::testing {

inline std::vector<GzipDecoders> decoder_mixes() {
    const GzipDecoders built = gzip_decoders_built();
    std::vector<GzipDecoders> mixes = {GzipDecoders{}};
    if (built.isal) mixes.push_back({.isal = true, .libdeflate = false});
    if (built.libdeflate) mixes.push_back({.isal = false, .libdeflate = true});
    if (built.isal && built.libdeflate) mixes.push_back({.isal = true, .libdeflate = true});
    return mixes;
}

}  // namespace invidx::testing
