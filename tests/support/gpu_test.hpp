// Test cases that need a CUDA device are written GPU_TEST_CASE("...") and
// assume one: the macro puts them in the doctest suite "gpu". Where
// list_gpus() finds no device, tests/main.cpp filters that suite out, so
// doctest counts them as skipped, and prints kGpuSkipLine, which ctest's
// SKIP_REGULAR_EXPRESSION on the label gpu turns into "Skipped"
// (cmake/doctest_gpu_tests.cmake). On the GPU machine `ctest -L gpu` or
// `invidx_tests -ts=gpu` runs them all; INVIDX_REQUIRE_GPU=1 runs them even
// where no device is found, so that a lost device fails instead of skipping.
// A test case that checks something either way (a device or a clear error)
// stays a TEST_CASE: it runs everywhere.
// The reverse, NO_GPU_TEST_CASE("..."), is for what a user sees where no
// device is usable (no GPU, no driver, a build without CUDA): the suite
// "no-gpu", filtered out and reported as skipped (kNoGpuSkipLine) where
// list_gpus() finds a device or INVIDX_REQUIRE_GPU=1 says there is one.
#pragma once

#include <doctest/doctest.h>

namespace invidx::testing {

inline constexpr const char* kGpuSuite = "gpu";
// Printed before the run; cmake/doctest_gpu_tests.cmake matches this text.
inline constexpr const char* kGpuSkipLine = "GPU test cases skipped";
inline constexpr const char* kNoGpuSuite = "no-gpu";
// Also matched by cmake/doctest_gpu_tests.cmake; unlike kGpuSkipLine's text.
inline constexpr const char* kNoGpuSkipLine = "Test cases for machines without a usable GPU skipped";

}  // namespace invidx::testing

#define GPU_TEST_CASE(name) TEST_CASE(name * doctest::test_suite(::invidx::testing::kGpuSuite))
#define NO_GPU_TEST_CASE(name) TEST_CASE(name * doctest::test_suite(::invidx::testing::kNoGpuSuite))
