// The byte-level writer and reader of the postings wire (postings_wire.hpp).
// Integers are the build's variable-byte code (store/codecs/vbyte.hpp: 7 bits
// a byte, least significant group first, high bit set on the last byte), but
// written through a raw cursor into room made ahead and read with one bounds
// check per integer rather than per byte: the wire carries one to three
// integers per posting, so a per-byte push_back or check is most of its cost.
// Most values on the wire (docid gaps within a batch, tfs, small position
// gaps) fit one byte, which both sides take first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "invidx/error.hpp"

namespace invidx::postings_wire {

// The most bytes one integer takes (a 64-bit value: 10 groups of 7 bits).
inline constexpr size_t kMaxIntegerBytes = 10;

// Appends to a string: make_room(n) before writing at most n bytes through
// cursor(), then advance(cursor after them). The string is grown ahead (by
// doubling, so growth costs one copy of the message at most), and finish()
// cuts it back to what was written: call it once done.
class WireWriter {
public:
    explicit WireWriter(std::string& out) : out_(&out), used_(out.size()) {}

    void make_room(size_t bytes) {
        if (out_->size() - used_ < bytes) out_->resize(std::max(out_->size() * 2, used_ + bytes));
    }
    char* cursor() { return out_->data() + used_; }
    void advance(char* to) { used_ = static_cast<size_t>(to - out_->data()); }
    void finish() { out_->resize(used_); }

    // Convenience for rare fields (headers): room made here.
    void put(uint64_t value) {
        make_room(kMaxIntegerBytes);
        advance(put_integer(cursor(), value));
    }
    void put_bytes(std::string_view bytes) {
        make_room(bytes.size());
        std::memcpy(cursor(), bytes.data(), bytes.size());
        used_ += bytes.size();
    }

    static char* put_integer(char* at, uint64_t value) {
        if (value < 128) {  // most values: docid gaps, tfs
            *at = static_cast<char>(value | 128);
            return at + 1;
        }
        while (value >= 128) {
            *at++ = static_cast<char>(value & 127);
            value >>= 7;
        }
        *at++ = static_cast<char>(value | 128);
        return at;
    }

private:
    std::string* out_;
    size_t used_;
};

// Reads a message front to back; every read checks the end and throws
// invidx::Error (the caller adds which message) on a cut or malformed one.
class WireReader {
public:
    explicit WireReader(std::string_view bytes)
        : at_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(at_ + bytes.size()) {}

    size_t left() const { return static_cast<size_t>(end_ - at_); }
    const char* cursor() const { return reinterpret_cast<const char*>(at_); }

    // One and two bytes inline: docid gaps, tfs and most position gaps.
    uint32_t get32(const char* what) {
        if (end_ - at_ >= 2) {
            const uint32_t first = at_[0];
            if (first & 128) return at_ += 1, first & 127;
            const uint32_t second = at_[1];
            if (second & 128) return at_ += 2, first | (second & 127) << 7;
        }
        const Read read = get32_slow(at_, end_, what);
        at_ = read.next;
        return read.value;
    }
    // The next two integers when both take one byte (a posting's docid gap
    // and tf, mostly): one check for both. False, and nothing read, if not.
    bool get_two_small(uint32_t& first, uint32_t& second) {
        if (end_ - at_ < 2 || !(at_[0] & at_[1] & 128)) return false;
        first = at_[0] & 127u;
        second = at_[1] & 127u;
        at_ += 2;
        return true;
    }
    uint64_t get64(const char* what) {
        if (at_ < end_ && (*at_ & 128)) return *at_++ & 127u;
        uint64_t value = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (at_ == end_) throw Error(std::string("the message ends inside ") + what);
            const uint8_t byte = *at_++;
            value |= static_cast<uint64_t>(byte & 127) << shift;
            if (byte & 128) return value;
        }
        throw Error(std::string(what) + " is longer than 64 bits");
    }
    void skip(size_t count, const char* what) {
        if (count > left()) throw Error(std::string(what) + " runs past the message");
        at_ += count;
    }

private:
    struct Read {
        uint32_t value;
        const uint8_t* next;
    };
    // Out of line and by value, so that the cursor of the inlined fast path
    // can stay in a register.
    [[gnu::noinline]] static Read get32_slow(const uint8_t* at, const uint8_t* end, const char* what) {
        uint32_t value = 0;
        for (unsigned shift = 0; shift < 35; shift += 7) {
            if (at == end) throw Error(std::string("the message ends inside ") + what);
            const uint8_t byte = *at++;
            if (shift == 28 && (byte & 127) > 15) break;
            value |= static_cast<uint32_t>(byte & 127) << shift;
            if (byte & 128) return Read{value, at};
        }
        throw Error(std::string(what) + " out of range");
    }

    const uint8_t* at_;
    const uint8_t* end_;
};

}  // namespace invidx::postings_wire
