// An embedding program's own node kind plugs into the graph by name.
#include <doctest/doctest.h>

#include <atomic>

#include "invidx/invidx.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

namespace flow = oneapi::tbb::flow;

// Counts documents and passes parsed batches on unchanged.
class CountingNode final : public Stage<ParsedBatch, ParsedBatch> {
public:
    using Message = std::shared_ptr<const ParsedBatch>;
    CountingNode(flow::graph& graph, std::atomic<uint64_t>& documents)
        : node_(graph, flow::unlimited, [&documents](const Message& batch) {
              documents += batch->docs.size();
              return batch;
          }) {}
    flow::receiver<Message>& input_port() override { return node_; }
    flow::sender<Message>& output_port() override { return node_; }

private:
    flow::function_node<Message, Message> node_;
};

// Counts documents and ends the graph there: a pipeline of its own sink,
// with no index node.
class CountingSink final : public SinkStage<ParsedBatch> {
public:
    using Message = std::shared_ptr<const ParsedBatch>;
    CountingSink(flow::graph& graph, std::atomic<uint64_t>& documents)
        : node_(graph, flow::unlimited, [&documents](const Message& batch) {
              documents += batch->docs.size();
              return flow::continue_msg();
          }) {}
    flow::receiver<Message>& input_port() override { return node_; }

private:
    flow::function_node<Message, flow::continue_msg> node_;
};

void add_counter_and_standard_kinds(NodeRegistry& registry, std::atomic<uint64_t>& documents) {
    for (const auto& kind : node_registry().kinds()) registry.add(kind.name, kind.description, kind.factory, kind.resolve);
    registry.add("count_documents", "test", [&documents](NodeOptions&, RunState& state) -> std::unique_ptr<Node> {
        return std::make_unique<CountingNode>(state.graph, documents);
    });
    registry.add("count_documents_sink", "test", [&documents](NodeOptions&, RunState& state) -> std::unique_ptr<Node> {
        return std::make_unique<CountingSink>(state.graph, documents);
    });
}

}  // namespace

TEST_CASE("a custom node kind runs inside the graph and the index is unchanged") {
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "one two three") + warc_response("b", "two three") +
                               warc_response("c", "three"));
    std::atomic<uint64_t> documents{0};
    NodeRegistry registry;
    add_counter_and_standard_kinds(registry, documents);

    auto description = standard_pipeline({(dir / "in").string()}, dir / "with", 2, 1);
    description["nodes"].insert(description["nodes"].begin() + 4, nlohmann::json::object({{"kind", "count_documents"}}));
    Pipeline(PipelineConfig::from_json(description)).run(registry);
    CHECK(documents == 3);
    build_index(standard_pipeline({(dir / "in").string()}, dir / "without", 2, 1));
    CHECK(ciff_bytes(dir / "with") == ciff_bytes(dir / "without"));

    SUBCASE("in the wrong place its types do not fit, and the error says so") {
        auto misplaced = standard_pipeline({(dir / "in").string()}, dir / "bad", 2, 1);
        misplaced["nodes"].insert(misplaced["nodes"].begin() + 1, nlohmann::json::object({{"kind", "count_documents"}}));
        try {
            Pipeline(PipelineConfig::from_json(misplaced)).run(registry);
            FAIL("expected a ConfigError");
        } catch (const ConfigError& error) {
            CHECK(std::string(error.what()).find("takes ParsedBatch") != std::string::npos);
        }
        CHECK_FALSE(std::filesystem::exists(dir / "bad"));
    }
}

TEST_CASE("a pipeline ending in its own sink, with no flush node, is a ConfigError before any work") {
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "one two three") + warc_response("b", "two three") +
                               warc_response("c", "three"));
    std::atomic<uint64_t> documents{0};
    NodeRegistry registry;
    add_counter_and_standard_kinds(registry, documents);
    auto description = standard_pipeline({(dir / "in").string()}, dir / "out", 2, 1);
    // read, decompress, frame, parse, then the sink in place of the rest:
    // the graph fits together, but nothing would write the index.
    description["nodes"].erase(description["nodes"].begin() + 4, description["nodes"].end());
    description["nodes"].push_back(nlohmann::json::object({{"kind", "count_documents_sink"}}));
    try {
        Pipeline(PipelineConfig::from_json(description)).run(registry);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/nodes");
        CHECK(std::string(error.what()).find("\"flush\" node") != std::string::npos);
    }
    CHECK(documents == 0);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("a second registration of a kind is an error") {
    NodeRegistry registry;
    registry.add("x", "", [](NodeOptions&, RunState&) -> std::unique_ptr<Node> { return nullptr; });
    CHECK_THROWS_AS(registry.add("x", "", [](NodeOptions&, RunState&) -> std::unique_ptr<Node> { return nullptr; }),
                    Error);
}
