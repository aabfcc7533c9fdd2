#include "nodes/frame/text.hpp"

#include "invidx/error.hpp"

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
}

void TextFramer::finish(const EmitRecord& emit) {
    record_.text = text_;
    record_.source_offset = 0;
    record_.record_number = 0;
    emit(record_);
    text_.clear();
}

}  // namespace invidx
