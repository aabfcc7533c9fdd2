#include <doctest/doctest.h>

#include <random>
#include <string>

#include "store/crc32.hpp"

namespace {

// Bit-at-a-time CRC-32, the textbook definition, to check the sliced one.
uint32_t reference_crc32(const std::string& bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (const unsigned char byte : bytes) {
        crc ^= byte;
        for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}

}  // namespace

TEST_CASE("crc32 gives the standard check values") {
    CHECK(invidx::crc32("") == 0u);
    CHECK(invidx::crc32("123456789") == 0xCBF43926u);  // the CRC-32/IEEE check value
    CHECK(invidx::crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
}

TEST_CASE("crc32 agrees with the bitwise definition for any length and any split") {
    std::mt19937 random(7);
    for (size_t length : {1u, 7u, 8u, 9u, 63u, 64u, 1000u}) {
        std::string bytes(length, '\0');
        for (auto& byte : bytes) byte = static_cast<char>(random());
        CHECK(invidx::crc32(bytes) == reference_crc32(bytes));
        const size_t split = random() % length;
        invidx::Crc32 running;
        running.update(std::string_view(bytes).substr(0, split));
        running.update(std::string_view(bytes).substr(split));
        CHECK(running.value() == reference_crc32(bytes));
    }
}
