// Joins indexes of consecutive parts of one collection into one index, as if
// one build had indexed the whole (a cluster build's last step: each rank
// indexed a contiguous range of the sorted input files, docids from 0).
// Part p's run files become runs of the joined index as they are, each with
// base D_p, the documents of the parts before it (no posting rewritten);
// its documents are appended with their input ordinals shifted; the parts'
// dictionaries are merged term by term, a term's lists in part order. The
// CIFF export is then byte-identical to the single build's (CONTENT.md §1-2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "store/index_writer.hpp"

namespace invidx {

class IndexReader;

// Where a part goes in the joined index.
struct ConcatenatedPart {
    uint64_t first_docid = 0;  // documents of the parts before it
    uint64_t documents = 0;
};

// Every part's place from the parts' document counts: its first docid, the
// documents of the parts before it. Refuses more than 2^32 documents.
std::vector<ConcatenatedPart> plan_parts(const std::vector<uint64_t>& documents);

// A partition-and-index cluster rank's parts (docs/FORMAT.md "Cluster
// builds"): one index per source rank, each holding the terms this rank owns
// as found in that source's documents, docids local to the source; in files
// mode, each rank's whole part.
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
// invidx::Error when the parts disagree on positions or analysis settings.
OwnedTerms adopt_source_parts(const std::vector<SourcePart>& parts, uint32_t first_run, const std::filesystem::path& index_dir);

// A dictionary part as a file (one rank's terms, for rank 0 to join) and
// back; read_dictionary_part throws FormatError for a damaged file.
void write_dictionary_part(const std::filesystem::path& path, const std::vector<DictionaryTerm>& terms);
std::vector<DictionaryTerm> read_dictionary_part(const std::filesystem::path& path);

// Every document of `part` appended to `writer`, input ordinals shifted by
// first_file (docids follow the writer's count). Open the part before
// adopt_source_parts moves its run files away: its documents stay mapped.
void append_part_documents(const IndexReader& part, uint32_t first_file, IndexWriter& writer);

}  // namespace invidx
