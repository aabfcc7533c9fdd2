// The index node's offload path (async_node + a thread of the indexer's own),
// which GPU indexers take, checked on any machine: a CPU indexer that says it
// is offloaded must build the same index, and its failure must fail the build
// cleanly (a clear error, no index), not hang it.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>

#include "nodes/index/cpu_btree_indexer.hpp"
#include "invidx/indexer_registry.hpp"
#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// The CPU indexer, run the way a device indexer is; fails at batch
// `fail_at` (counted over all instances) when that is not negative.
std::atomic<int> batches_seen{0};
std::atomic<int> fail_at{-1};

class OffloadedCpuIndexer {
public:
    static constexpr bool kOffloaded = true;
    OffloadedCpuIndexer(uint32_t id, std::vector<bool> owned, bool positional) : inner_(id, std::move(owned), positional) {}
    void index(const RegroupedBatch& batch) {
        if (batches_seen++ == fail_at.load()) throw std::runtime_error("injected device failure");
        inner_.index(batch);
    }
    RunPostings end_run(uint32_t run, uint32_t count, bool end) { return inner_.end_run(run, count, end); }
    std::vector<DictionaryTerm> export_terms() const { return inner_.export_terms(); }
    CpuBtreeIndexer::Stats stats() const { return inner_.stats(); }

private:
    CpuBtreeIndexer inner_;
};

void register_offloaded_kind() {
    static const bool registered = [] {
        indexer_registry().add("test_offloaded", "the CPU indexer behind the offload path (tests only)",
                               [](const IndexerSpec& spec) -> std::unique_ptr<IndexerBackend> {
                                   return std::make_unique<IndexerAdapter<OffloadedCpuIndexer>>(
                                       spec.indexer_id, spec.owned, spec.positional);
                               });
        return true;
    }();
    (void)registered;
}

nlohmann::json with_indexers(nlohmann::json pipeline, nlohmann::json indexers) {
    for (auto& node : pipeline["nodes"]) {
        if (node["kind"] == "index") node["indexers"] = std::move(indexers);
    }
    return pipeline;
}

}  // namespace

TEST_CASE("offloaded indexers build the same index as in-graph ones, and their failures fail the build") {
    register_offloaded_kind();
    TempDir dir;
    const GeneratedWarc warc = generate_warc(41, 90, 3);
    write_parts(dir, "in", warc);
    const std::string input = (dir / "in").string();
    const std::vector<std::string> small = {"memory.batch_bytes=4000", "memory.run_bytes=30000", "memory.tokens=3"};

    build_index(with_indexers(standard_pipeline({input}, dir / "cpu", 2, 1), {{{"kind", "cpu_btree"}, {"count", 2}}}),
                small);
    fail_at = -1;
    build_index(with_indexers(standard_pipeline({input}, dir / "offloaded", 2, 1),
                              {{{"kind", "cpu_btree"}}, {{"kind", "test_offloaded"}, {"count", 2}}}),
                small);
    IndexReader index(dir / "offloaded");
    check_index_equals(index, warc.reference);
    CHECK(ciff_bytes(dir / "offloaded") == ciff_bytes(dir / "cpu"));

    batches_seen = 0;
    fail_at = 5;
    const auto failing = dir / "failing";
    try {
        build_index(with_indexers(standard_pipeline({input}, failing, 2, 1),
                                  {{{"kind", "cpu_btree"}}, {{"kind", "test_offloaded"}, {"count", 2}}}),
                    small);
        FAIL("the build should have failed");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("injected device failure") != std::string::npos);
        CHECK(error.context().node == "index");
    }
    CHECK_FALSE(std::filesystem::exists(failing));
    fail_at = -1;
}
