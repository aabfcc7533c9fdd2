#include "store/concatenate.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <string_view>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/crc32.hpp"
#include "store/dictionary_pieces.hpp"
#include "store/durable_sync.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/run_adoption.hpp"
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

// Every part's dictionary merged term by term, in byte-wise order: a term's
// df and cf summed over the parts that hold it, and its lists appended part
// by part, in part order (so that they concatenate in increasing docids),
// by `add_lists(p, i, merged)` for term i of part p. Both joins read the
// parts' dictionaries this way; they differ only in where a part's lists go.
template <class AddLists>
std::vector<DictionaryTerm> merge_part_dictionaries(const std::vector<std::unique_ptr<IndexReader>>& readers,
                                                    AddLists&& add_lists) {
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
            add_lists(p, next[p], merged);
            ++next[p];
        }
        terms.push_back(std::move(merged));
    }
}

// merge_part_dictionaries over dictionaries in memory (each sorted, as its
// build wrote it): their terms moved out, lists renumbered by `renumbered`.
template <typename Renumbered>
std::vector<DictionaryTerm> merge_kept_dictionaries(const std::vector<SourcePart>& parts, Renumbered&& renumbered) {
    size_t total = 0;
    for (const auto& part : parts) total += part.dictionary->size();
    std::vector<DictionaryTerm> terms;
    terms.reserve(total);
    std::vector<size_t> next(parts.size(), 0);
    for (;;) {
        // The part with the smallest next term (few parts: a linear scan).
        size_t first = parts.size();
        for (size_t p = 0; p < parts.size(); ++p) {
            const auto& dictionary = *parts[p].dictionary;
            if (next[p] < dictionary.size() &&
                (first == parts.size() || dictionary[next[p]].term < (*parts[first].dictionary)[next[first]].term))
                first = p;
        }
        if (first == parts.size()) return terms;
        DictionaryTerm merged{.term = std::move((*parts[first].dictionary)[next[first]].term),
                              .collection = 0, .df = 0, .cf = 0, .lists = {}};
        for (size_t p = first; p < parts.size(); ++p) {
            auto& dictionary = *parts[p].dictionary;
            if (next[p] >= dictionary.size() || (p != first && dictionary[next[p]].term != merged.term)) continue;
            DictionaryTerm term = std::move(dictionary[next[p]++]);  // its memory goes as the merge goes
            merged.collection = term.collection;
            merged.df += term.df;
            merged.cf += term.cf;
            for (const auto& ref : term.lists) merged.lists.push_back(renumbered(p, ref, merged.term));
        }
        terms.push_back(std::move(merged));
    }
}

}  // namespace

std::vector<ConcatenatedPart> plan_parts(const std::vector<uint64_t>& documents) {
    std::vector<ConcatenatedPart> plan(documents.size());
    uint64_t first_docid = 0;
    for (size_t p = 0; p < plan.size(); ++p) {
        plan[p] = ConcatenatedPart{.first_docid = first_docid, .documents = documents[p]};
        first_docid += documents[p];
    }
    ensure(first_docid <= uint64_t{UINT32_MAX} + 1, "the joined index would hold more than 2^32 documents");
    return plan;
}

uint32_t count_part_runs(const std::vector<SourcePart>& parts) {
    uint64_t runs = 0;
    for (const auto& part : parts) runs += read_manifest(part.directory).runs.size();
    ensure(runs <= UINT32_MAX, "more than 2^32 runs");
    return static_cast<uint32_t>(runs);
}

OwnedTerms adopt_source_parts(const std::vector<SourcePart>& parts, uint32_t first_run, const std::filesystem::path& index_dir) {
    OwnedTerms owned;
    std::vector<std::vector<PartRun>> part_runs(parts.size());
    std::vector<uint32_t> part_first_run(parts.size());
    {
        std::vector<std::unique_ptr<IndexReader>> readers;
        // Each part's run numbers in the joined index, in (part, run) order.
        std::vector<std::map<uint32_t, uint32_t>> renumbered(parts.size());
        uint32_t next_run = first_run;
        for (size_t p = 0; p < parts.size(); ++p) {
            readers.push_back(std::make_unique<IndexReader>(parts[p].directory));
            const IndexReader& part = *readers.back();
            ensure(part.positional() == readers.front()->positional(),
                   "index part " + parts[p].directory.string() + " disagrees with " + parts.front().directory.string() +
                       " on positions");
            ensure(part.analysis() == readers.front()->analysis(),
                   "index part " + parts[p].directory.string() + " was built with other analysis settings than " +
                       parts.front().directory.string());
            ensure(part.manifest().run_docid_bases.empty(),
                   "index part " + parts[p].directory.string() + " has run docid bases of its own");
            part_first_run[p] = next_run;
            for (const uint32_t run : part.manifest().runs) {
                renumbered[p].emplace(run, next_run++);
                part_runs[p].push_back(PartRun{.part_run = run, .slots = part.run_slot_postings(run)});
            }
        }
        const auto renumbered_ref = [&](size_t p, PartialListRef ref, const std::string& term) {
            const auto found = renumbered[p].find(ref.run);
            if (found == renumbered[p].end()) {
                throw FormatError(readers[p]->display(layout::kDictionaryFile),
                                  "term '" + term + "' points at run " + std::to_string(ref.run) +
                                      ", which the part does not have");
            }
            ref.run = found->second;
            return ref;
        };
        // A part's lists keep their indexer and slot, their runs renumbered.
        if (std::all_of(parts.begin(), parts.end(), [](const SourcePart& part) { return part.dictionary != nullptr; })) {
            owned.dictionary = merge_kept_dictionaries(parts, renumbered_ref);
        } else {
            owned.dictionary = merge_part_dictionaries(readers, [&](size_t p, uint64_t term, DictionaryTerm& merged) {
                for (const auto& ref : readers[p]->partial_lists(term)) merged.lists.push_back(renumbered_ref(p, ref, merged.term));
            });
        }
    }
    // The parts are closed (their files unmapped) before their runs move.
    for (size_t p = 0; p < parts.size(); ++p) {
        auto runs = adopt_part_runs(parts[p].directory, part_runs[p], part_first_run[p], parts[p].first_docid, index_dir);
        owned.runs.insert(owned.runs.end(), std::make_move_iterator(runs.begin()), std::make_move_iterator(runs.end()));
    }
    std::vector<std::filesystem::path> moved;
    for (const auto& run : owned.runs) moved.push_back(index_dir / run.path);
    sync_files(moved);
    return owned;
}

void write_dictionary_part(const std::filesystem::path& path, const std::vector<DictionaryTerm>& terms) {
    // Scratch between ranks, read before publish: never synced.
    BinaryWriter out(path, SyncOnFinish::no);
    out.u64(terms.size());
    out.bytes(encode_dictionary_records(terms));  // records as dictionary.bin lays them out
    out.finish_with_crc();
}

std::vector<DictionaryTerm> read_dictionary_part(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    ensure(static_cast<bool>(in), "cannot open the dictionary part " + path.string());
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    BinaryReader reader(path.string(), bytes);
    if (bytes.size() < 12) reader.fail("terms", "the file is too short");
    BinaryReader trailer(path.string(), bytes, bytes.size() - 4);
    if (trailer.u32("crc32") != crc32(std::string_view(bytes).substr(0, bytes.size() - 4)))
        trailer.fail("crc32", "the checksum does not match the bytes");
    std::vector<DictionaryTerm> terms(reader.u64("terms"));
    for (auto& term : terms) {
        term.term = std::string(reader.string("term"));
        term.collection = reader.u32("collection");
        term.df = reader.u64("df");
        term.cf = reader.u64("cf");
        term.lists.resize(reader.u32("lists"));
        for (auto& list : term.lists) {
            list.run = reader.u32("run");
            list.indexer = reader.u32("indexer");
            list.slot = reader.u32("slot");
        }
    }
    if (reader.position() + 4 != reader.size()) reader.fail("crc32", "the file does not end after its terms");
    return terms;
}

void append_part_documents(const IndexReader& part, uint32_t first_file, IndexWriter& writer) {
    append_documents(part, first_file, writer);
}

}  // namespace invidx
