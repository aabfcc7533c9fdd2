#include "nodes/frame/jsonl.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "nodes/frame/id_contents_line.hpp"
#include "nodes/frame/term_vector.hpp"

namespace invidx {
namespace {

bool is_blank(std::string_view line) {
    return std::all_of(line.begin(), line.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; });
}

}  // namespace

JsonlFramer::JsonlFramer(std::string entry_name, bool html, std::optional<uint32_t> vector_scale)
    : entry_name_(std::move(entry_name)), vector_scale_(vector_scale) {
    record_.html = html;
}

void JsonlFramer::fail(const std::string& message, uint64_t byte_offset) const {
    throw Error("line " + std::to_string(line_number_ + 1) + ": " + message,
                ErrorContext{.node = "", .file = entry_name_, .record = line_number_, .byte_offset = byte_offset});
}

void JsonlFramer::feed(std::string_view bytes, const EmitRecord& emit) {
    window_.feed(bytes, [&](std::string_view view) { return frame(view, false, emit); });
}

void JsonlFramer::finish(const EmitRecord& emit) {
    window_.finish([&](std::string_view view) { return frame(view, true, emit); });
}

size_t JsonlFramer::frame(std::string_view view, bool at_end, const EmitRecord& emit) {
    const uint64_t base = window_.offset();
    size_t pos = 0;
    while (pos < view.size()) {
        const size_t from = std::max(pos, static_cast<size_t>(searched_up_to_ - base));
        size_t newline = view.find('\n', from);
        if (newline == std::string_view::npos) {
            if (!at_end) {
                if (view.size() - pos > kMaxRecordBytes) fail("line longer than the 1 GiB record limit", base + pos);
                searched_up_to_ = base + view.size();
                return pos;
            }
            newline = view.size();  // the last line may lack its newline
        }
        frame_line(view.substr(pos, newline - pos), base + pos, emit);
        ++line_number_;
        pos = std::min(newline + 1, view.size());
        searched_up_to_ = base + pos;
    }
    return pos;
}

void JsonlFramer::frame_line(std::string_view line, uint64_t line_offset, const EmitRecord& emit) {
    if (is_blank(line)) return;
    record_.source_offset = line_offset;
    record_.record_number = line_number_;
    // Most lines are {"id": "...", "contents": "..."}, maybe with other
    // string fields: read without a JSON tree. Every other line, and every
    // error, takes nlohmann's way.
    if (!vector_scale_ && read_id_contents_line(line, record_.name, text_, metadata_)) {
        record_.text = text_;
        record_.metadata = metadata_;
        emit(record_);
        return;
    }
    nlohmann::json object;
    try {
        object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
        fail(std::string("not valid JSON (") + e.what() + ")", line_offset);
    }
    if (!object.is_object()) fail("expected a JSON object, found a " + std::string(object.type_name()), line_offset);

    const auto id = object.find("id");
    if (id == object.end()) fail("object has no \"id\"", line_offset);
    if (id->is_string()) {
        record_.name = id->get<std::string>();
    } else if (id->is_number()) {
        record_.name = id->dump();  // as JSON writes the number (CONTENT.md §1-2)
    } else {
        fail("\"id\" must be a string or a number, not a " + std::string(id->type_name()), line_offset);
    }

    const char* const body = vector_scale_ ? "vector" : "contents";
    if (vector_scale_) {
        const auto vector = object.find("vector");
        if (vector == object.end()) {
            fail(std::string("object has no \"vector\"") +
                     (object.contains("contents") ? " (a text document in a pipeline of pre-weighted documents)" : ""),
                 line_offset);
        }
        TermVectorDocument document;
        if (auto error = quantize_term_vector(*vector, *vector_scale_, document)) fail(*error, line_offset);
        text_ = vector->dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } else {
        const auto contents = object.find("contents");
        if (contents == object.end()) {
            fail(std::string("object has no \"contents\"") +
                     (object.contains("vector") ? "; it has a \"vector\": pre-weighted documents are read with "
                                                  "\"format\": \"jsonvector\" (docs/PIPELINE.md)"
                                                : ""),
                 line_offset);
        }
        if (!contents->is_string()) {
            fail("\"contents\" must be a string, not a " + std::string(contents->type_name()), line_offset);
        }
        text_ = std::move(contents->get_ref<std::string&>());
    }
    record_.text = text_;
    // The other fields (title, url, ...) are kept for the document store, not indexed.
    object.erase("id");
    object.erase(body);
    metadata_ = object.empty() ? std::string() : object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    record_.metadata = metadata_;
    emit(record_);
}

}  // namespace invidx
