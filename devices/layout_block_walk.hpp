// One term's list of query.post (docs/FORMAT.md) walked into a table of its
// blocks: where each block's docid and tf groups start and its first docid.
// The same code runs on the GPU (one thread a term, gpu_layout_weights.cu)
// and on the host (the reference, query/layout_weights.cpp), so the CPU test
// suite checks what the device does. The checks are the host reader's for a
// list it opens (store/query_postings.cpp): the list inside the lists, its
// entries inside the list, last docids increasing with room for each block's
// postings and below the document count, the blocks' bytes adding up to the
// list's exactly.
#pragma once

#include <cstdint>

#include "invidx/host_device.hpp"

namespace invidx::layout_walk {

constexpr uint64_t kBlockPostings = 128;

// Little-endian loads at any address (block entries are 20 or 28 bytes apart).
INVIDX_HOST_DEVICE inline uint32_t load_u32(const unsigned char* at) {
    return static_cast<uint32_t>(at[0]) | (static_cast<uint32_t>(at[1]) << 8) | (static_cast<uint32_t>(at[2]) << 16) |
           (static_cast<uint32_t>(at[3]) << 24);
}

INVIDX_HOST_DEVICE inline uint64_t load_u64(const unsigned char* at) {
    return static_cast<uint64_t>(load_u32(at)) | (static_cast<uint64_t>(load_u32(at + 4)) << 32);
}

INVIDX_HOST_DEVICE inline uint64_t blocks_of(uint64_t df) { return (df + kBlockPostings - 1) / kBlockPostings; }

// Per block of the whole index (indexed by the block's number over all terms).
struct BlockTable {
    uint64_t* docid_starts = nullptr;
    uint64_t* tf_starts = nullptr;
    uint64_t* tf_ends = nullptr;  // optional (the host's decoder needs a group's end; the device's does not)
    uint32_t* first_docids = nullptr;
    uint32_t* terms = nullptr;
    uint64_t* posting_starts = nullptr;
};

enum WalkProblem : uint32_t {
    kWalkOk = 0,
    kListOutsideLists = 1,
    kEntriesOutsideList = 2,
    kLastDocidsOutOfOrder = 3,
    kBytesDoNotAddUp = 4,
};

inline const char* walk_problem_text(uint32_t problem) {
    switch (problem) {
        case kListOutsideLists: return "its offsets lie outside the lists";
        case kEntriesOutsideList: return "its block entries do not fit in it";
        case kLastDocidsOutOfOrder: return "a block's last docid does not increase, leaves no room for its postings or is past the documents";
        case kBytesDoNotAddUp: return "its blocks' bytes do not add up to the list's";
        default: return "no problem";
    }
}

struct LayoutFile {
    const unsigned char* bytes = nullptr;
    uint64_t lists_start = 0;
    uint64_t table_offset = 0;
    uint64_t entry_bytes = 20;
};

// Term `term` (df postings) into blocks [first_block, first_block +
// blocks_of(df)) of `table`, its postings numbered from first_posting.
// Returns kWalkOk or the first problem found.
INVIDX_HOST_DEVICE inline uint32_t walk_list(const LayoutFile& file, uint64_t term, uint64_t df, uint64_t first_block,
                                             uint64_t first_posting, uint64_t documents, const BlockTable& table) {
    const uint64_t begin = load_u64(file.bytes + file.table_offset + 8 * term);
    const uint64_t end = load_u64(file.bytes + file.table_offset + 8 * (term + 1));
    if (begin < file.lists_start || begin > end || end > file.table_offset) return kListOutsideLists;
    const uint64_t blocks = blocks_of(df);
    if (blocks > (end - begin) / file.entry_bytes) return kEntriesOutsideList;
    uint64_t cursor = begin + blocks * file.entry_bytes;
    uint64_t next_docid = 0;
    for (uint64_t k = 0; k < blocks; ++k) {
        const unsigned char* entry = file.bytes + begin + k * file.entry_bytes;
        const uint64_t last = load_u32(entry);
        const uint64_t docid_bytes = load_u32(entry + 4);
        const uint64_t tf_bytes = load_u32(entry + 8);
        const uint64_t impact_bytes = file.entry_bytes == 28 ? load_u32(entry + 20) : 0;
        const uint64_t postings = k + 1 < blocks ? kBlockPostings : df - kBlockPostings * k;
        if (last + 1 < next_docid + postings || last >= documents) return kLastDocidsOutOfOrder;
        if (docid_bytes + tf_bytes + impact_bytes > end - cursor) return kBytesDoNotAddUp;
        const uint64_t block = first_block + k;
        table.docid_starts[block] = cursor;
        table.tf_starts[block] = cursor + docid_bytes;
        if (table.tf_ends) table.tf_ends[block] = cursor + docid_bytes + tf_bytes;
        table.first_docids[block] = static_cast<uint32_t>(next_docid);
        table.terms[block] = static_cast<uint32_t>(term);
        table.posting_starts[block] = first_posting + kBlockPostings * k;
        cursor += docid_bytes + tf_bytes + impact_bytes;
        next_docid = last + 1;
    }
    return cursor == end ? kWalkOk : kBytesDoNotAddUp;
}

}  // namespace invidx::layout_walk
