#include "analysis/stem.hpp"

#include <libstemmer.h>

#include <limits>
#include <utility>

#include "invidx/error.hpp"

namespace invidx {

PorterStemmer::PorterStemmer(const std::string& algorithm) {
    if (algorithm == "none") return;
    stemmer_ = sb_stemmer_new(algorithm.c_str(), "UTF_8");
    if (stemmer_ == nullptr) {
        std::string known;
        for (const char** name = sb_stemmer_list(); *name != nullptr; ++name) {
            known += known.empty() ? "" : ", ";
            known += *name;
        }
        throw Error("unknown stemmer '" + algorithm + "'; known: none, " + known);
    }
}

PorterStemmer::~PorterStemmer() {
    if (stemmer_ != nullptr) sb_stemmer_delete(stemmer_);
}

PorterStemmer::PorterStemmer(PorterStemmer&& other) noexcept
    : stemmer_(std::exchange(other.stemmer_, nullptr)) {}

PorterStemmer& PorterStemmer::operator=(PorterStemmer&& other) noexcept {
    if (this != &other) {
        if (stemmer_ != nullptr) sb_stemmer_delete(stemmer_);
        stemmer_ = std::exchange(other.stemmer_, nullptr);
    }
    return *this;
}

std::string_view PorterStemmer::stem(std::string_view token) {
    if (stemmer_ == nullptr) return token;
    ensure(token.size() <= static_cast<size_t>(std::numeric_limits<int>::max()), "token too long to stem");
    const sb_symbol* stemmed = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(token.data()),
                                               static_cast<int>(token.size()));
    ensure(stemmed != nullptr, "libstemmer ran out of memory");
    const auto length = static_cast<size_t>(sb_stemmer_length(stemmer_));
    if (length == 0) return token;  // CONTENT.md §7: a term is never empty (Porter stems "s" to nothing)
    return {reinterpret_cast<const char*>(stemmed), length};
}

}  // namespace invidx
