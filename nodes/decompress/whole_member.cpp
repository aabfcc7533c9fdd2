#include "nodes/decompress/whole_member.hpp"

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <algorithm>
#include <memory>
#include <vector>

#include "invidx/error.hpp"

namespace invidx {

#if defined(INVIDX_HAVE_LIBDEFLATE)
namespace {

struct FreeDecompressor {
    void operator()(libdeflate_decompressor* decompressor) const { libdeflate_free_decompressor(decompressor); }
};

libdeflate_decompressor& thread_decompressor() {
    thread_local std::unique_ptr<libdeflate_decompressor, FreeDecompressor> decompressor(
        libdeflate_alloc_decompressor());
    if (!decompressor) throw Error("cannot start libdeflate");
    return *decompressor;
}

}  // namespace

InflateStatus inflate_whole_member(const char* in, size_t in_size, char* out, size_t out_size) {
    size_t used = 0;
    size_t produced = 0;
    // libdeflate checks the trailer's CRC-32 and ISIZE against the text.
    const libdeflate_result result =
        libdeflate_gzip_decompress_ex(&thread_decompressor(), in, in_size, out, out_size, &used, &produced);
    if (result == LIBDEFLATE_INSUFFICIENT_SPACE) return InflateStatus::output_overflow;
    if (result != LIBDEFLATE_SUCCESS) return InflateStatus::bad_deflate;
    if (used != in_size) return InflateStatus::trailing_bytes;
    if (produced != out_size) return InflateStatus::size_mismatch;
    return InflateStatus::ok;
}

#else

InflateStatus inflate_whole_member(const char* in, size_t in_size, char* out, size_t out_size) {
    z_stream zlib{};
    if (inflateInit2(&zlib, 15 + 16) != Z_OK) throw Error("cannot start zlib");
    zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    zlib.avail_in = static_cast<uInt>(in_size);
    // One byte more than the text should be, to tell a longer text.
    std::vector<char> text(out_size + 1);
    zlib.next_out = reinterpret_cast<Bytef*>(text.data());
    zlib.avail_out = static_cast<uInt>(text.size());
    const int status = ::inflate(&zlib, Z_FINISH);
    const size_t produced = text.size() - zlib.avail_out;
    const uInt left = zlib.avail_in;
    inflateEnd(&zlib);
    if (status == Z_DATA_ERROR) return InflateStatus::bad_deflate;
    if (status != Z_STREAM_END) return produced > out_size ? InflateStatus::output_overflow : InflateStatus::truncated;
    if (left != 0) return InflateStatus::trailing_bytes;
    if (produced != out_size) return produced > out_size ? InflateStatus::output_overflow : InflateStatus::size_mismatch;
    std::copy(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(out_size), out);
    return InflateStatus::ok;
}

#endif

}  // namespace invidx
