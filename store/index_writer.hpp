// Writes one index directory (docs/FORMAT.md). Everything goes to a
// temporary directory beside the final one; publish() writes manifest.json
// last and renames the directory into place, so a reader sees either the
// old index, the new one, or nothing -- never a half-written index.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "invidx/messages.hpp"
#include "store/binary_io.hpp"
#include "store/manifest.hpp"

namespace invidx {

class IndexWriter {
public:
    // Creates "<final_dir>.tmp-<pid>-<n>" (and final_dir's parent if needed).
    // Nothing exists at final_dir until publish(). An unwritable location is
    // an invidx::Error naming the directory.
    IndexWriter(std::filesystem::path final_dir, AnalysisSettings analysis, std::vector<InputFile> files);
    ~IndexWriter();  // not published -> the temporary directory is removed
    IndexWriter(const IndexWriter&) = delete;
    IndexWriter& operator=(const IndexWriter&) = delete;

    // All indexers' parts of one run -> runs/run-NNNNNN.post. Each run once.
    void write_run(uint32_t run, std::vector<CompressedRun> parts);
    // Documents in docid order, streamed to disk as they come.
    void append_documents(const std::vector<ParsedDoc>& docs);
    // Sorts byte-wise by term and writes dictionary.bin; after every run.
    void write_dictionary(std::vector<DictionaryTerm> terms);
    void write_report(const nlohmann::json& report);
    // Any other binary file (query.post): `write` fills it, then its CRC-32
    // is appended and it is listed in the manifest like the others.
    void write_binary_file(const std::string& relative_path, const std::function<void(BinaryWriter&)>& write);
    // Writes manifest.json, syncs, and renames the directory to final_dir
    // (replacing an existing invidx index or an empty directory only).
    void publish();

    const std::filesystem::path& temporary_directory() const { return temp_dir_; }

private:
    // What write_dictionary needs to check the dictionary's pointers:
    // per run, per indexer, the postings count of every slot.
    using RunSlots = std::map<uint32_t, std::vector<uint32_t>>;

    void finish_documents();
    void record_file(const std::string& relative_path, const BinaryWriter& writer);
    void replace_final_directory();

    std::filesystem::path final_dir_;
    std::filesystem::path temp_dir_;
    AnalysisSettings analysis_;
    std::vector<InputFile> files_;
    std::map<uint32_t, RunSlots> runs_;
    uint64_t run_postings_ = 0;
    std::vector<ManifestFile> written_files_;
    std::map<std::string, std::vector<uint32_t>> block_crcs_;  // per written file: checksums.bin
    std::unique_ptr<BinaryWriter> documents_;
    std::unique_ptr<BinaryWriter> document_offsets_;  // scratch: u64 per doc
    uint64_t document_count_ = 0;
    uint64_t total_length_ = 0;
    bool dictionary_written_ = false;
    uint64_t term_count_ = 0;
    uint64_t dictionary_postings_ = 0;
    bool report_written_ = false;
    bool published_ = false;
};

}  // namespace invidx
