// What one query's evaluation did: how much dynamic pruning saved.
#pragma once

#include <cstdint>

namespace invidx {

struct QueryStats {
    uint64_t postings = 0;              // postings in the query's lists
    uint64_t documents_considered = 0;  // candidates taken from the (essential) lists
    uint64_t documents_scored = 0;      // candidates scored over every term and offered to the top k

    QueryStats& operator+=(const QueryStats& other) {
        postings += other.postings;
        documents_considered += other.documents_considered;
        documents_scored += other.documents_scored;
        return *this;
    }
};

}  // namespace invidx
