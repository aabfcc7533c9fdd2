// GzipStream with each mix of decoders this build has (igzip, libdeflate,
// zlib): the same text blocks for input cut anywhere, and the same errors,
// whichever decoder inflates a member (gzip_stream.hpp, GzipDecoders).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/decompress/gzip_stream.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"
#include "tests/support/gzip_member.hpp"
#include "tests/support/text_blocks.hpp"
#include "tests/support/gzip_decoder_mixes.hpp"

namespace invidx {
namespace {

using testing::decoder_mixes;
using testing::member;
using testing::MemberOptions;

std::string mix_name(GzipDecoders mix) {
    return std::string(mix.isal ? "igzip" : "zlib") + (mix.libdeflate ? "+libdeflate" : "");
}

// The text of `bytes` fed in pieces of `step` bytes, blocks joined.
std::string decode(GzipDecoders mix, std::string_view bytes, size_t step, size_t text_block_bytes) {
    GzipStream stream(testing::input_file("/data/mix.warc.gz"), text_block_bytes, nullptr, mix);
    std::string text;
    for (size_t at = 0; at < bytes.size() || at == 0; at += step) {
        const size_t size = std::min(step, bytes.size() - at);
        stream.feed(bytes.substr(at, size), at + size >= bytes.size(), [&](TextBlock&& block) {
            CHECK(block.bytes.size() <= text_block_bytes);
            text += block.bytes;
        });
        if (bytes.empty()) break;
    }
    CHECK(stream.finished());
    return text;
}

TEST_CASE("every decoder mix gives the same text, one stream or many members, cut anywhere") {
    const std::string text = testing::sample_text(60000, 11);
    std::vector<std::string> members;
    std::string many;
    for (size_t at = 0; at < text.size(); at += 7000) {
        many += member(text.substr(at, 7000), MemberOptions{.level = 6, .flush_every = 0, .header_fields = at == 7000});
    }
    const std::string one = member(text, MemberOptions{.level = 9, .flush_every = 20000, .header_fields = false});
    const std::string stored = member(text.substr(0, 5000), MemberOptions{.level = 0});
    for (const GzipDecoders mix : decoder_mixes()) {
        CAPTURE(mix_name(mix));
        for (const size_t step : {size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
            CAPTURE(step);
            CHECK(decode(mix, one, step, 3000) == text);
            CHECK(decode(mix, many, step, 1 << 16) == text);
            CHECK(decode(mix, many + std::string(5, '\0'), step, 999) == text);
            CHECK(decode(mix, stored + one, step, 4096) == text.substr(0, 5000) + text);
        }
    }
}

TEST_CASE("members of more than 1 MiB of text between small ones give the same text with every decoder mix") {
    // libdeflate gives up on a member of more than 1 MiB and leaves the next
    // members to igzip or zlib until one of them is small again.
    const std::string text = testing::sample_text(size_t{5} << 20, 17);
    const size_t cuts[] = {0, 9000, 20000, (size_t{3} << 20) / 2 + 20000, (size_t{3} << 20) / 2 + 31000, 1700000, 1715000,
                           text.size()};
    std::string bytes;
    for (size_t i = 0; i + 1 < std::size(cuts); ++i) bytes += member(text.substr(cuts[i], cuts[i + 1] - cuts[i]));
    for (const GzipDecoders mix : decoder_mixes()) {
        CAPTURE(mix_name(mix));
        for (const size_t step : {size_t{1} << 16, size_t{4} << 20, bytes.size()}) {
            CAPTURE(step);
            CHECK(decode(mix, bytes, step, size_t{4} << 20) == text);
        }
    }
}

TEST_CASE("every decoder mix names a damaged trailer, truncation and trailing bytes alike") {
    const std::string text = testing::sample_text(20000, 4);
    const std::string first = member(text.substr(0, 9000));
    const std::string second = member(text.substr(9000));
    struct Damage {
        const char* what;
        size_t position;  // of the flipped byte
        std::string message;
    };
    const Damage damages[] = {
        {"CRC-32 of the second member", first.size() + second.size() - 7, "damaged gzip data in member 2 (zlib: incorrect data check)"},
        {"ISIZE of the first member", first.size() - 2, "damaged gzip data in member 1 (zlib: incorrect length check)"},
        // A second header that is not one: after the first member, trailing bytes.
        {"method of the second member", first.size() + 2,
         ("bytes after gzip member 1 at compressed byte " + std::to_string(first.size()) +
          " are neither a gzip member nor zero padding (zlib: unknown compression method)")},
    };
    for (const GzipDecoders mix : decoder_mixes()) {
        CAPTURE(mix_name(mix));
        for (const auto& damage : damages) {
            CAPTURE(damage.what);
            std::string bytes = first + second;
            bytes[damage.position] = static_cast<char>(bytes[damage.position] ^ 0x40);
            for (const size_t step : {size_t{1}, size_t{300}, bytes.size()}) {
                CAPTURE(step);
                try {
                    decode(mix, bytes, step, 1000);
                    FAIL("no error");
                } catch (const Error& error) {
                    CHECK(error.message() == damage.message);
                    CHECK(error.context().file == "/data/mix.warc.gz");
                }
            }
        }
        for (const size_t keep : {first.size() + 1, first.size() + 20, first.size() + second.size() - 1}) {
            CAPTURE(keep);
            try {
                decode(mix, (first + second).substr(0, keep), 64, 1000);
                FAIL("no error");
            } catch (const Error& error) {
                CHECK(error.message() == "truncated gzip data (member 2 has no end)");
            }
        }
        try {
            decode(mix, first + "garbage", 5, 1000);
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(error.message().find("bytes after gzip member 1 at compressed byte " + std::to_string(first.size()) +
                                       " are neither a gzip member nor zero padding") == 0);
        }
    }
}

}  // namespace
}  // namespace invidx
