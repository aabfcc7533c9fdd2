#include "nodes/sample/sampler.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <numeric>

#include "analysis/collection.hpp"
#include "invidx/config.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("the sampler counts each collection's tokens over the sampled documents") {
    TempDir dir;
    // Text files are one document each (CONTENT.md §1-2). "zebra" is in both, four
    // times in the first: 5 tokens; "quokka" once.
    std::ofstream(dir / "a.txt") << "zebra zebra zebra zebra quokka";
    std::ofstream(dir / "b.txt") << "zebra";
    std::vector<InputFile> files;
    for (const char* name : {"a.txt", "b.txt"})
        files.push_back(InputFile{.ordinal = static_cast<uint32_t>(files.size()), .path = (dir / name).string(),
                                  .name = name, .format = "text", .size_bytes = 0});
    const CollectionSample sample = sample_collections(files, SamplerConfig{}, AnalysisSettings::defaults());
    CHECK(sample.documents == 2);
    REQUIRE(sample.tokens.size() == kCollections);
    const uint32_t zebra = collection_of("zebra");
    const uint32_t quokka = collection_of("quokka");
    REQUIRE(zebra != quokka);
    CHECK(sample.tokens[zebra] == 5);
    CHECK(sample.tokens[quokka] == 1);
    CHECK(std::accumulate(sample.tokens.begin(), sample.tokens.end(), uint64_t{0}) == 6);
    CHECK(sample.files == 2);
}
