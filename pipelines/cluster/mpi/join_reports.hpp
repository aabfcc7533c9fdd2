// The end of a join in which every rank wrote its own byte ranges of one
// file (dictionary.bin, documents.bin): each rank reports its figures, one
// count and the checksum spans of what it wrote (a JoinReportMessage), or
// its failure (a FailureMessage: control_messages.hpp); rank 0 puts
// the reports together and seals the file with its trailing CRC-32, without
// reading it back. Shared by the dictionary and documents joins.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipelines/cluster/mpi/mpi_session.hpp"
#include "store/checksum_spans.hpp"

namespace invidx {

struct JoinReports {
    std::vector<nlohmann::json> figures;  // per rank, in rank order
    std::string failures;                 // every distinct error, "; " between; empty when none
    uint64_t count = 0;                   // the ranks' counts summed
    std::vector<ChecksumSpan> spans;      // every rank's
};

// Collective: every rank calls it; only rank 0's result holds the reports.
JoinReports gather_join_reports(Messages& messages, const std::string& error, const nlohmann::json& figures,
                                uint64_t count, const std::vector<ChecksumSpan>& spans);

// Rank 0, once `spans` cover the first size_bytes - 4 bytes of `path`:
// writes their CRC-32 as the file's last 4 bytes and returns the whole
// file's checksums. Not synced: the IndexWriter that adopts the file syncs
// it when it publishes.
FileChecksums seal_with_crc32_trailer(const std::string& path, uint64_t size_bytes, std::vector<ChecksumSpan> spans);

}  // namespace invidx
