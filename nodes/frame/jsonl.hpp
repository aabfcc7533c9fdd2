// JSON Lines framing (CONTENT.md §1-2), Anserini's JsonCollection convention: one
// object per line with a document name in "id" and its text in "contents";
// or, for pre-weighted documents (format jsonvector, Anserini's
// JsonVectorCollection), a "vector" of term weights (term_vector.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nodes/frame/framer.hpp"
#include "nodes/frame/stream_window.hpp"

namespace invidx {

// Record numbers are 0-based line numbers, blank lines included, so that an
// error's record and its "line N" (1-based) point at the same line.
class JsonlFramer : public Framer {
public:
    // With a vector_scale, lines are pre-weighted documents: the text of
    // each is its "vector" in canonical form (term_vector.hpp).
    JsonlFramer(std::string entry_name, bool html, std::optional<uint32_t> vector_scale = std::nullopt);

    void feed(std::string_view bytes, const EmitRecord& emit) override;
    void finish(const EmitRecord& emit) override;

private:
    size_t frame(std::string_view view, bool at_end, const EmitRecord& emit);
    void frame_line(std::string_view line, uint64_t line_offset, const EmitRecord& emit);
    [[noreturn]] void fail(const std::string& message, uint64_t byte_offset) const;

    std::string entry_name_;
    std::optional<uint32_t> vector_scale_;
    StreamWindow window_;
    uint64_t line_number_ = 0;      // 0-based, of the line in progress
    uint64_t searched_up_to_ = 0;   // entry offset from which to look for its newline
    std::string text_;              // the decoded "contents" (or canonical "vector") of the current line
    std::string metadata_;          // its other fields as a JSON object, or empty
    FramedRecord record_;
};

}  // namespace invidx
