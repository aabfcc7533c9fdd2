#include "nodes/frame/trec.hpp"

#include <algorithm>

#include "invidx/error.hpp"
#include "nodes/frame/excerpt.hpp"

namespace invidx {
namespace {

constexpr std::string_view kDocOpen = "<DOC>";
constexpr std::string_view kDocClose = "</DOC>";
constexpr std::string_view kDocnoOpen = "<DOCNO>";
constexpr std::string_view kDocnoClose = "</DOCNO>";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

}  // namespace

TrecFramer::TrecFramer(std::string entry_name, bool html) : entry_name_(std::move(entry_name)) {
    record_.html = html;
}

void TrecFramer::fail(const std::string& message, uint64_t byte_offset) const {
    throw Error(message,
                ErrorContext{.node = "", .file = entry_name_, .record = record_number_, .byte_offset = byte_offset});
}

void TrecFramer::feed(std::string_view bytes, const EmitRecord& emit) {
    window_.feed(bytes, [&](std::string_view view) { return frame(view, false, emit); });
}

void TrecFramer::finish(const EmitRecord& emit) {
    window_.finish([&](std::string_view view) { return frame(view, true, emit); });
}

size_t TrecFramer::frame(std::string_view view, bool at_end, const EmitRecord& emit) {
    const uint64_t base = window_.offset();
    size_t pos = 0;
    while (true) {
        if (!inside_doc_) {
            while (pos < view.size() && is_space(view[pos])) ++pos;
            if (pos == view.size()) return pos;
            const std::string_view rest = view.substr(pos);
            const size_t compared = std::min(rest.size(), kDocOpen.size());
            record_number_ = docs_started_;
            if (rest.substr(0, compared) != kDocOpen.substr(0, compared)) {
                fail("expected <DOC>, found \"" + excerpt(rest) + "\"", base + pos);
            }
            if (compared < kDocOpen.size()) {
                if (at_end) fail("<DOC> cut off by the end of the file", base + pos);
                return pos;
            }
            ++docs_started_;
            inside_doc_ = true;
            doc_offset_ = base + pos;
            searched_up_to_ = doc_offset_ + kDocOpen.size();
        }

        // Look for the end of the DOC only in bytes not searched before, less
        // a tag's length in case the tag straddled the previous feed's end.
        const size_t doc_start = static_cast<size_t>(doc_offset_ - base);
        const size_t from = static_cast<size_t>(searched_up_to_ - base);
        const size_t close = view.find(kDocClose, from);
        const size_t next_open = view.find(kDocOpen, from);
        if (next_open != std::string_view::npos && next_open < close) {
            fail("<DOC> without </DOC> (another <DOC> starts at byte " + std::to_string(base + next_open) + ")",
                 doc_offset_);
        }
        if (close == std::string_view::npos) {
            if (at_end) fail("<DOC> without </DOC> at the end of the file", doc_offset_);
            if (view.size() - doc_start > kMaxRecordBytes) fail("DOC larger than the 1 GiB record limit", doc_offset_);
            const size_t overlap = std::max(kDocClose.size(), kDocOpen.size()) - 1;
            searched_up_to_ = base + std::max(from, view.size() > overlap ? view.size() - overlap : 0);
            return doc_start;
        }
        if (close - doc_start > kMaxRecordBytes) fail("DOC larger than the 1 GiB record limit", doc_offset_);
        emit_document(view.substr(doc_start + kDocOpen.size(), close - doc_start - kDocOpen.size()), emit);
        inside_doc_ = false;
        pos = close + kDocClose.size();
    }
}

void TrecFramer::emit_document(std::string_view inside, const EmitRecord& emit) {
    const size_t docno_open = inside.find(kDocnoOpen);
    if (docno_open == std::string_view::npos) fail("DOC has no <DOCNO>", doc_offset_);
    const size_t name_start = docno_open + kDocnoOpen.size();
    const size_t docno_close = inside.find(kDocnoClose, name_start);
    if (docno_close == std::string_view::npos) fail("<DOCNO> without </DOCNO>", doc_offset_);
    const std::string_view name = trim(inside.substr(name_start, docno_close - name_start));
    if (name.empty()) fail("empty <DOCNO>", doc_offset_);
    record_.name.assign(name);
    record_.text = inside.substr(docno_close + kDocnoClose.size());
    record_.source_offset = doc_offset_;
    record_.record_number = record_number_;
    emit(record_);
}

}  // namespace invidx
