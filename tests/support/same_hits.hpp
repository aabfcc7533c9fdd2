// Two devices' (or two paths') answers compared exactly: the same documents
// in the same order with the same scores, bit for bit (the GPU's query path
// against the CPU's: tests/query/gpu_search_test.cpp,
// tests/query/gpu_boolean_search_test.cpp).
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "query/topk.hpp"

namespace invidx::testing {

inline void require_same(const std::vector<ScoredDocument>& got, const std::vector<ScoredDocument>& expected) {
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        REQUIRE(got[i].docid == expected[i].docid);
        REQUIRE(got[i].score == expected[i].score);  // bit for bit
    }
}

}  // namespace invidx::testing
