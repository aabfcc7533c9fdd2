// Plain-text framing (CONTENT.md §1-2): the whole entry is one document, named after
// the entry. An empty entry is still a document (with no text). An entry
// whose start is binary data (binary_data.hpp) is an error, not a document.
#pragma once

#include <string>
#include <string_view>

#include "nodes/frame/framer.hpp"

namespace invidx {

class TextFramer : public Framer {
public:
    TextFramer(std::string entry_name, bool html);

    void feed(std::string_view bytes, const EmitRecord& emit) override;
    void finish(const EmitRecord& emit) override;

private:
    void check_text();

    std::string entry_name_;
    bool checked_ = false;  // the entry's start was found to be text
    std::string text_;  // the record is emitted whole, so it is gathered first
    FramedRecord record_;
};

}  // namespace invidx
