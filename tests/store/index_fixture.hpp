// A small collection for the store tests: documents as token lists, the
// expected postings computed straight from them, and a writer that splits
// them into runs and indexer parts the way the engine does (Wei & JaJa
// §III.F: each run covers a docid range; each indexer owns some terms).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "store/run_list.hpp"
#include "invidx/messages.hpp"
#include "store/block_checksums.hpp"
#include "store/crc32.hpp"
#include "store/index_layout.hpp"
#include "store/index_writer.hpp"
#include "store/manifest.hpp"
#include "support/temp_dir.hpp"

namespace invidx::testing {

struct FixtureDoc {
    std::string name;
    std::vector<std::string> tokens;  // every token is a term; position = index
    uint32_t file_ordinal = 0;
    uint64_t source_offset = 0;
};

struct ExpectedPosting {
    uint32_t docid = 0;
    uint32_t tf = 0;
    std::vector<uint32_t> positions;
};

struct Collection {
    std::vector<FixtureDoc> docs;
    std::map<std::string, std::vector<ExpectedPosting>> postings;  // byte-wise term order
    std::vector<InputFile> files;
};

inline const std::vector<std::string>& fixture_vocabulary() {
    // "\xc3\xa9t\xc3\xa9" (UTF-8 "ete" with accents) sorts after "zoo" byte-wise.
    static const std::vector<std::string> words = {"apple", "banana", "cherry", "delta", "echo", "zoo",
                                                   "a1", "\xc3\xa9t\xc3\xa9", "x", "quantum", "yak", "mm"};
    return words;
}

inline uint32_t fixture_collection(const std::string& term) { return static_cast<uint32_t>(term.size() * 7 + static_cast<unsigned char>(term[0])); }

inline Collection make_collection(uint32_t documents, uint32_t seed) {
    Collection collection;
    collection.files = {InputFile{.ordinal = 0, .path = "/data/part-0.warc.gz", .name = "part-0.warc.gz", .format = "warc", .size_bytes = 1000},
                        InputFile{.ordinal = 1, .path = "/data/part-1.jsonl", .name = "part-1.jsonl", .format = "jsonl", .size_bytes = 2000}};
    std::mt19937 random(seed);
    const auto& words = fixture_vocabulary();
    for (uint32_t docid = 0; docid < documents; ++docid) {
        FixtureDoc doc;
        doc.name = "doc-" + std::to_string(docid * 3 + 1);
        doc.file_ordinal = docid < documents / 2 ? 0 : 1;
        doc.source_offset = 100 * uint64_t{docid} + 17;
        const uint32_t length = docid == 3 ? 0 : random() % 15;  // doc 3 has no terms
        for (uint32_t k = 0; k < length; ++k) {
            // Skewed choice so that some terms are frequent and some rare.
            const uint32_t pick = std::min<uint32_t>(random() % words.size(), random() % words.size());
            doc.tokens.push_back(words[pick]);
        }
        for (uint32_t position = 0; position < doc.tokens.size(); ++position) {
            auto& list = collection.postings[doc.tokens[position]];
            if (list.empty() || list.back().docid != docid) list.push_back({docid, 0, {}});
            ++list.back().tf;
            list.back().positions.push_back(position);
        }
        collection.docs.push_back(std::move(doc));
    }
    return collection;
}

inline AnalysisSettings fixture_settings(bool positional) {
    AnalysisSettings settings;
    settings.stopwords = {"a", "an", "the"};
    settings.stopwords_name = "custom";
    settings.stemmer = "porter";
    settings.html[invidx::InputFormat::jsonl] = true;
    settings.positions = positional;
    return settings;
}

struct WriteOptions {
    uint32_t runs = 3;
    uint32_t indexers = 2;
    bool positional = false;
    std::optional<nlohmann::json> report;
    bool publish = true;
    // Each run's lists hold docids relative to the run's first docid, given
    // to the writer as the run's docid base (format version 2).
    bool docid_bases = false;
};

// Splits the collection into runs (docid ranges) and indexer parts, and
// writes it through IndexWriter. Parts and terms are handed over unsorted on
// purpose: the writer must sort them.
inline void write_index(const Collection& collection, const std::filesystem::path& dir, const WriteOptions& options) {
    IndexWriter writer(dir, fixture_settings(options.positional), collection.files);
    const auto documents = static_cast<uint32_t>(collection.docs.size());
    std::map<std::string, DictionaryTerm> dictionary;
    for (uint32_t run = 0; run < options.runs; ++run) {
        const uint32_t first = run * documents / options.runs;
        const uint32_t last = (run + 1) * documents / options.runs;
        std::vector<RunPostings> parts(options.indexers);
        for (uint32_t indexer = 0; indexer < options.indexers; ++indexer) {
            parts[indexer] = RunPostings{.run = run, .indexer = indexer, .indexer_count = options.indexers,
                                         .lists = {}, .positional = options.positional, .end_of_input = run + 1 == options.runs, .documents = {}};
        }
        // Slots in order of first appearance in the run, as an indexer sees terms.
        std::map<std::string, std::pair<uint32_t, uint32_t>> slot_of;  // term -> (indexer, slot)
        for (uint32_t docid = first; docid < last; ++docid) {
            const auto& doc = collection.docs[docid];
            std::map<std::string, std::vector<uint32_t>> positions;
            for (uint32_t position = 0; position < doc.tokens.size(); ++position) positions[doc.tokens[position]].push_back(position);
            for (const auto& [term, term_positions] : positions) {
                const uint32_t indexer = fixture_collection(term) % options.indexers;
                auto found = slot_of.find(term);
                if (found == slot_of.end()) {
                    const auto slot = static_cast<uint32_t>(parts[indexer].lists.size());
                    parts[indexer].lists.push_back(TermRunList{.slot = slot, .docids = {}, .tfs = {}, .positions = {}});
                    found = slot_of.emplace(term, std::make_pair(indexer, slot)).first;
                    auto& entry = dictionary[term];
                    entry.term = term;
                    entry.collection = fixture_collection(term);
                    entry.lists.push_back(PartialListRef{.run = run, .indexer = indexer, .slot = slot});
                }
                auto& list = parts[indexer].lists[found->second.second];
                list.docids.push_back(options.docid_bases ? docid - first : docid);
                list.tfs.push_back(static_cast<uint32_t>(term_positions.size()));
                if (options.positional) list.positions.insert(list.positions.end(), term_positions.begin(), term_positions.end());
                dictionary[term].df += 1;
                dictionary[term].cf += term_positions.size();
            }
        }
        std::vector<CompressedRun> compressed;
        for (auto part = parts.rbegin(); part != parts.rend(); ++part) compressed.push_back(run_list::encode_run(*part));
        writer.write_run(run, std::move(compressed), options.docid_bases ? first : 0);
    }
    std::vector<ParsedDoc> batch;
    for (const auto& doc : collection.docs) {
        batch.push_back(ParsedDoc{.name = doc.name, .length = static_cast<uint32_t>(doc.tokens.size()),
                                  .file_ordinal = doc.file_ordinal, .source_offset = doc.source_offset});
        if (batch.size() == 7) {
            writer.append_documents(batch);
            batch.clear();
        }
    }
    writer.append_documents(batch);
    std::vector<DictionaryTerm> terms;
    for (auto entry = dictionary.rbegin(); entry != dictionary.rend(); ++entry) terms.push_back(entry->second);
    writer.write_dictionary(std::move(terms));
    if (options.report) writer.write_report(*options.report);
    if (options.publish) writer.publish();
}

inline std::string read_whole(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes an edited manifest with its "crc32" recomputed, so that only the
// checks of what was edited can notice (not the manifest's own checksum).
inline void write_manifest(const std::filesystem::path& index_dir, nlohmann::json manifest) {
    invidx::seal_manifest(manifest);
    std::ofstream(index_dir / "manifest.json", std::ios::trunc) << manifest.dump(2) << "\n";
}

// Recomputes checksums.bin and the manifest's sizes and CRC-32s from the
// files as they are now, so that only a file's own checks (its trailing
// CRC-32, its fields) can notice a change made to it.
inline void refresh_checksums(const std::filesystem::path& index_dir) {
    auto manifest = nlohmann::json::parse(read_whole(index_dir / "manifest.json"));
    std::vector<FileBlockChecksums> blocks;
    for (const auto& file : manifest["files"]) {
        const std::string path = file["path"];
        if (path == layout::kChecksumsFile) continue;
        const std::string bytes = read_whole(index_dir / path);
        FileBlockChecksums entry{.path = path, .size_bytes = bytes.size(), .block_bytes = layout::kChecksumBlockBytes, .crcs = {}};
        for (size_t at = 0; at < bytes.size(); at += layout::kChecksumBlockBytes) {
            entry.crcs.push_back(crc32(std::string_view(bytes).substr(at, layout::kChecksumBlockBytes)));
        }
        blocks.push_back(std::move(entry));
    }
    {
        BinaryWriter out(index_dir / layout::kChecksumsFile);
        write_block_checksums(blocks, out);
    }
    for (auto& file : manifest["files"]) {
        const std::string bytes = read_whole(index_dir / file["path"].get<std::string>());
        file["size_bytes"] = bytes.size();
        file["crc32"] = crc32(bytes);
    }
    write_manifest(index_dir, manifest);
}

// Makes an index as written before block checksums: no checksums.bin.
inline void drop_checksums(const std::filesystem::path& index_dir) {
    auto manifest = nlohmann::json::parse(read_whole(index_dir / "manifest.json"));
    auto& files = manifest["files"];
    for (auto file = files.begin(); file != files.end(); ++file) {
        if ((*file)["path"] == layout::kChecksumsFile) {
            files.erase(file);
            break;
        }
    }
    std::filesystem::remove(index_dir / layout::kChecksumsFile);
    write_manifest(index_dir, manifest);
}

// Names of the entries of `dir` (to look for leftover temporary directories).
inline std::vector<std::string> entry_names(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace invidx::testing
