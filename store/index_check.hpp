// invidx check: Lucene's CheckIndex for invidx. Where opening an index reads
// a few bytes per file and verifies blocks as they are read, check_index
// verifies every block of every file against checksums.bin and, with
// `full`, every whole-file CRC-32 (the manifest's and each file's trailing
// one) and decodes every term's postings and every document record with the
// reader's own checks, comparing query.post's lists with the run files' and
// recomputing their block maxima. A manifest without its own checksum
// (written by an older invidx) is a problem too. It reports every problem it
// finds, not the first.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

struct CheckProgress {
    std::string_view phase;  // "blocks" (units: bytes), "terms", "query lists", "documents"
    uint64_t done = 0;
    uint64_t total = 0;
};

struct CheckOptions {
    bool full = false;
    // Called from the checking thread after each piece of work; may be empty.
    std::function<void(const CheckProgress&)> progress;
    // Problems listed per kind (blocks, terms, documents, other); past it, counted.
    size_t max_listed = 1000;
};

struct IndexCheckReport {
    bool block_checksums = false;  // the index has checksums.bin
    bool opened = false;           // IndexReader opened it
    uint64_t files = 0;
    uint64_t bytes = 0;
    uint64_t blocks = 0;           // blocks verified against checksums.bin
    uint64_t terms = 0;            // terms decoded (full)
    uint64_t documents = 0;        // document records read (full)
    // Each names the file and the block, field, term or document.
    std::vector<std::string> problems;
    uint64_t problems_not_listed = 0;
    bool ok() const { return problems.empty(); }
};

// Never throws for a damaged index (that is a problem in the report).
IndexCheckReport check_index(const std::filesystem::path& directory, const CheckOptions& options = {});

}  // namespace invidx
