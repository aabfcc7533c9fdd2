// Names, magics and versions of the files in an index directory
// (docs/FORMAT.md has the field tables).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace invidx::layout {

inline constexpr std::string_view kFormatName = "invidx";
inline constexpr uint32_t kFormatVersion = 1;
// Version 2: the manifest gives runs docid bases (`run_docid_bases`), added
// to their lists' docids. Written only when a base is nonzero, so version-1
// readers refuse such an index instead of reading docids without their base.
inline constexpr uint32_t kFormatVersionRunBases = 2;

inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr std::string_view kDictionaryFile = "dictionary.bin";
inline constexpr std::string_view kDocumentsFile = "documents.bin";
inline constexpr std::string_view kReportFile = "report.json";
// Optional: the query-ready layout (`invidx merge --layout query`).
inline constexpr std::string_view kQueryPostingsFile = "query.post";
inline constexpr std::string_view kRunsDirectory = "runs";
// A CRC-32 per block of every other file, so a reader verifies only the
// blocks it reads (written by indexes since block checksums were added).
inline constexpr std::string_view kChecksumsFile = "checksums.bin";
inline constexpr uint32_t kChecksumBlockBytes = 64 * 1024;

// 8-byte magics: the first bytes of each binary file.
inline constexpr std::string_view kRunMagic = "INVIDXPO";
inline constexpr std::string_view kDictionaryMagic = "INVIDXDI";
inline constexpr std::string_view kDocumentsMagic = "INVIDXDO";
inline constexpr std::string_view kQueryPostingsMagic = "INVIDXQP";
inline constexpr std::string_view kChecksumsMagic = "INVIDXCK";
inline constexpr uint32_t kFileVersion = 1;

// Fixed record sizes of the tables, in bytes.
inline constexpr uint64_t kRunHeaderBytes = 24;        // magic, version, run, flags, part count
inline constexpr uint64_t kPartDescriptorBytes = 32;   // indexer, lists, table offset, data offset, data bytes
inline constexpr uint64_t kListEntryBytes = 20;        // offset, byte length, postings
inline constexpr uint64_t kDocumentsFooterBytes = 20;  // count, table offset, crc32
inline constexpr uint32_t kRunFlagPositional = 1;
inline constexpr uint64_t kQueryBlockEntryBytes = 20;  // last docid, docid bytes, tf bytes, block maximum
inline constexpr uint64_t kQueryFooterBytes = 20;      // term count, table offset, crc32
inline constexpr uint32_t kQueryBlockPostings = 128;
// query.post version 2 (`invidx weight`): version 1's fields, plus quantized
// BM25 impacts per block (store/impacts.hpp) beside the tfs.
inline constexpr uint32_t kQueryPostingsImpactVersion = 2;
inline constexpr uint64_t kQueryImpactBlockEntryBytes = 28;  // version 1's, impact bytes, block maximum impact
// query.post version 3 (`invidx weight --impacts tf`, store/tf_impacts.hpp):
// version 2's, plus a u32 impact_source after max_weight saying what the
// impacts are; version 2 files stay as they were.
inline constexpr uint32_t kQueryPostingsSourcedImpactVersion = 3;
inline constexpr uint32_t kImpactSourceQuantizedBm25 = 0;
inline constexpr uint32_t kImpactSourceTf = 1;

// "runs/run-000007.post": relative to the index directory.
inline std::string run_file_name(uint32_t run) {
    char name[32];
    std::snprintf(name, sizeof name, "run-%06u.post", run);
    return std::string(kRunsDirectory) + "/" + name;
}

}  // namespace invidx::layout
