// Document names that more than one document has. A name is meant to
// identify one document (lookup by name, TREC runs), so a build reports
// them (report.json "duplicate_names", one line on stderr) and fails with
// "on_duplicate_id": "error" (docs/PIPELINE.md).
//
// Found in a finished documents.bin, whoever wrote it (one machine's
// writer, or a cluster's ranks' pieces): one pass hashes every name (8
// bytes a document), a sort of the hashes finds the few that repeat, and
// only those documents' names are compared, so a hash collision is never
// reported as a duplicate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/messages.hpp"

namespace invidx {

struct DuplicateName {
    std::string name;
    std::vector<uint32_t> docids;     // increasing: the first is the one lookup by name gives
    std::vector<std::string> places;  // per docid: "<input file> (byte N)", where its record starts
};

struct DuplicateNames {
    uint64_t names = 0;      // distinct names that more than one document has
    uint64_t documents = 0;  // documents whose name an earlier document has
    std::vector<DuplicateName> examples;  // the first names, by their first docid

    bool empty() const { return names == 0; }
    // {"count": documents, "names": names, "examples": [{"name", "docids", "places"}]}
    nlohmann::json to_json() const;
    // One line: the counts and the first example with both places.
    std::string summary() const;
};

inline constexpr size_t kDuplicateNameExamples = 10;

// `documents_file` is a complete documents.bin (docs/FORMAT.md); `files`
// the index's input list, by ordinal, to name places. A damaged file is a
// FormatError naming `display_name`.
DuplicateNames find_duplicate_names(const std::filesystem::path& documents_file, const std::string& display_name,
                                    const std::vector<InputFile>& files,
                                    size_t max_examples = kDuplicateNameExamples);

}  // namespace invidx
