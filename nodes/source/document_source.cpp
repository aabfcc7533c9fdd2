#include "invidx/document_source.hpp"

#include <algorithm>
#include <chrono>

#include "invidx/error.hpp"

namespace invidx {

DocumentSource::DocumentSource(size_t max_blocks, std::string name)
    : max_blocks_(std::max<size_t>(1, max_blocks)), name_(std::move(name)) {}

bool DocumentSource::push(std::vector<char> block) {
    std::unique_lock lock(mutex_);
    if (block.empty()) return !closed_;
    changed_.wait(lock, [&] { return closed_ || blocks_.size() < max_blocks_; });
    if (closed_) return false;
    ensure(!finished_, "documents pushed after finish()");
    bytes_pushed_ += block.size();
    blocks_.push_back(std::move(block));
    changed_.notify_all();
    return true;
}

DocumentSource::PushResult DocumentSource::push_for(std::vector<char>& block, std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, wait, [&] { return closed_ || blocks_.size() < max_blocks_; }))
        return PushResult::kFull;
    if (closed_) return PushResult::kClosed;
    ensure(!finished_, "documents pushed after finish()");
    if (block.empty()) return PushResult::kPushed;
    bytes_pushed_ += block.size();
    blocks_.push_back(std::move(block));
    block = {};
    changed_.notify_all();
    return PushResult::kPushed;
}

void DocumentSource::finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    changed_.notify_all();
}

std::optional<std::vector<char>> DocumentSource::pop(const std::function<bool()>& give_up) {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (!blocks_.empty()) {
            std::vector<char> block = std::move(blocks_.front());
            blocks_.pop_front();
            changed_.notify_all();
            return block;
        }
        if (finished_ || closed_) return std::nullopt;
        // Woken by a push, or now and then to see whether the graph was
        // cancelled meanwhile (its failure must not wait for the producer).
        changed_.wait_for(lock, std::chrono::milliseconds(20));
        if (give_up && give_up()) return std::nullopt;
    }
}

std::string DocumentSource::prefix(size_t max_bytes) {
    std::unique_lock lock(mutex_);
    const auto queued = [&] {
        size_t bytes = 0;
        for (const auto& block : blocks_) bytes += block.size();
        return bytes;
    };
    changed_.wait(lock, [&] { return finished_ || closed_ || blocks_.size() >= max_blocks_ || queued() >= max_bytes; });
    std::string text;
    for (const auto& block : blocks_) {
        if (text.size() >= max_bytes) break;
        text.append(block.data(), std::min(block.size(), max_bytes - text.size()));
    }
    return text;
}

void DocumentSource::close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    blocks_.clear();
    changed_.notify_all();
}

uint64_t DocumentSource::bytes_pushed() const {
    std::lock_guard lock(mutex_);
    return bytes_pushed_;
}

}  // namespace invidx
