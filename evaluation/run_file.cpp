#include "evaluation/run_file.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "evaluation/input_error.hpp"
#include "evaluation/trec_lines.hpp"

namespace invidx::evaluation {

namespace {

// The whole field as a finite number (a leading '+' allowed), or false.
bool parse_score(std::string_view text, double& score) {
    if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), score);
    return error == std::errc() && end == text.data() + text.size() && std::isfinite(score);
}

}  // namespace

Run parse_run(std::istream& in, std::string_view source) {
    Run run;
    // Per query, the documents seen so far: trec_eval refuses duplicates.
    std::unordered_map<std::string, std::unordered_set<std::string>> seen;
    size_t results = 0;
    for_each_trec_line(in, [&](size_t line, const std::vector<std::string_view>& fields) {
        if (fields.size() < 6) {
            throw InputError(line_error(source, line, "expected 6 fields (qid Q0 docno rank score run_id), found " +
                                                          std::to_string(fields.size())));
        }
        double score = 0;
        if (!parse_score(fields[4], score)) {
            throw InputError(line_error(source, line, "score '" + std::string(fields[4]) + "' is not a finite number"));
        }
        const std::string qid(fields[0]);
        std::string docno(fields[2]);
        if (!seen[qid].insert(docno).second) {
            throw InputError(line_error(source, line, "document '" + docno + "' is retrieved twice for query '" + qid + "'"));
        }
        run.topics[qid].push_back({.docno = std::move(docno), .score = score});
        run.run_id = std::string(fields[5]);
        ++results;
    });
    if (in.bad()) throw InputError(std::string(source) + ": read error");
    if (results == 0) throw InputError(std::string(source) + ": holds no results");
    return run;
}

Run read_run(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
    return parse_run(in, path.string());
}

}  // namespace invidx::evaluation
