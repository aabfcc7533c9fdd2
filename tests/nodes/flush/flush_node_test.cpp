// The flush node writes runs in run order whatever order their parts arrive
// in, and the dictionary it is handed once, after the last run.
#include <doctest/doctest.h>

#include <filesystem>

#include "graph/build_plan.hpp"
#include "graph/build_state.hpp"
#include "graph/token_pool.hpp"
#include "invidx/run_state.hpp"
#include "nodes/flush/flush_node.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"
#include "store/run_list.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Run `run`'s part of indexer `indexer` (of 2): one list in slot 0, tf 1
// for each of `docids`; indexer 0's part carries the run's documents.
std::shared_ptr<const CompressedRun> part(uint32_t run, uint32_t indexer, std::vector<uint32_t> docids,
                                          std::vector<ParsedDoc> documents = {}) {
    RunPostings postings;
    postings.run = run;
    postings.indexer = indexer;
    postings.indexer_count = 2;
    TermRunList list;
    list.slot = 0;
    list.tfs.assign(docids.size(), 1);
    list.docids = std::move(docids);
    postings.lists.push_back(std::move(list));
    postings.documents = std::move(documents);
    return std::make_shared<const CompressedRun>(run_list::encode_run(postings));
}

DictionaryTerm term(std::string text, uint64_t df, std::vector<PartialListRef> lists) {
    DictionaryTerm out;
    out.term = std::move(text);
    out.collection = 0;
    out.df = df;
    out.cf = df;
    out.lists = std::move(lists);
    return out;
}

}  // namespace

TEST_CASE("flush: runs are written in run order and the dictionary once, after the last run") {
    TempDir dir;
    const PipelineConfig config = PipelineConfig::from_json(
        {{"input", {"unused"}}, {"output", (dir / "idx").string()}, {"nodes", {{{"kind", "flush"}}}}});
    oneapi::tbb::flow::graph graph;
    TokenPool tokens(2);
    const BuildPlan plan;
    BuildState state(config, plan, graph, tokens);
    InputFile file;
    file.path = file.name = "in.warc";
    file.format = "warc";
    IndexWriter writer(dir / "idx", config.analysis, {file});
    state.writer = &writer;

    NodeOptions options(config.nodes.front());
    std::unique_ptr<Node> node = make_flush_node(options, state);
    auto* flush = dynamic_cast<FlushStage*>(node.get());
    REQUIRE(flush != nullptr);
    auto& input = flush->input_port();
    const auto run_file = [&](uint32_t run) {
        char name[32];
        std::snprintf(name, sizeof name, "runs/run-%06u.post", run);
        return writer.temporary_directory() / name;
    };

    // Run 1 complete, run 0 half there: nothing may be written yet.
    input.try_put(part(1, 1, {3}));
    input.try_put(part(1, 0, {2, 3}, {{"c", 1, 0, 30}, {"d", 2, 0, 40}}));
    input.try_put(part(0, 1, {1}));
    graph.wait_for_all();
    CHECK_FALSE(std::filesystem::exists(run_file(1)));
    CHECK_FALSE(std::filesystem::exists(run_file(0)));

    // Before every run is in, finish() and the dictionary are refused.
    CHECK_THROWS_AS(node->finish(state), Error);
    CHECK_THROWS_AS(flush->write_dictionary({}), Error);

    input.try_put(part(0, 0, {0, 1}, {{"a", 1, 0, 10}, {"b", 2, 0, 20}}));
    graph.wait_for_all();
    CHECK(std::filesystem::exists(run_file(0)));
    CHECK(std::filesystem::exists(run_file(1)));
    node->finish(state);

    flush->write_dictionary({term("alpha", 4, {{0, 0, 0}, {1, 0, 0}}), term("beta", 2, {{0, 1, 0}, {1, 1, 0}})});
    CHECK_THROWS_AS(flush->write_dictionary({}), Error);
    writer.publish();

    // Documents in run order: run 0's before run 1's, though run 1 came first.
    IndexReader index(dir / "idx");
    REQUIRE(index.num_documents() == 4);
    CHECK(index.document(0).name == "a");
    CHECK(index.document(1).name == "b");
    CHECK(index.document(2).name == "c");
    CHECK(index.document(3).name == "d");
    CHECK(index.manifest().runs == std::vector<uint32_t>{0, 1});
    const auto alpha = index.postings(*index.find_term("alpha"));
    CHECK(alpha.docids == std::vector<uint32_t>{0, 1, 2, 3});
    const auto beta = index.postings(*index.find_term("beta"));
    CHECK(beta.docids == std::vector<uint32_t>{1, 3});
}
