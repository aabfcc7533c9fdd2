// "auto" counts follow the CPUs this process may use (its affinity mask, as
// taskset or a Slurm cpuset leave it), not every CPU of the machine.
#include "invidx/available_cores.hpp"

#include <doctest/doctest.h>
#include <sched.h>

#include <thread>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Pins the calling thread to its first allowed CPU until destroyed.
class PinnedToOneCpu {
public:
    PinnedToOneCpu() {
        CPU_ZERO(&saved_);
        REQUIRE(sched_getaffinity(0, sizeof saved_, &saved_) == 0);
        cpu_set_t one;
        CPU_ZERO(&one);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &saved_)) {
                CPU_SET(cpu, &one);
                break;
            }
        }
        REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    }
    ~PinnedToOneCpu() { sched_setaffinity(0, sizeof saved_, &saved_); }

private:
    cpu_set_t saved_;
};

}  // namespace

TEST_CASE("available_cores counts the affinity mask: a build pinned to one CPU sizes itself for one") {
    const unsigned all = available_cores();
    CHECK(all >= 1);
    CHECK(all <= std::max(1u, std::thread::hardware_concurrency()));
    TempDir dir;
    dir.write("in/a.warc", warc_response("a", "<p>one two three</p>") + warc_response("b", "four five"));
    {
        PinnedToOneCpu pinned;
        CHECK(available_cores() == 1);
        nlohmann::json pipeline = standard_pipeline({(dir / "in").string()}, dir / "pinned", 1, 1);
        const BuildReport report = build_index(pipeline);
        CHECK(report.json.at("hardware_threads") == 1);
        CHECK(report.json.at("memory_tokens") == 8);  // 3 per core, at least 8 on the CPU alone
    }
    CHECK(available_cores() == all);
}
