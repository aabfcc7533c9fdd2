// invidx stats IDX: the collection totals of an index.
#include <cstdio>

#include "store/index_reader.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/output_escaping.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

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
                  {"input_files", index.files().size()}};
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
    std::printf("input_files     %zu\n", index.files().size());
    return kOk;
}

}  // namespace

Command stats_command() {
    return {.name = "stats",
            .synopsis = "invidx stats IDX",
            .description = "Collection totals of the index in directory IDX.",
            .example = "  $ invidx stats idx\n"
                       "  documents       3\n  terms           5\n  postings        7\n  total_length    9\n"
                       "  average_length  3\n  runs            2\n  positional      no\n  stemmer         porter\n"
                       "  stopwords       english (33 words)\n",
            .min_args = 1,
            .max_args = 1,
            .run = run_stats};
}

}  // namespace invidx::cli
