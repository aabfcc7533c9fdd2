#include "nodes/frame/text.hpp"

#include "invidx/error.hpp"
#include "nodes/frame/binary_data.hpp"

namespace invidx {

TextFramer::TextFramer(std::string entry_name, bool html) : entry_name_(std::move(entry_name)) {
    record_.name = entry_name_;
    record_.html = html;
}

void TextFramer::feed(std::string_view bytes, const EmitRecord&) {
    if (text_.size() + bytes.size() > kMaxRecordBytes) {
        throw Error("text document larger than the 1 GiB record limit",
                    ErrorContext{.node = "", .file = entry_name_, .record = 0, .byte_offset = text_.size()});
    }
    text_.append(bytes);
    if (!checked_ && text_.size() >= kTextCheckBytes) check_text();
}

void TextFramer::check_text() {
    checked_ = true;
    if (const auto binary = find_binary_data(text_)) {
        throw Error("binary data, not text: " + binary->why +
                        " (a damaged or unrecognized archive or compressed file? a file of another format "
                        "needs its input[].format)",
                    ErrorContext{.node = "", .file = entry_name_, .record = 0, .byte_offset = binary->byte_offset});
    }
}

void TextFramer::finish(const EmitRecord& emit) {
    if (!checked_) check_text();
    record_.text = text_;
    record_.source_offset = 0;
    record_.record_number = 0;
    emit(record_);
    text_.clear();
    checked_ = false;
}

}  // namespace invidx
