#include "nodes/parse/gpu_parse_batch.hpp"

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

#include "invidx/error.hpp"

namespace invidx {

// The GPU analysis result's terms are copied as TermOccurrences.
using BatchTerm = GpuAnalysisResult::Term;
static_assert(sizeof(BatchTerm) == sizeof(TermOccurrence) && std::is_trivially_copyable_v<BatchTerm> &&
              std::is_trivially_copyable_v<TermOccurrence>);
static_assert(offsetof(BatchTerm, local_docid) == offsetof(TermOccurrence, local_docid) &&
              offsetof(BatchTerm, collection) == offsetof(TermOccurrence, collection) &&
              offsetof(BatchTerm, term_offset) == offsetof(TermOccurrence, term_offset) &&
              offsetof(BatchTerm, term_length) == offsetof(TermOccurrence, term_length) &&
              offsetof(BatchTerm, tf) == offsetof(TermOccurrence, tf) &&
              offsetof(BatchTerm, positions_offset) == offsetof(TermOccurrence, positions_offset));

namespace {

// Documents joined into one piece when the bytes between them are at most
// this many: a piece costs the analyzer a copy call, a byte between two
// documents one more byte over PCIe and through pass 1.
constexpr uint64_t kMaxBytesBetween = 64 * 1024;

// The bytes a document's text_offset counts in.
std::string_view source_bytes(const DocBatch& batch, const DocRecord& doc) {
    return doc.source == kOwnText ? std::string_view(batch.text) : std::string_view(batch.sources[doc.source]->bytes);
}

// Lays documents out as GpuAnalysisInput::pieces, joining runs (above).
class PieceRuns {
public:
    explicit PieceRuns(GpuAnalysisInput& input) : input_(input) {}

    // A document of `length` bytes at `offset` of `bytes` (its source's).
    void add(std::string_view bytes, uint32_t source, uint64_t offset, uint64_t length) {
        if (length == 0) {
            input_.offsets.push_back(laid_);
            input_.lengths.push_back(0);
            return;
        }
        const bool joins = open_ && source == source_ && bytes.data() == bytes_.data() && offset >= end_ &&
                           offset - end_ <= kMaxBytesBetween;
        if (!joins) {
            finish();
            open_ = true;
            source_ = source;
            bytes_ = bytes;
            begin_ = offset;
            base_ = laid_;
        }
        end_ = offset + length;
        input_.offsets.push_back(base_ + (offset - begin_));
        input_.lengths.push_back(static_cast<uint32_t>(length));
        laid_ = base_ + (end_ - begin_);
    }

    void finish() {
        if (!open_) return;
        input_.pieces.push_back(bytes_.substr(begin_, end_ - begin_));
        open_ = false;
    }

private:
    GpuAnalysisInput& input_;
    bool open_ = false;
    uint32_t source_ = 0;
    std::string_view bytes_;
    uint64_t begin_ = 0, end_ = 0;  // the open piece, in its source's bytes
    uint64_t base_ = 0;             // where the open piece starts in the laid-out text
    uint64_t laid_ = 0;             // bytes laid out so far, the open piece's included
};

}  // namespace

GpuAnalysisInput gpu_analysis_input(const DocBatch& batch, const AnalysisSettings& settings) {
    GpuAnalysisInput input;
    const size_t documents = batch.docs.size();
    input.offsets.reserve(documents);
    input.lengths.reserve(documents);
    input.html.reserve(documents);
    // The device takes one buffer of documents in increasing, disjoint
    // ranges. A batch whose text is its own, in order, goes as that text.
    // Otherwise its documents point into the decompressed blocks they came
    // from (or lie out of order in its text), and go as pieces: each run of
    // documents that follow one another in one block is one piece, with
    // the bytes between them (a WARC record's headers), so the analyzer
    // copies a block's text in one piece, straight from the block where it
    // is page-locked. An empty document may sit anywhere: it is given the
    // end of the one before.
    bool in_order = batch.sources.empty();
    uint64_t end = 0;
    for (const DocRecord& doc : batch.docs) {
        if (!in_order) break;
        if (doc.text_length == 0) continue;
        in_order = doc.source == kOwnText && doc.text_offset >= end;
        end = uint64_t{doc.text_offset} + doc.text_length;
    }
    if (in_order) {
        input.text = batch.text;
        end = 0;
        for (const DocRecord& doc : batch.docs) {
            const uint64_t offset = doc.text_length == 0 ? end : doc.text_offset;
            input.offsets.push_back(offset);
            input.lengths.push_back(doc.text_length);
            input.html.push_back(doc.html ? 1 : 0);
            end = offset + doc.text_length;
        }
    } else {
        PieceRuns runs(input);
        for (const DocRecord& doc : batch.docs) {
            runs.add(doc.text_length == 0 ? std::string_view() : source_bytes(batch, doc), doc.source,
                     doc.text_offset, doc.text_length);
            input.html.push_back(doc.html ? 1 : 0);
        }
        runs.finish();
    }
    input.stopwords = settings.stopwords;
    input.stemmer = gpu_stemmer_named(settings.stemmer);
    input.positional = settings.positions;
    return input;
}

ParsedBatch parsed_batch_from(const DocBatch& batch, GpuAnalysisResult&& result, bool positional) {
    const size_t documents = batch.docs.size();
    ensure(result.documents() == documents && result.term_begin.size() == documents + 1,
           "a GPU parser returned " + std::to_string(result.documents()) + " documents for a batch of " +
               std::to_string(documents));
    ensure(result.bytes.size() <= UINT32_MAX && result.positions.size() <= UINT32_MAX,
           "a parsed batch's terms or positions exceed 2^32 - 1 entries");
    ParsedBatch out;
    out.sequence = batch.sequence;
    out.first_docid = batch.first_docid;
    out.end_of_input = batch.end_of_input;
    out.lease = batch.lease;
    out.docs.reserve(documents);
    // The result is in the batch's own layout, its terms TermOccurrences
    // field for field: one bulk copy, no work per term.
    out.occurrences.resize(result.terms.size());
    if (!result.terms.empty())
        std::memcpy(out.occurrences.data(), result.terms.data(), result.terms.size() * sizeof(TermOccurrence));
    for (size_t local = 0; local < documents; ++local) {
        const DocRecord& doc = batch.docs[local];
        out.docs.push_back(ParsedDoc{doc.name, result.lengths[local], doc.file_ordinal, doc.source_offset});
        out.text_bytes += doc.text_length;
        out.tokens += result.tokens[local];
    }
    out.terms = std::move(result.bytes);
    if (positional) out.positions = std::move(result.positions);
    out.resident = std::move(result.resident);
    return out;
}

ParsedBatch parse_batch_with(GpuBatchAnalyzer& analyzer, const DocBatch& batch, const AnalysisSettings& settings,
                             const uint8_t* keep_on_device) {
    GpuAnalysisInput input = gpu_analysis_input(batch, settings);
    input.keep_on_device = keep_on_device;
    return parsed_batch_from(batch, analyzer.analyze(input), settings.positions);
}

}  // namespace invidx
