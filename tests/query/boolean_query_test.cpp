// Required, prohibited and boosted clauses (docs/QUERY.md, "Query syntax"):
// the plan's roles and query weights, and every CPU path (run files, query
// layout, impacts, phrases) against a brute-force scorer over all documents
// that applies the rules written out: a match holds every required term, no
// prohibited term and, without required terms, an optional one; its score
// is the sum of (idf · query weight) · tf part over its non-prohibited terms.
// Parenthesized groups (nested, boosted, required, prohibited) against a
// brute force that matches every document against the clause tree as
// Lucene's BooleanQuery does; prohibited phrases over a positional index.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "long_lists.hpp"
#include "query/query_error.hpp"
#include "query/query_plan.hpp"
#include "query/query_syntax.hpp"
#include "query/scored_index.hpp"
#include "query/searcher.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// One generated clause: a single word (one token), how it occurs, its boost.
struct TestClause {
    std::string word;
    Occur occur = Occur::kShould;
    double boost = 0.0;  // 0: none written
};

std::string render(const std::vector<TestClause>& clauses, std::mt19937& random) {
    std::string query;
    for (const auto& clause : clauses) {
        if (!query.empty()) query += random() % 3 == 0 ? "  " : " ";
        if (clause.occur == Occur::kMust) query += "+";
        if (clause.occur == Occur::kMustNot) query += random() % 2 ? "-" : "NOT ";
        query += clause.word;
        if (clause.boost > 0.0) {
            char text[32];
            std::snprintf(text, sizeof text, "^%g", clause.boost);
            query += text;
        }
    }
    return query;
}

std::vector<TestClause> random_clauses(std::mt19937& random, const std::vector<std::string>& words) {
    static const std::vector<std::string> stop = {"the", "and", "of"};
    static const double boosts[] = {2.0, 0.5, 1.5, 3.25};
    std::vector<TestClause> clauses;
    const int count = 1 + static_cast<int>(random() % 6);
    for (int c = 0; c < count; ++c) {
        TestClause clause;
        switch (random() % 8) {
            case 0: clause.word = words[random() % 15]; break;  // frequent
            case 1: clause.word = words[words.size() - 1 - random() % (words.size() / 2)]; break;  // rare
            case 2: clause.word = stop[random() % stop.size()]; break;
            case 3: clause.word = clauses.empty() ? "qqq9absent" : clauses[random() % clauses.size()].word; break;  // repeated
            default: clause.word = words[random() % 60];
        }
        const auto occur = random() % 8;
        clause.occur = occur < 4 ? Occur::kShould : occur < 6 ? Occur::kMust : Occur::kMustNot;
        if (random() % 3 == 0) clause.boost = boosts[random() % 4];
        clauses.push_back(clause);
    }
    return clauses;
}

// What the rules make of the clauses, per distinct term in first-occurrence order.
struct ExpectedTerm {
    std::string term;
    bool required = false, prohibited = false, unboosted = false;
    double boosts = 0.0;
    double query_weight() const { return (unboosted ? 1.0 : 0.0) + boosts; }
};

std::vector<ExpectedTerm> expected_terms(const std::vector<TestClause>& clauses, Analyzer& analyzer, bool conjunctive) {
    std::vector<ExpectedTerm> terms;
    for (const auto& clause : clauses) {
        const auto analyzed = analyzer.analyze_query(clause.word);
        if (analyzed.empty()) continue;  // a stop word: no clause
        auto it = std::find_if(terms.begin(), terms.end(), [&](const ExpectedTerm& t) { return t.term == analyzed[0]; });
        if (it == terms.end()) it = terms.insert(terms.end(), ExpectedTerm{.term = analyzed[0]});
        if (clause.occur == Occur::kMustNot) {
            it->prohibited = true;
            continue;
        }
        it->required = it->required || clause.occur == Occur::kMust;
        if (clause.boost > 0.0) {
            it->boosts += clause.boost;
        } else {
            it->unboosted = true;
        }
    }
    // AND: every term not prohibited is required (a prohibition still wins over `a -a`).
    for (auto& term : terms) term.required = term.required || (conjunctive && !term.prohibited);
    return terms;
}

// Every document tested against the rules and scored; ranked, not cut to k.
// `impacts`: score by query weight × the layout's stored impacts.
// A term's docids and its tfs (run files) or impacts (the query layout).
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> list_values(const IndexReader& index,
                                                                    const QueryPostings* impacts, uint64_t term) {
    std::vector<uint32_t> docids, values;
    if (impacts) {
        const auto list = impacts->list(term);
        docids.resize(list.df());
        values.resize(list.df());
        size_t at = 0;
        for (size_t block = 0; block < list.blocks().size(); ++block) {
            const size_t postings = list.blocks()[block].postings;
            list.decode_docids(block, std::span(docids).subspan(at, postings));
            list.decode_impacts(block, std::span(values).subspan(at, postings));
            at += postings;
        }
    } else {
        const auto list = index.postings(term);
        docids = list.docids;
        values = list.tfs;
    }
    return {std::move(docids), std::move(values)};
}

std::vector<ScoredDocument> brute_force(const IndexReader& index, const std::vector<ExpectedTerm>& terms,
                                        const QueryPostings* impacts) {
    const double k1 = 0.9, b = 0.4;
    const auto documents = static_cast<double>(index.num_documents());
    const double avgdl = index.average_length();
    const size_t n = index.num_documents();
    std::vector<double> scores(n, 0.0);
    std::vector<size_t> required_held(n, 0);
    std::vector<bool> prohibited_held(n, false), optional_held(n, false);
    size_t required = 0;
    bool any_required = false;
    for (const auto& term : terms) {
        if (term.required && term.prohibited) return {};
        any_required = any_required || term.required;
        required += term.required;
        const auto i = index.find_term(term.term);
        if (!i) {
            if (term.required) return {};
            continue;
        }
        const auto df = static_cast<double>(index.term(*i).df);
        const double weight = std::log(1.0 + (documents - df + 0.5) / (df + 0.5)) * term.query_weight();
        const auto [docids, values] = list_values(index, impacts, *i);
        for (size_t p = 0; p < docids.size(); ++p) {
            const uint32_t d = docids[p];
            if (term.prohibited) {
                prohibited_held[d] = true;
                continue;
            }
            required_held[d] += term.required;
            optional_held[d] = optional_held[d] || !term.required;
            const double tf = values[p];
            const double dl = index.document(d).length;
            scores[d] += impacts ? term.query_weight() * tf : weight * (tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)));
        }
    }
    std::vector<ScoredDocument> all;
    for (uint32_t d = 0; d < n; ++d) {
        const bool matches = !prohibited_held[d] && required_held[d] == required && (any_required || optional_held[d]);
        if (matches) all.push_back({d, scores[d]});
    }
    std::sort(all.begin(), all.end(), [](const ScoredDocument& x, const ScoredDocument& y) {
        return x.score != y.score ? x.score > y.score : x.docid < y.docid;
    });
    return all;
}

// A generated clause tree: a word (one token, or a stop word) or a group.
struct TestTree {
    std::string word;  // empty: a group of `children`
    Occur occur = Occur::kShould;
    double boost = 0.0;  // 0: none written
    std::vector<TestTree> children;
};

std::string render_tree(const std::vector<TestTree>& clauses, std::mt19937& random) {
    std::string query;
    for (const auto& clause : clauses) {
        if (!query.empty()) query += random() % 3 == 0 ? "  " : " ";
        if (clause.occur == Occur::kMust) query += "+";
        if (clause.occur == Occur::kMustNot) query += random() % 2 ? "-" : "NOT ";
        query += clause.word.empty() ? "(" + std::string(random() % 2 ? " " : "") + render_tree(clause.children, random) + ")" : clause.word;
        if (clause.boost > 0.0) {
            char text[32];
            std::snprintf(text, sizeof text, "^%g", clause.boost);
            query += text;
        }
    }
    return query;
}

std::vector<TestTree> random_tree(std::mt19937& random, const std::vector<std::string>& words, int depth) {
    static const std::vector<std::string> stop = {"the", "and", "of"};
    static const double boosts[] = {2.0, 0.5, 1.5, 3.25};
    std::vector<TestTree> clauses;
    const int count = 1 + static_cast<int>(random() % (depth == 0 ? 5 : 3));
    for (int c = 0; c < count; ++c) {
        TestTree clause;
        if (depth < 3 && random() % 3 == 0) {
            clause.children = random_tree(random, words, depth + 1);
        } else {
            switch (random() % 8) {
                case 0: clause.word = words[random() % 15]; break;  // frequent
                case 1: clause.word = words[words.size() - 1 - random() % (words.size() / 2)]; break;  // rare
                case 2: clause.word = stop[random() % stop.size()]; break;
                case 3: clause.word = random() % 4 == 0 ? "qqq9absent" : words[random() % 8]; break;
                default: clause.word = words[random() % 40];
            }
        }
        const auto occur = random() % 8;
        clause.occur = occur < 4 ? Occur::kShould : occur < 6 ? Occur::kMust : Occur::kMustNot;
        if (random() % 4 == 0) clause.boost = boosts[random() % 4];
        clauses.push_back(clause);
    }
    return clauses;
}

// The analyzed tree: a term (its index in the expected terms) or a group;
// stop words and groups left empty are gone, as Lucene's parser drops them.
struct ExpectedNode {
    int term = -1;  // -1: a group
    Occur occur = Occur::kShould;
    std::vector<ExpectedNode> children;
};

// Terms in first-occurrence order with their query weights: 1 if a clause
// outside every prohibition names the term unboosted, plus the boosts
// (times their groups' boosts) of those naming it boosted.
struct TreeTerms {
    std::vector<ExpectedTerm> terms;

    std::vector<ExpectedNode> analyze(const std::vector<TestTree>& clauses, Analyzer& analyzer, double boost, bool boosted,
                                      bool prohibited) {
        std::vector<ExpectedNode> out;
        for (const auto& clause : clauses) {
            const double inner = boost * (clause.boost > 0.0 ? clause.boost : 1.0);
            const bool inner_boosted = boosted || clause.boost > 0.0;
            const bool inner_prohibited = prohibited || clause.occur == Occur::kMustNot;
            if (clause.word.empty()) {
                ExpectedNode group{.term = -1, .occur = clause.occur, .children = {}};
                group.children = analyze(clause.children, analyzer, inner, inner_boosted, inner_prohibited);
                if (!group.children.empty()) out.push_back(std::move(group));
                continue;
            }
            const auto analyzed = analyzer.analyze_query(clause.word);
            if (analyzed.empty()) continue;
            auto it = std::find_if(terms.begin(), terms.end(), [&](const ExpectedTerm& t) { return t.term == analyzed[0]; });
            if (it == terms.end()) it = terms.insert(terms.end(), ExpectedTerm{.term = analyzed[0]});
            if (!inner_prohibited) {
                if (inner_boosted) {
                    it->boosts += inner;
                } else {
                    it->unboosted = true;
                }
            }
            out.push_back({.term = static_cast<int>(it - terms.begin()), .occur = clause.occur, .children = {}});
        }
        return out;
    }
};

// Lucene's BooleanQuery: every required clause, no prohibited one, and
// without required clauses an optional one; AND makes optional required,
// except that in a query without groups an optional term the query also
// prohibits stays prohibited only (the flat roles' rule: `a -a b` is `+b -a`).
bool tree_matches(const ExpectedNode& node, const std::vector<bool>& held, bool conjunctive, bool top = true) {
    if (node.term >= 0) return held[static_cast<size_t>(node.term)];
    const bool flat = top && std::none_of(node.children.begin(), node.children.end(), [](const ExpectedNode& c) { return c.term < 0; });
    const auto prohibited_here = [&](int term) {
        return std::any_of(node.children.begin(), node.children.end(),
                           [&](const ExpectedNode& c) { return c.term == term && c.occur == Occur::kMustNot; });
    };
    bool any_required = false, any_optional = false;
    for (const auto& child : node.children) {
        if (flat && conjunctive && child.occur == Occur::kShould && prohibited_here(child.term)) continue;
        const Occur occur = conjunctive && child.occur == Occur::kShould ? Occur::kMust : child.occur;
        const bool matched = tree_matches(child, held, conjunctive, false);
        if (occur == Occur::kMustNot && matched) return false;
        if (occur == Occur::kMust && !matched) return false;
        any_required = any_required || occur == Occur::kMust;
        any_optional = any_optional || (occur == Occur::kShould && matched);
    }
    return any_required || any_optional;
}

// Every document matched against the tree and scored over the terms it
// holds with a positive query weight; ranked, not cut to k.
std::vector<ScoredDocument> brute_force_tree(const IndexReader& index, const TreeTerms& tree, const ExpectedNode& root,
                                             bool conjunctive, const QueryPostings* impacts) {
    const double k1 = 0.9, b = 0.4;
    const auto documents = static_cast<double>(index.num_documents());
    const double avgdl = index.average_length();
    const size_t n = index.num_documents();
    const size_t count = tree.terms.size();
    std::vector<std::vector<bool>> held(n, std::vector<bool>(count, false));
    std::vector<std::vector<double>> contribution(n, std::vector<double>(count, 0.0));
    for (size_t t = 0; t < count; ++t) {
        const auto& term = tree.terms[t];
        const auto i = index.find_term(term.term);
        if (!i) continue;
        const auto df = static_cast<double>(index.term(*i).df);
        const double weight = std::log(1.0 + (documents - df + 0.5) / (df + 0.5)) * term.query_weight();
        const auto [docids, values] = list_values(index, impacts, *i);
        for (size_t p = 0; p < docids.size(); ++p) {
            const uint32_t d = docids[p];
            held[d][t] = true;
            const double tf = values[p];
            const double dl = index.document(d).length;
            contribution[d][t] = impacts ? term.query_weight() * tf : weight * (tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)));
        }
    }
    std::vector<ScoredDocument> all;
    for (uint32_t d = 0; d < n; ++d) {
        if (!tree_matches(root, held[d], conjunctive)) continue;
        double score = 0.0;
        for (size_t t = 0; t < count; ++t) {
            if (held[d][t] && tree.terms[t].query_weight() > 0.0) score += contribution[d][t];
        }
        all.push_back({d, score});
    }
    std::sort(all.begin(), all.end(), [](const ScoredDocument& x, const ScoredDocument& y) {
        return x.score != y.score ? x.score > y.score : x.docid < y.docid;
    });
    return all;
}

// The collection at `standard` three ways: its run files only, a bp128 query
// layout, and a vbyte layout with 8-bit impacts.
std::array<std::filesystem::path, 3> three_layouts(const TempDir& dir, const std::filesystem::path& standard) {
    const auto layout = with_query_layout(dir, standard, "bp128");
    const auto weighted = with_query_layout(dir, standard, "vbyte");
    merge_runs(weighted, {.query_codec = "vbyte", .impact_bits = 8});
    return {standard, layout, weighted};
}

// Five documents with positions: docs 0-2 hold "red fox"; 1 also "dog"; 3
// has red and fox apart; 4 has fox only. Returns the index directory.
std::filesystem::path red_fox_index(const TempDir& dir) {
    const std::vector<std::string> texts = {"the red fox runs", "red fox and dog", "a red fox, red fox", "fox red", "fox cat dog"};
    std::string jsonl;
    for (size_t i = 0; i < texts.size(); ++i) jsonl += nlohmann::json{{"id", "d" + std::to_string(i)}, {"contents", texts[i]}}.dump() + "\n";
    const auto input = dir.write("in/docs.jsonl", jsonl);
    build_index(standard_pipeline({input.string()}, dir / "idx", 2, 2), {"positions=true"});
    return dir / "idx";
}

// The docids of the top 10 hits, in docid order.
std::vector<uint32_t> sorted_docids(const Searcher& searcher, std::string_view query, QueryMode mode) {
    std::vector<uint32_t> out;
    for (const auto& hit : searcher.search(query, {.k = 10, .mode = mode}).hits) out.push_back(hit.docid);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("boolean plan: roles, summed boosts, contradictions, prohibited phrases, weighted vectors") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"zebra plum", "zebra pear", "plum fig", "kiwi"}));
    const ScoredIndex scored(index, {});
    Analyzer analyzer(index.analysis());
    const double zebra = scored.bm25().idf(2);

    const QueryPlan plan = analyze_query("+zebra -pear plum^2 plum fig^0.5 fig^1.5 NOT kiwi AND qqabsent", {}, scored, analyzer);
    std::vector<std::string> names;
    for (const auto& term : plan.terms.terms) names.push_back(term.term);
    CHECK(names == std::vector<std::string>{"zebra", "pear", "plum", "fig", "kiwi", "qqabsent"});
    CHECK(plan.roles == std::vector<TermRole>{TermRole::kRequired, TermRole::kProhibited, TermRole::kOptional,
                                              TermRole::kOptional, TermRole::kProhibited, TermRole::kRequired});
    CHECK(plan.query_weights == std::vector<double>{1.0, 0.0, 3.0, 2.0, 0.0, 1.0});
    CHECK(plan.weights[0] == zebra);  // plain text: the idf itself
    CHECK(plan.weights[1] == 0.0);
    CHECK(plan.weights[2] == scored.bm25().idf(2) * 3.0);
    CHECK(plan.weights[5] == 0.0);  // absent
    CHECK(plan.has_boolean_clauses());
    CHECK(plan.matches_nothing());  // a required term no document has
    CHECK(!plan.contradictory);

    // Repeated plain words count once, as before; a word repeated in one clause too.
    const QueryPlan plain = analyze_query("zebra zebra plum", {}, scored, analyzer);
    CHECK(plain.query_weights == std::vector<double>{1.0, 1.0});
    CHECK(!plain.has_boolean_clauses());
    CHECK(!analyze_query("+zebra +plum", {.mode = QueryMode::kAnd}, scored, analyzer).has_boolean_clauses());
    CHECK(analyze_query("zebra -plum", {.mode = QueryMode::kAnd}, scored, analyzer).has_boolean_clauses());

    CHECK(analyze_query("+zebra -zebra plum", {}, scored, analyzer).contradictory);
    CHECK(analyze_query("+zebra -zebra plum", {}, scored, analyzer).matches_nothing());
    CHECK(analyze_query("-zebra -plum", {}, scored, analyzer).matches_nothing());  // nothing to score
    CHECK(analyze_query("zebra -qqabsent", {}, scored, analyzer).roles.back() == TermRole::kProhibited);
    CHECK(!analyze_query("zebra -qqabsent", {}, scored, analyzer).matches_nothing());
    CHECK(analyze_query("+the zebra", {}, scored, analyzer).roles == std::vector<TermRole>{TermRole::kOptional});

    // Phrases: their words required; a boosted phrase boosts its words; a prohibited phrase is a clause tree.
    const QueryPlan phrase = analyze_query("\"zebra plum\"^2 plum", {}, scored, analyzer);
    CHECK(phrase.roles == std::vector<TermRole>{TermRole::kRequired, TermRole::kRequired});
    CHECK(phrase.query_weights == std::vector<double>{2.0, 3.0});
    CHECK(phrase.phrases.size() == 1);
    CHECK(analyze_query("\"zebra plum\" -plum", {}, scored, analyzer).contradictory);
    const QueryPlan prohibited_phrase = analyze_query("fig -\"zebra plum\"", {}, scored, analyzer);
    CHECK(prohibited_phrase.clause_tree != nullptr);  // evaluated as a clause tree
    CHECK(prohibited_phrase.phrases.size() == 1);
    CHECK(prohibited_phrase.query_weights == std::vector<double>{1.0, 0.0, 0.0});
    CHECK_THROWS_WITH_AS(analyze_query("fig AND", {}, scored, analyzer), doctest::Contains("syntax error"), QueryError);

    // Weighted vectors: verbatim terms (no stemming), all optional, their weights.
    const QueryPlan vector = analyze_query(" {\"zebra\": 2, \"plums\": 0.25, \"fig\": 1e-3}", {}, scored, analyzer);
    names.clear();
    for (const auto& term : vector.terms.terms) names.push_back(term.term);
    CHECK(names == std::vector<std::string>{"zebra", "plums", "fig"});
    CHECK(!vector.terms.terms[1].index.has_value());  // "plums" is not stemmed
    CHECK(vector.query_weights == std::vector<double>{2.0, 0.25, 1e-3});
    CHECK(vector.weights[0] == zebra * 2.0);
    CHECK(!vector.has_boolean_clauses());
    for (const char* bad : {"{\"zebra\": 0}", "{\"zebra\": -1}", "{\"zebra\": \"2\"}", "{\"\": 1}", "{\"a\": 1, \"a\": 2}",
                            "{\"zebra\": 1"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS(analyze_query(bad, {}, scored, analyzer), doctest::Contains("weighted query"), QueryError);
    }
    CHECK_THROWS_WITH_AS(analyze_query("{\"" + std::string(256, 'x') + "\": 1}", {}, scored, analyzer),
                         doctest::Contains("1 to 255"), QueryError);
    CHECK_NOTHROW(analyze_query("{\"" + std::string(255, 'x') + "\": 1}", {}, scored, analyzer));
    const std::vector<WeightedTerm> by_hand = {{"zebra", 1.5}, {"Plum", 1.0}};
    const QueryPlan made = plan_vector_query(by_hand, {}, scored);
    CHECK(made.weights[0] == zebra * 1.5);
    CHECK(!made.terms.terms[1].index.has_value());  // verbatim: "Plum" is not "plum"
}

TEST_CASE("boolean queries equal brute force: run files, query layout and impacts, OR and AND, k 1, 10, 1000") {
    TempDir dir;
    std::mt19937 random(2031);
    const auto [words, standard] = skewed_collection(dir, random, 400, 1500, 2.5);
    const auto paths = three_layouts(dir, standard);
    const auto& weighted = paths[2];

    size_t nonempty = 0, boolean = 0, prohibited_cut = 0;
    for (const auto& path : paths) {
        const IndexReader index(path);
        const Searcher searcher(index);
        Analyzer analyzer(index.analysis());
        const bool impacts = path == weighted;
        for (int q = 0; q < 150; ++q) {
            auto clauses = random_clauses(random, words);
            // Impact scoring with boosts is checked here where the plan has
            // required or prohibited terms (this file's evaluator).
            if (impacts) clauses.push_back({.word = "qqq9absent", .occur = Occur::kMustNot});
            const std::string query = render(clauses, random);
            for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd}) {
                const auto terms = expected_terms(clauses, analyzer, mode == QueryMode::kAnd);
                const auto expected = brute_force(index, terms, impacts ? searcher.query_postings() : nullptr);
                for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                    CAPTURE(query);
                    CAPTURE(path.filename().string());
                    CAPTURE(mode == QueryMode::kAnd ? "AND" : "OR");
                    CAPTURE(k);
                    SearchOptions options{.k = k, .mode = mode};
                    if (impacts) options.scoring = QueryScoring::kImpact;
                    const auto result = searcher.search(query, options, analyzer);
                    check_same_top_k(result.hits, expected, k);
                    if (k == 10) {
                        nonempty += !result.hits.empty();
                        boolean += searcher.plan(query, options, analyzer).has_boolean_clauses();
                    }
                }
                // and-or: AND's answer when it has k, else OR's.
                if (mode == QueryMode::kOr) {
                    SearchOptions options{.k = 10, .mode = QueryMode::kAndOr};
                    if (impacts) options.scoring = QueryScoring::kImpact;
                    const auto and_terms = expected_terms(clauses, analyzer, true);
                    const auto conjunctive = brute_force(index, and_terms, impacts ? searcher.query_postings() : nullptr);
                    const auto result = searcher.search(query, options, analyzer);
                    check_same_top_k(result.hits, conjunctive.size() >= 10 ? conjunctive : expected, 10);
                }
            }
            // Removing the prohibited clauses lets more documents in.
            std::vector<TestClause> allowed;
            for (const auto& clause : clauses) {
                if (clause.occur != Occur::kMustNot) allowed.push_back(clause);
            }
            if (allowed.size() < clauses.size()) {
                const auto with = brute_force(index, expected_terms(clauses, analyzer, false), nullptr);
                const auto without = brute_force(index, expected_terms(allowed, analyzer, false), nullptr);
                prohibited_cut += with.size() < without.size();
            }
        }
    }
    CHECK(nonempty > 300);
    CHECK(boolean > 400);
    CHECK(prohibited_cut > 50);
}

TEST_CASE("boolean queries with phrases equal brute force over the phrase's documents") {
    TempDir dir;
    const IndexReader index(red_fox_index(dir));
    const Searcher searcher(index);
    const auto docids = [&](std::string_view query, QueryMode mode = QueryMode::kOr) {
        return sorted_docids(searcher, query, mode);
    };
    CHECK(docids("\"red fox\"") == std::vector<uint32_t>{0, 1, 2});
    CHECK(docids("\"red fox\" -dog") == std::vector<uint32_t>{0, 2});
    CHECK(docids("\"red fox\" NOT dog runs") == std::vector<uint32_t>{0, 2});
    CHECK(docids("+\"red fox\" +runs") == std::vector<uint32_t>{0});
    CHECK(docids("\"red fox\" AND dog") == std::vector<uint32_t>{1});
    CHECK(docids("\"red fox\" -qqabsent") == std::vector<uint32_t>{0, 1, 2});
    CHECK(docids("\"red fox\" dog", QueryMode::kAnd) == std::vector<uint32_t>{1});
    CHECK(docids("\"red fox\" -dog", QueryMode::kAnd) == std::vector<uint32_t>{0, 2});
    // A phrase match scores what its words score unquoted with the same roles and boosts.
    const auto quoted = searcher.search("\"red fox\"^2 runs -dog", {.k = 10}).hits;
    const auto unquoted = searcher.search("+red^2 +fox^2 runs -dog", {.k = 10}).hits;  // also doc 3, "fox red"
    REQUIRE(quoted.size() == 2);
    for (const auto& hit : quoted) {
        const auto same = std::find_if(unquoted.begin(), unquoted.end(), [&](const ScoredDocument& u) { return u.docid == hit.docid; });
        REQUIRE(same != unquoted.end());
        CHECK(same->score == hit.score);  // bit for bit
    }
    const auto boosted = searcher.search("fox^2 -dog", {.k = 10}).hits;
    const auto plain = searcher.search("fox -dog", {.k = 10}).hits;
    REQUIRE(boosted.size() == plain.size());
    for (size_t i = 0; i < plain.size(); ++i) CHECK(boosted[i].score == doctest::Approx(2.0 * plain[i].score).epsilon(1e-12));
}

TEST_CASE("grouped plans: flat when the roles say it all, a clause tree otherwise, weights through groups") {
    TempDir dir;
    const IndexReader index(build_text_index(dir, {"zebra plum", "zebra pear", "plum fig", "kiwi"}));
    const ScoredIndex scored(index, {});
    Analyzer analyzer(index.analysis());
    const auto plan = [&](std::string_view query, QueryMode mode = QueryMode::kOr) {
        return analyze_query(query, {.mode = mode}, scored, analyzer);
    };
    // Groups the flat roles can say are made flat: the same plan as without them.
    for (const auto& [grouped, flat] : std::vector<std::pair<std::string, std::string>>{
             {"(zebra plum)", "zebra plum"},
             {"(zebra (plum))", "zebra plum"},
             {"(zebra -pear)", "zebra -pear"},
             {"+(+zebra plum) fig", "+zebra plum fig"},
             {"+(+zebra -pear)", "+zebra -pear"},
             {"-(pear)", "-pear"},
             {"(+zebra) plum", "zebra plum"},
             {"((zebra plum)^2 fig)^3", "zebra^6 plum^6 fig^3"},
             {"(the) zebra", "zebra"},
             {"+(the of) zebra", "zebra"},
         }) {
        CAPTURE(grouped);
        const QueryPlan a = plan(grouped), b = plan(flat);
        CHECK(a.clause_tree == nullptr);
        CHECK(a.roles == b.roles);
        CHECK(a.query_weights == b.query_weights);
        CHECK(a.has_boolean_clauses() == b.has_boolean_clauses());
    }
    CHECK(!plan("((zebra plum)^2 fig)^3").has_boolean_clauses());  // a plain OR with weights: any algorithm, any device

    // What flat roles cannot say: a tree, evaluated on the CPU.
    for (const char* query : {"+(zebra plum) fig", "-(zebra plum) fig", "(+zebra +plum) fig", "fig -\"zebra plum\"",
                              "(+zebra -zebra) fig", "+(-zebra) fig"}) {
        CAPTURE(query);
        const QueryPlan tree = plan(query);
        CHECK(tree.clause_tree != nullptr);
        CHECK(tree.has_boolean_clauses());
        CHECK(!tree.contradictory);
    }
    const QueryPlan tree = plan("+(zebra^2 plum) -(+fig kiwi)^3 (pear zebra)^0.5");
    REQUIRE(tree.clause_tree != nullptr);
    std::vector<std::string> names;
    for (const auto& term : tree.terms.terms) names.push_back(term.term);
    CHECK(names == std::vector<std::string>{"zebra", "plum", "fig", "kiwi", "pear"});
    CHECK(tree.query_weights == std::vector<double>{2.5, 1.0, 0.0, 0.0, 0.5});
    CHECK(tree.roles == std::vector<TermRole>{TermRole::kOptional, TermRole::kOptional, TermRole::kProhibited,
                                              TermRole::kProhibited, TermRole::kOptional});
    // A term named outside a prohibition too is scored there.
    CHECK(plan("zebra -(+zebra +pear)").query_weights == std::vector<double>{1.0, 0.0});
    // Whether anything can match: an absent required term, a group of prohibited clauses only.
    CHECK(plan("+(qqabsent zebra) fig").matches_nothing() == false);
    CHECK(plan("+(qqabsent +qqother) fig").matches_nothing());
    CHECK(plan("+(-zebra) fig").matches_nothing());
    CHECK(!plan("(-zebra) fig").matches_nothing());
    CHECK(plan("+(qqabsent zebra) fig", QueryMode::kAnd).matches_nothing());
    // A prohibited phrase is a phrase: it needs positions, as any phrase does.
    CHECK_THROWS_WITH_AS(plan_query("fig -\"zebra plum\"", {}, scored, analyzer), doctest::Contains("needs positions"), QueryError);
    CHECK_THROWS_WITH_AS(plan_query("(fig zebra", {}, scored, analyzer),
                         doctest::Contains("syntax error in query '(fig zebra' at character 1: '(' has no matching ')'"), QueryError);
}

TEST_CASE("grouped queries equal brute force: run files, query layout and impacts, OR, AND and and-or, k 1, 10, 1000") {
    TempDir dir;
    std::mt19937 random(3131);
    const auto [words, standard] = skewed_collection(dir, random, 300, 1200, 2.5);
    const auto paths = three_layouts(dir, standard);
    const auto& weighted = paths[2];

    size_t nonempty = 0, trees = 0, flat = 0;
    for (const auto& path : paths) {
        const IndexReader index(path);
        const Searcher searcher(index);
        Analyzer analyzer(index.analysis());
        const bool impacts = path == weighted;
        const QueryPostings* impact_layout = impacts ? searcher.query_postings() : nullptr;
        for (int q = 0; q < 150; ++q) {
            const auto clauses = random_tree(random, words, 0);
            const std::string query = render_tree(clauses, random);
            TreeTerms tree;
            const ExpectedNode root{.term = -1, .occur = Occur::kMust, .children = tree.analyze(clauses, analyzer, 1.0, false, false)};
            const auto or_ranking = brute_force_tree(index, tree, root, false, impact_layout);
            const auto and_ranking = brute_force_tree(index, tree, root, true, impact_layout);
            for (const QueryMode mode : {QueryMode::kOr, QueryMode::kAnd, QueryMode::kAndOr}) {
                for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
                    CAPTURE(query);
                    CAPTURE(path.filename().string());
                    CAPTURE(static_cast<int>(mode));
                    CAPTURE(k);
                    SearchOptions options{.k = k, .mode = mode};
                    if (impacts) options.scoring = QueryScoring::kImpact;
                    const auto result = searcher.search(query, options, analyzer);
                    const auto& expected = mode == QueryMode::kOr    ? or_ranking
                                           : mode == QueryMode::kAnd ? and_ranking
                                           : and_ranking.size() >= k ? and_ranking
                                                                     : or_ranking;
                    check_same_top_k(result.hits, expected, k);
                    if (k == 10 && mode == QueryMode::kOr) {
                        nonempty += !result.hits.empty();
                        const bool has_tree = searcher.plan(query, options, analyzer).clause_tree != nullptr;
                        trees += has_tree;
                        flat += !has_tree;
                    }
                }
            }
        }
    }
    CHECK(nonempty > 150);
    CHECK(trees > 150);
    CHECK(flat > 50);
}

TEST_CASE("prohibited phrases and phrases in groups equal the documents written out") {
    TempDir dir;
    const IndexReader index(red_fox_index(dir));
    const Searcher searcher(index);
    const auto docids = [&](std::string_view query, QueryMode mode = QueryMode::kOr) {
        return sorted_docids(searcher, query, mode);
    };
    using Docs = std::vector<uint32_t>;
    CHECK(docids("fox -\"red fox\"") == Docs{3, 4});
    CHECK(docids("fox NOT \"red fox\"") == Docs{3, 4});
    CHECK(docids("red -\"red fox\"") == Docs{3});
    CHECK(docids("fox -\"fox red\" -cat") == Docs{0, 1});  // doc 2 holds "fox, red"
    CHECK(docids("-\"red fox\"").empty());  // prohibited clauses only
    CHECK(docids("fox -\"qqabsent fox\"") == Docs{0, 1, 2, 3, 4});
    CHECK(docids("\"red fox\" -\"fox and dog\"") == Docs{0, 2});
    CHECK(docids("fox -\"red fox\"", QueryMode::kAnd) == Docs{3, 4});
    // A phrase as a clause of a group: required within it, optional as the group is.
    CHECK(docids("(\"red fox\" runs) cat") == Docs{0, 1, 2, 4});
    CHECK(docids("+(\"red fox\" cat) dog") == Docs{0, 1, 2});
    CHECK(docids("\"red fox\" +(runs dog)") == Docs{0, 1});
    CHECK(docids("(fox -\"red fox\") cat") == Docs{3, 4});
    CHECK(docids("+(\"red fox\" cat) dog", QueryMode::kAnd).empty());
    CHECK(docids("+(+\"red fox\" -dog) (runs)") == Docs{0, 2});
    CHECK(docids("-(\"red fox\" dog) fox") == Docs{3, 4});  // the group matches with the phrase
    CHECK(docids("-(+\"red fox\" +dog) fox") == Docs{0, 2, 3, 4});
    // The clauses decide which documents match; a match scores its terms, prohibited ones excluded.
    const auto grouped = searcher.search("fox -\"red fox\"", {.k = 10}).hits;
    const auto plain = searcher.search("fox", {.k = 10}).hits;
    for (const auto& hit : grouped) {
        const auto same = std::find_if(plain.begin(), plain.end(), [&](const ScoredDocument& p) { return p.docid == hit.docid; });
        REQUIRE(same != plain.end());
        CHECK(same->score == hit.score);  // bit for bit
    }
    // Impact scoring takes no phrase, prohibited or not.
    CHECK_THROWS_WITH_AS(searcher.search("fox -\"red fox\"", {.k = 10, .scoring = QueryScoring::kImpact}),
                         doctest::Contains("impact"), QueryError);
}
