// Writes one index directory (docs/FORMAT.md). Everything goes to a
// temporary directory beside the final one; publish() writes manifest.json
// last and swaps the directory into place, so a reader sees either the old
// index or the new one -- never a half-written index. One writer per final
// directory: the second one fails at once (OutputLock).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "invidx/messages.hpp"
#include "store/binary_io.hpp"
#include "store/document_store_writer.hpp"
#include "store/manifest.hpp"
#include "store/output_lock.hpp"

namespace invidx {

struct PublishOptions {
    // One line each: leftovers of earlier writers removed or restored.
    std::function<void(const std::string&)> notice;
    // Called between the steps of publish() with "publish:1" (the new index
    // complete and synced, nothing at final_dir changed), "publish:2" (two
    // renames only: the old index moved aside, nothing at final_dir) and
    // "publish:3" (the new index in place, the old one not yet removed).
    // Tests stop the process there to kill it.
    std::function<void(const std::string&)> at_step;
    // Swap old and new in one renameat2(RENAME_EXCHANGE) where the file
    // system allows it; false: always the two renames (tests of that path).
    bool exchange = true;
    // false: nothing is synced at publish (a cluster build's part, which the
    // joined index rewrites or adopts and syncs; runs are synced as written
    // either way).
    bool durable = true;
    // true: write_dictionary keeps the terms, sorted, for take_dictionary()
    // (a cluster build's part: its rank merges the parts' dictionaries
    // without reading them back).
    bool keep_dictionary = false;
};

// A run file as written, with what the index's writer records of it: for
// the manifest and checksums.bin, and to check the dictionary's pointers.
struct WrittenRun {
    uint32_t run = 0;
    std::string path;                                   // "runs/run-NNNNNN.post"
    uint64_t size_bytes = 0;
    uint32_t crc32 = 0;
    std::vector<uint32_t> block_crcs;                   // per 64 KiB block
    std::map<uint32_t, std::vector<uint32_t>> slots;    // per indexer: postings of each slot
    uint64_t postings = 0;
    // The docid its lists' docids are relative to (docs/FORMAT.md,
    // manifest.json `run_docid_bases`): 0 for lists of absolute docids.
    uint64_t docid_base = 0;
};

// Writes run file `run` (docs/FORMAT.md) into index_dir/runs/. What
// IndexWriter::write_run does, for a process that writes a run into another
// process's index (a cluster build's rank, into rank 0's temporary
// directory), which then adopts it. `sync`: fsynced before it returns
// (yes), or left to whoever syncs it later.
WrittenRun write_run_file(const std::filesystem::path& index_dir, uint32_t run, bool positional,
                          std::vector<CompressedRun> parts, SyncOnFinish sync = SyncOnFinish::yes);

// Per run, per indexer, the postings count of every slot (WrittenRun::slots).
using RunSlotPostings = std::map<uint32_t, std::map<uint32_t, std::vector<uint32_t>>>;
// The postings `term`'s lists hold; an invidx::Error when one points at a
// slot that `runs` lack or when they do not add up to its df.
uint64_t checked_term_postings(const DictionaryTerm& term, const RunSlotPostings& runs);

// dictionary.bin as other processes wrote it into the temporary directory
// (store/dictionary_pieces.hpp): its size, checksums and what it holds.
struct WrittenDictionary {
    uint64_t size_bytes = 0;
    uint32_t crc32 = 0;
    std::vector<uint32_t> block_crcs;
    uint64_t terms = 0;
    uint64_t postings = 0;  // its terms' lists', each term checked by its writer
};

// documents.bin as other processes wrote it (store/document_pieces.hpp):
// its size, checksums and what it holds.
struct WrittenDocuments {
    uint64_t size_bytes = 0;
    uint32_t crc32 = 0;
    std::vector<uint32_t> block_crcs;
    uint64_t documents = 0;
    uint64_t total_length = 0;  // the sum of their lengths
};

class IndexWriter {
public:
    // final_dir is followed through symbolic links first (resolve_output_path):
    // a link to an index is written through and stays a link, and the lock,
    // the temporary directory and the publish are the real directory's.
    // Locks final_dir (OutputLock: a second writer fails at once, naming the
    // holder's pid), cleans up after earlier writers that were killed
    // (clean_up_after_earlier_writers) and creates "<final_dir>.tmp-<pid>-<n>"
    // (and final_dir's parent if needed). Nothing at final_dir changes until
    // publish(). An unwritable location is an invidx::Error naming it.
    IndexWriter(std::filesystem::path final_dir, AnalysisSettings analysis, std::vector<InputFile> files,
                PublishOptions options = {});
    ~IndexWriter();  // not published -> the temporary directory is removed
    IndexWriter(const IndexWriter&) = delete;
    IndexWriter& operator=(const IndexWriter&) = delete;

    // All indexers' parts of one run -> runs/run-NNNNNN.post. Each run once.
    // Lists hold docids relative to `docid_base` (recorded in the manifest).
    void write_run(uint32_t run, std::vector<CompressedRun> parts, uint64_t docid_base = 0);
    // A run file another process wrote into temporary_directory() with
    // write_run_file (or moved there: store/run_adoption.hpp): listed as if
    // written here with its docid_base (its size is checked).
    void adopt_run(const WrittenRun& written);
    // Documents in docid order, streamed to disk as they come.
    void append_documents(const std::vector<ParsedDoc>& docs);
    // Or, instead of any append_documents, the documents.bin others wrote at
    // `path` (in this writer's file system: the temporary directory), moved
    // into place (its size is checked).
    void adopt_documents(const WrittenDocuments& written, const std::filesystem::path& path);
    // documents.bin finished in the temporary directory (publish() then
    // only lists it), for reading it back before publishing
    // (store/duplicate_names.hpp); its path. No append_documents after.
    std::filesystem::path complete_documents();
    // Keep each document's text and metadata (documents-text.bin,
    // store/document_store_writer.hpp); before the first document. The
    // caller appends to document_store() in docid order, on one thread;
    // publish() checks it holds every document and lists it. `level`: the
    // blocks' zlib level (0 uncompressed .. 12, store/block_compression.hpp).
    void enable_document_store(int level = 0);
    DocumentStoreWriter* document_store() { return document_store_.get(); }
    // Sorts byte-wise by term and writes dictionary.bin; after every run.
    void write_dictionary(std::vector<DictionaryTerm> terms);
    // With PublishOptions::keep_dictionary, the terms write_dictionary wrote,
    // in their order in dictionary.bin; empty otherwise.
    std::vector<DictionaryTerm> take_dictionary() { return std::move(kept_dictionary_); }
    // Or lists the dictionary.bin others wrote (its size is checked); after
    // every run.
    void adopt_dictionary(const WrittenDictionary& written);
    void write_report(const nlohmann::json& report);
    // Any other binary file (query.post): `write` fills it, then its CRC-32
    // is appended and it is listed in the manifest like the others.
    void write_binary_file(const std::string& relative_path, const std::function<void(BinaryWriter&)>& write);
    // Or a file whose bytes `write` gives whole, its own CRC-32 included
    // (one copied from another index: invidx merge carries
    // documents-text.bin); listed like the others, nothing appended.
    void write_whole_file(const std::string& relative_path, const std::function<void(BinaryWriter&)>& write);
    // Writes checksums.bin and manifest.json into the temporary directory,
    // unsynced, so an IndexReader can open it there (what is written so far,
    // as an index) before it is published: a build that derives a file from
    // its own index (the tf impacts of a pre-weighted build) writes it after
    // this, then publish() writes them again with it. Returns the directory.
    const std::filesystem::path& complete();
    // complete(), syncs, and moves the directory to final_dir (replacing an
    // existing invidx index or an empty directory only): by exchange where
    // possible, else old aside, new in (docs/FORMAT.md).
    void publish();

    const std::filesystem::path& temporary_directory() const { return temp_dir_; }
    const std::vector<InputFile>& files() const { return files_; }  // the input list, by ordinal

private:
    // What write_dictionary needs to check the dictionary's pointers:
    // per run, per indexer, the postings count of every slot.
    using RunSlots = RunSlotPostings::mapped_type;

    void finish_documents();
    void record_run(const WrittenRun& written);
    void record_file(const std::string& relative_path, const BinaryWriter& writer);
    void sync_at_publish(const std::string& relative_path);
    void replace_final_directory();
    void step(const char* name) const;

    std::filesystem::path final_dir_;
    PublishOptions options_;
    std::unique_ptr<OutputLock> lock_;  // released after the temporary directory is gone
    std::filesystem::path temp_dir_;
    AnalysisSettings analysis_;
    std::vector<InputFile> files_;
    RunSlotPostings runs_;
    std::map<uint32_t, uint64_t> run_docid_bases_;
    uint64_t run_postings_ = 0;
    std::vector<ManifestFile> written_files_;
    std::map<std::string, std::vector<uint32_t>> block_crcs_;  // per written file: checksums.bin
    std::unique_ptr<BinaryWriter> documents_;
    std::unique_ptr<BinaryWriter> document_offsets_;  // scratch: u64 per doc
    std::unique_ptr<DocumentStoreWriter> document_store_;  // optional
    uint64_t document_count_ = 0;
    uint64_t total_length_ = 0;
    bool documents_adopted_ = false;
    bool dictionary_written_ = false;
    uint64_t term_count_ = 0;
    uint64_t dictionary_postings_ = 0;
    bool report_written_ = false;
    bool published_ = false;
    std::vector<std::string> unsynced_;  // relative paths publish() syncs
    std::vector<DictionaryTerm> kept_dictionary_;
};

}  // namespace invidx
