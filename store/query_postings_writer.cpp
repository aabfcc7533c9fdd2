#include "store/query_postings_writer.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <vector>

#include <oneapi/tbb/parallel_for.h>

#include "store/codecs/docid_gaps.hpp"
#include "store/index_layout.hpp"

namespace invidx {
namespace {

void put_little_endian(std::string& out, uint64_t value, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace

void write_query_postings(const IndexReader& index, const codecs::Codec& codec, BinaryWriter& out,
                          Bm25Parameters parameters) {
    const Bm25 bm25(parameters, index.num_documents(), index.average_length());
    std::vector<double> norms(index.num_documents());
    oneapi::tbb::parallel_for(uint64_t{0}, index.num_documents(), [&](uint64_t docid) {
        norms[docid] = bm25.length_norm(index.document(static_cast<uint32_t>(docid)).length);
    });

    out.bytes(layout::kQueryPostingsMagic);
    out.u32(layout::kFileVersion);
    out.u32(layout::kQueryBlockPostings);
    out.u64(std::bit_cast<uint64_t>(parameters.k1));
    out.u64(std::bit_cast<uint64_t>(parameters.b));
    out.string(codec.name);

    std::vector<uint64_t> list_offsets;
    list_offsets.reserve(index.term_count() + 1);
    std::string entries, data;
    std::vector<uint32_t> values(layout::kQueryBlockPostings);
    for (uint64_t term = 0; term < index.term_count(); ++term) {
        list_offsets.push_back(out.position());
        const auto list = index.postings(term);
        entries.clear();
        data.clear();
        for (size_t start = 0; start < list.docids.size(); start += layout::kQueryBlockPostings) {
            const size_t n = std::min<size_t>(layout::kQueryBlockPostings, list.docids.size() - start);
            const std::span docids(list.docids.data() + start, n);
            const std::span tfs(list.tfs.data() + start, n);
            const size_t data_start = data.size();
            codecs::docids_to_gaps(docids, start == 0 ? 0 : list.docids[start - 1] + 1, values.data());
            codec.encode(std::span<const uint32_t>(values.data(), n), data);
            const size_t docid_bytes = data.size() - data_start;
            double max_tf_part = 0.0;
            for (size_t i = 0; i < n; ++i) {
                values[i] = tfs[i] - 1;
                max_tf_part = std::max(max_tf_part, bm25.tf_part(tfs[i], norms[docids[i]]));
            }
            codec.encode(std::span<const uint32_t>(values.data(), n), data);
            put_little_endian(entries, docids.back(), 4);
            put_little_endian(entries, docid_bytes, 4);  // a block of 128 values is far below 4 GiB
            put_little_endian(entries, data.size() - data_start - docid_bytes, 4);
            put_little_endian(entries, std::bit_cast<uint64_t>(max_tf_part), 8);
        }
        out.bytes(entries);
        out.bytes(data);
    }
    const uint64_t table_offset = out.position();
    list_offsets.push_back(table_offset);
    for (const uint64_t offset : list_offsets) out.u64(offset);
    out.u64(index.term_count());
    out.u64(table_offset);
}

}  // namespace invidx
