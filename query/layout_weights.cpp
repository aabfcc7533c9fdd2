#include "query/layout_weights.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include "devices/layout_block_walk.hpp"
#include "invidx/error.hpp"
#include "store/bm25.hpp"
#include "store/codecs/bp128.hpp"
#include "store/codecs/docid_gaps.hpp"
#include "store/impacts.hpp"

namespace invidx {

namespace {

constexpr size_t kBlock = 128;

// Where each term's postings start in the output: the prefix sums of the dfs.
std::vector<uint64_t> term_posting_starts(const IndexReader& index) {
    const std::vector<uint64_t> dfs = index.term_dfs();
    std::vector<uint64_t> starts(dfs.size() + 1, 0);
    for (uint64_t t = 0; t < dfs.size(); ++t) starts[t + 1] = starts[t] + dfs[t];
    return starts;
}

std::vector<double> document_norms(const IndexReader& index, const Bm25& bm25) {
    std::vector<double> norms(index.num_documents());
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<uint64_t>(0, norms.size()), [&](const auto& range) {
        for (uint64_t d = range.begin(); d != range.end(); ++d) norms[d] = bm25.length_norm(index.document_length(static_cast<uint32_t>(d)));
    });
    return norms;  // lengths read in place, as document_lengths() would, without an array between
}

// Calls visit(weight, posting index within the term) for every posting of term t.
template <class Visit>
void weigh_term(const QueryPostings& layout, const Bm25& bm25, std::span<const double> norms, uint64_t t, uint64_t df, Visit&& visit) {
    const QueryList list = layout.list(t);
    const double idf = bm25.idf(df);
    std::array<uint32_t, kBlock> docids{}, tfs{};
    uint64_t at = 0;
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const uint32_t count = list.blocks()[k].postings;
        list.decode_docids(k, std::span(docids).first(count));
        list.decode_tfs(k, std::span(tfs).first(count));
        for (uint32_t i = 0; i < count; ++i) visit(bm25.score(idf, tfs[i], norms[docids[i]]), at++);
    }
}

template <class Impact>
double cpu_impacts(const IndexReader& index, const QueryPostings& layout, unsigned bits, std::span<Impact> impacts) {
    ensure(impacts.size() == index.num_postings(), "layout_impacts_on_cpu: the output must hold every posting");
    ensure(bits <= 8 * sizeof(Impact), "layout_impacts_on_cpu: " + std::to_string(bits) + "-bit impacts do not fit the output");
    const Bm25 bm25(layout.parameters(), index.num_documents(), index.average_length());
    const std::vector<double> norms = document_norms(index, bm25);
    const std::vector<uint64_t> starts = term_posting_starts(index);
    const uint64_t terms = index.term_count();
    const double largest = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<uint64_t>(0, terms), 0.0,
        [&](const oneapi::tbb::blocked_range<uint64_t>& range, double best) {
            for (uint64_t t = range.begin(); t != range.end(); ++t) {
                weigh_term(layout, bm25, norms, t, starts[t + 1] - starts[t], [&](double w, uint64_t) { best = std::max(best, w); });
            }
            return best;
        },
        [](double a, double b) { return std::max(a, b); });
    if (index.num_postings() == 0) return 0.0;
    const ImpactQuantizer quantizer(largest, bits);
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<uint64_t>(0, terms), [&](const oneapi::tbb::blocked_range<uint64_t>& range) {
        for (uint64_t t = range.begin(); t != range.end(); ++t) {
            Impact* out = impacts.data() + starts[t];
            weigh_term(layout, bm25, norms, t, starts[t + 1] - starts[t],
                       [&](double w, uint64_t i) { out[i] = static_cast<Impact>(quantizer(w)); });
        }
    });
    return largest;
}

}  // namespace

GpuLayoutWeightInput layout_weight_input(const IndexReader& index, const QueryPostings& layout, unsigned bits) {
    if (layout.codec().name != codecs::BinaryPacking::kName) {
        throw Error(layout.file_name() + ": GPU weighting decodes bp128 lists, and this query layout's codec is " +
                    std::string(layout.codec().name) + " (invidx merge IDX --layout query --codec bp128)");
    }
    const uint64_t terms = index.term_count();
    const QueryPostings::Raw raw = layout.raw();
    GpuLayoutWeightInput input;
    input.file_bytes = raw.table_offset + 8 * (terms + 1);
    ensure(input.file_bytes <= raw.bytes.size(), "layout_weight_input: the list offsets lie past the file");
    layout.file().check(raw.bytes.substr(0, input.file_bytes));  // once per open index
    input.file = reinterpret_cast<const unsigned char*>(raw.bytes.data());
    input.lists_start = raw.lists_start;
    input.table_offset = raw.table_offset;
    input.entry_bytes = raw.entry_bytes;
    input.k1 = layout.parameters().k1;
    input.b = layout.parameters().b;
    input.bits = bits;
    input.average_length = index.average_length() > 0.0 ? index.average_length() : 1.0;
    input.term_dfs = index.term_dfs();
    input.document_lengths = index.document_lengths();
    return input;
}

double layout_impacts_on_cpu(const IndexReader& index, const QueryPostings& layout, unsigned bits, std::span<uint16_t> impacts) {
    return cpu_impacts(index, layout, bits, impacts);
}

double layout_impacts_on_cpu(const IndexReader& index, const QueryPostings& layout, unsigned bits, std::span<uint8_t> impacts) {
    return cpu_impacts(index, layout, bits, impacts);
}

double layout_impacts_on_host(const GpuLayoutWeightInput& input, std::span<uint16_t> impacts) {
    check_layout_weight_input(input, impacts.size(), false);
    const uint64_t terms = input.term_dfs.size();
    const uint64_t documents = input.document_lengths.size();
    std::vector<uint64_t> first_blocks(terms + 1, 0), first_postings(terms + 1, 0);
    for (uint64_t t = 0; t < terms; ++t) {
        first_blocks[t + 1] = first_blocks[t] + layout_walk::blocks_of(input.term_dfs[t]);
        first_postings[t + 1] = first_postings[t] + input.term_dfs[t];
    }
    const uint64_t blocks = first_blocks[terms];
    std::vector<uint64_t> docid_starts(blocks), tf_starts(blocks), tf_ends(blocks), posting_starts(blocks);
    std::vector<uint32_t> first_docids(blocks), block_terms(blocks);
    const layout_walk::BlockTable table{docid_starts.data(), tf_starts.data(), tf_ends.data(), first_docids.data(), block_terms.data(),
                                        posting_starts.data()};
    const layout_walk::LayoutFile file{input.file, input.lists_start, input.table_offset, input.entry_bytes};
    for (uint64_t t = 0; t < terms; ++t) {
        const uint32_t problem = layout_walk::walk_list(file, t, input.term_dfs[t], first_blocks[t], first_postings[t], documents, table);
        if (problem != layout_walk::kWalkOk) {
            throw Error("query.post: the list of term " + std::to_string(t) + ": " + layout_walk::walk_problem_text(problem));
        }
    }

    const Bm25 bm25({.k1 = input.k1, .b = input.b}, documents, input.average_length);
    std::vector<double> norms(documents);
    for (size_t d = 0; d < norms.size(); ++d) norms[d] = bm25.length_norm(input.document_lengths[d]);
    const auto bytes = std::string_view(reinterpret_cast<const char*>(input.file), input.file_bytes);
    std::vector<double> weights(impacts.size());
    std::array<uint32_t, kBlock> docids{}, tfs{};
    for (uint64_t k = 0; k < blocks; ++k) {
        const uint64_t end = k + 1 < blocks ? posting_starts[k + 1] : impacts.size();
        const auto count = static_cast<uint32_t>(end - posting_starts[k]);
        const double idf = bm25.idf(input.term_dfs[block_terms[k]]);
        codecs::BinaryPacking::decode(bytes.substr(docid_starts[k], tf_starts[k] - docid_starts[k]), std::span(docids).first(count));
        codecs::BinaryPacking::decode(bytes.substr(tf_starts[k], tf_ends[k] - tf_starts[k]), std::span(tfs).first(count));
        codecs::gaps_to_docids(std::span(docids).first(count), first_docids[k]);
        for (uint32_t i = 0; i < count; ++i) {
            if (docids[i] >= documents) {
                throw Error("query.post: a decoded docid is past the index's " + std::to_string(documents) + " documents");
            }
            weights[posting_starts[k] + i] = bm25.score(idf, tfs[i] + 1, norms[docids[i]]);
        }
    }
    if (weights.empty()) return 0.0;
    const double largest = *std::max_element(weights.begin(), weights.end());
    const ImpactQuantizer quantizer(input.max_weight ? *input.max_weight : largest, input.bits);
    for (size_t p = 0; p < weights.size(); ++p) impacts[p] = static_cast<uint16_t>(quantizer(weights[p]));
    return largest;
}

}  // namespace invidx
