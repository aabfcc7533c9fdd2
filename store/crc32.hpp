// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum that
// ends every binary index file and that manifest.json records per file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace invidx {

class Crc32 {
public:
    void update(const void* data, size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    uint32_t value() const { return ~state_; }

private:
    uint32_t state_ = 0xFFFFFFFFu;
};

uint32_t crc32(std::string_view bytes);

// The CRC-32 of A followed by B from crc32(A), crc32(B) and B's length, in
// O(log length) without reading A or B: the writer checksums each 64 KiB
// block once and gets the whole file's CRC-32 from the blocks' for free.
uint32_t crc32_concat(uint32_t crc_a, uint32_t crc_b, uint64_t length_b);

}  // namespace invidx
