#include "query/gpu_evaluator.hpp"

#include <cmath>
#include <exception>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "query/cpu_evaluator.hpp"
#include "query/impact_weights.hpp"
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

// impact_scale_bits: impact scores come back as integer sums of impact ·
// weight (query/impact_weights.hpp) and are divided as the CPU divides them.
void take_gpu_result(GpuQueryResult&& gpu, SearchResult& result, unsigned impact_scale_bits) {
    result.hits.reserve(gpu.hits.size());
    for (const auto& [docid, score] : gpu.hits) {
        result.hits.push_back(ScoredDocument{docid, std::ldexp(score, -static_cast<int>(impact_scale_bits))});
    }
    for (const auto& term : result.terms.terms) result.stats.postings += term.index ? term.df : 0;
    result.stats.documents_considered += gpu.candidates;
    result.stats.documents_scored += gpu.matches;
    result.stats.blocks += gpu.blocks;
    result.stats.docid_blocks_decoded += gpu.blocks_decoded;  // docids and tfs are decoded together
    result.stats.tf_blocks_decoded += gpu.blocks_decoded;
}

// The device's BM25 for a plan: key 0 for the index's own (uploaded when the
// processor was made), the weighting's id for another k1, b.
void use_plan_bm25(GpuQueryProcessor& processor, const QueryPlan& plan, const ScoredIndex& index) {
    if (plan.scores_impacts() || !plan.bm25 || plan.bm25 == index.default_weighting()) {
        processor.use_bm25(0, index.length_norms(), index.bm25().parameters().k1);
        return;
    }
    processor.use_bm25(plan.bm25->id(), plan.bm25->length_norms(), plan.bm25->parameters().k1);
}

// Whether two plans score by the same BM25 (a null plan.bm25 is the index's).
bool same_bm25(const QueryPlan& a, const QueryPlan& b, const ScoredIndex& index) {
    const auto weighting = [&index](const QueryPlan& plan) {
        return plan.bm25 ? plan.bm25.get() : index.default_weighting().get();
    };
    return weighting(a) == weighting(b);
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

GpuQuery GpuEvaluator::gpu_query(const QueryPlan& plan, unsigned* impact_scale_bits) const {
    const bool impacts = plan.scores_impacts();
    // Impacts live in the query layout only (check_query_plan saw them).
    const QueryPostings* layout = impacts ? index_.query_postings() : index_.layout_for(plan.algorithm);
    // Impacts: each term's integer query weight where BM25 has its idf (the
    // device multiplies impact by it, exact in a double), as the CPU's.
    ImpactWeights weights;
    if (impacts) weights = impact_weights(plan, layout->impact_bits());
    if (impact_scale_bits) *impact_scale_bits = weights.scale_bits;
    // bp128 lists stay compressed on the device; other codecs and run files are decoded here.
    const bool compressed = layout && layout->codec().name == "bp128";
    const IndexReader& reader = index_.reader();
    GpuQuery terms;
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;  // OR: contributes nothing
        // Impacts, OR: a weight of 0 adds nothing and matches nothing (as on the CPU).
        if (impacts && weights.by_term[i] == 0 && !plan.conjunctive()) continue;
        const uint64_t term_index = *term.index;
        // A term's impacts and its tfs are different lists in the device's cache.
        const uint64_t key = impacts ? term_index | kImpactListKey : term_index;
        const double weight = impacts ? static_cast<double>(weights.by_term[i]) : plan.weights[i];
        terms.push_back(GpuQueryTerm{key, weight, term.df,
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
    // Required and prohibited terms: the CPU's evaluation (docs/QUERY.md, "Query syntax").
    if (plan.has_boolean_clauses()) return CpuEvaluator(index_).evaluate(plan);
    unsigned scale_bits = 0;
    const GpuQuery query = gpu_query(plan, &scale_bits);
    if (query.empty()) return result;  // impacts, OR: every weight 0
    GpuQueryResult top;
    {
        std::lock_guard lock(mutex_);
        top = as_query_error([&] {
            use_plan_bm25(processor(), plan, index_);
            return processor().top_k(query, plan.conjunctive(), plan.k, plan.scores_impacts());
        });
    }
    take_gpu_result(std::move(top), result, scale_bits);
    return result;
}

std::vector<SearchResult> GpuEvaluator::evaluate_batch(std::span<const QueryPlan> plans) const {
    for (const auto& plan : plans) refuse_phrases(plan);
    std::vector<SearchResult> results;
    results.reserve(plans.size());
    for (const auto& plan : plans) results.push_back(unevaluated_result(plan));
    std::vector<size_t> pending;
    for (size_t i = 0; i < plans.size(); ++i) {
        if (plans[i].matches_nothing()) continue;  // no results, as evaluate() gives
        if (plans[i].has_boolean_clauses()) {
            results[i] = CpuEvaluator(index_).evaluate(plans[i]);  // as evaluate() answers it
            continue;
        }
        pending.push_back(i);
    }
    while (!pending.empty()) pending = answer_alike(plans, pending, results);
    return results;
}

std::vector<size_t> GpuEvaluator::answer_alike(std::span<const QueryPlan> plans, const std::vector<size_t>& pending,
                                               std::vector<SearchResult>& results) const {
    const QueryPlan& first = plans[pending.front()];
    const auto alike = [&](const QueryPlan& plan) {
        return plan.conjunctive() == first.conjunctive() && plan.k == first.k &&
               plan.scores_impacts() == first.scores_impacts() &&
               (first.scores_impacts() || same_bm25(plan, first, index_));
    };
    std::vector<GpuQuery> queries;
    std::vector<size_t> asked;  // which result each query fills
    std::vector<unsigned> scale_bits;  // and its impact scores' scale
    std::vector<size_t> rest;
    for (const size_t i : pending) {
        if (!alike(plans[i])) {
            rest.push_back(i);
            continue;
        }
        unsigned bits = 0;
        GpuQuery query = gpu_query(plans[i], &bits);
        if (query.empty()) continue;  // impacts, OR: every weight 0: no results, as evaluate() gives
        queries.push_back(std::move(query));
        asked.push_back(i);
        scale_bits.push_back(bits);
    }
    if (queries.empty()) return rest;
    std::vector<GpuQueryResult> answers;
    {
        std::lock_guard lock(mutex_);
        answers = as_query_error([&] {
            use_plan_bm25(processor(), first, index_);
            return processor().top_k_batch(queries, first.conjunctive(), first.k, first.scores_impacts());
        });
    }
    for (size_t j = 0; j < asked.size(); ++j) take_gpu_result(std::move(answers[j]), results[asked[j]], scale_bits[j]);
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
