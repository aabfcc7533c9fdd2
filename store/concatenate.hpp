// Joins indexes of consecutive parts of one collection into one index, as if
// one build had indexed the whole (a cluster build's last step: each rank
// indexed a contiguous range of the sorted input files, docids from 0).
// Part p's docids are shifted by the documents of the parts before it, its
// input ordinals by their files; each part becomes one run whose slot i is
// the part's term i (its partial lists concatenated, as merge does), and
// the dictionaries are merged term by term, a term's lists in part order.
// The CIFF export is then byte-identical to the single build's (CONTENT.md §1-2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "store/index_writer.hpp"

namespace invidx {

class IndexReader;

struct IndexPart {
    std::filesystem::path directory;  // a complete index of the part
    uint32_t first_file = 0;          // ordinal of the part's file 0 in the whole list
};

// Where a part goes in the joined index.
struct ConcatenatedPart {
    uint64_t first_docid = 0;         // documents of the parts before it
    uint64_t documents = 0;
    uint64_t terms = 0;
    bool has_run = false;             // a part without terms writes no run
    uint32_t run = 0;                 // runs numbered in part order
};

struct ConcatenatedIndex {
    std::vector<ConcatenatedPart> parts;  // one per part, in order
    uint64_t documents = 0;
    uint64_t terms = 0;                   // of the merged dictionary
    uint64_t postings = 0;
};

// Every part's place from its document and term counts alone, so that each
// part's run can be written by whoever holds it (write_part_run) at once.
std::vector<ConcatenatedPart> plan_parts(const std::vector<uint64_t>& documents, const std::vector<uint64_t>& terms);

// The part's postings as run `plan.run` of the joined index, written into
// index_dir/runs/ (the joining writer's temporary directory): one part
// (indexer 0) whose slot i is the part's term i, docids shifted by
// plan.first_docid. For parts with a run only.
WrittenRun write_part_run(const IndexPart& part, const ConcatenatedPart& plan, const std::filesystem::path& index_dir);

// The rest of the join, in `writer`: the runs written by write_part_run
// adopted, every part's documents appended (docids and input ordinals
// shifted), the dictionaries merged (a term's lists in part order, df and cf
// summed). The caller writes the report and publishes. Throws
// invidx::Error when the parts disagree on the analysis or positions, or
// do not match the plan; FormatError when a part is damaged.
ConcatenatedIndex join_parts(const std::vector<IndexPart>& parts, const std::vector<ConcatenatedPart>& plan,
                             const std::vector<WrittenRun>& runs, IndexWriter& writer);

// A partition-and-index cluster rank's parts (docs/FORMAT.md "Cluster
// builds"): one index per source rank, each holding the terms this rank owns
// as found in that source's documents, docids local to the source.
struct SourcePart {
    std::filesystem::path directory;  // a complete index of the part
    uint64_t first_docid = 0;         // global docid of the source's local docid 0
    // The part's dictionary as its build wrote it (BuildReport::dictionary),
    // its terms moved out by adopt_source_parts; null: read from the part.
    std::vector<DictionaryTerm>* dictionary = nullptr;
};

// What one rank owns in the joined index: its parts' runs, moved into it,
// and the dictionary terms pointing into them.
struct OwnedTerms {
    std::vector<WrittenRun> runs;            // increasing run number, bases set
    std::vector<DictionaryTerm> dictionary;  // byte-wise order
};

// How many runs the parts' indexes hold together: the run numbers
// adopt_source_parts needs.
uint32_t count_part_runs(const std::vector<SourcePart>& parts);

// The parts' run files (given in source order, so in increasing docids)
// moved into index_dir/runs/ as runs first_run, first_run + 1, ... in
// (part, run) order, each with docid base its part's first_docid, no list
// read or rewritten (store/run_adoption.hpp), and the parts' dictionaries
// merged: a term's lists are its parts' lists in that order, renumbered, so
// they concatenate in increasing docids; df and cf summed. Throws
// invidx::Error when the parts disagree on positions.
OwnedTerms adopt_source_parts(const std::vector<SourcePart>& parts, uint32_t first_run, const std::filesystem::path& index_dir);

// A dictionary part as a file (one rank's terms, for rank 0 to join) and
// back; read_dictionary_part throws FormatError for a damaged file.
void write_dictionary_part(const std::filesystem::path& path, const std::vector<DictionaryTerm>& terms);
std::vector<DictionaryTerm> read_dictionary_part(const std::filesystem::path& path);

// Every document of `part` appended to `writer`, input ordinals shifted by
// first_file (docids follow the writer's count).
void append_part_documents(const IndexPart& part, IndexWriter& writer);
// The same from a part opened earlier: its documents stay readable after
// adopt_source_parts has moved its run files away (they stay mapped).
void append_part_documents(const IndexReader& part, uint32_t first_file, IndexWriter& writer);

// All of it in one process: plan, every part's run, join.
ConcatenatedIndex concatenate_indexes(const std::vector<IndexPart>& parts, IndexWriter& writer);

}  // namespace invidx
