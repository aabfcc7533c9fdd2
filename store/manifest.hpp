// manifest.json: written last by IndexWriter::publish, so its presence is
// what makes a directory a complete index. It holds the collection totals,
// the analysis the index was built with, and the size and CRC-32 of every
// other file, which IndexReader checks before trusting any of them. Its own
// content is covered by its key "crc32" (docs/FORMAT.md, "manifest.json"), so
// an edited count, input or analysis setting is refused at open.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "invidx/messages.hpp"

namespace invidx {

struct ManifestFile {
    std::string path;       // relative to the index directory, '/'-separated
    uint64_t size_bytes = 0;
    uint32_t crc32 = 0;
};

struct Manifest {
    std::string format = "invidx";
    uint32_t format_version = 1;
    AnalysisSettings analysis;
    bool positional = false;
    uint64_t documents = 0;
    uint64_t terms = 0;
    uint64_t postings = 0;
    uint64_t total_length = 0;
    double average_length = 0.0;
    std::vector<uint32_t> runs;        // run numbers, increasing; one file each
    // Per run (same order), the docid its lists' docids are relative to;
    // empty when every base is 0 (format version 1), else format version 2.
    std::vector<uint64_t> run_docid_bases;
    std::vector<ManifestFile> files;   // every file but the manifest itself
    std::vector<InputFile> inputs;     // the collection, in docid order of files
    // False for a manifest written before manifests had a "crc32" (read, but
    // its content unverified: invidx check reports it).
    bool checksummed = false;
};

// The CRC-32 that "crc32" holds: of the canonical JSON text of every other
// key (compact, keys sorted, non-ASCII escaped: nlohmann's dump(-1, ' ', true)).
uint32_t manifest_checksum(const nlohmann::json& object);

// Sets the object's "crc32" to manifest_checksum of the rest (after an edit).
void seal_manifest(nlohmann::json& object);

// Sealed: "crc32" included, so every writer of a manifest writes it.
nlohmann::json manifest_to_json(const Manifest& manifest);

// Throws FormatError naming `file` and the missing or mistyped key, or a
// "crc32" that does not match the rest.
Manifest manifest_from_json(const nlohmann::json& json, const std::string& file);

// Reads and parses <directory>/manifest.json; a missing manifest is
// "not a complete invidx index".
Manifest read_manifest(const std::filesystem::path& directory);

// True when `directory` holds a manifest.json whose format is "invidx";
// the writer only ever replaces such directories (or empty ones).
bool is_invidx_index(const std::filesystem::path& directory);

}  // namespace invidx
