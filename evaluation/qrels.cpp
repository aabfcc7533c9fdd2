#include "evaluation/qrels.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>

#include "evaluation/input_error.hpp"
#include "evaluation/trec_lines.hpp"

namespace invidx::evaluation {

namespace {

// The whole field as an integer (a leading '+' allowed), or false.
bool parse_level(std::string_view text, long& level) {
    if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), level);
    return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Qrels parse_qrels(std::istream& in, std::string_view source) {
    Qrels qrels;
    size_t judgments = 0;
    for_each_trec_line(in, [&](size_t line, const std::vector<std::string_view>& fields) {
        if (fields.size() != 4) {
            throw InputError(line_error(source, line, "expected 4 fields (qid iter docno relevance), found " +
                                                          std::to_string(fields.size())));
        }
        long level = 0;
        if (!parse_level(fields[3], level)) {
            throw InputError(line_error(source, line, "relevance '" + std::string(fields[3]) + "' is not an integer"));
        }
        auto& topic = qrels.topics[std::string(fields[0])];
        if (!topic.emplace(std::string(fields[2]), level).second) {
            throw InputError(line_error(source, line, "document '" + std::string(fields[2]) + "' is judged twice for query '" +
                                                          std::string(fields[0]) + "'"));
        }
        ++judgments;
    });
    if (in.bad()) throw InputError(std::string(source) + ": read error");
    if (judgments == 0) throw InputError(std::string(source) + ": holds no judgments");
    return qrels;
}

Qrels read_qrels(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
    return parse_qrels(in, path.string());
}

}  // namespace invidx::evaluation
