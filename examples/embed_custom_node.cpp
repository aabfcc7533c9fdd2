// Embedding invidx: a program registers its own node kind and runs a graph
// with it. Here "doc_length_histogram" sits between the parsers and the
// regrouper, passes every batch on unchanged and counts document lengths.
//
//   embed_custom_node INPUT OUTPUT_DIR
#include <array>
#include <atomic>
#include <cstdio>

#include "invidx/invidx.hpp"

namespace {

namespace flow = oneapi::tbb::flow;

class DocLengthHistogram final : public invidx::Stage<invidx::ParsedBatch, invidx::ParsedBatch> {
public:
    using Message = std::shared_ptr<const invidx::ParsedBatch>;

    DocLengthHistogram(flow::graph& graph, std::array<std::atomic<uint64_t>, 5>& buckets)
        : buckets_(buckets), node_(graph, flow::unlimited, [this](const Message& batch) {
              auto busy = metrics_.busy_scope();
              for (const auto& doc : batch->docs) {
                  const size_t bucket = doc.length < 10 ? 0 : doc.length < 100 ? 1 : doc.length < 1000 ? 2 : doc.length < 10000 ? 3 : 4;
                  ++buckets_[bucket];
              }
              ++metrics_.items_in;
              ++metrics_.items_out;
              return batch;  // unchanged: docids and order are the engine's business
          }) {
        metrics_.concurrency = 0;  // unlimited
    }

    flow::receiver<Message>& input_port() override { return node_; }
    flow::sender<Message>& output_port() override { return node_; }

private:
    std::array<std::atomic<uint64_t>, 5>& buckets_;
    flow::function_node<Message, Message> node_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: embed_custom_node INPUT OUTPUT_DIR\n");
        return 2;
    }
    static std::array<std::atomic<uint64_t>, 5> buckets{};
    invidx::node_registry().add(
        "doc_length_histogram", "example: counts document lengths, passes batches on",
        [](invidx::NodeOptions&, invidx::RunState& state) -> std::unique_ptr<invidx::Node> {
            return std::make_unique<DocLengthHistogram>(state.graph, buckets);
        });

    const nlohmann::json description = {
        {"input", {argv[1]}},
        {"output", argv[2]},
        {"progress", "off"},
        {"nodes",
         {{{"kind", "read"}},
          {{"kind", "decompress"}},
          {{"kind", "frame"}},
          {{"kind", "parse"}, {"count", 2}},
          {{"kind", "doc_length_histogram"}},
          {{"kind", "regroup"}, {"count", 2}},
          {{"kind", "index"}, {"indexers", {{{"kind", "cpu_btree"}, {"count", 1}}}}},
          {{"kind", "compress"}},
          {{"kind", "flush"}}}},
    };
    try {
        invidx::Pipeline pipeline(invidx::PipelineConfig::from_json(description));
        const invidx::BuildReport report = pipeline.run();
        std::printf("%s", report.summary_table().c_str());
        const char* labels[] = {"<10", "10-99", "100-999", "1000-9999", ">=10000"};
        std::printf("\ndocument length (terms)  documents\n");
        for (size_t i = 0; i < buckets.size(); ++i) std::printf("%-24s %9llu\n", labels[i], static_cast<unsigned long long>(buckets[i].load()));
        return 0;
    } catch (const invidx::Error& error) {
        std::fprintf(stderr, "embed_custom_node: %s\n", error.what());
        return 1;
    }
}
