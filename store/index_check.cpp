#include "store/index_check.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/block_checksums.hpp"
#include "store/bm25.hpp"
#include "store/crc32.hpp"
#include "store/document_store_reader.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/manifest.hpp"
#include "store/mapped_file.hpp"
#include "store/query_postings.hpp"
#include "store/verified_file.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kBlocksPerStep = 1024;  // 64 MiB between progress calls

// Problems by kind, each kind listed up to a limit and counted past it: a
// damaged block of documents.bin makes thousands of damaged records.
class Problems {
public:
    Problems(IndexCheckReport& report, size_t max_listed) : report_(report), max_listed_(max_listed) {}
    void add(std::string_view kind, std::string problem) {
        if (listed_[std::string(kind)]++ < max_listed_) {
            report_.problems.push_back(std::move(problem));
        } else {
            ++report_.problems_not_listed;
        }
    }

private:
    IndexCheckReport& report_;
    size_t max_listed_;
    std::map<std::string, size_t> listed_;
};

bool binary_file(const std::string& path) { return !path.ends_with(".json"); }

void progress(const CheckOptions& options, std::string_view phase, uint64_t done, uint64_t total) {
    if (options.progress) options.progress(CheckProgress{phase, done, total});
}

// The CRC-32 of bytes [0, end) of a file whose blocks all match `crcs`:
// the stored CRCs of the blocks before `end`, and the bytes of at most one.
uint32_t prefix_crc(const VerifiedFile& file, const std::vector<uint32_t>& crcs, uint64_t end) {
    const uint64_t whole_blocks = end / file.block_bytes();
    uint32_t crc = 0;
    for (uint64_t block = 0; block < whole_blocks; ++block) crc = crc32_concat(crc, crcs[block], file.block_bytes());
    const uint64_t start = whole_blocks * file.block_bytes();
    return crc32_concat(crc, crc32(file.unchecked_bytes().substr(start, end - start)), end - start);
}

void check_trailing(const std::string& name, uint32_t computed, std::string_view bytes, Problems& problems) {
    if (bytes.size() < 4) {
        problems.add("other", name + ": field 'crc32': file too short to hold a checksum");
        return;
    }
    const uint32_t stored = load_u32(bytes.data() + bytes.size() - 4);
    if (stored != computed) {
        problems.add("other", name + ": field 'crc32': stored checksum " + std::to_string(stored) +
                                  " does not match the content (" + std::to_string(computed) + "); the file is damaged");
    }
}

// Every file: there, of its size, every block against checksums.bin; with
// `full` the whole-file CRC-32s too (from the verified blocks' CRCs, so the
// bytes are read once).
void check_files(const fs::path& directory, const Manifest& manifest, const CheckOptions& options,
                 IndexCheckReport& report, Problems& problems) {
    const auto name_of = [&](const std::string& relative) { return (directory / relative).string(); };
    std::map<std::string, FileBlockChecksums> blocks;
    const auto listed = std::find_if(manifest.files.begin(), manifest.files.end(),
                                     [](const ManifestFile& file) { return file.path == layout::kChecksumsFile; });
    report.block_checksums = listed != manifest.files.end();
    if (report.block_checksums) {
        const std::string name = name_of(listed->path);
        try {
            const MappedFile file(directory / listed->path, name);
            if (file.bytes().size() != listed->size_bytes || crc32(file.bytes()) != listed->crc32) {
                throw FormatError(name, "size or CRC-32 does not match manifest.json; the file is damaged");
            }
            for (auto& entry : read_block_checksums(name, file.bytes())) blocks.emplace(entry.path, std::move(entry));
        } catch (const Error& error) {
            problems.add("other", std::string(error.what()) + " (blocks of the other files cannot be verified)");
        }
    }
    uint64_t total = 0, done = 0;
    for (const auto& file : manifest.files) total += file.size_bytes;
    for (const auto& listed_file : manifest.files) {
        const std::string& path = listed_file.path;
        const std::string name = name_of(path);
        ++report.files;
        std::optional<MappedFile> mapped;
        try {
            mapped.emplace(directory / path, name);
        } catch (const Error& error) {
            problems.add("other", error.what());
            continue;
        }
        const auto bytes = mapped->bytes();
        if (bytes.size() != listed_file.size_bytes) {
            problems.add("other", name + ": size is " + std::to_string(bytes.size()) + " bytes but manifest.json says " +
                                      std::to_string(listed_file.size_bytes) + "; the file is truncated or damaged");
            continue;
        }
        report.bytes += bytes.size();
        const auto entry = blocks.find(path);
        const bool has_blocks = path != layout::kChecksumsFile && entry != blocks.end() && entry->second.size_bytes == bytes.size();
        if (path != layout::kChecksumsFile && report.block_checksums && !blocks.empty() && !has_blocks) {
            problems.add("other", name_of(std::string(layout::kChecksumsFile)) + ": has no block checksums of the right size for " + path);
        }
        if (!has_blocks) {
            // Read whole: checksums.bin itself, or an index without block checksums.
            const uint32_t crc = options.full || !report.block_checksums ? crc32(bytes) : listed_file.crc32;
            if (crc != listed_file.crc32) problems.add("other", name + ": CRC-32 does not match manifest.json; the file is damaged");
            if (options.full && binary_file(path) && bytes.size() >= 4) {
                check_trailing(name, crc32(bytes.substr(0, bytes.size() - 4)), bytes, problems);
            }
            done += bytes.size();
            progress(options, "blocks", done, total);
            continue;
        }
        const VerifiedFile file(std::move(*mapped), name, entry->second.block_bytes, entry->second.crcs);
        bool damaged = false;
        for (uint64_t first = 0; first < file.block_count(); first += kBlocksPerStep) {
            for (const auto& block : file.damaged_blocks(first, first + kBlocksPerStep)) {
                damaged = true;
                problems.add("blocks", name + ": block " + std::to_string(block.block) + " (bytes " + std::to_string(block.first_byte) +
                                           "-" + std::to_string(block.last_byte) + ") does not match its CRC-32 in checksums.bin");
            }
            const uint64_t end = std::min(file.block_count(), first + kBlocksPerStep);
            report.blocks += end - first;
            progress(options, "blocks", done + std::min<uint64_t>(bytes.size(), end * file.block_bytes()), total);
        }
        done += bytes.size();
        if (options.full && !damaged) {
            if (prefix_crc(file, entry->second.crcs, bytes.size()) != listed_file.crc32) {
                problems.add("other", name + ": CRC-32 does not match manifest.json (its blocks match checksums.bin)");
            }
            if (binary_file(path) && bytes.size() >= 4) {
                check_trailing(name, prefix_crc(file, entry->second.crcs, bytes.size() - 4), bytes, problems);
            }
        }
    }
    for (const auto& [path, entry] : blocks) {
        if (std::none_of(manifest.files.begin(), manifest.files.end(), [&](const ManifestFile& file) { return file.path == path; })) {
            problems.add("other", name_of(std::string(layout::kChecksumsFile)) + ": lists " + path + ", which manifest.json does not");
        }
    }
}

// Each document's BM25 length norm as query.post's writer computed it;
// empty when a document record cannot be read (reported on its own).
std::vector<double> document_norms(const IndexReader& index, const QueryPostings& layout) {
    const Bm25 bm25(layout.parameters(), index.num_documents(), index.average_length());
    std::vector<double> norms(index.num_documents());
    try {
        for (uint64_t docid = 0; docid < norms.size(); ++docid) {
            norms[docid] = bm25.length_norm(index.document(static_cast<uint32_t>(docid)).length);
        }
    } catch (const Error&) {
        return {};
    }
    return norms;
}

// Impacts that are tfs (store/tf_impacts.hpp): each impact is its posting's
// tf and each block maximum its postings' largest tf, exactly (a maximum too
// low would let pruning drop a document, one too high only slows it, but
// either says the layout is not what its header claims).
template <class Fail>
void check_tf_impacts(const QueryPostings& layout, const QueryList& list, const run_list::DecodedList& decoded,
                      const Fail& fail) {
    std::vector<uint32_t> impacts(layout::kQueryBlockPostings);
    size_t start = 0;
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const QueryBlock& block = list.blocks()[k];
        const std::span<uint32_t> block_impacts(impacts.data(), block.postings);
        list.decode_impacts(k, block_impacts);
        uint32_t largest = 0;
        for (size_t i = 0; i < block.postings; ++i) {
            const uint32_t tf = decoded.tfs[start + i];
            if (block_impacts[i] != tf) {
                fail(", block " + std::to_string(k) + ": posting " + std::to_string(start + i) + " has impact " +
                     std::to_string(block_impacts[i]) + " but tf " + std::to_string(tf) +
                     " (the header says impacts are tfs)");
            }
            largest = std::max(largest, tf);
        }
        if (block.max_impact != largest) {
            fail(", block " + std::to_string(k) + ": field 'max_impact' is " + std::to_string(block.max_impact) +
                 " but its postings' largest tf is " + std::to_string(largest));
        }
        start += block.postings;
    }
    if (static_cast<double>(list.max_impact()) > layout.max_weight()) {
        fail(": tf " + std::to_string(list.max_impact()) + " is above the header's max_weight " +
             std::to_string(layout.max_weight()) + " (the largest tf)");
    }
}

// What search cannot check without decoding every posting: a query.post list
// holds the run files' postings, and each block maximum is its postings'
// largest tf part (one too low would let pruning drop a document).
void check_query_list(const IndexReader& index, const QueryPostings& layout, uint64_t term, const QueryList& list,
                      const run_list::DecodedList& decoded, const std::vector<double>& norms) {
    const auto fail = [&](const std::string& problem) {
        throw FormatError(layout.file_name(), "list of term '" + std::string(index.term(term).term) + "'" + problem);
    };
    std::optional<run_list::DecodedList> runs;
    try {
        runs.emplace(index.postings(term));
    } catch (const Error&) {
        // The run files' damage is reported by the terms pass.
    }
    if (runs && (runs->docids != decoded.docids || runs->tfs != decoded.tfs)) {
        size_t i = 0;
        while (i < decoded.docids.size() && i < runs->docids.size() && decoded.docids[i] == runs->docids[i] &&
               decoded.tfs[i] == runs->tfs[i]) {
            ++i;
        }
        fail(", block " + std::to_string(i / layout::kQueryBlockPostings) + ": posting " + std::to_string(i) +
             " differs from the run files' postings of the term");
    }
    if (layout.impacts_are_tfs()) check_tf_impacts(layout, list, decoded, fail);
    if (norms.empty()) return;
    const Bm25 bm25(layout.parameters(), index.num_documents(), index.average_length());
    size_t start = 0;
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const QueryBlock& block = list.blocks()[k];
        double largest = 0.0;
        for (size_t i = start; i < start + block.postings; ++i) {
            largest = std::max(largest, bm25.tf_part(decoded.tfs[i], norms[decoded.docids[i]]));
        }
        start += block.postings;
        // Equal when written (the same doubles); a little slack for a writer
        // whose arithmetic rounds differently.
        if (block.max_tf_part < largest || block.max_tf_part > largest * (1.0 + 1e-12)) {
            fail(", block " + std::to_string(k) + ": field 'max_tf_part' is " + std::to_string(block.max_tf_part) +
                 " but its postings' largest tf part is " + std::to_string(largest) +
                 " (BM25 with the header's k1 and b and manifest.json's average_length)");
        }
    }
}

// What the reader checks per term and per document, for every one.
void check_contents(const IndexReader& index, const CheckOptions& options, IndexCheckReport& report, Problems& problems) {
    try {
        index.check_dictionary_order();
    } catch (const Error& error) {
        problems.add("other", error.what());
    }
    const uint64_t terms = index.term_count();
    const uint64_t step = std::max<uint64_t>(1, terms / 1000);
    for (uint64_t term = 0; term < terms; ++term) {
        try {
            (void)index.postings(term);
        } catch (const Error& error) {
            problems.add("terms", error.what());
        }
        ++report.terms;
        if (term % step == 0 || term + 1 == terms) progress(options, "terms", term + 1, terms);
    }
    if (QueryPostings::present(index)) {
        try {
            const QueryPostings layout(index);
            const auto norms = document_norms(index, layout);
            for (uint64_t term = 0; term < terms; ++term) {
                try {
                    const QueryList list = layout.list(term);
                    check_query_list(index, layout, term, list, list.decode(), norms);
                } catch (const Error& error) {
                    problems.add("terms", error.what());
                }
                if (term % step == 0 || term + 1 == terms) progress(options, "query lists", term + 1, terms);
            }
        } catch (const Error& error) {
            problems.add("other", error.what());
        }
    }
    const uint64_t documents = index.num_documents();
    const uint64_t document_step = std::max<uint64_t>(1, documents / 1000);
    uint64_t total_length = 0;
    bool all_read = true;
    for (uint64_t docid = 0; docid < documents; ++docid) {
        try {
            const auto document = index.document(static_cast<uint32_t>(docid));
            total_length += document.length;
            if (document.file_ordinal >= index.files().size()) {
                problems.add("documents", index.display(layout::kDocumentsFile) + ": document " + std::to_string(docid) +
                                              ": field 'file_ordinal' " + std::to_string(document.file_ordinal) +
                                              " names no input of manifest.json");
            }
        } catch (const Error& error) {
            all_read = false;
            problems.add("documents", std::string(error.what()) + " (document " + std::to_string(docid) + ")");
        }
        ++report.documents;
        if (docid % document_step == 0 || docid + 1 == documents) progress(options, "documents", docid + 1, documents);
    }
    if (all_read && total_length != index.total_length()) {
        problems.add("other", index.display(layout::kDocumentsFile) + ": field 'length': the lengths add up to " +
                                  std::to_string(total_length) + " but manifest.json says " + std::to_string(index.total_length()));
    }
    // The document store, where the index has one: every block decoded.
    try {
        const DocumentStoreReader store(index);
        store.verify_all([&](uint64_t done, uint64_t total) { progress(options, "document text", done, total); });
    } catch (const Error& error) {
        problems.add("documents", error.what());
    }
}

}  // namespace

IndexCheckReport check_index(const fs::path& directory, const CheckOptions& options) {
    IndexCheckReport report;
    Problems problems(report, options.max_listed);
    Manifest manifest;
    try {
        manifest = read_manifest(directory);
    } catch (const Error& error) {
        problems.add("other", error.what());
        return report;
    }
    if (!manifest.checksummed) {
        // Read, but nothing verifies its counts, inputs and analysis.
        problems.add("other", (directory / layout::kManifestFile).string() +
                                  ": key '/crc32' is missing: written by an older invidx, so its counts, inputs and "
                                  "analysis cannot be verified; rebuild the index, or rewrite it with `invidx merge " +
                                  directory.string() + "` (add --layout query to keep its query layout)");
    }
    check_files(directory, manifest, options, report, problems);
    std::optional<IndexReader> index;
    try {
        index.emplace(directory);
        report.opened = true;
    } catch (const Error& error) {
        problems.add("other", std::string("opening: ") + error.what());
    }
    if (index && options.full) check_contents(*index, options, report, problems);
    return report;
}

}  // namespace invidx
