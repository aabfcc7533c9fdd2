#include "query/vector_query.hpp"

#include <cmath>
#include <set>

#include "analysis/token_bytes.hpp"
#include "query/query_error.hpp"

namespace invidx {
namespace {

// Well-formed UTF-8 (Unicode Table 3-7), as the tokenizer checks it.
bool valid_utf8(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        if (*p < 0x80) {
            ++p;
            continue;
        }
        if (*p < 0xC2) return false;  // a continuation byte, or an overlong lead (C0, C1)
        const utf8::Character character = utf8::classify_multibyte(p, end);
        if (character.bytes == 1) return false;
        p += character.bytes;
    }
    return true;
}

}  // namespace

nlohmann::ordered_json parse_distinct_keys(std::string_view json_text) {
    using Json = nlohmann::ordered_json;
    std::vector<std::set<std::string>> keys;  // one set per open object
    std::string repeated;
    const Json::parser_callback_t check = [&](int, Json::parse_event_t event, Json& parsed) {
        if (event == Json::parse_event_t::object_start) keys.emplace_back();
        if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
        if (event == Json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
            repeated.empty()) {
            repeated = parsed.get<std::string>();
        }
        return true;
    };
    Json parsed;
    try {
        parsed = Json::parse(json_text, check);
    } catch (const Json::parse_error& error) {
        throw QueryError("not valid JSON at byte " + std::to_string(error.byte) + ": " + error.what());
    }
    if (!repeated.empty()) throw QueryError("the key '" + repeated + "' is given twice");
    return parsed;
}

std::vector<WeightedTerm> term_vector(const nlohmann::ordered_json& vector) {
    if (!vector.is_object()) throw QueryError("a weighted query's vector must be a JSON object of term: weight");
    std::vector<WeightedTerm> terms;
    terms.reserve(vector.size());
    for (const auto& [term, weight] : vector.items()) {
        if (term.empty() || term.size() > kMaxTokenBytes) {
            throw QueryError("the term '" + term + "' has " + std::to_string(term.size()) +
                             " bytes; a term has 1 to " + std::to_string(kMaxTokenBytes));
        }
        if (!valid_utf8(term)) throw QueryError("a term of the vector is not valid UTF-8");
        if (!weight.is_number() || !std::isfinite(weight.get<double>()) || !(weight.get<double>() > 0.0)) {
            throw QueryError("the weight of term '" + term + "' must be a positive number, not " + weight.dump());
        }
        terms.push_back({term, weight.get<double>()});
    }
    return terms;
}

std::vector<WeightedTerm> parse_term_vector(std::string_view json_text) {
    return term_vector(parse_distinct_keys(json_text));
}

}  // namespace invidx
