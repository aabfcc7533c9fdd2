// The decompress node's GPU workers in the pipeline, beside its CPU chunk
// decoders, build the index the CPU alone builds: byte-identical CIFF on
// per-record WARC.gz files, few tokens or many, batches of any size, and the
// same error for a damaged file. The GPUs here are the host reference
// backend's pretend ones (each batch inflated member by member on the
// host), so the whole GPU path of the node (the shared chunk queue, the
// workers' limiters, async nodes and threads, batches, the chunks left to
// the CPU, the report) runs in the CPU test suite; gpu_inflate_device_test.cpp
// runs the same checks on a real GPU.
#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/decompress/gpu_inflate_backend.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"
#include "support/generated_warc.hpp"
#include "support/gpu_inflate_builds.hpp"
#include "support/gzip_member.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Small read blocks, so that each file is split into many chunks.
std::vector<std::string> small_blocks(unsigned tokens, const std::string& gpu_batch_bytes) {
    return {"memory.tokens=" + std::to_string(tokens), "memory.read_block_bytes=4096", "memory.text_block_bytes=6000",
            "memory.batch_bytes=8000", "decompress.count=2", "decompress.gpu_batch_bytes=" + gpu_batch_bytes};
}

// The JSON pointer of the ConfigError that `pipeline`, with the decompress
// node's `key` set to `value`, fails with ("no error" when it builds).
std::string config_error_pointer(nlohmann::json pipeline, const std::string& key, const nlohmann::json& value) {
    for (auto& node : pipeline["nodes"])
        if (node["kind"] == "decompress") node[key] = value;
    try {
        build_index(pipeline);
    } catch (const ConfigError& error) {
        return error.json_pointer();
    }
    return "no error";
}

std::string error_of(const nlohmann::json& pipeline) {
    try {
        build_index(pipeline, small_blocks(16, "65536"));
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("decompress gpus (host reference): per-record WARC.gz files give the CPU's CIFF, few tokens or many") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(2));
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(41, 400, 3));
    const std::vector<nlohmann::json> gpus = {nlohmann::json::parse("[0]"), nlohmann::json::parse(R"([1, "gpu:0"])")};
    // 8 tokens: a chunk of two blocks is the most the chunker holds.
    for (const unsigned tokens : {8u, 32u}) {
        // A batch of about two chunks, or of every chunk waiting.
        for (const char* batch_bytes : {"9000", "67108864"}) {
            CAPTURE(tokens);
            CAPTURE(batch_bytes);
            for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, gpus, small_blocks(tokens, batch_bytes))) {
                CHECK(split.gpu_chunks > 0);
                CHECK(split.gpu_members > 0);
                CHECK(split.gpu_text_bytes > 0);
                CHECK(split.gpu_batches > 0);
                CHECK(split.gpu_chunks_to_cpu == 0);  // clean files: every chunk the GPUs take inflates
                CHECK(split.gpu_run_seconds > 0);
                CHECK(split.gpu_device_seconds == 0);  // inflated on the host: no device steps timed
                CHECK(split.gpu_wait_cpu_seconds == 0);  // nor waited for
            }
        }
    }
}

TEST_CASE("decompress gpus (host reference): \"auto\" inflates on the GPUs the parse node parses on") {
    const ScopedGpuParseBackend pretend_parse(host_reference_gpu_parse_backend(2));
    const ScopedGpuInflateBackend pretend_inflate(host_reference_gpu_inflate_backend(2));
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(43, 200, 2));
    const auto overrides = small_blocks(16, "65536");
    nlohmann::json cpu = with_inflate_gpus(standard_pipeline(inputs, dir / "cpu", 2, 2), "none");
    const BuildReport cpu_report = build_index(cpu, overrides);
    nlohmann::json gpu = with_inflate_gpus(standard_pipeline(inputs, dir / "gpu", 2, 2), "auto");
    for (auto& node : gpu["nodes"])
        if (node["kind"] == "parse") node["gpus"] = "auto";
    // A decompress node without "gpus" inflates on the CPU even where GPUs parse
    // (configs/default.json asks for "auto").
    nlohmann::json opted_out = standard_pipeline(inputs, dir / "opted-out", 2, 2);
    for (auto& node : opted_out["nodes"])
        if (node["kind"] == "parse") node["gpus"] = "auto";
    const InflateSplit opted_out_split = inflate_split(build_index(opted_out, overrides).json);
    CHECK(opted_out_split.gpus == "none");
    CHECK(opted_out_split.gpu_workers == 0);
    const BuildReport report = build_index(gpu, overrides);
    const InflateSplit split = inflate_split(report.json);
    CHECK(split.gpus == "auto");
    CHECK(split.gpu_devices == std::set<std::string>{"gpu:0", "gpu:1"});
    CHECK(split.gpu_workers == 4);  // two batches in flight on each GPU, by default
    CHECK(split.gpu_members > 0);
    CHECK(report.json.at("split_gzip").at("gpus_reason").get<std::string>().find("gpu:0, gpu:1") != std::string::npos);
    CHECK(report.json.at("split_gzip").at("gpu_backend") == "host reference (tests)");
    CHECK(ciff_bytes(dir / "gpu") == ciff_bytes(dir / "cpu"));
    // The parse node on the CPU: "auto" takes no GPU to inflate.
    const InflateSplit cpu_split = inflate_split(cpu_report.json);
    const BuildReport plain =
        build_index(with_inflate_gpus(standard_pipeline(inputs, dir / "plain", 2, 2), "auto"), overrides);
    CHECK(inflate_split(plain.json).gpus == "auto");
    CHECK(inflate_split(plain.json).gpu_workers == 0);
    CHECK(cpu_split.gpu_workers == 0);
}

TEST_CASE("decompress gpus (host reference): a damaged member fails the build with the CPU's error") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(1));
    TempDir dir;
    const std::string clean = generate_warc(47, 200, 1).file_contents.at(0);
    REQUIRE(clean.size() > 40000);
    std::string flipped = clean;
    flipped[clean.size() / 2] = static_cast<char>(flipped[clean.size() / 2] ^ 0x55);  // about the middle
    const std::vector<std::pair<std::string, std::string>> damaged = {
        {"a flipped byte", flipped},
        {"truncated", clean.substr(0, clean.size() - 3)},
        {"trailing bytes", clean + "not gzip"},
    };
    for (const auto& [what, bytes] : damaged) {
        CAPTURE(what);
        const std::string path = dir.write(what + "/part.warc.gz", bytes).string();
        const std::string expected = error_of(with_inflate_gpus(standard_pipeline({path}, dir / "cpu", 2, 2), "none"));
        CHECK(expected != "no error");
        CHECK(expected.find("part.warc.gz") != std::string::npos);
        CHECK(error_of(with_inflate_gpus(standard_pipeline({path}, dir / "gpu", 2, 2), nlohmann::json::parse("[0]"))) ==
              expected);
    }
}

TEST_CASE("decompress gpus (host reference): one and three batches in flight a GPU give the CPU's CIFF") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(2));
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(59, 300, 3));
    const std::vector<nlohmann::json> gpus = {nlohmann::json::parse("[0, 1]")};
    for (const unsigned in_flight : {1u, 3u}) {
        CAPTURE(in_flight);
        std::vector<std::string> overrides = small_blocks(16, "9000");
        overrides.push_back("decompress.gpu_batches_in_flight=" + std::to_string(in_flight));
        for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, gpus, overrides)) {
            CHECK(split.gpu_workers == 2 * in_flight);
            CHECK(split.gpu_members > 0);
        }
    }
    for (const int bad : {0, 9}) {
        const nlohmann::json pipeline = with_inflate_gpus(standard_pipeline(inputs, dir / "bad", 1, 1), "none");
        CHECK(config_error_pointer(pipeline, "gpu_batches_in_flight", bad) == "/nodes/1/gpu_batches_in_flight");
    }
}

TEST_CASE("decompress gpu_resident_batches (host reference): 0 to 64 give the CPU's CIFF where GPUs inflate and parse; asked for where none does both, an error") {
    const ScopedGpuParseBackend pretend_parse(host_reference_gpu_parse_backend(2));
    const ScopedGpuInflateBackend pretend_inflate(host_reference_gpu_inflate_backend(2));
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(67, 300, 3));
    const auto overrides = small_blocks(16, "9000");
    build_index(with_inflate_gpus(standard_pipeline(inputs, dir / "cpu", 2, 2), "none"), overrides);
    const std::string expected = ciff_bytes(dir / "cpu");
    const auto parsing_on_gpus = [&](const std::string& output, const nlohmann::json& inflate_gpus) {
        nlohmann::json pipeline = with_inflate_gpus(standard_pipeline(inputs, dir / output, 2, 2), inflate_gpus);
        for (auto& node : pipeline["nodes"])
            if (node["kind"] == "parse") node["gpus"] = "auto";
        return pipeline;
    };
    for (const int resident : {0, 1, 64}) {
        CAPTURE(resident);
        const std::string output = "gpu-" + std::to_string(resident);
        nlohmann::json pipeline = parsing_on_gpus(output, "auto");
        for (auto& node : pipeline["nodes"])
            if (node["kind"] == "decompress") node["gpu_resident_batches"] = resident;
        const BuildReport report = build_index(pipeline, overrides);
        CHECK(inflate_split(report.json).gpu_members > 0);
        CHECK(ciff_bytes(dir / output) == expected);
    }
    // Asked for where no GPU both inflates and parses: it would do nothing.
    const nlohmann::json cpu_inflate = parsing_on_gpus("bad", "none");
    CHECK(config_error_pointer(cpu_inflate, "gpu_resident_batches", 8) == "/nodes/1/gpu_resident_batches");
    CHECK(config_error_pointer(parsing_on_gpus("zero", "none"), "gpu_resident_batches", 0) == "no error");
    nlohmann::json other_gpu = parsing_on_gpus("bad", nlohmann::json::parse("[1]"));
    for (auto& node : other_gpu["nodes"])
        if (node["kind"] == "parse") node["gpus"] = nlohmann::json::parse(R"([{"device": "gpu:0"}])");
    CHECK(config_error_pointer(other_gpu, "gpu_resident_batches", 8) == "/nodes/1/gpu_resident_batches");
    const nlohmann::json cpu_parse = with_inflate_gpus(standard_pipeline(inputs, dir / "bad", 1, 1), nlohmann::json::parse("[0]"));
    CHECK(config_error_pointer(cpu_parse, "gpu_resident_batches", 8) == "/nodes/1/gpu_resident_batches");
    CHECK(config_error_pointer(parsing_on_gpus("bad", "auto"), "gpu_resident_batches", 65) == "/nodes/1/gpu_resident_batches");
}

TEST_CASE("decompress gpus (host reference): a long member cut by a false header is decoded again whole, the CPU's CIFF") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(1));
    TempDir dir;
    // Short records, and one long record stored (level 0) whose text holds
    // a gzip header's bytes after 4 bytes that read as an ISIZE of 16,384:
    // the scan takes both pieces of that member for members over the cap
    // (holes), neither inflates, and the chunk is decoded again whole.
    std::string file;
    for (int d = 0; d < 60; ++d) file += gzip(warc_response("short-" + std::to_string(d), "<p>page " + std::to_string(d) + "</p>"));
    const std::string fake_header("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
    const std::string long_html = "<p>" + std::string(1500, 'a') + std::string("\x00\x40\x00\x00", 4) + fake_header +
                                  std::string(1500, 'b') + "</p>";
    MemberOptions stored;
    stored.level = 0;
    file += member(warc_response("long", long_html), stored);  // inside the first read block
    for (int d = 60; d < 600; ++d) file += gzip(warc_response("short-" + std::to_string(d), "<p>page " + std::to_string(d) + "</p>"));
    const std::string path = dir.write("in/part.warc.gz", file).string();
    const std::vector<std::string> settings = {"memory.tokens=16", "memory.read_block_bytes=65536",
                                               "decompress.count=2", "decompress.gpu_member_bytes=1000"};
    for (const InflateSplit& split : check_gpu_inflate_equals_cpu({path}, {nlohmann::json::parse("[0]")}, settings)) {
        CHECK(split.cpu_chunks_decoded_again == 1);
        CHECK(split.gpu_members > 0);
    }
}

TEST_CASE("decompress gpus (host reference): until a GPU worker has made its inflater the CPU decoders take the chunks") {
    // A backend like CUDA's (chunks do not wait for the set-up) whose
    // inflater takes 3 s to make: the small input is read and routed long
    // before.
    GpuInflateBackend slow = host_reference_gpu_inflate_backend(1);
    slow.chunks_wait_for_set_up = false;
    const auto make = slow.make_inflater;
    slow.make_inflater = [make](int ordinal, const MemberBatchLimits& limits, size_t resident_outputs) {
        std::this_thread::sleep_for(std::chrono::seconds(3));
        return make(ordinal, limits, resident_outputs);
    };
    const ScopedGpuInflateBackend pretend(slow);
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(59, 200, 2));
    const BuildReport cpu =
        build_index(with_inflate_gpus(standard_pipeline(inputs, dir / "cpu", 2, 2), "none"), small_blocks(16, "65536"));
    const BuildReport gpu = build_index(
        with_inflate_gpus(standard_pipeline(inputs, dir / "gpu", 2, 2), nlohmann::json::parse("[0]")), small_blocks(16, "65536"));
    const InflateSplit split = inflate_split(gpu.json);
    CHECK(split.gpu_workers == 2);  // two batches in flight a GPU, by default
    CHECK(split.chunks > 1);
    CHECK(split.gpu_chunks == 0);
    CHECK(split.chunks_before_gpus_ready == split.chunks);
    CHECK(split.cpu_members == inflate_split(cpu.json).cpu_members);
    CHECK(ciff_bytes(dir / "gpu") == ciff_bytes(dir / "cpu"));
}

TEST_CASE("decompress gpus: a bad \"gpus\" is a ConfigError naming the decompress node's key") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(1));
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(5, 10, 1));
    const auto pointer_of = [&](const nlohmann::json& gpus, bool split_gzip = true) {
        return config_error_pointer(with_inflate_gpus(standard_pipeline(inputs, dir / "out", 1, 1), gpus), "split_gzip",
                                    split_gzip);
    };
    CHECK(pointer_of("all") == "/nodes/1/gpus");
    CHECK(pointer_of(nlohmann::json::parse("[3]")) == "/nodes/1/gpus/0");
    CHECK(pointer_of(nlohmann::json::parse("[0, 0]")) == "/nodes/1/gpus/1");
    CHECK(pointer_of(nlohmann::json::parse("[0]"), false) == "/nodes/1/gpus");
    CHECK(pointer_of("none", false) == "no error");
    CHECK(pointer_of("none") == "no error");
}

TEST_CASE("decompress gpus (host reference): gpu_member_bytes leaves longer members to the CPU, the rest of their chunks to the GPU") {
    const ScopedGpuInflateBackend pretend(host_reference_gpu_inflate_backend(1));
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(53, 200, 2));
    const std::vector<nlohmann::json> gpus = {nlohmann::json::parse("[0]")};
    // Every record is longer than 64 bytes of text: the GPU takes no chunk.
    std::vector<std::string> tiny_cap = small_blocks(16, "65536");
    tiny_cap.push_back("decompress.gpu_member_bytes=64");
    for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, gpus, tiny_cap)) {
        CHECK(split.gpu_members == 0);
        CHECK(split.gpu_chunks_to_cpu > 0);
    }
    // 1,000 bytes: the requests and short pages on the GPU, the longer pages
    // on the CPU, in the same chunks.
    std::vector<std::string> some_long = small_blocks(16, "65536");
    some_long.push_back("decompress.gpu_member_bytes=1000");
    for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, gpus, some_long)) {
        CHECK(split.gpu_members > 0);
        CHECK(split.gpu_member_holes > 0);
        CHECK(split.cpu_member_holes == split.gpu_member_holes);
        CHECK(split.gpu_chunks > 0);
    }
    // The default cap (256 KiB) takes them all.
    for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, gpus, small_blocks(16, "65536"))) {
        CHECK(split.gpu_members > 0);
        CHECK(split.gpu_member_holes == 0);
    }
    const nlohmann::json bad = with_inflate_gpus(standard_pipeline(inputs, dir / "bad", 1, 1), "none");
    CHECK(config_error_pointer(bad, "gpu_member_bytes", 0) == "/nodes/1/gpu_member_bytes");
}
