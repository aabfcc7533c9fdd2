// WARC framing (CONTENT.md §1-2): WARC/0.18 (ClueWeb09), WARC/1.0 and 1.1 (Common
// Crawl). Records are delimited by Content-Length, never by looking for the
// next "WARC/" line, since a page may contain that text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nodes/frame/framer.hpp"
#include "nodes/frame/stream_window.hpp"

namespace invidx {

// The text of an HTTP message: what follows the first empty line (nothing
// but an optional CR before its LF); empty when there is no such line.
std::string_view http_message_body(std::string_view message);

class WarcFramer : public Framer {
public:
    WarcFramer(std::string entry_name, bool html);

    void feed(std::string_view bytes, const EmitRecord& emit) override;
    void finish(const EmitRecord& emit) override;

private:
    enum class State { kBetweenRecords, kHeaders, kBlock, kSkipBlock };

    // Frames what it can of `view` (entry offset window_.offset()); returns
    // the bytes consumed. `at_end`: no more bytes will come.
    size_t frame(std::string_view view, bool at_end, const EmitRecord& emit);
    bool frame_header_line(std::string_view view, size_t& pos, bool at_end);
    void start_record(uint64_t offset);
    void header(std::string_view line, uint64_t line_offset);
    void end_of_headers();
    [[noreturn]] void fail(const std::string& message, uint64_t byte_offset) const;

    std::string entry_name_;
    bool html_;
    StreamWindow window_;
    State state_ = State::kBetweenRecords;
    uint64_t records_started_ = 0;  // of every WARC-Type: record numbers count them all

    // The record in progress (or, in errors between records, the next one).
    uint64_t record_number_ = 0;
    bool version_line_pending_ = false;
    uint64_t record_offset_ = 0;
    uint64_t header_bytes_ = 0;
    std::string type_;
    std::optional<std::string> content_length_;
    std::optional<std::string> trec_id_;
    std::optional<std::string> record_id_;
    std::string* last_value_ = nullptr;  // the header a folded line continues
    uint64_t block_bytes_ = 0;           // Content-Length
    uint64_t skip_left_ = 0;             // bytes of a skipped block still to come
    FramedRecord record_;
};

}  // namespace invidx
