#include "query/gpu_evaluator.hpp"

#include <exception>
#include <span>
#include <string>
#include <utility>
#include <vector>

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

// A list decoded here: from the query layout when there is one, else the run files.
GpuList decoded_postings(const IndexReader& index, const QueryPostings* layout, uint64_t term_index) {
    run_list::DecodedList decoded = layout ? layout->list(term_index).decode() : index.postings(term_index);
    GpuList out;
    out.docids = std::move(decoded.docids);
    out.tfs = std::move(decoded.tfs);
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

void refuse_phrases(const QueryPlan& plan) {
    if (plan.has_phrases()) throw QueryError("phrase queries run on the CPU only: use --device cpu");
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

GpuEvaluator::GpuEvaluator(const ScoredIndex& index, GpuOptions options) : index_(index), options_(options) {}

GpuEvaluator::~GpuEvaluator() = default;

GpuQuery GpuEvaluator::gpu_query(const QueryPlan& plan) const {
    const bool impacts = plan.scores_impacts();
    // Impacts live in the query layout only (check_query_plan saw them).
    const QueryPostings* layout = impacts ? index_.query_postings() : index_.layout_for(plan.algorithm);
    // bp128 lists stay compressed on the device; other codecs and run files are decoded here.
    const bool compressed = layout && layout->codec().name == "bp128";
    const IndexReader& reader = index_.reader();
    GpuQuery terms;
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;  // OR: contributes nothing
        const uint64_t term_index = *term.index;
        // A term's impacts and its tfs are different lists in the device's cache.
        const uint64_t key = impacts ? term_index | kImpactListKey : term_index;
        terms.push_back(GpuQueryTerm{key, plan.weights[i], term.df,
                                     [&reader, layout, compressed, impacts, term_index](GpuList& list) {
                                         if (compressed) {
                                             list = bp128_blocks(layout->list(term_index), impacts);
                                         } else if (impacts) {
                                             list = decoded_impacts(layout->list(term_index));
                                         } else {
                                             list = decoded_postings(reader, layout, term_index);
                                         }
                                     }});
    }
    return terms;
}

GpuQueryProcessor& GpuEvaluator::processor() const {
    if (!processor_) {
        processor_ = create_gpu_query_processor(options_.ordinal, index_.length_norms(), index_.bm25().parameters().k1,
                                                options_.cache_bytes);
    }
    return *processor_;
}

SearchResult GpuEvaluator::evaluate(const QueryPlan& plan) const {
    SearchResult result = unevaluated_result(plan);
    if (plan.matches_nothing()) return result;
    refuse_phrases(plan);
    const GpuQuery query = gpu_query(plan);
    GpuQueryResult top;
    {
        std::lock_guard lock(mutex_);
        top = as_query_error([&] { return processor().top_k(query, plan.conjunctive(), plan.k, plan.scores_impacts()); });
    }
    take_gpu_result(std::move(top), result);
    return result;
}

std::vector<SearchResult> GpuEvaluator::evaluate_batch(std::span<const QueryPlan> plans) const {
    for (const auto& plan : plans) refuse_phrases(plan);
    std::vector<SearchResult> results;
    results.reserve(plans.size());
    for (const auto& plan : plans) results.push_back(unevaluated_result(plan));
    std::vector<size_t> pending;
    for (size_t i = 0; i < plans.size(); ++i) {
        if (!plans[i].matches_nothing()) pending.push_back(i);  // the rest: no results, as evaluate() gives
    }
    while (!pending.empty()) pending = answer_alike(plans, pending, results);
    return results;
}

std::vector<size_t> GpuEvaluator::answer_alike(std::span<const QueryPlan> plans, const std::vector<size_t>& pending,
                                               std::vector<SearchResult>& results) const {
    const QueryPlan& first = plans[pending.front()];
    const auto alike = [&first](const QueryPlan& plan) {
        return plan.conjunctive() == first.conjunctive() && plan.k == first.k && plan.scores_impacts() == first.scores_impacts();
    };
    std::vector<GpuQuery> queries;
    std::vector<size_t> asked;  // which result each query fills
    std::vector<size_t> rest;
    for (const size_t i : pending) {
        if (!alike(plans[i])) {
            rest.push_back(i);
            continue;
        }
        queries.push_back(gpu_query(plans[i]));
        asked.push_back(i);
    }
    std::vector<GpuQueryResult> answers;
    {
        std::lock_guard lock(mutex_);
        answers = as_query_error([&] {
            return processor().top_k_batch(queries, first.conjunctive(), first.k, first.scores_impacts());
        });
    }
    for (size_t j = 0; j < asked.size(); ++j) take_gpu_result(std::move(answers[j]), results[asked[j]]);
    return rest;
}

size_t GpuEvaluator::max_batch() const {
    std::lock_guard lock(mutex_);
    return as_query_error([&] { return processor().max_batch(); });
}

GpuQueryStats GpuEvaluator::stats() const {
    std::lock_guard lock(mutex_);
    return processor_ ? processor_->stats() : GpuQueryStats{};
}

}  // namespace invidx
