#include "store/duplicate_names.hpp"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/index_layout.hpp"
#include "store/mapped_file.hpp"

namespace invidx {

namespace {

struct DocumentRecord {
    std::string_view name;
    uint32_t file_ordinal = 0;
    uint64_t source_offset = 0;
};

// documents.bin's records, read in docid order: they lie one after another
// from the header to the offsets table (docs/FORMAT.md).
class RecordCursor {
public:
    RecordCursor(const std::string& display_name, std::string_view bytes) : display_name_(display_name) {
        BinaryReader in(display_name, bytes.size() >= 4 ? bytes.substr(0, bytes.size() - 4) : bytes);
        in.expect_header(layout::kDocumentsMagic, layout::kFileVersion);
        in.u32("reserved");
        if (in.size() < 16 + layout::kDocumentsFooterBytes - 4) in.fail("document_count", "file too short for its footer");
        in.seek(in.size() - 16, "document_count");
        count_ = in.u64("document_count");
        const uint64_t table_offset = in.u64("table_offset");
        if (table_offset < 16 || table_offset > in.size() - 16) in.fail("table_offset", "past the footer");
        records_ = bytes.substr(0, table_offset);
    }
    uint64_t count() const { return count_; }
    BinaryReader reader() const { return BinaryReader(display_name_, records_, 16); }
    static DocumentRecord next(BinaryReader& in) {
        DocumentRecord record;
        record.name = in.string("name");
        in.u32("length");
        record.file_ordinal = in.u32("file_ordinal");
        record.source_offset = in.u64("source_offset");
        return record;
    }

private:
    std::string display_name_;
    std::string_view records_;
    uint64_t count_ = 0;
};

std::string place_of(const DocumentRecord& record, const std::vector<InputFile>& files) {
    const std::string file = record.file_ordinal < files.size() ? files[record.file_ordinal].path
                                                                : "input file " + std::to_string(record.file_ordinal);
    return file + " (byte " + std::to_string(record.source_offset) + ")";
}

}  // namespace

DuplicateNames find_duplicate_names(const std::filesystem::path& documents_file, const std::string& display_name,
                                    const std::vector<InputFile>& files, size_t max_examples) {
    const MappedFile mapped(documents_file, display_name);
    const RecordCursor cursor(display_name, mapped.bytes());
    const std::hash<std::string_view> hash;

    // 1: every name's hash, by docid.
    std::vector<uint64_t> hashes;
    hashes.reserve(cursor.count());
    {
        BinaryReader in = cursor.reader();
        for (uint64_t docid = 0; docid < cursor.count(); ++docid) hashes.push_back(hash(RecordCursor::next(in).name));
    }
    // 2: the hashes that repeat (few, usually none).
    std::unordered_set<uint64_t> repeated;
    {
        std::vector<uint64_t> sorted = hashes;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 1; i < sorted.size(); ++i)
            if (sorted[i] == sorted[i - 1]) repeated.insert(sorted[i]);
    }
    DuplicateNames found;
    if (repeated.empty()) return found;
    // 3: those documents' names compared, in docid order.
    std::unordered_map<std::string_view, std::vector<uint32_t>> docids_by_name;
    std::unordered_map<uint32_t, std::string> places;
    std::vector<std::string_view> first_seen;  // names in order of their first docid
    {
        BinaryReader in = cursor.reader();
        for (uint64_t docid = 0; docid < cursor.count(); ++docid) {
            const DocumentRecord record = RecordCursor::next(in);
            if (!repeated.contains(hashes[docid])) continue;
            auto& docids = docids_by_name[record.name];
            if (docids.empty()) first_seen.push_back(record.name);
            docids.push_back(static_cast<uint32_t>(docid));
            places.emplace(static_cast<uint32_t>(docid), place_of(record, files));
        }
    }
    for (const std::string_view name : first_seen) {
        const auto& docids = docids_by_name.at(name);
        if (docids.size() < 2) continue;  // a hash collision, not a duplicate
        ++found.names;
        found.documents += docids.size() - 1;
        if (found.examples.size() >= max_examples) continue;
        DuplicateName example{.name = std::string(name), .docids = docids, .places = {}};
        for (const uint32_t docid : docids) example.places.push_back(places.at(docid));
        found.examples.push_back(std::move(example));
    }
    return found;
}

nlohmann::json DuplicateNames::to_json() const {
    nlohmann::json examples_json = nlohmann::json::array();
    for (const auto& example : examples) {
        examples_json.push_back({{"name", example.name}, {"docids", example.docids}, {"places", example.places}});
    }
    return {{"count", documents}, {"names", names}, {"examples", std::move(examples_json)}};
}

std::string DuplicateNames::summary() const {
    std::string line = std::to_string(documents) + (documents == 1 ? " document has" : " documents have") +
                       " the name of an earlier document (" + std::to_string(names) +
                       (names == 1 ? " name" : " names") + " used more than once)";
    if (!examples.empty()) {
        const DuplicateName& first = examples.front();
        line += "; the first: '" + first.name + "' is docid " + std::to_string(first.docids[0]) + " at " +
                first.places[0] + " and docid " + std::to_string(first.docids[1]) + " at " + first.places[1];
    }
    return line + " (report.json \"duplicate_names\")";
}

}  // namespace invidx
