// and-or over any evaluator: a fake one that answers each plan with as many
// hits as its test says, recording the modes it was asked in. The AND
// answers exactly when it finds at least k documents; otherwise the OR
// does, with both evaluations' stats. Other modes pass straight through;
// a batch asks the AND of all, then the OR of those that fell short.
#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "query/and_or_fallback.hpp"

using namespace invidx;

namespace {

class FakeEvaluator final : public QueryEvaluator {
public:
    // `and_hits`: how many documents the AND of a plan with that first term finds.
    explicit FakeEvaluator(std::map<std::string, size_t> and_hits) : and_hits_(std::move(and_hits)) {}

    SearchResult evaluate(const QueryPlan& plan) const override {
        asked_.push_back(plan.mode);
        SearchResult result = unevaluated_result(plan);
        const size_t found = plan.mode == QueryMode::kAnd ? and_hits_.at(plan.terms.terms.front().term) : 100;
        for (uint32_t d = 0; d < std::min(found, plan.k); ++d) result.hits.push_back({d, 1.0});
        result.stats.postings = plan.mode == QueryMode::kAnd ? 1 : 10;
        return result;
    }
    std::vector<SearchResult> evaluate_batch(std::span<const QueryPlan> plans) const override {
        ++batches_;
        return QueryEvaluator::evaluate_batch(plans);
    }

    mutable std::vector<QueryMode> asked_;
    mutable size_t batches_ = 0;

private:
    std::map<std::string, size_t> and_hits_;
};

QueryPlan plan_of(const std::string& term, QueryMode mode, size_t k) {
    QueryPlan plan;
    plan.mode = mode;
    plan.k = k;
    plan.terms.terms.push_back(QueryTerm{.term = term, .index = 0, .df = 1});
    plan.weights.push_back(1.0);
    return plan;
}

}  // namespace

TEST_CASE("and-or fallback: the AND answers when it finds at least k documents, else the OR") {
    FakeEvaluator fake({{"enough", 10}, {"exactly", 5}, {"short", 4}, {"none", 0}});
    const AndOrFallback and_or(fake);
    const auto answer = [&](const std::string& term, size_t k) {
        fake.asked_.clear();
        return and_or.evaluate(plan_of(term, QueryMode::kAndOr, k));
    };

    for (const std::string term : {"enough", "exactly"}) {
        CAPTURE(term);
        const SearchResult result = answer(term, 5);
        CHECK(result.answered_as == QueryMode::kAnd);
        CHECK(result.hits.size() == 5);
        CHECK(result.stats.postings == 1);
        CHECK(fake.asked_ == std::vector<QueryMode>{QueryMode::kAnd});
    }
    for (const std::string term : {"short", "none"}) {
        CAPTURE(term);
        const SearchResult result = answer(term, 5);
        CHECK(result.answered_as == QueryMode::kOr);
        CHECK(result.hits.size() == 5);
        CHECK(result.stats.postings == 11);  // both evaluations' work
        CHECK(fake.asked_ == std::vector<QueryMode>{QueryMode::kAnd, QueryMode::kOr});
    }
    // AND and OR plans pass straight through.
    for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
        fake.asked_.clear();
        CHECK(and_or.evaluate(plan_of("short", mode, 5)).answered_as == mode);
        CHECK(fake.asked_ == std::vector<QueryMode>{mode});
    }
}

TEST_CASE("and-or fallback: a batch runs every AND together, then the ORs of those that fell short together") {
    FakeEvaluator fake({{"enough", 10}, {"short", 2}});
    const AndOrFallback and_or(fake);
    const std::vector<QueryPlan> plans = {plan_of("short", QueryMode::kAndOr, 3), plan_of("enough", QueryMode::kAndOr, 3),
                                          plan_of("short", QueryMode::kAndOr, 3), plan_of("short", QueryMode::kAndOr, 2)};
    const auto results = and_or.evaluate_batch(plans);
    REQUIRE(results.size() == 4);
    CHECK(fake.batches_ == 2);
    CHECK(results[0].answered_as == QueryMode::kOr);
    CHECK(results[0].stats.postings == 11);
    CHECK(results[1].answered_as == QueryMode::kAnd);
    CHECK(results[2].answered_as == QueryMode::kOr);
    CHECK(results[3].answered_as == QueryMode::kAnd);  // k 2: the AND's 2 suffice
    CHECK(results[3].hits.size() == 2);

    fake.batches_ = 0;
    const std::vector<QueryPlan> enough = {plan_of("enough", QueryMode::kAndOr, 3)};
    CHECK(and_or.evaluate_batch(enough).front().answered_as == QueryMode::kAnd);
    CHECK(fake.batches_ == 1);  // no OR batch when none fell short
}
