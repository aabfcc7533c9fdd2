// The checks gpu_layout_impacts and its host reference share
// (devices/gpu_layout_weights.hpp): everything about the input but the
// lists, which only walking them checks.
#include <cmath>
#include <string>

#include "devices/gpu_layout_weights.hpp"
#include "invidx/error.hpp"

namespace invidx {

void check_layout_weight_input(const GpuLayoutWeightInput& input, uint64_t count, bool byte_impacts) {
    const uint64_t terms = input.term_dfs.size();
    ensure(input.file != nullptr || input.file_bytes == 0, "layout impacts: no file bytes");
    ensure(input.lists_start <= input.table_offset && input.table_offset <= input.file_bytes &&
               (input.file_bytes - input.table_offset) / 8 >= terms + 1,
           "layout impacts: the list offsets do not fit in the file's bytes");
    ensure(input.entry_bytes == 20 || input.entry_bytes == 28, "layout impacts: a block entry is 20 or 28 bytes");
    uint64_t postings = 0;
    for (const uint64_t df : input.term_dfs) postings += df;
    ensure(count == postings, "layout impacts: the output holds " + std::to_string(count) + " impacts for " +
                                  std::to_string(postings) + " postings");
    ensure(std::isfinite(input.average_length) && input.average_length > 0.0, "layout impacts: average length must be > 0");
    const unsigned most = byte_impacts ? 8 : 16;
    ensure(input.bits >= 1 && input.bits <= most, "layout impacts: bits must be 1 to " + std::to_string(most));
    ensure(!input.max_weight || (std::isfinite(*input.max_weight) && *input.max_weight > 0.0),
           "layout impacts: a given largest weight must be positive and finite");
}

uint64_t gpu_layout_device_bytes(uint64_t file_bytes, uint64_t terms, uint64_t documents, uint64_t postings) {
    // Per term: df, first block, first posting, idf (8 each). Per document:
    // length (4), norm (8). Per block (at most postings / 128 + terms): two
    // group starts, a posting start, the block maximum (8 each), first docid
    // and term (4 each). Per posting: a 2-byte impact, and CUB's scratch.
    constexpr uint64_t kSlack = uint64_t{16} << 20;
    const uint64_t blocks = postings / 128 + terms;
    return file_bytes + 32 + 32 * terms + 12 * documents + 40 * blocks + 2 * postings + postings / 16 + kSlack;
}

}  // namespace invidx
