// A GPU asked for that cannot be used (devices/gpu_unusable.hpp): one
// wording in every tool, naming the device asked for and why, exit 2 (a
// usage or configuration error), never CUDA's bare "driver version is
// insufficient" and never a silent CPU run.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <sys/wait.h>

#include "devices/gpu_devices.hpp"
#include "devices/gpu_unusable.hpp"
#include "query/query_error.hpp"
#include "query/searcher.hpp"
#include "support/collections.hpp"
#include "support/gpu_test.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// `invidx-run ARGUMENTS`, run from the source tree (configs/ are relative).
ToolResult run_invidx_run(const TempDir& dir, const std::string& arguments) {
    const auto out = dir / "run.out";
    const auto err = dir / "run.err";
    const std::string command = std::string("cd '") + INVIDX_SOURCE_DIR + "' && '" + INVIDX_TOOLS_DIR + "/invidx-run' " +
                                arguments + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    return {WEXITSTATUS(status), read_file(out), read_file(err)};
}

GpuInventory inventory_of(std::initializer_list<int> ordinals, std::string note) {
    GpuInventory inventory;
    inventory.built_with_cuda = true;
    for (const int ordinal : ordinals) inventory.devices.push_back(GpuDevice{.ordinal = ordinal});
    inventory.note = std::move(note);
    return inventory;
}

}  // namespace

TEST_CASE("gpu unusable: no reason for a GPU present, else no usable GPU with CUDA's words, or the GPUs there are") {
    CHECK_FALSE(gpu_unusable_reason(1, inventory_of({0, 1}, "")).has_value());
    CHECK(gpu_unusable_reason(2, inventory_of({0, 1}, "")) == "no such GPU: this machine has gpu:0, gpu:1");
    const std::string no_driver = cuda_failure_note("CUDA driver version is insufficient for CUDA runtime version");
    CHECK(no_driver == "CUDA cannot use any device on this machine (CUDA says: CUDA driver version is insufficient for "
                       "CUDA runtime version)");
    CHECK(gpu_unusable_reason(0, inventory_of({}, no_driver)) == "no usable GPU: " + no_driver);
    CHECK(gpu_unusable_reason(0, inventory_of({}, kNoCudaDeviceNote)) == "no usable GPU: CUDA finds no device on this machine");
    GpuInventory without_cuda;
    without_cuda.note = "invidx was built without CUDA";
    CHECK(gpu_unusable_reason(0, without_cuda) == "no usable GPU: invidx was built without CUDA");
    // The ordinals as the plan holds them (MachineResources).
    CHECK(gpu_unusable_reason(3, {}, "") == "no usable GPU");
    CHECK(gpu_unusable_reason(3, {0}, "ignored") == "no such GPU: this machine has gpu:0");
}

NO_GPU_TEST_CASE("no usable GPU: every --device gpu and GPU node says so, naming the device, with exit 2") {
    const GpuInventory here = list_gpus();
    REQUIRE(here.devices.empty());
    const std::string reason = "no usable GPU: " + here.note;
    INFO("list_gpus: " << here.note);
    // The note is invidx's sentence, CUDA's own words only quoted in it.
    if (here.built_with_cuda) {
        CHECK((here.note.rfind("CUDA cannot use any device on this machine (CUDA says: ", 0) == 0 ||
               here.note == kNoCudaDeviceNote));
    } else {
        CHECK(here.note.find("built without CUDA") != std::string::npos);
    }

    TempDir dir;
    const auto input = dir.write("in/docs.jsonl", "{\"id\": \"a\", \"contents\": \"apples pears\"}\n"
                                                  "{\"id\": \"b\", \"contents\": \"zebras apples\"}\n");
    const auto idx = dir / "idx";
    build_index(standard_pipeline({input.string()}, idx, 1, 1));

    for (const std::string device : {"gpu", "gpu:0", "gpu:1"}) {
        CAPTURE(device);
        const std::string named = device == "gpu" ? "gpu:0" : device;
        const ToolResult search = run_invidx(dir, "search " + quoted(idx) + " apples --device " + device);
        CHECK(search.exit_code == 2);
        CHECK(search.out.empty());
        CHECK(search.err.find("invidx: --device " + named + ": " + reason + "\n") == 0);
    }

    REQUIRE(run_invidx(dir, "merge " + quoted(idx) + " --layout query").exit_code == 0);
    const ToolResult weight = run_invidx(dir, "weight " + quoted(idx) + " --device gpu");
    CHECK(weight.exit_code == 2);
    CHECK(weight.err.find("invidx: --device gpu:0: " + reason + "\n") == 0);

    // invidx-run: a GPU parser and a GPU indexer, each at its key.
    const std::string common = "configs/default.json --input " + quoted(input) + " --progress off --output ";
    const ToolResult parser =
        run_invidx_run(dir, common + quoted(dir / "a") + " --set 'parse.gpus=[{\"device\": \"gpu:0\"}]'");
    CHECK(parser.exit_code == 2);
    CHECK(parser.err.find("/nodes/3/gpus/0/device: \"gpu:0\" is not available: " + reason + "; ") != std::string::npos);
    const ToolResult indexer =
        run_invidx_run(dir, "configs/6-2-2.json --input " + quoted(input) + " --progress off --output " + quoted(dir / "b"));
    CHECK(indexer.exit_code == 2);
    CHECK(indexer.err.find("/nodes/5/indexers/1/device: \"gpu:0\" is not available: " + reason + "; ") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "a"));
    CHECK_FALSE(std::filesystem::exists(dir / "b"));

#ifdef INVIDX_HAVE_CUDA
    // The library's own GPU query path, under the CLI's check: the same words.
    const IndexReader index(idx);
    const Searcher searcher(index, {}, GpuOptions{});
    SearchOptions on_gpu;
    on_gpu.device = QueryDevice::kGpu;
    const std::string expected = "gpu:0: " + reason;
    CHECK_THROWS_WITH_AS(searcher.search("apples", on_gpu), doctest::Contains(expected.c_str()), QueryError);
#endif
}
