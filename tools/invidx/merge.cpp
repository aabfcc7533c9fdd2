// invidx merge IDX [--layout standard|query] [--codec NAME]: one list per
// term instead of one per run, and on request the query-ready layout.
#include <iostream>
#include <optional>
#include <string>

#include "invidx/error.hpp"
#include "store/codecs/registry.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/interrupts.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

struct MergeFlags {
    std::string layout = "standard";
    std::optional<std::string> codec;
};

MergeFlags merge_flags(const Invocation& invocation) {
    MergeFlags flags;
    if (auto layout = invocation.flags.value("--layout")) {
        if (*layout != "standard" && *layout != "query") throw UsageError("--layout must be standard or query, not '" + *layout + "'");
        flags.layout = *layout;
    }
    if (auto codec = invocation.flags.value("--codec")) {
        try {
            (void)codecs::find_codec(*codec);
        } catch (const Error& error) {
            throw UsageError("--codec: " + error.message());
        }
        flags.codec = *codec;
    }
    if (flags.codec && flags.layout != "query") throw UsageError("--codec needs --layout query");
    return flags;
}

void check_merge(const Invocation& invocation) { (void)merge_flags(invocation); }

int run_merge(const Invocation& invocation) {
    const MergeFlags flags = merge_flags(invocation);
    const std::string& dir = invocation.args[0];
    const auto& interrupts = interrupt_watcher();  // before any thread starts
    const size_t runs_before = IndexReader(dir).manifest().runs.size();
    MergeOptions merge;
    merge.stop = interrupts.token();
    merge.at_step = test_stop_hook();
    if (flags.layout == "query") {
        merge.query_codec = flags.codec.value_or("bp128");
        // A query layout that is kept keeps what it was made with: its BM25
        // parameters, and impacts of the same bits. merge_runs weights the
        // merged index afresh, so they equal `invidx weight` run on it.
        const IndexReader index(dir);
        if (QueryPostings::present(index)) {
            const QueryPostings layout(index);
            merge.query_parameters = layout.parameters();
            if (layout.impacts_are_tfs()) {
                merge.tf_impacts = true;  // the tfs again (store/tf_impacts.hpp)
            } else if (layout.has_impacts()) {
                merge.impact_bits = layout.impact_bits();
            }
        }
    }
    try {
        merge_runs(dir, merge);
    } catch (const Interrupted&) {
        return report_interrupted("merge", dir);
    }
    const size_t runs_after = IndexReader(dir).manifest().runs.size();
    if (invocation.json) {
        json out = {{"index", dir}, {"runs_before", runs_before}, {"runs_after", runs_after}, {"layout", flags.layout}};
        if (merge.query_codec) out["codec"] = *merge.query_codec;
        if (merge.impact_bits) out["impact_bits"] = *merge.impact_bits;
        if (merge.tf_impacts) out["impacts"] = "tf";
        print_json(out);
    } else {
        std::cout << "merged " << runs_before << " runs into " << runs_after << " in " << dir;
        if (merge.query_codec) std::cout << "; query layout with codec " << *merge.query_codec;
        if (merge.impact_bits) std::cout << ", " << *merge.impact_bits << "-bit impacts kept";
        if (merge.tf_impacts) std::cout << ", impacts that are tfs kept";
        std::cout << "\n";
    }
    return kOk;
}

}  // namespace

Command merge_command() {
    return {.name = "merge",
            .synopsis = "invidx merge IDX [--layout standard|query] [--codec NAME]",
            .description = "Combines each term's partial lists (one per run) into one list, rewriting the\n"
                           "index with a single run file; the new index replaces the old one atomically.\n"
                           "Content, CIFF export and document text (documents-text.bin) are unchanged.\n"
                           "--layout query also writes query.post, the query-ready layout that search\n"
                           "reads: one list per term in blocks of 128\n"
                           "postings with per-block last docid and BM25 maximum, docids and tfs encoded\n"
                           "apart by --codec (docs/FORMAT.md). A query layout with impacts (invidx weight)\n"
                           "that stays a query layout keeps them, recomputed for the merged index with\n"
                           "the same bits and BM25 parameters; --layout standard drops them with it.\n"
                           "IDX may be a symbolic link: the index it points at is rewritten and the link\n"
                           "stays. SIGINT or SIGTERM stops the merge, removes its temporary directory and\n"
                           "leaves the index as it was (exit 130 or 143).",
            .example = "  $ invidx merge idx\n"
                       "  merged 4 runs into 1 in idx\n"
                       "  $ invidx merge idx --layout query --codec pfor\n"
                       "  merged 1 runs into 1 in idx; query layout with codec pfor\n",
            .min_args = 1,
            .max_args = 1,
            .flags = {{.name = "--layout", .value_name = "standard|query",
                       .help = "query: also the query-ready layout (default standard)", .repeats = tools::Repeats::kLastWins},
                      {.name = "--codec", .value_name = "NAME", .help = "its codec: " + codecs::codec_names() + " (default bp128)",
                       .repeats = tools::Repeats::kLastWins}},
            .check = check_merge,
            .run = run_merge};
}

}  // namespace invidx::cli
