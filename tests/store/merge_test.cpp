#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "store/ciff_export.hpp"
#include "store/index_fixture.hpp"
#include "store/merge.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;

namespace {

std::string ciff_of(const std::filesystem::path& dir) {
    const invidx::IndexReader index(dir);
    std::ostringstream out;
    invidx::export_ciff(index, out, "same description");
    return out.str();
}

}  // namespace

TEST_CASE("merge combines each term's partial lists into one and changes no content") {
    for (const bool positional : {false, true}) {
        CAPTURE(positional);
        TempDir dir;
        const auto collection = make_collection(45, positional ? 31 : 32);
        const nlohmann::json report = {{"busy_ns", 5}};
        write_index(collection, dir / "idx", {.runs = 4, .indexers = 3, .positional = positional, .report = report, .publish = true});
        const std::string before = ciff_of(dir / "idx");
        std::vector<invidx::run_list::DecodedList> lists_before;
        {
            const invidx::IndexReader index(dir / "idx");
            REQUIRE(index.manifest().runs.size() == 4);
            for (uint64_t i = 0; i < index.term_count(); ++i) lists_before.push_back(index.postings(i));
        }

        invidx::merge_runs(dir / "idx");

        const invidx::IndexReader index(dir / "idx");
        CHECK(index.manifest().runs == std::vector<uint32_t>{0});
        CHECK(index.positional() == positional);
        CHECK(index.num_documents() == collection.docs.size());
        CHECK(index.files().size() == collection.files.size());
        REQUIRE(index.report());
        CHECK(*index.report() == report);
        REQUIRE(index.term_count() == lists_before.size());
        for (uint64_t i = 0; i < index.term_count(); ++i) {
            CHECK(index.partial_lists(i).size() == 1);
            const auto list = index.postings(i);
            CHECK(list.docids == lists_before[i].docids);
            CHECK(list.tfs == lists_before[i].tfs);
            CHECK(list.positions == lists_before[i].positions);
        }
        for (uint32_t docid = 0; docid < collection.docs.size(); ++docid) {
            CHECK(index.document(docid).source_offset == collection.docs[docid].source_offset);
        }
        CHECK(ciff_of(dir / "idx") == before);
        CHECK(entry_names(dir.path()) == std::vector<std::string>({"idx", "idx.lock"}));  // no temp or old dirs left
    }
}

TEST_CASE("merge of a directory that is not an index is refused") {
    TempDir dir;
    dir.write("idx/readme.txt", "no index here");
    CHECK_THROWS_WITH_AS(invidx::merge_runs(dir / "idx"), doctest::Contains("not a complete invidx index"), invidx::FormatError);
    CHECK(read_file(dir / "idx" / "readme.txt") == "no index here");
}
