// The bytes a streaming framer has been fed but not yet used up.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace invidx {

// Feeds an entry's bytes to a framer's frame(view) -> bytes consumed, which
// frames what it can of `view` (entry offset offset()) and leaves the rest,
// a record in progress, to be framed again with more bytes. Bytes are framed
// straight from the caller's buffer; only a record in progress is copied:
// the unfinished tail of a feed, and at the next feed as much of the new
// bytes as completes it (pieces doubling in size, or exactly the bytes a
// framer said the record needs: need_at_close), after which framing goes on
// in the caller's buffer again. So a record is copied about once however it
// is split, and a feed is not copied whole because a record straddles its
// start (every block of a WARC file does).
class StreamWindow {
public:
    template <class Frame>
    void feed(std::string_view bytes, Frame&& frame) {
        if (bytes.empty()) return;
        if (!carried_.empty()) {
            size_t earlier = carried_.size();  // carried bytes from before this feed
            size_t taken = 0;                  // of `bytes`, appended to carried_
            while (true) {
                const size_t piece = std::min(bytes.size() - taken, next_piece_bytes());
                carried_.append(bytes.substr(taken, piece));
                taken += piece;
                const size_t consumed = frame(std::string_view(carried_));
                advance(consumed);
                if (consumed >= earlier) {
                    // Framing got past the carried bytes: what is left is
                    // still in `bytes`, from here on.
                    bytes.remove_prefix(taken - carried_.size());
                    carried_.clear();
                    break;
                }
                earlier -= consumed;
                if (taken == bytes.size()) return;  // the record in progress needs more than this feed
            }
        }
        const size_t consumed = frame(bytes);
        offset_ += consumed;
        apply_reserve_hint();  // before the copy, so a large record's tail is not copied twice
        carried_.assign(bytes.substr(consumed));
    }

    // The end of the entry: frames what is carried, once more.
    template <class Frame>
    void finish(Frame&& frame) {
        advance(frame(std::string_view(carried_)));
    }

    // Entry offset of the first byte of the view being framed.
    uint64_t offset() const { return offset_; }

    // Asks for room for `bytes` carried bytes (a record in progress of known
    // size), so a large record is not regrown piece by piece. Applied once
    // the frame call returns, since the view may point into the buffer.
    void reserve_at_close(size_t bytes) { capacity_hint_ = bytes; }

    // Says that framing can go on only once `bytes` bytes are carried from
    // where the frame call stopped (a record of known length), so the next
    // feed appends just those, not a doubling piece past the record's end
    // that would regrow the buffer. Holds for the next frame call only.
    void need_at_close(size_t bytes) { needed_hint_ = bytes; }

    size_t carried_bytes() const { return carried_.size(); }

private:
    // A straddling record's first piece of the next feed; most web pages'
    // rest fits.
    static constexpr size_t kFirstPiece = size_t{64} << 10;

    void advance(size_t consumed) {
        carried_.erase(0, consumed);
        offset_ += consumed;
        apply_reserve_hint();
    }

    void apply_reserve_hint() {
        if (capacity_hint_ > carried_.capacity()) carried_.reserve(capacity_hint_);
        capacity_hint_ = 0;
        needed_ = needed_hint_;
        needed_hint_ = 0;
    }

    size_t next_piece_bytes() const {
        if (needed_ > carried_.size()) return needed_ - carried_.size();
        return std::max(kFirstPiece, carried_.size());
    }

    std::string carried_;
    uint64_t offset_ = 0;
    size_t capacity_hint_ = 0;
    size_t needed_hint_ = 0;  // from the frame call in progress
    size_t needed_ = 0;       // carried bytes the record in progress needs; 0: not known
};

}  // namespace invidx
