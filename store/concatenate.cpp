#include "store/concatenate.hpp"

#include <memory>
#include <string_view>

#include "invidx/error.hpp"
#include "store/index_reader.hpp"
#include "store/run_list.hpp"

namespace invidx {
namespace {

// Documents are handed to the writer in batches: names of big parts do not
// all fit in memory at once.
constexpr size_t kDocumentBatch = 4096;

void append_documents(const IndexReader& part, uint32_t first_file, IndexWriter& writer) {
    std::vector<ParsedDoc> batch;
    for (uint64_t docid = 0; docid < part.num_documents(); ++docid) {
        auto doc = part.document(static_cast<uint32_t>(docid));
        batch.push_back(ParsedDoc{.name = std::move(doc.name), .length = doc.length,
                                  .file_ordinal = doc.file_ordinal + first_file, .source_offset = doc.source_offset});
        if (batch.size() == kDocumentBatch) {
            writer.append_documents(batch);
            batch.clear();
        }
    }
    writer.append_documents(batch);
}

// The part's postings as one run with one part (indexer 0), slot i = term i,
// docids shifted by `first_docid`.
void write_part_run(const IndexReader& part, uint64_t first_docid, uint32_t run, IndexWriter& writer) {
    CompressedRun out;
    out.run = run;
    out.indexer_count = 1;
    for (uint64_t i = 0; i < part.term_count(); ++i) {
        auto list = part.postings(i);
        for (auto& docid : list.docids) {
            const uint64_t shifted = docid + first_docid;
            ensure(shifted <= UINT32_MAX, "a docid of the joined index exceeds 2^32-1");
            docid = static_cast<uint32_t>(shifted);
        }
        const TermRunList shifted{.slot = static_cast<uint32_t>(i), .docids = std::move(list.docids),
                                  .tfs = std::move(list.tfs), .positions = std::move(list.positions)};
        out.list_offsets.push_back(out.bytes.size());
        out.list_counts.push_back(static_cast<uint32_t>(shifted.docids.size()));
        out.postings += shifted.docids.size();
        run_list::encode(shifted, part.positional(), out.bytes);
    }
    out.list_offsets.push_back(out.bytes.size());
    std::vector<CompressedRun> parts;
    parts.push_back(std::move(out));
    writer.write_run(run, std::move(parts));
}

// Every part's dictionary merged: a term's lists in part order (its run).
std::vector<DictionaryTerm> merge_dictionaries(const std::vector<std::unique_ptr<IndexReader>>& readers,
                                               const std::vector<ConcatenatedPart>& parts) {
    std::vector<uint64_t> next(readers.size(), 0);
    std::vector<DictionaryTerm> terms;
    for (;;) {
        // The smallest next term over all parts (few parts: a linear scan).
        std::string_view smallest;
        bool any = false;
        for (size_t p = 0; p < readers.size(); ++p) {
            if (next[p] >= readers[p]->term_count()) continue;
            const std::string_view term = readers[p]->term(next[p]).term;
            if (!any || term < smallest) smallest = term, any = true;
        }
        if (!any) return terms;
        DictionaryTerm merged{.term = std::string(smallest), .collection = 0, .df = 0, .cf = 0, .lists = {}};
        for (size_t p = 0; p < readers.size(); ++p) {
            if (next[p] >= readers[p]->term_count()) continue;
            const TermInfo info = readers[p]->term(next[p]);
            if (info.term != merged.term) continue;
            merged.collection = info.collection;
            merged.df += info.df;
            merged.cf += info.cf;
            merged.lists.push_back(PartialListRef{.run = parts[p].run, .indexer = 0, .slot = static_cast<uint32_t>(next[p])});
            ++next[p];
        }
        terms.push_back(std::move(merged));
    }
}

}  // namespace

ConcatenatedIndex concatenate_indexes(const std::vector<IndexPart>& parts, IndexWriter& writer) {
    std::vector<std::unique_ptr<IndexReader>> readers;
    std::vector<ConcatenatedPart> result(parts.size());
    uint64_t documents = 0;
    uint32_t runs = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
        readers.push_back(std::make_unique<IndexReader>(parts[p].directory));
        const IndexReader& part = *readers.back();
        if (p > 0) {
            const IndexReader& first = *readers.front();
            ensure(part.positional() == first.positional() && part.analysis() == first.analysis(),
                   "index part " + parts[p].directory.string() + " was built with other analysis settings than " +
                       parts[0].directory.string());
        }
        ConcatenatedPart& out = result[p];
        out.first_docid = documents;
        out.documents = part.num_documents();
        out.terms = part.term_count();
        out.postings = part.num_postings();
        append_documents(part, parts[p].first_file, writer);
        if (part.term_count() > 0) {
            out.has_run = true;
            out.run = runs++;
            write_part_run(part, documents, out.run, writer);
        }
        documents += part.num_documents();
    }
    std::vector<DictionaryTerm> dictionary = merge_dictionaries(readers, result);
    ConcatenatedIndex joined{.parts = result, .documents = documents, .terms = dictionary.size(), .postings = 0};
    for (const auto& part : result) joined.postings += part.postings;
    writer.write_dictionary(std::move(dictionary));
    return joined;
}

}  // namespace invidx
