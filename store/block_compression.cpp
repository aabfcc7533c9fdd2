#include "store/block_compression.hpp"

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "invidx/error.hpp"

namespace invidx {
namespace {

#if defined(INVIDX_HAVE_LIBDEFLATE)
struct CompressorDeleter {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct DecompressorDeleter {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
// One per thread and level: they are not thread-safe, and allocating one
// per block costs more than the block.
libdeflate_compressor* compressor(int level) {
    thread_local std::array<std::unique_ptr<libdeflate_compressor, CompressorDeleter>, kMaxCompressionLevel + 1> by_level;
    auto& c = by_level.at(static_cast<size_t>(level));
    if (!c) c.reset(libdeflate_alloc_compressor(level));
    ensure(c != nullptr, "out of memory for a libdeflate compressor");
    return c.get();
}
libdeflate_decompressor* decompressor() {
    thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(libdeflate_alloc_decompressor());
    ensure(d != nullptr, "out of memory for a libdeflate decompressor");
    return d.get();
}
#endif

}  // namespace

void compress_block(std::string_view bytes, std::string& out, int level) {
    if (level < kMinCompressionLevel || level > kMaxCompressionLevel)
        throw Error("compression level " + std::to_string(level) + " is not in [0, 12]");
    const size_t start = out.size();
#if defined(INVIDX_HAVE_LIBDEFLATE)
    libdeflate_compressor* c = compressor(level);
    out.resize(start + libdeflate_zlib_compress_bound(c, bytes.size()));
    const size_t written = libdeflate_zlib_compress(c, bytes.data(), bytes.size(), out.data() + start, out.size() - start);
    ensure(written != 0, "libdeflate could not compress a block of " + std::to_string(bytes.size()) + " bytes");
    out.resize(start + written);
#else
    uLongf bound = compressBound(static_cast<uLong>(bytes.size()));
    out.resize(start + bound);
    const int status = compress2(reinterpret_cast<Bytef*>(out.data() + start), &bound,
                                 reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                                 std::min(level, Z_BEST_COMPRESSION));
    ensure(status == Z_OK, "zlib could not compress a block of " + std::to_string(bytes.size()) + " bytes");
    out.resize(start + bound);
#endif
}

bool decompress_block(std::string_view compressed, uint64_t uncompressed_bytes, std::string& out) {
    out.resize(uncompressed_bytes);
#if defined(INVIDX_HAVE_LIBDEFLATE)
    size_t actual = 0;
    const auto status = libdeflate_zlib_decompress(decompressor(), compressed.data(), compressed.size(), out.data(),
                                                   out.size(), &actual);
    return status == LIBDEFLATE_SUCCESS && actual == uncompressed_bytes;
#else
    uLongf actual = static_cast<uLongf>(uncompressed_bytes);
    const int status = uncompress(reinterpret_cast<Bytef*>(out.data()), &actual,
                                  reinterpret_cast<const Bytef*>(compressed.data()), static_cast<uLong>(compressed.size()));
    return status == Z_OK && actual == uncompressed_bytes;
#endif
}

}  // namespace invidx
