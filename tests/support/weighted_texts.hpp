// Documents whose tfs are weights, for the impact-scoring tests: each picks
// distinct words from a skewed vocabulary and writes each as often as its
// weight, so an index of them has impacts that are the tfs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace invidx::testing {

struct WeightedTextShape {
    double vocabulary_skew = 2.0;  // word = |vocabulary| * u^skew: frequent words far more often
    int max_weight = 24;           // weights 1 .. max_weight
    double weight_skew = 4.0;      // weight = 1 + floor(max * u^skew), u < 1: mostly small
    size_t heavy_document = SIZE_MAX;  // this document holds its first word 300 times (impacts of 9 bits)
};

// `count` documents of 5 to 60 distinct words.
inline std::vector<std::string> weighted_texts(std::mt19937& random, const std::vector<std::string>& words, size_t count,
                                               const WeightedTextShape& shape = {}) {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::vector<std::string> texts;
    for (size_t d = 0; d < count; ++d) {
        std::set<size_t> chosen;
        const size_t length = 5 + random() % 56;
        while (chosen.size() < length) {
            const double at = static_cast<double>(words.size()) * std::pow(uniform(random), shape.vocabulary_skew);
            chosen.insert(std::min(words.size() - 1, static_cast<size_t>(at)));
        }
        std::string text;
        for (const size_t word : chosen) {
            const int weight = d == shape.heavy_document && word == *chosen.begin()
                                   ? 300
                                   : 1 + static_cast<int>(shape.max_weight * std::pow(uniform(random), shape.weight_skew));
            for (int i = 0; i < weight; ++i) text += words[word] + " ";
        }
        texts.push_back(text);
    }
    return texts;
}

}  // namespace invidx::testing
