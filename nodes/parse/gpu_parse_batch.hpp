// A DocBatch through a batch analyzer (devices/gpu_analysis.hpp), and its
// result as the ParsedBatch that parse_batch (the CPU parser) makes of the
// same batch, field for field: the indexers cannot tell which parser took it.
#pragma once

#include <string>

#include "devices/gpu_analysis.hpp"
#include "invidx/analysis_settings.hpp"
#include "invidx/messages.hpp"

namespace invidx {

// The batch's documents as the analyzer's input. It views batch.text, or,
// when documents point into decompressed blocks (or lie out of order), each
// document's bytes as a piece: `batch` must outlive it. With `device` (a
// GPU's ordinal), the pieces of blocks whose text is also in that GPU's
// memory (TextBlock::device_text) get their device addresses too.
GpuAnalysisInput gpu_analysis_input(const DocBatch& batch, const AnalysisSettings& settings, int device = -1);

// `result` (of gpu_analysis_input(batch, ...)) as the CPU parser's
// ParsedBatch: the same documents, occurrences in the same order, the same
// term arena and positions. Takes the result's arrays over.
ParsedBatch parsed_batch_from(const DocBatch& batch, GpuAnalysisResult&& result, bool positional);

// Both, around one analyzer call. `keep_on_device` (kCollections flags, or
// null): the collections whose terms may stay on the analyzer's device for
// a GPU indexer there (ParsedBatch::resident).
ParsedBatch parse_batch_with(GpuBatchAnalyzer& analyzer, const DocBatch& batch, const AnalysisSettings& settings,
                             const uint8_t* keep_on_device = nullptr);

}  // namespace invidx
