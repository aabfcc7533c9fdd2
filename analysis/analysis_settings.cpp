#include "invidx/analysis_settings.hpp"

namespace invidx {

// The classic 33-word English list that Lucene's StopAnalyzer and Anserini
// use by default (CONTENT.md §5, ../shared/stopwords/english.txt). Compiled in so
// that an index never depends on a file found at run time.
const std::vector<std::string>& english_stopwords() {
    static const std::vector<std::string> words = {
        "a",    "an",   "and",   "are",   "as",    "at",   "be",   "but",  "by",
        "for",  "if",   "in",    "into",  "is",    "it",   "no",   "not",  "of",
        "on",   "or",   "such",  "that",  "the",   "their", "then", "there", "these",
        "they", "this", "to",    "was",   "will",  "with",
    };
    return words;
}

AnalysisSettings AnalysisSettings::defaults() {
    AnalysisSettings settings;
    settings.stopwords = english_stopwords();
    settings.stopwords_name = "english";
    settings.stemmer = "porter";
    return settings;
}

}  // namespace invidx
