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

}  // namespace invidx
