// Built as C++23 where the compiler has it (CMakeLists.txt): the only
// standard way to grow a string without zero-filling is C++23's
// resize_and_overwrite; elsewhere a plain resize does the same job slower.
#include "graph/bytes_for_overwrite.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace invidx {
namespace {

// Makes the whole pages of [begin, end) present and writable with one call
// instead of a fault per page (Linux 5.14+). Best effort: where the kernel
// refuses, the writes fault the pages in as before.
void populate_for_writing(char* begin, char* end) {
#if defined(MADV_POPULATE_WRITE)
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
    const uintptr_t last = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#else
    (void)begin;
    (void)end;
#endif
}

// Pages below this are not worth a system call.
constexpr size_t kPopulateAtLeast = size_t{256} << 10;

// Reserves `size` bytes; new memory past the `kept` bytes copied over is
// made present at once.
template <class Bytes>
void reserve_present(Bytes& bytes, size_t size) {
    if (size <= bytes.capacity()) return;
    const size_t kept = bytes.size();
    bytes.reserve(size);
    if (size - kept >= kPopulateAtLeast) populate_for_writing(bytes.data() + kept, bytes.data() + size);
}

}  // namespace

void resize_for_overwrite(std::string& bytes, size_t size) {
    reserve_present(bytes, size);
#if defined(__cpp_lib_string_resize_and_overwrite)
    bytes.resize_and_overwrite(size, [](char*, size_t n) { return n; });
#else
    bytes.resize(size);
#endif
}

void resize_for_overwrite(std::vector<char>& bytes, size_t size) {
    reserve_present(bytes, size);
    bytes.resize(size);
}

}  // namespace invidx
