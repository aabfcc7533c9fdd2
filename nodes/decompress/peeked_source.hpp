// A ByteSource whose first bytes can be looked at before anyone reads them:
// ArchiveStream decides from a file's magic bytes whether GzipStream or
// libarchive decodes it, and whichever does then reads the file from its
// first byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "nodes/decompress/byte_source.hpp"

namespace invidx {

class PeekedSource final : public ByteSource {
public:
    // `inner` must outlive this source.
    explicit PeekedSource(ByteSource& inner) : inner_(inner) {}

    // The first `n` bytes of the input, fewer when it is shorter; next()
    // still returns them. Only before the first next().
    std::string_view peek(size_t n) {
        while (held_size() < n && !ended_) {
            // Short reads: the held view dies with the next inner read, so copies gather them.
            if (!view_.empty()) owned_.assign(std::exchange(view_, std::string_view()));
            const std::string_view more = inner_.next();
            if (more.empty()) {
                ended_ = true;
            } else if (owned_.empty()) {
                view_ = more;  // the usual case: one read holds them, nothing is copied
            } else {
                owned_.append(more);
            }
        }
        const std::string_view held = owned_.empty() ? view_ : std::string_view(owned_);
        return held.substr(0, n);
    }

    std::string_view next() override {
        if (!owned_.empty()) {
            handed_.swap(owned_);
            owned_.clear();
            return handed_;
        }
        if (!view_.empty()) return std::exchange(view_, std::string_view());
        if (ended_) return {};
        return inner_.next();
    }

private:
    size_t held_size() const { return owned_.empty() ? view_.size() : owned_.size(); }

    ByteSource& inner_;
    std::string_view view_;  // peeked bytes still in the inner source's buffer
    std::string owned_;      // peeked bytes gathered from several short reads
    std::string handed_;     // owned_ once next() handed it out, alive until the next call
    bool ended_ = false;     // the inner source ended while peeking
};

}  // namespace invidx
