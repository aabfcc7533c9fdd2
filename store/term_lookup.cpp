#include "store/term_lookup.hpp"

#include "invidx/error.hpp"

namespace invidx {
namespace {

template <typename Structure>
std::variant<lexicon::XbwTrie, lexicon::HashedTerms> build(uint64_t count, const std::function<std::string_view(uint64_t)>& term) {
    return std::variant<lexicon::XbwTrie, lexicon::HashedTerms>(std::in_place_type<Structure>, count, term);
}

std::variant<lexicon::XbwTrie, lexicon::HashedTerms> build(TermLookupKind kind, uint64_t count,
                                                           const std::function<std::string_view(uint64_t)>& term) {
    return kind == TermLookupKind::xbw ? build<lexicon::XbwTrie>(count, term) : build<lexicon::HashedTerms>(count, term);
}

}  // namespace

TermLookupKind term_lookup_kind(std::string_view name) {
    if (name == "xbw") return TermLookupKind::xbw;
    if (name == "hash") return TermLookupKind::hash;
    throw Error("unknown term dictionary '" + std::string(name) + "'; known: " + std::string(kTermLookupNames));
}

std::string_view term_lookup_name(TermLookupKind kind) { return kind == TermLookupKind::xbw ? "xbw" : "hash"; }

TermLookup::TermLookup(const IndexReader& index, TermLookupKind kind)
    : kind_(kind), structure_(build(kind, index.term_count(), [&](uint64_t i) { return index.term(i).term; })) {}

TermLookup::TermLookup(const std::vector<std::string_view>& terms, TermLookupKind kind)
    : kind_(kind), structure_(build(kind, terms.size(), [&](uint64_t i) { return terms[i]; })) {}

uint64_t TermLookup::bytes() const {
    return std::visit([](const auto& structure) { return structure.bytes(); }, structure_);
}

}  // namespace invidx
