#include "analysis/term_vector_terms.hpp"

#include <limits>

#include <nlohmann/json.hpp>

#include "analysis/collection.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

using json = nlohmann::json;

// Reads {"term": tf, ...} straight into DocumentTerms, without building a
// JSON document: a key, then its unsigned tf; anything else stops the parse.
class CanonicalVectorReader final : public nlohmann::json_sax<json> {
public:
    explicit CanonicalVectorReader(DocumentTerms& out) : out_(out) {}

    bool start_object(std::size_t) override { return !opened_ && (opened_ = true); }
    bool end_object() override { return !key_pending_; }
    bool key(string_t& term) override {
        if (key_pending_ || term.empty() || out_.bytes.size() + term.size() > std::numeric_limits<uint32_t>::max())
            return false;
        term_offset_ = static_cast<uint32_t>(out_.bytes.size());
        out_.bytes.append(term);
        key_pending_ = true;
        return true;
    }
    bool number_unsigned(number_unsigned_t tf) override {
        if (!key_pending_ || tf == 0 || tf > std::numeric_limits<uint32_t>::max()) return false;
        const std::string_view term = std::string_view(out_.bytes).substr(term_offset_);
        out_.terms.push_back(DocumentTerms::Term{term_offset_, static_cast<uint32_t>(term.size()),
                                                 static_cast<uint32_t>(tf), collection_of(term), 0});
        length_ += tf;
        key_pending_ = false;
        return length_ <= std::numeric_limits<uint32_t>::max();
    }
    bool null() override { return false; }
    bool boolean(bool) override { return false; }
    bool number_integer(number_integer_t) override { return false; }
    bool number_float(number_float_t, const string_t&) override { return false; }
    bool string(string_t&) override { return false; }
    bool binary(binary_t&) override { return false; }
    bool start_array(std::size_t) override { return false; }
    bool end_array() override { return false; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

    uint64_t length() const { return length_; }

private:
    DocumentTerms& out_;
    bool opened_ = false;
    bool key_pending_ = false;
    uint32_t term_offset_ = 0;
    uint64_t length_ = 0;
};

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

void read_term_vector(std::string_view text, DocumentTerms& out) {
    out.clear();
    CanonicalVectorReader reader(out);
    const bool read = json::sax_parse(text.begin(), text.end(), &reader);
    ensure(read, "a pre-weighted document's text is not a term vector as the framer writes it");
    out.length = static_cast<uint32_t>(reader.length());
    out.tokens = reader.length();
}

std::vector<std::string> split_verbatim_query(std::string_view text) {
    std::vector<std::string> terms;
    size_t pos = 0;
    while (pos < text.size()) {
        while (pos < text.size() && is_ascii_space(text[pos])) ++pos;
        const size_t start = pos;
        while (pos < text.size() && !is_ascii_space(text[pos])) ++pos;
        if (pos > start) terms.emplace_back(text.substr(start, pos - start));
    }
    return terms;
}

}  // namespace invidx
