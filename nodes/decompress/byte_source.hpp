// Where an ArchiveStream pulls its compressed bytes from. libarchive pulls,
// so its input is an interface: a file read by path (decompress_file, the
// sampler) or the RawBlocks the read node pushed (StreamingDecompressor).
#pragma once

#include <string_view>

namespace invidx {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // The next bytes of the input; an empty view means the end. The view stays
    // valid until the next call. May throw (e.g. invidx::Error on I/O errors).
    virtual std::string_view next() = 0;
};

}  // namespace invidx
