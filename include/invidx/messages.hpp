// The messages that flow between nodes, in pipeline order:
//   read -> RawBlock -> decompress -> TextBlock -> frame -> DocBatch -> parse
//   -> ParsedBatch -> regroup -> RegroupedBatch -> index -> RunPostings
//   -> compress -> CompressedRun -> flush
// Messages travel as shared_ptr<const T> so the flow graph copies pointers,
// never payloads. Every message holds the Lease of the read block it came
// from: when the last holder is gone, the engine's token returns, which is
// what bounds memory (a fixed number of blocks in flight, any input size).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/collections.hpp"

namespace invidx {

struct ResidentTerms;  // invidx/resident_terms.hpp

// A token of the engine's limiter, returned when the last copy is destroyed.
using Lease = std::shared_ptr<void>;

// One input file after path expansion, in the collection's sorted order.
struct InputFile {
    uint32_t ordinal = 0;       // position in the sorted file list
    std::string path;           // as opened
    std::string name;           // relative to its input root (text docs use it)
    std::string format;         // a name of the input format table (invidx/input_format.hpp)
    uint64_t size_bytes = 0;    // on disk (compressed)
};

// Compressed bytes of one file, read in order (nodes/read).
struct RawBlock {
    uint64_t sequence = 0;      // 0,1,2,... over all files: serial nodes restore this order
    uint32_t file_ordinal = 0;
    uint64_t file_offset = 0;   // of bytes[0] in the file on disk
    std::vector<char> bytes;
    bool first = false;         // first block of the file
    bool last = false;          // last block of the file
    bool end_of_input = false;  // sentinel after the last file; no bytes
    Lease lease;
};

struct DeviceText;  // below: a block's bytes also in a GPU's memory

// Decompressed bytes of one entry of a file (nodes/decompress). A plain or
// compressed file is a single entry named after the file; tar/zip archives
// give one entry per regular member, in archive order.
// Order: several files may be decoded at once, so blocks are ordered by
// (file_ordinal, file_block): each file's blocks in order by file_block, and
// files in ordinal order where the collection's order matters (the frame
// node's docid step, graph/in_order.hpp FileOrder).
// Every file ends with exactly one file_end block, an empty marker (no bytes,
// neither entry_begin nor entry_end) when its last text was already sent or
// it had none; the end_of_input sentinel is keyed (number of files, 0).
struct TextBlock {
    uint32_t file_ordinal = 0;  // the sentinel's is the number of files
    uint64_t file_block = 0;    // 0,1,2,... within the file
    bool file_end = false;      // the file's last block
    uint32_t entry_index = 0;
    std::string entry_name;     // file name, or "archive.tar!member/path"
    uint64_t entry_offset = 0;  // of bytes[0] in the decompressed entry
    std::string bytes;
    bool entry_begin = false;
    bool entry_end = false;
    bool end_of_input = false;  // sentinel; no bytes
    Lease lease;
    // Where a GPU inflated this block's text: which of its bytes are also
    // in that GPU's memory (a GPU parser there copies them on the device
    // instead of uploading them again); null otherwise.
    std::shared_ptr<const DeviceText> device_text;
};

// Bytes of a TextBlock that are also in a GPU's memory: the text of the
// gzip members a GPU inflated, left there by its inflater
// (nodes/decompress/chunk_batch.hpp); a long member the CPU inflated (a
// hole) lies between spans. Holds the inflater's device buffer until the
// last block pointing into it goes.
struct DeviceText {
    struct Span {
        uint64_t begin = 0;           // bytes [begin, end) of the block...
        uint64_t end = 0;
        const char* address = nullptr;  // ...are here, in the device's memory
    };
    int device = -1;
    std::shared_ptr<const char> buffer;
    std::vector<Span> spans;  // increasing, disjoint

    // The device address of the block's bytes [offset, offset + length),
    // or null where they are not all in one span.
    const char* address_of(uint64_t offset, uint64_t length) const {
        for (const Span& span : spans) {
            if (offset < span.begin) return nullptr;
            if (offset + length <= span.end) return span.address + (offset - span.begin);
        }
        return nullptr;
    }
};

// DocRecord::source of a document whose text is in DocBatch::text.
inline constexpr uint32_t kOwnText = UINT32_MAX;

// One document as framed from its container format (nodes/frame/<format>).
struct DocRecord {
    std::string name;           // WARC-TREC-ID / WARC-Record-ID / DOCNO / id / path
    uint32_t source = kOwnText; // index into DocBatch::sources, or kOwnText: DocBatch::text
    uint32_t text_offset = 0;   // into that source's bytes
    uint32_t text_length = 0;
    bool html = false;          // apply CONTENT.md §3 before tokenizing
    uint32_t file_ordinal = 0;
    uint64_t source_offset = 0; // byte offset of the record in the decompressed entry
    uint64_t record_number = 0; // 0-based record number in the entry
    std::string metadata;       // JSONL: the record's other fields as a JSON object's text; else empty
};

// Consecutive documents with their docids, in input order (nodes/frame).
// A document's text is not copied when it lies whole in one decompressed
// block: it points into the block, which the batch keeps alive (and with
// it the block's lease) until the batch is parsed. Text that straddled
// blocks, that the framer rewrote (JSON escapes), or that waited in a batch
// for the next block is copied into `text`.
struct DocBatch {
    uint64_t sequence = 0;      // 0,1,2,... : order restored after parallel nodes
    uint64_t first_docid = 0;   // docid of docs[0]
    std::vector<DocRecord> docs;
    std::string text;           // copied bodies, back to back
    std::vector<std::shared_ptr<const TextBlock>> sources;  // the blocks docs point into
    uint64_t text_bytes = 0;    // sum of the docs' text_length
    std::vector<std::string> entry_names;  // per distinct entry in this batch
    bool end_of_input = false;  // the last batch; may hold no docs
    Lease lease;
    // For the report: when its framer let it go, and when the docid step
    // numbered it (its wait for the collection's order, then for a parser).
    std::chrono::steady_clock::time_point framed_at{}, numbered_at{};

    std::string_view text_of(const DocRecord& doc) const {
        const std::string& bytes = doc.source == kOwnText ? text : sources[doc.source]->bytes;
        return std::string_view(bytes).substr(doc.text_offset, doc.text_length);
    }

    // Copies the text of every document that points into a block into
    // `text`, and lets the blocks go: for a batch that must hold no lease.
    void own_all_text() {
        if (sources.empty()) return;
        for (DocRecord& doc : docs) {
            if (doc.source == kOwnText) continue;
            const std::string_view body = text_of(doc);
            doc.source = kOwnText;
            doc.text_offset = static_cast<uint32_t>(text.size());
            text.append(body);
        }
        sources.clear();
    }
};

// Per-document analysis result (nodes/parse): unique terms with tf.
struct TermOccurrence {
    uint32_t local_docid = 0;   // index into ParsedBatch::docs
    uint32_t collection = 0;    // CONTENT.md §8 collection of the term
    uint32_t term_offset = 0;   // full term bytes in ParsedBatch::terms
    uint32_t term_length = 0;
    uint32_t tf = 0;
    uint32_t positions_offset = 0;  // tf positions in ParsedBatch::positions (if positional)
};

struct ParsedDoc {
    std::string name;
    uint32_t length = 0;        // sum of tf (CONTENT.md §7)
    uint32_t file_ordinal = 0;
    uint64_t source_offset = 0;
};

struct ParsedBatch {
    uint64_t sequence = 0;
    uint64_t first_docid = 0;
    std::vector<ParsedDoc> docs;
    std::vector<TermOccurrence> occurrences;  // grouped by document, docs in order
    std::string terms;                        // term bytes arena
    std::vector<uint32_t> positions;          // empty unless positional
    uint64_t text_bytes = 0;                  // uncompressed input bytes of these docs
    uint64_t tokens = 0;                      // kept tokens (stopwords included)
    bool end_of_input = false;
    // Set by a GPU parser: the terms of a GPU indexer's collections, left on
    // its device and so not in `occurrences` (invidx/resident_terms.hpp).
    std::shared_ptr<const ResidentTerms> resident;
    Lease lease;
};

// ParsedBatch regrouped by collection (nodes/regroup, Wei & JaJa Step 5):
// occurrences sorted by (collection, local docid); slices index them.
struct CollectionSlice {
    uint32_t collection = 0;
    uint32_t begin = 0;         // into RegroupedBatch::occurrences
    uint32_t end = 0;
    uint64_t tokens = 0;        // sum of tf in this slice
};

struct RegroupedBatch {
    uint64_t sequence = 0;
    uint64_t first_docid = 0;
    std::vector<ParsedDoc> docs;
    std::vector<TermOccurrence> occurrences;
    std::vector<CollectionSlice> slices;  // increasing collection, non-empty only
    std::string terms;
    std::vector<uint32_t> positions;
    uint64_t text_bytes = 0;
    uint64_t tokens = 0;
    bool end_of_input = false;
    std::shared_ptr<const ResidentTerms> resident;  // as ParsedBatch's
    Lease lease;
};

// The postings one indexer accumulated in one run, term by term (slot order).
// Slot s of (run, indexer) is what the dictionary's partial-list pointer names.
struct TermRunList {
    uint32_t slot = 0;
    std::vector<uint32_t> docids;       // increasing
    std::vector<uint32_t> tfs;
    std::vector<uint32_t> positions;    // tf[i] positions per posting, concatenated (positional only)
};

struct RunPostings {
    uint32_t run = 0;
    uint32_t indexer = 0;
    uint32_t indexer_count = 0;         // how many parts make the run complete
    std::vector<TermRunList> lists;     // lists[i].slot == i
    bool positional = false;
    bool end_of_input = false;          // run is the last one
    std::vector<ParsedDoc> documents;   // the run's documents, in docid order (indexer 0's part only)
};

// RunPostings encoded by nodes/compress: lists back to back.
struct CompressedRun {
    uint32_t run = 0;
    uint32_t indexer = 0;
    uint32_t indexer_count = 0;
    std::vector<uint64_t> list_offsets; // size lists+1, into bytes
    std::vector<uint32_t> list_counts;  // postings per list
    std::string bytes;
    uint64_t postings = 0;
    bool end_of_input = false;
    std::vector<ParsedDoc> documents;   // as in RunPostings
};

}  // namespace invidx

namespace invidx {

// Where one partial postings list of a term lies: slot `slot` of the part
// that indexer `indexer` wrote into run file `run` (Wei & JaJa §III.F: the
// dictionary's pointer indexes the run file's header mapping table).
struct PartialListRef {
    uint32_t run = 0;
    uint32_t indexer = 0;
    uint32_t slot = 0;
};

// One term of the final dictionary, as an indexer exports it.
struct DictionaryTerm {
    std::string term;                   // full term bytes (collection prefix restored)
    uint32_t collection = 0;
    uint64_t df = 0;
    uint64_t cf = 0;
    std::vector<PartialListRef> lists;  // in run order
};

}  // namespace invidx
