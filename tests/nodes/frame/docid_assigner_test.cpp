#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "nodes/frame/docid_assigner.hpp"

using namespace invidx;

namespace {

// A batch of documents of the given text lengths, holding `lease`.
std::shared_ptr<DocBatch> batch_of(const std::vector<size_t>& lengths, char fill, Lease lease = nullptr) {
    auto batch = std::make_shared<DocBatch>();
    for (const size_t length : lengths) {
        DocRecord doc;
        doc.name = std::string(1, fill) + std::to_string(batch->docs.size());
        doc.text_offset = static_cast<uint32_t>(batch->text.size());
        doc.text_length = static_cast<uint32_t>(length);
        batch->text.append(length, fill);
        batch->text_bytes += length;
        batch->docs.push_back(doc);
    }
    batch->lease = std::move(lease);
    return batch;
}

Lease new_lease() { return std::make_shared<int>(0); }

}  // namespace

TEST_CASE("DocidAssigner: dense docids and sequence numbers in the order batches come") {
    DocidAssigner assigner(100);
    std::vector<std::shared_ptr<DocBatch>> out;
    const EmitDocBatch emit = [&](std::shared_ptr<DocBatch> batch) { out.push_back(std::move(batch)); };
    assigner.take(batch_of({60, 10}, 'a', new_lease()), emit);
    assigner.take(batch_of({}, 'x', new_lease()), emit);  // a file's empty last batch: nothing
    assigner.take(batch_of({90}, 'b', new_lease()), emit);
    assigner.take(batch_of({55}, 'c', new_lease()), emit);
    assigner.finish(new_lease(), emit);
    REQUIRE(out.size() == 4);
    CHECK(out[0]->docs.size() == 2);
    CHECK(out[1]->docs[0].name == "b0");
    CHECK(out[2]->docs[0].name == "c0");
    CHECK(out[3]->docs.empty());
    uint64_t docid = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        CHECK(out[i]->sequence == i);
        CHECK(out[i]->first_docid == docid);
        CHECK(out[i]->lease != nullptr);
        CHECK(out[i]->end_of_input == (i + 1 == out.size()));
        docid += out[i]->docs.size();
    }
    CHECK(assigner.documents() == 4);
}

TEST_CASE("DocidAssigner: small batches are packed together, large ones pass with their text uncopied") {
    DocidAssigner assigner(100);
    std::vector<std::shared_ptr<DocBatch>> out;
    const EmitDocBatch emit = [&](std::shared_ptr<DocBatch> batch) { out.push_back(std::move(batch)); };
    // Small files, one document each: packed while they fit in 100 bytes.
    const Lease first = new_lease();
    assigner.take(batch_of({20}, 'a', first), emit);
    // The batch being packed holds no lease while it waits for the next.
    CHECK(first.use_count() == 1);
    assigner.take(batch_of({30, 5}, 'b', new_lease()), emit);
    assigner.take(batch_of({40}, 'c', new_lease()), emit);
    CHECK(out.empty());
    // Does not fit (95 + 10 > 100): the packed batch goes, with this batch's lease.
    const Lease closing = new_lease();
    assigner.take(batch_of({10}, 'd', closing), emit);
    REQUIRE(out.size() == 1);
    CHECK(out[0]->lease == closing);
    CHECK(out[0]->docs.size() == 4);
    CHECK(out[0]->text == std::string(20, 'a') + std::string(35, 'b') + std::string(40, 'c'));
    CHECK(out[0]->docs[3].text_offset == 55);
    CHECK(out[0]->docs[3].text_length == 40);
    CHECK(out[0]->docs[2].name == "b1");
    // A large batch closes the packed one and passes unchanged.
    auto large = batch_of({70}, 'e', new_lease());
    const char* large_text = large->text.data();
    assigner.take(large, emit);
    REQUIRE(out.size() == 3);
    CHECK(out[1]->docs.size() == 1);
    CHECK(out[1]->docs[0].name == "d0");
    CHECK(out[2] == large);
    CHECK(out[2]->text.data() == large_text);
    // The end: whatever is packed goes with the end mark and the sentinel's lease.
    assigner.take(batch_of({1}, 'f', new_lease()), emit);
    const Lease end = new_lease();
    assigner.finish(end, emit);
    REQUIRE(out.size() == 4);
    CHECK(out[3]->end_of_input);
    CHECK(out[3]->lease == end);
    CHECK(out[3]->docs.size() == 1);
    CHECK(out[3]->first_docid == 6);
}

TEST_CASE("DocidAssigner: a packed batch copies the text it pointed into blocks and lets them go") {
    DocidAssigner assigner(100);
    std::vector<std::shared_ptr<DocBatch>> out;
    const EmitDocBatch emit = [&](std::shared_ptr<DocBatch> batch) { out.push_back(std::move(batch)); };
    const auto in_block = [](const std::string& text, char name) {
        auto block = std::make_shared<TextBlock>();
        block->bytes = "<" + text + ">";
        block->lease = std::make_shared<int>(0);
        auto batch = std::make_shared<DocBatch>();
        DocRecord doc;
        doc.name = std::string(1, name);
        doc.source = 0;
        doc.text_offset = 1;
        doc.text_length = static_cast<uint32_t>(text.size());
        batch->docs.push_back(doc);
        batch->sources.push_back(block);
        batch->text_bytes = text.size();
        batch->lease = block->lease;
        return std::pair{batch, std::weak_ptr<const TextBlock>(block)};
    };
    auto [first, first_block] = in_block("small", 'a');
    assigner.take(std::move(first), emit);
    CHECK(first_block.expired());  // waiting, it holds no block
    auto [second, second_block] = in_block("smaller", 'b');
    assigner.take(std::move(second), emit);
    CHECK(second_block.expired());
    auto [large, large_block] = in_block(std::string(80, 'x'), 'c');
    assigner.take(std::move(large), emit);
    REQUIRE(out.size() == 2);
    CHECK(out[0]->text_of(out[0]->docs[0]) == "small");
    CHECK(out[0]->text_of(out[0]->docs[1]) == "smaller");
    CHECK(out[0]->text_bytes == 12);
    CHECK(out[0]->sources.empty());
    CHECK_FALSE(large_block.expired());  // a large batch keeps pointing into its block
    CHECK(out[1]->docs[0].source == 0);
    CHECK(out[1]->text_of(out[1]->docs[0]) == std::string(80, 'x'));
}
