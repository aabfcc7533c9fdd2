// Several framers frame different files at once; the docid step numbers
// their batches in collection order, so every frame.count gives the same
// docids: byte-identical CIFF exports, equal to a reference index, for every
// format, archives of several entries, empty files and files without
// documents, within the token bound; and a file that fails to frame stops
// the build naming the file, record and offset, publishing nothing.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

struct Collection {
    std::vector<std::pair<std::string, std::string>> files;  // name under the input root, bytes; sorted
    ReferenceIndex reference;
};

// Writes files whose names sort in the order they are added (that is the
// docid order) and adds their documents to the reference as CONTENT.md §1-2 frames them.
class MixedCollection {
public:
    explicit MixedCollection(unsigned seed) : random_(seed), words_(test_vocabulary(random_, 300)) {}

    enum class Packing { plain, gzip, tar };

    // Response records (with request records between them, not documents).
    void warc(size_t documents, Packing packing, size_t entries = 1) {
        pack(".warc", packing, entries, [&](size_t, const std::string&) {
            std::string bytes;
            for (size_t d = 0; d < documents; ++d) {
                const std::string id = next_id();
                const std::string html = d % 5 == 3 ? std::string() : page();
                bytes += warc_request(id) + warc_response(id, html, d % 2 == 0);
                reference_.add(warc_document_name(id, d % 2 == 0), html, true, analyzer_);
            }
            return bytes;
        });
    }

    // A WARC file with records but no documents (only requests).
    void warc_without_documents() {
        pack(".warc", Packing::gzip, 1, [&](size_t, const std::string&) { return warc_request(next_id()); });
    }

    void trec(size_t documents, Packing packing, size_t entries = 1) {
        pack(".trec", packing, entries, [&](size_t, const std::string&) {
            std::string bytes;
            for (size_t d = 0; d < documents; ++d) {
                const std::string id = next_id();
                const std::string text = "\n" + page() + "\n";
                bytes += "<DOC>\n<DOCNO> " + id + " </DOCNO>" + text + "</DOC>\n";
                reference_.add(id, text, true, analyzer_);
            }
            return bytes;
        });
    }

    // `documents` lines of objects, blank lines among them; 0: blank lines only.
    void jsonl(size_t documents, Packing packing, size_t entries = 1) {
        pack(".jsonl", packing, entries, [&](size_t, const std::string&) {
            std::string bytes = "\n";
            for (size_t d = 0; d < documents; ++d) {
                const std::string id = next_id();
                const std::string text = page();
                bytes += nlohmann::json{{"id", id}, {"contents", text}}.dump() + "\n";
                if (d % 3 == 1) bytes += "\n";
                reference_.add(id, text, false, analyzer_);
            }
            return bytes;
        });
    }

    // One document per file or member, named by its path; `tokens` 0: empty.
    void text(size_t tokens, Packing packing, size_t entries = 1) {
        pack(".txt", packing, entries, [&](size_t, const std::string& document_name) {
            const std::string text = tokens == 0 ? std::string() : words(tokens);
            reference_.add(document_name, text, false, analyzer_);
            return text;
        });
    }

    // An archive with only a directory: a file with no entries at all.
    void tar_without_entries() {
        add(".txt.tar.gz", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
                                         {Member{"dir", "", AE_IFDIR}}));
    }

    Collection take() { return Collection{std::move(files_), std::move(reference_)}; }

private:
    // A file of format `suffix`: `make(entry, document name of a text entry)`
    // gives each entry's bytes; a tar archive holds `entries` of them (and a
    // directory member), anything else one.
    template <class Make>
    void pack(const std::string& suffix, Packing packing, size_t entries, Make&& make) {
        const std::string name = next_name();
        if (packing != Packing::tar) {
            const std::string file_name = name + suffix + (packing == Packing::gzip ? ".gz" : "");
            files_.emplace_back(file_name, std::string());
            const std::string bytes = make(0, file_name);
            files_.back().second = packing == Packing::gzip ? gzip(bytes) : bytes;
            return;
        }
        std::vector<Member> members{Member{"dir", "", AE_IFDIR}};
        for (size_t e = 0; e < entries; ++e) {
            const std::string member = "dir/" + std::to_string(e) + suffix;
            members.push_back(Member{member, make(e, member)});
        }
        files_.emplace_back(name + suffix + ".tar.gz",
                            write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP, members));
    }

    void add(const std::string& suffix, std::string bytes) { files_.emplace_back(next_name() + suffix, std::move(bytes)); }

    std::string next_name() {
        char name[16];
        std::snprintf(name, sizeof name, "f%03zu", files_.size());
        return name;
    }
    std::string next_id() { return "d" + std::to_string(next_document_++); }
    std::string page() { return random_html(random_, words_, 10 + random_() % 200); }
    std::string words(size_t tokens) {
        std::string out;
        for (size_t i = 0; i < tokens; ++i) out += words_[random_() % words_.size()] + " ";
        return out;
    }

    std::mt19937 random_;
    std::vector<std::string> words_;
    Analyzer analyzer_{AnalysisSettings::defaults()};
    std::vector<std::pair<std::string, std::string>> files_;
    ReferenceIndex reference_;
    size_t next_document_ = 0;
};

Collection every_format() {
    using P = MixedCollection::Packing;
    MixedCollection c(31);
    c.text(0, P::plain);               // an empty file is still a document
    c.warc(40, P::gzip);               // many blocks and batches
    c.jsonl(0, P::plain);              // blank lines only: no documents
    c.trec(3, P::plain);
    c.warc_without_documents();
    c.jsonl(6, P::gzip);
    c.tar_without_entries();
    c.text(30, P::tar, 5);             // five documents, one per member
    c.warc(0, P::plain);               // an empty WARC file
    c.jsonl(4, P::tar, 3);
    c.trec(0, P::plain);               // an empty TREC file
    c.trec(5, P::tar, 2);
    c.text(12, P::plain);
    c.warc(3, P::tar, 3);
    c.trec(25, P::gzip);
    c.jsonl(30, P::plain);
    c.text(0, P::tar, 2);              // empty members
    c.warc(2, P::plain);
    return c.take();
}

void write(const TempDir& dir, const Collection& collection) {
    for (const auto& [name, bytes] : collection.files) dir.write("in/" + name, bytes);
}

}  // namespace

TEST_CASE("any number of framers gives the same index, for every format, within the token bound") {
    TempDir dir;
    const Collection collection = every_format();
    write(dir, collection);
    std::string first_ciff;
    size_t built = 0;
    for (const unsigned tokens : {2u, 16u}) {
        for (const unsigned decompressors : {1u, 3u}) {
            for (const unsigned framers : {1u, 2u, 4u}) {
                CAPTURE(tokens);
                CAPTURE(decompressors);
                CAPTURE(framers);
                std::vector<std::string> overrides = {"frame.count=" + std::to_string(framers),
                                                      "decompress.count=" + std::to_string(decompressors),
                                                      "memory.tokens=" + std::to_string(tokens)};
                if (tokens == 2) {
                    // Tiny blocks and batches: many of each per file, and
                    // most messages wait for a token.
                    for (const char* o : {"memory.read_block_bytes=777", "memory.text_block_bytes=1000",
                                          "memory.batch_bytes=3000", "memory.run_bytes=20000"})
                        overrides.emplace_back(o);
                } else {
                    overrides.emplace_back("memory.batch_bytes=10000");
                }
                const auto output = dir / ("index-" + std::to_string(built++));
                const BuildReport report =
                    build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1), overrides);
                CHECK(report.json["peak_tokens_in_flight"].get<uint32_t>() <= tokens);
                CHECK(report.json["frame"]["framers"] == framers);
                CHECK(report.json["documents"] == collection.reference.documents.size());
                // What the docid step held back: never more than the text
                // framed (a count that went below zero would wrap past it).
                const auto& held = report.json["frame"]["docid_step_held"];
                CHECK(held["peak_text_bytes"].get<uint64_t>() <= report.json["input_bytes_uncompressed"].get<uint64_t>());
                CHECK(held["mean_text_bytes"].get<double>() >= 0.0);
                CHECK(held["mean_text_bytes"].get<double>() <= held["peak_text_bytes"].get<double>());
                CHECK(held["mean_batches"].get<double>() <= held["peak_batches"].get<double>());
                // Every batch a parser took had waited from the docid step
                // (the last one too); every framed batch waited for its
                // turn there, and a numbered batch holds one or more of them.
                uint64_t parsed = 0;
                for (const auto& node : report.json["nodes"])
                    if (node["kind"] == "parse") parsed = node["items_in"].get<uint64_t>();
                const auto& parse_wait = report.json["parse"]["batch_wait_seconds"];
                const auto& order_wait = report.json["frame"]["batch_order_wait_seconds"];
                CHECK(parse_wait["count"].get<uint64_t>() == parsed);
                CHECK(order_wait["count"].get<uint64_t>() + 1 >= parsed);
                for (const auto* wait : {&parse_wait, &order_wait}) {
                    CHECK((*wait)["mean"].get<double>() >= 0.0);
                    CHECK((*wait)["mean"].get<double>() <= (*wait)["max"].get<double>());
                }
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

TEST_CASE("a one-file collection framed in order holds nothing back at the docid step") {
    using P = MixedCollection::Packing;
    TempDir dir;
    MixedCollection c(43);
    c.warc(200, P::gzip);
    write(dir, c.take());
    for (const unsigned framers : {1u, 3u}) {
        CAPTURE(framers);
        const BuildReport report =
            build_index(standard_pipeline({(dir / "in").string()}, dir / ("index-" + std::to_string(framers)), 2, 1),
                        {"frame.count=" + std::to_string(framers), "memory.read_block_bytes=4096",
                         "memory.batch_bytes=3000"});
        // Each batch comes in the collection's order, so none waits for an
        // earlier one: a batch the gauge forgot to let go would show here.
        const auto& held = report.json["frame"]["docid_step_held"];
        CHECK(held["peak_batches"] == 0);
        CHECK(held["peak_text_bytes"] == 0);
        CHECK(report.json["frame"]["batch_order_wait_seconds"]["count"].get<uint64_t>() > 10);
    }
}

TEST_CASE("a file that fails to frame stops the build naming file, record and offset, and publishes nothing") {
    using P = MixedCollection::Packing;
    TempDir dir;
    MixedCollection before(41);
    before.warc(30, P::gzip);
    before.jsonl(5, P::plain);
    write(dir, before.take());
    // After the good files, so that framers are busy with them when it fails;
    // good lines first, so the error is not at the start.
    std::string bad;
    for (int i = 0; i < 50; ++i) bad += nlohmann::json{{"id", "ok" + std::to_string(i)}, {"contents", "words"}}.dump() + "\n";
    const size_t bad_offset = bad.size();
    bad += "{\"id\": \"broken\", \"contents\": \n";
    const auto bad_path = dir.write("in/f100.jsonl", bad);
    MixedCollection after(42);
    after.warc(20, P::gzip);
    for (const auto& [name, bytes] : after.take().files) dir.write("in/g" + name, bytes);

    for (const unsigned framers : {1u, 2u, 4u}) {
        CAPTURE(framers);
        const auto output = dir / ("index-" + std::to_string(framers));
        try {
            // The sampler frames each file's start too; off, the frame node must find it.
            build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1),
                        {"frame.count=" + std::to_string(framers), "decompress.count=3", "sampler.enabled=false",
                         "memory.read_block_bytes=1000", "memory.batch_bytes=3000"});
            FAIL("the build succeeded");
        } catch (const Error& error) {
            const std::string message = error.what();
            CAPTURE(message);
            CHECK(error.context().node == "frame");
            CHECK(error.context().file == bad_path.string());
            CHECK(error.context().record == 50);
            CHECK(error.context().byte_offset == bad_offset);
            CHECK(message.find("line 51") != std::string::npos);
        }
        CHECK_FALSE(std::filesystem::exists(output));
    }
}

TEST_CASE("frame count: \"auto\" and explicit counts are accepted, 0 is an error") {
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "one two") + warc_response("b", "three"));
    dir.write("in/b.txt", "four five");
    const BuildReport automatic =
        build_index(standard_pipeline({(dir / "in").string()}, dir / "auto", 1, 1), {"frame.count=auto"});
    CHECK(automatic.json["frame"]["framers"].get<unsigned>() >= 1);
    build_index(standard_pipeline({(dir / "in").string()}, dir / "five", 1, 1), {"frame.count=5"});
    CHECK(ciff_bytes(dir / "auto") == ciff_bytes(dir / "five"));
    CHECK_THROWS_AS(build_index(standard_pipeline({(dir / "in").string()}, dir / "zero", 1, 1), {"frame.count=0"}),
                    ConfigError);
}
