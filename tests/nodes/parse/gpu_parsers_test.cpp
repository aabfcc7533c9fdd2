// The parse node's "gpus" key: which GPUs parse, and clear errors naming the
// key for a device that is unknown, absent, or asked of a build without CUDA.
#include "nodes/parse/gpu_parsers.hpp"

#include <doctest/doctest.h>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"
#include "nodes/parse/parse_node.hpp"

using namespace invidx;
using nlohmann::json;

namespace {

const std::string kAt = "/nodes/3/gpus";

// The ConfigError's message (it starts with the pointer) for `gpus`.
std::string error_for(const json& gpus, const GpuParseBackend& backend) {
    try {
        choose_gpu_parsers(gpus, kAt, backend);
    } catch (const ConfigError& error) {
        return error.what();
    }
    return "no error";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("gpu parsers: absent, none and [] choose CPU parsers only") {
    const GpuParseBackend two = host_reference_gpu_parse_backend(2);
    for (const json& value : {json(), json("none"), json::array()}) {
        const GpuParserChoice choice = choose_gpu_parsers(value, kAt, two);
        CHECK(choice.gpus.empty());
        CHECK(choice.setting == "none");
    }
}

TEST_CASE("gpu parsers: auto takes every GPU present, and none where there is none") {
    const GpuParserChoice two = choose_gpu_parsers("auto", kAt, host_reference_gpu_parse_backend(2));
    REQUIRE(two.gpus.size() == 2);
    CHECK(two.setting == "auto");
    CHECK(two.gpus[0].device == "gpu:0");
    CHECK(two.gpus[1].device == "gpu:1");
    CHECK(two.gpus[1].ordinal == 1);
    CHECK(two.gpus[0].slots == kDefaultGpuParserSlots);
    CHECK(contains(two.reason, "gpu:0, gpu:1"));

    const GpuParserChoice none = choose_gpu_parsers("auto", kAt, host_reference_gpu_parse_backend(0));
    CHECK(none.gpus.empty());
    CHECK(contains(none.reason, "no CUDA device present"));

    // This machine, through the real backend: a build without CUDA or no device means CPU.
    const GpuInventory here = list_gpus();
    const GpuParserChoice real = choose_gpu_parsers("auto", kAt, cuda_gpu_parse_backend());
    CHECK(real.gpus.size() == here.devices.size());
    if (here.devices.empty()) CHECK(contains(real.reason, here.note));
}

TEST_CASE("gpu parsers: a list names its devices and slots") {
    const GpuParseBackend two = host_reference_gpu_parse_backend(2);
    const GpuParserChoice choice =
        choose_gpu_parsers(json::parse(R"([{"device": "gpu:1", "slots": 3, "max_batch_bytes": 1000}, "gpu:0"])"), kAt, two);
    REQUIRE(choice.gpus.size() == 2);
    CHECK(choice.setting == "list");
    CHECK(choice.gpus[0].device == "gpu:1");
    CHECK(choice.gpus[0].ordinal == 1);
    CHECK(choice.gpus[0].slots == 3);
    CHECK(choice.gpus[1].ordinal == 0);
    CHECK(choice.gpus[1].slots == kDefaultGpuParserSlots);
    CHECK(choice.gpus[0].max_batch_bytes == 1000);
    CHECK(choice.gpus[1].max_batch_bytes == GpuParserSpec{}.max_batch_bytes);
    CHECK(choice.gpus[1].resident_terms);  // terms stay on the device by default
    const GpuParserChoice off = choose_gpu_parsers(json::parse(R"([{"device": "gpu:0", "resident_terms": false}])"), kAt, two);
    REQUIRE(off.gpus.size() == 1);
    CHECK_FALSE(off.gpus[0].resident_terms);
}

TEST_CASE("gpu parsers: bad values are ConfigErrors naming the key") {
    const GpuParseBackend two = host_reference_gpu_parse_backend(2);
    CHECK(contains(error_for("all", two), kAt + ":"));
    CHECK(contains(error_for(3, two), "expected \"auto\", \"none\" or a list"));
    // An unknown device, at the entry's "device".
    const std::string unknown = error_for(json::parse(R"([{"device": "cpu"}])"), two);
    CHECK(contains(unknown, kAt + "/0/device"));
    CHECK(contains(unknown, "unknown device 'cpu'"));
    CHECK(contains(error_for(json::parse(R"(["gpu:x"])"), two), kAt + "/0"));
    CHECK(contains(error_for(json::parse(R"([{}])"), two), "missing"));
    // A device that is not present.
    const std::string absent = error_for(json::parse(R"([{"device": "gpu:0"}, {"device": "gpu:2"}])"), two);
    CHECK(contains(absent, kAt + "/1/device"));
    CHECK(contains(absent, "\"gpu:2\" is not available: no such GPU: this machine has gpu:0, gpu:1"));
    const std::string no_device =
        error_for(json::parse(R"([{"device": "gpu:0"}])"), host_reference_gpu_parse_backend(0));
    CHECK(contains(no_device, kAt + "/0/device"));
    CHECK(contains(no_device, "\"gpu:0\" is not available: no usable GPU: no CUDA device present"));
    // Twice the same GPU, bad slots, unknown keys.
    CHECK(contains(error_for(json::parse(R"(["gpu:0", {"device": "gpu:0"}])"), two), "listed twice"));
    CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0", "slots": 0}])"), two), kAt + "/0/slots"));
    CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0", "slots": 9}])"), two), kAt + "/0/slots"));
    CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0", "slot": 1}])"), two), kAt + "/0/slot: unknown key"));
    CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0", "max_batch_bytes": 0}])"), two),
                   kAt + "/0/max_batch_bytes"));
    CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0", "max_batch_bytes": 2147483648}])"), two),
                   kAt + "/0/max_batch_bytes"));
    CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0", "resident_terms": 1}])"), two),
                   kAt + "/0/resident_terms: expected true or false"));
}

TEST_CASE("gpu parsers: naming a GPU in a build without CUDA says so, naming the key") {
    GpuParseBackend without_cuda = host_reference_gpu_parse_backend(0);
    without_cuda.inventory = [] {
        GpuInventory inventory;
        inventory.note = "invidx was built without CUDA";
        return inventory;
    };
    const std::string message = error_for(json::parse(R"([{"device": "gpu:0"}])"), without_cuda);
    CHECK(contains(message, kAt + "/0/device"));
    CHECK(contains(message, "\"gpu:0\" is not available: no usable GPU: invidx was built without CUDA"));
    CHECK(choose_gpu_parsers("auto", kAt, without_cuda).gpus.empty());
    if (!list_gpus().built_with_cuda) {
        CHECK(contains(error_for(json::parse(R"([{"device": "gpu:0"}])"), cuda_gpu_parse_backend()),
                       "no usable GPU: invidx was built without CUDA"));
    }
}

TEST_CASE("gpu parsers: the plan holds the ordinals a parse node parses on, and those that keep terms on the device") {
    const ScopedGpuParseBackend pretend(host_reference_gpu_parse_backend(2));
    NodeSpec spec;
    spec.kind = "parse";
    spec.pointer = "/nodes/3";
    const auto resolved = [&](const char* options) {
        spec.options = json::parse(options);
        NodeOptions node_options(spec);
        BuildPlan plan;
        plan.machine.cores = 16;
        resolve_parse_node(node_options, PipelineConfig{}, plan);
        return *plan.parsing;
    };
    const ParsePlan two = resolved(R"({"kind": "parse", "gpus": [{"device": "gpu:1"}, {"device": "gpu:0", "resident_terms": false}]})");
    CHECK(two.gpu_ordinals() == std::vector<int>{1, 0});
    // The sampler weighs only GPU indexers that GPU parsers feed on their device.
    CHECK(two.gpu_ordinals(true) == std::vector<int>{1});
    CHECK(two.gpus_only());
    CHECK(two.cpu_parsers == 0);
    const ParsePlan none = resolved(R"({"kind": "parse", "gpus": "none", "count": "auto"})");
    CHECK(none.gpu_ordinals().empty());
    CHECK(none.cpu_parsers == 12);  // 3 for every 4 of the 16 cores
    CHECK_FALSE(none.gpus_only());
    // A GPU that is not present is the parse node's ConfigError, raised once, in the plan.
    CHECK_THROWS_AS(resolved(R"({"kind": "parse", "gpus": [{"device": "gpu:7"}]})"), ConfigError);
}
