// Weighted queries for learned sparse models (docs/QUERY.md, "Weighted
// queries"): a JSON object of term → weight, as Anserini's
// JsonVectorCollection queries hold them ({"qid": ..., "vector": {...}}).
// The terms are taken verbatim (no analysis, no stemming): they are looked
// up in the index's dictionary as written, and every one is optional.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace invidx {

struct WeightedTerm {
    std::string term;
    double weight = 0.0;
};

// The terms of a JSON object `{"term": weight, ...}` in its order. Throws
// QueryError (what is wrong, the term) unless it is an object whose keys are
// distinct terms of 1 to 255 bytes of valid UTF-8 and whose values are
// positive finite numbers; an empty object is no term.
std::vector<WeightedTerm> parse_term_vector(std::string_view json_text);
std::vector<WeightedTerm> term_vector(const nlohmann::ordered_json& vector);

// A JSON text parsed with every object's keys checked to be distinct
// (nlohmann would keep the last value of a repeated key). Throws QueryError
// with the byte where parsing failed.
nlohmann::ordered_json parse_distinct_keys(std::string_view json_text);

}  // namespace invidx
