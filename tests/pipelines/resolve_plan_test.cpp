// The resolve step: configs/default.json and configs/cluster.json settled
// for machines this test pretends to be (cores, CUDA GPUs, GPUs the parsers
// see), without building.
#include "pipelines/resolve_plan.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"

using namespace invidx;

namespace {

constexpr uint64_t MiB = uint64_t{1} << 20;

PipelineConfig config_file(const std::string& name, const std::vector<std::string>& overrides = {}) {
    return PipelineConfig::from_file(std::string(INVIDX_SOURCE_DIR) + "/configs/" + name, overrides);
}

MachineResources machine(unsigned cores, std::vector<int> gpus = {}) {
    MachineResources out;
    out.cores = cores;
    out.gpus = std::move(gpus);
    out.gpus_note = out.gpus.empty() ? "no CUDA device (pretend)" : "";
    return out;
}

BuildPlan resolve(const PipelineConfig& config, const MachineResources& resources) {
    return resolve_build_plan(config, node_registry(), resources);
}

unsigned count_at(const BuildPlan& plan, const std::string& pointer) { return plan.counts.at(pointer).value; }

size_t indexers_on(const BuildPlan& plan, bool gpu) {
    size_t n = 0;
    for (const auto& indexer : plan.indexing->indexers) n += indexer.device.is_gpu() == gpu;
    return n;
}

}  // namespace

TEST_CASE("plan: default.json on 16 cores without GPUs") {
    const ScopedGpuParseBackend no_gpus(host_reference_gpu_parse_backend(0));
    const BuildPlan plan = resolve(config_file("default.json"), machine(16));
    REQUIRE(plan.parsing);
    CHECK(plan.parsing->cpu_parsers == 12);
    CHECK(plan.parsing->gpus.empty());
    CHECK(plan.gpu_ordinals().empty());  // no GPU context to make
    CHECK(plan.tokens == 48);
    CHECK(count_at(plan, "/nodes/1") == 8);   // decompress: one per two cores
    CHECK(count_at(plan, "/nodes/2") == 4);   // frame: one per four
    CHECK(count_at(plan, "/nodes/4") == 12);  // regroup: 3 per 4
    CHECK(count_at(plan, "/nodes/6") == 4);   // compress: one per four
    REQUIRE(plan.indexing);
    CHECK(indexers_on(plan, false) == 4);
    CHECK(indexers_on(plan, true) == 0);
    CHECK(plan.indexing->automatic_device_reason.find("no GPU parses") != std::string::npos);
    CHECK(plan.device_terms_indexer.empty());
    CHECK(plan.popular_token_fraction == doctest::Approx(0.5));
    CHECK(plan.popular_token_fraction_auto);
    // Where a partition cluster build splits the graph: the regroup node.
    CHECK(plan.regrouping_node == "/nodes/4");
    const nlohmann::json shown = plan.to_json();
    CHECK(shown.at("counts").at("regroup").at("count") == 12);
    CHECK(shown.at("counts").at("regroup").at("at") == "/nodes/4");
    CHECK(shown.at("memory_tokens").at("value") == 48);
    CHECK(shown.at("machine").at("cores") == 16);
    // memory.batch_bytes "auto" without GPUs: 2 MiB batches in 4 MiB blocks.
    CHECK(plan.batch_bytes == 2 * MiB);
    CHECK(plan.text_block_bytes == 4 * MiB);
    CHECK(shown.at("memory_batch_bytes").at("value") == 2 * MiB);
}

TEST_CASE("plan: default.json on 16 cores and two GPUs parses on the GPUs, a gpu_hash on each takes its terms there") {
    const ScopedGpuParseBackend two(host_reference_gpu_parse_backend(2));
    const BuildPlan plan = resolve(config_file("default.json"), machine(16, {0, 1}));
    CHECK(plan.parsing->gpus_only());
    CHECK(plan.parsing->gpu_ordinals() == std::vector<int>{0, 1});
    CHECK(plan.tokens == 64);                  // 4 per core where GPUs parse alone
    CHECK(indexers_on(plan, false) == 8);      // one per two cores beside GPU parsers
    REQUIRE(indexers_on(plan, true) == 2);
    const auto& indexers = plan.indexing->indexers;
    CHECK(indexers[8].device == Device::gpu(0));
    CHECK(indexers[9].device == Device::gpu(1));
    CHECK(indexers[9].placed_automatically);
    CHECK_FALSE(indexers[0].placed_automatically);
    CHECK(plan.device_terms_indexer == std::map<int, uint32_t>{{0, 8}, {1, 9}});
    // The GPUs whose contexts the build makes first: each once, parsers' and indexers' alike.
    CHECK(plan.gpu_ordinals() == std::vector<int>{0, 1});
    CHECK(plan.fed_on_device == std::vector<bool>{false, false, false, false, false, false, false, false, true, true});
    // 8 CPU indexers against two GPU indexers fed on their devices, 32 each.
    CHECK(plan.popular_token_fraction == doctest::Approx(8.0 / (8 + 64)));
    const nlohmann::json shown = plan.to_json();
    CHECK(shown.at("terms_kept_on_device").size() == 2);
    CHECK(shown.at("index").at("indexers").at(9).at("device_setting") == "auto");
    CHECK(shown.at("parse").at("cpu_parsers") == 0);
    // memory.batch_bytes "auto" where GPUs parse: 4 MiB batches, so 8 MiB blocks.
    CHECK(plan.batch_bytes == 4 * MiB);
    CHECK(plan.text_block_bytes == 8 * MiB);
    CHECK(shown.at("memory_batch_bytes").at("why").get<std::string>().find("GPUs parse") != std::string::npos);
}

TEST_CASE("plan: a given memory.batch_bytes or text_block_bytes is kept where GPUs parse") {
    const ScopedGpuParseBackend two(host_reference_gpu_parse_backend(2));
    const BuildPlan given = resolve(config_file("default.json", {"memory.batch_bytes=1048576"}), machine(16, {0, 1}));
    CHECK(given.batch_bytes == 1 * MiB);
    CHECK(given.text_block_bytes == 4 * MiB);
    const BuildPlan blocks =
        resolve(config_file("default.json", {"memory.text_block_bytes=65536"}), machine(16, {0, 1}));
    CHECK(blocks.batch_bytes == 4 * MiB);
    CHECK(blocks.text_block_bytes == 65536);
    const BuildPlan cpu = resolve(config_file("default.json", {"parse.gpus=none"}), machine(16, {0, 1}));
    CHECK(cpu.batch_bytes == 2 * MiB);
}

TEST_CASE("plan: memory.text_block_bytes \"auto\" is 4 MiB or two batches, whichever is more; a number is kept") {
    const auto blocks = [](const std::vector<std::string>& overrides) {
        return resolve(config_file("default.json", overrides), machine(2, {})).text_block_bytes;
    };
    CHECK(blocks({"memory.batch_bytes=1048576"}) == 4 * MiB);
    CHECK(blocks({"memory.batch_bytes=8388608"}) == 16 * MiB);
    CHECK(blocks({"memory.batch_bytes=8388608", "memory.text_block_bytes=auto"}) == 16 * MiB);
    CHECK(blocks({"memory.batch_bytes=8388608", "memory.text_block_bytes=4194304"}) == 4 * MiB);
    CHECK(blocks({"memory.text_block_bytes=65536"}) == 65536);
    // A pipeline that names no batch size keeps 2 MiB batches in 4 MiB blocks.
    std::ifstream file(std::string(INVIDX_SOURCE_DIR) + "/configs/default.json");
    nlohmann::json no_memory = nlohmann::json::parse(file);
    no_memory.erase("memory");
    const BuildPlan plain = resolve(PipelineConfig::from_json(no_memory), machine(2, {}));
    CHECK(plain.batch_bytes == 2 * MiB);
    CHECK(plain.text_block_bytes == 4 * MiB);
}

TEST_CASE("plan: GPUs the parsers see but CUDA does not get no GPU indexer, and say why") {
    const ScopedGpuParseBackend two(host_reference_gpu_parse_backend(2));
    const BuildPlan plan = resolve(config_file("default.json"), machine(4));
    CHECK(plan.parsing->gpus_only());
    CHECK(indexers_on(plan, true) == 0);
    CHECK(indexers_on(plan, false) == 2);
    CHECK(plan.indexing->automatic_device_reason.find("not CUDA devices here") != std::string::npos);
}

TEST_CASE("plan: what the pipeline gives wins over \"auto\"") {
    const ScopedGpuParseBackend two(host_reference_gpu_parse_backend(2));
    const BuildPlan plan = resolve(
        config_file("default.json", {"memory.tokens=20", "parse.count=3", "sampler.popular_token_fraction=0.4",
                                     "index.indexers=[{\"kind\": \"cpu_btree\", \"count\": 2}, "
                                     "{\"kind\": \"gpu_hash\", \"device\": \"gpu:1\", \"count\": 2}]"}),
        machine(16, {0, 1}));
    CHECK(plan.tokens == 20);
    CHECK(plan.tokens_reason == "memory.tokens is given");
    CHECK(plan.parsing->cpu_parsers == 3);
    CHECK_FALSE(plan.parsing->gpus_only());
    CHECK(indexers_on(plan, true) == 2);
    // Two indexers that take device terms on one GPU: neither gets them.
    CHECK(plan.device_terms_indexer.empty());
    CHECK(plan.popular_token_fraction == doctest::Approx(0.4));
    CHECK_FALSE(plan.popular_token_fraction_auto);
}

TEST_CASE("plan: memory.tokens \"auto\" is 3 per core, 4 where GPUs parse alone, at least 8 on the CPU alone") {
    CHECK(automatic_token_count(1, false, false) == 8);
    CHECK(automatic_token_count(2, false, false) == 8);
    CHECK(automatic_token_count(3, false, false) == 9);
    CHECK(automatic_token_count(16, false, false) == 48);
    CHECK(automatic_token_count(2, true, false) == 16);   // GPUs beside CPU parsers
    CHECK(automatic_token_count(16, true, false) == 48);
    CHECK(automatic_token_count(2, true, true) == 16);    // GPUs alone
    CHECK(automatic_token_count(16, true, true) == 64);
    const ScopedGpuParseBackend no_gpus(host_reference_gpu_parse_backend(0));
    const BuildPlan two_cores = resolve(config_file("default.json"), machine(2));
    CHECK(two_cores.tokens == 8);
    CHECK(two_cores.to_json().at("memory_tokens").at("why").get<std::string>().find("at least 8") != std::string::npos);
}

TEST_CASE("plan: a rank of a cluster build sizes itself from its own cores") {
    const ScopedGpuParseBackend no_gpus(host_reference_gpu_parse_backend(0));
    const PipelineConfig cluster = config_file("cluster.json");
    const BuildPlan small = resolve(cluster, machine(2));
    CHECK(small.parsing->cpu_parsers == 2);
    CHECK(small.indexing->indexers.size() == 1);
    const BuildPlan big = resolve(cluster, machine(64));
    CHECK(big.parsing->cpu_parsers == 48);
    CHECK(big.indexing->indexers.size() == 16);
    CHECK(big.tokens == 192);
    CHECK(big.batch_bytes == 2 * MiB);
}

TEST_CASE("plan: a rank of a cluster build with a GPU uses it as default.json does") {
    const ScopedGpuParseBackend one(host_reference_gpu_parse_backend(1));
    const BuildPlan rank = resolve(config_file("cluster.json"), machine(16, {0}));
    const BuildPlan single = resolve(config_file("default.json"), machine(16, {0}));
    CHECK(rank.parsing->gpus_only());
    CHECK(rank.parsing->gpu_ordinals() == std::vector<int>{0});
    CHECK(indexers_on(rank, false) == 8);
    REQUIRE(indexers_on(rank, true) == 1);
    CHECK(rank.device_terms_indexer == std::map<int, uint32_t>{{0, 8}});
    CHECK(rank.batch_bytes == 4 * MiB);
    CHECK(rank.tokens == single.tokens);
    CHECK(rank.counts.at("/nodes/1").value == single.counts.at("/nodes/1").value);
    CHECK(rank.to_json().at("index") == single.to_json().at("index"));
}

TEST_CASE("plan: configuration errors come from the resolve step, naming the key") {
    const ScopedGpuParseBackend no_gpus(host_reference_gpu_parse_backend(0));
    const auto error_of = [](const PipelineConfig& config) -> std::string {
        try {
            resolve(config, machine(2));
        } catch (const ConfigError& error) {
            return error.what();
        }
        return "";
    };
    CHECK(error_of(config_file("default.json", {"index.indexers=[{\"kind\": \"gpu_hash\", \"device\": \"gpu:3\"}]"}))
              .find("/nodes/5/indexers/0/device") != std::string::npos);
    CHECK(error_of(config_file("default.json", {"index.indexers=[{\"kind\": \"cpu_btree\", \"device\": \"tpu\"}]"}))
              .find("unknown device 'tpu'") != std::string::npos);
    CHECK(error_of(config_file("default.json", {"parse.count=0"})).find("/nodes/3/count") != std::string::npos);
    nlohmann::json two_parsers = nlohmann::json::parse(R"({"input": [], "nodes": [
        {"kind": "read"}, {"kind": "decompress"}, {"kind": "frame"}, {"kind": "parse"}, {"kind": "parse", "name": "again"},
        {"kind": "regroup"}, {"kind": "index"}, {"kind": "compress"}, {"kind": "flush"}]})");
    CHECK(error_of(PipelineConfig::from_json(two_parsers)).find("at most one \"parse\" node") != std::string::npos);
    nlohmann::json two_regroupers = nlohmann::json::parse(R"({"input": [], "nodes": [
        {"kind": "read"}, {"kind": "decompress"}, {"kind": "frame"}, {"kind": "parse"}, {"kind": "regroup"},
        {"kind": "regroup", "name": "again"}, {"kind": "index"}, {"kind": "compress"}, {"kind": "flush"}]})");
    CHECK(error_of(PipelineConfig::from_json(two_regroupers)).find("at most one \"regroup\" node") != std::string::npos);
    nlohmann::json no_regroup = nlohmann::json::parse(R"({"input": [], "nodes": [
        {"kind": "read"}, {"kind": "decompress"}, {"kind": "frame"}, {"kind": "parse"}]})");
    CHECK_FALSE(resolve(PipelineConfig::from_json(no_regroup), machine(2)).regrouping_node.has_value());
}

TEST_CASE("Device: \"cpu\" and \"gpu:N\" are parsed in one place") {
    CHECK(parse_device("cpu") == Device::cpu());
    CHECK(parse_device("gpu:0") == Device::gpu(0));
    CHECK(parse_device("gpu:12")->ordinal == 12);
    CHECK(parse_device("gpu:12")->name() == "gpu:12");
    CHECK(Device::cpu().name() == "cpu");
    for (const char* bad : {"", "gpu", "gpu:", "gpu:x", "gpu:-1", "gpu:12345", "GPU:0", "cpu:0", " gpu:0"})
        CHECK_FALSE(parse_device(bad).has_value());
    CHECK_FALSE(parse_gpu("cpu").has_value());
    CHECK(parse_gpu("gpu:3") == Device::gpu(3));
}
