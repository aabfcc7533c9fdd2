#include "query/gpu_search.hpp"

#include <exception>
#include <span>
#include <vector>
#include <utility>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "query/phrase_query.hpp"
#include "query/query_error.hpp"
#include "store/index_layout.hpp"

namespace invidx {

namespace {

// A query.post list as bp128 blocks for the device, which decodes them per
// query. Checked here once, on the host (the device trusts its bytes).
// impacts: each block's impact group where its tf group would be (both
// stored as value − 1, so the device reads either the same way).
GpuList bp128_blocks(const QueryList& list, bool impacts) {
    (void)list.decode();  // every block's bytes, gaps, last docids, df and cf: FormatError if damaged
    GpuList out;
    out.bp128 = true;
    out.postings = list.df();
    std::vector<uint32_t> checked(layout::kQueryBlockPostings);
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const QueryBlock& block = list.blocks()[k];
        if (impacts) list.decode_impacts(k, std::span(checked).first(block.postings));  // each in [1, the block's maximum]
        out.docid_starts.push_back(static_cast<uint32_t>(out.bytes.size()));
        out.bytes.append(block.docid_bytes);
        out.tf_starts.push_back(static_cast<uint32_t>(out.bytes.size()));
        out.bytes.append(impacts ? block.impact_bytes : block.tf_bytes);
        out.last_docids.push_back(block.last_docid);
    }
    if (out.bytes.size() >= (size_t{1} << 32)) throw Error("a list too large for the GPU query path");
    return out;
}

// The device cache's key of a term's impact list (its tf list's key is the term number).
constexpr uint64_t kImpactListKey = uint64_t{1} << 63;

// A list of another codec, decoded here with its impacts where tfs would be.
GpuList decoded_impacts(const QueryList& list) {
    GpuList out;
    out.docids.resize(list.df());
    out.tfs.resize(list.df());
    uint64_t at = 0;
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const uint32_t n = list.blocks()[k].postings;
        list.decode_docids(k, std::span(out.docids).subspan(at, n));
        list.decode_impacts(k, std::span(out.tfs).subspan(at, n));
        at += n;
    }
    return out;
}

void take_gpu_result(GpuQueryResult&& gpu, SearchResult& result) {
    result.hits.reserve(gpu.hits.size());
    for (const auto& [docid, score] : gpu.hits) result.hits.push_back(ScoredDocument{docid, score});
    for (const auto& term : result.terms.terms) result.stats.postings += term.index ? term.df : 0;
    result.stats.documents_considered += gpu.candidates;
    result.stats.documents_scored += gpu.matches;
    result.stats.blocks += gpu.blocks;
    result.stats.docid_blocks_decoded += gpu.blocks_decoded;  // docids and tfs are decoded together
    result.stats.tf_blocks_decoded += gpu.blocks_decoded;
}

// A device failure (an invidx::Error naming the device, or "built without
// CUDA") is a query that cannot run here; a damaged index stays a
// FormatError, so the tools still tell the two apart.
template <typename Call>
auto as_query_error(Call&& call) {
    try {
        return call();
    } catch (const QueryError&) {
        throw;
    } catch (const FormatError&) {
        throw;
    } catch (const std::exception& error) {
        throw QueryError(std::string("GPU query processing failed: ") + error.what());
    }
}

}  // namespace

GpuSearch::GpuSearch(const Searcher& searcher, const std::vector<double>& length_norms)
    : searcher_(searcher), length_norms_(length_norms) {}

GpuSearch::~GpuSearch() = default;

GpuQuery GpuSearch::gpu_query(const SearchResult& result, const SearchOptions& options) const {
    const bool impacts = options.scoring == QueryScoring::kImpact;
    // Impacts live in the query layout only (Searcher::search has checked it holds them).
    const QueryPostings* layout = impacts ? searcher_.query_postings() : searcher_.query_layout(options);
    // bp128 lists stay compressed on the device; other codecs and run files are decoded here.
    const bool compressed = layout && layout->codec().name == "bp128";
    const IndexReader& index = searcher_.index();
    GpuQuery terms;
    for (const auto& term : result.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        const uint64_t term_index = *term.index;
        // A term's impacts and its tfs are different lists in the device's cache.
        const uint64_t key = impacts ? term_index | kImpactListKey : term_index;
        terms.push_back(GpuQueryTerm{key, searcher_.bm25().idf(term.df), term.df,
                                     [&index, layout, compressed, impacts, term_index](GpuList& list) {
                                         if (compressed) {
                                             list = bp128_blocks(layout->list(term_index), impacts);
                                             return;
                                         }
                                         if (impacts) {
                                             list = decoded_impacts(layout->list(term_index));
                                             return;
                                         }
                                         run_list::DecodedList decoded =
                                             layout ? layout->list(term_index).decode() : index.postings(term_index);
                                         list.docids = std::move(decoded.docids);
                                         list.tfs = std::move(decoded.tfs);
                                     }});
    }
    return terms;
}

GpuQueryProcessor& GpuSearch::processor(const SearchOptions& options) const {
    if (!processor_) {
        processor_ = create_gpu_query_processor(0, length_norms_, searcher_.bm25().parameters().k1,
                                                options.gpu_cache_bytes);
    }
    return *processor_;
}

void GpuSearch::search(const SearchOptions& options, SearchResult& result) const {
    const GpuQuery query = gpu_query(result, options);
    GpuQueryResult top;
    {
        std::lock_guard lock(mutex_);
        top = as_query_error([&] {
            return processor(options).top_k(query, options.mode == QueryMode::kAnd, options.k, options.scoring == QueryScoring::kImpact);
        });
    }
    take_gpu_result(std::move(top), result);
}

size_t GpuSearch::max_batch(const SearchOptions& options) const {
    std::lock_guard lock(mutex_);
    return as_query_error([&] { return processor(options).max_batch(); });
}

GpuQueryStats GpuSearch::stats() const {
    std::lock_guard lock(mutex_);
    return processor_ ? processor_->stats() : GpuQueryStats{};
}

std::vector<SearchResult> GpuSearch::search_batch(std::span<const std::string> texts, const SearchOptions& options) const {
    if (options.mode == QueryMode::kAndOr) {
        // AND for all; OR for those AND left with fewer than k hits.
        SearchOptions conjunctive = options;
        conjunctive.mode = QueryMode::kAnd;
        auto results = search_batch(texts, conjunctive);
        std::vector<std::string> again;
        std::vector<size_t> where;
        for (size_t i = 0; i < results.size(); ++i) {
            if (results[i].hits.size() < options.k) {
                again.push_back(texts[i]);
                where.push_back(i);
            }
        }
        SearchOptions disjunctive = options;
        disjunctive.mode = QueryMode::kOr;
        auto second = search_batch(again, disjunctive);
        for (size_t j = 0; j < where.size(); ++j) {
            second[j].stats += results[where[j]].stats;
            results[where[j]] = std::move(second[j]);
        }
        return results;
    }
    const bool conjunctive = options.mode == QueryMode::kAnd;
    const IndexReader& index = searcher_.index();
    std::vector<SearchResult> results(texts.size());
    std::vector<char> has_phrase(texts.size(), 0);
    // Ranges of 256 queries, each with an analyzer from the spares. A batch of
    // up to 256 (the scheduler's) is analyzed on this thread (a few µs a
    // query): waiting for a oneTBB worker while CPU query workers hold every
    // core stalled the GPU for far longer than that.
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<size_t>(0, texts.size(), 256), [&](const auto& range) {
        std::unique_ptr<Analyzer> analyzer;
        {
            std::lock_guard lock(spare_analyzers_mutex_);
            if (!spare_analyzers_.empty()) {
                analyzer = std::move(spare_analyzers_.back());
                spare_analyzers_.pop_back();
            }
        }
        if (!analyzer) analyzer = std::make_unique<Analyzer>(index.analysis());
        for (size_t i = range.begin(); i != range.end(); ++i) {
            results[i].answered_as = options.mode;
            results[i].terms = query_terms(*analyzer, index, texts[i]);
            has_phrase[i] = !query_phrases(*analyzer, texts[i]).empty();
        }
        std::lock_guard lock(spare_analyzers_mutex_);
        spare_analyzers_.push_back(std::move(analyzer));
    });
    std::vector<GpuQuery> queries;
    std::vector<size_t> asked;  // which result each query fills
    for (size_t i = 0; i < texts.size(); ++i) {
        if (has_phrase[i]) throw QueryError("phrase queries run on the CPU only: use --device cpu");
        const QueryTerms& terms = results[i].terms;
        // No term left (stop words only), or AND with a term no document has: no results, as search() gives.
        if (terms.count_in_index() == 0 || (conjunctive && !terms.all_in_index())) continue;
        queries.push_back(gpu_query(results[i], options));
        asked.push_back(i);
    }
    if (queries.empty()) return results;
    std::vector<GpuQueryResult> answers;
    {
        std::lock_guard lock(mutex_);
        answers = as_query_error([&] {
            return processor(options).top_k_batch(queries, conjunctive, options.k, options.scoring == QueryScoring::kImpact);
        });
    }
    for (size_t j = 0; j < asked.size(); ++j) take_gpu_result(std::move(answers[j]), results[asked[j]]);
    return results;
}

}  // namespace invidx
