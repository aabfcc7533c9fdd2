// doctest's main, which skips the GPU test cases (support/gpu_test.hpp)
// where no CUDA device is usable, and the no-GPU ones where one is: filtered
// out, doctest counts them as skipped, and a line says so for ctest.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "support/gpu_test.hpp"

namespace {

// The number of test cases a --count run selects, as its query reports it.
unsigned counted_test_cases = 0;

struct CountListener : doctest::IReporter {
    explicit CountListener(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData& data) override {
        if (data.run_stats != nullptr) counted_test_cases = data.run_stats->numTestCasesPassingFilters;
    }
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("invidx_count", 1, CountListener);

// How many test cases the command line selects, with one more exclusion.
unsigned selected(int argc, const char* const* argv, const char* excluded_suite) {
    std::vector<const char*> arguments(argv, argv + argc);
    arguments.push_back("--count");  // a flag: setOption's "-count=true" is not one
    doctest::Context counting(static_cast<int>(arguments.size()), arguments.data());
    if (excluded_suite != nullptr) counting.addFilter("test-suite-exclude", excluded_suite);
    std::ostringstream discarded;
    counting.setCout(&discarded);
    counted_test_cases = 0;
    counting.run();
    return counted_test_cases;
}

bool gpu_required() {
    const char* value = std::getenv("INVIDX_REQUIRE_GPU");
    return value != nullptr && *value != '\0' && std::string(value) != "0";
}

}  // namespace

int main(int argc, char** argv) {
    doctest::Context context;
    context.applyCommandLine(argc, argv);
    // Queries (--list-test-cases: ctest's discovery) list every test case and
    // never touch CUDA; a run asks for a device only when it selects GPU cases.
    // The suite "no-gpu" is the reverse: skipped where a device is usable.
    if (!context.shouldExit()) {
        const unsigned all = selected(argc, argv, nullptr);
        const unsigned gpu_cases = gpu_required() ? 0 : all - selected(argc, argv, invidx::testing::kGpuSuite);
        const unsigned no_gpu_cases = all - selected(argc, argv, invidx::testing::kNoGpuSuite);
        if (gpu_cases > 0 || no_gpu_cases > 0) {
            const invidx::GpuInventory gpus = gpu_required() ? invidx::GpuInventory{} : invidx::list_gpus();
            const bool usable = gpu_required() || !gpus.devices.empty();
            if (!usable && gpu_cases > 0) {
                context.addFilter("test-suite-exclude", invidx::testing::kGpuSuite);
                std::cout << "[invidx] " << invidx::testing::kGpuSkipLine << ": " << gpu_cases << " of the doctest suite "
                          << invidx::testing::kGpuSuite << " (" << gpus.note << "); INVIDX_REQUIRE_GPU=1 runs them"
                          << std::endl;
            }
            if (usable && no_gpu_cases > 0) {
                context.addFilter("test-suite-exclude", invidx::testing::kNoGpuSuite);
                std::cout << "[invidx] " << invidx::testing::kNoGpuSkipLine << ": " << no_gpu_cases
                          << " of the doctest suite " << invidx::testing::kNoGpuSuite
                          << " (a GPU is usable here, or INVIDX_REQUIRE_GPU says there is one)"
                          << std::endl;
            }
        }
    }
    return context.run();
}
