// Plain gzip files are decoded with zlib on the decompress workers' own
// threads, every member's CRC-32 and ISIZE checked: a damaged or truncated
// .warc.gz fails the build, naming the file, and leaves no index; the text
// (and so the index) is the same as libarchive's; .tar.gz keeps its members.
#include <doctest/doctest.h>

#include "invidx/error.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

struct Warc {
    std::vector<std::string> members;  // one gzip member per record
    std::string plain;                 // the same records, uncompressed
    ReferenceIndex reference;
};

Warc generate(unsigned seed, size_t documents) {
    std::mt19937 random(seed);
    const auto words = test_vocabulary(random, 200);
    Analyzer analyzer(AnalysisSettings::defaults(), TokenScan::scalar);  // the reference scan; the pipeline runs the default (vector) one
    Warc warc;
    for (size_t d = 0; d < documents; ++d) {
        const std::string id = "g" + std::to_string(d);
        const std::string html = d % 5 == 3 ? std::string() : random_html(random, words, 10 + random() % 200);
        for (const std::string& record : {warc_request(id), warc_response(id, html, d % 2 == 0)}) {
            warc.members.push_back(gzip(record));
            warc.plain += record;
        }
        warc.reference.add(warc_document_name(id, d % 2 == 0), html, true, analyzer);
    }
    return warc;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& part : parts) out += part;
    return out;
}

const std::vector<std::vector<std::string>> kBlockSizes = {
    {},                                                        // defaults: the whole file in one block
    {"memory.read_block_bytes=5000", "memory.text_block_bytes=3000"},
    {"memory.read_block_bytes=777", "memory.text_block_bytes=1000", "memory.tokens=2"},
};

}  // namespace

TEST_CASE("a .warc.gz with a damaged CRC-32 or ISIZE, or truncated, fails the build and names the file") {
    const Warc warc = generate(31, 40);
    struct Damage {
        const char* what;
        size_t member;   // which member is damaged
        int from_end;    // byte flipped, counted from the member's end (0: truncate instead)
        const char* message;
    };
    const Damage damages[] = {
        {"CRC-32 of the last record", 79, 8, "incorrect data check"},
        {"CRC-32 of a record in the middle", 40, 6, "incorrect data check"},
        {"ISIZE of the last record", 79, 4, "incorrect length check"},
        {"ISIZE of the first record", 0, 1, "incorrect length check"},
        {"truncated in the last record", 79, 0, "truncated gzip data"},
    };
    for (const auto& damage : damages) {
        CAPTURE(std::string(damage.what));
        std::vector<std::string> members = warc.members;
        std::string& target = members.at(damage.member);
        if (damage.from_end == 0) {
            target.resize(target.size() - 11);
        } else {
            char& byte = target[target.size() - static_cast<size_t>(damage.from_end)];
            byte = static_cast<char>(byte ^ 0x01);
        }
        for (const auto& overrides : kBlockSizes) {
            CAPTURE(overrides.size());
            TempDir dir;
            dir.write("in/a.warc", warc.plain);
            const auto bad = dir.write("in/b.warc.gz", joined(members));
            dir.write("in/c.warc.gz", joined(warc.members));
            const auto output = dir / "index";
            // The sampler (libarchive) finds truncation too; without it the
            // decompress node must.
            std::vector<std::string> all = overrides;
            if (damage.from_end == 0) all.emplace_back("sampler.enabled=false");
            try {
                build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1), all);
                FAIL("the build succeeded");
            } catch (const Error& error) {
                const std::string message = error.what();
                CAPTURE(message);
                CHECK(message.find(bad.string()) != std::string::npos);
                CHECK(message.find(damage.message) != std::string::npos);
            }
            CHECK_FALSE(std::filesystem::exists(output));
        }
    }
}

TEST_CASE("zlib-decoded .warc.gz and .gz give the same index as the plain files, and .tar.gz keeps its members") {
    const Warc warc = generate(32, 60);
    Analyzer analyzer(AnalysisSettings::defaults(), TokenScan::scalar);  // the reference scan; the pipeline runs the default (vector) one
    std::mt19937 random(5);
    const std::string text = random_html(random, {"alpha", "beta", "gamma"}, 300);
    const std::vector<Member> tar_members = {{"docs/one.txt", "first member words"},
                                             {"docs", "", AE_IFDIR},
                                             {"docs/two.txt", text},
                                             {"docs/empty.txt", ""}};
    // The same collection twice: compressed (gzip members, whole-file gzip,
    // zero padding, an empty .gz) and plain.
    TempDir dir;
    dir.write("gz/a.warc.gz", joined(warc.members));
    dir.write("gz/b.txt.gz", gzip(text) + std::string(20, '\0'));
    dir.write("gz/c.txt.gz", gzip(""));
    dir.write("gz/d.txt.gz", "");
    dir.write("gz/e.tar.gz", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP, tar_members));
    dir.write("plain/a.warc", warc.plain);
    dir.write("plain/b.txt.gz", text);
    dir.write("plain/c.txt.gz", "");
    dir.write("plain/d.txt.gz", "");
    dir.write("plain/e.tar", write_archive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_NONE, tar_members));
    ReferenceIndex reference = warc.reference;
    reference.add("b.txt.gz", text, false, analyzer);
    reference.add("c.txt.gz", "", false, analyzer);
    reference.add("d.txt.gz", "", false, analyzer);
    reference.add("docs/one.txt", "first member words", false, analyzer);
    reference.add("docs/two.txt", text, false, analyzer);
    reference.add("docs/empty.txt", "", false, analyzer);
    std::string expected_ciff;
    size_t built = 0;
    for (const char* input : {"plain", "gz"}) {
        for (const auto& overrides : kBlockSizes) {
            CAPTURE(input);
            CAPTURE(overrides.size());
            for (const unsigned count : {1u, 3u}) {
                std::vector<std::string> all = overrides;
                all.push_back("decompress.count=" + std::to_string(count));
                const auto output = dir / ("index-" + std::to_string(built++));
                build_index(standard_pipeline({(dir / input).string()}, output, 2, 1), all);
                check_index_equals(IndexReader(output), reference);
                const std::string ciff = ciff_bytes(output);
                if (expected_ciff.empty()) expected_ciff = ciff;
                CHECK(ciff == expected_ciff);
            }
        }
    }
}
