// The documents in every required list: candidates come from the shortest
// list, the others gallop to each (PostingCursor::next_geq), so the cost
// follows the shortest list (query/boolean_search.hpp, query/phrase_search.hpp,
// query/clause_tree_search.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "query/posting_cursor.hpp"

namespace invidx {

// Calls visit(docid) for each docid that every cursor named by `required`
// (indexes into `cursors`, not empty; repeats allowed) holds, in increasing
// order; each of those cursors is on docid during the call. `visit` may move
// any cursor forward, but not past docid.
template <typename Visit>
void for_each_in_all(std::span<PostingCursor> cursors, std::vector<size_t> required, Visit&& visit) {
    std::sort(required.begin(), required.end());
    required.erase(std::unique(required.begin(), required.end()), required.end());
    // Shortest first: candidates come from the shortest list.
    std::stable_sort(required.begin(), required.end(),
                     [&](size_t a, size_t b) { return cursors[a].size() < cursors[b].size(); });
    PostingCursor& lead = cursors[required.front()];
    while (!lead.at_end()) {
        const uint32_t docid = lead.docid();
        uint32_t next = docid;  // the first docid every required list could share
        for (size_t r = 1; r < required.size() && next == docid; ++r) {
            PostingCursor& cursor = cursors[required[r]];
            cursor.next_geq(docid);
            next = cursor.docid();
        }
        if (next != docid) {
            if (next == kNoDocument) break;
            lead.next_geq(next);
            continue;
        }
        visit(docid);
        lead.next();
    }
}

}  // namespace invidx
