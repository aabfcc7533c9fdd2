// A collection whose frequent terms have lists of hundreds of blocks of 128
// (the query layout's skipping and block maxima only matter there), medium
// and rare terms, varied tfs and lengths (so block maxima differ from block
// to block), and exact duplicate documents (so scores tie); an exhaustive
// reference scored straight from the run files; random queries over it.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/searcher.hpp"
#include "query/topk.hpp"
#include "store/codecs/registry.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

namespace invidx::testing {

struct LongListCollection {
    std::vector<std::string> common;  // in 15-95% of the documents: 100-400 blocks each
    std::vector<std::string> medium;  // in 0.06-6% (30 to 3,000 documents of 50,000)
    std::vector<std::string> skewed;  // the filler, drawn with a skew: hundreds to thousands of documents
    std::vector<std::string> rare;    // in a handful of documents
    std::vector<std::string> texts;
};

inline LongListCollection long_list_collection(std::mt19937& random, size_t documents) {
    LongListCollection out;
    // Letters only and distinct prefixes, so no two words stem to one term.
    const auto words = random_words(random, 6000);
    for (size_t i = 0; i < 6; ++i) out.common.push_back("common" + std::string(1, static_cast<char>('a' + i)) + "x");
    for (size_t i = 0; i < 100; ++i) out.medium.push_back("medium" + words[i] + "x");
    for (size_t i = 100; i < 1000; ++i) out.skewed.push_back("skewed" + words[i] + "x");
    for (size_t i = 1000; i < words.size(); ++i) out.rare.push_back("rare" + words[i] + "x");
    const double common_share[] = {0.95, 0.8, 0.6, 0.45, 0.3, 0.15};
    std::vector<double> medium_share;
    for (size_t i = 0; i < out.medium.size(); ++i) medium_share.push_back(0.0006 * std::pow(100.0, static_cast<double>(i) / 99.0));

    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::geometric_distribution<int> extra_tf(0.5);
    std::uniform_int_distribution<int> filler(2, 60);
    std::uniform_int_distribution<size_t> rare_word(0, out.rare.size() - 1);
    out.texts.reserve(documents);
    for (size_t d = 0; d < documents; ++d) {
        if (d > 0 && d % 50 == 0) {  // an exact copy of an earlier document: the same score
            out.texts.push_back(out.texts[random() % d]);
            continue;
        }
        std::string text;
        const auto add = [&](const std::string& word, int tf) {
            for (int i = 0; i < tf; ++i) text += word + (random() % 7 == 0 ? ", " : " ");
        };
        for (size_t i = 0; i < out.common.size(); ++i) {
            if (uniform(random) < common_share[i]) add(out.common[i], 1 + std::min(extra_tf(random), 15));
        }
        for (size_t i = 0; i < out.medium.size(); ++i) {
            if (uniform(random) < medium_share[i]) add(out.medium[i], 1 + std::min(extra_tf(random), 5));
        }
        for (int t = filler(random); t > 0; --t) {
            const auto index = static_cast<size_t>(static_cast<double>(out.skewed.size()) * std::pow(uniform(random), 3.0));
            add(out.skewed[std::min(index, out.skewed.size() - 1)], 1);
            if (random() % 8 == 0) text += "the ";
        }
        for (unsigned r = static_cast<unsigned>(random() % 4); r > 1; --r) add(out.rare[rare_word(random)], 1);
        out.texts.push_back(std::move(text));
    }
    return out;
}

// 1 to 8 words: frequent ones (so AND has results), medium, rare, stop
// words, absent words and duplicates.
inline std::string long_list_query(std::mt19937& random, const LongListCollection& collection) {
    const bool frequent_only = random() % 2 == 0;
    const int length = 1 + static_cast<int>(random() % 8);
    std::vector<std::string> chosen;
    for (int t = 0; t < length; ++t) {
        const unsigned kind = frequent_only ? random() % 3 : random() % 8;
        std::string word;
        switch (kind) {
            case 0:
            case 1: word = collection.common[random() % collection.common.size()]; break;
            case 2: word = collection.medium[random() % collection.medium.size()]; break;
            case 3: word = collection.rare[random() % collection.rare.size()]; break;
            case 4: word = collection.skewed[random() % collection.skewed.size()]; break;
            case 5: word = collection.skewed[random() % 30]; break;  // the most frequent filler
            case 6: word = random() % 2 ? "the" : "zzqqabsent"; break;
            default: word = chosen.empty() ? "The" : chosen[random() % chosen.size()];
        }
        chosen.push_back(word);
    }
    std::string query;
    for (const auto& word : chosen) query += (query.empty() ? "" : " ") + word;
    return query;
}

// Every matching document scored from the run files' postings with CONTENT.md §10
// written out, ranked (score descending, docid ascending); not cut to k.
// Contributions are added in query-term order, as the Searcher adds them.
inline std::vector<ScoredDocument> exhaustive_ranking(const IndexReader& index, std::string_view query, QueryMode mode) {
    Analyzer analyzer(index.analysis());
    std::vector<std::string> terms;
    for (auto& term : analyzer.analyze_query(query)) {
        if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(term);
    }
    const double k1 = 0.9, b = 0.4;
    const auto documents = static_cast<double>(index.num_documents());
    const double avgdl = index.average_length();
    std::vector<double> scores(index.num_documents(), 0.0);
    std::vector<size_t> matched(index.num_documents(), 0);
    size_t present = 0;
    for (const auto& term : terms) {
        const auto i = index.find_term(term);
        if (!i) continue;
        ++present;
        const auto df = static_cast<double>(index.term(*i).df);
        const double idf = std::log(1.0 + (documents - df + 0.5) / (df + 0.5));
        const auto list = index.postings(*i);
        for (size_t p = 0; p < list.docids.size(); ++p) {
            const uint32_t d = list.docids[p];
            const double tf = list.tfs[p];
            const double dl = index.document(d).length;
            scores[d] += idf * (tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)));
            ++matched[d];
        }
    }
    std::vector<ScoredDocument> all;
    if (present == 0 || (mode == QueryMode::kAnd && present < terms.size())) return all;
    for (uint32_t d = 0; d < scores.size(); ++d) {
        if (mode == QueryMode::kAnd ? matched[d] == present : matched[d] > 0) all.push_back({d, scores[d]});
    }
    std::sort(all.begin(), all.end(), [](const ScoredDocument& x, const ScoredDocument& y) {
        return x.score != y.score ? x.score > y.score : x.docid < y.docid;
    });
    return all;
}

// The same docids in the same order, scores within 1e-9 relative.
inline void check_same_top_k(const std::vector<ScoredDocument>& got, const std::vector<ScoredDocument>& ranking, size_t k) {
    const size_t expected = std::min(k, ranking.size());
    REQUIRE(got.size() == expected);
    for (size_t r = 0; r < expected; ++r) {
        CAPTURE(r);
        CHECK(got[r].docid == ranking[r].docid);
        CHECK(std::abs(got[r].score - ranking[r].score) <= 1e-9 * std::abs(ranking[r].score));
    }
}

// A copy of `standard` (an index without query.post) with the query layout in `codec`.
inline std::filesystem::path with_query_layout(const TempDir& dir, const std::filesystem::path& standard,
                                               std::string_view codec) {
    const auto merged = dir / ("query-" + std::string(codec));
    std::filesystem::copy(standard, merged, std::filesystem::copy_options::recursive);
    merge_runs(merged, {.query_codec = std::string(codec)});
    return merged;
}

}  // namespace invidx::testing
