// The decompress node's GPU workers on a real GPU (the CUDA backend: a
// GpuInflater per worker, and a GpuPieceDecoder for stream pieces) build the
// index the CPU alone builds: byte-identical CIFF on generated per-record
// WARC.gz files, the sample and a one-stream file, and the CPU's error for a
// damaged file. GPU test cases (support/gpu_test.hpp):
// gpu_inflate_test.cpp runs the same graph with the host reference backend
// everywhere.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/gpu_inflate_backend.hpp"
#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/gpu_inflate_builds.hpp"
#include "support/gpu_test.hpp"
#include "support/gzip_member.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::vector<std::string> small_blocks(unsigned tokens, const std::string& gpu_batch_bytes) {
    return {"memory.tokens=" + std::to_string(tokens), "memory.read_block_bytes=16384",
            "memory.text_block_bytes=65536", "decompress.count=2", "decompress.gpu_batch_bytes=" + gpu_batch_bytes};
}

// CUDA's backend, its chunks waiting for the workers' set-up, so that these
// small inputs, read and routed before an inflater is made, are inflated on
// the GPU (GpuInflateBackend::chunks_wait_for_set_up).
GpuInflateBackend cuda_waiting_for_set_up() {
    GpuInflateBackend backend = cuda_gpu_inflate_backend();
    backend.chunks_wait_for_set_up = true;
    return backend;
}

std::vector<nlohmann::json> device_lists() {
    std::vector<nlohmann::json> lists = {nlohmann::json::parse("[0]")};
    if (list_gpus().devices.size() > 1) lists.push_back(nlohmann::json::parse("[0, 1]"));
    return lists;
}

}  // namespace

GPU_TEST_CASE("decompress gpus (device): per-record WARC.gz files inflated on gpu:0 give the CIFF of gpus none") {
    const ScopedGpuInflateBackend waiting(cuda_waiting_for_set_up());
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(51, 3000, 3));
    for (const unsigned tokens : {8u, 48u}) {
        for (const char* batch_bytes : {"40000", "67108864"}) {
            CAPTURE(tokens);
            CAPTURE(batch_bytes);
            for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, device_lists(), small_blocks(tokens, batch_bytes))) {
                CHECK(split.gpu_chunks > 0);
                CHECK(split.gpu_members > 0);
                CHECK(split.gpu_batches > 0);
                CHECK(split.gpu_chunks_to_cpu == 0);
                CHECK(split.gpu_device_seconds > 0);  // the kernel and copies, timed by CUDA events
                CHECK(split.gpu_device_seconds <= split.gpu_run_seconds + 0.01);
                CHECK(split.gpu_wait_cpu_seconds > 0);  // the workers polled for their batches
            }
        }
    }
}

GPU_TEST_CASE("decompress gpus (device): members over gpu_member_bytes are filled in by the CPU, the CIFF of gpus none") {
    const ScopedGpuInflateBackend waiting(cuda_waiting_for_set_up());
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(57, 2000, 2));
    std::vector<std::string> overrides = small_blocks(16, "65536");
    overrides.push_back("decompress.gpu_member_bytes=1000");  // the requests and short pages on the GPU
    for (const unsigned in_flight : {1u, 2u}) {
        CAPTURE(in_flight);
        std::vector<std::string> settings = overrides;
        settings.push_back("decompress.gpu_batches_in_flight=" + std::to_string(in_flight));
        for (const InflateSplit& split : check_gpu_inflate_equals_cpu(inputs, device_lists(), settings)) {
            CHECK(split.gpu_members > 0);
            CHECK(split.gpu_member_holes > 0);
            CHECK(split.cpu_member_holes == split.gpu_member_holes);
        }
    }
}

GPU_TEST_CASE("decompress gpus (device): the sample WARC.gz inflated on gpu:0 gives the CIFF of gpus none") {
    const ScopedGpuInflateBackend waiting(cuda_waiting_for_set_up());
    const std::string sample = std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz";
    const auto splits = check_gpu_inflate_equals_cpu({sample}, {nlohmann::json::parse("[0]")}, small_blocks(16, "67108864"));
    REQUIRE(splits.size() == 1);
    CHECK(splits[0].gpu_members > 0);
}

GPU_TEST_CASE("decompress gpus (device): a damaged member fails the build with the error of gpus none") {
    const ScopedGpuInflateBackend waiting(cuda_waiting_for_set_up());
    TempDir dir;
    const std::string clean = generate_warc(53, 400, 1).file_contents.at(0);
    std::string flipped = clean;
    flipped[clean.size() / 2] = static_cast<char>(flipped[clean.size() / 2] ^ 0x55);
    const auto error_of = [&](const std::string& path, const nlohmann::json& gpus, const std::string& output) {
        try {
            build_index(with_inflate_gpus(standard_pipeline({path}, dir / output, 2, 2), gpus), small_blocks(16, "67108864"));
        } catch (const Error& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    for (const auto& [what, bytes] : std::vector<std::pair<std::string, std::string>>{
             {"flipped", flipped}, {"truncated", clean.substr(0, clean.size() - 3)}, {"trailing", clean + "not gzip"}}) {
        CAPTURE(what);
        const std::string path = dir.write(what + "/part.warc.gz", bytes).string();
        const std::string expected = error_of(path, "none", "cpu");
        CHECK(expected != "no error");
        CHECK(error_of(path, nlohmann::json::parse("[0]"), "gpu") == expected);
    }
}

GPU_TEST_CASE("decompress gpu_stream_pieces (device): a one-stream WARC.gz searched in pieces on gpu:0 gives the unsplit CIFF") {
    const ScopedGpuInflateBackend waiting(cuda_waiting_for_set_up());
    TempDir dir;
    const std::string path = dir.write("in/one-stream.warc.gz", member(random_warc_records(59, 1500))).string();
    const std::vector<std::string> small = {"memory.read_block_bytes=65536", "decompress.count=2", "memory.tokens=16"};
    std::vector<std::string> unsplit = small, gpu = small;
    unsplit.push_back("decompress.split_gzip_streams=false");
    for (const char* set : {"decompress.gpus=[0]", "decompress.gpu_stream_pieces=true", "decompress.gpu_stream_piece_bytes=8192",
                            "decompress.gpu_batch_bytes=262144"})
        gpu.push_back(set);
    build_index(standard_pipeline({path}, dir / "unsplit", 2, 2), unsplit);
    const BuildReport report = build_index(standard_pipeline({path}, dir / "gpu", 2, 2), gpu);
    CHECK(ciff_bytes(dir / "gpu") == ciff_bytes(dir / "unsplit"));
    const nlohmann::json& section = report.json.at("split_gzip");
    CAPTURE(section.dump());
    uint64_t gpu_pieces = 0;
    for (const auto& decoder : section.at("decoders"))
        if (decoder.at("kind") == "gpu") gpu_pieces += decoder.at("stream_pieces").get<uint64_t>();
    CHECK(gpu_pieces > 10);
    CHECK(section.at("stream_pieces_decoded_again").get<uint64_t>() == 0);
}

namespace {

// The parse node's GPU parsers: text they copied on the device from
// GPU-inflated blocks instead of uploading it.
uint64_t parse_text_from_device(const nlohmann::json& report) {
    uint64_t bytes = 0;
    for (const auto& parser : report.at("parse").at("parsers"))
        if (parser.contains("text_bytes_from_device")) bytes += parser.at("text_bytes_from_device").get<uint64_t>();
    return bytes;
}

uint64_t inflate_batches_on_device(const nlohmann::json& report) {
    uint64_t batches = 0;
    for (const auto& decoder : report.at("split_gzip").at("decoders"))
        if (decoder.at("kind") == "gpu") batches += decoder.at("batches_text_on_device").get<uint64_t>();
    return batches;
}

// The device memory the GPU workers' resident buffers hold at the end.
uint64_t inflate_text_device_bytes(const nlohmann::json& report) {
    uint64_t bytes = 0;
    for (const auto& decoder : report.at("split_gzip").at("decoders"))
        if (decoder.at("kind") == "gpu") bytes += decoder.at("text_device_bytes").get<uint64_t>();
    return bytes;
}

}  // namespace

GPU_TEST_CASE("decompress gpus (device): GPU parsers on the inflating GPU read its text on the device, the CIFF of the CPU") {
    const ScopedGpuInflateBackend waiting(cuda_waiting_for_set_up());
    TempDir dir;
    const std::vector<std::string> inputs = write_parts(dir, "in", generate_warc(61, 3000, 3));
    nlohmann::json cpu = with_inflate_gpus(standard_pipeline(inputs, dir / "cpu", 2, 2), "none");
    build_index(cpu, small_blocks(16, "65536"));
    const std::string expected = ciff_bytes(dir / "cpu");
    // Long members left to the CPU (holes) make chunks whose blocks stay on the host.
    for (const std::string member_bytes : {"262144", "2000"}) {
        for (const std::string resident : {"8", "1", "0"}) {
            CAPTURE(member_bytes);
            CAPTURE(resident);
            const std::string name = "gpu-" + member_bytes + "-" + resident;
            // GPU parsers only (parse count 0), so that no CPU parser takes
            // the batches whose text is on the device; one regroup node,
            // which standard_pipeline would otherwise size to the 0 parsers.
            nlohmann::json gpu = with_inflate_gpus(standard_pipeline(inputs, dir / name, 0, 2), "auto");
            for (auto& node : gpu["nodes"]) {
                if (node["kind"] == "parse") node["gpus"] = nlohmann::json::parse(R"([{"device": "gpu:0", "slots": 2}])");
                if (node["kind"] == "regroup") node["count"] = 1;
            }
            std::vector<std::string> overrides = small_blocks(16, "65536");
            overrides.push_back("decompress.gpu_member_bytes=" + member_bytes);
            overrides.push_back("decompress.gpu_resident_batches=" + resident);
            // Batches of a text block's size: a document points into its
            // block (and so may be on the device) unless it straddles two;
            // with the default 4 MiB batches a batch of under half that is
            // copied out of its block at the block's end, so only the
            // documents of a few blocks a file pointed into them, and in one
            // run of three on an H200 none of those blocks was GPU-inflated.
            overrides.push_back("memory.batch_bytes=65536");
            const BuildReport report = build_index(gpu, overrides);
            CHECK(ciff_bytes(dir / name) == expected);
            CHECK(inflate_split(report.json).gpu_members > 0);
            if (resident == "0") {
                CHECK(inflate_batches_on_device(report.json) == 0);
                CHECK(parse_text_from_device(report.json) == 0);
                CHECK(inflate_text_device_bytes(report.json) == 0);
            } else {
                CHECK(inflate_batches_on_device(report.json) > 0);
                // Each buffer at most the inflater's output: 8 times the 65,536-byte batches.
                CHECK(inflate_text_device_bytes(report.json) > 0);
                CHECK(inflate_text_device_bytes(report.json) <= std::stoull(resident) * 8 * 65536);
                // One buffer is held by the blocks of one batch at a time,
                // whose documents only GPU parsers take here.
                if (resident == "8") CHECK(parse_text_from_device(report.json) > 0);
            }
        }
    }
}
