#include "pipelines/cluster/mpi/documents_join.hpp"

#include <mpi.h>

#include <chrono>
#include <fcntl.h>

#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/mpi/join_reports.hpp"
#include "pipelines/cluster/positioned_file.hpp"
#include "store/binary_io.hpp"
#include "store/checksum_spans.hpp"
#include "store/durable_sync.hpp"
#include "store/document_pieces.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"

namespace invidx {
namespace {

using nlohmann::json;

// Written a MiB at a time: a rank's document names need not fit in memory.
constexpr size_t kWriteBytes = size_t{1} << 20;


}  // namespace

JoinedDocuments join_documents(DocumentsJoin join, Messages& messages) {
    const int rank = join.rank;
    const int ranks = join.ranks;
    const std::string who = "rank " + std::to_string(rank) + " of " + std::to_string(ranks);
    JoinedDocuments result;
    std::string error = join.error;  // this rank's first failure
    const auto failed = [&](const std::exception& e) {
        if (error.empty()) error = who + ": joining the documents failed: " + e.what();
    };
    json figures = {{"rank", rank}};

    // 1. Every rank learns every rank's document count and record bytes
    // (a record's size does not change with its input ordinal, so they are
    // the part's own); rank 0 creates the file first.
    const uint64_t documents = join.part ? join.part->num_documents() : 0;
    const uint64_t record_bytes = join.part ? join.part->documents_record_bytes() : 0;
    if (error.empty()) {
        try {
            // Its name is synced with the directory's at publish.
            if (rank == 0) PositionedFile(join.documents_path, O_WRONLY | O_CREAT | O_TRUNC).close();
            if (join.at_join) join.at_join(rank);
        } catch (const std::exception& e) {
            failed(e);
        }
    }
    uint64_t mine[3] = {error.empty() ? 1u : 0u, documents, record_bytes};
    std::vector<uint64_t> everyone(3 * static_cast<size_t>(ranks));
    MPI_Allgather(mine, 3, MPI_UINT64_T, everyone.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD);
    bool all_ok = true;
    uint64_t all_documents = 0, all_record_bytes = 0, documents_before = 0, records_before = 0;
    for (int r = 0; r < ranks; ++r) {
        const uint64_t* of = &everyone[3 * static_cast<size_t>(r)];
        all_ok = all_ok && of[0] == 1;
        if (r < rank) documents_before += of[1], records_before += of[2];
        all_documents += of[1];
        all_record_bytes += of[2];
    }
    const uint64_t table_offset = kDocumentsHeaderBytes + all_record_bytes;
    const uint64_t footer_offset = table_offset + 8 * all_documents;
    const uint64_t size_bytes = footer_offset + layout::kDocumentsFooterBytes;

    // 2. Each rank writes its records and its slice of the offsets table at
    // their places, with the CRC-32 of each span within a checksum block.
    const auto write_start = std::chrono::steady_clock::now();
    std::vector<ChecksumSpan> spans;
    uint64_t total_length = 0;
    if (all_ok) {
        try {
            PositionedFile file(join.documents_path, O_WRONLY);
            const auto write = [&](uint64_t offset, std::string_view bytes) {
                file.write_at(offset, bytes);
                add_checksum_spans(spans, offset, bytes);
            };
            if (rank == 0) write(0, encode_documents_header());
            uint64_t record_at = kDocumentsHeaderBytes + records_before;
            uint64_t entry_at = table_offset + 8 * documents_before;
            std::string records, entries;
            const auto flush = [&] {
                write(record_at, records), record_at += records.size(), records.clear();
                write(entry_at, entries), entry_at += entries.size(), entries.clear();
            };
            // The part's records copied as they are, their input ordinals
            // shifted: the record layout is the joined file's.
            const std::string_view part_records = documents ? join.part->document_records() : std::string_view();
            uint64_t at = 0;
            for (uint64_t docid = 0; docid < documents; ++docid) {
                const uint64_t left = part_records.size() - at;
                const uint64_t bytes = left < 4 ? 0 : document_record_bytes(load_u32(part_records.data() + at));
                if (left < 4 || bytes > left) [[unlikely]]
                    throw Error("the part's documents.bin ends inside the record of docid " + std::to_string(docid));
                const uint64_t name_bytes = bytes - document_record_bytes(0);
                encode_document_offset(entries, record_at + records.size());
                const size_t copied = records.size();
                records.append(part_records.data() + at, bytes);
                total_length += load_u32(part_records.data() + at + 4 + name_bytes);
                const size_t ordinal_at = copied + 4 + name_bytes + 4;
                const uint32_t ordinal = load_u32(records.data() + ordinal_at) + join.first_file;
                for (int i = 0; i < 4; ++i) records[ordinal_at + static_cast<size_t>(i)] = static_cast<char>(ordinal >> (8 * i));
                at += bytes;
                if (records.size() >= kWriteBytes) flush();
            }
            flush();
            ensure(at == part_records.size(), "the part's documents.bin holds records past its last document");
            ensure(record_at == kDocumentsHeaderBytes + records_before + record_bytes,
                   "its records came to other than the " + std::to_string(record_bytes) + " bytes it announced");
            if (rank == 0) write(footer_offset, encode_documents_footer(all_documents, table_offset));
            file.close();
            // This rank's writes on disk before it reports them: one wait
            // for them all.
            std::vector<std::filesystem::path> written = join.also_sync;
            written.push_back(join.documents_path);
            const auto sync_start = std::chrono::steady_clock::now();
            sync_files(written);
            figures["sync_seconds"] = seconds_since(sync_start);
        } catch (const std::exception& e) {
            failed(e);
        }
    }
    figures["write_seconds"] = seconds_since(write_start);
    figures["documents"] = documents;
    figures["record_bytes"] = record_bytes;

    // 3. Rank 0 gathers the spans and failures, writes the trailing CRC-32
    // and puts the checksums together.
    JoinReports reports = gather_join_reports(messages, error, figures, total_length, spans);
    if (rank != 0) {
        result.error = error;
        return result;
    }
    result.figures = std::move(reports.figures);
    std::string failures = std::move(reports.failures);
    if (failures.empty() && !all_ok) failures = who + ": joining the documents failed on a rank that did not say why";
    if (failures.empty()) {
        try {
            const FileChecksums whole = seal_with_crc32_trailer(join.documents_path, size_bytes, std::move(reports.spans));
            result.written = WrittenDocuments{.size_bytes = size_bytes, .crc32 = whole.crc32,
                                              .block_crcs = whole.block_crcs, .documents = all_documents,
                                              .total_length = reports.count};
        } catch (const std::exception& e) {
            failures = who + ": joining the documents failed: " + e.what();
        }
    }
    result.error = failures;
    return result;
}

}  // namespace invidx
