// GpuInflater against inflate_members_on_host, the same decoder on the host
// (host_inflate_test.cpp holds that one to zlib): byte-identical text and
// identical outcomes on good, damaged and many members. GPU test cases
// (support/gpu_test.hpp), but for the error where no GPU is usable.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "devices/gpu_inflate.hpp"
#include "invidx/error.hpp"
#include "support/gpu_test.hpp"
#include "support/inflate_batches.hpp"

namespace {

using namespace invidx;
using namespace invidx::testing;

// The batch through `inflater`: every outcome the host's, every ok member's
// text the host's byte for byte. Returns the device's outcomes.
std::vector<InflateOutcome> check_gpu_matches_host(GpuInflater& inflater, const InflateBatch& batch) {
    const HostInflated host = inflate_on_host(batch);
    std::memcpy(inflater.input(), batch.input.data(), batch.input.size());
    const std::vector<InflateOutcome> device = inflater.inflate(batch.input.size(), batch.members);
    REQUIRE(device.size() == batch.members.size());
    size_t differences = 0;
    for (size_t i = 0; i < batch.members.size(); ++i) {
        const bool same_outcome = device[i].status == host.outcomes[i].status && device[i].offset == host.outcomes[i].offset;
        const bool same_text = host.outcomes[i].status != InflateStatus::ok ||
                               text_of(batch, inflater.output(), i) == text_of(batch, host.output.data(), i);
        if ((!same_outcome || !same_text) && ++differences <= 10) {
            FAIL_CHECK("member " << i << ": host " << inflate_status_name(host.outcomes[i].status) << " at "
                                 << host.outcomes[i].offset << ", device " << inflate_status_name(device[i].status) << " at "
                                 << device[i].offset << (same_text ? "" : ", different text"));
        }
    }
    CHECK(differences == 0);
    return device;
}

GpuInflater inflater_for(const InflateBatch& batch) {
    return GpuInflater(0, batch.input.size(), batch.output_bytes, batch.members.size());
}

}  // namespace

NO_GPU_TEST_CASE("GpuInflater: without a usable GPU the constructor throws, never a silent CPU result") {
    CHECK_THROWS_AS(GpuInflater(0, 1 << 20, 1 << 20, 16), Error);
}

GPU_TEST_CASE("gpu inflate: zlib levels, strategies, header fields, empty and 1-byte texts as the host decodes them") {
    const InflateBatch batch = mixed_good_batch(7);
    GpuInflater inflater = inflater_for(batch);
    for (const InflateOutcome& outcome : check_gpu_matches_host(inflater, batch)) CHECK(outcome.status == InflateStatus::ok);
    const GpuInflater::Timings timings = inflater.last_timings();
    CHECK(timings.kernel > 0);
    CHECK(inflater.time_resident_kernel() > 0);
}

GPU_TEST_CASE("gpu inflate: its page-locked buffers are registered, not cudaMallocHost's, and carry the batch both ways") {
    // A build's inflater: 16 MiB in, 128 MiB of text out. Registering memory
    // this thread faulted in first does not hold up the threads beside it
    // (devices/cuda/common/page_locked_memory.hpp); copies and the mapped
    // device pointers work from it as from cudaMallocHost's.
    const PageLockedTotals before = page_locked_totals();
    const InflateBatch batch = mixed_good_batch(3);
    GpuInflater inflater(0, size_t{16} << 20, size_t{128} << 20, 4096);
    const PageLockedTotals after = page_locked_totals();
    CHECK(after.allocations - before.allocations >= 5);
    CHECK(after.registered - before.registered == after.allocations - before.allocations);
    CHECK(after.bytes - before.bytes >= (size_t{144} << 20));
    CHECK(after.seconds > before.seconds);
    for (const InflateOutcome& outcome : check_gpu_matches_host(inflater, batch)) CHECK(outcome.status == InflateStatus::ok);

    // A child made by fork() does not get these pages (unlike
    // cudaMallocHost's): reading one ends it with SIGSEGV.
    const volatile char* const page = inflater.input();
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        const rlimit no_core{0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(SIGSEGV, SIG_DFL);  // die quietly: doctest's handler would print a crash report from the child
        const char byte = page[0];
        _exit(byte == 0x7f ? 3 : 0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGSEGV);
}

GPU_TEST_CASE("gpu inflate: 5000 members in one batch, then 200 larger ones through the same inflater") {
    const InflateBatch many = random_batch(5, 5000, 3000);
    const InflateBatch larger = random_batch(11, 200, 70000);
    GpuInflater inflater(0, std::max(many.input.size(), larger.input.size()),
                         std::max(many.output_bytes, larger.output_bytes), many.members.size());
    for (const InflateOutcome& outcome : check_gpu_matches_host(inflater, many)) CHECK(outcome.status == InflateStatus::ok);
    for (const InflateOutcome& outcome : check_gpu_matches_host(inflater, larger)) CHECK(outcome.status == InflateStatus::ok);
}

GPU_TEST_CASE("gpu inflate: damaged members among good ones get the host's statuses") {
    const DamagedBatch damaged = damaged_batch(3);
    GpuInflater inflater = inflater_for(damaged.batch);
    const std::vector<InflateOutcome> device = check_gpu_matches_host(inflater, damaged.batch);
    for (size_t i = 0; i < device.size(); ++i) {
        INFO("member " << i);
        CHECK(inflate_status_name(device[i].status) == std::string(inflate_status_name(damaged.expected[i])));
    }
}

GPU_TEST_CASE("gpu inflate: hand-made blocks: overlapping matches of every period, stored blocks of 0 to 65535 bytes") {
    const InflateBatch batch = handmade_batch(23, 60);
    GpuInflater inflater = inflater_for(batch);
    for (const InflateOutcome& outcome : check_gpu_matches_host(inflater, batch)) CHECK(outcome.status == InflateStatus::ok);
}

GPU_TEST_CASE("gpu inflate: the thread-per-member kernel and the warp-per-member kernel give the host's results") {
    const InflateBatch good = mixed_good_batch(9);
    const InflateBatch handmade = handmade_batch(31, 40);
    const DamagedBatch damaged = damaged_batch(5);
    GpuInflater inflater(0, std::max({good.input.size(), handmade.input.size(), damaged.batch.input.size()}),
                         std::max({good.output_bytes, handmade.output_bytes, damaged.batch.output_bytes}),
                         std::max({good.members.size(), handmade.members.size(), damaged.batch.members.size()}));
    for (GpuInflater::Kernel kernel : {GpuInflater::Kernel::thread_per_member, GpuInflater::Kernel::warp_per_member}) {
        INFO((kernel == GpuInflater::Kernel::warp_per_member ? "warp" : "thread") << " per member");
        inflater.use_kernel(kernel);
        check_gpu_matches_host(inflater, good);
        check_gpu_matches_host(inflater, handmade);
        check_gpu_matches_host(inflater, damaged.batch);
        CHECK(inflater.time_resident_kernel() > 0);
    }
}

GPU_TEST_CASE("gpu inflate: a batch past the inflater's buffers is an error, an empty batch is none") {
    const InflateBatch batch = random_batch(2, 20, 2000);
    GpuInflater inflater = inflater_for(batch);
    CHECK(inflater.device_ordinal() == 0);
    CHECK(inflater.inflate(0, {}).empty());
    CHECK_THROWS_AS(inflater.inflate(batch.input.size() + 1, batch.members), Error);
    std::vector<InflateMember> past_input = batch.members;
    past_input.back().in_size += 1;
    CHECK_THROWS_AS(inflater.inflate(batch.input.size(), past_input), Error);
    std::vector<InflateMember> past_output = batch.members;
    past_output.back().out_offset = batch.output_bytes;
    past_output.back().out_size = 1;
    CHECK_THROWS_AS(inflater.inflate(batch.input.size(), past_output), Error);
    std::vector<InflateMember> too_many = batch.members;
    too_many.push_back(batch.members.front());
    CHECK_THROWS_AS(inflater.inflate(batch.input.size(), too_many), Error);
    check_gpu_matches_host(inflater, batch);  // still usable after refusing those
}
