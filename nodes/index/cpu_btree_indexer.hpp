// The CPU indexer (Wei & JaJa §III.D.1): one B-tree dictionary per trie
// collection it owns, and the postings of the current run.
//
// Ownership is fixed for the whole build (§III.E: "once a trie collection is
// assigned to a particular indexer, it is bound with this indexer"), so every
// indexer holds an exclusive part of the dictionary and needs no locks.
//
// A run (§III.E, Fig. 8) is the stretch of batches whose postings are written
// to one run file. Postings arrive in docid order (batches come in order and
// regrouping is stable), so each term's run list is sorted without a sort.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nodes/index/btree_dictionary.hpp"
#include "nodes/index/partial_list_refs.hpp"
#include "nodes/index/term_id_cache.hpp"
#include "invidx/messages.hpp"

namespace invidx {

class CpuBtreeIndexer {
public:
    // Collection c is indexed here iff owned[c] (kCollections entries).
    // indexer_id goes into every PartialListRef; positional keeps positions.
    CpuBtreeIndexer(uint32_t indexer_id, std::vector<bool> owned, bool positional);

    // Adds the postings of the owned slices; docid = first_docid + local_docid.
    // Batches must come in increasing docid order. Throws invidx::Error
    // (node "index") for inconsistent batches, naming the batch and docid.
    void index(const RegroupedBatch& batch);

    // Closes the run: the lists of every term touched since the last call, in
    // slot order. Slot i is recorded in its term's lists as
    // PartialListRef{run, indexer_id, i}. Runs must be increasing.
    RunPostings end_run(uint32_t run, uint32_t indexer_count, bool end_of_input);

    // Every term with df, cf, full bytes (prefix restored), collection and its
    // PartialListRefs in run order; sorted by (collection, byte-wise key).
    std::vector<DictionaryTerm> export_terms() const;

    // The paper's Table V quantities for this indexer.
    struct Stats {
        uint64_t tokens = 0;      // sum of tf indexed
        uint64_t terms = 0;       // distinct terms
        uint64_t characters = 0;  // bytes of the distinct stored keys (prefix removed)
        uint64_t postings = 0;    // (term, document) pairs
    };
    Stats stats() const;

    uint32_t indexer_id() const { return indexer_id_; }
    bool positional() const { return positional_; }
    bool owns(uint32_t collection) const { return collection < owned_.size() && owned_[collection]; }
    // Bytes held by the dictionaries, term records and run buffers.
    size_t memory_bytes() const;

private:
    static constexpr uint32_t kNone = UINT32_MAX;

    // One term of the dictionary; its id is its index in terms_. 32 bytes:
    // millions of terms make per-term containers too costly, so the run
    // postings and the partial-list refs live in shared arenas.
    struct TermRecord {
        uint64_t cf = 0;
        uint32_t df = 0;
        uint32_t last_docid = 0;     // last posting's docid (valid when df > 0)
        uint32_t run_slot = kNone;   // slot in the current run, kNone if untouched
        PartialListRefs::Chain refs;  // its partial lists, in run order
    };

    // One posting of the current run, in arrival order. Its positions follow
    // the previous posting's in run_positions_, tf of them.
    struct RunPosting {
        uint32_t slot;
        uint32_t docid;
        uint32_t tf;
    };

    void index_slice(const RegroupedBatch& batch, const CollectionSlice& slice);

    uint32_t indexer_id_;
    std::vector<bool> owned_;
    bool positional_;

    std::vector<std::unique_ptr<BTreeDictionary>> dictionaries_;  // per collection, made on first use
    TermIdCache recent_terms_;  // in front of the dictionaries
    std::vector<TermRecord> terms_;
    PartialListRefs refs_;

    // The current run: postings in arrival order, their positions, and the
    // terms touched (slot -> term id, first-touch order).
    std::vector<RunPosting> run_postings_;
    std::vector<uint32_t> run_positions_;
    std::vector<uint32_t> run_terms_;
    bool run_has_repeats_ = false;
    uint32_t last_run_ = 0;
    bool any_run_ended_ = false;

    Stats stats_;
};

}  // namespace invidx
