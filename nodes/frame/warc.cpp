#include "nodes/frame/warc.hpp"

#include <algorithm>
#include <charconv>

#include "invidx/error.hpp"
#include "nodes/frame/excerpt.hpp"

namespace invidx {
namespace {

// A header block larger than this is not a WARC header: fail early rather
// than buffer a whole file that is not WARC at all.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

// Room reserved ahead for a record in progress; a larger one grows as it
// comes, so a lying Content-Length does not allocate memory up front.
constexpr uint64_t kMaxReserveBytes = uint64_t{64} << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
               return lower(x) == lower(y);
           });
}

constexpr std::string_view kWarcMagic = "WARC/";

}  // namespace

std::string_view http_message_body(std::string_view message) {
    size_t line_start = 0;
    while (true) {
        const size_t newline = message.find('\n', line_start);
        if (newline == std::string_view::npos) return {};
        const size_t line_length = newline - line_start;
        if (line_length == 0 || (line_length == 1 && message[line_start] == '\r')) {
            return message.substr(newline + 1);
        }
        line_start = newline + 1;
    }
}

WarcFramer::WarcFramer(std::string entry_name, bool html) : entry_name_(std::move(entry_name)), html_(html) {
    record_.html = html_;
}

void WarcFramer::fail(const std::string& message, uint64_t byte_offset) const {
    throw Error(message,
                ErrorContext{.node = "", .file = entry_name_, .record = record_number_, .byte_offset = byte_offset});
}

void WarcFramer::start_record(uint64_t offset) {
    record_number_ = records_started_++;
    record_offset_ = offset;
    header_bytes_ = 0;
    version_line_pending_ = true;
    type_.clear();
    content_length_.reset();
    trec_id_.reset();
    record_id_.reset();
    last_value_ = nullptr;
    state_ = State::kHeaders;
}

void WarcFramer::feed(std::string_view bytes, const EmitRecord& emit) {
    window_.feed(bytes, [&](std::string_view view) { return frame(view, false, emit); });
}

void WarcFramer::finish(const EmitRecord& emit) {
    // frame() with at_end either consumes everything or throws.
    window_.finish([&](std::string_view view) { return frame(view, true, emit); });
}

size_t WarcFramer::frame(std::string_view view, bool at_end, const EmitRecord& emit) {
    size_t pos = 0;
    while (true) {
        switch (state_) {
            case State::kBetweenRecords: {
                // Blank lines (any ASCII whitespace) between records are tolerated.
                while (pos < view.size() && is_space(view[pos])) ++pos;
                if (pos == view.size()) return pos;
                const std::string_view rest = view.substr(pos);
                const size_t compared = std::min(rest.size(), kWarcMagic.size());
                if (rest.substr(0, compared) != kWarcMagic.substr(0, compared)) {
                    record_number_ = records_started_;  // the record that should start here
                    fail("expected a WARC record (a line starting with \"WARC/\"), found \"" + excerpt(rest) + "\"",
                         window_.offset() + pos);
                }
                if (compared < kWarcMagic.size()) {
                    record_number_ = records_started_;
                    if (at_end) fail("WARC record cut off by the end of the file", window_.offset() + pos);
                    return pos;  // wait for the rest of the magic
                }
                start_record(window_.offset() + pos);
                break;
            }
            case State::kHeaders:
                if (!frame_header_line(view, pos, at_end)) return pos;
                break;
            case State::kBlock: {
                if (view.size() - pos < block_bytes_) {
                    if (at_end) fail("WARC record's Content-Length runs past the end of the file", record_offset_);
                    window_.reserve_at_close(static_cast<size_t>(std::min(block_bytes_, kMaxReserveBytes)));
                    window_.need_at_close(static_cast<size_t>(block_bytes_));
                    return pos;
                }
                const std::string_view block = view.substr(pos, block_bytes_);
                record_.text = http_message_body(block);
                record_.source_offset = record_offset_;
                record_.record_number = record_number_;
                emit(record_);
                pos += block_bytes_;
                state_ = State::kBetweenRecords;
                break;
            }
            case State::kSkipBlock: {
                const uint64_t available = view.size() - pos;
                const uint64_t skipped = std::min(available, skip_left_);
                pos += skipped;
                skip_left_ -= skipped;
                if (skip_left_ > 0) {
                    if (at_end) fail("WARC record's Content-Length runs past the end of the file", record_offset_);
                    return pos;
                }
                state_ = State::kBetweenRecords;
                break;
            }
        }
    }
}

// Reads one complete header line at `pos`; false when it has not all come yet.
bool WarcFramer::frame_header_line(std::string_view view, size_t& pos, bool at_end) {
    const size_t newline = view.find('\n', pos);
    if (newline == std::string_view::npos) {
        if (at_end) fail("WARC header block is cut off by the end of the file", record_offset_);
        if (header_bytes_ + (view.size() - pos) > kMaxHeaderBytes) {
            fail("WARC header block larger than 1 MiB (no empty line ends it)", record_offset_);
        }
        return false;
    }
    const uint64_t line_offset = window_.offset() + pos;
    std::string_view line = view.substr(pos, newline - pos);
    header_bytes_ += line.size() + 1;
    pos = newline + 1;
    if (header_bytes_ > kMaxHeaderBytes) fail("WARC header block larger than 1 MiB", record_offset_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (version_line_pending_) {  // "WARC/1.0": any version is read the same way
        version_line_pending_ = false;
    } else if (line.empty()) {
        end_of_headers();
    } else {
        header(line, line_offset);
    }
    return true;
}

void WarcFramer::header(std::string_view line, uint64_t line_offset) {
    if (line.front() == ' ' || line.front() == '\t') {  // folded continuation of the previous value
        if (last_value_ != nullptr) {
            const std::string_view more = trim(line);
            if (!more.empty()) *last_value_ += (last_value_->empty() ? "" : " ") + std::string(more);
        }
        return;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
        fail("malformed WARC header line \"" + excerpt(line) + "\" (no ':')", line_offset);
    }
    const std::string_view name = trim(line.substr(0, colon));
    const std::string value(trim(line.substr(colon + 1)));
    last_value_ = nullptr;
    const auto keep_first = [&](std::optional<std::string>& field) {
        if (!field) {
            field = value;
            last_value_ = &*field;
        }
    };
    if (equals_ignoring_case(name, "WARC-Type")) {
        if (type_.empty()) {
            type_ = value;
            last_value_ = &type_;
        }
    } else if (equals_ignoring_case(name, "Content-Length")) {
        keep_first(content_length_);
    } else if (equals_ignoring_case(name, "WARC-TREC-ID")) {
        keep_first(trec_id_);
    } else if (equals_ignoring_case(name, "WARC-Record-ID")) {
        keep_first(record_id_);
    }
}

void WarcFramer::end_of_headers() {
    if (!content_length_) fail("WARC record has no Content-Length header", record_offset_);
    const std::string& text = *content_length_;
    uint64_t length = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        fail("WARC record has an invalid Content-Length \"" + excerpt(text) + "\"", record_offset_);
    }
    if (!equals_ignoring_case(type_, "response")) {
        skip_left_ = length;
        state_ = State::kSkipBlock;
        return;
    }
    if (length > kMaxRecordBytes) {
        fail("WARC record of " + std::to_string(length) + " bytes exceeds the 1 GiB record limit", record_offset_);
    }
    if (trec_id_ && !trec_id_->empty()) {
        record_.name = *trec_id_;
    } else if (record_id_ && !record_id_->empty()) {
        record_.name = *record_id_;
    } else {
        fail("WARC response record has neither WARC-TREC-ID nor WARC-Record-ID", record_offset_);
    }
    block_bytes_ = length;
    state_ = State::kBlock;
}

}  // namespace invidx
