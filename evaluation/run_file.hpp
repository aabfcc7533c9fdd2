// A ranked run in trec_eval's format: "qid Q0 docno rank score run_id" per
// line. The rank column is ignored, as trec_eval ignores it: ranks come from
// the scores (see judged_ranking.hpp); fields after run_id are ignored too.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::evaluation {

struct RetrievedDocument {
    std::string docno;
    double score = 0;
};

struct Run {
    // The run_id of the file's last line, which trec_eval reports as runid.
    std::string run_id;
    // qid -> its documents in file order.
    std::map<std::string, std::vector<RetrievedDocument>> topics;
};

// Reads a run from `in`; `source` names it in errors. InputError
// ("SOURCE: line N: ...") for a line with fewer than six fields, a score
// that is not a finite number, or a document listed twice for one query;
// also for input without any result.
Run parse_run(std::istream& in, std::string_view source);

// parse_run on a file; InputError if it cannot be opened.
Run read_run(const std::filesystem::path& path);

}  // namespace invidx::evaluation
