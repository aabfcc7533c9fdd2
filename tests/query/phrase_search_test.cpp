// Phrase queries on positional indexes, against a brute-force reference
// computed here from each document's own token sequence (positions, stop
// words, df and lengths all counted in the test, not read from the index),
// plus the quoting rules and the errors of `invidx search`.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "query/phrase_query.hpp"
#include "query/query_error.hpp"
#include "query/searcher.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// One JSONL document per text (docid = position), with or without positions.
std::filesystem::path build_texts(const TempDir& dir, const std::vector<std::string>& texts, bool positions,
                                  const std::string& name = "idx") {
    std::string jsonl;
    for (size_t i = 0; i < texts.size(); ++i) jsonl += nlohmann::json{{"id", "d" + std::to_string(i)}, {"contents", texts[i]}}.dump() + "\n";
    const auto input = dir.write("in-" + name + "/docs.jsonl", jsonl);
    const auto output = dir / name;
    std::vector<std::string> overrides;
    if (positions) overrides.push_back("positions=true");
    build_index(standard_pipeline({input.string()}, output, 2, 2), overrides);
    return output;
}

std::vector<uint32_t> docids_of(const std::vector<ScoredDocument>& hits) {
    std::vector<uint32_t> out;
    for (const auto& hit : hits) out.push_back(hit.docid);
    std::sort(out.begin(), out.end());
    return out;
}

// The test's own model of a collection: every document a sequence of words
// (one token each), every word's term (nullopt for a stop word).
class Reference {
public:
    Reference(const IndexReader& index, std::vector<std::vector<std::string>> documents)
        : analyzer_(index.analysis()), documents_(std::move(documents)) {
        for (const auto& words : documents_) {
            std::vector<std::optional<std::string>> terms;
            for (const auto& word : words) terms.push_back(term_of(word));
            terms_.push_back(std::move(terms));
        }
    }

    std::optional<std::string> term_of(const std::string& word) {
        auto terms = analyzer_.analyze_query(word);
        REQUIRE(terms.size() <= 1);
        if (terms.empty()) return std::nullopt;
        return terms.front();
    }

    // Document d holds the phrase: some start s where every non-stop word i
    // of it (counted from the first non-stop word) is the token at s + i.
    bool holds(size_t d, const std::vector<std::string>& phrase) {
        std::vector<std::pair<size_t, std::string>> kept;
        for (size_t i = 0; i < phrase.size(); ++i) {
            if (auto term = term_of(phrase[i])) kept.emplace_back(i, *term);
        }
        if (kept.empty()) return true;  // dropped: constrains nothing
        const size_t first = kept.front().first;
        const auto& terms = terms_[d];
        for (size_t start = 0; start < terms.size(); ++start) {
            bool all = true;
            for (const auto& [i, term] : kept) {
                const size_t at = start + i - first;
                if (at >= terms.size() || terms[at] != term) {
                    all = false;
                    break;
                }
            }
            if (all) return true;
        }
        return false;
    }

    // Every matching document with its CONTENT.md §10 score, by docid. `words` are
    // the query's words in text order (phrase words included).
    std::map<uint32_t, double> expected(const std::vector<std::string>& words,
                                        const std::vector<std::vector<std::string>>& phrases, bool conjunctive) {
        std::vector<std::string> query;
        for (const auto& word : words) {
            auto term = term_of(word);
            if (term && std::find(query.begin(), query.end(), *term) == query.end()) query.push_back(*term);
        }
        const auto n = static_cast<double>(documents_.size());
        double total = 0.0;
        std::vector<double> lengths;
        for (const auto& terms : terms_) {
            lengths.push_back(static_cast<double>(std::count_if(terms.begin(), terms.end(), [](const auto& t) { return t.has_value(); })));
            total += lengths.back();
        }
        const double average = total / n;
        std::map<uint32_t, double> out;
        if (query.empty()) return out;
        for (size_t d = 0; d < documents_.size(); ++d) {
            bool all_phrases = true;
            for (const auto& phrase : phrases) all_phrases = all_phrases && holds(d, phrase);
            if (!all_phrases) continue;
            double score = 0.0;
            size_t present = 0;
            for (const auto& term : query) {
                const auto tf = static_cast<double>(std::count(terms_[d].begin(), terms_[d].end(), term));
                if (tf == 0) continue;
                ++present;
                double df = 0;
                for (const auto& other : terms_) df += std::count(other.begin(), other.end(), term) > 0 ? 1 : 0;
                const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
                score += idf * tf * 1.9 / (tf + 0.9 * (1.0 - 0.4 + 0.4 * lengths[d] / average));
            }
            if (present == 0 || (conjunctive && present < query.size())) continue;
            out[static_cast<uint32_t>(d)] = score;
        }
        return out;
    }

    const std::vector<std::vector<std::string>>& documents() const { return documents_; }

private:
    Analyzer analyzer_;
    std::vector<std::vector<std::string>> documents_;
    std::vector<std::vector<std::optional<std::string>>> terms_;
};

void check_against(const std::vector<ScoredDocument>& hits, const std::map<uint32_t, double>& expected) {
    REQUIRE(hits.size() == expected.size());
    for (size_t r = 0; r < hits.size(); ++r) {
        CAPTURE(r);
        const auto it = expected.find(hits[r].docid);
        REQUIRE(it != expected.end());
        CHECK(std::abs(hits[r].score - it->second) <= 1e-9 * std::abs(it->second));
        if (r > 0) CHECK(ranks_before(hits[r - 1], hits[r]));
    }
}

}  // namespace

TEST_CASE("phrase analysis keeps stop-word gaps and drops empty phrases") {
    AnalysisSettings settings;
    settings.stopwords = {"the", "of", "a", "in"};
    settings.stemmer = "porter";
    Analyzer analyzer(settings);

    auto phrases = query_phrases(analyzer, "\"Bank of  America\" times \"the New York\" \"\" \"of the\"");
    REQUIRE(phrases.size() == 2);
    REQUIRE(phrases[0].terms.size() == 2);
    CHECK(phrases[0].terms[0].term == "bank");
    CHECK(phrases[0].terms[0].offset == 0);
    CHECK(phrases[0].terms[1].term == "america");
    CHECK(phrases[0].terms[1].offset == 2);
    // The leading stop word is dropped: offsets count from "new".
    REQUIRE(phrases[1].terms.size() == 2);
    CHECK(phrases[1].terms[0].term == "new");
    CHECK(phrases[1].terms[0].offset == 0);
    CHECK(phrases[1].terms[1].offset == 1);

    // Punctuation separates tokens but takes no position; stems as in documents.
    phrases = query_phrases(analyzer, "x \"running, rivers\"");
    REQUIRE(phrases.size() == 1);
    CHECK(phrases[0].terms[0].term == "run");
    CHECK(phrases[0].terms[1].term == "river");
    CHECK(phrases[0].terms[1].offset == 1);

    CHECK(query_phrases(analyzer, "no quotes at all").empty());
    CHECK_THROWS_AS(query_phrases(analyzer, "\"new york\" \"times"), QueryError);
    CHECK_THROWS_WITH(query_phrases(analyzer, "new \"york"), doctest::Contains("unterminated quote"));
}

TEST_CASE("phrase search: hand-made cases") {
    TempDir dir;
    const std::vector<std::string> texts = {
        "bank of america",             // 0
        "bank america",                // 1: no gap
        "bank in america",             // 2: another stop word in the gap
        "america bank of",             // 3
        "Bank, of. America!",          // 4: punctuation takes no position
        "bank the the america",        // 5: gap of two
        "bank river america",          // 6: any token fills the gap
        "new york times new york",     // 7
        "york new times",              // 8
        "running rivers of the new york",  // 9
    };
    const IndexReader index(build_texts(dir, texts, true));
    REQUIRE(index.positional());
    const Searcher searcher(index);
    auto docs = [&](const std::string& query, QueryMode mode = QueryMode::kOr) {
        return docids_of(searcher.search(query, {.k = 100, .mode = mode}).hits);
    };
    CHECK(docs("\"bank of america\"") == std::vector<uint32_t>{0, 2, 4, 6});
    CHECK(docs("\"bank america\"") == std::vector<uint32_t>{1});
    CHECK(docs("\"new york\"") == std::vector<uint32_t>{7, 9});
    CHECK(docs("\"york new\"") == std::vector<uint32_t>{8});
    CHECK(docs("\"new york new york\"").empty());
    CHECK(docs("\"new york times new york\"") == std::vector<uint32_t>{7});
    CHECK(docs("\"runs river\"") == std::vector<uint32_t>{9});            // stemmed like documents
    CHECK(docs("\"river of the new\"") == std::vector<uint32_t>{9});
    CHECK(docs("\"the new york\"") == std::vector<uint32_t>{7, 9});       // leading stop word: no constraint
    CHECK(docs("\"new york\" times") == std::vector<uint32_t>{7, 9});     // OR: the phrase filters
    CHECK(docs("\"new york\" times", QueryMode::kAnd) == std::vector<uint32_t>{7});
    CHECK(docs("\"new york\" \"bank\"").empty());                         // every phrase is required
    CHECK(docs("\"new york\" absentword").size() == 2);                   // OR: absent free term adds nothing
    CHECK(docs("\"new york\" absentword", QueryMode::kAnd).empty());
    CHECK(docs("\"new absentword\"").empty());
    // Empty and stop-word-only phrases are dropped; what is left is a plain query.
    CHECK(docs("\"\" times") == docs("times"));
    CHECK(docs("\"of the\" times") == docs("times"));
    CHECK(docs("\"of the\"").empty());
    CHECK(docs("\"\"").empty());
    CHECK_THROWS_AS(searcher.search("\"new york", {}), QueryError);

    // The score of a phrase match is the BM25 of the same words unquoted, bit for bit.
    const auto phrase = searcher.search("\"new york\" times", {.k = 100, .mode = QueryMode::kAnd});
    const auto plain = searcher.search("new york times", {.k = 100, .mode = QueryMode::kAnd});
    REQUIRE(phrase.hits.size() == 1);
    REQUIRE(plain.hits.size() == 2);  // 8 has the words, not the phrase
    const auto same = std::find_if(plain.hits.begin(), plain.hits.end(), [](const ScoredDocument& h) { return h.docid == 7; });
    REQUIRE(same != plain.hits.end());
    CHECK(phrase.hits[0] == *same);
}

TEST_CASE("phrase search matches the brute-force reference on random collections") {
    TempDir dir;
    std::mt19937 random(20261123);
    const std::vector<std::string> vocabulary = {"new", "york", "times", "bank", "america", "river", "rivers",
                                                 "running", "runs", "stone", "light", "green", "city",
                                                 "the", "of", "a", "in", "and"};  // the last five: stop words
    const std::vector<std::string> separators = {" ", " ", " ", ", ", ". ", " -- ", "\n"};
    std::vector<std::vector<std::string>> documents;
    std::vector<std::string> texts;
    for (int d = 0; d < 300; ++d) {
        std::vector<std::string> words;
        const int length = 1 + static_cast<int>(random() % 40);
        for (int w = 0; w < length; ++w) words.push_back(vocabulary[random() % (random() % 2 ? 6 : vocabulary.size())]);
        std::string text;
        for (const auto& word : words) {
            std::string shown = word;
            if (random() % 7 == 0) shown[0] = static_cast<char>(shown[0] - 'a' + 'A');  // case folds away
            text += shown + separators[random() % separators.size()];
        }
        documents.push_back(std::move(words));
        texts.push_back(std::move(text));
    }
    documents.push_back({});  // an empty document
    texts.push_back("");
    const auto path = build_texts(dir, texts, true);

    // Queries: phrases cut from documents (they match) and made of random
    // words (most do not), with free words around them.
    struct Case {
        std::string text;
        std::vector<std::string> words;
        std::vector<std::vector<std::string>> phrases;
    };
    std::vector<Case> cases;
    for (int q = 0; q < 200; ++q) {
        Case c;
        const int phrase_count = 1 + (q % 5 == 0 ? 1 : 0);
        for (int p = 0; p < phrase_count; ++p) {
            if (random() % 3 == 0) {
                const std::string free = vocabulary[random() % vocabulary.size()];
                c.text += free + " ";
                c.words.push_back(free);
            }
            std::vector<std::string> phrase;
            const size_t length = 2 + random() % 3;
            const auto& source = documents[random() % documents.size()];
            if (random() % 3 != 0 && source.size() >= length) {
                const size_t start = random() % (source.size() - length + 1);
                phrase.assign(source.begin() + static_cast<std::ptrdiff_t>(start), source.begin() + static_cast<std::ptrdiff_t>(start + length));
            } else {
                for (size_t w = 0; w < length; ++w) phrase.push_back(vocabulary[random() % vocabulary.size()]);
            }
            c.text += "\"";
            for (size_t w = 0; w < phrase.size(); ++w) c.text += (w ? " " : "") + phrase[w];
            c.text += "\" ";
            c.words.insert(c.words.end(), phrase.begin(), phrase.end());
            c.phrases.push_back(std::move(phrase));
        }
        if (random() % 2 == 0) {
            const std::string free = vocabulary[random() % vocabulary.size()];
            c.text += free;
            c.words.push_back(free);
        }
        cases.push_back(std::move(c));
    }

    auto check_all = [&](const IndexReader& index) {
        Reference reference(index, documents);
        const Searcher searcher(index);
        size_t matched = 0;
        for (const auto& c : cases) {
            CAPTURE(c.text);
            for (const auto mode : {QueryMode::kOr, QueryMode::kAnd}) {
                const bool conjunctive = mode == QueryMode::kAnd;
                CAPTURE(conjunctive);
                const auto expected = reference.expected(c.words, c.phrases, conjunctive);
                const auto all = searcher.search(c.text, {.k = documents.size(), .mode = mode});
                check_against(all.hits, expected);
                matched += expected.empty() ? 0 : 1;
                // A small k keeps the best of the full ranking.
                const auto top = searcher.search(c.text, {.k = 3, .mode = mode});
                REQUIRE(top.hits.size() == std::min<size_t>(3, all.hits.size()));
                for (size_t r = 0; r < top.hits.size(); ++r) CHECK(top.hits[r] == all.hits[r]);
            }
        }
        CHECK(matched > 100);  // the phrases cut from documents do match
    };
    SUBCASE("run files") { check_all(IndexReader(path)); }
    SUBCASE("merged, with the query layout (phrases still read the run files)") {
        merge_runs(path, MergeOptions{.query_codec = "bp128"});
        const IndexReader index(path);
        REQUIRE(index.positional());
        check_all(index);
    }
}

TEST_CASE("invidx search: phrases, quoting errors, and an index without positions") {
    TempDir dir;
    const std::vector<std::string> texts = {"new york times", "york new times", "the new york of old"};
    const auto positional = quoted(build_texts(dir, texts, true, "pos"));
    const auto plain = quoted(build_texts(dir, texts, false, "plain"));

    auto result = run_invidx(dir, "search " + positional + " '\"new york\" times' --format json");
    REQUIRE(result.exit_code == 0);
    auto parsed = nlohmann::json::parse(result.out);
    REQUIRE(parsed[0]["results"].size() == 2);
    CHECK(parsed[0]["results"][0]["name"] == "d0");  // the phrase and times
    CHECK(parsed[0]["results"][1]["name"] == "d2");

    result = run_invidx(dir, "search " + positional + " '\"new york\" times' --mode and --format trec");
    CHECK(result.exit_code == 0);
    CHECK(result.out.starts_with("1 Q0 d0 1 "));
    CHECK(result.out.find("d2") == std::string::npos);

    // Unterminated quote: a usage error naming the problem.
    result = run_invidx(dir, "search " + positional + " '\"new york'");
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("unterminated quote") != std::string::npos);
    // Empty phrase and a phrase of stop words only: dropped, not errors.
    result = run_invidx(dir, "search " + positional + " '\"\"'");
    CHECK(result.exit_code == 0);
    CHECK(result.out == "no results\n");
    result = run_invidx(dir, "search " + positional + " '\"the of\" old'");
    CHECK(result.exit_code == 0);
    CHECK(result.out.find("d2") != std::string::npos);

    // No positions: exit 2, saying how to build an index that has them.
    result = run_invidx(dir, "search " + plain + " '\"new york\"'");
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("without") != std::string::npos);
    CHECK(result.err.find("--set positions=true") != std::string::npos);
    CHECK(result.out.empty());
    // ... from a --queries file too, naming the query; the others are
    // answered (exit 4: some queries could not run).
    const auto queries = dir.write("topics.tsv", "q1\tnew york\nq2\t\"new york\" times\n");
    result = run_invidx(dir, "search " + plain + " --queries " + quoted(queries));
    CHECK(result.exit_code == 4);
    CHECK(result.err.find("topics.tsv: line 2: query q2: phrase") != std::string::npos);
    CHECK(result.err.find("positions=true") != std::string::npos);
    CHECK(result.out.find("query q1: new york\n1  ") != std::string::npos);
    result = run_invidx(dir, "search " + plain + " new york --mode and");
    CHECK(result.exit_code == 0);
    CHECK(result.out.find("d0") != std::string::npos);
    // A phrase that analyzes away needs no positions.
    CHECK(run_invidx(dir, "search " + plain + " '\"the\" york'").exit_code == 0);
}
