#include "nodes/frame/file_framer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "invidx/entry_name.hpp"
#include "invidx/error.hpp"
#include "nodes/frame/small_batch.hpp"

namespace invidx {

FileFramer::FileFramer(const InputFile& file, const AnalysisSettings& settings, uint64_t batch_bytes)
    : file_(file), settings_(settings), batch_bytes_(batch_bytes) {}

void FileFramer::take(const std::shared_ptr<const TextBlock>& block, const EmitFileBatch& emit) {
    const TextBlock& text = *block;
    const ErrorContext in_file{.node = "", .file = file_.path, .record = std::nullopt, .byte_offset = std::nullopt};
    ensure(!ended_, "text block of '" + text.entry_name + "' arrived after its file ended", in_file);
    const auto emit_record = [&](const FramedRecord& record) { add(record, block, emit); };
    // A file's empty file_end marker (messages.hpp) carries no entry.
    const bool marker = text.bytes.empty() && !text.entry_begin && !text.entry_end;
    if (!marker) {
        if (text.entry_begin) {
            entry_name_ = text.entry_name;
            framer_ = make_framer(file_.format, document_name_of_entry(file_, text.entry_name), settings_);
        }
        ensure(framer_ != nullptr, "text block of '" + text.entry_name + "' arrived outside an entry", in_file);
        try {
            framer_->feed(text.bytes, emit_record);
            if (text.entry_end) {
                framer_->finish(emit_record);
                framer_.reset();
            }
        } catch (const Error& error) {
            // Framers know the entry by its document name; the user needs
            // the path they gave (and the member, for archives).
            ErrorContext context = error.context();
            context.file = entry_path_for_errors(file_, text.entry_name);
            throw Error(error.message(), context);
        }
    }
    if (text.file_end) {
        ensure(!framer_, "file ended inside entry '" + entry_name_ + "'", in_file);
        emit_batch(true, text.lease, emit);
        ended_ = true;
    } else if (!is_small_batch(batch_->text_bytes, batch_bytes_)) {
        emit_batch(false, text.lease, emit);  // a batch as it stands: no copy (file_framer.hpp)
    } else {
        batch_->own_all_text();  // the batch in progress holds no block (file_framer.hpp)
    }
}

void FileFramer::add(const FramedRecord& record, const std::shared_ptr<const TextBlock>& block,
                     const EmitFileBatch& emit) {
    if (!batch_->docs.empty() && batch_->text_bytes + record.text.size() > batch_bytes_) {
        emit_batch(false, block->lease, emit);
    }
    DocRecord doc;
    doc.name = record.name;
    doc.text_length = static_cast<uint32_t>(record.text.size());
    doc.html = record.html;
    doc.file_ordinal = file_.ordinal;
    doc.source_offset = record.source_offset;
    doc.record_number = record.record_number;
    doc.metadata = record.metadata;
    const std::string& bytes = block->bytes;
    // Within the block (compared as addresses: the text is either a piece
    // of it or lies elsewhere altogether, in the framer's own buffer).
    const auto at = reinterpret_cast<uintptr_t>(record.text.data());
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const bool in_block = !record.text.empty() && record.text.size() <= bytes.size() && at >= begin &&
                          at - begin <= bytes.size() - record.text.size() && bytes.size() <= UINT32_MAX;
    if (in_block) {
        if (batch_->sources.empty() || batch_->sources.back() != block) batch_->sources.push_back(block);
        doc.source = static_cast<uint32_t>(batch_->sources.size() - 1);
        doc.text_offset = static_cast<uint32_t>(at - begin);
    } else {
        doc.source = kOwnText;
        doc.text_offset = static_cast<uint32_t>(batch_->text.size());
        batch_->text.append(record.text);
    }
    batch_->text_bytes += record.text.size();
    batch_->docs.push_back(std::move(doc));
}

void FileFramer::emit_batch(bool file_end, const Lease& lease, const EmitFileBatch& emit) {
    batch_->lease = lease;
    batch_->framed_at = std::chrono::steady_clock::now();
    emit(FileBatch{FilePosition{file_.ordinal, next_batch_++, file_end}, std::move(batch_)});
    batch_ = std::make_shared<DocBatch>();
}

}  // namespace invidx
