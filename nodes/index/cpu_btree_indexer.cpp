#include "nodes/index/cpu_btree_indexer.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "invidx/error.hpp"
#include "nodes/index/batch_checks.hpp"

namespace invidx {

namespace {

ErrorContext index_context() {
    return ErrorContext{.node = "index", .file = {}, .record = {}, .byte_offset = {}};
}

}  // namespace

CpuBtreeIndexer::CpuBtreeIndexer(uint32_t indexer_id, std::vector<bool> owned, bool positional)
    : indexer_id_(indexer_id), owned_(std::move(owned)), positional_(positional) {
    ensure(owned_.size() == kCollections,
           "indexer " + std::to_string(indexer_id) + ": ownership table has " +
               std::to_string(owned_.size()) + " entries, expected " + std::to_string(kCollections),
           index_context());
    dictionaries_.resize(kCollections);
}

void CpuBtreeIndexer::index(const RegroupedBatch& batch) {
    for (const CollectionSlice& slice : batch.slices) {
        check_slice(batch, slice);
        if (!owns(slice.collection)) continue;
        index_slice(batch, slice);
    }
}

void CpuBtreeIndexer::index_slice(const RegroupedBatch& batch, const CollectionSlice& slice) {
    const uint32_t collection = slice.collection;
    const std::string prefix = collection_prefix(collection);
    auto& dictionary = dictionaries_[collection];
    if (!dictionary) dictionary = std::make_unique<BTreeDictionary>();

    for (uint32_t i = slice.begin; i < slice.end; ++i) {
        const TermOccurrence& occurrence = batch.occurrences[i];
        std::string_view term;
        const uint32_t docid32 = check_occurrence(batch, slice, i, prefix, positional_, term);
        const auto at = [docid32] { return "docid " + std::to_string(docid32) + ": "; };

        // Prefix collections store the key without the three bytes the trie
        // already encodes (§III.B.1).
        const std::string_view key = term.substr(prefix.size());
        const uint64_t h = TermIdCache::hash(collection, key);
        uint32_t id = recent_terms_.find(collection, key, h);
        bool inserted = false;
        if (id == TermIdCache::kMiss) {
            id = dictionary->find_or_insert(key, static_cast<uint32_t>(terms_.size()), inserted);
            recent_terms_.remember(collection, key, h, id);
        }
        if (inserted) {
            if (terms_.size() >= kNone) [[unlikely]] {
                throw Error("indexer " + std::to_string(indexer_id_) + " has more than 2^32-1 terms",
                            index_context());
            }
            terms_.emplace_back();
            stats_.characters += key.size();
        }

        TermRecord& record = terms_[id];
        // The last-docid cache: a (term, document) pair seen again in the same
        // run (an input that was not merged per document) adds to the posting
        // instead of making a new one; end_run merges the two.
        const bool repeat = record.df > 0 && docid32 == record.last_docid;
        if (record.df > 0 && (docid32 < record.last_docid ||
                              (repeat && record.run_slot == kNone))) {
            fail_batch(batch, at() + "term '" + std::string(term) + "' already has a posting for docid " +
                            std::to_string(record.last_docid) +
                            "; batches must arrive in increasing docid order");
        }
        if (record.run_slot == kNone) {
            record.run_slot = static_cast<uint32_t>(run_terms_.size());
            run_terms_.push_back(id);
        }
        if (repeat) {
            run_has_repeats_ = true;
        } else {
            ++record.df;
            record.last_docid = docid32;
            ++stats_.postings;
        }
        record.cf += occurrence.tf;
        stats_.tokens += occurrence.tf;

        run_postings_.push_back(RunPosting{record.run_slot, docid32, occurrence.tf});
        if (positional_) {
            const auto first = batch.positions.begin() + occurrence.positions_offset;
            run_positions_.insert(run_positions_.end(), first, first + occurrence.tf);
        }
    }
}

RunPostings CpuBtreeIndexer::end_run(uint32_t run, uint32_t indexer_count, bool end_of_input) {
    ensure(!any_run_ended_ || run > last_run_,
           "indexer " + std::to_string(indexer_id_) + ": run " + std::to_string(run) +
               " ends after run " + std::to_string(last_run_) + "; runs must increase",
           index_context());

    RunPostings out;
    out.run = run;
    out.indexer = indexer_id_;
    out.indexer_count = indexer_count;
    out.positional = positional_;
    out.end_of_input = end_of_input;
    out.lists.resize(run_terms_.size());

    // A counting sort by slot: size every list first, then fill them in
    // arrival order, which is docid order within each slot.
    std::vector<uint32_t> postings_of(run_terms_.size(), 0);
    std::vector<uint64_t> positions_of(run_terms_.size(), 0);
    for (const RunPosting& posting : run_postings_) {
        ++postings_of[posting.slot];
        positions_of[posting.slot] += posting.tf;
    }
    for (uint32_t slot = 0; slot < out.lists.size(); ++slot) {
        TermRunList& list = out.lists[slot];
        list.slot = slot;
        list.docids.reserve(postings_of[slot]);
        list.tfs.reserve(postings_of[slot]);
        if (positional_) list.positions.reserve(positions_of[slot]);
    }

    // Without repeats (input merged per document, as the parse node's is)
    // no posting can continue the previous one: skip looking.
    const bool merge_repeats = run_has_repeats_;
    size_t position_cursor = 0;
    for (const RunPosting& posting : run_postings_) {
        TermRunList& list = out.lists[posting.slot];
        if (merge_repeats && !list.docids.empty() && list.docids.back() == posting.docid) {
            list.tfs.back() += posting.tf;
        } else {
            list.docids.push_back(posting.docid);
            list.tfs.push_back(posting.tf);
        }
        if (positional_) {
            const auto first = run_positions_.begin() + static_cast<std::ptrdiff_t>(position_cursor);
            list.positions.insert(list.positions.end(), first, first + posting.tf);
            position_cursor += posting.tf;
        }
    }

    // Merged repeats may have put one document's positions out of order.
    if (positional_ && run_has_repeats_) {
        for (TermRunList& list : out.lists) {
            auto first = list.positions.begin();
            for (const uint32_t tf : list.tfs) {
                std::sort(first, first + tf);
                first += tf;
            }
        }
    }

    for (uint32_t slot = 0; slot < run_terms_.size(); ++slot) {
        TermRecord& term = terms_[run_terms_[slot]];
        refs_.append(term.refs, PartialListRef{.run = run, .indexer = indexer_id_, .slot = slot}, indexer_id_);
        term.run_slot = kNone;
    }

    run_postings_.clear();
    run_positions_.clear();
    run_terms_.clear();
    run_has_repeats_ = false;
    last_run_ = run;
    any_run_ended_ = true;
    return out;
}

std::vector<DictionaryTerm> CpuBtreeIndexer::export_terms() const {
    std::vector<DictionaryTerm> out;
    out.reserve(terms_.size());
    for (uint32_t collection = 0; collection < kCollections; ++collection) {
        const auto& dictionary = dictionaries_[collection];
        if (!dictionary) continue;
        const std::string prefix = collection_prefix(collection);
        dictionary->for_each_in_order([&](std::string_view key, uint32_t id) {
            const TermRecord& record = terms_[id];
            out.push_back(refs_.exported_term(prefix, key, collection, record.df, record.cf, record.refs));
        });
    }
    return out;
}

CpuBtreeIndexer::Stats CpuBtreeIndexer::stats() const {
    Stats out = stats_;
    out.terms = terms_.size();
    return out;
}

size_t CpuBtreeIndexer::memory_bytes() const {
    size_t bytes = terms_.capacity() * sizeof(TermRecord) + refs_.memory_bytes() +
                   run_postings_.capacity() * sizeof(RunPosting) +
                   (run_positions_.capacity() + run_terms_.capacity()) * sizeof(uint32_t) +
                   dictionaries_.capacity() * sizeof(dictionaries_[0]) + recent_terms_.memory_bytes();
    for (const auto& dictionary : dictionaries_) {
        if (dictionary) bytes += sizeof(BTreeDictionary) + dictionary->memory_bytes();
    }
    return bytes;
}

}  // namespace invidx
