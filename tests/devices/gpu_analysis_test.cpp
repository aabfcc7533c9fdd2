// Document analysis on a GPU (gpu_analyze_batch) against Analyzer::analyze,
// on the inputs the host reference of the same passes is checked on
// (tests/analysis/document_passes_test.cpp), and against that host reference
// batch for batch. GPU test cases (support/gpu_test.hpp), but for the
// error without one and the host reference's checks.
#include "devices/gpu_analysis.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "support/analysis_inputs.hpp"
#include "support/batch_analysis.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/possessives.hpp"

namespace {

using namespace invidx;

bool have_gpu() { return !list_gpus().devices.empty(); }

GpuAnalysisResult on_gpu(const GpuAnalysisInput& input) { return gpu_analyze_batch(0, input); }


}  // namespace

TEST_CASE("gpu_analyze_batch: without a usable GPU it is an error, never a silent CPU result") {
    if (have_gpu()) return;
    const std::string text = "running";
    GpuAnalysisInput input;
    input.text = text;
    input.offsets = {0};
    input.lengths = {7};
    input.html = {0};
    CHECK_THROWS_AS(gpu_analyze_batch(0, input), Error);
    CHECK_THROWS_AS(create_gpu_batch_analyzer(0), Error);
}

GPU_TEST_CASE("gpu_analyze_batch: the sample collection gives Analyzer::analyze's terms") {
    const auto docs = testing::sample_documents();
    REQUIRE(docs.size() > 50);
    testing::check_batch_against_analyzer(docs, on_gpu);
}

GPU_TEST_CASE("gpu_analyze_batch: generated pages and broken HTML give Analyzer::analyze's terms") {
    std::mt19937 random(23);
    const auto words = testing::test_vocabulary(random, 300);
    std::vector<testing::AnalysisDocument> pages;
    for (int d = 0; d < 300; ++d) pages.push_back({testing::random_html(random, words, 1 + random() % 600), d % 5 != 0});
    pages.push_back({"", true});
    testing::check_batch_against_analyzer(pages, on_gpu);
    testing::check_batch_against_analyzer(pages, on_gpu, 7);  // documents with gaps between them

    auto broken = testing::broken_html_documents(random, 3000);
    broken.push_back({std::string(3, '\0') + "a" + std::string(1, '\0') + "b<!--", true});
    broken.push_back({std::string(255, 'k') + " " + std::string(256, 'k') + " " + std::string(254, 'k'), true});
    testing::check_batch_against_analyzer(broken, on_gpu);
}

GPU_TEST_CASE("gpu_analyze_batch: possessives and a lone s give Analyzer::analyze's terms, none empty") {
    std::vector<testing::AnalysisDocument> docs;
    for (const std::string& text : testing::possessive_texts()) {
        docs.push_back({text, false});
        docs.push_back({"<p>" + text + "</p>", true});
    }
    docs.push_back({testing::text_without_lone_s(), false});
    testing::check_batch_against_analyzer(docs, on_gpu);
    std::string storage;
    const GpuAnalysisResult result = on_gpu(testing::batch_input(docs, AnalysisSettings::defaults(), storage));
    size_t with_s = 0;
    for (const auto& term : result.terms) {
        const std::string_view text = std::string_view(result.bytes).substr(term.term_offset, term.term_length);
        CHECK(!text.empty());
        if (text == "s") ++with_s;
    }
    CHECK(with_s == 2 * testing::possessive_texts().size());
}

GPU_TEST_CASE("gpu_analyze_batch: equals the host reference on a large batch, a long document included") {
    std::mt19937 random(31);
    const auto words = testing::test_vocabulary(random, 2000);
    std::vector<testing::AnalysisDocument> docs = testing::broken_html_documents(random, 20000);
    std::string long_page;
    while (long_page.size() < (size_t{4} << 20)) long_page += testing::random_html(random, words, 2000);
    docs.push_back({long_page, true});
    for (const AnalysisSettings& settings : testing::batch_settings()) {
        CAPTURE(settings.positions);
        CAPTURE(settings.stemmer);
        std::string storage;
        const GpuAnalysisInput input = testing::batch_input(docs, settings, storage, 3);
        CHECK(same_analysis_result(gpu_analyze_batch(0, input), analyze_batch_on_host(input)));
    }
}

GPU_TEST_CASE("gpu_analyze_batch: empty batches and malformed ones") {
    const GpuAnalysisResult empty = gpu_analyze_batch(0, GpuAnalysisInput{});
    CHECK(empty.documents() == 0);
    CHECK(empty.term_begin == std::vector<uint64_t>{0});

    const std::string text = "The ponies and the ponies";
    GpuAnalysisInput input;
    input.text = text;
    input.offsets = {0, 0};
    input.lengths = {0, static_cast<uint32_t>(text.size())};
    input.html = {1, 1};
    input.stopwords = AnalysisSettings::defaults().stopwords;
    input.positional = true;
    const GpuAnalysisResult result = gpu_analyze_batch(0, input);
    REQUIRE(result.documents() == 2);
    CHECK(result.term_begin == std::vector<uint64_t>{0, 0, 1});
    CHECK(result.bytes == "poni");
    CHECK(result.positions == std::vector<uint32_t>{1, 4});
    CHECK(result.tokens == std::vector<uint64_t>{0, 5});

    GpuAnalysisInput overlapping = input;
    overlapping.offsets = {0, 0};
    overlapping.lengths = {3, 3};
    CHECK_THROWS_AS(gpu_analyze_batch(0, overlapping), Error);
    CHECK_THROWS_AS(gpu_analyze_batch(9999, input), Error);  // no such device: an error naming it
}

GPU_TEST_CASE("GpuBatchAnalyzer: batch after batch, larger and smaller, settings changing, gives the host reference") {
    // Its buffers are reused: a batch after a larger one must not see the
    // larger one's terms, tables or stop words.
    std::mt19937 random(37);
    const auto words = testing::test_vocabulary(random, 500);
    const auto analyzer = create_gpu_batch_analyzer(0);
    uint64_t peak = 0;
    for (int round = 0; round < 12; ++round) {
        CAPTURE(round);
        std::vector<testing::AnalysisDocument> docs;
        const int documents = round % 3 == 0 ? 400 : 1 + round;
        for (int d = 0; d < documents; ++d)
            docs.push_back({testing::random_html(random, words, 1 + random() % (round % 2 == 0 ? 900 : 30)), d % 3 != 0});
        const auto settings = testing::batch_settings();
        const AnalysisSettings& setting = settings[round % settings.size()];
        std::string storage;
        const GpuAnalysisInput input = testing::batch_input(docs, setting, storage, round % 4);
        CHECK(same_analysis_result(analyzer->analyze(input), analyze_batch_on_host(input)));
        const GpuAnalyzerMemory memory = analyzer->memory();
        CHECK(memory.peak_device_bytes >= memory.device_bytes);
        CHECK(memory.device_bytes > 0);
        CHECK(memory.pinned_host_bytes > 0);
        peak = std::max(peak, memory.peak_device_bytes);
    }
    CHECK(analyzer->analyze(GpuAnalysisInput{}).documents() == 0);
    CHECK(analyzer->memory().peak_device_bytes == peak);  // nothing grows for an empty batch
}

GPU_TEST_CASE("GpuBatchAnalyzer: two analyzers on one GPU from two threads give the host reference") {
    std::mt19937 random(38);
    const auto words = testing::test_vocabulary(random, 500);
    std::vector<std::vector<testing::AnalysisDocument>> batches(8);
    for (auto& batch : batches)
        for (int d = 0; d < 200; ++d) batch.push_back({testing::random_html(random, words, 1 + random() % 600), true});
    const AnalysisSettings settings = AnalysisSettings::defaults();
    std::vector<int> same(batches.size(), 0);
    auto run = [&](size_t first) {
        try {
            const auto analyzer = create_gpu_batch_analyzer(0);
            for (size_t b = first; b < batches.size(); b += 2) {
                std::string storage;
                const GpuAnalysisInput input = testing::batch_input(batches[b], settings, storage);
                same[b] = same_analysis_result(analyzer->analyze(input), analyze_batch_on_host(input)) ? 1 : 0;
            }
        } catch (...) {
            // left 0: the check below fails (doctest's checks are for the test's own thread)
        }
    };
    std::thread other(run, 1);
    run(0);
    other.join();
    for (size_t b = 0; b < batches.size(); ++b) CHECK(same[b] == 1);
}

// Documents that lie apart in memory go as pieces, which the analyzer
// gathers into its staging buffer: the same result as the same documents
// back to back in one text, on the host reference and on the GPU.
namespace {

struct ScatteredDocuments {
    std::vector<std::string> texts;  // each its own allocation
    std::vector<testing::AnalysisDocument> docs;
};

ScatteredDocuments scattered_documents() {
    std::mt19937 random(41);
    const auto words = testing::test_vocabulary(random, 300);
    ScatteredDocuments scattered;
    for (int d = 0; d < 200; ++d) {
        scattered.texts.push_back(d % 17 == 0 ? std::string() : testing::random_html(random, words, 1 + random() % 400));
        scattered.docs.push_back({scattered.texts.back(), d % 4 != 0});
    }
    return scattered;
}

// `check(whole, pieces)` for every batch setting: the documents in one text and as pieces.
template <class Check>
void for_whole_and_pieces(const ScatteredDocuments& scattered, Check check) {
    for (const AnalysisSettings& settings : testing::batch_settings()) {
        CAPTURE(settings.positions);
        std::string storage;
        const GpuAnalysisInput whole = testing::batch_input(scattered.docs, settings, storage, 0);
        GpuAnalysisInput pieces = whole;
        pieces.text = {};
        for (const std::string& text : scattered.texts) pieces.pieces.push_back(text);
        CHECK(pieces.text_size() == whole.text.size());
        check(whole, pieces);
    }
}

}  // namespace

TEST_CASE("gpu_analyze_batch: documents given as pieces equal the same documents in one text") {
    const ScatteredDocuments scattered = scattered_documents();
    for_whole_and_pieces(scattered, [](const GpuAnalysisInput& whole, const GpuAnalysisInput& pieces) {
        CHECK(same_analysis_result(analyze_batch_on_host(pieces), analyze_batch_on_host(whole)));
    });
    // Pieces must lay out back to back from 0, one per document, without a text.
    std::string storage;
    GpuAnalysisInput bad = testing::batch_input(scattered.docs, AnalysisSettings::defaults(), storage, 0);
    bad.text = {};
    for (const std::string& text : scattered.texts) bad.pieces.push_back(text);
    GpuAnalysisInput shifted = bad;
    shifted.offsets[1] += 1;
    CHECK_THROWS_AS(analyze_batch_on_host(shifted), Error);
    GpuAnalysisInput fewer = bad;
    fewer.pieces.pop_back();
    CHECK_THROWS_AS(analyze_batch_on_host(fewer), Error);
    GpuAnalysisInput both = bad;
    both.text = storage;
    CHECK_THROWS_AS(analyze_batch_on_host(both), Error);
}

GPU_TEST_CASE("gpu_analyze_batch: documents given as pieces on the GPU equal the same documents in one text") {
    for_whole_and_pieces(scattered_documents(), [](const GpuAnalysisInput& whole, const GpuAnalysisInput& pieces) {
        CHECK(same_analysis_result(gpu_analyze_batch(0, pieces), analyze_batch_on_host(whole)));
    });
}
