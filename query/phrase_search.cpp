#include "query/phrase_search.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "query/posting_cursor.hpp"

namespace invidx {
namespace {

constexpr size_t kAbsent = std::numeric_limits<size_t>::max();

// One query term's postings with positions, and where each posting's
// positions start in the concatenated array (the prefix sums of tf).
struct PositionalList {
    run_list::DecodedList postings;
    std::vector<uint64_t> starts;
    ScoredList scored;

    std::span<const uint32_t> positions(size_t posting) const {
        return std::span<const uint32_t>(postings.positions).subspan(starts[posting], postings.tfs[posting]);
    }
};

// A phrase's terms as lists of the query: list_of[j] is phrase term j's list.
struct BoundPhrase {
    const Phrase* phrase = nullptr;
    std::vector<size_t> list_of;
};

// True if the phrase occurs in the document every cursor of it is on: some
// start s with term j at s + offset j for all j. The term with the fewest
// positions there anchors the search; the others are binary-searched.
bool phrase_occurs(const BoundPhrase& bound, const std::vector<PositionalList>& lists,
                   const std::vector<PostingCursor>& cursors) {
    const auto& terms = bound.phrase->terms;
    auto positions_of = [&](size_t j) {
        const size_t list = bound.list_of[j];
        return lists[list].positions(cursors[list].position());
    };
    size_t anchor = 0;
    for (size_t j = 1; j < terms.size(); ++j) {
        if (positions_of(j).size() < positions_of(anchor).size()) anchor = j;
    }
    for (const uint32_t position : positions_of(anchor)) {
        if (position < terms[anchor].offset) continue;  // the phrase would start before the document
        const uint64_t start = position - terms[anchor].offset;
        bool all = true;
        for (size_t j = 0; j < terms.size() && all; ++j) {
            if (j == anchor) continue;
            const uint64_t target = start + terms[j].offset;
            const auto positions = positions_of(j);
            all = target <= std::numeric_limits<uint32_t>::max() &&
                  std::binary_search(positions.begin(), positions.end(), static_cast<uint32_t>(target));
        }
        if (all) return true;
    }
    return false;
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
        auto& list = lists.emplace_back();
        list.postings = index.postings(*term.index);
        list.starts.resize(list.postings.tfs.size());
        uint64_t start = 0;
        for (size_t p = 0; p < list.postings.tfs.size(); ++p) {
            list.starts[p] = start;
            start += list.postings.tfs[p];
        }
        list.scored = ScoredList{.docids = list.postings.docids, .tfs = list.postings.tfs, .idf = weights[t], .max_score = 0.0};
        counts.postings += list.postings.docids.size();
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
    std::sort(required.begin(), required.end());
    required.erase(std::unique(required.begin(), required.end()), required.end());
    // Shortest first: candidates come from the shortest required list.
    std::sort(required.begin(), required.end(), [&](size_t a, size_t b) { return cursors[a].size() < cursors[b].size(); });

    TopK top(k);
    PostingCursor& lead = cursors[required.front()];
    while (!lead.at_end()) {
        const uint32_t docid = lead.docid();
        uint32_t next = docid;  // the first docid every required list could share
        for (size_t r = 1; r < required.size() && next == docid; ++r) {
            auto& cursor = cursors[required[r]];
            cursor.next_geq(docid);
            next = cursor.docid();
        }
        if (next != docid) {
            if (next == kNoDocument) break;
            lead.next_geq(next);
            continue;
        }
        ++counts.documents_considered;
        const bool held_prohibited = std::any_of(prohibited.begin(), prohibited.end(), [&](size_t list) {
            cursors[list].next_geq(docid);
            return cursors[list].docid() == docid;
        });
        const bool all_phrases = !held_prohibited && std::all_of(bound.begin(), bound.end(),
                                             [&](const BoundPhrase& b) { return phrase_occurs(b, lists, cursors); });
        if (all_phrases) {
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
        }
        lead.next();
    }
    return top.take_sorted();
}

}  // namespace invidx
