// A run's postings lists on disk: variable-byte codes (store/codecs/vbyte.hpp)
// for docid gaps, tf and position gaps. Written by the compress node and read
// by every index reader; docs/FORMAT.md describes the list layout:
//   for each posting: vbyte(docid gap) vbyte(tf) [positional: tf x vbyte(position gap)]
// The first docid gap is the docid itself; the first position gap is the position.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/messages.hpp"
#include "store/codecs/vbyte.hpp"

namespace invidx::run_list {

struct DecodedList {
    std::vector<uint32_t> docids;
    std::vector<uint32_t> tfs;
    std::vector<uint32_t> positions;  // concatenated, tf[i] per posting (positional only)
};

// Encodes one postings list, appending to out.
void encode(const TermRunList& list, bool positional, std::string& out);
// Decodes `count` postings, appending to `out`: the first gap is from
// `docid_base` (the run's base, docs/FORMAT.md; 0 for lists of absolute
// docids), so `out` holds absolute docids. Throws on damage, and on a docid
// past 32 bits.
void decode(std::string_view bytes, uint32_t count, bool positional, DecodedList& out, uint64_t docid_base = 0);

// The compress node's work: every list of one indexer's run, back to back.
CompressedRun encode_run(const RunPostings& run);

}  // namespace invidx::run_list
