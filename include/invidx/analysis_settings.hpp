// The analysis a pipeline applies (SPEC §2-4); defaults are the SPEC's.
#pragma once

#include <string>
#include <vector>

namespace invidx {

struct AnalysisSettings {
    // Stop words, lowercased. Default: the 33-word English list (SPEC §4.1).
    std::vector<std::string> stopwords;
    std::string stopwords_name = "english";   // "english", "none", "custom" (for the manifest)
    std::string stemmer = "porter";           // "porter" (libstemmer) or "none"
    // Apply the HTML rules of SPEC §2 to each format's text.
    bool html_warc = true;
    bool html_trec = true;
    bool html_jsonl = false;
    bool html_text = false;
    bool positions = false;                   // keep term positions (SPEC §3)

    static AnalysisSettings defaults();       // english stopwords, porter
    bool operator==(const AnalysisSettings&) const = default;
};

// The 33 default stop words (../shared/stopwords/english.txt).
const std::vector<std::string>& english_stopwords();

}  // namespace invidx
