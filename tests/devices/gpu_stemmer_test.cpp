// Stems computed on a GPU against the host's stemmer, the same function
// compiled for both (analysis/porter.hpp), on the strings porter_test.cpp
// checks against libstemmer. GPU test cases (support/gpu_test.hpp), but
// for the error without one.
#include "devices/gpu_stemmer.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "analysis/porter.hpp"
#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "support/gpu_test.hpp"
#include "support/porter_words.hpp"

namespace {

using namespace invidx;

bool have_gpu() { return !list_gpus().devices.empty(); }

GpuTokenList token_list(const test::WordList& words) {
    GpuTokenList tokens;
    tokens.bytes = words.bytes;
    tokens.offsets = words.offsets;
    return tokens;
}

std::string host_stem(std::string_view word) {
    unsigned char stem[256];
    const uint32_t n = porter_stem(reinterpret_cast<const unsigned char*>(word.data()),
                                   static_cast<uint32_t>(word.size()), stem);
    return std::string(reinterpret_cast<const char*>(stem), n);
}

}  // namespace

TEST_CASE("gpu_stem_tokens: without a usable GPU it is an error, never a silent CPU result") {
    if (have_gpu()) return;
    GpuTokenList tokens;
    tokens.bytes = "running";
    tokens.offsets = {0, 7};
    CHECK_THROWS_AS(gpu_stem_tokens(0, tokens), Error);
}

GPU_TEST_CASE("gpu_stem_tokens: device stems equal the host's on a million strings") {
    const test::WordList words = test::porter_test_words(1000000);
    const GpuTokenList stems = gpu_stem_tokens(0, token_list(words));
    REQUIRE(stems.size() == words.size());
    REQUIRE(stems.offsets.front() == 0);
    size_t differences = 0;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string_view device(stems.bytes.data() + stems.offsets[i], stems.offsets[i + 1] - stems.offsets[i]);
        const std::string host = host_stem(words[i]);
        if (device != host && ++differences <= 10) {
            FAIL_CHECK("word " << i << ": host '" << host << "', device '" << device << "'");
        }
    }
    CHECK(differences == 0);
    CHECK(stems.offsets.back() == stems.bytes.size());
}

GPU_TEST_CASE("gpu_stem_tokens: empty lists, empty tokens, malformed lists") {
    CHECK(gpu_stem_tokens(0, GpuTokenList{}).size() == 0);
    GpuTokenList tokens;
    tokens.bytes = "ponieshopping";
    tokens.offsets = {0, 0, 6, 6, 13};
    const GpuTokenList stems = gpu_stem_tokens(0, tokens);
    CHECK(stems.bytes == "ponihop");
    CHECK(stems.offsets == std::vector<uint32_t>{0, 0, 4, 4, 7});

    GpuTokenList too_long;
    too_long.bytes = std::string(256, 'a');
    too_long.offsets = {0, 256};
    CHECK_THROWS_AS(gpu_stem_tokens(0, too_long), Error);
    GpuTokenList short_offsets;
    short_offsets.bytes = "abc";
    short_offsets.offsets = {0, 2};
    CHECK_THROWS_AS(gpu_stem_tokens(0, short_offsets), Error);
}

GPU_TEST_CASE("gpu_stem_tokens: a token Porter stems to nothing stays itself, as on the host") {
    GpuTokenList tokens;
    tokens.bytes = "sitscatsss";
    tokens.offsets = {0, 1, 3, 4, 8, 9, 10};  // "s", "it", "s", "cats", "s", "s"
    const GpuTokenList stems = gpu_stem_tokens(0, tokens);
    CHECK(stems.bytes == "sitscatss");
    CHECK(stems.offsets == std::vector<uint32_t>{0, 1, 3, 4, 7, 8, 9});
    CHECK(host_stem("s") == "s");
}
