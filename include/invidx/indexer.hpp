// What an indexer must offer (STYLE.md: concepts name the pluggable parts).
// An indexer owns a fixed set of trie collections for the whole build (Wei &
// JaJa §III.E), receives every batch in docid order, and returns its postings
// run by run. A GPU indexer is checked against the same contract.
#pragma once

#include <cstddef>
#include <cstdint>
#include <concepts>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/messages.hpp"

namespace invidx {

template <class T>
concept Indexer = requires(T& indexer, const T& const_indexer, const RegroupedBatch& batch, uint32_t n, bool end) {
    { indexer.index(batch) };
    { indexer.end_run(n, n, end) } -> std::same_as<RunPostings>;
    { const_indexer.export_terms() } -> std::same_as<std::vector<DictionaryTerm>>;
};

// The type-erased form the index stage holds.
class IndexerBackend {
public:
    virtual ~IndexerBackend() = default;
    virtual void index(const RegroupedBatch& batch) = 0;
    virtual RunPostings end_run(uint32_t run, uint32_t indexer_count, bool end_of_input) = 0;
    virtual std::vector<DictionaryTerm> export_terms() const = 0;
    // tokens, terms, characters, postings (the paper's Table V) and more.
    virtual nlohmann::json stats() const = 0;
    // True when the indexer waits on a device: the index node then runs it
    // on a thread of its own (graph/async_worker.hpp) behind an async_node,
    // so flow-graph worker threads never block on it.
    virtual bool offloaded() const { return false; }
    // The CUDA ordinal whose terms this indexer takes in device memory
    // (RegroupedBatch::resident, invidx/resident_terms.hpp), or -1.
    virtual int resident_device() const { return -1; }
};

template <Indexer T>
class IndexerAdapter final : public IndexerBackend {
public:
    template <class... Args>
    explicit IndexerAdapter(Args&&... args) : indexer_(std::forward<Args>(args)...) {}
    void index(const RegroupedBatch& batch) override { indexer_.index(batch); }
    RunPostings end_run(uint32_t run, uint32_t indexer_count, bool end_of_input) override {
        return indexer_.end_run(run, indexer_count, end_of_input);
    }
    std::vector<DictionaryTerm> export_terms() const override { return indexer_.export_terms(); }
    nlohmann::json stats() const override {
        const auto s = indexer_.stats();
        nlohmann::json out = {{"tokens", s.tokens}, {"terms", s.terms}, {"characters", s.characters}, {"postings", s.postings}};
        // After the last run its buffers are empty: this is the dictionary's memory.
        if constexpr (requires { indexer_.memory_bytes(); }) out["memory_bytes"] = indexer_.memory_bytes();
        // Device memory, kernel times, ...: whatever the kind adds.
        if constexpr (requires { indexer_.extra_stats(); }) out.update(indexer_.extra_stats());
        return out;
    }
    bool offloaded() const override {
        if constexpr (requires { T::kOffloaded; }) {
            return T::kOffloaded;
        } else {
            return false;
        }
    }
    int resident_device() const override {
        if constexpr (requires { indexer_.resident_device(); }) {
            return indexer_.resident_device();
        } else {
            return -1;
        }
    }
    T& get() { return indexer_; }

private:
    T indexer_;
};

}  // namespace invidx
