#include "store/index_writer.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <numeric>

#include "invidx/error.hpp"
#include "store/block_checksums.hpp"
#include "store/dictionary_pieces.hpp"
#include "store/document_store_layout.hpp"
#include "store/durable_sync.hpp"
#include "store/index_layout.hpp"
#include "store/little_endian_append.hpp"
#include "store/output_path.hpp"
#include "store/sibling_directories.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

bool replaceable(const fs::path& dir) {
    std::error_code error;
    if (!fs::exists(dir, error)) return true;
    if (!fs::is_directory(dir, error)) return false;
    return fs::is_empty(dir, error) || is_invidx_index(dir);
}

Error refusing(const fs::path& dir) {
    return Error("refusing to overwrite " + dir.string() + ": not an invidx index");
}

void check_part(uint32_t run, const CompressedRun& part) {
    const std::string where = "run " + std::to_string(run) + ", indexer " + std::to_string(part.indexer) + ": ";
    ensure(part.run == run, where + "part says it belongs to run " + std::to_string(part.run));
    ensure(part.list_offsets.size() == part.list_counts.size() + 1,
           where + "list_offsets must hold one entry more than list_counts");
    ensure(part.list_offsets.front() == 0 && part.list_offsets.back() == part.bytes.size(),
           where + "list_offsets must start at 0 and end at the byte size");
    uint64_t postings = 0;
    for (size_t slot = 0; slot < part.list_counts.size(); ++slot) {
        ensure(part.list_offsets[slot] <= part.list_offsets[slot + 1],
               where + "list_offsets decrease at slot " + std::to_string(slot));
        postings += part.list_counts[slot];
    }
    ensure(postings == part.postings, where + "postings does not equal the sum of list_counts");
}

}  // namespace

IndexWriter::IndexWriter(fs::path final_dir, AnalysisSettings analysis, std::vector<InputFile> files,
                         PublishOptions options)
    : options_(std::move(options)), analysis_(std::move(analysis)), files_(std::move(files)) {
    if (!options_.notice) options_.notice = [](const std::string& line) { std::fprintf(stderr, "invidx: %s\n", line.c_str()); };
    // The real directory, links followed: a link to an index is written
    // through (the link stays), and the lock is the real directory's.
    final_dir_ = resolve_output_path(final_dir);
    ensure(!final_dir_.empty(), "index directory must not be empty");
    // Fail before hours of indexing, not at publish(): publish checks again.
    if (!replaceable(final_dir_)) throw refusing(final_dir_);
    std::error_code error;
    if (!final_dir_.parent_path().empty()) fs::create_directories(final_dir_.parent_path(), error);
    lock_ = std::make_unique<OutputLock>(final_dir_);
    clean_up_after_earlier_writers(final_dir_, options_.notice);
    if (!replaceable(final_dir_)) throw refusing(final_dir_);  // a restored old index is one
    temp_dir_ = sibling_path(final_dir_, "tmp");
    if (!fs::create_directory(temp_dir_, error) || !fs::create_directory(temp_dir_ / layout::kRunsDirectory, error)) {
        throw Error("cannot create index directory: " + error.message(), in_file(temp_dir_.string()));
    }
    try {
        documents_ = std::make_unique<BinaryWriter>(temp_dir_ / layout::kDocumentsFile, SyncOnFinish::no);
        // Read back and removed before publish: never synced.
        document_offsets_ = std::make_unique<BinaryWriter>(temp_dir_ / "documents.offsets.scratch", SyncOnFinish::no);
        documents_->bytes(layout::kDocumentsMagic);
        documents_->u32(layout::kFileVersion);
        documents_->u32(0);  // reserved
    } catch (...) {
        documents_.reset();
        document_offsets_.reset();
        fs::remove_all(temp_dir_, error);
        throw;
    }
}

IndexWriter::~IndexWriter() {
    documents_.reset();
    document_offsets_.reset();
    if (!published_) remove_index_directory(temp_dir_);
}

void IndexWriter::record_file(const std::string& relative_path, const BinaryWriter& writer) {
    written_files_.push_back({relative_path, writer.position(), writer.crc()});
    block_crcs_[relative_path] = writer.block_crcs();
    sync_at_publish(relative_path);
}

void IndexWriter::sync_at_publish(const std::string& relative_path) {
    if (std::find(unsynced_.begin(), unsynced_.end(), relative_path) == unsynced_.end()) unsynced_.push_back(relative_path);
}

// Layout (docs/FORMAT.md, "Run files"): header, part descriptors, every
// part's mapping table (slot -> offset, length, postings: Wei & JaJa §III.F),
// then every part's list bytes, then the CRC-32.
WrittenRun write_run_file(const fs::path& index_dir, uint32_t run, bool positional, std::vector<CompressedRun> parts,
                          SyncOnFinish sync) {
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.indexer < b.indexer; });
    for (size_t i = 0; i < parts.size(); ++i) {
        check_part(run, parts[i]);
        ensure(i == 0 || parts[i - 1].indexer != parts[i].indexer,
               "run " + std::to_string(run) + ": two parts from indexer " + std::to_string(parts[i].indexer));
    }

    WrittenRun written;
    written.run = run;
    written.path = layout::run_file_name(run);
    uint64_t table_offset = layout::kRunHeaderBytes + layout::kPartDescriptorBytes * parts.size();
    uint64_t data_offset = table_offset;
    for (const auto& part : parts) data_offset += layout::kListEntryBytes * part.list_counts.size();
    // Header, descriptors and mapping tables are laid out in memory and
    // written in one call: an entry a call (20 bytes through the writer's
    // CRC and buffer) cost the serial flush node more than the lists' bytes.
    std::string head;
    head.reserve(static_cast<size_t>(data_offset));
    head.append(layout::kRunMagic);
    put_u32(head, layout::kFileVersion);
    put_u32(head, run);
    put_u32(head, positional ? layout::kRunFlagPositional : 0);
    put_u32(head, static_cast<uint32_t>(parts.size()));
    std::vector<uint64_t> data_offsets;
    uint64_t list_bytes_offset = data_offset;
    for (const auto& part : parts) {
        put_u32(head, part.indexer);
        put_u32(head, static_cast<uint32_t>(part.list_counts.size()));
        put_u64(head, table_offset);
        put_u64(head, list_bytes_offset);
        put_u64(head, part.bytes.size());
        data_offsets.push_back(list_bytes_offset);
        table_offset += layout::kListEntryBytes * part.list_counts.size();
        list_bytes_offset += part.bytes.size();
    }
    for (size_t p = 0; p < parts.size(); ++p) {
        const auto& part = parts[p];
        for (size_t slot = 0; slot < part.list_counts.size(); ++slot) {
            put_u64(head, data_offsets[p] + part.list_offsets[slot]);
            put_u64(head, part.list_offsets[slot + 1] - part.list_offsets[slot]);
            put_u32(head, part.list_counts[slot]);
        }
        written.slots[part.indexer] = part.list_counts;
        written.postings += part.postings;
    }
    ensure(head.size() == data_offset, "run " + std::to_string(run) + ": its header and tables are not the size laid out");
    BinaryWriter out(index_dir / written.path, sync);
    out.bytes(head);
    for (const auto& part : parts) out.bytes(part.bytes);
    out.finish_with_crc();
    written.size_bytes = out.position();
    written.crc32 = out.crc();
    written.block_crcs = out.block_crcs();
    return written;
}

void IndexWriter::write_run(uint32_t run, std::vector<CompressedRun> parts, uint64_t docid_base) {
    ensure(!published_, "index already published");
    ensure(!dictionary_written_, "write_run after write_dictionary");
    ensure(!runs_.contains(run), "run " + std::to_string(run) + " written twice");
    // Its writeback starts now, and publish syncs it with every other file
    // (a part that is not durable: the joined index syncs the runs it
    // adopts). The flush node that calls this is serial: an fsync a run
    // there made the whole pipeline wait for the disk.
    WrittenRun written =
        write_run_file(temp_dir_, run, analysis_.positions, std::move(parts), SyncOnFinish::start_writeback);
    written.docid_base = docid_base;
    record_run(written);
    if (options_.durable) sync_at_publish(written.path);
}

void IndexWriter::adopt_run(const WrittenRun& written) {
    ensure(!published_, "index already published");
    ensure(!dictionary_written_, "adopt_run after write_dictionary");
    ensure(!runs_.contains(written.run), "run " + std::to_string(written.run) + " written twice");
    ensure(written.path == layout::run_file_name(written.run),
           "run " + std::to_string(written.run) + " is not at " + layout::run_file_name(written.run));
    std::error_code error;
    const uint64_t size = fs::file_size(temp_dir_ / written.path, error);
    ensure(!error && size == written.size_bytes,
           "run file " + (temp_dir_ / written.path).string() + " is missing or not the size its writer reported");
    record_run(written);
}

void IndexWriter::record_run(const WrittenRun& written) {
    ensure(written.docid_base <= UINT32_MAX, "run " + std::to_string(written.run) + ": docid base " +
                                                 std::to_string(written.docid_base) + " does not fit in 32 bits");
    written_files_.push_back({written.path, written.size_bytes, written.crc32});
    block_crcs_[written.path] = written.block_crcs;
    run_postings_ += written.postings;
    runs_.emplace(written.run, written.slots);
    run_docid_bases_[written.run] = written.docid_base;
}

void IndexWriter::append_documents(const std::vector<ParsedDoc>& docs) {
    ensure(!published_, "index already published");
    ensure(!documents_adopted_, "append_documents after adopt_documents");
    ensure(documents_ != nullptr, "append_documents after complete_documents");
    // Encoded here and written in two calls: a call a field (six a
    // document, each through the writer's buffer and CRC-32) cost the serial
    // flush node more than the bytes.
    std::string records;
    std::string offsets;
    offsets.reserve(docs.size() * 8);
    records.reserve(docs.size() * 48);
    const uint64_t start = documents_->position();
    for (const auto& doc : docs) {
        if (doc.name.size() > UINT32_MAX)
            throw Error("string of " + std::to_string(doc.name.size()) + " bytes is too long",
                        in_file(documents_->path().string()));
        put_u64(offsets, start + records.size());
        put_u32(records, static_cast<uint32_t>(doc.name.size()));
        records.append(doc.name);
        put_u32(records, doc.length);
        put_u32(records, doc.file_ordinal);
        put_u64(records, doc.source_offset);
        total_length_ += doc.length;
        ++document_count_;
    }
    documents_->bytes(records);
    document_offsets_->bytes(offsets);
}

void IndexWriter::adopt_documents(const WrittenDocuments& written, const fs::path& path) {
    ensure(!published_, "index already published");
    ensure(!documents_adopted_ && document_count_ == 0, "adopt_documents after documents were appended or adopted");
    std::error_code error;
    const uint64_t size = fs::file_size(path, error);
    ensure(!error && size == written.size_bytes, path.string() + " is missing or not the size its writers reported");
    // The streamed file (its header alone) and its scratch table give way
    // to the adopted file.
    const auto scratch_path = document_offsets_->path();
    documents_.reset();
    document_offsets_.reset();
    documents_adopted_ = true;
    fs::remove(scratch_path);
    fs::rename(path, temp_dir_ / layout::kDocumentsFile);
    written_files_.push_back({std::string(layout::kDocumentsFile), written.size_bytes, written.crc32});
    sync_at_publish(std::string(layout::kDocumentsFile));  // cheap where its writers synced it
    block_crcs_[std::string(layout::kDocumentsFile)] = written.block_crcs;
    document_count_ = written.documents;
    total_length_ = written.total_length;
}

uint64_t checked_term_postings(const DictionaryTerm& term, const RunSlotPostings& runs) {
    // Called once per term of the dictionary: the messages are made only
    // when a check fails.
    uint64_t postings = 0;
    for (const auto& ref : term.lists) {
        const auto run = runs.find(ref.run);
        const auto part = run == runs.end() ? RunSlotPostings::mapped_type::const_iterator{} : run->second.find(ref.indexer);
        if (run == runs.end() || part == run->second.end() || ref.slot >= part->second.size()) [[unlikely]] {
            throw Error("term '" + term.term + "' points at run " + std::to_string(ref.run) + ", indexer " +
                        std::to_string(ref.indexer) + ", slot " + std::to_string(ref.slot) + ", which was not written");
        }
        postings += part->second[ref.slot];
    }
    if (postings != term.df) [[unlikely]] {
        throw Error("term '" + term.term + "': df " + std::to_string(term.df) + " but its partial lists hold " +
                    std::to_string(postings) + " postings");
    }
    return postings;
}

void IndexWriter::adopt_dictionary(const WrittenDictionary& written) {
    ensure(!published_, "index already published");
    ensure(!dictionary_written_, "adopt_dictionary after the dictionary was written");
    const std::string name(layout::kDictionaryFile);
    std::error_code error;
    const uint64_t size = fs::file_size(temp_dir_ / name, error);
    ensure(!error && size == written.size_bytes,
           (temp_dir_ / name).string() + " is missing or not the size its writers reported");
    written_files_.push_back({name, written.size_bytes, written.crc32});
    block_crcs_[name] = written.block_crcs;
    sync_at_publish(name);  // cheap where its writers synced it
    dictionary_postings_ = written.postings;
    term_count_ = written.terms;
    dictionary_written_ = true;
}

// Layout (docs/FORMAT.md, "dictionary.bin"): header, term count, an offsets
// table (term i's record in O(1), binary search by term), records, CRC-32.
void IndexWriter::write_dictionary(std::vector<DictionaryTerm> terms) {
    ensure(!published_, "index already published");
    ensure(!dictionary_written_, "write_dictionary called twice");
    ensure(terms.size() <= UINT32_MAX, "a dictionary of more than 2^32 terms");
    // The sorted order as a permutation: the terms (strings and lists) stay
    // where they are. A dictionary of millions of terms is sorted, checked
    // and encoded on every core: this is the serial end of every build.
    std::vector<uint32_t> order(terms.size());
    std::iota(order.begin(), order.end(), 0u);
    const auto before = [&terms](uint32_t a, uint32_t b) { return terms[a].term < terms[b].term; };
    if (!std::is_sorted(order.begin(), order.end(), before)) oneapi::tbb::parallel_sort(order.begin(), order.end(), before);

    // Records in chunks of consecutive terms, each checked once per term
    // and list (the messages are made only when a check fails).
    constexpr size_t kChunkTerms = 8192;
    const size_t chunks = (order.size() + kChunkTerms - 1) / kChunkTerms;
    std::vector<std::string> records(chunks);
    std::vector<uint64_t> chunk_postings(chunks, 0);
    oneapi::tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
        const size_t end = std::min(order.size(), (c + 1) * kChunkTerms);
        for (size_t i = c * kChunkTerms; i < end; ++i) {
            const DictionaryTerm& term = terms[order[i]];
            if (i != 0 && terms[order[i - 1]].term == term.term) [[unlikely]] {
                throw Error("dictionary holds the term '" + term.term + "' twice");
            }
            chunk_postings[c] += checked_term_postings(term, runs_);
            append_dictionary_record(records[c], term);
        }
    });
    for (const uint64_t postings : chunk_postings) dictionary_postings_ += postings;
    std::string offsets;
    offsets.reserve(8 * order.size());
    uint64_t offset = kDictionaryHeaderBytes + 8 * order.size();
    for (const uint32_t t : order) {
        put_u64(offsets, offset);
        offset += dictionary_record_bytes(terms[t]);
    }

    const std::string name(layout::kDictionaryFile);
    BinaryWriter out(temp_dir_ / name, SyncOnFinish::no);
    out.bytes(encode_dictionary_header(order.size()));
    out.bytes(offsets);
    for (const auto& chunk : records) out.bytes(chunk);
    out.finish_with_crc();
    if (options_.keep_dictionary) {
        kept_dictionary_.reserve(order.size());
        for (const uint32_t t : order) kept_dictionary_.push_back(std::move(terms[t]));
    }
    record_file(name, out);
    term_count_ = terms.size();
    dictionary_written_ = true;
}

void IndexWriter::write_report(const nlohmann::json& report) {
    ensure(!published_, "index already published");
    const std::string name(layout::kReportFile);
    BinaryWriter out(temp_dir_ / name, SyncOnFinish::no);
    // Replaced, not refused: a path or description that is not UTF-8 must
    // not fail the publish after the whole build (paths are bytes).
    out.bytes(report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    out.finish();
    if (report_written_) {
        std::erase_if(written_files_, [&](const ManifestFile& file) { return file.path == name; });
    }
    record_file(name, out);
    report_written_ = true;
}

void IndexWriter::enable_document_store(int level) {
    ensure(!published_ && !document_store_, "the document store is enabled once, before publish");
    document_store_ = std::make_unique<DocumentStoreWriter>(temp_dir_ / layout::kDocumentTextFile, level);
}

void IndexWriter::write_binary_file(const std::string& relative_path, const std::function<void(BinaryWriter&)>& write) {
    ensure(!published_, "index already published");
    ensure(std::none_of(written_files_.begin(), written_files_.end(),
                        [&](const ManifestFile& file) { return file.path == relative_path; }),
           relative_path + " written twice");
    BinaryWriter out(temp_dir_ / relative_path, SyncOnFinish::no);
    write(out);
    out.finish_with_crc();
    record_file(relative_path, out);
}

void IndexWriter::write_whole_file(const std::string& relative_path, const std::function<void(BinaryWriter&)>& write) {
    ensure(!published_, "index already published");
    ensure(std::none_of(written_files_.begin(), written_files_.end(),
                        [&](const ManifestFile& file) { return file.path == relative_path; }),
           relative_path + " written twice");
    BinaryWriter out(temp_dir_ / relative_path, SyncOnFinish::no);
    write(out);
    out.finish();
    record_file(relative_path, out);
}

// Layout (docs/FORMAT.md, "documents.bin"): header, records in docid order,
// the offsets table copied from the scratch file, a footer, CRC-32.
void IndexWriter::finish_documents() {
    const uint64_t table_offset = documents_->position();
    const auto scratch_path = document_offsets_->path();
    document_offsets_->finish();
    document_offsets_.reset();
    std::ifstream scratch(scratch_path, std::ios::binary);
    ensure(static_cast<bool>(scratch), "cannot reopen " + scratch_path.string());
    std::string chunk(1 << 20, '\0');
    while (scratch) {
        scratch.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        documents_->bytes(std::string_view(chunk.data(), static_cast<size_t>(scratch.gcount())));
    }
    scratch.close();
    fs::remove(scratch_path);
    documents_->u64(document_count_);
    documents_->u64(table_offset);
    documents_->finish_with_crc();
    record_file(std::string(layout::kDocumentsFile), *documents_);
    documents_.reset();
}

fs::path IndexWriter::complete_documents() {
    ensure(!published_, "index already published");
    if (documents_) finish_documents();
    return temp_dir_ / layout::kDocumentsFile;
}

void IndexWriter::publish() {
    complete();
    // Every file this writer wrote or adopted unsynced, and the two
    // directories' names, on disk before the rename makes them the index:
    // all at once, so a disk with a slow cache flush costs one wait, not
    // one per file (the runs' writeback began as each was written).
    if (options_.durable) {
        std::vector<fs::path> to_sync;
        for (const auto& name : unsynced_) to_sync.push_back(temp_dir_ / name);
        to_sync.push_back(temp_dir_ / layout::kRunsDirectory);
        to_sync.push_back(temp_dir_);
        sync_files(to_sync);
    }
    replace_final_directory();
}

const fs::path& IndexWriter::complete() {
    ensure(!published_, "index already published");
    ensure(dictionary_written_, "publish before write_dictionary");
    ensure(dictionary_postings_ == run_postings_,
           "the dictionary points at " + std::to_string(dictionary_postings_) + " postings but the runs hold " +
               std::to_string(run_postings_));
    for (const auto& [run, base] : run_docid_bases_) {
        ensure(base <= document_count_, "run " + std::to_string(run) + ": docid base " + std::to_string(base) +
                                            " is past the index's " + std::to_string(document_count_) + " documents");
    }
    if (documents_) finish_documents();  // not adopted, nor completed already
    if (document_store_) {
        // The text of every document, or none: a store that missed documents
        // would answer the wrong text for later docids.
        ensure(document_store_->documents() == document_count_,
               "the document store holds " + std::to_string(document_store_->documents()) + " documents, the index " +
                   std::to_string(document_count_));
        const BinaryWriter& store = document_store_->finish();
        record_file(std::string(layout::kDocumentTextFile), store);
        document_store_.reset();
    }

    Manifest manifest;
    manifest.analysis = analysis_;
    manifest.positional = analysis_.positions;
    manifest.documents = document_count_;
    manifest.terms = term_count_;
    manifest.postings = run_postings_;
    manifest.total_length = total_length_;
    manifest.average_length = document_count_ == 0 ? 0.0 : static_cast<double>(total_length_) / static_cast<double>(document_count_);
    for (const auto& [run, slots] : runs_) manifest.runs.push_back(run);
    // Bases only where one is nonzero (format version 2): an index of
    // absolute docids keeps version 1's manifest byte for byte.
    if (std::any_of(run_docid_bases_.begin(), run_docid_bases_.end(), [](const auto& entry) { return entry.second != 0; })) {
        manifest.format_version = layout::kFormatVersionRunBases;
        for (const auto& [run, base] : run_docid_bases_) manifest.run_docid_bases.push_back(base);
    }
    manifest.files = written_files_;
    // checksums.bin: the block CRC-32s of every file above, so readers verify
    // what they read instead of everything at open. Listed in the manifest
    // like the others (its own size and CRC-32), not in itself.
    std::vector<FileBlockChecksums> checksums;
    for (const auto& file : written_files_) {
        checksums.push_back({file.path, file.size_bytes, layout::kChecksumBlockBytes, block_crcs_.at(file.path)});
    }
    std::sort(checksums.begin(), checksums.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    {
        BinaryWriter out(temp_dir_ / layout::kChecksumsFile, SyncOnFinish::no);
        write_block_checksums(checksums, out);
        manifest.files.push_back({std::string(layout::kChecksumsFile), out.position(), out.crc()});
        sync_at_publish(std::string(layout::kChecksumsFile));
    }
    std::sort(manifest.files.begin(), manifest.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    manifest.inputs = files_;

    // The manifest is written last: its presence marks a complete index.
    BinaryWriter out(temp_dir_ / layout::kManifestFile, SyncOnFinish::no);
    out.bytes(manifest_to_json(manifest).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    out.finish();
    sync_at_publish(std::string(layout::kManifestFile));
    return temp_dir_;
}

void IndexWriter::step(const char* name) const {
    if (options_.at_step) options_.at_step(name);
}

// At every moment final_dir_ holds a complete index (the old one, then the
// new one), except between the two renames of the fallback, when the old one
// is complete at "<final>.old-<pid>-<n>" and the next writer renames it back.
void IndexWriter::replace_final_directory() {
    std::error_code error;
    const fs::path parent = final_dir_.parent_path().empty() ? fs::path(".") : final_dir_.parent_path();
    step("publish:1");
    // Resolved when the writer was made; a link put there since would be
    // swapped out and its target's files removed with the old index.
    if (fs::is_symlink(fs::symlink_status(final_dir_, error)))
        throw Error("refusing to publish: " + final_dir_.string() +
                    " became a symbolic link while the index was built; nothing was changed");
    if (!fs::exists(final_dir_, error)) {
        fs::rename(temp_dir_, final_dir_, error);
        if (error) throw Error("cannot rename the new index into place: " + error.message(), in_file(final_dir_.string()));
        published_ = true;
        if (options_.durable) sync_directory(parent);
        step("publish:3");
        return;
    }
    if (!replaceable(final_dir_)) throw refusing(final_dir_);
#ifdef RENAME_EXCHANGE
    if (options_.exchange) {
        // One atomic step: new at final_dir_, old at temp_dir_.
        if (::renameat2(AT_FDCWD, temp_dir_.c_str(), AT_FDCWD, final_dir_.c_str(), RENAME_EXCHANGE) == 0) {
            published_ = true;
            if (options_.durable) sync_directory(parent);
            step("publish:3");
            remove_index_directory(temp_dir_);
            return;
        }
        // Other errors would fail the renames below just the same.
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
            throw Error(std::string("cannot swap the new index into place: ") + std::strerror(errno),
                        in_file(final_dir_.string()));
    }
#endif
    const fs::path aside = sibling_path(final_dir_, "old");
    fs::rename(final_dir_, aside, error);
    if (error) throw Error("cannot move the old index aside: " + error.message(), in_file(final_dir_.string()));
    if (options_.durable) sync_directory(parent);
    step("publish:2");
    fs::rename(temp_dir_, final_dir_, error);
    if (error) {
        std::error_code restore_error;
        fs::rename(aside, final_dir_, restore_error);
        throw Error("cannot rename the new index into place: " + error.message() +
                        (restore_error ? "; the old index is at " + aside.string() + " (" + restore_error.message() + ")"
                                       : std::string()),
                    in_file(final_dir_.string()));
    }
    published_ = true;
    if (options_.durable) sync_directory(parent);
    step("publish:3");
    remove_index_directory(aside);
}

}  // namespace invidx
