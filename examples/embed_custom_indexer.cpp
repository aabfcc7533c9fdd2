// Embedding invidx: a program registers its own indexer kind and names it in
// an index node's "indexers". Here "counting_cpu" wraps the standard
// cpu_btree indexer (made through the registry, as the engine makes it) and
// counts the batches and runs each indexer saw; the index is the one
// cpu_btree alone would write.
//
//   embed_custom_indexer INPUT OUTPUT_DIR
#include <atomic>
#include <cstdio>
#include <memory>

#include "invidx/indexer_registry.hpp"
#include "invidx/invidx.hpp"

namespace {

std::atomic<uint64_t> batches_seen{0};
std::atomic<uint64_t> runs_ended{0};

class CountingIndexer final : public invidx::IndexerBackend {
public:
    explicit CountingIndexer(std::unique_ptr<invidx::IndexerBackend> inner) : inner_(std::move(inner)) {}

    void index(const invidx::RegroupedBatch& batch) override {
        ++batches_seen;
        inner_->index(batch);
    }
    invidx::RunPostings end_run(uint32_t run, uint32_t indexer_count, bool end_of_input) override {
        ++runs_ended;
        return inner_->end_run(run, indexer_count, end_of_input);
    }
    std::vector<invidx::DictionaryTerm> export_terms() const override { return inner_->export_terms(); }
    nlohmann::json stats() const override {
        nlohmann::json stats = inner_->stats();
        stats["wrapped_by"] = "counting_cpu";
        return stats;
    }

private:
    std::unique_ptr<invidx::IndexerBackend> inner_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: embed_custom_indexer INPUT OUTPUT_DIR\n");
        return 2;
    }
    invidx::indexer_registry().add(
        "counting_cpu", "example: cpu_btree, counting the batches and runs it sees",
        [](const invidx::IndexerSpec& spec) -> std::unique_ptr<invidx::IndexerBackend> {
            invidx::IndexerSpec standard = spec;
            standard.kind = "cpu_btree";
            return std::make_unique<CountingIndexer>(invidx::indexer_registry().get("cpu_btree", spec.pointer)(standard));
        },
        // Checked before any work, with the rest of the pipeline.
        [](const invidx::IndexerSpec& spec, const invidx::MachineResources&) {
            if (!spec.device.is_cpu())
                throw invidx::ConfigError(spec.pointer + "/device", "counting_cpu runs on \"cpu\"");
        });

    const nlohmann::json description = {
        {"input", {argv[1]}},
        {"output", argv[2]},
        {"progress", "off"},
        {"nodes",
         {{{"kind", "read"}},
          {{"kind", "decompress"}},
          {{"kind", "frame"}},
          {{"kind", "parse"}},
          {{"kind", "regroup"}},
          {{"kind", "index"}, {"indexers", {{{"kind", "counting_cpu"}, {"count", 2}}}}},
          {{"kind", "compress"}},
          {{"kind", "flush"}}}},
    };
    try {
        invidx::Pipeline pipeline(invidx::PipelineConfig::from_json(description));
        const invidx::BuildReport report = pipeline.run();
        std::printf("%llu documents indexed; the 2 counting_cpu indexers saw %llu batches and ended %llu runs\n",
                    static_cast<unsigned long long>(report.json.value("documents", uint64_t{0})),
                    static_cast<unsigned long long>(batches_seen.load()),
                    static_cast<unsigned long long>(runs_ended.load()));
        return 0;
    } catch (const invidx::Error& error) {
        std::fprintf(stderr, "embed_custom_indexer: %s\n", error.what());
        return 1;
    }
}
