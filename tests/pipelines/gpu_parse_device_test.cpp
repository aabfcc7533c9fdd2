// GPU parsers on a real GPU (the CUDA backend: gpu_analyze_batch's kernels
// through a CudaBatchAnalyzer per slot) build the index CPU parsers build:
// byte-identical CIFF on the sample and generated collections, positions on
// and off, porter or no stemming, English or no stop words; device memory
// in the report; configs/default.json parses on the GPU alone. Skipped without a
// CUDA device: gpu_parse_test.cpp runs the same graph with the host
// reference backend everywhere.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "support/generated_warc.hpp"
#include "support/gpu_parse_builds.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

bool have_gpu() {
    if (!list_gpus().devices.empty()) return true;
    MESSAGE("no CUDA device here: GPU test skipped");
    return false;
}

std::string sample_path() { return std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz"; }

std::vector<ParseConfiguration> device_configurations() {
    std::vector<ParseConfiguration> configurations = {
        {"1 CPU + gpu:0 (4 slots)", 1, nlohmann::json::parse(R"([{"device": "gpu:0"}])")},
        {"gpu:0 only, 1 slot", 0, nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 1}])")},
        {"gpu:0 only, 3 slots, batches over 6000 bytes on the host", 0,
         nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 3, "max_batch_bytes": 6000}])")},
    };
    if (list_gpus().devices.size() > 1) configurations.push_back({"2 CPU + every GPU", 2, "auto"});
    return configurations;
}

}  // namespace

TEST_CASE("gpu parse (device): the sample collection, CPU+GPU parsers give the CPU parsers' CIFF") {
    if (!have_gpu()) return;
    check_gpu_parsing_equals_cpu({sample_path()}, device_configurations(), parse_settings());
}

TEST_CASE("gpu parse (device): WARC, TREC, JSONL and plain text inputs give the CPU parsers' CIFF") {
    if (!have_gpu()) return;
    TempDir dir;
    check_gpu_parsing_equals_cpu(every_format_inputs(dir), device_configurations(), parse_settings());
}

TEST_CASE("gpu parse (device): a generated collection, CPU+GPU parsers give the CPU parsers' CIFF") {
    if (!have_gpu()) return;
    TempDir dir;
    const GeneratedWarc warc = generate_warc(53, 240, 3);
    write_parts(dir, "gen", warc);
    check_gpu_parsing_equals_cpu({(dir / "gen").string()}, device_configurations(), parse_settings(), "8192");
}

TEST_CASE("gpu parse (device): configs/default.json parses on the GPU alone, with device memory in the report") {
    if (!have_gpu()) return;
    TempDir dir;
    Pipeline pipeline(PipelineConfig::from_file(
        std::string(INVIDX_SOURCE_DIR) + "/configs/default.json",
        {"input=[\"" + sample_path() + "\"]", "output=\"" + (dir / "auto").string() + "\"", "progress=off",
         "memory.batch_bytes=65536"}));
    const BuildReport report = pipeline.run();
    const nlohmann::json& parse = report.json.at("parse");
    CHECK(parse.at("gpus") == "auto");
    CHECK(parse.at("choice") == "gpu");  // "count": "auto" beside GPU parsers: none on the CPU
    CHECK(parse.at("gpu_backend") == "cuda");
    check_parse_report(report.json, true);
    for (const auto& parser : parse.at("parsers")) {
        if (parser.at("kind") != "gpu" || parser.at("batches") == 0) continue;
        CHECK(parser.at("peak_device_bytes").get<uint64_t>() > 0);
        CHECK(parser.at("pinned_host_bytes").get<uint64_t>() > 0);
        // Bounded by the largest batch: at most about 70 bytes per text byte per slot, twice that
        // after growth; batches here are far below max_batch_bytes, so this bound is loose.
        CHECK(parser.at("peak_device_bytes").get<uint64_t>() <
              parser.at("slots").get<uint64_t>() * 64 * parser.at("max_batch_bytes").get<uint64_t>());
    }
    Pipeline cpu(PipelineConfig::from_file(
        std::string(INVIDX_SOURCE_DIR) + "/configs/default.json",
        {"input=[\"" + sample_path() + "\"]", "output=\"" + (dir / "cpu").string() + "\"", "progress=off",
         "parse.gpus=none"}));
    CHECK(cpu.run().json.at("parse").at("choice") == "cpu");
    CHECK(ciff_bytes(dir / "auto") == ciff_bytes(dir / "cpu"));
}
