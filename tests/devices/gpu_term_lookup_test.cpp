// Term lookups on a GPU with the lexicon structures against the host's
// lookups over the same buffer, hits and misses, both kinds. GPU test cases
// (support/gpu_test.hpp), but for the error without one.
#include "devices/gpu_term_lookup.hpp"

#include <doctest/doctest.h>

#include <string>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "lexicon/generated_dictionaries.hpp"
#include "lexicon/hashed_terms_builder.hpp"
#include "lexicon/xbw_trie_builder.hpp"
#include "support/gpu_test.hpp"

namespace {

using namespace invidx;

bool have_gpu() { return !list_gpus().devices.empty(); }

GpuLookupInput input_of(const std::vector<std::string>& strings) {
    GpuLookupInput input;
    input.offsets.push_back(0);
    for (const auto& s : strings) {
        input.bytes += s;
        input.offsets.push_back(static_cast<uint32_t>(input.bytes.size()));
    }
    return input;
}

}  // namespace

TEST_CASE("gpu_find_terms: without a usable GPU it is an error, never a silent CPU result") {
    if (have_gpu()) return;
    const lexicon::HashedTerms table(std::vector<std::string_view>{"a", "b"});
    CHECK_THROWS_AS(gpu_find_terms(0, table.sections(), table.buffer(), input_of({"a"})), Error);
    const lexicon::XbwTrie trie(std::vector<std::string_view>{"a", "b"});
    CHECK_THROWS_AS(gpu_find_terms(0, trie.sections(), trie.buffer(), input_of({"a"})), Error);
}

GPU_TEST_CASE("gpu_find_terms: device lookups equal the host's for every term and near miss, xbw and hash") {
    const auto terms = testing::generated_dictionary(11, 50000, true);
    std::vector<std::string> strings(terms.begin(), terms.end());
    const auto missing = testing::missing_strings(terms, 11);
    strings.insert(strings.end(), missing.begin(), missing.end());
    const GpuLookupInput input = input_of(strings);
    const auto views = testing::views_of(terms);

    const lexicon::XbwTrie trie(views);
    const auto xbw = gpu_find_terms(0, trie.sections(), trie.buffer(), input);
    const lexicon::HashedTerms table(views);
    const auto hash = gpu_find_terms(0, table.sections(), table.buffer(), input);
    REQUIRE(xbw.term_ids.size() == strings.size());
    REQUIRE(hash.term_ids.size() == strings.size());
    for (size_t i = 0; i < strings.size(); ++i) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(strings[i].data());
        const auto length = static_cast<uint32_t>(strings[i].size());
        const uint64_t expected = i < terms.size() ? i : lexicon::kTermNotFound;
        REQUIRE(trie.view().find(bytes, length) == expected);
        REQUIRE(xbw.term_ids[i] == expected);
        REQUIRE(hash.term_ids[i] == expected);
    }
    CHECK(gpu_find_terms(0, table.sections(), table.buffer(), input_of({})).term_ids.empty());
    GpuLookupInput bad = input;
    bad.offsets.back() += 1;
    CHECK_THROWS_AS(gpu_find_terms(0, table.sections(), table.buffer(), bad), Error);
}
