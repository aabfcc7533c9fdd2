#include "store/checksum_spans.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <string>

#include "invidx/error.hpp"
#include "store/crc32.hpp"
#include "store/index_layout.hpp"

namespace invidx {

std::vector<ChecksumSpan> checksum_spans(uint64_t offset, std::string_view bytes) {
    std::vector<ChecksumSpan> spans;
    uint64_t at = 0;
    while (at < bytes.size()) {
        const uint64_t position = offset + at;
        const uint64_t to_boundary = layout::kChecksumBlockBytes - position % layout::kChecksumBlockBytes;
        const uint64_t length = std::min<uint64_t>(to_boundary, bytes.size() - at);
        spans.push_back({position, length, 0});
        at += length;
    }
    // The spans' CRC-32s on every core: a cluster rank's share of a joined
    // file is tens of MB.
    oneapi::tbb::parallel_for(size_t{0}, spans.size(), [&](size_t i) {
        spans[i].crc = crc32(bytes.substr(spans[i].offset - offset, spans[i].length));
    });
    return spans;
}

FileChecksums assemble_checksums(std::vector<ChecksumSpan> spans, uint64_t size_bytes) {
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    FileChecksums sums;
    uint64_t covered = 0;
    uint32_t block_crc = 0;  // crc32 of nothing
    uint64_t block_length = 0;
    for (const auto& span : spans) {
        if (span.length == 0) continue;
        ensure(span.offset == covered, "the written spans of a file leave a gap or overlap at byte " +
                                           std::to_string(std::min(span.offset, covered)));
        ensure(span.offset / layout::kChecksumBlockBytes == (span.offset + span.length - 1) / layout::kChecksumBlockBytes,
               "a written span crosses a checksum block boundary at byte " + std::to_string(span.offset));
        if (block_length > 0 && span.offset % layout::kChecksumBlockBytes == 0) {
            sums.block_crcs.push_back(block_crc);
            block_crc = 0, block_length = 0;
        }
        block_crc = crc32_concat(block_crc, span.crc, span.length);
        block_length += span.length;
        sums.crc32 = crc32_concat(sums.crc32, span.crc, span.length);
        covered += span.length;
    }
    ensure(covered == size_bytes, "the written spans cover " + std::to_string(covered) + " of the file's " +
                                      std::to_string(size_bytes) + " bytes");
    if (block_length > 0) sums.block_crcs.push_back(block_crc);
    return sums;
}

void add_checksum_spans(std::vector<ChecksumSpan>& spans, uint64_t offset, std::string_view bytes) {
    for (const auto& span : checksum_spans(offset, bytes)) {
        if (!spans.empty()) {
            ChecksumSpan& last = spans.back();
            const bool continues = last.offset + last.length == span.offset &&
                                   span.offset % layout::kChecksumBlockBytes != 0;
            if (continues) {
                last.crc = crc32_concat(last.crc, span.crc, span.length);
                last.length += span.length;
                continue;
            }
        }
        spans.push_back(span);
    }
}

}  // namespace invidx
