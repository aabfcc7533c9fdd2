#include "store/crc32.hpp"

#include <array>

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

namespace invidx {
namespace {

// Slicing-by-8 (where the build has no libdeflate): eight tables let the
// loop consume 8 bytes per step.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables tables{};
    for (uint32_t byte = 0; byte < 256; ++byte) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? 0xEDB88320u : 0u);
        tables[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; ++byte) {
        for (size_t slice = 1; slice < 8; ++slice) {
            const uint32_t previous = tables[slice - 1][byte];
            tables[slice][byte] = (previous >> 8) ^ tables[0][previous & 0xFFu];
        }
    }
    return tables;
}

constexpr Tables kTables = make_tables();

}  // namespace

void Crc32::update(const void* data, size_t size) {
#if defined(INVIDX_HAVE_LIBDEFLATE)
    // libdeflate's carry-less-multiply CRC-32: several times the tables' speed
    // (every byte the index writes, and the document store's text, pass here).
    state_ = ~libdeflate_crc32(~state_, data, size);
#else
    auto bytes = static_cast<const unsigned char*>(data);
    uint32_t crc = state_;
    while (size >= 8) {
        const uint32_t low = crc ^ (uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 |
                                    uint32_t{bytes[2]} << 16 | uint32_t{bytes[3]} << 24);
        crc = kTables[7][low & 0xFFu] ^ kTables[6][(low >> 8) & 0xFFu] ^
              kTables[5][(low >> 16) & 0xFFu] ^ kTables[4][low >> 24] ^
              kTables[3][bytes[4]] ^ kTables[2][bytes[5]] ^ kTables[1][bytes[6]] ^
              kTables[0][bytes[7]];
        bytes += 8;
        size -= 8;
    }
    while (size-- > 0) crc = (crc >> 8) ^ kTables[0][(crc ^ *bytes++) & 0xFFu];
    state_ = crc;
#endif
}

uint32_t crc32_concat(uint32_t crc_a, uint32_t crc_b, uint64_t length_b) {
    return static_cast<uint32_t>(::crc32_combine64(crc_a, crc_b, static_cast<z_off64_t>(length_b)));
}

uint32_t crc32(std::string_view bytes) {
    Crc32 crc;
    crc.update(bytes);
    return crc.value();
}

}  // namespace invidx
