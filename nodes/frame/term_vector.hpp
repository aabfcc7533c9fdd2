// Pre-weighted documents (FORMAT.md "Pre-weighted documents (jsonvector)"):
// the rules that turn a JSONL line's "vector" of term weights into the
// document the parsers index. The framer checks every rule here, where the
// file, line and byte offset are known, and hands the parsers the weights
// as a canonical JSON object of term frequencies (analysis/term_vector_terms.hpp
// reads it back), which is also the document's text in the document store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace invidx {

// What the framer makes of one "vector".
struct TermVectorDocument {
    uint64_t terms = 0;   // kept terms (weight above 0 after quantization)
    uint64_t length = 0;  // the document length: the sum of their tfs
};

// Checks `vector` (the value of a line's "vector" key) and rewrites it in
// place into the canonical form: every kept term with its tf as an unsigned
// integer, terms whose tf is 0 removed. Terms are any UTF-8 string of 1 to
// 255 bytes (the JSON parser has already rejected ill-formed UTF-8); an
// integer weight is the tf; a float weight w >= 0 becomes round(w * scale)
// (halves away from zero); tfs and the document length must fit 32 bits.
// Returns the message of the first rule broken (naming the term), or nullopt.
std::optional<std::string> quantize_term_vector(nlohmann::json& vector, uint32_t scale, TermVectorDocument& document);

}  // namespace invidx
