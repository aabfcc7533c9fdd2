// The dictionary of a partition cluster build joined by all ranks at once:
// the global term order is cut into one range per rank (splitters from
// terms sampled by every rank), each rank writes every other rank's range
// of its own sorted terms as a slice beside its parts (its own range's
// stays in memory), merges its range from all ranks' slices, and writes its piece of dictionary.bin (its slice
// of the offsets table and its records) at its place in the file, which
// lies in rank 0's temporary directory. Rank 0 writes the header and the
// trailing CRC-32 and puts the checksums together from the spans each rank
// wrote. The bytes equal a serial join's (IndexWriter::write_dictionary).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/messages.hpp"
#include "pipelines/cluster/mpi/mpi_session.hpp"
#include "store/index_writer.hpp"

namespace invidx {

struct DictionaryJoin {
    int rank = 0;
    int ranks = 1;
    // Every rank's directory of parts: parts_dir / "rank-<r>".
    std::filesystem::path parts_dir;
    // dictionary.bin in rank 0's temporary directory.
    std::filesystem::path dictionary_path;
    // This rank's terms, sorted, each already checked against its runs,
    // and the postings their lists hold.
    std::vector<DictionaryTerm> owned;
    uint64_t owned_postings = 0;
    // A failure known before the join (on rank 0: every rank's so far).
    std::string error;
    std::function<void(int)> at_join;  // a test hook (RunOptions::at_cluster_join)
};

struct JoinedDictionary {
    // Rank 0: every rank's failures joined ("" = none); elsewhere this
    // rank's own only.
    std::string error;
    WrittenDictionary written;  // rank 0, when no rank failed
    // Per rank (rank 0: all ranks'): seconds writing slices, merging,
    // writing its piece; its terms and bytes.
    nlohmann::json figures = nlohmann::json::array();
};

// Collective: every rank calls it, in the same step of the build.
JoinedDictionary join_dictionary(DictionaryJoin join, Messages& messages);

}  // namespace invidx
