#include "store/tf_impacts.hpp"

#include <algorithm>
#include <string>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include "invidx/error.hpp"
#include "store/codecs/registry.hpp"
#include "store/impacts.hpp"
#include "store/index_layout.hpp"
#include "store/index_writer.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "store/query_postings_writer.hpp"

namespace invidx {

unsigned tf_impact_bits(uint32_t largest) {
    if (largest > kMaxTfImpact) {
        throw Error("tf " + std::to_string(largest) + " is above " + std::to_string(kMaxTfImpact) +
                    ", the largest impact of 16 bits");
    }
    unsigned bits = kMinImpactBits;
    while ((uint32_t{1} << bits) - 1 < largest) ++bits;
    return bits;
}

namespace {

// The largest tf and the first term holding it (the term names the error).
struct Largest {
    uint32_t tf = 0;
    uint64_t term = 0;
};

Largest find_largest_tf(const IndexReader& index) {
    const auto better = [](const Largest& a, const Largest& b) {
        return a.tf != b.tf ? (a.tf > b.tf ? a : b) : (a.term <= b.term ? a : b);
    };
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<uint64_t>(0, index.term_count()), Largest{},
        [&](const oneapi::tbb::blocked_range<uint64_t>& terms, Largest best) {
            for (uint64_t term = terms.begin(); term != terms.end(); ++term) {
                const auto list = index.postings(term);
                if (list.tfs.empty()) continue;
                best = better(best, Largest{*std::max_element(list.tfs.begin(), list.tfs.end()), term});
            }
            return best;
        },
        better);
}

std::string too_large(const IndexReader& index, const Largest& found) {
    return "index " + index.display("") + ": term '" + std::string(index.term(found.term).term) + "' has tf " +
           std::to_string(found.tf) + ", above " + std::to_string(kMaxTfImpact) +
           ", the largest impact (16 bits): tfs this large cannot be impacts";
}

}  // namespace

uint32_t largest_tf(const IndexReader& index) {
    const Largest found = find_largest_tf(index);
    if (found.tf > kMaxTfImpact) throw Error(too_large(index, found));
    return found.tf;
}

std::optional<unsigned> write_tf_impact_file(IndexWriter& writer, const IndexReader& staged,
                                             const TfImpactLayoutOptions& options, std::string* why) {
    const Largest found = find_largest_tf(staged);
    if (found.tf > kMaxTfImpact) {
        if (why) *why = too_large(staged, found);
        return std::nullopt;
    }
    const codecs::Codec& codec = codecs::find_codec(options.codec.value_or("bp128"));
    QueryPostingsOptions layout_options;
    layout_options.parameters = options.parameters.value_or(Bm25Parameters{});
    layout_options.tf_impacts = true;
    layout_options.stop = options.stop;
    writer.write_binary_file(std::string(layout::kQueryPostingsFile),
                             [&](BinaryWriter& out) { write_query_postings(staged, codec, out, layout_options); });
    return tf_impact_bits(found.tf);
}

unsigned write_tf_impact_layout(const std::filesystem::path& index_directory, const TfImpactLayoutOptions& options) {
    MergeOptions merge;
    merge.stop = options.stop;
    merge.tf_impacts = true;
    unsigned bits = 0;
    {
        const IndexReader index(index_directory);
        // Before anything is written: a tf too large names its term here.
        bits = tf_impact_bits(largest_tf(index));
        std::optional<QueryPostings> present;
        if (QueryPostings::present(index)) present.emplace(index);
        merge.query_codec = options.codec ? *options.codec : present ? std::string(present->codec().name) : "bp128";
        merge.query_parameters = options.parameters ? *options.parameters : present ? present->parameters() : Bm25Parameters{};
    }
    merge_runs(index_directory, merge);
    return bits;
}

}  // namespace invidx
