// documents.bin in pieces: records and offsets written by range at their
// places, a header and a footer, give the writer's file byte for byte, and
// a writer adopts such a file with checksums put together from its spans.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "store/checksum_spans.hpp"
#include "store/crc32.hpp"
#include "store/document_pieces.hpp"
#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

std::vector<ParsedDoc> some_documents(size_t count) {
    std::mt19937 random(11);
    std::vector<ParsedDoc> docs;
    for (size_t d = 0; d < count; ++d)
        docs.push_back({.name = "doc-" + std::string(random() % 40, 'x') + std::to_string(d),
                        .length = static_cast<uint32_t>(random() % 1000), .file_ordinal = static_cast<uint32_t>(d / 100),
                        .source_offset = random()});
    return docs;
}

// An index holding `docs` (no postings); its documents streamed unless
// `adopted` names a documents.bin to adopt.
void write_documents_index(const fs::path& final_dir, const std::vector<ParsedDoc>& docs,
                           const WrittenDocuments* adopted = nullptr, const std::string* adopted_bytes = nullptr) {
    IndexWriter writer(final_dir, fixture_settings(false), {});
    if (adopted) {
        const fs::path path = writer.temporary_directory() / "joined-documents.bin";
        std::ofstream(path, std::ios::binary) << *adopted_bytes;
        writer.adopt_documents(*adopted, path);
    } else {
        writer.append_documents(docs);
    }
    writer.write_dictionary({});
    writer.publish();
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("documents.bin written in ranges at their places equals the writer's and is adopted as its own") {
    TempDir dir;
    const std::vector<ParsedDoc> docs = some_documents(5000);
    write_documents_index(dir / "streamed", docs);
    const std::string streamed = read_bytes(dir / "streamed" / "documents.bin");

    // Uneven ranges, one empty, each placed from the counts and record
    // bytes of the ranges before it, written in small pieces.
    const std::vector<size_t> cuts = {0, 1200, 1200, 4100, 5000};
    uint64_t record_bytes = 0;
    for (const auto& doc : docs) record_bytes += document_record_bytes(doc.name.size());
    const uint64_t table_offset = kDocumentsHeaderBytes + record_bytes;
    const uint64_t size = table_offset + 8 * docs.size() + 20;
    std::string file(size, '\0');
    std::vector<ChecksumSpan> spans;
    const auto write = [&](uint64_t offset, const std::string& bytes) {
        file.replace(offset, bytes.size(), bytes);
        add_checksum_spans(spans, offset, bytes);
    };
    write(0, encode_documents_header());
    uint64_t records_before = 0;
    for (size_t range = 0; range + 1 < cuts.size(); ++range) {
        // A record at a time, then an entry at a time.
        uint64_t record_at = kDocumentsHeaderBytes + records_before;
        std::vector<uint64_t> record_offsets;
        for (size_t d = cuts[range]; d < cuts[range + 1]; ++d) {
            std::string record;
            encode_document_record(record, docs[d]);
            CHECK(record.size() == document_record_bytes(docs[d].name.size()));
            write(record_at, record);
            record_offsets.push_back(record_at);
            record_at += record.size();
        }
        for (size_t d = cuts[range]; d < cuts[range + 1]; ++d) {
            std::string entry;
            encode_document_offset(entry, record_offsets[d - cuts[range]]);
            write(table_offset + 8 * d, entry);
        }
        records_before = record_at - kDocumentsHeaderBytes;
    }
    write(size - 20, encode_documents_footer(docs.size(), table_offset));
    const FileChecksums content = assemble_checksums(spans, size - 4);
    std::string trailer;
    for (int i = 0; i < 4; ++i) trailer.push_back(static_cast<char>(content.crc32 >> (8 * i)));
    write(size - 4, trailer);
    CHECK(file == streamed);
    // Pieces of a block joined as they came: about one span per block, not
    // one per piece.
    CHECK(spans.size() <= size / 65536 + 1 + 2 * cuts.size() + 3);

    const FileChecksums whole = assemble_checksums(spans, size);
    CHECK(whole.crc32 == crc32(streamed));
    uint64_t total_length = 0;
    for (const auto& doc : docs) total_length += doc.length;
    const WrittenDocuments written{.size_bytes = size, .crc32 = whole.crc32, .block_crcs = whole.block_crcs,
                                   .documents = docs.size(), .total_length = total_length};
    write_documents_index(dir / "adopted", docs, &written, &file);
    CHECK(read_bytes(dir / "adopted" / "documents.bin") == streamed);
    CHECK(read_bytes(dir / "adopted" / "manifest.json") == read_bytes(dir / "streamed" / "manifest.json"));
    CHECK(read_bytes(dir / "adopted" / "checksums.bin") == read_bytes(dir / "streamed" / "checksums.bin"));
    const IndexReader index(dir / "adopted");
    CHECK(index.documents_record_bytes() == record_bytes);
    CHECK(index.document(4321).name == docs[4321].name);

    // A file that is not the size its writers reported is refused.
    WrittenDocuments wrong = written;
    wrong.size_bytes += 1;
    CHECK_THROWS_AS(write_documents_index(dir / "wrong", docs, &wrong, &file), Error);
}
