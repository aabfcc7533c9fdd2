// Relevance judgments in trec_eval's qrels format: "qid iter docno level"
// per line (iter ignored). A level >= the relevance level (default 1) is
// relevant, a smaller level >= 0 judged not relevant, and a negative level
// marks a document that was pooled but not judged (bpref skips it).
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

namespace invidx::evaluation {

// One query's judgments: docno -> level.
using TopicJudgments = std::unordered_map<std::string, long>;

struct Qrels {
    // qid -> its judgments; ordered by qid as bytes, the order trec_eval
    // evaluates and prints queries in.
    std::map<std::string, TopicJudgments> topics;
};

// Reads qrels from `in`; `source` names it in errors. InputError
// ("SOURCE: line N: ...") for a line without exactly four fields, a level
// that is not an integer, or a document judged twice for one query; also
// for input without any judgment.
Qrels parse_qrels(std::istream& in, std::string_view source);

// parse_qrels on a file; InputError if it cannot be opened.
Qrels read_qrels(const std::filesystem::path& path);

}  // namespace invidx::evaluation
