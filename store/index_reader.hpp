// Opens an index directory written by IndexWriter (docs/FORMAT.md) and
// answers what CONTENT.md §9 asks of a finished index. Opening checks the
// manifest, every file's size, checksums.bin, and each binary file's header
// and footer: a few reads per file, whatever the index's size. Every other
// byte is verified against its block's CRC-32 when it is first read
// (store/verified_file.hpp), so damage is a FormatError naming the file, and
// for postings the term, before any answer that depends on it is given.
// An index without checksums.bin (written before block checksums) has every
// file verified whole at open, as INVIDX_VERIFY_ALL_AT_OPEN=1 asks for any.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "store/run_list.hpp"
#include "invidx/messages.hpp"
#include "store/manifest.hpp"
#include "store/verified_file.hpp"

namespace invidx {

// One dictionary entry; `term` points into the reader's mapped file.
struct TermInfo {
    std::string_view term;
    uint32_t collection = 0;
    uint64_t df = 0;
    uint64_t cf = 0;
};

struct DocumentInfo {
    uint32_t docid = 0;
    std::string name;
    uint32_t length = 0;
    uint32_t file_ordinal = 0;
    std::string file_path;      // from the manifest's input list ("" if unknown)
    uint64_t source_offset = 0;
};

class IndexReader {
public:
    explicit IndexReader(const std::filesystem::path& directory);
    IndexReader(const IndexReader&) = delete;
    IndexReader& operator=(const IndexReader&) = delete;

    // Collection totals (CONTENT.md §9).
    uint64_t num_documents() const { return manifest_.documents; }
    uint64_t num_terms() const { return manifest_.terms; }
    uint64_t num_postings() const { return manifest_.postings; }
    uint64_t total_length() const { return manifest_.total_length; }
    double average_length() const { return manifest_.average_length; }
    bool positional() const { return manifest_.positional; }
    const AnalysisSettings& analysis() const { return manifest_.analysis; }
    const Manifest& manifest() const { return manifest_; }
    const std::filesystem::path& directory() const { return directory_; }

    // Terms in byte-wise order, 0 <= i < term_count().
    uint64_t term_count() const { return term_count_; }
    TermInfo term(uint64_t i) const;
    // Every term's df, in term order (read in parallel; no term copied).
    std::vector<uint64_t> term_dfs() const;
    std::optional<uint64_t> find_term(std::string_view term) const;  // binary search
    // The whole dictionary's consistency, which open no longer reads: terms
    // in strictly increasing byte-wise order, dfs adding up to the manifest's
    // postings (invidx check --full; at open for whole-file verification).
    void check_dictionary_order() const;
    std::vector<PartialListRef> partial_lists(uint64_t i) const;
    // Every partial list of term i, in run order, as one list of absolute
    // docids (each run's docid base added). Checks that docids increase, and
    // that the count and tf sum match df and cf.
    run_list::DecodedList postings(uint64_t i) const;
    // Run `run`'s mapping tables: per indexer, the postings of every slot
    // (each entry verified as it is read). For moving a run file into
    // another index without reading its lists (store/run_adoption.hpp).
    std::map<uint32_t, std::vector<uint32_t>> run_slot_postings(uint32_t run) const;

    DocumentInfo document(uint32_t docid) const;
    // Just the length (CONTENT.md §7): no name or path copied (Searcher reads every one at open).
    uint32_t document_length(uint32_t docid) const;
    // Every document's length, by docid (read in parallel).
    std::vector<uint32_t> document_lengths() const;
    // By name, never by number: a name of digits ("0", MS MARCO's ids) is a
    // name. The lowest docid with that name (names should be unique; a
    // build reports those that are not: report.json "duplicate_names").
    std::optional<uint32_t> find_document_by_name(std::string_view name) const;
    // Every docid with that name, increasing (more than one: a duplicate).
    std::vector<uint32_t> find_documents_by_name(std::string_view name) const;
    // Bytes of all document records in documents.bin (after its header,
    // before its offsets table): where another index's documents.bin puts
    // them, when it holds this one's documents.
    uint64_t documents_record_bytes() const { return documents_table_offset_ - 16; }
    // documents.bin's records, in docid order (docs/FORMAT.md), their
    // checksum blocks verified: for copying them in bulk (a cluster join).
    std::string_view document_records() const;

    const std::vector<InputFile>& files() const { return manifest_.inputs; }
    // A file the manifest lists (its size checked; its bytes verified as they
    // are read), or nullptr; for optional files such as query.post.
    const VerifiedFile* index_file(std::string_view relative) const;
    // False for an index without checksums.bin, or with
    // INVIDX_VERIFY_ALL_AT_OPEN=1: every file was verified whole at open.
    bool verifies_lazily() const { return lazy_; }
    // Bytes checksummed since open by lazy verification, all files together.
    uint64_t bytes_verified() const;
    // "<dir>/<relative>": how errors name a file of this index.
    std::string display(std::string_view relative) const;
    const std::optional<nlohmann::json>& report() const { return report_; }

private:
    struct RunPart {
        uint32_t indexer = 0;
        uint32_t list_count = 0;
        uint64_t table_offset = 0;
        uint64_t data_offset = 0;
        uint64_t data_bytes = 0;
    };
    struct RunFile {
        uint32_t run = 0;
        uint64_t docid_base = 0;    // added to its lists' docids (manifest.json)
        std::string name;           // for errors: "<dir>/runs/run-000003.post"
        const VerifiedFile* file = nullptr;  // owned by files_
        std::vector<RunPart> parts; // increasing indexer
    };
    struct TermRecord {
        TermInfo info;
        std::vector<PartialListRef> lists;
    };

    const VerifiedFile& verified_file(std::string_view relative) const;
    void open_files_lazily(const std::string& manifest_name);
    void open_files_whole(const std::string& manifest_name);
    void open_dictionary();
    void open_documents();
    void open_run(uint32_t run, uint64_t docid_base);
    const RunFile& run_file(uint32_t run, const std::string& where) const;
    TermRecord read_term(uint64_t i) const;
    void check_term_number(uint64_t i) const;  // an Error past the last term
    std::string_view term_bytes(uint64_t i) const;  // just the term, for binary search
    std::optional<uint64_t> search_term(std::string_view term) const;
    void decode_partial(const std::string& term, const PartialListRef& ref, run_list::DecodedList& out) const;

    std::filesystem::path directory_;
    Manifest manifest_;
    bool lazy_ = false;
    std::map<std::string, VerifiedFile, std::less<>> files_;  // every file the manifest names
    std::optional<nlohmann::json> report_;

    const VerifiedFile* dictionary_ = nullptr;
    std::string documents_name_;   // display(documents.bin), made once: Searcher reads every length
    std::string dictionary_name_;  // display(dictionary.bin), made once: queries read terms often
    uint64_t term_count_ = 0;
    const VerifiedFile* documents_ = nullptr;
    uint64_t documents_table_offset_ = 0;
    std::vector<RunFile> runs_;     // increasing run number

    mutable std::once_flag names_built_;
    void build_name_lookup() const;
    mutable std::unordered_map<std::string_view, uint32_t> docid_by_name_;  // the first docid of each name
    mutable std::unordered_map<std::string_view, std::vector<uint32_t>> later_docids_by_name_;  // duplicates only
};

}  // namespace invidx
