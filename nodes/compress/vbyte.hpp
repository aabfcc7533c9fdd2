// Variable-byte codes (7 data bits per byte, high bit set on the last byte of
// each integer) for docid gaps, tf and position gaps. Used by the compress
// node and by every index reader; docs/FORMAT.md describes the list layout:
//   for each posting: vbyte(docid gap) vbyte(tf) [positional: tf x vbyte(position gap)]
// The first docid gap is the docid itself; the first position gap is the position.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/error.hpp"
#include "nodes/messages.hpp"

namespace invidx::vbyte {

inline void put(std::string& out, uint64_t value) {
    while (value >= 128) {
        out.push_back(static_cast<char>(value & 127));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value | 128));
}

// Reads one integer at `pos`, advancing it. Throws invidx::Error past the end.
// Inline: it is the inner loop of every list decode (and of the vbyte codec).
inline uint64_t get(std::string_view in, size_t& pos) {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (pos >= in.size()) throw Error("variable-byte list ends inside an integer");
        const auto byte = static_cast<uint8_t>(in[pos++]);
        value |= static_cast<uint64_t>(byte & 127) << shift;
        if (byte & 128) return value;
    }
    throw Error("variable-byte integer longer than 64 bits");
}

struct DecodedList {
    std::vector<uint32_t> docids;
    std::vector<uint32_t> tfs;
    std::vector<uint32_t> positions;  // concatenated, tf[i] per posting (positional only)
};

// Encodes one postings list, appending to out.
void encode_list(const TermRunList& list, bool positional, std::string& out);
// Decodes `count` postings, appending to `out` (docids are absolute). Throws on damage.
void decode_list(std::string_view bytes, uint32_t count, bool positional, DecodedList& out);

// The compress node's work: every list of one indexer's run, back to back.
CompressedRun compress_run(const RunPostings& run);

}  // namespace invidx::vbyte
