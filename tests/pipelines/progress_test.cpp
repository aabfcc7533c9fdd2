// Progress counts work done (pipelines/progress.hpp): the input whose
// documents are parsed, not the bytes read, which run ahead; 100% only once
// the graph has drained, then the phases "writing" and "publishing".
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::vector<ProgressNotice> build_with_notices(const TempDir& dir, const std::string& input, BuildReport& report) {
    Pipeline pipeline(PipelineConfig::from_json(standard_pipeline({input}, dir / "idx", 2, 1), {"progress=off"}));
    std::vector<ProgressNotice> notices;
    RunOptions options;
    options.progress_interval = std::chrono::milliseconds(1);
    options.progress = [&](const ProgressNotice& notice) { notices.push_back(notice); };
    report = pipeline.run(options);
    return notices;
}

}  // namespace

TEST_CASE("progress: bytes done follow the parsed documents, below the total until every one is indexed") {
    TempDir dir;
    std::mt19937 random(7);
    const auto words = test_vocabulary(random, 5000);
    std::string warc;
    for (size_t i = 0; i < 2000; ++i) warc += warc_response("d" + std::to_string(i), random_html(random, words, 300));
    const std::string input = dir.write("in.warc", warc).string();

    BuildReport report;
    const std::vector<ProgressNotice> notices = build_with_notices(dir, input, report);
    REQUIRE(notices.size() >= 3);
    const uint64_t documents = report.json.at("documents").get<uint64_t>();
    const uint64_t text_bytes = report.json.at("input_bytes_uncompressed").get<uint64_t>();
    const uint64_t input_bytes = notices.back().input_bytes;
    REQUIRE(input_bytes == warc.size());

    // While the graph runs: never the total, never more than was read, never back.
    size_t writing = notices.size(), publishing = notices.size();
    for (size_t i = 0; i < notices.size(); ++i) {
        const ProgressNotice& notice = notices[i];
        CAPTURE(i);
        CHECK(notice.text_bytes_parsed <= notice.text_bytes);
        if (i > 0) CHECK(notices[i - 1].bytes_done <= notice.bytes_done);
        if (notice.phase == "indexing") {
            CHECK(writing == notices.size());  // no going back to indexing
            CHECK(notice.bytes_done < input_bytes);
            CHECK(notice.bytes_done <= notice.bytes_read);
        } else if (notice.phase == "writing") {
            if (writing == notices.size()) writing = i;
        } else {
            CHECK(notice.phase == "publishing");
            if (publishing == notices.size()) publishing = i;
        }
    }
    // Each phase after the graph is notified when it begins, with every document
    // parsed and indexed: 100% comes here and not before.
    REQUIRE(writing < publishing);
    REQUIRE(publishing < notices.size());
    for (const size_t i : {writing, publishing}) {
        CHECK(notices[i].bytes_done == input_bytes);
        CHECK(notices[i].documents == documents);
        CHECK(notices[i].text_bytes_parsed == text_bytes);
        CHECK_FALSE(notices[i].finished);
    }
    CHECK(notices.back().finished);
    CHECK(notices.back().phase == "publishing");
    CHECK(notices.back().bytes_done == input_bytes);
    // The parse node counted every framed byte.
    CHECK(notices.back().text_bytes_parsed == text_bytes);
}

TEST_CASE("progress: a build that fails ends with a last notice below the total") {
    TempDir dir;
    const std::string input = dir.write("bad.warc", "WARC/1.0\r\nContent-Length: 999999\r\n\r\nshort").string();
    Pipeline pipeline(PipelineConfig::from_json(standard_pipeline({input}, dir / "idx", 1, 1), {"progress=off"}));
    std::vector<ProgressNotice> notices;
    RunOptions options;
    options.progress = [&](const ProgressNotice& notice) { notices.push_back(notice); };
    CHECK_THROWS(pipeline.run(options));
    REQUIRE_FALSE(notices.empty());
    CHECK(notices.back().finished);
    CHECK(notices.back().phase == "indexing");
    CHECK(notices.back().bytes_done < notices.back().input_bytes);
}
