// The cut of the sorted file list into one contiguous range per rank.
#include <doctest/doctest.h>

#include <algorithm>

#include "invidx/error.hpp"

#include "pipelines/cluster/file_ranges.hpp"

using namespace invidx;

namespace {

std::vector<InputFile> files_of_sizes(const std::vector<uint64_t>& sizes) {
    std::vector<InputFile> files;
    for (size_t i = 0; i < sizes.size(); ++i)
        files.push_back(InputFile{.ordinal = static_cast<uint32_t>(i), .path = "f" + std::to_string(i), .name = "f" + std::to_string(i),
                                  .format = "text", .size_bytes = sizes[i]});
    return files;
}

// Every file once, in order, ranges back to back.
void check_contiguous(const std::vector<FileRange>& ranges, size_t files, size_t ranks) {
    REQUIRE(ranges.size() == ranks);
    uint32_t next = 0;
    for (const auto& range : ranges) {
        CHECK(range.begin == next);
        CHECK(range.begin <= range.end);
        next = range.end;
    }
    CHECK(next == files);
}

}  // namespace

TEST_CASE("file ranges cover the sorted list once, in rank order, balanced by size") {
    const std::vector<uint64_t> sizes = {100, 100, 100, 100, 100, 100, 100, 100};
    for (uint32_t ranks = 1; ranks <= 10; ++ranks) {
        CAPTURE(ranks);
        const auto ranges = assign_file_ranges(assignment_weights(files_of_sizes(sizes), FileAssignment::by_size, 1.0), ranks);
        check_contiguous(ranges, sizes.size(), ranks);
        // Equal files: every rank holds floor or ceil of files / ranks.
        for (const auto& range : ranges) {
            CHECK(range.end - range.begin >= sizes.size() / ranks);
            CHECK(range.end - range.begin <= (sizes.size() + ranks - 1) / ranks);
        }
    }
    // One big file outweighs the rest: it gets a rank alone.
    const auto skewed = assign_file_ranges(assignment_weights(files_of_sizes({1000, 10, 10, 10, 10, 10}), FileAssignment::by_size, 1.0), 2);
    check_contiguous(skewed, 6, 2);
    CHECK(skewed[0].end == 1);
    // By count the same list is cut in halves.
    const auto by_count = assign_file_ranges(assignment_weights(files_of_sizes({1000, 10, 10, 10, 10, 10}), FileAssignment::by_count, 1.0), 2);
    CHECK(by_count[0].end == 3);
    // More ranks than files: the extra ranks get none.
    const auto sparse = assign_file_ranges(assignment_weights(files_of_sizes({5, 5}), FileAssignment::by_size, 1.0), 4);
    check_contiguous(sparse, 2, 4);
    CHECK(std::count_if(sparse.begin(), sparse.end(), [](const FileRange& r) { return r.begin == r.end; }) == 2);
    CHECK_THROWS_AS(assign_file_ranges(assignment_weights(files_of_sizes({5}), FileAssignment::by_size, 1.0), 0), Error);
}

TEST_CASE("a rank's share keeps the whole list's names and numbers its ordinals from 0") {
    const auto files = files_of_sizes({1, 2, 3, 4});
    const auto share = files_of_range(files, FileRange{2, 4});
    REQUIRE(share.size() == 2);
    CHECK(share[0].ordinal == 0);
    CHECK(share[0].name == "f2");
    CHECK(share[1].ordinal == 1);
    CHECK(share[1].size_bytes == 4);
}

TEST_CASE("files a hair over equal size still split evenly over the ranks") {
    // The fifth file starts 2 bytes before the half: its middle lies in rank 1's share.
    const auto ranges = assign_file_ranges(assignment_weights(files_of_sizes({1000, 1000, 1000, 1000, 1001, 1001, 1001, 1001}), FileAssignment::by_size, 1.0), 2);
    check_contiguous(ranges, 8, 2);
    CHECK(ranges[0].end == 4);
}
