#include "query/query_file.hpp"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iostream>
#include <iterator>

#include "query/query_error.hpp"
#include "query/query_syntax.hpp"
#include "query/vector_query.hpp"

namespace invidx {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Whitespace or a control byte (C0, DEL) would split or end a TREC run line.
bool breaks_run_line(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte <= 0x20 || byte == 0x7f;
}

// Why `qid` cannot start a TREC run line, or empty when it can.
std::string qid_problem(std::string_view qid) {
    if (std::none_of(qid.begin(), qid.end(), breaks_run_line)) return {};
    std::string shown;
    for (const char c : qid) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            shown += std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
        } else {
            shown += c;
        }
    }
    return "qid '" + shown + "' holds whitespace or a control character; a qid must be one word (it starts a TREC run line)";
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Case-insensitive: topic files of different years spell tags differently.
size_t find_folded(std::string_view text, std::string_view what, size_t from, size_t until) {
    until = std::min(until, text.size());
    if (what.size() > until) return std::string_view::npos;
    for (size_t at = from; at + what.size() <= until; ++at) {
        size_t i = 0;
        while (i < what.size() && lower(text[at + i]) == what[i]) ++i;
        if (i == what.size()) return at;
    }
    return std::string_view::npos;
}

bool starts_with_folded(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && find_folded(text, prefix, 0, prefix.size()) == 0;
}

// Whitespace runs become one space; none at either end.
std::string folded_whitespace(std::string_view text) {
    std::string out;
    bool pending_space = false;
    for (const char c : text) {
        if (is_space(c)) {
            pending_space = !out.empty();
            continue;
        }
        if (pending_space) out += ' ';
        pending_space = false;
        out += c;
    }
    return out;
}

// The five predefined XML entities (Web Track topics are XML).
std::string decoded_entities(std::string_view text) {
    static constexpr std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    std::string out;
    for (size_t i = 0; i < text.size();) {
        bool replaced = false;
        if (text[i] == '&') {
            for (const auto& [entity, c] : kEntities) {
                if (text.substr(i, entity.size()) == entity) {
                    out += c;
                    i += entity.size();
                    replaced = true;
                    break;
                }
            }
        }
        if (!replaced) out += text[i++];
    }
    return out;
}

class TopicReader {
public:
    TopicReader(std::string_view content, const std::string& name, TopicField field)
        : content_(content), name_(name), field_(field) {}

    std::vector<QueryLine> read() {
        // Web Track files hold <topic number=...>; classic ones <top>.
        return find_element_start("<topic", 0, content_.size()) != std::string_view::npos ? read_web_track()
                                                                                           : read_classic();
    }

private:
    // Topics are read in file order, so counting on from the last offset
    // asked keeps this linear in the file (every topic records its line).
    size_t line_of(size_t offset) const {
        if (offset < counted_to_) counted_to_ = 0, newlines_ = 0;
        newlines_ += static_cast<size_t>(std::count(content_.begin() + static_cast<std::ptrdiff_t>(counted_to_),
                                                    content_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
        counted_to_ = offset;
        return 1 + newlines_;
    }

    [[noreturn]] void fail(size_t offset, const std::string& what) const {
        throw QueryError(name_ + ": line " + std::to_string(line_of(offset)) + ": " + what);
    }

    // "<topic" followed by a space or '>' (not "<topics>").
    size_t find_element_start(std::string_view open, size_t from, size_t until) const {
        for (size_t at = find_folded(content_, open, from, until); at != std::string_view::npos;
             at = find_folded(content_, open, at + 1, until)) {
            const size_t next = at + open.size();
            if (next < content_.size() && (is_space(content_[next]) || content_[next] == '>')) return at;
        }
        return std::string_view::npos;
    }

    // Classic tags are not closed: a field runs to the next tag.
    std::string_view unclosed_field(size_t begin, size_t end, std::string_view tag) const {
        const size_t at = find_folded(content_, tag, begin, end);
        if (at == std::string_view::npos) return {};
        const size_t from = at + tag.size();
        size_t to = from;
        while (to < end && content_[to] != '<') ++to;
        return content_.substr(from, to - from);
    }

    std::vector<QueryLine> read_classic() {
        std::vector<QueryLine> out;
        const std::string_view tag = field_ == TopicField::kTitle ? "<title>" : "<desc>";
        for (size_t at = find_folded(content_, "<top>", 0, content_.size()); at != std::string_view::npos;) {
            const size_t end = find_folded(content_, "</top>", at, content_.size());
            if (end == std::string_view::npos) fail(at, "<top> without </top>");
            std::string qid = folded_whitespace(unclosed_field(at, end, "<num>"));
            if (starts_with_folded(qid, "number:")) qid = folded_whitespace(std::string_view(qid).substr(7));
            if (qid.empty()) fail(at, "topic without a <num>");
            if (const std::string problem = qid_problem(qid); !problem.empty()) fail(at, problem);
            std::string text = folded_whitespace(unclosed_field(at, end, tag));
            for (const std::string_view prefix : {"topic:", "description:"}) {
                if (starts_with_folded(text, prefix)) text = folded_whitespace(std::string_view(text).substr(prefix.size()));
            }
            if (text.empty()) fail(at, "topic " + qid + " has no text in " + std::string(tag));
            out.push_back({std::move(qid), plain_query_text(text), line_of(at)});
            at = find_folded(content_, "<top>", end, content_.size());
        }
        if (out.empty()) fail(0, "no <top> topics (expected TREC topics, or 'qid<TAB>query text' lines)");
        return out;
    }

    std::string attribute(size_t begin, size_t end, std::string_view name) const {
        const std::string key = std::string(name) + "=";
        const size_t at = find_folded(content_, key, begin, end);
        if (at == std::string_view::npos || at + key.size() >= end) return {};
        const char quote = content_[at + key.size()];
        if (quote != '"' && quote != '\'') return {};
        const size_t from = at + key.size() + 1;
        const size_t to = content_.find(quote, from);
        if (to == std::string_view::npos || to > end) return {};
        return decoded_entities(content_.substr(from, to - from));
    }

    std::vector<QueryLine> read_web_track() {
        std::vector<QueryLine> out;
        const std::string_view open = field_ == TopicField::kTitle ? "<query>" : "<description>";
        const std::string_view close = field_ == TopicField::kTitle ? "</query>" : "</description>";
        for (size_t at = find_element_start("<topic", 0, content_.size()); at != std::string_view::npos;) {
            const size_t head_end = content_.find('>', at);
            const size_t end = find_folded(content_, "</topic>", at, content_.size());
            if (head_end == std::string_view::npos || end == std::string_view::npos) fail(at, "<topic> without </topic>");
            std::string qid = folded_whitespace(attribute(at, head_end, "number"));
            if (qid.empty()) fail(at, "<topic> without a number=\"...\" attribute");
            if (const std::string problem = qid_problem(qid); !problem.empty()) fail(at, problem);
            const size_t field = find_folded(content_, open, head_end, end);
            const size_t field_end = field == std::string_view::npos
                                         ? std::string_view::npos
                                         : find_folded(content_, close, field, end);
            if (field_end == std::string_view::npos) fail(at, "topic " + qid + " has no " + std::string(open) + "..." + std::string(close));
            const size_t from = field + open.size();
            std::string text = folded_whitespace(decoded_entities(content_.substr(from, field_end - from)));
            if (text.empty()) fail(field, "topic " + qid + " has an empty " + std::string(open));
            out.push_back({std::move(qid), plain_query_text(text), line_of(at)});
            at = find_element_start("<topic", end, content_.size());
        }
        return out;
    }

    std::string_view content_;
    const std::string& name_;
    TopicField field_;
    mutable size_t counted_to_ = 0;  // line_of's position and the newlines before it
    mutable size_t newlines_ = 0;
};

std::vector<QueryLine> parse_tab_separated(std::string_view content, const std::string& name) {
    std::vector<QueryLine> out;
    size_t number = 0;
    for (size_t begin = 0; begin < content.size();) {
        size_t end = content.find('\n', begin);
        if (end == std::string_view::npos) end = content.size();
        std::string_view line = content.substr(begin, end - begin);
        begin = end + 1;
        ++number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        const size_t tab = line.find('\t');
        if (tab == std::string_view::npos || tab == 0) {
            throw QueryError(name + ": line " + std::to_string(number) +
                             ": expected 'qid<TAB>query text' (or TREC topics: <top> ... </top>)");
        }
        const std::string_view qid = line.substr(0, tab);
        if (const std::string problem = qid_problem(qid); !problem.empty()) {
            throw QueryError(name + ": line " + std::to_string(number) + ": " + problem);
        }
        out.push_back({std::string(qid), std::string(line.substr(tab + 1)), number});
    }
    return out;
}

// One {"qid": ..., "vector": {"term": weight, ...}} a line ("id" for
// "qid"); the query's text is the vector's JSON, which analyze_query reads
// as a weighted query.
std::vector<QueryLine> parse_json_vectors(std::string_view content, const std::string& name) {
    std::vector<QueryLine> out;
    size_t number = 0;
    for (size_t begin = 0; begin < content.size();) {
        size_t end = content.find('\n', begin);
        if (end == std::string_view::npos) end = content.size();
        const std::string_view line = content.substr(begin, end - begin);
        begin = end + 1;
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const auto fail = [&](const std::string& what) {
            throw QueryError(name + ": line " + std::to_string(number) + ": " + what);
        };
        nlohmann::ordered_json query;
        try {
            query = parse_distinct_keys(line);
        } catch (const QueryError& error) {
            fail(error.what());
        }
        if (!query.is_object()) fail("expected a JSON object {\"qid\": ..., \"vector\": {\"term\": weight, ...}}");
        const auto id = query.contains("qid") ? query.find("qid") : query.find("id");
        std::string qid;
        if (id != query.end() && id->is_string()) qid = id->get<std::string>();
        if (id != query.end() && id->is_number_integer()) qid = id->dump();
        if (qid.empty()) fail("a weighted query needs a \"qid\" (or \"id\"): a string or an integer");
        if (const std::string problem = qid_problem(qid); !problem.empty()) fail(problem);
        if (!query.contains("vector")) fail("query " + qid + " has no \"vector\" of term: weight");
        try {
            (void)term_vector(query["vector"]);  // checked here, so a bad line stops the run before any query
        } catch (const QueryError& error) {
            fail("query " + qid + ": " + error.what());
        }
        out.push_back({std::move(qid), query["vector"].dump(), number});
    }
    return out;
}

}  // namespace

std::vector<QueryLine> parse_query_file(std::string_view content, const std::string& name, TopicField field) {
    if (content.substr(0, 3) == "\xEF\xBB\xBF") content.remove_prefix(3);  // a UTF-8 byte order mark
    size_t first = 0;
    while (first < content.size() && is_space(content[first])) ++first;
    if (first < content.size() && content[first] == '<') return TopicReader(content, name, field).read();
    if (first < content.size() && content[first] == '{') return parse_json_vectors(content, name);
    return parse_tab_separated(content, name);
}

std::vector<QueryLine> read_query_file(const std::string& path, TopicField field) {
    if (path == "-") {
        const std::string content((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        if (std::cin.bad()) throw QueryError("cannot read the queries from standard input");
        return parse_query_file(content, "stdin", field);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw QueryError("cannot open the queries file '" + path + "'");
    const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_query_file(content, path, field);
}

}  // namespace invidx
