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
#include "devices/page_locked_text.hpp"
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
// blocks, alternately with every third one copied, or in runs of seven a
// block with every fifth one copied and every eleventh far (over 64 KiB)
// from the one before, so that the GPU's pieces hold several documents
// and the bytes between them, or one.
enum class TextLayout { copied, in_blocks, runs_in_blocks };

// The documents as the frame node lays a batch out, with `gap` bytes of
// other records' text between them.
DocBatch doc_batch(const std::vector<AnalysisDocument>& docs, size_t gap, TextLayout layout = TextLayout::copied) {
    DocBatch batch;
    batch.sequence = 7;
    batch.first_docid = 1000;
    batch.end_of_input = true;
    std::vector<std::shared_ptr<TextBlock>> blocks;
    if (layout != TextLayout::copied) blocks = {std::make_shared<TextBlock>(), std::make_shared<TextBlock>()};
    for (size_t d = 0; d < docs.size(); ++d) {
        const bool runs = layout == TextLayout::runs_in_blocks;
        const bool copied = layout == TextLayout::copied || (runs ? d % 5 == 4 : d % 3 == 0);
        const size_t block = runs ? (d / 7) % 2 : d % 2;
        const size_t before = runs && d % 11 == 10 ? 70000 : gap;
        const auto append = [&](std::string_view text) {
            if (copied) batch.text.append(text);
            else blocks[block]->bytes.append(text);
        };
        append(std::string(before, 'x'));
        DocRecord record;
        record.name = "doc-" + std::to_string(d);
        record.source = copied ? kOwnText : static_cast<uint32_t>(block);
        record.text_offset = static_cast<uint32_t>(copied ? batch.text.size() : blocks[block]->bytes.size());
        record.text_length = static_cast<uint32_t>(docs[d].text.size());
        record.html = docs[d].html;
        record.file_ordinal = static_cast<uint32_t>(d % 3);
        record.source_offset = 10 * d;
        append(docs[d].text);
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
    // one, with the blocks page-locked as in a build where GPUs parse (the
    // analyzer copies their text from them, and gathers the rest).
    auto reference = host_reference_gpu_parse_backend(1).make_analyzer(0);
    std::unique_ptr<GpuBatchAnalyzer> device;
    std::unique_ptr<page_lockable::LockingScope> locking;
    if (!list_gpus().devices.empty()) {
        device = create_gpu_batch_analyzer(0);
        locking = page_lock_text_blocks(0);
    }
    for (const AnalysisSettings& settings : batch_settings()) {
        CAPTURE(settings.positions);
        CAPTURE(settings.stemmer);
        CAPTURE(settings.stopwords.size());
        for (const size_t gap : {size_t{0}, size_t{5}}) {
            for (const TextLayout layout : {TextLayout::copied, TextLayout::in_blocks, TextLayout::runs_in_blocks}) {
                CAPTURE(gap);
                CAPTURE(static_cast<int>(layout));
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
    // The sample's blocks are over 1 MiB: most of their text went straight from them.
    if (device) {
        CHECK(device->times().text_bytes_from_blocks > 0);
        CHECK(device->times().text_bytes_staged > 0);
    }
}

// Runs of documents in one block go as one piece with the bytes between
// them; a document far from the one before, or in another block or the
// batch's own text, starts another.
TEST_CASE("gpu parse batch: documents in blocks go as runs, one piece per run") {
    std::vector<AnalysisDocument> docs;
    for (int d = 0; d < 30; ++d) docs.push_back({"<p>words of document " + std::to_string(d) + "</p>", true});
    const DocBatch batch = doc_batch(docs, 5, TextLayout::runs_in_blocks);
    const GpuAnalysisInput input = gpu_analysis_input(batch, AnalysisSettings::defaults());
    CHECK(input.text.empty());
    // Pieces end where the block changes (every 7), at copied documents
    // (every 5th) and before far documents (every 11th): count them.
    size_t expected = 0;
    for (size_t d = 0; d < docs.size(); ++d) {
        const bool copied = d % 5 == 4;
        const bool joins = d > 0 && copied == ((d - 1) % 5 == 4) && (copied || (d / 7) % 2 == ((d - 1) / 7) % 2) &&
                           d % 11 != 10;
        expected += joins ? 0 : 1;
    }
    CHECK(input.pieces.size() == expected);
    CHECK(input.pieces.size() < docs.size());
    // Every document reads its own text where the pieces lay it out.
    std::string laid(input.text_size(), '\0');
    input.copy_text_to(laid.data());
    for (size_t d = 0; d < docs.size(); ++d)
        CHECK(laid.substr(input.offsets[d], input.lengths[d]) == docs[d].text);
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
