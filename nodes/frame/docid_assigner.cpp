#include "nodes/frame/docid_assigner.hpp"

#include <utility>

#include "nodes/frame/small_batch.hpp"

namespace invidx {

void DocidAssigner::take(std::shared_ptr<DocBatch> batch, const EmitDocBatch& emit) {
    if (batch->docs.empty()) return;  // a file's last batch, when it ended at a batch boundary or had no documents
    const bool small = is_small_batch(batch->text_bytes, batch_bytes_);
    if (pending_ && small && pending_->text_bytes + batch->text_bytes <= batch_bytes_) {
        // Copied: the packed batch may wait again, and then holds no block.
        for (DocRecord& doc : batch->docs) {
            const std::string_view body = batch->text_of(doc);
            doc.source = kOwnText;
            doc.text_offset = static_cast<uint32_t>(pending_->text.size());
            pending_->text.append(body);
            pending_->docs.push_back(std::move(doc));
        }
        pending_->text_bytes += batch->text_bytes;
        return;
    }
    emit_pending(batch->lease, emit);
    if (small) {
        batch->lease.reset();
        batch->own_all_text();
        pending_ = std::move(batch);
    } else {
        number_and_emit(std::move(batch), emit);
    }
}

void DocidAssigner::finish(const Lease& lease, const EmitDocBatch& emit) {
    std::shared_ptr<DocBatch> last = pending_ ? std::move(pending_) : std::make_shared<DocBatch>();
    last->lease = lease;
    last->end_of_input = true;
    number_and_emit(std::move(last), emit);
}

void DocidAssigner::emit_pending(const Lease& lease, const EmitDocBatch& emit) {
    if (!pending_) return;
    pending_->lease = lease;
    number_and_emit(std::move(pending_), emit);
}

void DocidAssigner::number_and_emit(std::shared_ptr<DocBatch> batch, const EmitDocBatch& emit) {
    batch->sequence = next_sequence_++;
    batch->first_docid = next_docid_;
    next_docid_ += batch->docs.size();
    emit(std::move(batch));
}

}  // namespace invidx
