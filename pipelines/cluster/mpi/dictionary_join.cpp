#include "pipelines/cluster/mpi/dictionary_join.hpp"

#include <mpi.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <queue>

#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/mpi/join_reports.hpp"
#include "pipelines/cluster/positioned_file.hpp"
#include "store/concatenate.hpp"
#include "store/dictionary_pieces.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Terms are bytes, not always UTF-8: samples and splitters travel as
// length-prefixed strings, not JSON.
void put_u64(std::string& out, uint64_t value) { out.append(reinterpret_cast<const char*>(&value), 8); }
uint64_t take_u64(std::string_view& in) {
    ensure(in.size() >= 8, "a truncated message between ranks");
    uint64_t value = 0;
    std::memcpy(&value, in.data(), 8);
    in.remove_prefix(8);
    return value;
}
void put_strings(std::string& out, const std::vector<std::string>& strings) {
    put_u64(out, strings.size());
    for (const auto& s : strings) put_u64(out, s.size()), out += s;
}
std::vector<std::string> take_strings(std::string_view& in) {
    std::vector<std::string> strings(take_u64(in));
    for (auto& s : strings) {
        const uint64_t length = take_u64(in);
        ensure(in.size() >= length, "a truncated message between ranks");
        s.assign(in.substr(0, length));
        in.remove_prefix(length);
    }
    return strings;
}


fs::path slice_path(const fs::path& parts_dir, int from, int to) {
    return parts_dir / ("rank-" + std::to_string(from)) / ("dictionary-to-" + std::to_string(to) + ".part");
}

// The terms of every rank's slice for this rank, in order; a term two
// ranks own is an error.
std::vector<DictionaryTerm> merge_slices(std::vector<std::vector<DictionaryTerm>> slices) {
    using Head = std::pair<size_t, size_t>;  // slice, index
    const auto later = [&](const Head& a, const Head& b) {
        return slices[b.first][b.second].term < slices[a.first][a.second].term;
    };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    size_t total = 0;
    for (size_t s = 0; s < slices.size(); ++s) {
        total += slices[s].size();
        if (!slices[s].empty()) heads.push({s, 0});
    }
    // One slice holding every term (one rank): nothing to merge but the checks.
    if (std::count_if(slices.begin(), slices.end(), [](const auto& slice) { return !slice.empty(); }) <= 1) {
        for (auto& slice : slices) {
            if (slice.empty()) continue;
            for (size_t i = 1; i < slice.size(); ++i)
                ensure(slice[i - 1].term < slice[i].term,
                       "dictionary holds the term '" + slice[i].term + "' twice or out of order");
            return std::move(slice);
        }
        return {};
    }
    std::vector<DictionaryTerm> merged;
    merged.reserve(total);
    while (!heads.empty()) {
        const auto [s, i] = heads.top();
        heads.pop();
        ensure(merged.empty() || merged.back().term < slices[s][i].term,
               "dictionary holds the term '" + slices[s][i].term + "' twice or out of order");
        merged.push_back(std::move(slices[s][i]));
        if (i + 1 < slices[s].size()) heads.push({s, i + 1});
    }
    return merged;
}

}  // namespace

JoinedDictionary join_dictionary(DictionaryJoin join, Messages& messages) {
    const int rank = join.rank;
    const int ranks = join.ranks;
    const std::string who = "rank " + std::to_string(rank) + " of " + std::to_string(ranks);
    JoinedDictionary result;
    std::string error = join.error;  // this rank's first failure
    const auto failed = [&](const std::exception& e) {
        if (error.empty()) error = who + ": joining the dictionary failed: " + e.what();
    };
    json figures = {{"rank", rank}};

    // 1. Samples of every rank's sorted terms to rank 0, which cuts the
    // term order into one range per rank and creates dictionary.bin.
    std::string sample_blob(1, error.empty() ? '\1' : '\0');
    if (error.empty()) {
        double weight = 0;
        // 64 samples a range: ranges within a few per cent of equal.
        const auto sample = sample_sorted_terms(join.owned, 64 * static_cast<uint32_t>(ranks), weight);
        put_u64(sample_blob, std::bit_cast<uint64_t>(weight));
        put_strings(sample_blob, sample);
    }
    const std::vector<std::string> samples = messages.gather(sample_blob);
    std::string plan(1, '\1');
    if (rank == 0) {
        std::string failures = join.error;  // rank 0's: every rank's failures before the join
        try {
            std::vector<std::vector<std::string>> sampled;
            std::vector<double> weights;
            for (const auto& blob : samples) {
                if (blob.at(0) != '\1') continue;  // its failure is in rank 0's already
                std::string_view in(blob);
                in.remove_prefix(1);
                weights.push_back(std::bit_cast<double>(take_u64(in)));
                sampled.push_back(take_strings(in));
            }
            if (failures.empty()) {
                put_strings(plan, choose_term_splitters(sampled, weights, static_cast<uint32_t>(ranks)));
                // Its name is synced with the directory's at publish.
                PositionedFile(join.dictionary_path, O_WRONLY | O_CREAT | O_TRUNC).close();
            }
        } catch (const std::exception& e) {
            failures = who + ": joining the dictionary failed: " + e.what();
        }
        if (!failures.empty()) plan = std::string(1, '\0') + failures;
    }
    messages.broadcast(plan);
    if (plan.at(0) != '\1') {
        result.error = rank == 0 ? plan.substr(1) : error;
        return result;
    }
    std::string_view plan_view(plan);
    plan_view.remove_prefix(1);
    const std::vector<std::string> splitters = take_strings(plan_view);

    // 2. Each rank's terms, cut by the splitters, as one slice per range;
    // its own range's slice stays in memory.
    auto phase_start = std::chrono::steady_clock::now();
    std::vector<DictionaryTerm> own_slice;
    try {
        auto owned = std::move(join.owned);
        // A rank that indexed nothing has no directory of parts yet.
        fs::create_directories(slice_path(join.parts_dir, rank, 0).parent_path());
        size_t begin = 0;
        for (int to = 0; to < ranks; ++to) {
            size_t end = begin;
            while (end < owned.size() && splitter_range(splitters, owned[end].term) == static_cast<uint32_t>(to)) ++end;
            std::vector<DictionaryTerm> slice;
            if (begin == 0 && end == owned.size()) {
                slice = std::move(owned);  // all in one range (one rank): no copy
                owned.clear();
                begin = end = 0;
            } else {
                slice.assign(std::make_move_iterator(owned.begin() + static_cast<std::ptrdiff_t>(begin)),
                             std::make_move_iterator(owned.begin() + static_cast<std::ptrdiff_t>(end)));
            }
            if (to == rank) {
                own_slice = std::move(slice);
            } else {
                write_dictionary_part(slice_path(join.parts_dir, rank, to), slice);
            }
            begin = end;
        }
        ensure(begin == owned.size(), "its terms are not in order");
    } catch (const std::exception& e) {
        failed(e);
    }
    figures["slice_seconds"] = seconds_since(phase_start);
    int ok = error.empty() ? 1 : 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    // 3. Each rank merges its range from every rank's slice and encodes its
    // records; all learn every range's term count and record bytes.
    phase_start = std::chrono::steady_clock::now();
    std::vector<DictionaryTerm> range;
    std::string records;
    if (all_ok) {
        try {
            std::vector<std::vector<DictionaryTerm>> slices;
            for (int from = 0; from < ranks; ++from)
                slices.push_back(from == rank ? std::move(own_slice)
                                              : read_dictionary_part(slice_path(join.parts_dir, from, rank)));
            range = merge_slices(std::move(slices));
            if (join.at_join) join.at_join(rank);
            records = encode_dictionary_records(range);
        } catch (const std::exception& e) {
            failed(e);
        }
    }
    figures["merge_seconds"] = seconds_since(phase_start);
    figures["terms"] = range.size();
    figures["record_bytes"] = records.size();
    uint64_t mine[3] = {error.empty() ? 1u : 0u, range.size(), records.size()};
    std::vector<uint64_t> everyone(3 * static_cast<size_t>(ranks));
    if (all_ok) {
        MPI_Allgather(mine, 3, MPI_UINT64_T, everyone.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int r = 0; r < ranks; ++r) all_ok = all_ok && everyone[3 * static_cast<size_t>(r)] == 1;
    }

    // 4. Each rank writes its slice of the offsets table and its records at
    // their places, with the CRC-32 of each span within a checksum block.
    phase_start = std::chrono::steady_clock::now();
    uint64_t terms = 0, record_bytes = 0, terms_before = 0, records_before = 0;
    for (int r = 0; all_ok && r < ranks; ++r) {
        if (r < rank) terms_before += everyone[3 * static_cast<size_t>(r) + 1];
        if (r < rank) records_before += everyone[3 * static_cast<size_t>(r) + 2];
        terms += everyone[3 * static_cast<size_t>(r) + 1];
        record_bytes += everyone[3 * static_cast<size_t>(r) + 2];
    }
    const uint64_t records_offset = kDictionaryHeaderBytes + 8 * terms;
    const uint64_t size_bytes = records_offset + record_bytes + 4;
    std::vector<ChecksumSpan> spans;
    if (all_ok) {
        try {
            PositionedFile file(join.dictionary_path, O_WRONLY);
            const auto write = [&](uint64_t offset, std::string_view bytes) {
                file.write_at(offset, bytes);
                const auto cut = checksum_spans(offset, bytes);
                spans.insert(spans.end(), cut.begin(), cut.end());
            };
            if (rank == 0) write(0, encode_dictionary_header(terms));
            write(kDictionaryHeaderBytes + 8 * terms_before, encode_dictionary_offsets(range, records_offset + records_before));
            write(records_offset + records_before, records);
            file.close();  // synced with this rank's documents (DocumentsJoin::also_sync)
        } catch (const std::exception& e) {
            failed(e);
        }
    }
    figures["write_seconds"] = seconds_since(phase_start);

    // 5. Rank 0 gathers the spans and failures, writes the trailing CRC-32
    // and puts the checksums together.
    JoinReports reports = gather_join_reports(messages, error, figures, join.owned_postings, spans);
    if (rank != 0) {
        result.error = error;
        return result;
    }
    result.figures = std::move(reports.figures);
    std::string failures = std::move(reports.failures);
    if (failures.empty() && !all_ok) failures = who + ": joining the dictionary failed on a rank that did not say why";
    if (failures.empty()) {
        try {
            const FileChecksums whole = seal_with_crc32_trailer(join.dictionary_path, size_bytes, std::move(reports.spans));
            result.written = WrittenDictionary{.size_bytes = size_bytes, .crc32 = whole.crc32,
                                               .block_crcs = whole.block_crcs, .terms = terms,
                                               .postings = reports.count};
        } catch (const std::exception& e) {
            failures = who + ": joining the dictionary failed: " + e.what();
        }
    }
    result.error = failures;
    return result;
}

}  // namespace invidx
