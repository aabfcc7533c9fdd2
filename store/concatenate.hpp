// Joins indexes of consecutive parts of one collection into one index, as if
// one build had indexed the whole (a cluster build's last step: each rank
// indexed a contiguous range of the sorted input files, docids from 0).
// Part p's docids are shifted by the documents of the parts before it, its
// input ordinals by their files; each part becomes one run whose slot i is
// the part's term i (its partial lists concatenated, as merge does), and
// the dictionaries are merged term by term, a term's lists in part order.
// The CIFF export is then byte-identical to the single build's (SPEC §1).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "store/index_writer.hpp"

namespace invidx {

struct IndexPart {
    std::filesystem::path directory;  // a complete index of the part
    uint32_t first_file = 0;          // ordinal of the part's file 0 in the whole list
};

struct ConcatenatedPart {
    uint64_t first_docid = 0;
    uint64_t documents = 0;
    uint64_t terms = 0;
    uint64_t postings = 0;
    bool has_run = false;             // a part without terms writes no run
    uint32_t run = 0;
};

struct ConcatenatedIndex {
    std::vector<ConcatenatedPart> parts;  // one per part, in order
    uint64_t documents = 0;
    uint64_t terms = 0;                   // of the merged dictionary
    uint64_t postings = 0;
};

// Writes every run, document and the dictionary into `writer` (made with
// the whole file list and the parts' analysis settings); the caller writes
// the report and publishes. Throws invidx::Error when the parts disagree on
// the analysis or on positions, or a part is damaged (FormatError).
ConcatenatedIndex concatenate_indexes(const std::vector<IndexPart>& parts, IndexWriter& writer);

}  // namespace invidx
