// CPU-only and CPU+GPU builds of the same input give byte-identical CIFF
// exports: the device an indexer runs on must not change the index (docs/CONTENT.md).
// GPU test cases (support/gpu_test.hpp).
#include <doctest/doctest.h>

#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

nlohmann::json with_indexers(nlohmann::json pipeline, nlohmann::json indexers) {
    for (auto& node : pipeline["nodes"]) {
        if (node["kind"] == "index") node["indexers"] = std::move(indexers);
    }
    return pipeline;
}

}  // namespace

GPU_TEST_CASE("gpu pipelines: CPU-only and CPU+GPU builds export the same CIFF") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(31, 160, 4);
    write_parts(dir, "many", warc);
    const std::string input = (dir / "many").string();

    struct Configuration {
        std::string label;
        nlohmann::json indexers;
        std::vector<std::string> overrides;
    };
    const nlohmann::json cpu2 = {{"kind", "cpu_btree"}, {"count", 2}};
    const nlohmann::json cpu1 = {{"kind", "cpu_btree"}, {"count", 1}};
    const nlohmann::json hash = {{"kind", "gpu_hash"}, {"device", "gpu:0"}};
    const nlohmann::json btree = {{"kind", "gpu_btree"}, {"device", "gpu:0"}};
    const std::vector<Configuration> configurations = {
        {"CPU only 2 indexers", {cpu2}, {}},
        {"1 CPU + 1 gpu_hash", {cpu1, hash}, {}},
        {"1 CPU + 1 gpu_btree", {cpu1, btree}, {}},
        {"2 gpu_hash, small runs (some empty for one indexer)",
         {{{"kind", "gpu_hash"}, {"device", "gpu:0"}, {"count", 2}}},
         {"memory.batch_bytes=3000", "memory.run_bytes=20000"}},
        {"gpu_btree alone, a run per batch, 5-occurrence staging",
         {{{"kind", "gpu_btree"}, {"device", "gpu:0"}, {"staging_occurrences", 5}}},
         {"memory.batch_bytes=5000", "memory.run_bytes=1"}},
        {"2 CPU + gpu_hash + gpu_btree, sampler off", {cpu2, hash, btree}, {"sampler.enabled=false"}},
        {"1 CPU + 1 gpu_hash, nothing popular", {cpu1, hash}, {"sampler.popular_token_fraction=0"}},
    };
    std::string first_ciff;
    for (size_t i = 0; i < configurations.size(); ++i) {
        const auto& c = configurations[i];
        CAPTURE(c.label);
        const auto output = dir / ("index-" + std::to_string(i));
        const BuildReport report =
            build_index(with_indexers(standard_pipeline({input}, output, 2, 1), c.indexers), c.overrides);
        IndexReader index(output);
        check_index_equals(index, warc.reference);
        const std::string ciff = ciff_bytes(output);
        if (i == 0) {
            first_ciff = ciff;
        } else {
            CHECK(ciff == first_ciff);
        }
        if (c.label == "1 CPU + 1 gpu_hash") {
            // "auto": the CPU indexer's share of the capacity, a GPU indexer counting 8.
            CHECK(report.json.at("sampler").at("popular_token_fraction").get<double>() == doctest::Approx(1.0 / 9));
            CHECK(report.json.at("sampler").at("popular_token_fraction_auto") == true);
        }
        // Table V per indexer, and device memory for the GPU ones.
        for (const auto& indexer : report.json.at("indexers")) {
            CHECK(indexer.contains("tokens"));
            CHECK(indexer.contains("busy_seconds"));
            if (indexer.at("device") != "cpu") CHECK(indexer.at("peak_device_bytes").get<uint64_t>() > 0);
        }
        // A GPU indexer's staging is page-locked, every buffer registered
        // (devices/cuda/common/page_locked_memory.hpp), none by cudaMallocHost.
        const nlohmann::json& locked = report.json.at("page_locked_host");
        if (i > 0) CHECK(locked.at("allocations").get<uint64_t>() > 0);
        CHECK(locked.at("registered") == locked.at("allocations"));
    }
}

GPU_TEST_CASE("gpu pipelines: positional CPU+GPU build keeps every position") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(32, 60, 2);
    write_parts(dir, "many", warc);
    nlohmann::json pipeline = with_indexers(standard_pipeline({(dir / "many").string()}, dir / "cpu", 2, 1),
                                            {{{"kind", "cpu_btree"}, {"count", 2}}});
    pipeline["positions"] = true;
    build_index(pipeline, {"memory.run_bytes=30000"});
    pipeline = with_indexers(pipeline, {{{"kind", "cpu_btree"}}, {{"kind", "gpu_hash"}, {"device", "gpu:0"}},
                                        {{"kind", "gpu_btree"}, {"device", "gpu:0"}}});
    pipeline["output"] = (dir / "gpu").string();
    build_index(pipeline, {"memory.run_bytes=30000"});
    IndexReader cpu(dir / "cpu");
    IndexReader gpu(dir / "gpu");
    check_index_equals(gpu, warc.reference);
    CHECK(ciff_bytes(dir / "cpu") == ciff_bytes(dir / "gpu"));
    REQUIRE(gpu.positional());
    REQUIRE(cpu.term_count() == gpu.term_count());
    for (uint64_t t = 0; t < cpu.term_count(); ++t) {
        const auto expected = cpu.postings(t);
        const auto got = gpu.postings(t);
        REQUIRE(got.docids == expected.docids);
        REQUIRE(got.tfs == expected.tfs);
        REQUIRE(got.positions == expected.positions);
    }
}
