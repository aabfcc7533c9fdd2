// Restores sequence order inside a serial node. oneTBB's serial nodes run one
// body at a time but do not promise to run them in the order the messages
// were sent (oneTBB issues #289, #829), and framing, run cutting and indexing
// must see their input in order. Each such node numbers its input and lets
// this buffer hold early arrivals until their turn; it holds at most what the
// engine's tokens let be in flight.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

namespace invidx {

template <class T>
class InOrder {
public:
    // Calls process(item) for `item` if its turn has come, then for every
    // held item whose turn follows; otherwise holds `item`. Not thread-safe:
    // use it from a serial node's body.
    template <class Process>
    void push(uint64_t sequence, T item, Process&& process) {
        if (sequence != next_) {
            held_.emplace(sequence, std::move(item));
            return;
        }
        process(item);
        ++next_;
        for (auto it = held_.begin(); it != held_.end() && it->first == next_; it = held_.erase(it)) {
            process(it->second);
            ++next_;
        }
    }

    uint64_t next_sequence() const { return next_; }
    size_t held() const { return held_.size(); }

private:
    uint64_t next_ = 0;
    std::map<uint64_t, T> held_;
};

// Where an item lies in the collection: block `block` (0,1,2,...) of file
// `file`; `file_end` marks the file's last block. Items are released file by
// file, each file's blocks in order, so several files can be produced at once
// (decompress workers) while the consumer still sees the collection's order.
struct FilePosition {
    uint64_t file = 0;
    uint64_t block = 0;
    bool file_end = false;
};

// InOrder over FilePositions: releases (0,0), (0,1), ... up to file 0's
// file_end block, then (1,0), and so on. A file must end with exactly one
// file_end block; a sentinel after the last of F files is keyed (F, 0). Not
// thread-safe: use it from a serial node's body.
template <class T>
class FileOrder {
public:
    template <class Process>
    void push(FilePosition position, T item, Process&& process) {
        if (position.file != next_file_ || position.block != next_block_) {
            held_.emplace(std::pair{position.file, position.block}, Held{position.file_end, std::move(item)});
            return;
        }
        process(item);
        advance(position.file_end);
        // The map is sorted by (file, block), so the next turn, if held, is first.
        for (auto it = held_.begin();
             it != held_.end() && it->first == std::pair{next_file_, next_block_}; it = held_.begin()) {
            const bool file_end = it->second.file_end;
            T next = std::move(it->second.item);
            held_.erase(it);
            process(next);
            advance(file_end);
        }
    }

    uint64_t next_file() const { return next_file_; }
    uint64_t next_block() const { return next_block_; }
    size_t held() const { return held_.size(); }

private:
    struct Held {
        bool file_end;
        T item;
    };

    void advance(bool file_end) {
        if (file_end) {
            ++next_file_;
            next_block_ = 0;
        } else {
            ++next_block_;
        }
    }

    uint64_t next_file_ = 0;
    uint64_t next_block_ = 0;
    std::map<std::pair<uint64_t, uint64_t>, Held> held_;
};

}  // namespace invidx
