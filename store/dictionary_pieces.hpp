// dictionary.bin (docs/FORMAT.md) written in pieces by several processes:
// each encodes a contiguous range of the sorted terms (its records and its
// slice of the offsets table) and writes them at their places; the file's
// checksums are put together from the spans each process wrote
// (store/checksum_spans.hpp). The bytes equal
// IndexWriter::write_dictionary's for the same terms.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/messages.hpp"
#include "store/checksum_spans.hpp"

namespace invidx {

// Bytes of one term's record in dictionary.bin.
uint64_t dictionary_record_bytes(const DictionaryTerm& term);
// Appends one term's record to `out`.
void append_dictionary_record(std::string& out, const DictionaryTerm& term);
// The records of `terms`, in their order.
std::string encode_dictionary_records(const std::vector<DictionaryTerm>& terms);
// Their entries of the offsets table, the first record at `first_record_offset`
// (from the start of the file).
std::string encode_dictionary_offsets(const std::vector<DictionaryTerm>& terms, uint64_t first_record_offset);
// The header of a dictionary of `terms` terms (24 bytes).
std::string encode_dictionary_header(uint64_t terms);
inline constexpr uint64_t kDictionaryHeaderBytes = 24;

// Where the global term order is cut into `pieces` ranges: pieces - 1
// terms, non-decreasing; range j holds the terms t with
// splitters[j-1] <= t < splitters[j]. `samples`: sorted terms of each part,
// each standing for `weights[i]` terms of its part (equal counts per range
// as nearly as the samples tell). Ranges may be empty.
std::vector<std::string> choose_term_splitters(const std::vector<std::vector<std::string>>& samples,
                                               const std::vector<double>& weights, uint32_t pieces);
// The range of `term` under `splitters`.
uint32_t splitter_range(const std::vector<std::string>& splitters, std::string_view term);
// About `count` terms of a sorted part, evenly spaced, and the weight each
// stands for.
std::vector<std::string> sample_sorted_terms(const std::vector<DictionaryTerm>& terms, uint32_t count, double& weight);

}  // namespace invidx
