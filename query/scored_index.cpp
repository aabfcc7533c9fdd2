#include "query/scored_index.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include <oneapi/tbb/task_arena.h>

#include "query/query_error.hpp"

namespace invidx {

namespace {

// Weightings of other k1 and b kept at once (each holds a norm per document).
constexpr size_t kKeptWeightings = 4;

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

}  // namespace

ScoredIndex::ScoredIndex(const IndexReader& index, Bm25Parameters parameters) : index_(index) {
    if (QueryPostings::present(index_)) query_postings_.emplace(index_);
    default_ = std::make_shared<const Bm25Weighting>(index_, parameters, query_postings());
}

std::shared_ptr<const Bm25Weighting> ScoredIndex::weighting_for(const SearchOptions& options) const {
    if (!options.k1 && !options.b) return default_;
    if (options.scoring == QueryScoring::kImpact) {
        throw QueryError("BM25's k1 and b do not apply to impact scoring (--k1, --b with --scoring impact): the impacts "
                         "were fixed when invidx weight ran; use --scoring bm25 or leave out --k1 and --b");
    }
    Bm25Parameters parameters = default_->parameters();
    if (options.k1) parameters.k1 = *options.k1;
    if (options.b) parameters.b = *options.b;
    if (!(std::isfinite(parameters.k1) && parameters.k1 >= 0.0)) {
        throw QueryError("BM25 k1 must be a finite number >= 0, not " + number_text(parameters.k1));
    }
    if (!(parameters.b >= 0.0 && parameters.b <= 1.0)) {
        throw QueryError("BM25 b must be a number from 0 to 1, not " + number_text(parameters.b));
    }
    const auto same = [&](const Bm25Weighting& weighting) {
        return weighting.parameters().k1 == parameters.k1 && weighting.parameters().b == parameters.b;
    };
    if (same(*default_)) return default_;
    std::lock_guard lock(others_mutex_);
    for (size_t i = 0; i < others_.size(); ++i) {
        if (!same(*others_[i])) continue;
        std::shared_ptr<const Bm25Weighting> found = others_[i];
        others_.erase(others_.begin() + static_cast<std::ptrdiff_t>(i));
        others_.push_back(found);
        return found;
    }
    // Made under the lock, so the many queries of a batch make it once. Its
    // parallel loop is isolated: a thread waiting in it must not take another
    // query's task, which would wait for this lock on the same thread.
    std::shared_ptr<const Bm25Weighting> made;
    oneapi::tbb::this_task_arena::isolate(
        [&] { made = std::make_shared<const Bm25Weighting>(index_, parameters, query_postings()); });
    if (others_.size() == kKeptWeightings) others_.erase(others_.begin());  // plans still using it keep it alive
    others_.push_back(made);
    return made;
}

void ScoredIndex::require_impacts() const {
    if (query_postings_ && query_postings_->has_impacts()) return;
    const std::string directory = index_.directory().string();
    throw QueryError("index " + directory + " has no impacts for --scoring impact; compute them first: invidx weight " +
                     directory + (query_postings_ ? "" : " (after invidx merge --layout query)"));
}

}  // namespace invidx
