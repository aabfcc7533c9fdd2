#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "analysis/term_hash.hpp"

TEST_CASE("same_bytes agrees with memcmp for every length and every differing byte") {
    for (size_t n = 0; n <= 40; ++n) {
        std::string a(n, 'x');
        for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
        std::string b = a;
        CHECK(invidx::same_bytes(a.data(), b.data(), n));
        for (size_t i = 0; i < n; ++i) {
            b = a;
            b[i] = static_cast<char>(b[i] ^ 0x01);
            CHECK(invidx::same_bytes(a.data(), b.data(), n) == (std::memcmp(a.data(), b.data(), n) == 0));
            CHECK_FALSE(invidx::same_bytes(a.data(), b.data(), n));
        }
    }
}
