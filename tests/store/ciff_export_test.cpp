#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "store/ciff_export.hpp"
#include "store/index_fixture.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;

namespace {

// A tiny protobuf wire-format decoder, written from the encoding spec and
// independent of store/protobuf_wire.hpp: a message is a map from field
// number to the raw values found (varints as numbers, fixed64 as bits,
// length-delimited as bytes), in order.
struct Field {
    int wire_type = 0;
    uint64_t number = 0;  // varint or fixed64
    std::string bytes;    // length-delimited
};
using Message = std::multimap<uint32_t, Field>;

uint64_t read_varint(const std::string& in, size_t& pos) {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
        REQUIRE(pos < in.size());
        const auto byte = static_cast<unsigned char>(in[pos++]);
        value |= uint64_t{byte & 0x7Fu} << shift;
        if ((byte & 0x80) == 0) return value;
    }
}

Message decode(const std::string& in) {
    Message message;
    size_t pos = 0;
    uint32_t previous_field = 0;
    while (pos < in.size()) {
        const uint64_t key = read_varint(in, pos);
        Field field;
        field.wire_type = static_cast<int>(key & 7);
        const auto number = static_cast<uint32_t>(key >> 3);
        CHECK(number >= previous_field);  // protobuf writes fields in number order
        previous_field = number;
        if (field.wire_type == 0) {
            field.number = read_varint(in, pos);
        } else if (field.wire_type == 1) {
            REQUIRE(pos + 8 <= in.size());
            for (int i = 7; i >= 0; --i) field.number = (field.number << 8) | static_cast<unsigned char>(in[pos + static_cast<size_t>(i)]);
            pos += 8;
        } else if (field.wire_type == 2) {
            const uint64_t length = read_varint(in, pos);
            REQUIRE(pos + length <= in.size());
            field.bytes = in.substr(pos, length);
            pos += length;
        } else {
            FAIL("unexpected wire type " << field.wire_type);
        }
        message.emplace(number, field);
    }
    return message;
}

// Splits a stream of varint-length-delimited messages.
std::vector<std::string> split_delimited(const std::string& stream) {
    std::vector<std::string> messages;
    size_t pos = 0;
    while (pos < stream.size()) {
        const uint64_t length = read_varint(stream, pos);
        REQUIRE(pos + length <= stream.size());
        messages.push_back(stream.substr(pos, length));
        pos += length;
    }
    return messages;
}

// A proto3 scalar: absent means 0.
uint64_t scalar(const Message& message, uint32_t field, int wire_type = 0) {
    CHECK(message.count(field) <= 1);
    const auto found = message.find(field);
    if (found == message.end()) return 0;
    CHECK(found->second.wire_type == wire_type);
    return found->second.number;
}

std::string text(const Message& message, uint32_t field) {
    const auto found = message.find(field);
    return found == message.end() ? "" : found->second.bytes;
}

}  // namespace

TEST_CASE("CIFF export of a one-document index matches hand-encoded bytes") {
    TempDir dir;
    {
        invidx::IndexWriter writer(dir / "idx", fixture_settings(false), {});
        invidx::RunPostings postings{.run = 0, .indexer = 0, .indexer_count = 1, .lists = {}, .positional = false, .end_of_input = true, .documents = {}};
        postings.lists.push_back({.slot = 0, .docids = {0}, .tfs = {1}, .positions = {}});
        writer.write_run(0, {invidx::run_list::encode_run(postings)});
        writer.append_documents({{.name = "d0", .length = 1, .file_ordinal = 0, .source_offset = 0}});
        writer.write_dictionary({{.term = "a", .collection = 0, .df = 1, .cf = 1, .lists = {{0, 0, 0}}}});
        writer.publish();
    }
    const invidx::IndexReader index(dir / "idx");
    std::ostringstream out;
    invidx::export_ciff(index, out, "x");
    // Worked out by hand from the protobuf encoding rules: zero fields
    // (docid 0) are absent; 1.0 is 0x3FF0000000000000 little-endian.
    const std::string expected(
        "\x18"                                   // Header, 24 bytes
        "\x08\x01\x10\x01\x18\x01\x20\x01\x28\x01\x30\x01"
        "\x39\x00\x00\x00\x00\x00\x00\xf0\x3f"
        "\x42\x01x"
        "\x0b"                                   // PostingsList, 11 bytes
        "\x0a\x01" "a" "\x10\x01\x18\x01"
        "\x22\x02\x10\x01"                       // Posting{docid 0 (absent), tf 1}
        "\x06"                                   // DocRecord, 6 bytes
        "\x12\x02" "d0" "\x18\x01",
        24 + 1 + 11 + 1 + 6 + 1);
    CHECK(out.str() == expected);
}

TEST_CASE("CIFF export decodes to the collection, field by field") {
    TempDir dir;
    const auto collection = make_collection(30, 21);
    write_index(collection, dir / "idx", {.runs = 3, .indexers = 2, .positional = true, .report = {}, .publish = true});
    const invidx::IndexReader index(dir / "idx");
    std::ostringstream out;
    invidx::export_ciff(index, out, "test export");
    const auto messages = split_delimited(out.str());
    REQUIRE(messages.size() == 1 + collection.postings.size() + collection.docs.size());

    uint64_t total_length = 0;
    for (const auto& doc : collection.docs) total_length += doc.tokens.size();
    const auto header = decode(messages[0]);
    CHECK(scalar(header, 1) == 1);
    CHECK(scalar(header, 2) == collection.postings.size());
    CHECK(scalar(header, 3) == collection.docs.size());
    CHECK(scalar(header, 4) == collection.postings.size());
    CHECK(scalar(header, 5) == collection.docs.size());
    CHECK(scalar(header, 6) == total_length);
    const uint64_t bits = scalar(header, 7, 1);
    double average = 0;
    std::memcpy(&average, &bits, sizeof average);
    CHECK(average == double(total_length) / double(collection.docs.size()));
    CHECK(text(header, 8) == "test export");

    size_t m = 1;
    for (const auto& [term, expected] : collection.postings) {
        CAPTURE(term);
        const auto list = decode(messages[m++]);
        CHECK(text(list, 1) == term);
        CHECK(scalar(list, 2) == expected.size());
        uint64_t cf = 0;
        for (const auto& posting : expected) cf += posting.tf;
        CHECK(scalar(list, 3) == cf);
        const auto [begin, end] = list.equal_range(4);
        REQUIRE(static_cast<size_t>(std::distance(begin, end)) == expected.size());
        uint32_t docid = 0;
        size_t k = 0;
        for (auto it = begin; it != end; ++it, ++k) {
            CHECK(it->second.wire_type == 2);
            const auto posting = decode(it->second.bytes);
            docid += static_cast<uint32_t>(scalar(posting, 1));  // gaps; the first absolute
            CHECK(docid == expected[k].docid);
            CHECK(scalar(posting, 2) == expected[k].tf);
        }
    }
    for (uint32_t docid = 0; docid < collection.docs.size(); ++docid) {
        const auto record = decode(messages[m++]);
        CHECK(scalar(record, 1) == docid);
        CHECK(text(record, 2) == collection.docs[docid].name);
        CHECK(scalar(record, 3) == collection.docs[docid].tokens.size());
        if (docid == 0) CHECK(record.count(1) == 0);  // proto3 leaves out zeros
    }
}

TEST_CASE("the default CIFF description names the analysis, not paths") {
    TempDir dir;
    write_index(make_collection(3, 22), dir / "idx", {.runs = 1, .indexers = 1, .positional = false, .report = {}, .publish = true});
    const invidx::IndexReader index(dir / "idx");
    const auto description = invidx::default_ciff_description(index);
    CHECK(description.find("porter") != std::string::npos);
    CHECK(description.find(dir.path().string()) == std::string::npos);
}
