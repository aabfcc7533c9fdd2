#include "store/query_postings_writer.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <vector>

#include <oneapi/tbb/parallel_for.h>

#include "invidx/error.hpp"
#include "store/codecs/docid_gaps.hpp"
#include "store/impacts.hpp"
#include "store/index_layout.hpp"
#include "store/tf_impacts.hpp"

namespace invidx {
namespace {

void put_little_endian(std::string& out, uint64_t value, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// One term's list: its block entries, then its blocks' bytes.
struct EncodedList {
    std::string entries;
    std::string data;
};

// The impacts of one term's postings: quantized here from its weights,
// taken from impacts computed before, or its tfs themselves (max_impact: 2^bits − 1).
struct ImpactSource {
    const ImpactQuantizer* quantizer = nullptr;
    const PostingImpacts* precomputed = nullptr;
    bool tfs = false;
    uint32_t max_impact = 0;
};

void encode_list(const IndexReader& index, uint64_t term, const codecs::Codec& codec, const Bm25& bm25,
                 std::span<const double> norms, ImpactSource impacts, EncodedList& out) {
    const auto list = index.postings(term);
    const uint16_t* given = nullptr;
    if (impacts.precomputed) {
        const auto& offsets = impacts.precomputed->term_offsets;
        if (offsets[term + 1] - offsets[term] != list.docids.size()) {
            throw Error("precomputed impacts: term " + std::to_string(term) + " has " + std::to_string(list.docids.size()) +
                        " postings, its impacts " + std::to_string(offsets[term + 1] - offsets[term]));
        }
        given = impacts.precomputed->impacts.data() + offsets[term];
    }
    const double idf = bm25.idf(index.term(term).df);
    out.entries.clear();
    out.data.clear();
    std::vector<uint32_t> values(layout::kQueryBlockPostings);
    for (size_t start = 0; start < list.docids.size(); start += layout::kQueryBlockPostings) {
        const size_t n = std::min<size_t>(layout::kQueryBlockPostings, list.docids.size() - start);
        const std::span docids(list.docids.data() + start, n);
        const std::span tfs(list.tfs.data() + start, n);
        const size_t data_start = out.data.size();
        codecs::docids_to_gaps(docids, start == 0 ? 0 : list.docids[start - 1] + 1, values.data());
        codec.encode(std::span<const uint32_t>(values.data(), n), out.data);
        const size_t docid_bytes = out.data.size() - data_start;
        double max_tf_part = 0.0;
        for (size_t i = 0; i < n; ++i) {
            values[i] = tfs[i] - 1;
            max_tf_part = std::max(max_tf_part, bm25.tf_part(tfs[i], norms[docids[i]]));
        }
        codec.encode(std::span<const uint32_t>(values.data(), n), out.data);
        const size_t tf_bytes = out.data.size() - data_start - docid_bytes;
        put_little_endian(out.entries, docids.back(), 4);
        put_little_endian(out.entries, docid_bytes, 4);  // a block of 128 values is far below 4 GiB
        put_little_endian(out.entries, tf_bytes, 4);
        put_little_endian(out.entries, std::bit_cast<uint64_t>(max_tf_part), 8);
        if (impacts.quantizer || impacts.tfs) {
            // Impacts are >= 1: stored as impact − 1, like tfs.
            uint32_t max_impact = 0;
            for (size_t i = 0; i < n; ++i) {
                const uint32_t impact = impacts.tfs ? tfs[i]
                                        : given     ? given[start + i]
                                                    : (*impacts.quantizer)(bm25.score(idf, tfs[i], norms[docids[i]]));
                if (impact < 1 || impact > impacts.max_impact) {
                    throw Error(std::string(impacts.tfs ? "tf impacts: term '" + std::string(index.term(term).term) + "': tf "
                                                        : "precomputed impacts: ") +
                                std::to_string(impact) + " is not in 1.." + std::to_string(impacts.max_impact));
                }
                max_impact = std::max(max_impact, impact);
                values[i] = impact - 1;
            }
            codec.encode(std::span<const uint32_t>(values.data(), n), out.data);
            put_little_endian(out.entries, out.data.size() - data_start - docid_bytes - tf_bytes, 4);
            put_little_endian(out.entries, max_impact, 4);
        }
    }
}

}  // namespace

void write_query_postings(const IndexReader& index, const codecs::Codec& codec, BinaryWriter& out,
                          const QueryPostingsOptions& options) {
    const Bm25 bm25(options.parameters, index.num_documents(), index.average_length());
    const std::vector<double> norms = length_norms(index, bm25);
    std::optional<ImpactQuantizer> quantizer;
    ensure(int{options.impact_bits.has_value()} + int{options.impacts != nullptr} + int{options.tf_impacts} <= 1,
           "query postings: impact bits, precomputed impacts or tf impacts, one at most");
    std::optional<uint32_t> tf_bound;  // tf impacts: the largest tf
    if (options.tf_impacts) {
        tf_bound = largest_tf(index);
        if (options.stop.stop_requested()) throw Interrupted();
    }
    if (options.impacts) {
        // Their bits and largest weight go into the header as computed ones would.
        quantizer.emplace(options.impacts->max_weight, options.impacts->bits);
        ensure(options.impacts->term_offsets.size() == index.term_count() + 1 && options.impacts->term_offsets.front() == 0 &&
                   options.impacts->term_offsets.back() == options.impacts->impacts.size(),
               "precomputed impacts: their term offsets do not match the index's " + std::to_string(index.term_count()) +
                   " terms");
    } else if (options.impact_bits) {
        // An index without postings has no weight to scale by: any positive maximum will do.
        const double max_weight = max_posting_weight(index, bm25, norms);
        if (options.stop.stop_requested()) throw Interrupted();
        quantizer.emplace(max_weight > 0.0 ? max_weight : 1.0, *options.impact_bits);
    }

    out.bytes(layout::kQueryPostingsMagic);
    out.u32(tf_bound   ? layout::kQueryPostingsSourcedImpactVersion
            : quantizer ? layout::kQueryPostingsImpactVersion
                        : layout::kFileVersion);
    out.u32(layout::kQueryBlockPostings);
    out.u64(std::bit_cast<uint64_t>(options.parameters.k1));
    out.u64(std::bit_cast<uint64_t>(options.parameters.b));
    out.string(codec.name);
    if (quantizer) {
        out.u32(quantizer->bits());
        out.u64(std::bit_cast<uint64_t>(quantizer->max_weight()));
    }
    ImpactSource source{.quantizer = quantizer ? &*quantizer : nullptr,
                        .precomputed = options.impacts,
                        .max_impact = quantizer ? quantizer->max_impact() : 0};
    if (tf_bound) {
        // max_weight: the largest tf (1 without postings: the field is positive).
        const unsigned bits = tf_impact_bits(*tf_bound);
        out.u32(bits);
        out.u64(std::bit_cast<uint64_t>(static_cast<double>(std::max<uint32_t>(*tf_bound, 1))));
        out.u32(layout::kImpactSourceTf);
        source.tfs = true;
        source.max_impact = (uint32_t{1} << bits) - 1;
    }

    std::vector<uint64_t> list_offsets;
    list_offsets.reserve(index.term_count() + 1);
    // Terms in batches: encoded in parallel, written in order. A batch is
    // bounded by terms, not bytes; frequent terms' lists are a small share.
    constexpr uint64_t kBatchTerms = 4096;
    std::vector<EncodedList> batch(kBatchTerms);
    for (uint64_t first = 0; first < index.term_count(); first += kBatchTerms) {
        if (options.stop.stop_requested()) throw Interrupted();
        const uint64_t count = std::min(kBatchTerms, index.term_count() - first);
        oneapi::tbb::parallel_for(uint64_t{0}, count, [&](uint64_t i) {
            encode_list(index, first + i, codec, bm25, norms, source, batch[i]);
        });
        for (uint64_t i = 0; i < count; ++i) {
            list_offsets.push_back(out.position());
            out.bytes(batch[i].entries);
            out.bytes(batch[i].data);
        }
    }
    const uint64_t table_offset = out.position();
    list_offsets.push_back(table_offset);
    for (const uint64_t offset : list_offsets) out.u64(offset);
    out.u64(index.term_count());
    out.u64(table_offset);
}

}  // namespace invidx
