// GPU parsers on a real GPU (the CUDA backend: gpu_analyze_batch's kernels
// through a CudaBatchAnalyzer per slot) build the index CPU parsers build:
// byte-identical CIFF on the sample and generated collections, positions on
// and off, porter or no stemming, English or no stop words; device memory
// in the report; configs/default.json parses on the GPU alone. GPU test cases
// (support/gpu_test.hpp): gpu_parse_test.cpp runs the same graph with the host
// reference backend everywhere.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "support/generated_warc.hpp"
#include "support/gpu_test.hpp"
#include "support/gpu_parse_builds.hpp"
#include "support/possessives.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::string sample_path() { return std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz"; }

std::vector<ParseConfiguration> device_configurations() {
    std::vector<ParseConfiguration> configurations = {
        {"1 CPU + gpu:0 (default slots)", 1, nlohmann::json::parse(R"([{"device": "gpu:0"}])")},
        {"gpu:0 only, 1 slot", 0, nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 1}])")},
        {"gpu:0 only, 3 slots, batches over 6000 bytes on the host", 0,
         nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 3, "max_batch_bytes": 6000}])")},
    };
    if (list_gpus().devices.size() > 1) configurations.push_back({"2 CPU + every GPU", 2, "auto"});
    return configurations;
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

GPU_TEST_CASE("gpu parse (device): the sample collection, CPU+GPU parsers give the CPU parsers' CIFF") {
    check_gpu_parsing_equals_cpu({sample_path()}, device_configurations(), parse_settings());
}

GPU_TEST_CASE("gpu parse (device): WARC, TREC, JSONL and plain text inputs give the CPU parsers' CIFF") {
    TempDir dir;
    check_gpu_parsing_equals_cpu(every_format_inputs(dir), device_configurations(), parse_settings());
}

GPU_TEST_CASE("gpu parse (device): a generated collection, CPU+GPU parsers give the CPU parsers' CIFF") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(53, 240, 3);
    write_parts(dir, "gen", warc);
    check_gpu_parsing_equals_cpu({(dir / "gen").string()}, device_configurations(), parse_settings(), "8192");
}

GPU_TEST_CASE("gpu parse (device): configs/default.json parses on the GPU alone, with device memory in the report") {
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
    // Its gpu_hash indexer ("device": "auto") sits on the parsing GPU and
    // takes the terms the GPU parsers left there.
    bool gpu_indexer = false;
    for (const auto& indexer : report.json.at("indexers")) {
        if (indexer.at("device") != "gpu:0") continue;
        gpu_indexer = true;
        CHECK(indexer.at("device_setting") == "auto");
        CHECK(indexer.at("resident_batches").get<uint64_t>() > 0);
    }
    CHECK(gpu_indexer);
    // The sampler counts each as 32 CPU indexers, since GPU parsers feed it
    // on its device (one per GPU present: "auto" on both sides).
    const nlohmann::json& sampler = report.json.at("sampler");
    const nlohmann::json& indexers = report.json.at("indexers");
    const auto cpu_indexers = static_cast<double>(std::count_if(
        indexers.begin(), indexers.end(), [](const nlohmann::json& indexer) { return indexer.at("device") == "cpu"; }));
    const double gpu_indexers = static_cast<double>(indexers.size()) - cpu_indexers;
    CHECK(gpu_indexers == static_cast<double>(list_gpus().devices.size()));
    CHECK(sampler.at("gpu_indexers_fed_on_device").get<double>() == gpu_indexers);
    CHECK(sampler.at("popular_token_fraction").get<double>() ==
          doctest::Approx(cpu_indexers / (cpu_indexers + 32 * gpu_indexers)));
    for (const auto& parser : parse.at("parsers")) {
        if (parser.at("kind") != "gpu" || parser.at("batches") == 0) continue;
        // The slots' threads poll for their GPU: part of their CPU time, never more.
        CHECK(parser.at("host_wait_cpu_seconds").get<double>() > 0);
        CHECK(parser.at("host_wait_cpu_seconds").get<double>() <= parser.at("host_cpu_seconds").get<double>());
        // Staging the batches is part of the slots' calls into the analyzer.
        const nlohmann::json& analyzer = parser.at("analyzer_seconds");
        CHECK(analyzer.at("host_upload").get<double>() > 0);
        CHECK(analyzer.at("host_upload").get<double>() <= analyzer.at("analyze_call").get<double>());
        // The stream waits for the slots' read-backs inside their calls: some time, never more than the calls.
        CHECK(analyzer.at("device_idle_readbacks").get<double>() > 0);
        CHECK(analyzer.at("device_idle_readbacks").get<double>() <= analyzer.at("analyze_call").get<double>());
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

namespace {

nlohmann::json with_gpu_indexers(nlohmann::json pipeline, const nlohmann::json& indexers) {
    for (auto& node : pipeline["nodes"])
        if (node["kind"] == "index") node["indexers"] = indexers;
    return pipeline;
}

uint64_t parser_field(const nlohmann::json& report, const std::string& field) {
    uint64_t sum = 0;
    for (const auto& parser : report.at("parse").at("parsers"))
        if (parser.at("kind") == "gpu") sum += parser.at(field).get<uint64_t>();
    return sum;
}

uint64_t indexer_field(const nlohmann::json& report, const std::string& field) {
    uint64_t sum = 0;
    for (const auto& indexer : report.at("indexers")) sum += indexer.value(field, uint64_t{0});
    return sum;
}

}  // namespace

// Issue #11: a GPU parser leaves the terms of the GPU indexer's collections
// on the device; the index is the CPU-only one, and the report shows that
// the terms stayed (and, with "resident_terms": false, that none did).
GPU_TEST_CASE("gpu parse (device): terms left on the device for a GPU indexer give the CPU parsers' CIFF") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(71, 300, 3);
    write_parts(dir, "gen", warc);
    const std::vector<std::string> inputs = {(dir / "gen").string(), sample_path()};
    const nlohmann::json cpu1 = {{"kind", "cpu_btree"}, {"count", 1}};
    const nlohmann::json hash = {{"kind", "gpu_hash"}, {"device", "gpu:0"}};
    const nlohmann::json btree = {{"kind", "gpu_btree"}, {"device", "gpu:0"}};
    struct Case {
        std::string label;
        nlohmann::json indexers;
        nlohmann::json gpus;
        nlohmann::json cpu_parsers;
        bool expect_resident;
    };
    std::vector<Case> cases = {
        {"gpu parsers, 1 CPU + gpu_hash", nlohmann::json::array({cpu1, hash}), nlohmann::json::parse(R"([{"device": "gpu:0"}])"), 0, true},
        {"gpu parsers, 1 CPU + gpu_btree, 1 slot", nlohmann::json::array({cpu1, btree}),
         nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 1}])"), 0, true},
        {"1 CPU + gpu parsers, gpu_hash alone", nlohmann::json::array({hash}),
         nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 2}])"), 1, true},
        {"gpu parsers with resident_terms false, 1 CPU + gpu_hash", nlohmann::json::array({cpu1, hash}),
         nlohmann::json::parse(R"([{"device": "gpu:0", "resident_terms": false}])"), 0, false},
        {"two gpu_hash on gpu:0: no route",
         nlohmann::json::array({cpu1, {{"kind", "gpu_hash"}, {"device", "gpu:0"}, {"count", 2}}}),
         nlohmann::json::parse(R"([{"device": "gpu:0"}])"), 0, false},
    };
    // Where there are two GPUs: every GPU parses, and "auto" puts a gpu_hash
    // on each, each fed on its own device (two routes).
    if (list_gpus().devices.size() > 1) {
        cases.push_back({"every GPU parses, a gpu_hash on each (\"auto\")",
                         nlohmann::json::array({cpu1, {{"kind", "gpu_hash"}, {"device", "auto"}}}), "auto", 0, true});
    }
    for (const auto& positions : {"positions=false", "positions=true"}) {
        CAPTURE(positions);
        const std::vector<std::string> overrides = {positions, "memory.batch_bytes=16384", "memory.run_bytes=200000"};
        const auto cpu_output = dir / (std::string("cpu-") + positions);
        const BuildReport cpu = build_index(standard_pipeline(inputs, cpu_output, 2, 2), overrides);
        const std::string expected = ciff_bytes(cpu_output);
        int built = 0;
        for (const Case& c : cases) {
            CAPTURE(c.label);
            const auto output = dir / (std::string("gpu-") + positions + std::to_string(built++));
            nlohmann::json pipeline = standard_pipeline(inputs, output, 1, 2);
            pipeline = with_parsers(with_gpu_indexers(std::move(pipeline), c.indexers),
                                    ParseConfiguration{c.label, c.cpu_parsers, c.gpus});
            const BuildReport report = build_index(pipeline, overrides);
            CHECK(report.json.at("tokens") == cpu.json.at("tokens"));
            CHECK(ciff_bytes(output) == expected);
            const uint64_t on_device = parser_field(report.json, "terms_on_device");
            const uint64_t batches_on_device = parser_field(report.json, "batches_terms_on_device");
            if (c.expect_resident) {
                CHECK(batches_on_device > 0);
                CHECK(on_device > 0);
                // What stayed is exactly what the GPU indexer took from the device.
                CHECK(indexer_field(report.json, "resident_batches") == batches_on_device);
                CHECK(indexer_field(report.json, "resident_occurrences") == on_device);
            } else {
                CHECK(batches_on_device == 0);
                CHECK(indexer_field(report.json, "resident_batches") == 0);
            }
        }
    }
}

// A build with terms on the device that fails in the middle (a truncated
// gzip file the graph reaches after others) fails cleanly: the error names
// the file, no index is published, and the next build in the same process
// (the lent buffers given back) succeeds.
GPU_TEST_CASE("gpu parse (device): a failing build with terms on the device leaves no index, and the next one builds") {
    TempDir dir;
    const GeneratedWarc warc = generate_warc(72, 240, 4);
    write_parts(dir, "gen", warc);
    std::string last = warc.file_contents.back();
    last.resize(last.size() - 11);
    dir.write("bad/part-00.warc.gz", warc.file_contents[0]);
    dir.write("bad/part-01.warc.gz", warc.file_contents[1]);
    dir.write("bad/part-02.warc.gz", warc.file_contents[2]);
    dir.write("bad/part-03.warc.gz", last);
    const nlohmann::json indexers =
        nlohmann::json::array({{{"kind", "cpu_btree"}, {"count", 1}}, {{"kind", "gpu_hash"}, {"device", "gpu:0"}}});
    const auto pipeline = [&](const std::string& input, const std::string& output) {
        return with_parsers(with_gpu_indexers(standard_pipeline({(dir / input).string()}, dir / output, 1, 2), indexers),
                            ParseConfiguration{"gpu", 0, nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 2}])")});
    };
    // The sampler would meet the truncation first: off, so the graph does.
    const std::vector<std::string> overrides = {"memory.batch_bytes=8192", "sampler.enabled=false"};
    try {
        build_index(pipeline("bad", "bad-index"), overrides);
        FAIL("the build did not fail");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("part-03.warc.gz") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "bad-index"));
    const BuildReport report = build_index(pipeline("gen", "good-index"), overrides);
    CHECK(parser_field(report.json, "batches_terms_on_device") > 0);
    IndexReader index(dir / "good-index");
    check_index_equals(index, warc.reference);
}

GPU_TEST_CASE("gpu parse (device): possessives and a lone s give the CPU parsers' CIFF, the term 's' on both") {
    TempDir dir;
    // GPU parsers only: with a CPU parser beside them, so few batches may all go to it.
    std::vector<ParseConfiguration> gpus_only;
    for (const auto& configuration : device_configurations()) {
        if (configuration.count == 0) gpus_only.push_back(configuration);
    }
    REQUIRE(!gpus_only.empty());
    check_gpu_parsing_equals_cpu(possessive_inputs(dir), gpus_only, parse_settings(), "512");
}
