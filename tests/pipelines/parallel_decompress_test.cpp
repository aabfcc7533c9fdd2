// Several decompress workers decode different files at once; the frame node
// must still see the collection in order, so every worker count gives the
// same docids: byte-identical CIFF exports, equal to a reference index.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "nodes/decompress/gpu_inflate_backend.hpp"
#include "support/collections.hpp"
#include "support/gzip_member.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

struct Collection {
    std::vector<std::pair<std::string, std::string>> files;  // name under the input root, bytes; sorted
    ReferenceIndex reference;
};

class CollectionBuilder {
public:
    explicit CollectionBuilder(unsigned seed) : random_(seed), words_(test_vocabulary(random_, 300)) {}

    // A .warc.gz with one gzip member per record, or a plain .warc.
    void warc(size_t documents, bool gzipped) {
        std::string bytes;
        for (size_t d = 0; d < documents; ++d) {
            const std::string id = "d" + std::to_string(next_document_++);
            const std::string html = d % 11 == 4 ? std::string() : random_html(random_, words_, 10 + random_() % 300);
            const std::string request = warc_request(id);
            const std::string response = warc_response(id, html, d % 2 == 0);
            bytes += gzipped ? gzip(request) + gzip(response) : request + response;
            collection_.reference.add(warc_document_name(id, d % 2 == 0), html, true, analyzer_);
        }
        add(gzipped ? ".warc.gz" : ".warc", bytes);
    }

    // A .tar.gz of text members (each one document named by its path), with
    // a directory member among them; no text members leaves only the directory.
    void tar(size_t members) {
        std::vector<Member> list{Member{"dir", "", AE_IFDIR}};
        const std::string prefix = "m" + std::to_string(collection_.files.size());
        for (size_t m = 0; m < members; ++m) {
            const std::string path = "dir/" + prefix + "-" + std::to_string(m) + ".txt";
            const std::string text = random_html(random_, words_, 5 + random_() % 200);
            list.push_back(Member{path, text});
            collection_.reference.add(path, text, false, analyzer_);
        }
        add(".tar.gz", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP, list));
    }

    // A plain text file: one document named by its path (an empty one too).
    void text(size_t tokens) {
        const std::string text = tokens == 0 ? std::string() : random_html(random_, words_, tokens);
        const std::string name = add(".txt", text);
        collection_.reference.add(name, text, false, analyzer_);
    }

    Collection take() { return std::move(collection_); }

private:
    // Names sort in the order files are added: that is the docid order.
    std::string add(const std::string& suffix, std::string bytes) {
        char prefix[16];
        std::snprintf(prefix, sizeof prefix, "f%03zu", collection_.files.size());
        std::string name = prefix + suffix;
        collection_.files.emplace_back(name, std::move(bytes));
        return name;
    }

    std::mt19937 random_;
    std::vector<std::string> words_;
    Analyzer analyzer_{AnalysisSettings::defaults(), TokenScan::scalar};  // the reference scan
    Collection collection_;
    size_t next_document_ = 0;
};

// The small files of every kind, in a fixed mix.
void add_small_files(CollectionBuilder& builder, size_t rounds) {
    for (size_t r = 0; r < rounds; ++r) {
        builder.warc(1 + r % 3, true);
        builder.text(r % 4 == 0 ? 0 : 20);
        builder.tar(r % 3 == 1 ? 0 : 1 + r % 4);
        builder.warc(1 + r % 2, false);
    }
}

Collection large_first() {
    CollectionBuilder builder(21);
    builder.warc(120, true);
    builder.tar(0);  // only a directory
    add_small_files(builder, 6);
    builder.text(0);
    return builder.take();
}

Collection large_last() {
    CollectionBuilder builder(22);
    builder.text(0);
    add_small_files(builder, 6);
    builder.tar(25);
    builder.warc(60, false);
    builder.warc(120, true);
    return builder.take();
}

Collection large_in_between() {
    CollectionBuilder builder(23);
    add_small_files(builder, 3);
    builder.warc(120, true);
    builder.tar(0);
    builder.warc(80, true);
    add_small_files(builder, 3);
    return builder.take();
}

}  // namespace

TEST_CASE("any number of decompress workers gives the same index, with few or many tokens") {
    const std::vector<std::pair<std::string, Collection (*)()>> layouts = {
        {"one large file, then many small ones", large_first},
        {"many small files, then large ones", large_last},
        {"large files among small ones", large_in_between},
    };
    for (const auto& [layout, make] : layouts) {
        CAPTURE(layout);
        TempDir dir;
        const Collection collection = make();
        for (const auto& [name, bytes] : collection.files) dir.write("in/" + name, bytes);
        std::string first_ciff;
        size_t built = 0;
        for (const unsigned tokens : {2u, 16u}) {
            for (const unsigned count : {1u, 2u, 3u, 7u}) {
                CAPTURE(tokens);
                CAPTURE(count);
                std::vector<std::string> overrides = {"decompress.count=" + std::to_string(count),
                                                      "memory.tokens=" + std::to_string(tokens)};
                if (tokens == 2) {
                    // Tiny blocks: many blocks per file, most messages wait for a token.
                    for (const char* o : {"memory.read_block_bytes=777", "memory.text_block_bytes=1000",
                                          "memory.batch_bytes=3000", "memory.run_bytes=20000"})
                        overrides.emplace_back(o);
                } else {
                    overrides.emplace_back("memory.read_block_bytes=5000");
                    overrides.emplace_back("memory.batch_bytes=10000");
                }
                const auto output = dir / ("index-" + std::to_string(built++));
                build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1), overrides);
                const std::string ciff = ciff_bytes(output);
                if (first_ciff.empty()) {
                    IndexReader index(output);
                    check_index_equals(index, collection.reference);
                    first_ciff = ciff;
                    CHECK(ciff.size() > 1000);
                } else {
                    CHECK(ciff == first_ciff);
                }
            }
        }
    }
}

TEST_CASE("decompress count: \"auto\" and explicit counts are accepted, 0 is an error") {
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "one two") + warc_response("b", "three"));
    dir.write("in/b.txt", "four five");
    build_index(standard_pipeline({(dir / "in").string()}, dir / "auto", 1, 1), {"decompress.count=auto"});
    build_index(standard_pipeline({(dir / "in").string()}, dir / "five", 1, 1), {"decompress.count=5"});
    CHECK(ciff_bytes(dir / "auto") == ciff_bytes(dir / "five"));
    CHECK_THROWS_AS(build_index(standard_pipeline({(dir / "in").string()}, dir / "zero", 1, 1), {"decompress.count=0"}),
                    ConfigError);
}

TEST_CASE("split_gzip: a gzip file decoded in chunks on several workers gives the same index") {
    const std::vector<std::pair<std::string, Collection (*)()>> layouts = {
        {"one large file, then many small ones", large_first},
        {"large files among small ones", large_in_between},
    };
    for (const auto& [layout, make] : layouts) {
        CAPTURE(layout);
        TempDir dir;
        const Collection collection = make();
        for (const auto& [name, bytes] : collection.files) dir.write("in/" + name, bytes);
        size_t built = 0;
        std::string unsplit_ciff;
        for (const unsigned tokens : {2u, 16u}) {
            for (const unsigned count : {1u, 3u}) {
                for (const bool split : {false, true}) {
                    CAPTURE(tokens);
                    CAPTURE(count);
                    CAPTURE(split);
                    // 2 tokens: a chunk may hold no more than one block, so
                    // most records are longer than a chunk and the files fall
                    // back to decoding in order; 16: 2 kB blocks, chunks of
                    // up to 4 blocks, most decoded alone.
                    std::vector<std::string> overrides = {
                        "decompress.count=" + std::to_string(count), "memory.tokens=" + std::to_string(tokens),
                        std::string("decompress.split_gzip=") + (split ? "true" : "false"),
                        tokens == 2 ? "memory.read_block_bytes=777" : "memory.read_block_bytes=2048",
                        "memory.batch_bytes=3000"};
                    const auto output = dir / ("index-" + std::to_string(built++));
                    build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1), overrides);
                    const std::string ciff = ciff_bytes(output);
                    IndexReader index(output);
                    if (unsplit_ciff.empty()) {
                        check_index_equals(index, collection.reference);
                        unsplit_ciff = ciff;
                    }
                    CHECK(ciff == unsplit_ciff);
                    const nlohmann::json& report = *index.report();
                    CHECK(report.contains("split_gzip") == split);  // on by default; false: no section
                    if (split) {
                        CHECK(report.at("split_gzip").at("files_split").get<uint64_t>() >= 1);
                        CHECK(report.at("split_gzip").at("chunks").get<uint64_t>() > 1);
                        if (tokens == 16)
                            CHECK(report.at("split_gzip").at("chunks_not_decoded_alone").get<uint64_t>() <
                                  report.at("split_gzip").at("chunks").get<uint64_t>());
                    }
                }
            }
        }
    }
}

TEST_CASE("split_gzip: a file of one gzip stream streams through one worker, a file of members is split") {
    TempDir dir;
    std::string records;
    std::string members;
    for (int d = 0; d < 300; ++d) {
        const std::string text = "page " + std::to_string(d) + " of the crawl, words " + std::to_string(d * 7) +
                                 " and " + std::to_string(d * 13) + " for the index";
        records += warc_response("stream-" + std::to_string(d), text);
        members += gzip(warc_response("member-" + std::to_string(d), text));
    }
    dir.write("in/a-one-stream.warc.gz", gzip(records));
    dir.write("in/b-per-record.warc.gz", members);
    dir.write("in/c-one-stream.warc.gz", gzip(records + records));
    const std::vector<std::string> small = {"memory.read_block_bytes=2048", "memory.tokens=16", "decompress.count=2"};
    std::vector<std::string> unsplit = small;
    unsplit.push_back("decompress.split_gzip=false");
    build_index(standard_pipeline({(dir / "in").string()}, dir / "unsplit", 2, 1), unsplit);
    const BuildReport split = build_index(standard_pipeline({(dir / "in").string()}, dir / "split", 2, 1), small);
    CHECK(ciff_bytes(dir / "split") == ciff_bytes(dir / "unsplit"));
    const nlohmann::json& section = split.json.at("split_gzip");
    CHECK(section.at("files_split").get<uint64_t>() == 1);  // the per-record file only
    CHECK(section.at("chunks").get<uint64_t>() > 1);
    CHECK(section.at("files_decoded_in_order_from_a_chunk").get<uint64_t>() == 0);
}

namespace {

std::string gzip_member(std::string_view text, MemberOptions options) { return member(text, options); }

// The build's error message, or "" when it builds.
std::string build_error(const std::filesystem::path& input, const std::filesystem::path& output,
                        const std::vector<std::string>& overrides) {
    try {
        build_index(standard_pipeline({input.string()}, output, 2, 1), overrides);
    } catch (const std::exception& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("split_gzip_streams: a file of one gzip stream cut into pieces gives the same index, and the same errors") {
    const std::string records = random_warc_records(11, 700);
    const size_t middle = records.find("WARC/1.0", records.size() / 2);
    const std::string plain = gzip_member(records, {});
    std::string damaged_crc = plain;
    damaged_crc[damaged_crc.size() - 6] = static_cast<char>(damaged_crc[damaged_crc.size() - 6] ^ 1);
    const std::vector<std::pair<std::string, std::string>> files = {
        {"plain", plain},
        {"flush-points", gzip_member(records, {.level = 6, .flush_every = 50'000})},
        {"level-1", gzip_member(records, {.level = 1})},
        {"stored", gzip_member(records, {.level = 0})},
        {"two-members", gzip_member(records.substr(0, middle), {}) + gzip_member(records.substr(middle), {})},
        {"zero-padding", plain + std::string(3000, '\0')},
        {"damaged-crc", damaged_crc},
        {"truncated", plain.substr(0, plain.size() - 3000)},
        {"garbage-after", plain + "garbage"},
    };
    // 64 KiB read blocks in pieces of 16 KiB: the plain file is some twenty pieces.
    const std::vector<std::string> small = {"memory.read_block_bytes=65536", "decompress.stream_piece_bytes=16384",
                                            "decompress.count=3", "memory.tokens=16"};
    for (const auto& [name, bytes] : files) {
        CAPTURE(name);
        TempDir dir;
        const auto input = dir.write("in/" + name + ".warc.gz", bytes);
        std::vector<std::string> unsplit = small, split = small;
        unsplit.push_back("decompress.split_gzip_streams=false");
        split.push_back("decompress.split_gzip_streams=true");
        const std::string unsplit_error = build_error(input, dir / "unsplit", unsplit);
        const std::string split_error = build_error(input, dir / "split", split);
        CHECK(split_error == unsplit_error);
        const bool damaged = name == "damaged-crc" || name == "truncated" || name == "garbage-after";
        CHECK(split_error.empty() == !damaged);
        if (damaged) {
            CHECK(split_error.find(name + ".warc.gz") != std::string::npos);
            CHECK_FALSE(std::filesystem::exists(dir / "split"));
            continue;
        }
        CHECK(ciff_bytes(dir / "split") == ciff_bytes(dir / "unsplit"));
        IndexReader index(dir / "split");
        const nlohmann::json& section = index.report()->at("split_gzip");
        CAPTURE(section.dump());
        CHECK(section.at("stream_files_split").get<uint64_t>() == 1);
        CHECK(section.at("chunks").get<uint64_t>() > 10);
        // What follows a first member goes on in order from its end; a
        // stream no piece can start in is decoded again from its start.
        const bool continued = name == "two-members" || name == "zero-padding";
        const bool again = name == "stored";
        CHECK(section.at("stream_files_continued_after_a_member").get<uint64_t>() == (continued ? 1u : 0u));
        CHECK(section.at("stream_files_decoded_again").get<uint64_t>() == (again ? 1u : 0u));
        CHECK(section.at("files_decoded_in_order_from_a_chunk").get<uint64_t>() == 0);
        if (!again) CHECK(section.at("stream_pieces_decoded_again").get<uint64_t>() == 0);
    }
}

TEST_CASE("gpu_stream_pieces (host reference GPU): pieces searched on the GPU workers give the same index and errors") {
    // The pretend GPU runs the kernel's warp decoder on the host
    // (devices/inflate/host_lanes.hpp), so every piece but each file's first
    // goes through the GPU workers' batches and back to the reassembler.
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(1));
    const std::string records = random_warc_records(13, 700);
    const size_t middle = records.find("WARC/1.0", records.size() / 2);
    const std::string plain = gzip_member(records, {});
    std::string damaged = plain;
    damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x21);
    const std::vector<std::pair<std::string, std::string>> files = {
        {"plain", plain},
        {"flush-points", gzip_member(records, {.level = 6, .flush_every = 50'000})},
        {"level-9", gzip_member(records, {.level = 9})},
        {"stored", gzip_member(records, {.level = 0})},
        {"two-members", gzip_member(records.substr(0, middle), {}) + gzip_member(records.substr(middle), {})},
        {"damaged-middle", damaged},
        {"truncated", plain.substr(0, plain.size() - 3000)},
    };
    const std::vector<std::string> small = {"memory.read_block_bytes=65536", "decompress.count=3", "memory.tokens=16"};
    for (const auto& [name, bytes] : files) {
        CAPTURE(name);
        TempDir dir;
        const auto input = dir.write("in/" + name + ".warc.gz", bytes);
        std::vector<std::string> unsplit = small, gpu = small;
        unsplit.push_back("decompress.split_gzip_streams=false");
        for (const char* set : {"decompress.gpus=[0]", "decompress.gpu_stream_pieces=true",
                                "decompress.gpu_stream_piece_bytes=8192", "decompress.gpu_batch_bytes=262144"})
            gpu.push_back(set);
        const std::string unsplit_error = build_error(input, dir / "unsplit", unsplit);
        const std::string gpu_error = build_error(input, dir / "gpu", gpu);
        const bool failed = name == "damaged-middle" || name == "truncated";
        CHECK(gpu_error.empty() == !failed);
        // Damage inside the stream decodes to wrong text before the
        // trailer's CRC-32 is reached: whichever node meets it first (the
        // frame node's WARC reader, or the CRC-32 check) names the file.
        if (name == "damaged-middle") {
            CHECK(gpu_error.find(name + ".warc.gz") != std::string::npos);
        } else {
            CHECK(gpu_error == unsplit_error);
        }
        if (failed) {
            CHECK_FALSE(std::filesystem::exists(dir / "gpu"));
            continue;
        }
        CHECK(ciff_bytes(dir / "gpu") == ciff_bytes(dir / "unsplit"));
        IndexReader index(dir / "gpu");
        const nlohmann::json& section = index.report()->at("split_gzip");
        CAPTURE(section.dump());
        CHECK(section.at("stream_files_split").get<uint64_t>() == 1);
        uint64_t gpu_pieces = 0;
        for (const auto& decoder : section.at("decoders"))
            if (decoder.at("kind") == "gpu") gpu_pieces += decoder.at("stream_pieces").get<uint64_t>();
        // A stream of stored blocks has no block a search finds: its pieces
        // hold none, the first runs out of bytes, and the file is decoded
        // again in order.
        if (name == "stored") {
            CHECK(section.at("stream_files_decoded_again").get<uint64_t>() == 1);
        } else {
            CHECK(gpu_pieces > 10);
            CHECK(section.at("stream_pieces_decoded_again").get<uint64_t>() == 0);
        }
    }
}

TEST_CASE("gpu_stream_pieces: bad values and settings it needs name the key") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(1));
    TempDir dir;
    const auto input = dir.write("in/a.warc.gz", gzip_member(random_warc_records(14, 50), {}));
    const auto error_of = [&](const std::vector<std::string>& sets) { return build_error(input, dir / "out", sets); };
    CHECK(error_of({"decompress.gpus=[0]", "decompress.gpu_stream_pieces=\"yes\""}).find("/nodes/1/gpu_stream_pieces") !=
          std::string::npos);
    CHECK(error_of({"decompress.gpus=\"none\"", "decompress.gpu_stream_pieces=true"}).find("needs GPU inflate") !=
          std::string::npos);
    CHECK(error_of({"decompress.gpus=[0]", "decompress.gpu_stream_pieces=true", "decompress.split_gzip_streams=false"})
              .find("needs split_gzip_streams") != std::string::npos);
    CHECK(error_of({"decompress.gpus=[0]", "decompress.gpu_stream_pieces=true", "decompress.gpu_stream_piece_bytes=0"})
              .find("/nodes/1/gpu_stream_piece_bytes") != std::string::npos);
    CHECK(error_of({"decompress.gpus=[0]", "decompress.gpu_stream_piece_bytes=65536"}).find("needs gpu_stream_pieces") !=
          std::string::npos);
    CHECK(error_of({"decompress.gpus=[0]", "decompress.gpu_stream_pieces=true"}).empty());
}

TEST_CASE("split_gzip_streams: \"auto\" cuts only a file of over three times a worker's share; bad values name the key") {
    const std::string records = random_warc_records(12, 500);
    TempDir dir;
    dir.write("in/a-large.warc.gz", gzip_member(records, {}));
    dir.write("in/b-small.warc.gz", gzip_member(records.substr(0, records.find("WARC/1.0", 20'000)), {}));
    const std::vector<std::string> small = {"memory.read_block_bytes=65536", "decompress.stream_piece_bytes=16384",
                                            "memory.tokens=16"};
    // Files cut, and chunk decoders (as many as workers without GPU parsers:
    // gpu_parse_test.cpp has the case with them).
    const auto split_files = [&](const std::string& count, const std::string& name) {
        std::vector<std::string> overrides = small;
        overrides.push_back("decompress.count=" + count);
        const BuildReport report =
            build_index(standard_pipeline({(dir / "in").string()}, dir / name, 2, 1), overrides);
        const nlohmann::json& section = report.json.at("split_gzip");
        return std::pair{section.at("stream_files_split").get<uint64_t>(),
                         section.at("decoders").at(0).at("count").get<uint64_t>()};
    };
    // The large file is nearly all of the collection: over three shares of a quarter, not of a third.
    CHECK(split_files("4", "four") == std::pair<uint64_t, uint64_t>{1, 4});
    CHECK(split_files("3", "three") == std::pair<uint64_t, uint64_t>{0, 3});
    CHECK(split_files("1", "one") == std::pair<uint64_t, uint64_t>{0, 1});  // one worker: nothing to share
    CHECK(ciff_bytes(dir / "four") == ciff_bytes(dir / "one"));
    const auto error_pointer = [&](const std::string& setting) {
        try {
            build_index(standard_pipeline({(dir / "in").string()}, dir / "bad", 2, 1), {setting});
        } catch (const ConfigError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    CHECK(error_pointer("decompress.split_gzip_streams=\"yes\"").find("/nodes/1/split_gzip_streams") !=
          std::string::npos);
    const std::string needs = [&] {
        try {
            build_index(standard_pipeline({(dir / "in").string()}, dir / "bad2", 2, 1),
                        {"decompress.split_gzip_streams=true", "decompress.split_gzip=false"});
        } catch (const ConfigError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    }();
    CHECK(needs.find("needs split_gzip") != std::string::npos);
}
