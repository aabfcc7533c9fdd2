#include "store/run_list.hpp"

#include "invidx/error.hpp"

namespace invidx::run_list {

using vbyte::get;
using vbyte::put;

void encode(const TermRunList& list, bool positional, std::string& out) {
    uint32_t previous_docid = 0;
    size_t position_index = 0;
    for (size_t i = 0; i < list.docids.size(); ++i) {
        put(out, list.docids[i] - previous_docid);
        previous_docid = list.docids[i];
        put(out, list.tfs[i]);
        if (positional) {
            uint32_t previous_position = 0;
            for (uint32_t k = 0; k < list.tfs[i]; ++k) {
                const uint32_t position = list.positions[position_index++];
                put(out, position - previous_position);
                previous_position = position;
            }
        }
    }
}

void decode(std::string_view bytes, uint32_t count, bool positional, DecodedList& out, uint64_t docid_base) {
    size_t pos = 0;
    uint64_t docid = docid_base;
    for (uint32_t i = 0; i < count; ++i) {
        docid += get(bytes, pos);
        if (docid > UINT32_MAX) throw Error("docid " + std::to_string(docid) + " does not fit in 32 bits");
        out.docids.push_back(static_cast<uint32_t>(docid));
        const auto tf = static_cast<uint32_t>(get(bytes, pos));
        out.tfs.push_back(tf);
        if (positional) {
            uint64_t position = 0;
            for (uint32_t k = 0; k < tf; ++k) {
                position += get(bytes, pos);
                out.positions.push_back(static_cast<uint32_t>(position));
            }
        }
    }
    if (pos != bytes.size()) throw Error("postings list has trailing bytes after its last posting");
}

CompressedRun encode_run(const RunPostings& run) {
    CompressedRun out;
    out.run = run.run;
    out.indexer = run.indexer;
    out.indexer_count = run.indexer_count;
    out.end_of_input = run.end_of_input;
    out.documents = run.documents;
    out.list_offsets.reserve(run.lists.size() + 1);
    out.list_counts.reserve(run.lists.size());
    for (const auto& list : run.lists) {
        out.list_offsets.push_back(out.bytes.size());
        out.list_counts.push_back(static_cast<uint32_t>(list.docids.size()));
        out.postings += list.docids.size();
        encode(list, run.positional, out.bytes);
    }
    out.list_offsets.push_back(out.bytes.size());
    return out;
}

}  // namespace invidx::run_list
