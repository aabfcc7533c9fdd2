// invidx term IDX WORD...: a word analyzed as documents were, and its terms' postings.
#include <cstdint>
#include <iostream>
#include <vector>

#include "analysis/analyzer.hpp"
#include "store/index_reader.hpp"
#include "tools/invidx/command.hpp"
#include "tools/invidx/output_escaping.hpp"

namespace invidx::cli {

namespace {

using nlohmann::json;

int run_term(const Invocation& invocation) {
    const IndexReader index(invocation.args[0]);
    const std::string query = join_words(invocation.args, 1);
    Analyzer analyzer(index.analysis());
    const auto terms = analyzer.analyze_query(query);

    json result = {{"query", query}, {"terms", json::array()}};
    int code = kOk;
    if (terms.empty()) {
        result["message"] = "analyzes to no term (a stop word, or no token characters)";
        code = kNotFound;
        if (!invocation.json) std::cout << "'" << printable(query) << "' analyzes to no term (a stop word, or no token characters)\n";
    }
    for (size_t t = 0; t < terms.size(); ++t) {
        const auto& term = terms[t];
        const auto found = index.find_term(term);
        if (!invocation.json && t > 0) std::cout << "\n";
        if (!found) {
            code = kNotFound;
            result["terms"].push_back({{"term", term}, {"found", false}});
            if (!invocation.json) std::cout << "term: " << printable(term) << "\nnot in the index\n";
            continue;
        }
        const auto info = index.term(*found);
        const auto list = index.postings(*found);
        if (invocation.json) {
            json postings = json::array();
            size_t position = 0;
            for (size_t k = 0; k < list.docids.size(); ++k) {
                json posting = {{"docid", list.docids[k]}, {"tf", list.tfs[k]}};
                if (index.positional()) {
                    posting["positions"] = std::vector<uint32_t>(list.positions.begin() + static_cast<std::ptrdiff_t>(position),
                                                                 list.positions.begin() + static_cast<std::ptrdiff_t>(position + list.tfs[k]));
                    position += list.tfs[k];
                }
                postings.push_back(std::move(posting));
            }
            result["terms"].push_back({{"term", term}, {"found", true}, {"df", info.df}, {"cf", info.cf}, {"postings", std::move(postings)}});
            continue;
        }
        std::cout << "term: " << printable(term) << "\ndf: " << info.df << "\ncf: " << info.cf << "\npostings:";
        size_t position = 0;
        for (size_t k = 0; k < list.docids.size(); ++k) {
            std::cout << ' ' << list.docids[k] << ':' << list.tfs[k];
            if (index.positional()) {
                std::cout << '[';
                for (uint32_t p = 0; p < list.tfs[k]; ++p) std::cout << (p ? "," : "") << list.positions[position++];
                std::cout << ']';
            }
        }
        std::cout << "\n";
    }
    if (invocation.json) print_json(result);
    return code;
}

}  // namespace

Command term_command() {
    return {.name = "term",
            .synopsis = "invidx term IDX WORD...",
            .description = "Analyzes WORD the way documents were analyzed (the index's own stop words and\n"
                           "stemmer), then prints each resulting term's df, cf and postings as docid:tf,\n"
                           "with [positions] when the index is positional. A word that analyzes to no\n"
                           "term (a stop word) is reported as such, with exit code 1. Text output prints\n"
                           "control bytes and bytes that are not UTF-8 as \\xHH.",
            .example = "  $ invidx term idx Running\n"
                       "  term: run\n  df: 2\n  cf: 3\n  postings: 0:1 2:2\n",
            .min_args = 2,
            .max_args = SIZE_MAX,
            .run = run_term};
}

}  // namespace invidx::cli
