// A GPU parser's ParsedBatch (a batch analyzer's result through
// parsed_batch_from) equals the CPU parser's (parse_batch) field for field,
// for every analysis setting that changes the passes: the indexers cannot
// tell which parser took a batch. The analyzer here is the host reference
// (analyze_batch_on_host), which runs the device's per-document code.
#include "nodes/parse/gpu_parse_batch.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "analysis/analyzer.hpp"
#include "devices/gpu_devices.hpp"
#include "devices/gpu_inflate.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"
#include "nodes/parse/parse_node.hpp"
#include "support/analysis_inputs.hpp"
#include "support/batch_analysis.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/gzip_member.hpp"

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

namespace {

// `batch`'s blocks with their text also "on" GPU `ordinal`: here a host
// copy, whose addresses the host can read back.
// Block 0 wholly, block 1 but for a gap in its middle (a hole's bytes).
void pretend_on_device(DocBatch& batch, int ordinal) {
    for (size_t b = 0; b < batch.sources.size(); ++b) {
        auto block = std::make_shared<TextBlock>(*batch.sources[b]);
        auto copy = std::make_shared<const std::string>(block->bytes);
        auto device = std::make_shared<DeviceText>();
        device->device = ordinal;
        device->buffer = std::shared_ptr<const char>(copy, copy->data());
        const uint64_t size = block->bytes.size();
        if (b == 0) {
            device->spans = {{0, size, copy->data()}};
        } else {
            device->spans = {{0, size / 3, copy->data()}, {size / 2, size, copy->data() + size / 2}};
        }
        block->device_text = std::move(device);
        batch.sources[b] = std::move(block);
    }
}

}  // namespace

TEST_CASE("gpu parse batch: documents in blocks whose text is on the analyzer's GPU get their device addresses") {
    std::mt19937 random(43);
    const auto words = test_vocabulary(random, 200);
    std::vector<AnalysisDocument> docs;
    for (int d = 0; d < 40; ++d) docs.push_back({random_html(random, words, 1 + random() % 200), d % 2 == 0});
    docs.push_back({"", true});
    DocBatch batch = doc_batch(docs, 5, TextLayout::in_blocks);
    pretend_on_device(batch, 2);
    const AnalysisSettings settings = AnalysisSettings::defaults();
    const GpuAnalysisInput input = gpu_analysis_input(batch, settings, 2);
    REQUIRE(input.pieces.size() == docs.size());
    REQUIRE(input.device_pieces.size() == docs.size());
    CHECK(input.pieces_device == 2);
    size_t on_device = 0;
    for (size_t d = 0; d < docs.size(); ++d) {
        CAPTURE(d);
        const DocRecord& doc = batch.docs[d];
        // Copied documents (every third), the empty one and those in block
        // 1's gap are the host's only.
        bool in_span = doc.source != kOwnText && doc.text_length > 0;
        if (in_span && doc.source == 1) {
            const uint64_t size = batch.sources[1]->bytes.size();
            const uint64_t begin = doc.text_offset, end = begin + doc.text_length;
            in_span = end <= size / 3 || begin >= size / 2;
        }
        CHECK((input.device_pieces[d] != nullptr) == in_span);
        if (!in_span) continue;
        ++on_device;
        CHECK(std::string_view(input.device_pieces[d], doc.text_length) == input.pieces[d]);
    }
    CHECK(on_device > 15);
    CHECK(on_device < 27);  // block 1's gap holds some
    // Another GPU's analyzer, or the host's, gets none.
    CHECK(gpu_analysis_input(batch, settings, 1).device_pieces.empty());
    CHECK(gpu_analysis_input(batch, settings).device_pieces.empty());
    // The host reference reads the pieces: the same result either way.
    const GpuAnalysisResult with = analyze_batch_on_host(input);
    const GpuAnalysisResult without = analyze_batch_on_host(gpu_analysis_input(batch, settings));
    CHECK(same_analysis_result(with, without));
}

GPU_TEST_CASE("gpu parse batch (device): documents whose text is already on gpu:0 parse as the CPU parser parses them") {
    // The blocks' text put on the device the way the decompress node's GPU
    // workers leave it: a GpuInflater with a resident buffer inflates each
    // block's bytes as one gzip member and the block points there.
    std::mt19937 random(47);
    const auto words = test_vocabulary(random, 300);
    std::vector<AnalysisDocument> docs;
    for (int d = 0; d < 90; ++d) docs.push_back({random_html(random, words, 1 + random() % 300), d % 4 != 0});
    docs.push_back({"", false});
    DocBatch batch = doc_batch(docs, 7, TextLayout::in_blocks);
    std::vector<std::unique_ptr<GpuInflater>> inflaters;
    for (auto& source : batch.sources) {
        auto block = std::make_shared<TextBlock>(*source);
        const std::string compressed = member(block->bytes);
        auto inflater = std::make_unique<GpuInflater>(0, compressed.size(), block->bytes.size(), 1, 1);
        std::memcpy(inflater->input(), compressed.data(), compressed.size());
        const auto outcomes = inflater->inflate(
            compressed.size(), {InflateMember{0, 0, static_cast<uint32_t>(compressed.size()), static_cast<uint32_t>(block->bytes.size())}});
        REQUIRE(outcomes.size() == 1);
        REQUIRE(outcomes[0].status == InflateStatus::ok);
        auto device = std::make_shared<DeviceText>();
        device->device = 0;
        device->buffer = inflater->resident_output();
        REQUIRE(device->buffer);
        device->spans = {{0, block->bytes.size(), device->buffer.get()}};
        block->device_text = std::move(device);
        source = std::move(block);
        inflaters.push_back(std::move(inflater));
    }
    auto device = create_gpu_batch_analyzer(0);
    for (const AnalysisSettings& settings : batch_settings()) {
        CAPTURE(settings.positions);
        CAPTURE(settings.stemmer);
        Analyzer cpu(settings);
        DocumentTerms scratch;
        ParsedSizeHint sizes;
        const ParsedBatch expected = parse_batch(batch, cpu, scratch, sizes);
        const uint64_t before = device->times().device_text_bytes;
        check_same(parse_batch_with(*device, batch, settings), expected);
        CHECK(device->times().device_text_bytes > before);
    }
}
