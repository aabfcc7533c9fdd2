// GPU parsers in the pipeline, beside CPU parsers or instead of them, build
// the index CPU parsers build: byte-identical CIFF on the sample and
// generated collections, positions on and off, porter or no stemming,
// English or no stop words. The GPUs here are the host reference backend's
// pretend ones (analyze_batch_on_host: the device's per-document code run on
// the host), so the whole GPU parse path of the graph (the shared buffer,
// the slots' limiters, async nodes and threads, the ParsedBatch made from a
// batch analysis, the report) runs in the CPU test suite;
// gpu_parse_device_test.cpp runs the same checks on a real GPU.
#include <doctest/doctest.h>

#include <algorithm>

#include <thread>

#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"
#include "nodes/parse/gpu_parsers.hpp"
#include "support/generated_warc.hpp"
#include "support/gpu_parse_builds.hpp"
#include "support/possessives.hpp"
#include "invidx/available_cores.hpp"

using namespace invidx;
using namespace invidx::testing;


namespace {

std::string sample_path() { return std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz"; }

std::vector<ParseConfiguration> mixed_configurations() {
    return {
        {"1 CPU + gpu:0 (default slots)", 1, nlohmann::json::parse(R"([{"device": "gpu:0"}])")},
        {"GPUs only: gpu:0 and gpu:1, 1 slot each", 0,
         nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 1}, {"device": "gpu:1", "slots": 1}])")},
        {"2 CPU + auto (both pretend GPUs)", 2, "auto"},
        {"GPU only, batches over 6000 bytes parsed on its host thread", 0,
         nlohmann::json::parse(R"([{"device": "gpu:1", "max_batch_bytes": 6000}])")},
    };
}

// A pipeline built from configs/default.json with `overrides`, on the sample.
BuildReport build_default(const TempDir& dir, const std::string& name, std::vector<std::string> overrides) {
    overrides.insert(overrides.begin(), {"input=[\"" + sample_path() + "\"]",
                                         "output=\"" + (dir / name).string() + "\"", "progress=off"});
    Pipeline pipeline(PipelineConfig::from_file(std::string(INVIDX_SOURCE_DIR) + "/configs/default.json", overrides));
    return pipeline.run();
}


// Possessives and a lone "s" (support/possessives.hpp) as a JSONL file and
// a WARC of HTML pages: the term "s", never an empty one, on every parser.
std::vector<std::string> possessive_inputs(const TempDir& dir) {
    std::string jsonl;
    std::vector<std::string> records;
    size_t d = 0;
    for (const std::string& text : possessive_texts()) {
        jsonl += nlohmann::json{{"id", "p" + std::to_string(d)}, {"contents", text}}.dump() + "\n";
        records.push_back(warc_response("page-" + std::to_string(d++), "<p>" + text + "</p>"));
    }
    std::string warc;
    for (const std::string& record : records) warc += record;
    return {dir.write("possessives.jsonl", jsonl).string(), dir.write("possessives.warc", warc).string()};
}

}  // namespace

TEST_CASE("gpu parse (host reference): the sample collection, CPU+GPU parsers give the CPU parsers' CIFF") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(2));
    check_gpu_parsing_equals_cpu({sample_path()}, mixed_configurations(), parse_settings());
}

TEST_CASE("gpu parse (host reference): WARC, TREC, JSONL and plain text inputs give the CPU parsers' CIFF") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(2));
    TempDir dir;
    check_gpu_parsing_equals_cpu(every_format_inputs(dir), mixed_configurations(), parse_settings());
}

TEST_CASE("gpu parse (host reference): a generated collection, CPU+GPU parsers give the CPU parsers' CIFF") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(2));
    TempDir dir;
    const GeneratedWarc warc = generate_warc(52, 240, 3);
    write_parts(dir, "gen", warc);
    check_gpu_parsing_equals_cpu({(dir / "gen").string()}, mixed_configurations(), parse_settings(), "8192");
    // And the reference index of the generated pages (default analysis).
    const BuildReport report = build_index(
        with_parsers(standard_pipeline({(dir / "gen").string()}, dir / "index", 1, 1), mixed_configurations()[0]),
        {"memory.batch_bytes=4096"});
    check_parse_report(report.json, true);
    IndexReader index(dir / "index");
    check_index_equals(index, warc.reference);
}

TEST_CASE("gpu parse (host reference): the report gives each parser kind's batches, bytes and busy time") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(2));
    TempDir dir;
    const BuildReport report = build_index(
        with_parsers(standard_pipeline({sample_path()}, dir / "index", 1, 1),
                     {"", 1, nlohmann::json::parse(R"([{"device": "gpu:1", "slots": 2}])")}),
        {"memory.batch_bytes=16384"});
    const nlohmann::json& parse = report.json.at("parse");
    CHECK(parse.at("gpus") == "list");
    CHECK(parse.at("choice") == "cpu+gpu");
    CHECK(parse.at("gpu_backend") == "host reference (tests)");
    const nlohmann::json& parsers = parse.at("parsers");
    REQUIRE(parsers.size() == 2);
    CHECK(parsers[0].at("kind") == "cpu");
    CHECK(parsers[0].at("count") == 1);
    CHECK(parsers[1].at("kind") == "gpu");
    CHECK(parsers[1].at("device") == "gpu:1");
    CHECK(parsers[1].at("slots") == 2);
    CHECK(parsers[1].at("batches").get<uint64_t>() > 0);
    CHECK(parsers[1].at("text_bytes").get<uint64_t>() > 0);
    CHECK(parsers[1].at("busy_seconds").get<double>() > 0);
    // The host reference analyzes on the slots' threads: CPU time they took.
    CHECK(parsers[1].at("host_cpu_seconds").get<double>() > 0);
    CHECK(report.json.at("cpu_seconds").get<double>() >= parsers[1].at("host_cpu_seconds").get<double>());
    CHECK(parsers[1].at("host_wait_cpu_seconds").get<double>() == 0);  // no device to wait for
    CHECK(parsers[1].contains("peak_device_bytes"));  // 0 on the host
    CHECK(parsers[1].contains("pinned_host_bytes"));
    // The parse node runs 1 CPU parser and 2 slots at once.
    for (const auto& node : report.json.at("nodes"))
        if (node.at("kind") == "parse") CHECK(node.at("concurrency") == 3);
    check_parse_report(report.json, true);
    // And the summary invidx-run prints.
    const std::string summary = report.summary_table();
    CHECK(summary.find("parsers CPU") != std::string::npos);
    CHECK(summary.find("parsers GPU gpu:1") != std::string::npos);
}

TEST_CASE("gpu parse (host reference): batches over max_batch_bytes are parsed by the slot's thread on the host") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(1));
    TempDir dir;
    const BuildReport report = build_index(
        with_parsers(standard_pipeline({sample_path()}, dir / "index", 1, 1),
                     {"", 0, nlohmann::json::parse(R"([{"device": "gpu:0", "max_batch_bytes": 20000}])")}),
        {"memory.batch_bytes=16384"});
    const nlohmann::json& gpu = report.json.at("parse").at("parsers").at(0);
    CHECK(gpu.at("max_batch_bytes") == 20000);
    // Small files' batches fit; a document larger than a batch makes a batch that does not.
    CHECK(gpu.at("batches_on_host").get<uint64_t>() > 0);
    CHECK(gpu.at("batches_on_host").get<uint64_t>() < gpu.at("batches").get<uint64_t>());
    const BuildReport cpu = build_index(standard_pipeline({sample_path()}, dir / "cpu", 1, 1));
    CHECK(ciff_bytes(dir / "index") == ciff_bytes(dir / "cpu"));
}

TEST_CASE("gpu parse (host reference): a failing GPU parser stops the build naming the node") {
    GpuParseBackend failing = host_reference_gpu_parse_backend(1);
    failing.make_analyzer = [](int) -> std::unique_ptr<GpuBatchAnalyzer> {
        throw Error("gpu:0: cudaMallocAsync: out of memory");
    };
    const ScopedGpuParseBackend pretend(failing);
    TempDir dir;
    const auto pipeline = with_parsers(standard_pipeline({sample_path()}, dir / "index", 1, 1),
                                       {"", 1, nlohmann::json::parse(R"(["gpu:0"])")});
    try {
        build_index(pipeline);
        FAIL("the build did not fail");
    } catch (const Error& error) {
        const std::string message = error.what();
        CHECK(message.find("parse") != std::string::npos);
        CHECK(message.find("out of memory") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "index"));
}

TEST_CASE("gpu parse: configs/default.json parses on the CPU where no GPU is, and the report says so") {
    TempDir dir;
    const GpuInventory here = list_gpus();
    if (here.devices.empty()) {
        const BuildReport report = build_default(dir, "auto", {});
        const nlohmann::json& parse = report.json.at("parse");
        CHECK(parse.at("gpus") == "auto");
        CHECK(parse.at("choice") == "cpu");
        CHECK(parse.at("reason").get<std::string>().find(here.note) != std::string::npos);
        CHECK_FALSE(parse.contains("gpu_backend"));
        check_parse_report(report.json, false);
        // --set cannot force a GPU that is not there: a ConfigError naming the key.
        try {
            build_default(dir, "forced", {"parse.gpus=[{\"device\": \"gpu:0\"}]"});
            FAIL("a GPU parser was made without a GPU");
        } catch (const ConfigError& error) {
            CHECK(std::string(error.what()).find("/nodes/3/gpus/0/device") != std::string::npos);
        }
    } else {
        MESSAGE("a CUDA device is here: gpu_parse_device_test.cpp checks that default.json chooses it");
    }
    // With a GPU present (a pretend one), "auto" takes it and, the count
    // being "auto", parses on it alone; --set forces the CPU, or both.
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(1));
    const BuildReport with_gpu = build_default(dir, "pretend", {"memory.batch_bytes=65536"});
    CHECK(with_gpu.json.at("parse").at("choice") == "gpu");
    REQUIRE(with_gpu.json.at("parse").at("parsers").size() == 1);
    CHECK(with_gpu.json.at("parse").at("parsers")[0].at("slots") == kDefaultGpuParserSlots);
    check_parse_report(with_gpu.json, true);
    const BuildReport both = build_default(dir, "both", {"parse.count=2", "memory.batch_bytes=65536"});
    CHECK(both.json.at("parse").at("choice") == "cpu+gpu");
    check_parse_report(both.json, true);
    // "auto" CPU indexers: one per two cores where the GPUs parse alone, one
    // per four beside CPU parsers.
    const unsigned hardware = available_cores();
    const auto cpu_indexers = [](const nlohmann::json& report) {
        return std::count_if(report.at("indexers").begin(), report.at("indexers").end(),
                             [](const nlohmann::json& indexer) { return indexer.at("device") == "cpu"; });
    };
    CHECK(cpu_indexers(with_gpu.json) == std::max(1u, hardware / 2));
    CHECK(cpu_indexers(both.json) == std::max(1u, hardware / 4));
    // Its gpu_hash entry ("device": "auto") follows the parsing GPUs that
    // CUDA can use: the pretend one only where a real gpu:0 is present.
    const std::string placed = with_gpu.json.at("gpu_indexers").get<std::string>();
    if (here.devices.empty()) {
        CHECK(with_gpu.json.at("indexers").size() == static_cast<size_t>(cpu_indexers(with_gpu.json)));
        CHECK(placed.find("not CUDA devices here") != std::string::npos);
    } else {
        CHECK(placed.find("gpu:0") != std::string::npos);
    }
    // And 4 tokens per core (at least 16) where the GPUs parse alone, 3 beside CPU parsers,
    // unless memory.tokens is given.
    CHECK(with_gpu.json.at("memory_tokens") == std::max(16u, 4 * hardware));
    CHECK(both.json.at("memory_tokens") == std::max(16u, 3 * hardware));
    const BuildReport given = build_default(dir, "given", {"memory.tokens=20", "memory.batch_bytes=65536"});
    CHECK(given.json.at("parse").at("choice") == "gpu");
    CHECK(given.json.at("memory_tokens") == 20);
    CHECK(ciff_bytes(dir / "both") == ciff_bytes(dir / "pretend"));
    const BuildReport forced_cpu = build_default(dir, "forced-cpu", {"parse.gpus=none"});
    CHECK(forced_cpu.json.at("parse").at("gpus") == "none");
    // No GPU parses: no GPU indexer either, only CPU ones.
    CHECK(forced_cpu.json.at("indexers").size() == std::max(1u, hardware / 4));
    CHECK(forced_cpu.json.at("gpu_indexers").get<std::string>().find("no GPU parses") != std::string::npos);
    // An entry without a count is "auto" too.
    const BuildReport no_count =
        build_default(dir, "no-count", {"parse.gpus=none", "index.indexers=[{\"kind\": \"cpu_btree\"}]"});
    CHECK(no_count.json.at("indexers").size() == std::max(1u, hardware / 4));
    CHECK(ciff_bytes(dir / "no-count") == ciff_bytes(dir / "forced-cpu"));
    check_parse_report(forced_cpu.json, false);
    const BuildReport gpu_only = build_default(dir, "gpu-only", {"parse.count=0", "memory.batch_bytes=65536"});
    CHECK(gpu_only.json.at("parse").at("choice") == "gpu");
    REQUIRE(gpu_only.json.at("parse").at("parsers").size() == 1);
    CHECK(ciff_bytes(dir / "gpu-only") == ciff_bytes(dir / "forced-cpu"));
    CHECK(ciff_bytes(dir / "pretend") == ciff_bytes(dir / "forced-cpu"));
}

TEST_CASE("gpu parse: 0 CPU parsers without GPU parsers is a ConfigError naming the count") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(0));
    TempDir dir;
    try {
        build_default(dir, "none", {"parse.count=0"});
        FAIL("a parse node without parsers was made");
    } catch (const ConfigError& error) {
        const std::string message = error.what();
        CHECK(message.find("/nodes/3/count") != std::string::npos);
        CHECK(message.find("no CUDA device present") != std::string::npos);
    }
}

TEST_CASE("gpu parse (host reference): default.json's \"auto\" sizes reach the nodes: 4 MiB batches in 8 MiB blocks where GPUs parse") {
    // The plan settles memory.batch_bytes "auto" (resolve_plan_test.cpp);
    // this checks that the decompress and frame nodes cut by the plan's
    // sizes, not the configuration's.
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(1));
    TempDir dir;
    const BuildReport gpu = build_default(dir, "gpu", {});
    const BuildReport cpu = build_default(dir, "cpu", {"parse.gpus=none"});
    constexpr uint64_t MiB = uint64_t{1} << 20;
    CHECK(gpu.json.at("plan").at("memory_batch_bytes").at("value") == 4 * MiB);
    CHECK(gpu.json.at("plan").at("memory_batch_bytes").at("text_block_bytes") == 8 * MiB);
    CHECK(cpu.json.at("plan").at("memory_batch_bytes").at("value") == 2 * MiB);
    const auto node = [](const BuildReport& report, const std::string& kind) {
        for (const nlohmann::json& n : report.json.at("nodes"))
            if (n.at("kind") == kind) return n;
        FAIL("no node of kind " << kind << " in the report");
        return nlohmann::json();
    };
    // The sample's text lies between 4 and 8 MiB: two text blocks and three
    // batches at 2 MiB batches (4 MiB blocks), one block and two batches at 4 MiB.
    const uint64_t text = node(cpu, "decompress").at("bytes_out").get<uint64_t>();
    REQUIRE(text > 4 * MiB);
    REQUIRE(text < 8 * MiB);
    CHECK(node(gpu, "decompress").at("items_out").get<uint64_t>() + 1 == node(cpu, "decompress").at("items_out").get<uint64_t>());
    CHECK(node(gpu, "frame").at("items_out").get<uint64_t>() + 1 == node(cpu, "frame").at("items_out").get<uint64_t>());
    CHECK(ciff_bytes(dir / "gpu") == ciff_bytes(dir / "cpu"));
}

TEST_CASE("gpu parse (host reference): possessives and a lone s give the CPU parsers' CIFF, the term 's' on both") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(2));
    TempDir dir;
    // GPU parsers only: with a CPU parser beside them, so few batches may all go to it.
    std::vector<ParseConfiguration> gpus_only;
    for (const auto& configuration : mixed_configurations()) {
        if (configuration.count == 0) gpus_only.push_back(configuration);
    }
    REQUIRE(!gpus_only.empty());
    check_gpu_parsing_equals_cpu(possessive_inputs(dir), gpus_only, parse_settings(), "512");
}

TEST_CASE("gpu parse (host reference): where GPUs parse, a gzip file of over three workers' shares gets half as many chunk decoders again") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(1));
    TempDir dir;
    dir.write("in/a-large.warc.gz", gzip(random_warc_records(13, 400)));
    dir.write("in/b-small.warc.gz", gzip(warc_response("small", "<p>one small page</p>")));
    const auto decoders = [&](const std::string& name, std::vector<std::string> overrides) {
        overrides.insert(overrides.end(), {"input=[\"" + (dir / "in").string() + "\"]", "decompress.count=4",
                                           "memory.read_block_bytes=65536", "decompress.stream_piece_bytes=16384"});
        const BuildReport report = build_default(dir, name, overrides);
        const nlohmann::json& section = report.json.at("split_gzip");
        CHECK(section.at("stream_files_split").get<uint64_t>() == 1);
        return section.at("decoders").at(0).at("count").get<uint64_t>();
    };
    CHECK(decoders("gpu", {}) == 6);
    CHECK(decoders("cpu", {"parse.gpus=\"none\""}) == 4);  // the CPU parsers need the cores
    CHECK(ciff_bytes(dir / "gpu") == ciff_bytes(dir / "cpu"));
}
