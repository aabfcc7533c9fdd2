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

uint64_t find_in(const lexicon::XbwTrieView& trie, const unsigned char* bytes, uint32_t length) { return trie.find(bytes, length); }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__POPCNT__)
// The library is built for baseline x86-64, without the popcnt instruction
// that the XBW trie's ranks run on (a popcount every few instructions); this
// copy of the lookup is compiled for it (GCC turns the portable bit count
// into popcnt here) and chosen once at run time where the CPU has it: one
// instruction instead of a dozen per count, on the lookup's critical path.
__attribute__((target("popcnt"))) uint64_t find_with_popcnt(const lexicon::XbwTrieView& trie, const unsigned char* bytes,
                                                            uint32_t length) {
    return trie.find(bytes, length);
}
const bool cpu_has_popcnt = __builtin_cpu_supports("popcnt");
#define INVIDX_LOOKUP_DISPATCH 1
#endif

}  // namespace

std::optional<uint64_t> TermLookup::find(std::string_view term) const {
    if (term.size() > UINT32_MAX) return std::nullopt;  // no term is that long
    const auto* bytes = reinterpret_cast<const unsigned char*>(term.data());
    const auto length = static_cast<uint32_t>(term.size());
    uint64_t found;
    if (kind_ == TermLookupKind::xbw) {
        const lexicon::XbwTrieView trie = std::get<lexicon::XbwTrie>(structure_).view();
#if defined(INVIDX_LOOKUP_DISPATCH)
        found = cpu_has_popcnt ? find_with_popcnt(trie, bytes, length) : find_in(trie, bytes, length);
#else
        found = find_in(trie, bytes, length);
#endif
    } else {
        found = std::get<lexicon::HashedTerms>(structure_).view().find(bytes, length);
    }
    if (found == lexicon::kTermNotFound) return std::nullopt;
    return found;
}

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
