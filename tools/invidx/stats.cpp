// invidx stats IDX: the collection totals of an index, and what its query
// layout holds.
#include <cstdio>
#include <optional>
#include <string>

#include "store/index_reader.hpp"
#include "store/query_postings.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/output_escaping.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

// The query layout's codec, the k1 and b its block maxima were made with, and
// its impacts' bits (null without); null for an index without one.
json query_layout_stats(const IndexReader& index) {
    if (!QueryPostings::present(index)) return nullptr;
    const QueryPostings layout(index);
    return {{"codec", layout.codec().name},
            {"k1", layout.parameters().k1},
            {"b", layout.parameters().b},
            {"impacts", layout.has_impacts()},
            {"impact_bits", layout.has_impacts() ? json(layout.impact_bits()) : json(nullptr)},
            // What the impacts are: quantized BM25 (invidx weight) or the tfs (weight --impacts tf).
            {"impact_source", layout.has_impacts() ? json(layout.impacts_are_tfs() ? "tf" : "bm25") : json(nullptr)}};
}

std::string query_layout_text(const json& layout) {
    if (layout.is_null()) return "none";
    char text[160];
    std::snprintf(text, sizeof text, "codec %s, block maxima for k1 %g b %g, ",
                  layout["codec"].get<std::string>().c_str(), layout["k1"].get<double>(), layout["b"].get<double>());
    return text + (layout["impacts"].get<bool>() ? std::to_string(layout["impact_bits"].get<unsigned>()) + "-bit impacts" +
                                                       (layout["impact_source"] == "tf" ? " (the tfs)" : "")
                                                 : std::string("no impacts"));
}

int run_stats(const Invocation& invocation) {
    const IndexReader index(invocation.args[0]);
    const auto& analysis = index.analysis();
    json stats = {{"index", invocation.args[0]},
                  {"documents", index.num_documents()},
                  {"terms", index.num_terms()},
                  {"postings", index.num_postings()},
                  {"total_length", index.total_length()},
                  {"average_length", index.average_length()},
                  {"runs", index.manifest().runs.size()},
                  {"positional", index.positional()},
                  {"stemmer", analysis.stemmer},
                  {"stopwords", analysis.stopwords_name},
                  {"stopword_count", analysis.stopwords.size()},
                  {"input_files", index.files().size()},
                  {"query_layout", query_layout_stats(index)},
                  {"pre_weighted", analysis.pre_weighted}};
    // Only a pre-weighted index has a scale: its float weights were multiplied by it.
    if (analysis.pre_weighted) stats["vector_scale"] = analysis.vector_scale;
    if (invocation.json) {
        print_json(stats);
        return kOk;
    }
    std::printf("documents       %llu\n", static_cast<unsigned long long>(index.num_documents()));
    std::printf("terms           %llu\n", static_cast<unsigned long long>(index.num_terms()));
    std::printf("postings        %llu\n", static_cast<unsigned long long>(index.num_postings()));
    std::printf("total_length    %llu\n", static_cast<unsigned long long>(index.total_length()));
    std::printf("average_length  %g\n", index.average_length());
    std::printf("runs            %zu\n", index.manifest().runs.size());
    std::printf("positional      %s\n", index.positional() ? "yes" : "no");
    std::printf("stemmer         %s\n", printable(analysis.stemmer).c_str());
    std::printf("stopwords       %s (%zu words)\n", printable(analysis.stopwords_name).c_str(), analysis.stopwords.size());
    if (analysis.pre_weighted)
        std::printf("analysis        pre-weighted vectors (vector_scale %u)\n", static_cast<unsigned>(analysis.vector_scale));
    std::printf("input_files     %zu\n", index.files().size());
    std::printf("query_layout    %s\n", query_layout_text(stats["query_layout"]).c_str());
    return kOk;
}

}  // namespace

Command stats_command() {
    return {.name = "stats",
            .synopsis = "invidx stats IDX",
            .description = "Collection totals of the index in directory IDX, and what its query layout\n"
                           "(merge --layout query) holds: its codec, the BM25 k1 and b its block maxima\n"
                           "were made with (search --k1/--b may differ) and its impacts' bits (invidx\n"
                           "weight), or none. A pre-weighted index (input format jsonvector) says so, with\n"
                           "the vector_scale its float weights were multiplied by.",
            .example = "  $ invidx stats idx\n"
                       "  documents       3\n  terms           5\n  postings        7\n  total_length    9\n"
                       "  average_length  3\n  runs            1\n  positional      no\n  stemmer         porter\n"
                       "  stopwords       english (33 words)\n  input_files     1\n"
                       "  query_layout    codec bp128, block maxima for k1 0.9 b 0.4, 8-bit impacts\n",
            .min_args = 1,
            .max_args = 1,
            .run = run_stats};
}

}  // namespace invidx::cli
