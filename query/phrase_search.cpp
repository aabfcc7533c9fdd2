#include "query/phrase_search.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "query/phrase_match.hpp"
#include "query/posting_cursor.hpp"
#include "query/required_intersection.hpp"

namespace invidx {
namespace {

constexpr size_t kAbsent = std::numeric_limits<size_t>::max();

// One query term's postings with positions, and the list its cursor reads.
struct PositionalList {
    PositionalPostings positional;
    ScoredList scored;
};

// A phrase's terms as lists of the query: list_of[j] is phrase term j's list.
struct BoundPhrase {
    const Phrase* phrase = nullptr;
    std::vector<size_t> list_of;
};

// True if the phrase occurs in the document every cursor of it is on.
bool holds_phrase(const BoundPhrase& bound, const std::vector<PositionalList>& lists,
                  const std::vector<PostingCursor>& cursors) {
    return phrase_occurs(*bound.phrase, [&](size_t j) {
        const size_t list = bound.list_of[j];
        return lists[list].positional.positions(cursors[list].position());
    });
}

}  // namespace

std::vector<ScoredDocument> phrase_search(const IndexReader& index, const QueryTerms& terms,
                                          std::span<const double> weights, std::span<const TermRole> roles,
                                          std::span<const Phrase> phrases, bool conjunctive, const Bm25& bm25,
                                          std::span<const double> norms, size_t k, QueryStats* stats) {
    QueryStats local;
    QueryStats& counts = stats ? *stats : local;

    // Every present query term's list, decoded once, in query order.
    std::vector<PositionalList> lists;
    lists.reserve(terms.terms.size());  // the cursors point into it
    std::vector<size_t> list_of_term(terms.terms.size(), kAbsent);
    const auto role_of = [&](size_t t) {
        const TermRole role = t < roles.size() ? roles[t] : TermRole::kOptional;
        return conjunctive && role == TermRole::kOptional ? TermRole::kRequired : role;
    };
    for (size_t t = 0; t < terms.terms.size(); ++t) {
        const auto& term = terms.terms[t];
        if (!term.index) {
            if (role_of(t) == TermRole::kRequired) return {};  // a term every result holds, which no document has
            continue;
        }
        list_of_term[t] = lists.size();
        auto& list = lists.emplace_back(PositionalList{PositionalPostings(index.postings(*term.index)), {}});
        const run_list::DecodedList& postings = list.positional.postings;
        list.scored = ScoredList{.docids = postings.docids, .tfs = postings.tfs, .idf = weights[t], .max_score = 0.0};
        counts.postings += postings.docids.size();
    }
    std::vector<PostingCursor> cursors;
    cursors.reserve(lists.size());
    for (const auto& list : lists) cursors.emplace_back(list.scored);

    // Bind each phrase term to its list; a phrase with a term no document has matches nothing.
    std::vector<BoundPhrase> bound;
    std::vector<size_t> required;  // lists every result must be in
    for (const auto& phrase : phrases) {
        BoundPhrase b{.phrase = &phrase, .list_of = {}};
        for (const auto& phrase_term : phrase.terms) {
            const auto it = std::find_if(terms.terms.begin(), terms.terms.end(),
                                         [&](const QueryTerm& t) { return t.term == phrase_term.term; });
            const size_t list = it == terms.terms.end() ? kAbsent : list_of_term[static_cast<size_t>(it - terms.terms.begin())];
            if (list == kAbsent) return {};
            b.list_of.push_back(list);
            required.push_back(list);
        }
        bound.push_back(std::move(b));
    }
    std::vector<size_t> prohibited;  // lists no result may be in
    for (size_t t = 0; t < terms.terms.size(); ++t) {
        if (list_of_term[t] == kAbsent) continue;
        if (role_of(t) == TermRole::kRequired) required.push_back(list_of_term[t]);
        if (role_of(t) == TermRole::kProhibited) prohibited.push_back(list_of_term[t]);
    }
    TopK top(k);
    for_each_in_all(std::span<PostingCursor>(cursors), required, [&](uint32_t docid) {
        ++counts.documents_considered;
        const bool held_prohibited = std::any_of(prohibited.begin(), prohibited.end(), [&](size_t list) {
            cursors[list].next_geq(docid);
            return cursors[list].docid() == docid;
        });
        const bool all_phrases = !held_prohibited && std::all_of(bound.begin(), bound.end(),
                                             [&](const BoundPhrase& b) { return holds_phrase(b, lists, cursors); });
        if (!all_phrases) return;
        // Query-term order, absent terms adding 0.0, as in every algorithm (store/bm25.hpp).
        double score = 0.0;
        for (size_t t = 0; t < terms.terms.size(); ++t) {
            double contribution = 0.0;
            if (list_of_term[t] != kAbsent && role_of(t) != TermRole::kProhibited) {
                auto& cursor = cursors[list_of_term[t]];
                cursor.next_geq(docid);
                if (cursor.docid() == docid) contribution = bm25.score(cursor.idf(), cursor.tf(), norms[docid]);
            }
            score += contribution;
        }
        ++counts.documents_scored;
        top.push({docid, score});
    });
    return top.take_sorted();
}

}  // namespace invidx
