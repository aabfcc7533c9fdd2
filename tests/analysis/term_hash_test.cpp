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

TEST_CASE("short term words: the padded gather equals the exact one, whatever follows the term") {
    std::string bytes(48, '\0');
    uint32_t seed = 12345;
    const auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
    for (int round = 0; round < 2000; ++round) {
        for (char& c : bytes) c = static_cast<char>(next() >> 24);
        for (size_t n = 0; n <= invidx::kShortTermBytes; ++n) {
            const std::string term = bytes.substr(0, n);  // exact: nothing readable past its end
            const invidx::ShortTermWords exact = invidx::short_term_words(term.data(), n);
            CHECK(exact == invidx::padded_short_term_words(bytes.data(), n));
            CHECK(invidx::hash_term(term) == invidx::hash_padded_term(bytes.data(), n));
        }
        for (size_t n = invidx::kShortTermBytes + 1; n <= 40; ++n) {
            CHECK(invidx::hash_term(std::string_view(bytes.data(), n)) == invidx::hash_padded_term(bytes.data(), n));
        }
    }
}

TEST_CASE("hash_term: every byte and the length count, at every length up to 40") {
    for (size_t n = 0; n <= 40; ++n) {
        std::string a(n, 'q');
        for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + (i * 7) % 26);
        const uint64_t h = invidx::hash_term(a);
        CHECK(h != invidx::hash_term(a + '\0'));  // a zero byte more: another length
        for (size_t i = 0; i < n; ++i) {
            std::string b = a;
            b[i] = static_cast<char>(b[i] ^ 0x40);
            CHECK(invidx::hash_term(b) != h);
        }
    }
}
