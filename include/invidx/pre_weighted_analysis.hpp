// The analysis settings of a pre-weighted build (input format jsonvector,
// docs/PIPELINE.md "Pre-weighted documents (jsonvector)"): terms come
// verbatim, so no stop words or stemmer apply, and the manifest says so.
#pragma once

#include "invidx/analysis_settings.hpp"

namespace invidx {

inline void make_pre_weighted(AnalysisSettings& analysis) {
    analysis.pre_weighted = true;
    analysis.stopwords.clear();
    analysis.stopwords_name = "none";
    analysis.stemmer = "none";
}

}  // namespace invidx
