// The builder's checks of a pipeline description, before anything runs.
#include <doctest/doctest.h>

#include "invidx/invidx.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

namespace flow = oneapi::tbb::flow;

// Takes parsed batches and passes them on: fits after "parse" only.
class ParsedPassThrough final : public Stage<ParsedBatch, ParsedBatch> {
public:
    using Message = std::shared_ptr<const ParsedBatch>;
    explicit ParsedPassThrough(flow::graph& graph)
        : node_(graph, flow::serial, [](const Message& batch) { return batch; }) {}
    flow::receiver<Message>& input_port() override { return node_; }
    flow::sender<Message>& output_port() override { return node_; }

private:
    flow::function_node<Message, Message> node_;
};

}  // namespace

TEST_CASE("builder: nodes whose message types do not fit are a ConfigError naming both nodes, their kinds and the entry") {
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "one two"));
    NodeRegistry registry;
    for (const auto& kind : node_registry().kinds()) registry.add(kind.name, kind.description, kind.factory, kind.resolve);
    registry.add("pass_parsed", "test", [](NodeOptions&, RunState& state) -> std::unique_ptr<Node> {
        return std::make_unique<ParsedPassThrough>(state.graph);
    });

    auto description = standard_pipeline({(dir / "in").string()}, dir / "idx", 1, 1);
    description["nodes"][1]["name"] = "unpack";  // a decompress node, giving TextBlock
    description["nodes"].insert(description["nodes"].begin() + 2,
                                nlohmann::json::object({{"kind", "pass_parsed"}, {"name", "between"}}));
    try {
        Pipeline(PipelineConfig::from_json(description)).run(registry);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        const std::string message = error.what();
        CAPTURE(message);
        CHECK(error.json_pointer() == "/nodes/2");
        CHECK(message.find("/nodes/2") != std::string::npos);
        CHECK(message.find("'between' (kind pass_parsed) takes ParsedBatch") != std::string::npos);
        CHECK(message.find("'unpack' (kind decompress), gives TextBlock") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "idx"));

    SUBCASE("on the other side too: a node that gives what the next does not take") {
        auto after = standard_pipeline({(dir / "in").string()}, dir / "idx", 1, 1);
        after["nodes"].insert(after["nodes"].begin() + 4, nlohmann::json::object({{"kind", "pass_parsed"}}));
        after["nodes"].insert(after["nodes"].begin() + 6, nlohmann::json::object({{"kind", "pass_parsed"}, {"name", "late"}}));
        try {
            Pipeline(PipelineConfig::from_json(after)).run(registry);
            FAIL("expected a ConfigError");
        } catch (const ConfigError& error) {
            const std::string message = error.what();
            CAPTURE(message);
            CHECK(error.json_pointer() == "/nodes/6");
            CHECK(message.find("'late' (kind pass_parsed) takes ParsedBatch") != std::string::npos);
            CHECK(message.find("'regroup', gives RegroupedBatch") != std::string::npos);
        }
    }
}
