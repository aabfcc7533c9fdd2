// The frame node's serial step: numbers the files' batches in collection
// order (CONTENT.md §1-2: dense docids, files in sorted order, records in file
// order), whatever order and however many at once the files were framed in.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "invidx/messages.hpp"

namespace invidx {

using EmitDocBatch = std::function<void(std::shared_ptr<DocBatch>)>;

// Takes DocBatches in collection order (file after file, each file's
// batches in order) and emits them with their sequence number and first
// docid, a running count. Batches of small files are packed together (a
// file's batches end at the file, and a collection of small files would
// otherwise become a stream of tiny batches): a batch of at most half of
// `batch_bytes` of text is appended to the one before it while their text
// fits in `batch_bytes`; larger batches pass unchanged. The output is a function of the input order only, so it does not
// depend on how many framers ran.
//
// Leases: the batch being packed holds none while it waits for the next
// one (which may need a read block that a held token would keep back): its
// text is copied out of the blocks it pointed into, which it lets go; it
// goes out with the lease of the batch that closed it, a later block's.
class DocidAssigner {
public:
    explicit DocidAssigner(uint64_t batch_bytes) : batch_bytes_(batch_bytes) {}

    void take(std::shared_ptr<DocBatch> batch, const EmitDocBatch& emit);
    // The end of input: emits the last batch, marked end_of_input, holding
    // `lease` (the sentinel's), even with no documents.
    void finish(const Lease& lease, const EmitDocBatch& emit);

    uint64_t documents() const { return next_docid_; }

private:
    void emit_pending(const Lease& lease, const EmitDocBatch& emit);
    void number_and_emit(std::shared_ptr<DocBatch> batch, const EmitDocBatch& emit);

    const uint64_t batch_bytes_;
    std::shared_ptr<DocBatch> pending_;  // small batches being packed; holds no lease, no block
    uint64_t next_sequence_ = 0;
    uint64_t next_docid_ = 0;
};

}  // namespace invidx
