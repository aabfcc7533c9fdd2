// Ranked retrieval over an IndexReader (SPEC §7): analyzes a query and runs
// it over its terms' lists by the chosen Algorithm (query/algorithm.hpp). On
// the query-ready layout (query.post), when the index has one, lists are read
// block by block through BlockCursors: AND by daat_and with block skipping,
// OR by block-max MaxScore (or Block-Max WAND). On the run files each list is
// decoded whole: AND by daat_and, OR by MaxScore. The results are the same
// either way: exactly the exhaustive top k. A query with a phrase ("new
// york") reads the run files' positions instead (query/phrase_search.hpp);
// its QueryError says why it cannot run. On the GPU the path of
// query/gpu_search.hpp answers instead.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"
#include "devices/gpu_query.hpp"
#include "query/algorithm.hpp"
#include "query/query_device.hpp"
#include "query/query_mode.hpp"
#include "query/query_scoring.hpp"
#include "store/bm25.hpp"
#include "query/query_stats.hpp"
#include "query/query_terms.hpp"
#include "query/topk.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

class GpuSearch;

struct SearchOptions {
    size_t k = 10;
    QueryMode mode = QueryMode::kOr;
    Algorithm algorithm = Algorithm::kBlockMaxMaxscore;
    // kGpu: GPU 0 (query/gpu_search.hpp): lists kept in device memory in an
    // LRU cache of gpu_cache_bytes (bp128 query layouts compressed, decoded
    // there per query; other lists decoded on the host once); OR accumulated
    // exhaustively, AND by block-selecting intersection. The same hits and
    // scores as the CPU, bit for bit. Phrases stay on the CPU. Of the
    // algorithm only the lists' source counts there: kMaxscore reads the
    // run files, the others the query layout when the index has one.
    QueryDevice device = QueryDevice::kCpu;
    size_t gpu_cache_bytes = size_t{1} << 30;
    // kImpact: scores are sums of the query layout's quantized impacts, in
    // integers, whatever the algorithm: OR by accumulator windows when the
    // lists cover much of the collection (impact_taat_or), else by integer
    // block-max MaxScore (impact_maxscore_or); AND by daat_and over
    // ImpactBlockCursors. On the GPU (kGpu) the device's OR and AND over the
    // impact lists, the same hits and scores. An index without impacts or a
    // phrase is a QueryError.
    QueryScoring scoring = QueryScoring::kBm25;
};

struct SearchResult {
    QueryTerms terms;
    std::vector<ScoredDocument> hits;  // best first
    QueryStats stats;  // kAndOr: both evaluations' together
    QueryMode answered_as = QueryMode::kOr;  // kAnd or kOr: the evaluation whose hits these are
};

class Searcher {
public:
    // Reads every document's length once (the BM25 length norms).
    explicit Searcher(const IndexReader& index, Bm25Parameters parameters = {});
    ~Searcher();
    Searcher(const Searcher&) = delete;
    Searcher& operator=(const Searcher&) = delete;

    const IndexReader& index() const { return index_; }
    const Bm25& bm25() const { return bm25_; }
    std::span<const double> length_norms() const { return norms_; }
    // The query-ready layout, when the index has one.
    const QueryPostings* query_postings() const { return query_postings_ ? &*query_postings_ : nullptr; }
    // The query layout the options read lists from: none for kMaxscore (the
    // run files) or when the index has none.
    const QueryPostings* query_layout(const SearchOptions& options) const {
        return options.algorithm == Algorithm::kMaxscore ? nullptr : query_postings();
    }

    // One query; `analyzer` must use the index's analysis settings (one per thread).
    SearchResult search(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const;
    SearchResult search(std::string_view text, const SearchOptions& options) const;

    // Many queries on all threads (oneTBB); results in input order.
    std::vector<SearchResult> search_all(std::span<const std::string> texts, const SearchOptions& options) const;

    // Many queries on GPU 0 (options.device is taken to be kGpu): analyzed on all
    // threads, then answered in batches of up to max_gpu_batch() queries, each
    // batch with few kernel launches and one synchronization; results in input
    // order, the same as search() gives each (hits, scores, ties, and for
    // kAndOr answered_as: an AND batch, then an OR batch of those with fewer
    // than k). A phrase is a QueryError. The GPU is made on first use
    // (QueryError if it cannot be).
    std::vector<SearchResult> search_gpu_batch(std::span<const std::string> texts, const SearchOptions& options) const;
    size_t max_gpu_batch(const SearchOptions& options) const;
    // The GPU's list cache and counters (empty before the first GPU query).
    GpuQueryStats gpu_stats() const;

private:
    // The query layout's path: BlockCursors, daat_and, maxscore_or (block-max) or block_max_wand.
    void search_blocks(const QueryPostings& layout, const SearchOptions& options, SearchResult& result) const;
    // The same over the layout's impacts: impact_taat_or or impact_maxscore_or (OR), daat_and (AND).
    void search_impacts(const QueryPostings& layout, const SearchOptions& options, SearchResult& result) const;
    // A QueryError unless the index's query layout holds impacts.
    void check_impacts() const;

    const IndexReader& index_;
    Bm25 bm25_;
    std::vector<double> norms_;  // by docid
    std::optional<QueryPostings> query_postings_;
    // The GPU path; it makes its device state on the first GPU query.
    std::unique_ptr<GpuSearch> gpu_;
};

}  // namespace invidx
