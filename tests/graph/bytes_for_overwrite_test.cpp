#include "graph/bytes_for_overwrite.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using invidx::resize_for_overwrite;

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

// Pages of [data, data + size) that are present, by mincore(2).
size_t present_pages(const char* data, size_t size) {
    const uintptr_t first = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const uintptr_t last = (reinterpret_cast<uintptr_t>(data) + size) & ~(kPage - 1);
    if (last <= first) return 0;
    std::vector<unsigned char> present((last - first) / kPage);
    REQUIRE(mincore(reinterpret_cast<void*>(first), last - first, present.data()) == 0);
    size_t count = 0;
    for (unsigned char p : present) count += p & 1;
    return count;
}

// Whether this kernel makes pages present on request (Linux 5.14+).
bool kernel_populates() {
#if defined(MADV_POPULATE_WRITE)
    void* probe = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(probe != MAP_FAILED);
    const bool works = madvise(probe, kPage, MADV_POPULATE_WRITE) == 0;
    munmap(probe, kPage);
    return works;
#else
    return false;
#endif
}

}  // namespace

TEST_CASE("resize_for_overwrite: a string keeps its bytes through growth, reallocation and shrinking") {
    std::string bytes = "decoded text";
    resize_for_overwrite(bytes, size_t{8} << 20);  // reallocates
    REQUIRE(bytes.size() == size_t{8} << 20);
    CHECK(bytes.compare(0, 12, "decoded text") == 0);
    bytes[bytes.size() - 1] = 'z';  // every added byte is writable
    resize_for_overwrite(bytes, 5);
    CHECK(bytes == "decod");
    const char* const data = bytes.data();
    resize_for_overwrite(bytes, size_t{4} << 20);  // within its capacity: the same buffer
    CHECK(bytes.data() == data);
    CHECK(bytes.size() == size_t{4} << 20);
    CHECK(bytes.compare(0, 5, "decod") == 0);
    CHECK(bytes.c_str()[bytes.size()] == '\0');
}

TEST_CASE("resize_for_overwrite: a vector keeps its bytes and zero-fills the rest") {
    std::vector<char> bytes{'a', 'b', 'c'};
    resize_for_overwrite(bytes, size_t{1} << 20);
    REQUIRE(bytes.size() == size_t{1} << 20);
    CHECK(bytes[0] == 'a');
    CHECK(bytes[2] == 'c');
    CHECK(bytes[3] == 0);
    CHECK(bytes.back() == 0);
    resize_for_overwrite(bytes, 2);
    CHECK(bytes == std::vector<char>{'a', 'b'});
}

TEST_CASE("resize_for_overwrite: new memory of a large buffer is present before anything writes it") {
    if (!kernel_populates()) {
        MESSAGE("this kernel does not make pages present on request (MADV_POPULATE_WRITE): not checked");
        return;
    }
    const size_t size = size_t{16} << 20;  // large enough that the allocator maps new pages
    std::string text;
    resize_for_overwrite(text, size);
    // Nothing has written it (the string's added bytes are not zero-filled
    // where the compiler has C++23), yet its pages are there.
    CHECK(present_pages(text.data(), size) >= size / kPage - 2);
}
