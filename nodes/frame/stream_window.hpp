// The bytes a streaming framer has been fed but not yet used up.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace invidx {

// A feed is framed straight from the caller's bytes when nothing is carried
// over from the previous one; only the unfinished tail of a feed (a record
// in progress) is copied, so a record is copied at most once however it is
// split.
class StreamWindow {
public:
    // Starts a feed: returns every byte not yet consumed, carried ones first.
    std::string_view open(std::string_view bytes) {
        if (carried_.empty()) {
            fed_directly_ = true;
            return bytes;
        }
        fed_directly_ = false;
        carried_.append(bytes);
        return carried_;
    }

    // Ends the feed started by open(), whose first `consumed` bytes are used.
    void close(std::string_view view, size_t consumed) {
        if (fed_directly_) {
            carried_.assign(view.substr(consumed));
        } else {
            carried_.erase(0, consumed);
        }
        if (capacity_hint_ > carried_.capacity()) carried_.reserve(capacity_hint_);
        capacity_hint_ = 0;
        offset_ += consumed;
    }

    // Entry offset of the first byte of the view open() returns.
    uint64_t offset() const { return offset_; }

    // Asks for room for `bytes` carried bytes when the feed closes (a record
    // in progress of known size), so a large record is not regrown per feed.
    // Deferred to close() because the open view may point into the buffer.
    void reserve_at_close(size_t bytes) { capacity_hint_ = bytes; }

    size_t carried_bytes() const { return carried_.size(); }

private:
    std::string carried_;
    uint64_t offset_ = 0;
    size_t capacity_hint_ = 0;
    bool fed_directly_ = false;
};

}  // namespace invidx
