// One input file's documents, framed into batches numbered within the file.
// Files are framed independently (by the frame node's workers, several at
// once); the docid step (docid_assigner.hpp) then numbers the documents in
// collection order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "graph/in_order.hpp"
#include "invidx/analysis_settings.hpp"
#include "invidx/messages.hpp"
#include "nodes/frame/framer.hpp"

namespace invidx {

// A batch of one file's documents: `position` is (file ordinal, batch number
// within the file, whether it is the file's last). Its DocBatch has no
// sequence or docids yet.
struct FileBatch {
    FilePosition position;
    std::shared_ptr<DocBatch> batch;
};

using EmitFileBatch = std::function<void(FileBatch&&)>;

// Frames the text blocks of one file, taken in file_block order, with the
// framer of the file's format (a new one per entry of an archive), and packs
// its documents into batches of at most `batch_bytes` of text (a larger
// document is a batch of its own). The file_end block emits the file's last
// batch, which may hold no documents, so that every file ends with exactly
// one batch marked last (what FileOrder needs).
//
// Documents that lie whole in the block being framed point into it (the
// batch keeps the block); others, records that straddled blocks or that the
// framer rewrote, are copied into the batch's text.
//
// Leases: a batch takes the lease of the block being framed when it is
// emitted, the newest it holds text from, and keeps the blocks its documents
// point into, with their leases. The batch in progress holds none once a
// block is framed, so a file waiting for its next block never holds a token
// back from the read node that has to read that block: at a block's end a
// batch in progress of more than half of `batch_bytes` is emitted as it
// stands, and a smaller one's text is copied out of the block (the docid
// step packs such small batches anyway: small_batch.hpp). That small
// batch's text is the only text copied besides straddling records (a block
// of text holds about two batches, so its second one usually ends with it
// and is emitted there; when batches were always filled to `batch_bytes`,
// about a quarter of all text was copied at blocks' ends).
class FileFramer {
public:
    FileFramer(const InputFile& file, const AnalysisSettings& settings, uint64_t batch_bytes);

    // `text` is the file's next block (in file_block order); its lease is
    // what emitted batches hold.
    void take(const std::shared_ptr<const TextBlock>& text, const EmitFileBatch& emit);

    bool ended() const { return ended_; }

private:
    void add(const FramedRecord& record, const std::shared_ptr<const TextBlock>& text, const EmitFileBatch& emit);
    void emit_batch(bool file_end, const Lease& lease, const EmitFileBatch& emit);

    const InputFile& file_;
    const AnalysisSettings& settings_;
    const uint64_t batch_bytes_;
    std::unique_ptr<Framer> framer_;
    std::string entry_name_;
    std::shared_ptr<DocBatch> batch_ = std::make_shared<DocBatch>();
    uint64_t next_batch_ = 0;
    bool ended_ = false;
};

}  // namespace invidx
