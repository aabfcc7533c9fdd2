// documents.bin of a partition cluster build written by all ranks at once.
// Rank r's documents (its own files' part) are one contiguous docid range,
// so its records and its slice of the offsets table have places that follow
// from the document counts and record bytes of the ranks before it
// (MPI_Allgather): each rank writes them (pwrite) into one file beside the
// parts, and rank 0 writes the header, the footer and the trailing CRC-32,
// put together from the spans every rank wrote. The bytes equal a serial
// join's (rank 0 appending every rank's documents in docid order).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipelines/cluster/mpi/mpi_session.hpp"
#include "store/index_writer.hpp"

namespace invidx {

class IndexReader;

struct DocumentsJoin {
    int rank = 0;
    int ranks = 1;
    // This rank's own documents (the part of its own files, docids from 0),
    // or null when it parsed no files.
    const IndexReader* part = nullptr;
    uint32_t first_file = 0;  // its input ordinals are shifted by this
    // The joined file, in rank 0's temporary directory (moved into place by
    // IndexWriter::adopt_documents).
    std::filesystem::path documents_path;
    // A failure known before the join (on rank 0: every rank's so far).
    std::string error;
    // Files this rank wrote earlier without syncing (its slice of the
    // joined dictionary.bin): synced with its documents, all at once.
    std::vector<std::filesystem::path> also_sync;
    std::function<void(int)> at_join;  // a test hook (RunOptions::at_cluster_join)
};

struct JoinedDocuments {
    // Rank 0: every rank's failures joined ("" = none); elsewhere this
    // rank's own only.
    std::string error;
    WrittenDocuments written;  // rank 0, when no rank failed
    // Per rank (rank 0: all ranks'): seconds writing, documents and bytes.
    nlohmann::json figures = nlohmann::json::array();
};

// Collective: every rank calls it, in the same step of the build.
JoinedDocuments join_documents(DocumentsJoin join, Messages& messages);

}  // namespace invidx
