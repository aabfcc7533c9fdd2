// One gzip member written by zlib itself, for the decompression tests.
#pragma once

#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace invidx::testing {

struct MemberOptions {
    int level = Z_DEFAULT_COMPRESSION;
    size_t flush_every = 0;  // a Z_FULL_FLUSH (block end) after every this many input bytes
    bool header_fields = false;  // FNAME, FCOMMENT, FEXTRA and FHCRC in the header
};

// One gzip member written by zlib itself.
inline std::string member(std::string_view text, MemberOptions options = {}) {
    z_stream zlib{};
    REQUIRE(deflateInit2(&zlib, options.level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    gz_header header{};
    std::string name = "name.txt", comment = "a comment", extra = "ab\x04\x00xyzw";
    if (options.header_fields) {
        header.name = reinterpret_cast<Bytef*>(name.data());
        header.comment = reinterpret_cast<Bytef*>(comment.data());
        header.extra = reinterpret_cast<Bytef*>(extra.data());
        header.extra_len = static_cast<uInt>(extra.size());
        header.hcrc = 1;
        REQUIRE(deflateSetHeader(&zlib, &header) == Z_OK);
    }
    std::string out;
    char buffer[4096];
    size_t done = 0;
    for (;;) {
        const size_t step = options.flush_every ? std::min(options.flush_every, text.size() - done) : text.size() - done;
        const bool end = done + step == text.size();
        zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + done));
        zlib.avail_in = static_cast<uInt>(step);
        int status;
        do {
            zlib.next_out = reinterpret_cast<Bytef*>(buffer);
            zlib.avail_out = sizeof buffer;
            status = deflate(&zlib, end ? Z_FINISH : Z_FULL_FLUSH);
            out.append(buffer, sizeof buffer - zlib.avail_out);
        } while (zlib.avail_out == 0);
        done += step;
        if (end) {
            REQUIRE(status == Z_STREAM_END);
            break;
        }
    }
    deflateEnd(&zlib);
    return out;
}

}  // namespace invidx::testing
