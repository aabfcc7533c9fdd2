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

// Three documents in in/a.warc, and a registry of the standard kinds with
// the counting ones.
struct ThreeDocuments {
    TempDir dir;
    std::atomic<uint64_t> documents{0};
    NodeRegistry registry;
    ThreeDocuments() {
        dir.write("in/a.warc", warc_response("a", "one two three") + warc_response("b", "two three") +
                                   warc_response("c", "three"));
        add_counter_and_standard_kinds(registry, documents);
    }
    nlohmann::json pipeline(const std::string& output) {
        return standard_pipeline({(dir / "in").string()}, dir / output, 2, 1);
    }
    // The ConfigError `description` fails with: "pointer: message".
    std::string config_error(const nlohmann::json& description) {
        try {
            Pipeline(PipelineConfig::from_json(description)).run(registry);
        } catch (const ConfigError& error) {
            return error.json_pointer() + ": " + error.what();
        }
        return "no error";
    }
};

}  // namespace

TEST_CASE("a custom node kind runs inside the graph and the index is unchanged") {
    ThreeDocuments collection;
    auto description = collection.pipeline("with");
    description["nodes"].insert(description["nodes"].begin() + 4, nlohmann::json::object({{"kind", "count_documents"}}));
    Pipeline(PipelineConfig::from_json(description)).run(collection.registry);
    CHECK(collection.documents == 3);
    build_index(collection.pipeline("without"));
    CHECK(ciff_bytes(collection.dir / "with") == ciff_bytes(collection.dir / "without"));

    SUBCASE("in the wrong place its types do not fit, and the error says so") {
        auto misplaced = collection.pipeline("bad");
        misplaced["nodes"].insert(misplaced["nodes"].begin() + 1, nlohmann::json::object({{"kind", "count_documents"}}));
        CHECK(collection.config_error(misplaced).find("takes ParsedBatch") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(collection.dir / "bad"));
    }
}

TEST_CASE("a pipeline ending in its own sink, with no flush node, is a ConfigError before any work") {
    ThreeDocuments collection;
    auto description = collection.pipeline("out");
    // read, decompress, frame, parse, then the sink in place of the rest:
    // the graph fits together, but nothing would write the index.
    description["nodes"].erase(description["nodes"].begin() + 4, description["nodes"].end());
    description["nodes"].push_back(nlohmann::json::object({{"kind", "count_documents_sink"}}));
    const std::string error = collection.config_error(description);
    CHECK(error.rfind("/nodes: ", 0) == 0);
    CHECK(error.find("\"flush\" node") != std::string::npos);
    CHECK(collection.documents == 0);
    CHECK_FALSE(std::filesystem::exists(collection.dir / "out"));
}

TEST_CASE("a second registration of a kind is an error") {
    NodeRegistry registry;
    registry.add("x", "", [](NodeOptions&, RunState&) -> std::unique_ptr<Node> { return nullptr; });
    CHECK_THROWS_AS(registry.add("x", "", [](NodeOptions&, RunState&) -> std::unique_ptr<Node> { return nullptr; }),
                    Error);
}
