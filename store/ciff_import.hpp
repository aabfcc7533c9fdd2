// Builds an invidx index from a CIFF file (docs/FORMAT.md, "CIFF import"):
// the file streams through CiffReader (store/ciff_reader.hpp) once, each
// PostingsList becomes the term's list in run files of at most `run_bytes`
// (a list longer than that continues in the next run), each DocRecord a
// document (name, length), and the index is published by IndexWriter like
// every other writer's: nothing at the output until it is complete, and on
// any failure nothing at all. export-ciff of the index gives the file back
// byte for byte when the file is canonical (CiffImportSummary::canonicality).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "invidx/analysis_settings.hpp"
#include "store/ciff_reader.hpp"

namespace invidx {

struct CiffImportOptions {
    // What the manifest records as the index's analysis, which `search` and
    // `term` apply to query words (a CIFF holds terms, not how they were
    // made). None: the analysis an invidx export names in its description
    // ("invidx index, format 1; stemmer porter, stopwords english"), else
    // invidx's default, Porter and the 33 English stop words, which is also
    // Anserini's default analyzer. Positions are never kept (CIFF has none).
    std::optional<AnalysisSettings> analysis;
    // The term's collection (CONTENT.md §8: statistics only); the tools pass
    // invidx::collection_of. Required.
    std::function<uint32_t(std::string_view)> term_collection;
    // The largest tf allowed (tf impacts: kMaxTfImpact, store/tf_impacts.hpp);
    // a larger one is an error naming the term before anything is published.
    std::optional<uint32_t> max_tf;
    // Encoded postings held before a run file is written.
    uint64_t run_bytes = uint64_t{64} << 20;
    // The CIFF file's read buffer.
    size_t read_buffer_bytes = CiffReader::kDefaultBufferBytes;
    // Honoured between lists and document batches until publishing begins:
    // nothing is published and invidx::Interrupted is thrown.
    std::stop_token stop;
    // Lines about leftovers of earlier writers (PublishOptions::notice).
    std::function<void(const std::string&)> notice;
};

struct CiffImportSummary {
    CiffHeader header;
    uint64_t terms = 0;
    uint64_t documents = 0;
    uint64_t postings = 0;
    uint64_t runs = 0;
    uint32_t largest_tf = 0;
    // "options", "description" (an invidx export's) or "default".
    std::string analysis_source;
    AnalysisSettings analysis;
    CiffCanonicality canonicality;
};

// Throws invidx::Error naming the file and byte offset for a bad file, before
// anything is published; a CIFF file inside `index_dir` is refused (the
// publish would remove it with the old index).
CiffImportSummary import_ciff(const std::filesystem::path& file, const std::filesystem::path& index_dir,
                              const CiffImportOptions& options);

// The analysis an invidx export's default description names, when it is one
// that can be restored (stemmer porter or none, stop words english or none).
std::optional<AnalysisSettings> analysis_from_ciff_description(std::string_view description);

// The analysis `--analysis NAME` records (docs/FORMAT.md, "CIFF import"):
// "auto" is none (CiffImportOptions::analysis: the description's, else the
// default); "default" Porter and English stop words; "none" neither;
// "verbatim" query words taken as terms (AnalysisSettings::pre_weighted).
// Another name is an invidx::Error listing these.
std::optional<AnalysisSettings> ciff_import_analysis(std::string_view name);

// report.json's key for an imported index: the CIFF's Header (its
// description is what export-ciff writes by default) and the import's figures.
inline constexpr std::string_view kCiffImportReportKey = "ciff_import";

}  // namespace invidx
