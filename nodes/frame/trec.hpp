// TREC SGML framing (CONTENT.md §1-2): <DOC> ... </DOC> blocks, named by <DOCNO>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nodes/frame/framer.hpp"
#include "nodes/frame/stream_window.hpp"

namespace invidx {

// Tags are matched exactly as TREC distributes them (upper case, no
// attributes), as Anserini's TrecCollection does. Only whitespace may come
// between documents; anything else means the file is not TREC (an Error).
class TrecFramer : public Framer {
public:
    TrecFramer(std::string entry_name, bool html);

    void feed(std::string_view bytes, const EmitRecord& emit) override;
    void finish(const EmitRecord& emit) override;

private:
    size_t frame(std::string_view view, bool at_end, const EmitRecord& emit);
    void emit_document(std::string_view inside, const EmitRecord& emit);
    [[noreturn]] void fail(const std::string& message, uint64_t byte_offset) const;

    std::string entry_name_;
    StreamWindow window_;
    bool inside_doc_ = false;
    uint64_t docs_started_ = 0;
    uint64_t record_number_ = 0;    // of the DOC in progress (or the next one)
    uint64_t doc_offset_ = 0;       // entry offset of its "<DOC>"
    uint64_t searched_up_to_ = 0;   // entry offset from which to look for its end
    FramedRecord record_;
};

}  // namespace invidx
