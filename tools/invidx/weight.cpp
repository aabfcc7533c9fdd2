// invidx weight IDX [--bits N] [--device cpu]: precomputes every posting's
// BM25 weight (SPEC section 7, from the index's own N, df, dl, avgdl and the
// k1, b its query layout records), quantizes it to an integer impact
// (store/impacts.hpp) and stores the impacts in the query layout
// (query.post version 2), so that `search --scoring impact` adds integers.
// The index is rewritten and replaced atomically, as merge does.
#include <chrono>
#include <iostream>
#include <string>

#include "invidx/error.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "tools/invidx/command.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

struct WeightFlags {
    unsigned bits = kDefaultImpactBits;
};

WeightFlags weight_flags(const Invocation& invocation) {
    WeightFlags flags;
    if (auto bits = invocation.flags.value("--bits")) {
        const size_t value = tools::positive_integer("--bits", *bits);
        if (value < kMinImpactBits || value > kMaxImpactBits) {
            throw UsageError("--bits must be " + std::to_string(kMinImpactBits) + " to " + std::to_string(kMaxImpactBits) +
                             ", not " + *bits);
        }
        flags.bits = static_cast<unsigned>(value);
    }
    if (auto device = invocation.flags.value("--device")) {
        // Never a silent CPU run for a GPU request.
        if (*device == "gpu") throw UsageError("--device gpu: GPU weighting is not implemented yet; use --device cpu");
        if (*device != "cpu") throw UsageError("--device must be cpu, not '" + *device + "'");
    }
    return flags;
}

void check_weight(const Invocation& invocation) { (void)weight_flags(invocation); }

int run_weight(const Invocation& invocation) {
    const WeightFlags flags = weight_flags(invocation);
    const std::string& dir = invocation.args[0];
    MergeOptions merge;
    {
        const IndexReader index(dir);
        if (!QueryPostings::present(index)) {
            throw UsageError("index " + dir + " has no query layout to store impacts in; make one first: invidx merge " + dir +
                             " --layout query");
        }
        // The layout's own codec and BM25 parameters: its block maxima and the weights agree.
        const QueryPostings layout(index);
        merge.query_codec = std::string(layout.codec().name);
        merge.query_parameters = layout.parameters();
        merge.impact_bits = flags.bits;
    }
    const auto start = std::chrono::steady_clock::now();
    merge_runs(dir, merge);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const IndexReader index(dir);
    const QueryPostings layout(index);
    if (invocation.json) {
        print_json({{"index", dir},
                    {"bits", layout.impact_bits()},
                    {"max_weight", layout.max_weight()},
                    {"codec", layout.codec().name},
                    {"k1", layout.parameters().k1},
                    {"b", layout.parameters().b},
                    {"postings", index.num_postings()},
                    {"seconds", seconds}});
    } else {
        std::cout << "weighted " << index.num_postings() << " postings of " << dir << ": " << layout.impact_bits()
                  << "-bit impacts, largest BM25 weight " << layout.max_weight() << " (k1 " << layout.parameters().k1
                  << ", b " << layout.parameters().b << "), codec " << layout.codec().name << ", " << seconds << " s\n";
    }
    return kOk;
}

}  // namespace

Command weight_command() {
    return {.name = "weight",
            .synopsis = "invidx weight IDX [--bits N] [--device cpu]",
            .description = "Computes the BM25 weight of every posting (SPEC section 7, with the index's\n"
                           "N, df, document lengths, average length and the k1, b of its query layout),\n"
                           "quantizes it linearly to an integer impact in 1..2^N-1 (ceil(w / max w *\n"
                           "(2^N - 1)), so the largest weight gets 2^N-1 and every posting at least 1)\n"
                           "and stores the impacts and their block maxima in the query layout beside\n"
                           "the tfs (query.post version 2; docs/FORMAT.md). search --scoring impact then\n"
                           "ranks by their sums. Needs the query layout (merge --layout query); the index\n"
                           "is rewritten and replaced atomically. Terms are weighted on all cores.",
            .example = "  $ invidx merge idx --layout query\n"
                       "  $ invidx weight idx --bits 8\n"
                       "  weighted 1843 postings of idx: 8-bit impacts, largest BM25 weight 7.1 (k1 0.9, b 0.4), codec bp128, 0.01 s\n"
                       "  $ invidx search idx zebras --scoring impact\n",
            .min_args = 1,
            .max_args = 1,
            .flags = {{.name = "--bits", .value_name = "N",
                       .help = "bits per impact, " + std::to_string(kMinImpactBits) + " to " + std::to_string(kMaxImpactBits) +
                               " (default " + std::to_string(kDefaultImpactBits) + ")",
                       .repeats = tools::Repeats::kLastWins},
                      {.name = "--device", .value_name = "cpu",
                       .help = "where the weights are computed (default cpu; gpu is not implemented yet)",
                       .repeats = tools::Repeats::kLastWins}},
            .check = check_weight,
            .run = run_weight};
}

}  // namespace invidx::cli
