// "auto" finding pre-weighted documents (docs/PIPELINE.md, "Pre-weighted
// documents (jsonvector)"): a pipeline whose inputs name no format reads
// vectors when the first JSONL file of the collection starts with one.
#pragma once

#include <vector>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"

namespace invidx {

// `config`, made pre-weighted (AnalysisSettings::pre_weighted) when every
// input is "auto" and the first file of `files` (in collection order) whose
// format is jsonl has a first non-blank line that is a JSON object with a
// "vector" object and no "contents". Otherwise `config` as it is. Such a
// pipeline with "positions": true is a ConfigError naming /positions.
// Reads at most the first MiB of that one file; throws invidx::Error when it
// cannot be read.
PipelineConfig with_detected_vectors(const PipelineConfig& config, const std::vector<InputFile>& files);

}  // namespace invidx
