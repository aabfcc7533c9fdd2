#include "store/index_reader.hpp"

#include <algorithm>
#include <cstdlib>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/block_checksums.hpp"
#include "store/crc32.hpp"
#include "store/index_layout.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

bool safe_relative_path(const std::string& path) {
    const fs::path relative(path);
    if (path.empty() || relative.is_absolute()) return false;
    return std::none_of(relative.begin(), relative.end(), [](const fs::path& part) { return part == ".."; });
}

bool verify_all_at_open_requested() {
    const char* value = std::getenv("INVIDX_VERIFY_ALL_AT_OPEN");
    return value != nullptr && std::string_view(value) == "1";
}

}  // namespace

IndexReader::IndexReader(const fs::path& directory) : directory_(directory), manifest_(read_manifest(directory)) {
    const std::string manifest_name = display(layout::kManifestFile);
    for (const auto& entry : manifest_.files) {
        if (!safe_relative_path(entry.path)) {
            throw FormatError(manifest_name, "key '/files' names the path \"" + entry.path + "\" outside the index");
        }
    }
    const bool has_checksums = std::any_of(manifest_.files.begin(), manifest_.files.end(),
                                           [](const ManifestFile& file) { return file.path == layout::kChecksumsFile; });
    lazy_ = has_checksums && !verify_all_at_open_requested();
    if (lazy_) {
        open_files_lazily(manifest_name);
    } else {
        open_files_whole(manifest_name);
    }
    open_dictionary();
    open_documents();
    for (size_t r = 0; r < manifest_.runs.size(); ++r) {
        open_run(manifest_.runs[r], manifest_.run_docid_bases.empty() ? 0 : manifest_.run_docid_bases[r]);
    }
    if (const auto* report = index_file(layout::kReportFile)) {
        const auto bytes = report->range(0, report->size());
        auto parsed = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (parsed.is_discarded()) throw FormatError(display(layout::kReportFile), "not valid JSON");
        report_ = std::move(parsed);
    }
}

namespace {

MappedFile map_with_size(const fs::path& path, const std::string& name, uint64_t size_bytes) {
    MappedFile file(path, name);
    if (file.bytes().size() != size_bytes) {
        throw FormatError(name, "size is " + std::to_string(file.bytes().size()) + " bytes but manifest.json says " +
                                    std::to_string(size_bytes) + "; the file is truncated or damaged");
    }
    return file;
}

}  // namespace

// Every file the manifest names must be there with its size and CRC-32:
// every byte is read (indexes written before checksums.bin).
void IndexReader::open_files_whole(const std::string&) {
    for (const auto& entry : manifest_.files) {
        const std::string name = display(entry.path);
        MappedFile file = map_with_size(directory_ / entry.path, name, entry.size_bytes);
        if (crc32(file.bytes()) != entry.crc32) {
            throw FormatError(name, "CRC-32 does not match manifest.json; the file is damaged");
        }
        files_.try_emplace(entry.path, std::move(file), name);
    }
}

// checksums.bin is read whole (about 1/16384 of the index); every other
// file only has its size compared (fstat): its blocks are verified as read.
void IndexReader::open_files_lazily(const std::string& manifest_name) {
    const auto entry = std::find_if(manifest_.files.begin(), manifest_.files.end(),
                                    [](const ManifestFile& file) { return file.path == layout::kChecksumsFile; });
    const std::string checksums_name = display(layout::kChecksumsFile);
    MappedFile checksums_file = map_with_size(directory_ / entry->path, checksums_name, entry->size_bytes);
    if (crc32(checksums_file.bytes()) != entry->crc32) {
        throw FormatError(checksums_name, "CRC-32 does not match manifest.json; the file is damaged");
    }
    auto checksums = read_block_checksums(checksums_name, checksums_file.bytes());
    files_.try_emplace(entry->path, std::move(checksums_file), checksums_name);
    std::map<std::string_view, FileBlockChecksums*> by_path;
    for (auto& file : checksums) by_path.emplace(file.path, &file);
    for (const auto& listed : manifest_.files) {
        if (listed.path == layout::kChecksumsFile) continue;
        const std::string name = display(listed.path);
        const auto found = by_path.find(listed.path);
        if (found == by_path.end()) throw FormatError(checksums_name, "has no block checksums for " + listed.path);
        FileBlockChecksums& blocks = *found->second;
        if (blocks.size_bytes != listed.size_bytes) {
            throw FormatError(checksums_name, "size of " + listed.path + " is " + std::to_string(blocks.size_bytes) +
                                                  " bytes but manifest.json says " + std::to_string(listed.size_bytes));
        }
        by_path.erase(found);
        MappedFile file = map_with_size(directory_ / listed.path, name, listed.size_bytes);
        files_.try_emplace(listed.path, std::move(file), name, blocks.block_bytes, std::move(blocks.crcs));
    }
    if (!by_path.empty()) {
        throw FormatError(checksums_name, "lists " + std::string(by_path.begin()->first) + ", which " + manifest_name + " does not");
    }
}

std::string IndexReader::display(std::string_view relative) const { return (directory_ / relative).string(); }

const VerifiedFile* IndexReader::index_file(std::string_view relative) const {
    const auto found = files_.find(relative);
    return found == files_.end() ? nullptr : &found->second;
}

uint64_t IndexReader::bytes_verified() const {
    uint64_t total = 0;
    for (const auto& [path, file] : files_) total += file.bytes_verified();
    return total;
}

const VerifiedFile& IndexReader::verified_file(std::string_view relative) const {
    const auto found = files_.find(relative);
    if (found == files_.end()) {
        throw FormatError(display(layout::kManifestFile),
                          "key '/files' does not list " + std::string(relative) + ", which the index needs");
    }
    return found->second;
}

void IndexReader::open_dictionary() {
    dictionary_ = &verified_file(layout::kDictionaryFile);
    dictionary_name_ = display(layout::kDictionaryFile);
    const std::string& name = dictionary_name_;
    const auto bytes = dictionary_->unchecked_bytes();
    if (!lazy_) check_trailing_crc(name, bytes);
    if (bytes.size() < 4) throw FormatError(name, "field 'crc32': file too short");
    BinaryReader in(name, bytes.substr(0, bytes.size() - 4), 0, dictionary_);
    in.expect_header(layout::kDictionaryMagic, layout::kFileVersion);
    in.u32("reserved");
    term_count_ = in.u64("term_count");
    if (term_count_ != manifest_.terms) {
        in.fail("term_count", std::to_string(term_count_) + " terms but manifest.json says " + std::to_string(manifest_.terms));
    }
    if (term_count_ > (in.size() - in.position()) / 8) in.fail("term_count", "the offsets table does not fit in the file");
    // Reading every record costs a pass over the whole dictionary: done at
    // open only where every byte is read anyway, else by invidx check --full.
    if (!lazy_) check_dictionary_order();
}

void IndexReader::check_dictionary_order() const {
    const std::string& name = dictionary_name_;
    // One pass over the records: each parses, and terms are strictly
    // increasing byte-wise, which find_term's binary search relies on.
    uint64_t postings = 0;
    std::string_view previous;
    for (uint64_t i = 0; i < term_count_; ++i) {
        const auto record = read_term(i);
        if (i > 0 && !(previous < record.info.term)) {
            throw FormatError(name, "field 'term' of term " + std::to_string(i) + ": terms are not in increasing byte-wise order");
        }
        previous = record.info.term;
        postings += record.info.df;
    }
    if (postings != manifest_.postings) {
        throw FormatError(name, "field 'df': the dfs add up to " + std::to_string(postings) + " postings but manifest.json says " +
                                    std::to_string(manifest_.postings));
    }
}

IndexReader::TermRecord IndexReader::read_term(uint64_t i) const {
    const auto bytes = dictionary_->unchecked_bytes();
    BinaryReader in(dictionary_name_, bytes.substr(0, bytes.size() - 4), 24 + 8 * i, dictionary_);
    // Field names without the term's number: built per call they cost more
    // than the read (weighting reads every term's df).
    const uint64_t offset = in.u64("term_offsets");
    in.seek(offset, "term_offsets");
    TermRecord record;
    record.info.term = in.string("term");
    record.info.collection = in.u32("collection");
    record.info.df = in.u64("df");
    record.info.cf = in.u64("cf");
    const uint32_t lists = in.u32("list_count");
    if (lists > (in.size() - in.position()) / 12) in.fail("list_count", "more partial lists than the file can hold");
    record.lists.resize(lists);
    for (auto& ref : record.lists) {
        ref.run = in.u32("run");
        ref.indexer = in.u32("indexer");
        ref.slot = in.u32("slot");
    }
    return record;
}

std::string_view IndexReader::term_bytes(uint64_t i) const {
    const auto bytes = dictionary_->unchecked_bytes();
    const std::string_view data = bytes.substr(0, bytes.size() - 4);
    // find_term calls this log2(T) times per query term: read in place, and
    // build the error context (file name, field) only if a bound fails.
    // Each part is verified (a bit test once its block is) before it is read.
    const uint64_t entry = 24 + 8 * i;
    if (entry <= data.size() && data.size() - entry >= 8) {
        dictionary_->check(data.substr(entry, 8));
        const uint64_t offset = load_u64(data.data() + entry);
        if (offset <= data.size() && data.size() - offset >= 4) {
            dictionary_->check(data.substr(offset, 4));
            const uint32_t length = load_u32(data.data() + offset);
            if (length <= data.size() - offset - 4) {
                const auto term = data.substr(offset + 4, length);
                dictionary_->check(term);
                return term;
            }
        }
    }
    BinaryReader in(display(layout::kDictionaryFile), data, entry, dictionary_);
    in.seek(in.u64("term_offsets"), "term_offsets");
    return in.string("term");
}

void IndexReader::open_documents() {
    documents_ = &verified_file(layout::kDocumentsFile);
    documents_name_ = display(layout::kDocumentsFile);
    const std::string& name = documents_name_;
    const auto bytes = documents_->unchecked_bytes();
    if (!lazy_) check_trailing_crc(name, bytes);
    if (bytes.size() < 4) throw FormatError(name, "field 'crc32': file too short");
    BinaryReader in(name, bytes.substr(0, bytes.size() - 4), 0, documents_);
    in.expect_header(layout::kDocumentsMagic, layout::kFileVersion);
    in.u32("reserved");
    if (in.size() < 16 + layout::kDocumentsFooterBytes - 4) in.fail("document_count", "file too short for its footer");
    in.seek(in.size() - 16, "document_count");
    const uint64_t count = in.u64("document_count");
    documents_table_offset_ = in.u64("table_offset");
    if (count != manifest_.documents) {
        in.fail("document_count", std::to_string(count) + " documents but manifest.json says " + std::to_string(manifest_.documents));
    }
    if (documents_table_offset_ < 16 || documents_table_offset_ > in.size() - 16 ||
        (in.size() - 16 - documents_table_offset_) / 8 != count || (in.size() - 16 - documents_table_offset_) % 8 != 0) {
        in.fail("table_offset", "the offsets table does not fit between the records and the footer");
    }
}

void IndexReader::open_run(uint32_t run, uint64_t docid_base) {
    const std::string relative = layout::run_file_name(run);
    if (docid_base > manifest_.documents) {
        throw FormatError(display(layout::kManifestFile), "key '/run_docid_bases': run " + std::to_string(run) + "'s base " +
                                                              std::to_string(docid_base) + " is past the " +
                                                              std::to_string(manifest_.documents) + " documents");
    }
    RunFile file;
    file.run = run;
    file.docid_base = docid_base;
    file.name = display(relative);
    file.file = &verified_file(relative);
    const auto bytes = file.file->unchecked_bytes();
    if (!lazy_) check_trailing_crc(file.name, bytes);
    if (bytes.size() < 4) throw FormatError(file.name, "field 'crc32': file too short");
    BinaryReader in(file.name, bytes.substr(0, bytes.size() - 4), 0, file.file);
    in.expect_header(layout::kRunMagic, layout::kFileVersion);
    if (in.u32("run") != run) in.fail("run", "does not match the file name's run " + std::to_string(run));
    const uint32_t flags = in.u32("flags");
    if (((flags & layout::kRunFlagPositional) != 0) != manifest_.positional) {
        in.fail("flags", "positional flag disagrees with manifest.json");
    }
    const uint32_t part_count = in.u32("part_count");
    if (part_count > in.size() / layout::kPartDescriptorBytes) in.fail("part_count", "more parts than the file can hold");
    for (uint32_t p = 0; p < part_count; ++p) {
        RunPart part;
        part.indexer = in.u32("indexer");
        part.list_count = in.u32("list_count");
        part.table_offset = in.u64("table_offset");
        part.data_offset = in.u64("data_offset");
        part.data_bytes = in.u64("data_bytes");
        if (part.table_offset > in.size() || part.list_count > (in.size() - part.table_offset) / layout::kListEntryBytes) {
            in.fail("table_offset", "part " + std::to_string(p) + "'s mapping table runs past the end of the file");
        }
        if (part.data_offset > in.size() || part.data_bytes > in.size() - part.data_offset) {
            in.fail("data_offset", "part " + std::to_string(p) + "'s lists run past the end of the file");
        }
        if (!file.parts.empty() && file.parts.back().indexer >= part.indexer) {
            in.fail("indexer", "parts are not in increasing indexer order");
        }
        file.parts.push_back(part);
    }
    runs_.push_back(std::move(file));
}

void IndexReader::check_term_number(uint64_t i) const {
    if (i >= term_count_) throw Error("term number " + std::to_string(i) + " out of range (" + std::to_string(term_count_) + " terms)");
}

TermInfo IndexReader::term(uint64_t i) const {
    check_term_number(i);
    return read_term(i).info;
}

std::vector<uint64_t> IndexReader::term_dfs() const {
    std::vector<uint64_t> dfs(term_count_);
    const auto bytes = dictionary_->unchecked_bytes();
    const std::string_view data = bytes.substr(0, bytes.size() - 4);
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<uint64_t>(0, term_count_), [&](const auto& range) {
        for (uint64_t i = range.begin(); i != range.end(); ++i) {
            BinaryReader in(dictionary_name_, data, 24 + 8 * i, dictionary_);
            in.seek(in.u64("term_offsets"), "term_offsets");
            (void)in.string("term");
            (void)in.u32("collection");
            dfs[i] = in.u64("df");
        }
    });
    return dfs;
}

std::vector<uint32_t> IndexReader::document_lengths() const {
    std::vector<uint32_t> lengths(num_documents());
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<uint64_t>(0, lengths.size()), [&](const auto& range) {
        for (uint64_t d = range.begin(); d != range.end(); ++d) lengths[d] = document_length(static_cast<uint32_t>(d));
    });
    return lengths;
}

std::vector<PartialListRef> IndexReader::partial_lists(uint64_t i) const {
    check_term_number(i);
    return read_term(i).lists;
}

std::optional<uint64_t> IndexReader::find_term(std::string_view term) const {
    try {
        return search_term(term);
    } catch (const FormatError& error) {
        throw FormatError(dictionary_name_, "looking up term '" + std::string(term) + "': " + error.message());
    }
}

std::optional<uint64_t> IndexReader::search_term(std::string_view term) const {
    uint64_t low = 0;
    uint64_t high = term_count_;
    while (low < high) {
        const uint64_t middle = low + (high - low) / 2;
        const auto found = term_bytes(middle);
        if (found == term) return middle;
        if (found < term) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return std::nullopt;
}

void IndexReader::decode_partial(const std::string& term, const PartialListRef& ref, run_list::DecodedList& out) const {
    const std::string where = "term '" + term + "' (run " + std::to_string(ref.run) + ", indexer " +
                              std::to_string(ref.indexer) + ", slot " + std::to_string(ref.slot) + ")";
    const RunFile* run = &run_file(ref.run, "field 'run' of " + where);
    const auto part = std::find_if(run->parts.begin(), run->parts.end(), [&](const RunPart& p) { return p.indexer == ref.indexer; });
    if (part == run->parts.end() || ref.slot >= part->list_count) {
        throw FormatError(run->name, "mapping table has no entry for " + where);
    }
    const auto bytes = run->file->unchecked_bytes();
    const uint64_t entry = part->table_offset + layout::kListEntryBytes * ref.slot;
    // The mapping entry and the list are verified against their blocks'
    // CRC-32s here, where the term is known: damage names the term.
    const auto verify = [&](uint64_t offset, uint64_t length, std::string_view what) {
        try {
            run->file->check(bytes.substr(offset, length));
        } catch (const FormatError& error) {
            throw FormatError(run->name, std::string(what) + " of " + where + ": " + error.message());
        }
    };
    verify(entry, layout::kListEntryBytes, "mapping table entry");  // inside the file: open checked the table's bounds
    BinaryReader in(run->name, bytes.substr(0, bytes.size() - 4), entry, run->file);
    const uint64_t offset = in.u64("list_offset");
    const uint64_t length = in.u64("list_bytes");
    const uint32_t count = in.u32("list_postings");
    if (offset < part->data_offset || offset > part->data_offset + part->data_bytes ||
        length > part->data_offset + part->data_bytes - offset) {
        in.fail("list_offset", "list of " + where + " lies outside its part's data");
    }
    verify(offset, length, "list");
    try {
        run_list::decode(bytes.substr(offset, length), count, positional(), out, run->docid_base);
    } catch (const FormatError&) {
        throw;
    } catch (const Error& failure) {
        throw FormatError(run->name, "list of " + where + " at byte " + std::to_string(offset) + ": " + failure.message());
    }
}

const IndexReader::RunFile& IndexReader::run_file(uint32_t run, const std::string& where) const {
    const auto found = std::lower_bound(runs_.begin(), runs_.end(), run, [](const RunFile& f, uint32_t r) { return f.run < r; });
    if (found == runs_.end() || found->run != run) {
        throw FormatError(display(layout::kDictionaryFile), where + ": no such run file");
    }
    return *found;
}

std::map<uint32_t, std::vector<uint32_t>> IndexReader::run_slot_postings(uint32_t run) const {
    const RunFile& file = run_file(run, "run " + std::to_string(run));
    const auto bytes = file.file->unchecked_bytes();
    std::map<uint32_t, std::vector<uint32_t>> slots;
    for (const auto& part : file.parts) {
        // Inside the file: open checked each table's bounds.
        file.file->check(bytes.substr(part.table_offset, layout::kListEntryBytes * part.list_count));
        auto& counts = slots[part.indexer];
        counts.reserve(part.list_count);
        for (uint32_t slot = 0; slot < part.list_count; ++slot) {
            counts.push_back(load_u32(bytes.data() + part.table_offset + layout::kListEntryBytes * slot + 16));
        }
    }
    return slots;
}

run_list::DecodedList IndexReader::postings(uint64_t i) const {
    ensure(i < term_count_, "term number " + std::to_string(i) + " out of range (" + std::to_string(term_count_) + " terms)");
    const auto record = read_term(i);
    const std::string term(record.info.term);
    run_list::DecodedList out;
    out.docids.reserve(record.info.df);
    out.tfs.reserve(record.info.df);
    for (const auto& ref : record.lists) decode_partial(term, ref, out);
    // Partial lists come from successive runs, so their concatenation must
    // be one increasing list (Wei & JaJa §III.F: runs cover docid ranges).
    const std::string dictionary = display(layout::kDictionaryFile);
    uint64_t cf = 0;
    for (size_t k = 0; k < out.docids.size(); ++k) {
        if (k > 0 && out.docids[k] <= out.docids[k - 1]) {
            throw FormatError(dictionary, "postings of term '" + term + "': docid " + std::to_string(out.docids[k]) +
                                              " follows docid " + std::to_string(out.docids[k - 1]) + "; docids must increase");
        }
        if (out.docids[k] >= num_documents()) {
            throw FormatError(dictionary, "postings of term '" + term + "': docid " + std::to_string(out.docids[k]) +
                                              " is not a document of this index");
        }
        cf += out.tfs[k];
    }
    if (out.docids.size() != record.info.df) {
        throw FormatError(dictionary, "field 'df' of term '" + term + "' is " + std::to_string(record.info.df) +
                                          " but its lists hold " + std::to_string(out.docids.size()) + " postings");
    }
    if (cf != record.info.cf) {
        throw FormatError(dictionary, "field 'cf' of term '" + term + "' is " + std::to_string(record.info.cf) +
                                          " but its tfs add up to " + std::to_string(cf));
    }
    return out;
}

DocumentInfo IndexReader::document(uint32_t docid) const {
    // Messages only on failure: search results and joins call this per document.
    if (docid >= num_documents()) {
        throw Error("docid " + std::to_string(docid) + " out of range (" + std::to_string(num_documents()) + " documents)");
    }
    const auto bytes = documents_->unchecked_bytes();
    const auto records = bytes.substr(0, documents_table_offset_);
    BinaryReader table(documents_name_, bytes, documents_table_offset_ + 8 * uint64_t{docid}, documents_);
    const uint64_t offset = table.u64("document_offsets");
    BinaryReader in(documents_name_, records, 0, documents_);
    in.seek(offset, "document_offsets");
    DocumentInfo info;
    info.docid = docid;
    info.name = std::string(in.string("name"));
    info.length = in.u32("length");
    info.file_ordinal = in.u32("file_ordinal");
    info.source_offset = in.u64("source_offset");
    if (info.file_ordinal < manifest_.inputs.size()) info.file_path = manifest_.inputs[info.file_ordinal].path;
    return info;
}

std::string_view IndexReader::document_records() const {
    const auto records = documents_->unchecked_bytes().substr(16, documents_record_bytes());
    documents_->check(records);
    return records;
}

uint32_t IndexReader::document_length(uint32_t docid) const {
    if (docid >= num_documents()) {
        throw Error("docid " + std::to_string(docid) + " out of range (" + std::to_string(num_documents()) + " documents)");
    }
    const auto bytes = documents_->unchecked_bytes();
    BinaryReader table(documents_name_, bytes, documents_table_offset_ + 8 * uint64_t{docid}, documents_);
    const uint64_t offset = table.u64("document_offsets");
    BinaryReader in(documents_name_, bytes.substr(0, documents_table_offset_), 0, documents_);
    in.seek(offset, "document_offsets");
    in.string("name");
    return in.u32("length");
}

void IndexReader::build_name_lookup() const {
    // Built on first use: most readers never look documents up by name.
    std::call_once(names_built_, [&] {
        const std::string file = display(layout::kDocumentsFile);
        const auto bytes = documents_->unchecked_bytes();
        BinaryReader table(file, bytes, documents_table_offset_, documents_);
        BinaryReader records(file, bytes.substr(0, documents_table_offset_), 0, documents_);
        docid_by_name_.reserve(num_documents());
        for (uint64_t docid = 0; docid < num_documents(); ++docid) {
            records.seek(table.u64("document_offsets"), "document_offsets[" + std::to_string(docid) + "]");
            const std::string_view name = records.string("name");
            if (!docid_by_name_.emplace(name, static_cast<uint32_t>(docid)).second)
                later_docids_by_name_[name].push_back(static_cast<uint32_t>(docid));
        }
    });
}

std::optional<uint32_t> IndexReader::find_document_by_name(std::string_view name) const {
    build_name_lookup();
    const auto found = docid_by_name_.find(name);
    if (found == docid_by_name_.end()) return std::nullopt;
    return found->second;
}

std::vector<uint32_t> IndexReader::find_documents_by_name(std::string_view name) const {
    build_name_lookup();
    std::vector<uint32_t> docids;
    const auto found = docid_by_name_.find(name);
    if (found == docid_by_name_.end()) return docids;
    docids.push_back(found->second);
    if (const auto later = later_docids_by_name_.find(name); later != later_docids_by_name_.end())
        docids.insert(docids.end(), later->second.begin(), later->second.end());
    return docids;
}

}  // namespace invidx
