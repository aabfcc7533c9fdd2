// The analysis a pipeline applies (CONTENT.md §3-7); defaults are the SPEC's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "invidx/input_format.hpp"

namespace invidx {

struct AnalysisSettings {
    // Stop words, lowercased. Default: the 33-word English list (CONTENT.md §5).
    std::vector<std::string> stopwords;
    std::string stopwords_name = "english";   // "english", "none", "custom" (for the manifest)
    std::string stemmer = "porter";           // "porter" (libstemmer) or "none"
    // Whether the HTML rules of CONTENT.md §3 apply to each input format's text;
    // each format's default is its row's (invidx/input_format.hpp).
    InputFormatFlags html = default_html_rules();
    bool positions = false;                   // keep term positions (CONTENT.md §4)
    // Documents are pre-weighted term vectors (input format jsonvector,
    // FORMAT.md "Pre-weighted documents"): terms are taken verbatim with
    // tf = weight, none of the above applies, and queries are split at
    // whitespace only. Set by the config when an input names jsonvector.
    bool pre_weighted = false;
    uint32_t vector_scale = 100;              // a float weight w becomes round(w * vector_scale)

    static AnalysisSettings defaults();       // english stopwords, porter
    bool operator==(const AnalysisSettings&) const = default;
};

// The 33 default stop words (../shared/stopwords/english.txt).
const std::vector<std::string>& english_stopwords();

}  // namespace invidx
