// Text collections for the query tests: an index of short texts built
// through the standard pipeline (JSONL, docid = position), words drawn with a
// skew so that some lists are long and most short, and random queries mixing
// frequent, rare, stop, duplicate and absent words.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

namespace invidx::testing {

// Builds an index of `texts` (one JSONL document each, docid = position)
// through the standard pipeline.
inline std::filesystem::path build_text_index(const TempDir& dir, const std::vector<std::string>& texts, unsigned indexers = 2) {
    std::string jsonl;
    for (size_t i = 0; i < texts.size(); ++i) jsonl += nlohmann::json{{"id", "d" + std::to_string(i)}, {"contents", texts[i]}}.dump() + "\n";
    const auto input = dir.write("in/docs.jsonl", jsonl);
    const auto output = dir / "idx";
    build_index(standard_pipeline({input.string()}, output, 2, indexers));
    return output;
}

inline std::vector<std::string> random_words(std::mt19937& random, size_t count) {
    std::vector<std::string> words;
    std::uniform_int_distribution<int> length(3, 10), letter(0, 25);
    while (words.size() < count) {
        std::string word;
        for (int i = length(random); i > 0; --i) word.push_back(static_cast<char>('a' + letter(random)));
        words.push_back(word);
    }
    return words;
}

// Documents drawing words with a strong skew (u^skew), stop words mixed in.
inline std::vector<std::string> skewed_documents(std::mt19937& random, const std::vector<std::string>& words,
                                                 size_t count, double skew) {
    std::vector<std::string> texts;
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::uniform_int_distribution<int> length(1, 300);
    for (size_t d = 0; d < count; ++d) {
        std::string text;
        for (int t = length(random); t > 0; --t) {
            if (random() % 10 == 0) {
                text += "the ";
                continue;
            }
            const auto index = static_cast<size_t>(static_cast<double>(words.size()) * std::pow(uniform(random), skew));
            text += words[std::min(index, words.size() - 1)] + (random() % 5 == 0 ? ", " : " ");
        }
        texts.push_back(text);
    }
    return texts;
}

// `documents` skewed documents over `vocabulary` random words, indexed in
// `dir`: the words and the index directory. `random` goes on from there
// (to make queries).
struct SkewedCollection {
    std::vector<std::string> words;
    std::filesystem::path index;
};
inline SkewedCollection skewed_collection(const TempDir& dir, std::mt19937& random, size_t vocabulary, size_t documents,
                                          double skew) {
    SkewedCollection collection;
    collection.words = random_words(random, vocabulary);
    collection.index = build_text_index(dir, skewed_documents(random, collection.words, documents, skew));
    return collection;
}

inline std::string random_query(std::mt19937& random, const std::vector<std::string>& words) {
    const std::vector<std::string> stopwords = {"the", "and", "of", "A", "THE"};
    std::string query;
    std::vector<std::string> chosen;
    const int length = 1 + static_cast<int>(random() % 8);
    for (int t = 0; t < length; ++t) {
        std::string word;
        switch (random() % 6) {
            case 0: word = words[random() % 20]; break;                                 // frequent
            case 1: word = words[words.size() - 1 - random() % (words.size() / 2)]; break;  // rare
            case 2: word = stopwords[random() % stopwords.size()]; break;
            case 3: word = chosen.empty() ? "qqq9absent" : chosen[random() % chosen.size()]; break;  // duplicate
            default: word = words[random() % words.size()];
        }
        chosen.push_back(word);
        query += (t ? " " : "") + word;
    }
    return query;
}

}  // namespace invidx::testing
