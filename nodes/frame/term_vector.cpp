#include "nodes/frame/term_vector.hpp"

#include <cmath>
#include <limits>

namespace invidx {
namespace {

constexpr uint64_t kMaxTf = std::numeric_limits<uint32_t>::max();
constexpr size_t kMaxTermBytes = 255;  // as for analyzed terms (CONTENT.md §4)

// The term as a message shows it: JSON-quoted, so that spaces and control
// characters are visible, and cut short when long.
std::string quoted(const std::string& term) {
    const std::string shown = term.size() > 40 ? term.substr(0, 40) : term;
    std::string text = nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (shown.size() < term.size()) text += "...";
    return text;
}

// The tf of one weight, or the message saying why it has none.
std::optional<std::string> tf_of_weight(const nlohmann::json& weight, uint32_t scale, const std::string& term,
                                        uint64_t& tf) {
    const std::string where = "the weight of term " + quoted(term);
    if (weight.is_number_unsigned()) {
        tf = weight.get<uint64_t>();
        if (tf > kMaxTf) return where + " (" + weight.dump() + ") is larger than 4294967295";
        return std::nullopt;
    }
    if (weight.is_number_integer()) return where + " is negative (" + weight.dump() + ")";
    if (weight.is_number_float()) {
        const double w = weight.get<double>();
        if (w < 0) return where + " is negative (" + weight.dump() + ")";
        const double scaled = std::round(w * static_cast<double>(scale));
        if (!(scaled <= static_cast<double>(kMaxTf))) {
            return where + " (" + weight.dump() + ") times the scale " + std::to_string(scale) +
                   " is larger than 4294967295";
        }
        tf = static_cast<uint64_t>(scaled);
        return std::nullopt;
    }
    return where + " must be a number, not a " + std::string(weight.type_name());
}

}  // namespace

std::optional<std::string> quantize_term_vector(nlohmann::json& vector, uint32_t scale, TermVectorDocument& document) {
    document = {};
    if (!vector.is_object()) return "\"vector\" must be an object of term weights, not a " + std::string(vector.type_name());
    for (auto it = vector.begin(); it != vector.end();) {
        const std::string& term = it.key();
        if (term.empty()) return std::string("a term of \"vector\" is empty");
        if (term.size() > kMaxTermBytes) {
            return "term " + quoted(term) + " is " + std::to_string(term.size()) + " bytes long; at most " +
                   std::to_string(kMaxTermBytes) + " are allowed";
        }
        uint64_t tf = 0;
        if (auto error = tf_of_weight(it.value(), scale, term, tf)) return error;
        if (tf == 0) {  // weight 0, or a float that rounds to 0: the term is not in the document
            it = vector.erase(it);
            continue;
        }
        it.value() = tf;
        ++document.terms;
        document.length += tf;
        if (document.length > kMaxTf) return "the document length (the sum of its tfs) is larger than 4294967295";
        ++it;
    }
    return std::nullopt;
}

}  // namespace invidx
