#include "nodes/index/gpu_indexer.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <utility>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "nodes/index/batch_checks.hpp"

namespace invidx {

namespace {

ErrorContext index_context() {
    return ErrorContext{.node = "index", .file = {}, .record = {}, .byte_offset = {}};
}

// Device failures (CUDA errors, occurrences the device refused: errors that
// name the device) are errors of the index node.
template <class Call>
decltype(auto) on_device(Call&& call) {
    try {
        return std::forward<Call>(call)();
    } catch (const Error& error) {
        throw error.with_defaults(index_context());
    } catch (const std::exception& error) {
        throw Error(error.what(), index_context());
    }
}

const char* algorithm_name(GpuDictionaryAlgorithm algorithm) {
    return algorithm == GpuDictionaryAlgorithm::hash ? "hash" : "btree";
}

}  // namespace

// The device reads the parsers' occurrences as they are.
static_assert(sizeof(GpuOccurrence) == sizeof(TermOccurrence));
static_assert(offsetof(GpuOccurrence, local_docid) == offsetof(TermOccurrence, local_docid));
static_assert(offsetof(GpuOccurrence, collection) == offsetof(TermOccurrence, collection));
static_assert(offsetof(GpuOccurrence, term_offset) == offsetof(TermOccurrence, term_offset));
static_assert(offsetof(GpuOccurrence, term_length) == offsetof(TermOccurrence, term_length));
static_assert(offsetof(GpuOccurrence, tf) == offsetof(TermOccurrence, tf));
static_assert(offsetof(GpuOccurrence, positions_offset) == offsetof(TermOccurrence, positions_offset));

GpuIndexer::GpuIndexer(uint32_t indexer_id, std::vector<bool> owned, bool positional, GpuTermIndexerOptions options)
    : indexer_id_(indexer_id), owned_(std::move(owned)), positional_(positional),
      algorithm_(algorithm_name(options.algorithm)) {
    ensure(owned_.size() == kCollections,
           "indexer " + std::to_string(indexer_id) + ": ownership table has " + std::to_string(owned_.size()) +
               " entries, expected " + std::to_string(kCollections),
           index_context());
    options.owned = owned_;
    options.positional = positional_;
    device_ordinal_ = options.device;
    options_ = std::move(options);
}

GpuTermIndexer& GpuIndexer::device() const {
    if (!device_) device_ = on_device([&] { return create_gpu_term_indexer(options_); });
    return *device_;
}

// Bulk copies only: the batch's term arena, then the owned slices'
// occurrences, which regrouping keeps together. Every occurrence is checked
// on the device (a bad one fails the build at the next synchronization,
// naming batch and docid).
void GpuIndexer::index(const RegroupedBatch& batch) {
    const auto start = std::chrono::steady_clock::now();
    if (batch.first_docid < next_docid_) {
        fail_batch(batch, "starts at docid " + std::to_string(batch.first_docid) + ", before docid " +
                              std::to_string(next_docid_) + " of the batch before; batches must arrive in "
                              "increasing docid order");
    }
    next_docid_ = batch.first_docid + batch.docs.size();
    if (batch.docs.size() > UINT32_MAX || batch.terms.size() > UINT32_MAX) {
        fail_batch(batch, "more than 2^32-1 documents or term bytes in one batch");
    }
    size_t owned_occurrences = 0;
    for (const CollectionSlice& slice : batch.slices) {
        check_slice(batch, slice);
        if (owns(slice.collection)) owned_occurrences += slice.end - slice.begin;
    }
    // A GPU parser of this device may have left this indexer's terms there
    // (the index node's route): then none of them is on the host.
    const ResidentTerms* resident =
        batch.resident && batch.resident->device == device_ordinal_ ? batch.resident.get() : nullptr;
    if (resident) {
        if (owned_occurrences != 0)
            fail_batch(batch, "has this GPU indexer's terms both on its device and on the host");
        if (resident->arena_bytes != batch.terms.size())
            fail_batch(batch, "its term bytes on the device (" + std::to_string(resident->arena_bytes) +
                                  ") differ from the host's (" + std::to_string(batch.terms.size()) + ")");
        owned_occurrences = resident->count;
        ++resident_batches_;
    }
    if (owned_occurrences > 0) {
        GpuStaging& staging =
            on_device([&]() -> GpuStaging& { return device().staging(owned_occurrences, batch.terms.size()); });
        GpuStagedBatch& staged = staging.batches[staging.batch_count++];
        staged.sequence = batch.sequence;
        staged.first_docid = batch.first_docid;
        staged.terms_base = staging.terms_used;
        staged.positions_base = run_positions_.size();
        staged.occurrence_begin = static_cast<uint32_t>(staging.occurrence_count);
        staged.documents = static_cast<uint32_t>(batch.docs.size());
        staged.terms_bytes = static_cast<uint32_t>(batch.terms.size());
        if (resident) {
            // Copied device to device when the chunk is submitted.
            stage_resident_terms(staging, *resident, batch.resident);
            resident_occurrences_ += resident->count;
        } else {
            std::memcpy(staging.terms + staging.terms_used, batch.terms.data(), batch.terms.size());
            staging.terms_used += batch.terms.size();
            for (const CollectionSlice& slice : batch.slices) {
                if (!owns(slice.collection)) continue;
                const size_t count = slice.end - slice.begin;
                std::memcpy(staging.occurrences + staging.occurrence_count, batch.occurrences.data() + slice.begin,
                            count * sizeof(TermOccurrence));
                staging.occurrence_count += count;
            }
        }
        if (positional_) run_positions_.insert(run_positions_.end(), batch.positions.begin(), batch.positions.end());
        // Large enough to be worth a launch: let the device start while the
        // next batches are staged in the other buffer. Parsers' buffers held
        // here are not lent to the next batches: give them back soon.
        if (staging.occurrence_count * 2 >= staging.occurrence_capacity ||
            staging.resident.size() >= kResidentPartsPerChunk) {
            on_device([&] { device().submit(); });
        }
    }
    stage_seconds_ += seconds_since(start);
}

RunPostings GpuIndexer::end_run(uint32_t run, uint32_t indexer_count, bool end_of_input) {
    ensure(!any_run_ended_ || run > last_run_,
           "indexer " + std::to_string(indexer_id_) + ": run " + std::to_string(run) + " ends after run " +
               std::to_string(last_run_) + "; runs must increase",
           index_context());
    const auto close_start = std::chrono::steady_clock::now();
    const GpuRunPostings sorted = on_device([&] { return device().close_run(); });
    close_run_seconds_ += seconds_since(close_start);
    terms_.resize(on_device([&] { return device().terms(); }));

    RunPostings out;
    out.run = run;
    out.indexer = indexer_id_;
    out.indexer_count = indexer_count;
    out.positional = positional_;
    out.end_of_input = end_of_input;

    // Postings come sorted by term id, each term's in arrival (docid) order.
    // One sequential pass finds each term's stretch; the stretches become
    // lists in parallel (bulk copies, unless a document repeats: an input
    // that was not merged per document, merged posting by posting), so a
    // run's end does not hold up the batches queued behind it.
    const auto lists_start = std::chrono::steady_clock::now();
    const uint32_t* ids = sorted.term_ids;
    const uint32_t* docids = sorted.docids;
    const uint32_t* tfs = sorted.tfs;
    std::vector<size_t> starts;
    for (size_t p = 0; p < sorted.count; ++p) {
        if (p == 0 || ids[p] != ids[p - 1]) {
            ensure(p == 0 || ids[p] > ids[p - 1], "device postings are not sorted by term", index_context());
            ensure(ids[p] < terms_.size(),
                   "device returned term id " + std::to_string(ids[p]) + " of " + std::to_string(terms_.size()),
                   index_context());
            starts.push_back(p);
        }
    }
    starts.push_back(sorted.count);
    const size_t list_count = starts.size() - 1;
    out.lists.resize(list_count);
    std::vector<uint64_t> list_cf(list_count);
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<size_t>(0, list_count, 256), [&](const auto& range) {
        for (size_t slot = range.begin(); slot != range.end(); ++slot) {
            const size_t begin = starts[slot];
            const size_t end = starts[slot + 1];
            TermRunList& list = out.lists[slot];
            list.slot = static_cast<uint32_t>(slot);
            uint64_t cf = tfs[begin];
            bool repeats = false;
            for (size_t p = begin + 1; p < end; ++p) {
                cf += tfs[p];
                if (docids[p] <= docids[p - 1]) {
                    ensure(docids[p] == docids[p - 1],
                           "device postings of term id " + std::to_string(ids[p]) + " are out of docid order: docid " +
                               std::to_string(docids[p]) + " after " + std::to_string(docids[p - 1]),
                           index_context());
                    repeats = true;
                }
            }
            list_cf[slot] = cf;
            if (!repeats) {
                list.docids.assign(docids + begin, docids + end);
                list.tfs.assign(tfs + begin, tfs + end);
            } else {
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
                    const uint64_t first = sorted.position_starts[p];
                    ensure(first + tfs[p] <= run_positions_.size(), "positions run past the run's positions",
                           index_context());
                    list.positions.insert(list.positions.end(),
                                          run_positions_.begin() + static_cast<std::ptrdiff_t>(first),
                                          run_positions_.begin() + static_cast<std::ptrdiff_t>(first + tfs[p]));
                }
                // Merged repeats may have put one document's positions out of order.
                if (repeats) {
                    auto first = list.positions.begin();
                    for (const uint32_t tf : list.tfs) {
                        std::sort(first, first + tf);
                        first += tf;
                    }
                }
            }
        }
    });
    for (size_t slot = 0; slot < list_count; ++slot) {
        TermRecord& record = terms_[ids[starts[slot]]];
        const TermRunList& list = out.lists[slot];
        record.df += static_cast<uint32_t>(list.docids.size());
        record.cf += list_cf[slot];
        stats_.tokens += list_cf[slot];
        stats_.postings += list.docids.size();
        const PartialListRef ref{.run = run, .indexer = indexer_id_, .slot = static_cast<uint32_t>(slot)};
        refs_.append(record.refs, ref, indexer_id_);
    }
    lists_seconds_ += seconds_since(lists_start);

    run_positions_.clear();
    last_run_ = run;
    any_run_ended_ = true;
    return out;
}

std::vector<DictionaryTerm> GpuIndexer::export_terms() const {
    const GpuExportedTerms keys = on_device([&] { return device().export_terms(); });
    ensure(keys.key_offsets.size() == terms_.size(),
           "the device holds " + std::to_string(keys.key_offsets.size()) + " terms, the host " +
               std::to_string(terms_.size()),
           index_context());
    std::vector<DictionaryTerm> out;
    out.reserve(terms_.size());
    for (size_t id = 0; id < terms_.size(); ++id) {
        const TermRecord& record = terms_[id];
        const uint32_t collection = keys.collections[id];
        const std::string_view key(keys.key_bytes.data() + keys.key_offsets[id], keys.key_lengths[id]);
        out.push_back(refs_.exported_term(collection_prefix(collection), key, collection, record.df, record.cf,
                                          record.refs));
    }
    return out;
}

GpuIndexer::Stats GpuIndexer::stats() const {
    Stats out = stats_;
    const GpuTermIndexerStats on_gpu = device().stats();
    out.terms = on_gpu.terms;
    out.characters = on_gpu.key_bytes;
    return out;
}

size_t GpuIndexer::memory_bytes() const {
    return terms_.capacity() * sizeof(TermRecord) + refs_.memory_bytes() +
           run_positions_.capacity() * sizeof(uint32_t);
}

nlohmann::json GpuIndexer::extra_stats() const {
    const GpuTermIndexerStats on_gpu = device().stats();
    return {{"gpu", on_gpu.device_name},
            {"gpu_algorithm", algorithm_},
            {"device_bytes", on_gpu.device_bytes},
            {"peak_device_bytes", on_gpu.peak_device_bytes},
            {"pinned_host_bytes", on_gpu.pinned_host_bytes},
            {"device_busy_seconds", on_gpu.device_busy_seconds},
            // Where the indexer's own thread spends its time (host side).
            {"host_stage_seconds", stage_seconds_},
            {"host_wait_seconds", on_gpu.host_wait_seconds},
            {"host_close_run_seconds", close_run_seconds_},
            {"host_lists_seconds", lists_seconds_},
            {"chunks", on_gpu.chunks},
            // Batches whose terms a GPU parser left on this device for it.
            {"resident_batches", resident_batches_},
            {"resident_occurrences", resident_occurrences_}};
}

}  // namespace invidx
