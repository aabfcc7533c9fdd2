// Which evaluators a Searcher holds: the CPU's always; the GPU's only when
// it is made with GpuOptions, on the GPU they name. A CPU-only Searcher
// holds no GPU state and refuses GPU queries; a GPU Searcher makes its
// device state on the first GPU query that reads a list, so a query that
// matches nothing still answers where the GPU cannot be used.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "query/query_error.hpp"
#include "query/searcher.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("searcher devices: a CPU-only Searcher makes no GPU evaluator") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"zebra plum", "zebra pear", "plum fig"}));
    const Searcher searcher(index);
    CHECK(!searcher.has_gpu());
    CHECK(searcher.gpu_stats().device.empty());
    SearchOptions on_gpu;
    on_gpu.device = QueryDevice::kGpu;
    CHECK_THROWS_WITH_AS(searcher.search("zebra", on_gpu), doctest::Contains("without a GPU"), QueryError);
    CHECK_THROWS_AS(searcher.evaluator(QueryDevice::kGpu), QueryError);
    const std::vector<std::string> texts = {"zebra"};
    CHECK_THROWS_AS(searcher.search_gpu_batch(texts, on_gpu), QueryError);
    CHECK(searcher.search("zebra", {}).hits.size() == 2);
}

TEST_CASE("searcher devices: a GPU Searcher uses the ordinal it was given, from its first GPU query on") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"zebra plum", "zebra pear", "plum fig"}));
    constexpr int kOrdinal = 3;
    const Searcher searcher(index, {}, GpuOptions{.ordinal = kOrdinal, .cache_bytes = 4096});
    CHECK(searcher.has_gpu());
    CHECK(searcher.gpu_stats().device.empty());  // nothing made yet
    SearchOptions on_gpu;
    on_gpu.device = QueryDevice::kGpu;
    // Stop words only: no list to read, no device needed.
    CHECK(searcher.search("the", on_gpu).hits.empty());
    CHECK(searcher.gpu_stats().device.empty());
    if (list_gpus().devices.size() > static_cast<size_t>(kOrdinal)) {
        CHECK(searcher.search("zebra", on_gpu).hits == searcher.search("zebra", {}).hits);
        CHECK(searcher.gpu_stats().device.rfind("gpu:3", 0) == 0);
    } else {
        // No GPU 3 here (or no CUDA): the GPU named, never GPU 0 instead, never the CPU.
        CHECK_THROWS_WITH_AS(searcher.search("zebra", on_gpu), doctest::Contains("GPU query processing failed"), QueryError);
    }
    CHECK(searcher.search("zebra", {}).hits.size() == 2);  // the CPU's evaluator is there too
}
