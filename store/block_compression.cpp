#include "store/block_compression.hpp"

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <memory>

#include "invidx/error.hpp"

namespace invidx {
namespace {

// Level 1: the store is written during the build, which it must not slow
// down much (docs/performance-log.md); a higher level gains a few percent.
constexpr int kLevel = 1;

#if defined(INVIDX_HAVE_LIBDEFLATE)
struct CompressorDeleter {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct DecompressorDeleter {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
// One per thread: they are not thread-safe, and allocating one per block costs more than the block.
libdeflate_compressor* compressor() {
    thread_local std::unique_ptr<libdeflate_compressor, CompressorDeleter> c(libdeflate_alloc_compressor(kLevel));
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

void compress_block(std::string_view bytes, std::string& out) {
    const size_t start = out.size();
#if defined(INVIDX_HAVE_LIBDEFLATE)
    libdeflate_compressor* c = compressor();
    out.resize(start + libdeflate_zlib_compress_bound(c, bytes.size()));
    const size_t written = libdeflate_zlib_compress(c, bytes.data(), bytes.size(), out.data() + start, out.size() - start);
    ensure(written != 0, "libdeflate could not compress a block of " + std::to_string(bytes.size()) + " bytes");
    out.resize(start + written);
#else
    uLongf bound = compressBound(static_cast<uLong>(bytes.size()));
    out.resize(start + bound);
    const int status = compress2(reinterpret_cast<Bytef*>(out.data() + start), &bound,
                                 reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()), kLevel);
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
