#include "nodes/index/gpu_indexer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string_view>

#include "invidx/error.hpp"
#include "nodes/index/batch_checks.hpp"

namespace invidx {

namespace {

ErrorContext index_context() {
    return ErrorContext{.node = "index", .file = {}, .record = {}, .byte_offset = {}};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* algorithm_name(GpuDictionaryAlgorithm algorithm) {
    return algorithm == GpuDictionaryAlgorithm::hash ? "hash" : "btree";
}

}  // namespace

GpuIndexer::GpuIndexer(uint32_t indexer_id, std::vector<bool> owned, bool positional, GpuTermIndexerOptions options)
    : indexer_id_(indexer_id), owned_(std::move(owned)), positional_(positional),
      algorithm_(algorithm_name(options.algorithm)) {
    ensure(owned_.size() == kCollections,
           "indexer " + std::to_string(indexer_id) + ": ownership table has " + std::to_string(owned_.size()) +
               " entries, expected " + std::to_string(kCollections),
           index_context());
    options.keep_occurrence_order = positional_;
    device_ = create_gpu_term_indexer(options);
}

void GpuIndexer::index(const RegroupedBatch& batch) {
    const auto start = std::chrono::steady_clock::now();
    if (batch.first_docid < next_docid_) {
        fail_batch(batch, "starts at docid " + std::to_string(batch.first_docid) + ", before docid " +
                              std::to_string(next_docid_) + " of the batch before; batches must arrive in "
                              "increasing docid order");
    }
    next_docid_ = batch.first_docid + batch.docs.size();
    for (const CollectionSlice& slice : batch.slices) {
        check_slice(batch, slice);
        if (owns(slice.collection)) stage(batch, slice);
    }
    // Large enough to be worth a launch: let the device start while the
    // next batches are packed into the other staging buffer.
    GpuStaging& staging = device_->staging();
    if (staging.occurrences * 2 >= staging.occurrence_capacity) device_->submit();
    stage_seconds_ += seconds_since(start);
}

void GpuIndexer::stage(const RegroupedBatch& batch, const CollectionSlice& slice) {
    const std::string prefix = collection_prefix(slice.collection);
    GpuStaging* staging = &device_->staging();
    for (uint32_t i = slice.begin; i < slice.end; ++i) {
        std::string_view term;
        const uint32_t docid = check_occurrence(batch, slice, i, prefix, positional_, term);
        const TermOccurrence& occurrence = batch.occurrences[i];
        // Prefix collections keep keys without the three bytes the trie
        // already encodes (§III.B.1), as the CPU indexer does.
        const std::string_view key = term.substr(prefix.size());
        if (staging->occurrences == staging->occurrence_capacity ||
            staging->key_bytes_used + key.size() > staging->key_byte_capacity) {
            device_->submit();
            staging = &device_->staging();
        }
        const size_t k = staging->occurrences++;
        std::memcpy(staging->key_bytes + staging->key_bytes_used, key.data(), key.size());
        staging->key_offsets[k] = static_cast<uint32_t>(staging->key_bytes_used);
        staging->key_lengths[k] = static_cast<uint8_t>(key.size());
        staging->collections[k] = static_cast<uint16_t>(slice.collection);
        staging->docids[k] = docid;
        staging->tfs[k] = occurrence.tf;
        staging->key_bytes_used += key.size();
        stats_.tokens += occurrence.tf;
        if (positional_) {
            run_position_starts_.push_back(run_positions_.size());
            const auto first = batch.positions.begin() + occurrence.positions_offset;
            run_positions_.insert(run_positions_.end(), first, first + occurrence.tf);
        }
    }
}

void GpuIndexer::add_ref(TermRecord& term, const PartialListRef& ref) {
    ensure(refs_.size() < kNone,
           "indexer " + std::to_string(indexer_id_) + " has more than 2^32-1 partial lists", index_context());
    const auto node = static_cast<uint32_t>(refs_.size());
    refs_.push_back(RefNode{ref, kNone});
    if (term.last_ref == kNone) {
        term.first_ref = node;
    } else {
        refs_[term.last_ref].next = node;
    }
    term.last_ref = node;
}

RunPostings GpuIndexer::end_run(uint32_t run, uint32_t indexer_count, bool end_of_input) {
    ensure(!any_run_ended_ || run > last_run_,
           "indexer " + std::to_string(indexer_id_) + ": run " + std::to_string(run) + " ends after run " +
               std::to_string(last_run_) + "; runs must increase",
           index_context());
    const auto close_start = std::chrono::steady_clock::now();
    const GpuRunPostings sorted = device_->close_run();
    close_run_seconds_ += seconds_since(close_start);
    terms_.resize(device_->terms());

    RunPostings out;
    out.run = run;
    out.indexer = indexer_id_;
    out.indexer_count = indexer_count;
    out.positional = positional_;
    out.end_of_input = end_of_input;

    // Postings come sorted by term id, each term's in arrival (docid) order:
    // one sequential pass finds each term's stretch, and the stretch is
    // copied in bulk unless a document repeats (an input that was not merged
    // per document), which is then merged posting by posting.
    const auto lists_start = std::chrono::steady_clock::now();
    const uint32_t* ids = sorted.term_ids;
    const uint32_t* docids = sorted.docids;
    const uint32_t* tfs = sorted.tfs;
    bool merged_repeat = false;
    uint32_t previous_id = kNone;
    for (size_t begin = 0; begin < sorted.count;) {
        const uint32_t id = ids[begin];
        ensure(id < terms_.size(),
               "device returned term id " + std::to_string(id) + " of " + std::to_string(terms_.size()),
               index_context());
        ensure(previous_id == kNone || id > previous_id, "device postings are not sorted by term", index_context());
        previous_id = id;
        size_t end = begin + 1;
        uint64_t cf = tfs[begin];
        bool repeats = false;
        for (; end < sorted.count && ids[end] == id; ++end) {
            cf += tfs[end];
            if (docids[end] <= docids[end - 1]) {
                ensure(docids[end] == docids[end - 1],
                       "device postings of term id " + std::to_string(id) + " are out of docid order: docid " +
                           std::to_string(docids[end]) + " after " + std::to_string(docids[end - 1]),
                       index_context());
                repeats = true;
            }
        }
        const auto slot = static_cast<uint32_t>(out.lists.size());
        TermRunList& list = out.lists.emplace_back();
        list.slot = slot;
        if (!repeats) {
            list.docids.assign(docids + begin, docids + end);
            list.tfs.assign(tfs + begin, tfs + end);
        } else {
            merged_repeat = true;
            for (size_t p = begin; p < end; ++p) {
                if (!list.docids.empty() && list.docids.back() == docids[p]) {
                    list.tfs.back() += tfs[p];
                } else {
                    list.docids.push_back(docids[p]);
                    list.tfs.push_back(tfs[p]);
                }
            }
        }
        if (positional_) {
            for (size_t p = begin; p < end; ++p) {
                const uint64_t start = run_position_starts_.at(sorted.occurrence_index[p]);
                list.positions.insert(list.positions.end(), run_positions_.begin() + static_cast<std::ptrdiff_t>(start),
                                      run_positions_.begin() + static_cast<std::ptrdiff_t>(start + tfs[p]));
            }
        }
        TermRecord& record = terms_[id];
        record.df += static_cast<uint32_t>(list.docids.size());
        record.cf += cf;
        stats_.postings += list.docids.size();
        add_ref(record, PartialListRef{.run = run, .indexer = indexer_id_, .slot = slot});
        begin = end;
    }
    if (positional_ && merged_repeat) {
        for (TermRunList& run_list : out.lists) {
            auto first = run_list.positions.begin();
            for (const uint32_t tf : run_list.tfs) {
                std::sort(first, first + tf);
                first += tf;
            }
        }
    }
    lists_seconds_ += seconds_since(lists_start);

    run_position_starts_.clear();
    run_positions_.clear();
    last_run_ = run;
    any_run_ended_ = true;
    return out;
}

std::vector<DictionaryTerm> GpuIndexer::export_terms() const {
    const GpuExportedTerms keys = device_->export_terms();
    ensure(keys.key_offsets.size() == terms_.size(),
           "the device holds " + std::to_string(keys.key_offsets.size()) + " terms, the host " +
               std::to_string(terms_.size()),
           index_context());
    std::vector<DictionaryTerm> out;
    out.reserve(terms_.size());
    for (size_t id = 0; id < terms_.size(); ++id) {
        const TermRecord& record = terms_[id];
        DictionaryTerm term;
        term.collection = keys.collections[id];
        const std::string prefix = collection_prefix(term.collection);
        term.term.reserve(prefix.size() + keys.key_lengths[id]);
        term.term.append(prefix).append(keys.key_bytes.data() + keys.key_offsets[id], keys.key_lengths[id]);
        term.df = record.df;
        term.cf = record.cf;
        for (uint32_t ref = record.first_ref; ref != kNone; ref = refs_[ref].next) term.lists.push_back(refs_[ref].ref);
        out.push_back(std::move(term));
    }
    return out;
}

GpuIndexer::Stats GpuIndexer::stats() const {
    Stats out = stats_;
    const GpuTermIndexerStats device = device_->stats();
    out.terms = device.terms;
    out.characters = device.key_bytes;
    return out;
}

size_t GpuIndexer::memory_bytes() const {
    return terms_.capacity() * sizeof(TermRecord) + refs_.capacity() * sizeof(RefNode) +
           run_position_starts_.capacity() * sizeof(uint64_t) + run_positions_.capacity() * sizeof(uint32_t);
}

nlohmann::json GpuIndexer::extra_stats() const {
    const GpuTermIndexerStats device = device_->stats();
    return {{"gpu", device.device_name},
            {"gpu_algorithm", algorithm_},
            {"device_bytes", device.device_bytes},
            {"peak_device_bytes", device.peak_device_bytes},
            {"pinned_host_bytes", device.pinned_host_bytes},
            {"device_busy_seconds", device.device_busy_seconds},
            // Where the indexer's own thread spends its time (host side).
            {"host_stage_seconds", stage_seconds_},
            {"host_wait_seconds", device.host_wait_seconds},
            {"host_close_run_seconds", close_run_seconds_},
            {"host_lists_seconds", lists_seconds_},
            {"chunks", device.chunks}};
}

}  // namespace invidx
