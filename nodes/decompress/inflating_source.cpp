#include "nodes/decompress/inflating_source.hpp"

#include <algorithm>
#include <utility>

namespace invidx {
namespace {

// The text handed to libarchive at a time: small enough that it is still in
// the core's cache when libarchive's reader copies it out.
constexpr size_t kTextBlockBytes = size_t{256} << 10;

// Compressed bytes inflated at a time. A read block inflates to several
// times its size (more than a thousand times for runs of zeros): fed in
// slices, no more than one slice's text waits here at once.
constexpr size_t kSliceBytes = size_t{64} << 10;

// Pooled text blocks: those waiting plus the one handed out.
constexpr size_t kPooledBlocks = 8;

}  // namespace

InflatingSource::InflatingSource(ByteSource& compressed, const InputFile& file, GzipDecoders decoders)
    : compressed_(compressed),
      buffers_(std::make_shared<BufferPool<std::string>>(kPooledBlocks)),
      stream_(file, kTextBlockBytes, buffers_, decoders) {}

std::string_view InflatingSource::next() {
    buffers_->give_back(std::move(handed_));
    handed_ = std::string();
    const auto keep = [this](TextBlock&& block) { ready_.push_back(std::move(block)); };
    for (;;) {
        while (!ready_.empty()) {
            std::string bytes = std::move(ready_.front().bytes);
            ready_.pop_front();
            // An empty block (the end of a stream whose text ended on a
            // block boundary, or of no text at all) is no text: an empty
            // view would end the source early.
            if (bytes.empty()) {
                buffers_->give_back(std::move(bytes));
                continue;
            }
            handed_ = std::move(bytes);
            return handed_;
        }
        if (ended_) return {};
        if (unfed_.empty()) {
            unfed_ = compressed_.next();
            if (unfed_.empty()) {
                ended_ = true;
                stream_.feed({}, true, keep);
                continue;
            }
        }
        const std::string_view slice = unfed_.substr(0, kSliceBytes);
        unfed_.remove_prefix(slice.size());
        stream_.feed(slice, false, keep);
    }
}

void InflatingSource::finish() {
    while (!next().empty()) {
    }
}

}  // namespace invidx
