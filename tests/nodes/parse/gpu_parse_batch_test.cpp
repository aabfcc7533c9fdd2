// A GPU parser's ParsedBatch (a batch analyzer's result through
// parsed_batch_from) equals the CPU parser's (parse_batch) field for field,
// for every analysis setting that changes the passes: the indexers cannot
// tell which parser took a batch. The analyzer here is the host reference
// (analyze_batch_on_host), which runs the device's per-document code.
#include "nodes/parse/gpu_parse_batch.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <random>

#include "analysis/analyzer.hpp"
#include "devices/gpu_devices.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"
#include "nodes/parse/parse_node.hpp"
#include "support/analysis_inputs.hpp"
#include "support/batch_analysis.hpp"
#include "support/collections.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Where a batch's documents lie: all copied into DocBatch::text, or (as the
// frame node leaves whole records) most pointing into two decompressed
// blocks, every third one copied.
enum class TextLayout { copied, in_blocks };

// The documents as the frame node lays a batch out, with `gap` bytes of
// other records' text between them.
DocBatch doc_batch(const std::vector<AnalysisDocument>& docs, size_t gap, TextLayout layout = TextLayout::copied) {
    DocBatch batch;
    batch.sequence = 7;
    batch.first_docid = 1000;
    batch.end_of_input = true;
    std::vector<std::shared_ptr<TextBlock>> blocks;
    if (layout == TextLayout::in_blocks) blocks = {std::make_shared<TextBlock>(), std::make_shared<TextBlock>()};
    for (size_t d = 0; d < docs.size(); ++d) {
        const bool copied = layout == TextLayout::copied || d % 3 == 0;
        std::string& bytes = copied ? batch.text : blocks[d % 2]->bytes;
        bytes.append(gap, 'x');
        DocRecord record;
        record.name = "doc-" + std::to_string(d);
        record.source = copied ? kOwnText : static_cast<uint32_t>(d % 2);
        record.text_offset = static_cast<uint32_t>(bytes.size());
        record.text_length = static_cast<uint32_t>(docs[d].text.size());
        record.html = docs[d].html;
        record.file_ordinal = static_cast<uint32_t>(d % 3);
        record.source_offset = 10 * d;
        bytes += docs[d].text;
        batch.text_bytes += docs[d].text.size();
        batch.docs.push_back(record);
    }
    for (auto& block : blocks) batch.sources.push_back(std::move(block));
    return batch;
}

void check_same(const ParsedBatch& got, const ParsedBatch& expected) {
    CHECK(got.sequence == expected.sequence);
    CHECK(got.first_docid == expected.first_docid);
    CHECK(got.end_of_input == expected.end_of_input);
    CHECK(got.text_bytes == expected.text_bytes);
    CHECK(got.tokens == expected.tokens);
    REQUIRE(got.docs.size() == expected.docs.size());
    for (size_t d = 0; d < got.docs.size(); ++d) {
        CHECK(got.docs[d].name == expected.docs[d].name);
        CHECK(got.docs[d].length == expected.docs[d].length);
        CHECK(got.docs[d].file_ordinal == expected.docs[d].file_ordinal);
        CHECK(got.docs[d].source_offset == expected.docs[d].source_offset);
    }
    CHECK(got.terms == expected.terms);
    CHECK(got.positions == expected.positions);
    REQUIRE(got.occurrences.size() == expected.occurrences.size());
    size_t differing = 0;
    for (size_t i = 0; i < got.occurrences.size(); ++i) {
        const TermOccurrence& a = got.occurrences[i];
        const TermOccurrence& b = expected.occurrences[i];
        differing += a.local_docid != b.local_docid || a.collection != b.collection || a.term_offset != b.term_offset ||
                     a.term_length != b.term_length || a.tf != b.tf || a.positions_offset != b.positions_offset;
    }
    CHECK(differing == 0);
}

void check_documents(const std::vector<AnalysisDocument>& docs) {
    // The host reference everywhere; the GPU's analyzer too where there is
    // one (the batch layouts with documents in blocks are gathered there).
    auto reference = host_reference_gpu_parse_backend(1).make_analyzer(0);
    std::unique_ptr<GpuBatchAnalyzer> device;
    if (!list_gpus().devices.empty()) device = create_gpu_batch_analyzer(0);
    for (const AnalysisSettings& settings : batch_settings()) {
        CAPTURE(settings.positions);
        CAPTURE(settings.stemmer);
        CAPTURE(settings.stopwords.size());
        for (const size_t gap : {size_t{0}, size_t{5}}) {
            for (const TextLayout layout : {TextLayout::copied, TextLayout::in_blocks}) {
                CAPTURE(gap);
                CAPTURE(layout == TextLayout::in_blocks);
                const DocBatch batch = doc_batch(docs, gap, layout);
                Analyzer cpu(settings);
                DocumentTerms scratch;
                ParsedSizeHint sizes;
                const ParsedBatch expected = parse_batch(batch, cpu, scratch, sizes);
                REQUIRE(expected.occurrences.size() > 0);
                check_same(parse_batch_with(*reference, batch, settings), expected);
                if (device) check_same(parse_batch_with(*device, batch, settings), expected);
            }
        }
    }
}

}  // namespace

TEST_CASE("gpu parse batch: the sample collection parses as the CPU parser parses it") {
    const auto docs = sample_documents();
    REQUIRE(docs.size() > 50);
    check_documents(docs);
}

TEST_CASE("gpu parse batch: generated pages, broken HTML and empty documents parse as on the CPU") {
    std::mt19937 random(41);
    const auto words = test_vocabulary(random, 300);
    std::vector<AnalysisDocument> docs;
    for (int d = 0; d < 120; ++d) docs.push_back({random_html(random, words, 1 + random() % 400), d % 4 != 0});
    docs.push_back({"", true});
    docs.push_back({"", false});
    for (auto& broken : broken_html_documents(random, 200)) docs.push_back(std::move(broken));
    check_documents(docs);
}

TEST_CASE("gpu parse batch: an empty batch (the end of the input) parses to an empty batch") {
    auto analyzer = host_reference_gpu_parse_backend(1).make_analyzer(0);
    DocBatch batch;
    batch.sequence = 3;
    batch.first_docid = 12;
    batch.end_of_input = true;
    const ParsedBatch parsed = parse_batch_with(*analyzer, batch, AnalysisSettings::defaults());
    CHECK(parsed.sequence == 3);
    CHECK(parsed.first_docid == 12);
    CHECK(parsed.end_of_input);
    CHECK(parsed.docs.empty());
    CHECK(parsed.occurrences.empty());
}

TEST_CASE("gpu parse batch: a result for a different number of documents is an error") {
    const std::vector<AnalysisDocument> docs = {{"<p>one two</p>", true}, {"three", false}};
    const DocBatch batch = doc_batch(docs, 0);
    const AnalysisSettings settings = AnalysisSettings::defaults();
    DocBatch shorter = batch;
    shorter.docs.pop_back();
    GpuAnalysisResult result = analyze_batch_on_host(gpu_analysis_input(shorter, settings));
    CHECK_THROWS_AS(parsed_batch_from(batch, std::move(result), false), Error);
}
