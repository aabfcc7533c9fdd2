#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/frame/file_framer.hpp"

using namespace invidx;

namespace {

InputFile file_of(const std::string& format, uint32_t ordinal = 7) {
    InputFile file;
    file.ordinal = ordinal;
    file.path = "/data/in." + format;
    file.name = "in." + format;
    file.format = format;
    return file;
}

std::shared_ptr<const TextBlock> block(uint64_t number, std::string bytes, bool entry_begin, bool entry_end,
                                       bool file_end, Lease lease = std::make_shared<int>(0),
                                       const std::string& entry_name = "in.jsonl") {
    auto text = std::make_shared<TextBlock>();
    text->file_ordinal = 7;
    text->file_block = number;
    text->bytes = std::move(bytes);
    text->entry_name = entry_name;
    text->entry_begin = entry_begin;
    text->entry_end = entry_end;
    text->file_end = file_end;
    text->lease = std::move(lease);
    return text;
}

std::string line(const std::string& id, const std::string& contents) {
    return "{\"id\": \"" + id + "\", \"contents\": \"" + contents + "\"}\n";
}

}  // namespace

TEST_CASE("FileFramer: batches numbered within the file, the last one marked, leases of the emitting block") {
    const InputFile file = file_of("jsonl");
    FileFramer framer(file, AnalysisSettings::defaults(), 10);
    std::vector<FileBatch> out;
    const EmitFileBatch emit = [&](FileBatch&& batch) { out.push_back(std::move(batch)); };
    const std::string lines = line("a", "12345") + line("b", "678") + line("c", "9012345678901") + line("d", "x");
    const size_t cut = lines.size() / 2;  // inside the record of "b" or "c"
    const Lease first = std::make_shared<int>(1);
    framer.take(block(0, lines.substr(0, cut), true, false, false, first), emit);
    // What is emitted holds the lease; the batch in progress does not.
    const long held_by_emitted = static_cast<long>(out.size());
    CHECK(first.use_count() == 1 + held_by_emitted);
    const Lease second = std::make_shared<int>(2);
    framer.take(block(1, lines.substr(cut), false, true, true, second), emit);
    CHECK(framer.ended());
    // a+b fit in 10 bytes; c (13 bytes) is a batch of its own; d the last.
    REQUIRE(out.size() == 3);
    CHECK(out[0].batch->text == "12345678");
    CHECK(out[1].batch->text == "9012345678901");
    CHECK(out[2].batch->text == "x");
    for (size_t i = 0; i < out.size(); ++i) {
        CHECK(out[i].position.file == 7);
        CHECK(out[i].position.block == i);
        CHECK(out[i].position.file_end == (i == 2));
        CHECK(out[i].batch->lease != nullptr);
        for (const DocRecord& doc : out[i].batch->docs) CHECK(doc.file_ordinal == 7);
    }
    CHECK(out[2].batch->lease == second);
    CHECK(out[1].batch->docs[0].name == "c");
    CHECK(out[1].batch->docs[0].record_number == 2);
    CHECK(out[1].batch->docs[0].source_offset == line("a", "12345").size() + line("b", "678").size());
}

TEST_CASE("FileFramer: a file without documents, or without entries, ends with one empty batch") {
    for (const bool with_entry : {true, false}) {
        CAPTURE(with_entry);
        const InputFile file = file_of("jsonl");
        FileFramer framer(file, AnalysisSettings::defaults(), 100);
        std::vector<FileBatch> out;
        const EmitFileBatch emit = [&](FileBatch&& batch) { out.push_back(std::move(batch)); };
        // An entry of blank lines, then the empty file_end marker; or the marker alone.
        if (with_entry) framer.take(block(0, "\n\n", true, true, false), emit);
        framer.take(block(with_entry ? 1 : 0, "", false, false, true), emit);
        REQUIRE(out.size() == 1);
        CHECK(out[0].batch->docs.empty());
        CHECK(out[0].position.file_end);
        CHECK(framer.ended());
    }
}

TEST_CASE("FileFramer: framing errors name the file as given, the record and the offset") {
    const InputFile file = file_of("jsonl");
    FileFramer framer(file, AnalysisSettings::defaults(), 100);
    const EmitFileBatch ignore = [](FileBatch&&) {};
    const std::string good = line("a", "b");
    try {
        framer.take(block(0, good + "not json\n", true, true, true), ignore);
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.context().file == "/data/in.jsonl");
        CHECK(error.context().record == 1);
        CHECK(error.context().byte_offset == good.size());
    }
    // A file that ends inside an entry is an error naming the file too.
    FileFramer cut_short(file, AnalysisSettings::defaults(), 100);
    try {
        cut_short.take(block(0, good, true, false, true), ignore);
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.context().file == "/data/in.jsonl");
    }
}

namespace {

std::string trec_doc(const std::string& id, const std::string& text) {
    return "<DOC><DOCNO>" + id + "</DOCNO>" + text + "</DOC>\n";
}

bool points_into(std::string_view text, const TextBlock& block) {
    const std::less_equal<const char*> at_most;
    return at_most(block.bytes.data(), text.data()) && at_most(text.data() + text.size(), block.bytes.data() + block.bytes.size());
}

}  // namespace

TEST_CASE("FileFramer: documents whole in a block point into it, straddling ones and the batch in progress are copied") {
    const InputFile file = file_of("trec");
    // The framer copies the straddling record with up to 64 KiB after it
    // (nodes/frame/stream_window.hpp), so "delta" comes well after that.
    const std::string filler(100000, 'f');
    const std::string docs = trec_doc("a", "alpha") + trec_doc("a2", "apple") + trec_doc("b", "bravo") + trec_doc("c", "charlie") +
                             trec_doc("f", filler) + trec_doc("d", "delta");
    const size_t cut = docs.find("bra");  // inside b
    for (const uint64_t batch_bytes : {uint64_t{1000}, uint64_t{5}}) {
        CAPTURE(batch_bytes);
        FileFramer framer(file, AnalysisSettings::defaults(), batch_bytes);
        std::vector<FileBatch> out;
        const EmitFileBatch emit = [&](FileBatch&& batch) { out.push_back(std::move(batch)); };
        auto first = block(0, docs.substr(0, cut), true, false, false, std::make_shared<int>(0), "in.trec");
        framer.take(first, emit);
        // Only emitted batches keep the block; the batch in progress copied its text out of it.
        long holders = 0;
        for (const auto& batch : out) holders += static_cast<long>(batch.batch->sources.size());
        CHECK(first.use_count() == 1 + holders);
        auto second = block(1, docs.substr(cut), false, true, true, std::make_shared<int>(0), "in.trec");
        framer.take(second, emit);
        std::vector<std::string> texts;
        std::vector<const DocBatch*> owners;
        for (const auto& batch : out) {
            for (const DocRecord& doc : batch.batch->docs) {
                texts.emplace_back(batch.batch->text_of(doc));
                CHECK(batch.batch->text_bytes >= doc.text_length);
            }
        }
        CHECK(texts == std::vector<std::string>{"alpha", "apple", "bravo", "charlie", filler, "delta"});
        // "delta" lies whole in the second block: not copied.
        const DocBatch& last = *out.back().batch;
        const DocRecord& delta = last.docs.back();
        REQUIRE(delta.source != kOwnText);
        CHECK(points_into(last.text_of(delta), *second));
        CHECK(last.sources[delta.source] == second);
        // "bravo" straddled the two blocks: copied.
        for (const auto& batch : out) {
            for (const DocRecord& doc : batch.batch->docs) {
                if (doc.name == "b") CHECK(doc.source == kOwnText);
            }
        }
        if (batch_bytes == 5) {
            // A batch emitted inside the first block points into it and keeps it.
            REQUIRE(out.size() >= 6);
            CHECK(out[0].batch->docs[0].name == "a");
            CHECK(out[0].batch->docs[0].source == 0);
            CHECK(out[0].batch->sources.at(0) == first);
        }
    }
}

TEST_CASE("FileFramer: a block's last batch of over half a batch is emitted as it stands, a smaller one copied") {
    const InputFile file = file_of("trec");
    const std::string body(100, 'x');
    std::string first_text, second_text;
    for (int i = 0; i < 7; ++i) first_text += trec_doc("a" + std::to_string(i), body);
    for (int i = 0; i < 2; ++i) second_text += trec_doc("b" + std::to_string(i), body);
    // 700 bytes of text in the first block against batches of 400: cut at
    // 400, and the 300 in progress at the block's end (over half a batch)
    // is a batch of its own, pointing into the block, not copied.
    FileFramer framer(file, AnalysisSettings::defaults(), 400);
    std::vector<FileBatch> out;
    const EmitFileBatch emit = [&](FileBatch&& batch) { out.push_back(std::move(batch)); };
    auto first = block(0, first_text, true, false, false, std::make_shared<int>(0), "in.trec");
    framer.take(first, emit);
    REQUIRE(out.size() == 2);
    const std::vector<size_t> docs_per_batch{4, 3};
    for (size_t i = 0; i < out.size(); ++i) {
        const DocBatch& batch = *out[i].batch;
        CHECK(batch.docs.size() == docs_per_batch[i]);
        CHECK(batch.text.empty());
        CHECK(batch.text_bytes == 100 * docs_per_batch[i]);
        for (const DocRecord& doc : batch.docs) CHECK(points_into(batch.text_of(doc), *first));
    }
    CHECK(first.use_count() == 3);  // the two batches hold it, with its lease
    // The second block's two documents (200 bytes, not more than half a
    // batch) are in progress at its end; the file's end emits them.
    auto second = block(1, second_text, false, true, true, std::make_shared<int>(0), "in.trec");
    framer.take(second, emit);
    REQUIRE(out.size() == 3);
    CHECK(out[2].position.file_end);
    CHECK(out[2].batch->docs.size() == 2);
    // A block ending with at most half a batch in progress copies it out,
    // holding no block until the next arrives (batches of 1000: all 700
    // bytes are one batch, more than half, so emitted; of 1400: copied).
    for (const uint64_t batch_bytes : {uint64_t{1000}, uint64_t{1400}}) {
        CAPTURE(batch_bytes);
        FileFramer whole(file, AnalysisSettings::defaults(), batch_bytes);
        std::vector<FileBatch> emitted;
        auto only = block(0, first_text, true, false, false, std::make_shared<int>(0), "in.trec");
        whole.take(only, [&](FileBatch&& batch) { emitted.push_back(std::move(batch)); });
        CHECK(emitted.size() == (batch_bytes == 1000 ? 1u : 0u));
        CHECK(only.use_count() == 1 + static_cast<long>(emitted.size()));
    }
}
