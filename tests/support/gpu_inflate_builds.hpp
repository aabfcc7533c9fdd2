// Builds whose decompress node inflates gzip members on GPUs (its "gpus")
// against the same build with the CPU alone: byte-identical CIFF, and the
// report's "split_gzip" section accounting for every chunk and member.
// Shared by the host reference tests (tests/pipelines/gpu_inflate_test.cpp)
// and the real GPU ones (tests/pipelines/gpu_inflate_device_test.cpp).
#pragma once

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

namespace invidx::testing {

inline nlohmann::json with_inflate_gpus(nlohmann::json pipeline, const nlohmann::json& gpus) {
    for (auto& node : pipeline["nodes"])
        if (node["kind"] == "decompress") node["gpus"] = gpus;
    return pipeline;
}

// What the report's "split_gzip" section says the decoders did.
struct InflateSplit {
    uint64_t chunks = 0;
    uint64_t chunks_not_decoded_alone = 0;
    uint64_t cpu_chunks = 0;
    uint64_t cpu_members = 0;
    uint64_t gpu_workers = 0;
    std::set<std::string> gpu_devices;  // of the workers ("gpu:0", ...)
    uint64_t gpu_chunks = 0;
    uint64_t gpu_members = 0;
    uint64_t gpu_text_bytes = 0;
    uint64_t gpu_batches = 0;
    uint64_t gpu_chunks_to_cpu = 0;
    uint64_t gpu_member_holes = 0;  // long members the GPUs left to the CPU decoders
    uint64_t cpu_member_holes = 0;  // those the CPU decoders inflated
    uint64_t cpu_chunks_decoded_again = 0;  // whose holes did not inflate: counted by a GPU worker too
    double gpu_run_seconds = 0;     // the GPU workers' batches, start to text out
    double gpu_device_seconds = 0;  // of which on the device (CUDA events; none on a pretend GPU)
    double gpu_wait_cpu_seconds = 0;  // the workers' threads polling for the device
    uint64_t chunks_before_gpus_ready = 0;  // sent to the CPU before a GPU worker had made its inflater
    std::string gpus;  // the "gpus" setting
};

// Every chunk is counted once: decoded alone by the CPU decoders or a GPU
// worker, or not decoded alone (left to the reassembler).
inline InflateSplit inflate_split(const nlohmann::json& report) {
    const nlohmann::json& section = report.at("split_gzip");
    InflateSplit split;
    split.chunks = section.at("chunks").get<uint64_t>();
    split.chunks_not_decoded_alone = section.at("chunks_not_decoded_alone").get<uint64_t>();
    split.gpus = section.at("gpus").get<std::string>();
    if (section.contains("gpu_backend")) {
        split.chunks_before_gpus_ready = section.at("chunks_before_gpus_ready").get<uint64_t>();
        CHECK(split.chunks_before_gpus_ready <= split.chunks);
    }
    for (const auto& decoder : section.at("decoders")) {
        CHECK(decoder.at("busy_seconds").get<double>() >= 0);
        if (decoder.at("kind") == "cpu") {
            split.cpu_chunks += decoder.at("chunks").get<uint64_t>();
            split.cpu_members += decoder.at("members").get<uint64_t>();
            split.cpu_member_holes += decoder.at("member_holes").get<uint64_t>();
            split.cpu_chunks_decoded_again += decoder.at("chunks_decoded_again").get<uint64_t>();
            continue;
        }
        CHECK(decoder.at("kind") == "gpu");
        ++split.gpu_workers;
        split.gpu_devices.insert(decoder.at("device").get<std::string>());
        split.gpu_chunks += decoder.at("chunks").get<uint64_t>();
        split.gpu_members += decoder.at("members").get<uint64_t>();
        split.gpu_text_bytes += decoder.at("text_bytes").get<uint64_t>();
        split.gpu_batches += decoder.at("batches").get<uint64_t>();
        split.gpu_chunks_to_cpu += decoder.at("chunks_to_cpu").get<uint64_t>();
        split.gpu_member_holes += decoder.at("member_holes").get<uint64_t>();
        const nlohmann::json& seconds = decoder.at("seconds");
        const double device = seconds.at("device_copy_in").get<double>() + seconds.at("device_kernel").get<double>() +
                              seconds.at("device_copy_out").get<double>();
        CHECK(seconds.at("fill_batch").get<double>() >= 0);
        // Its inflater was made, and timed, before its first batch.
        CHECK(seconds.at("set_up").get<double>() > 0);
        CHECK(device >= 0);
        // The device's steps lie inside the batches' runs (the clocks differ by a little).
        CHECK(device <= seconds.at("run").get<double>() + 0.01);
        // Its thread's CPU time polling for the device, inside its runs.
        CHECK(seconds.at("wait_cpu").get<double>() >= 0);
        CHECK(seconds.at("wait_cpu").get<double>() <= seconds.at("run").get<double>() + 0.01);
        split.gpu_wait_cpu_seconds += seconds.at("wait_cpu").get<double>();
        split.gpu_run_seconds += seconds.at("run").get<double>();
        split.gpu_device_seconds += device;
    }
    CHECK(split.cpu_chunks + split.gpu_chunks + split.chunks_not_decoded_alone ==
          split.chunks + split.cpu_chunks_decoded_again);
    // Every chunk reached the reassembler once, timed from the router by
    // its path: a GPU batch inflated it (its long members filled by a CPU
    // decoder after) or not.
    const nlohmann::json& latency = section.at("chunk_seconds");
    const uint64_t gpu_path = latency.at("gpu").at("chunks").get<uint64_t>();
    CHECK(latency.at("cpu").at("chunks").get<uint64_t>() + gpu_path == split.chunks);
    if (split.cpu_chunks_decoded_again == 0) CHECK(gpu_path == split.gpu_chunks);
    for (const char* path : {"cpu", "gpu"}) {
        CAPTURE(path);
        const nlohmann::json& timed = latency.at(path);
        CHECK(timed.at("mean").get<double>() >= 0);
        CHECK(timed.at("mean").get<double>() <= timed.at("max").get<double>());
        if (timed.at("chunks").get<uint64_t>() > 0) CHECK(timed.at("max").get<double>() > 0);
    }
    return split;
}

// `inputs` built with the decompress node's "gpus" "none", then once with
// each of `gpus`: the same CIFF, byte for byte, and as many members decoded
// alone. Returns what each GPU build's decoders did.
inline std::vector<InflateSplit> check_gpu_inflate_equals_cpu(const std::vector<std::string>& inputs,
                                                              const std::vector<nlohmann::json>& gpus,
                                                              const std::vector<std::string>& overrides) {
    TempDir dir;
    const auto cpu_output = dir / "cpu";
    const BuildReport cpu = build_index(with_inflate_gpus(standard_pipeline(inputs, cpu_output, 2, 2), "none"), overrides);
    const InflateSplit cpu_split = inflate_split(cpu.json);
    CHECK(cpu_split.gpus == "none");
    CHECK(cpu_split.gpu_workers == 0);
    CHECK(cpu_split.chunks > 1);
    const std::string expected = ciff_bytes(cpu_output);
    std::vector<InflateSplit> splits;
    for (size_t g = 0; g < gpus.size(); ++g) {
        CAPTURE(gpus[g].dump());
        const auto output = dir / ("gpu-" + std::to_string(g));
        const BuildReport report = build_index(with_inflate_gpus(standard_pipeline(inputs, output, 2, 2), gpus[g]), overrides);
        const InflateSplit split = inflate_split(report.json);
        CHECK(split.gpus == "list");
        CHECK(split.gpu_devices.size() == gpus[g].size());
        CHECK(split.gpu_workers % gpus[g].size() == 0);  // as many batches in flight on each
        CHECK(report.json.at("documents") == cpu.json.at("documents"));
        // The same chunks, each decoded alone or not as on the CPU.
        CHECK(split.chunks == cpu_split.chunks);
        CHECK(split.chunks_not_decoded_alone == cpu_split.chunks_not_decoded_alone);
        if (split.cpu_chunks_decoded_again == 0) CHECK(split.cpu_members + split.gpu_members == cpu_split.cpu_members);
        CHECK(ciff_bytes(output) == expected);
        // The backends of these tests hand chunks to the GPU workers from the
        // start (GpuInflateBackend::chunks_wait_for_set_up).
        CHECK(split.chunks_before_gpus_ready == 0);
        splits.push_back(split);
    }
    return splits;
}

}  // namespace invidx::testing
