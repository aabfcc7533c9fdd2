// A query-layout list's docids and impacts decoded whole, block by block,
// for the evaluators that read every list whole (query/boolean_search.hpp,
// query/clause_tree_search.hpp): the impacts stand where the tfs would.
#pragma once

#include <span>

#include "store/query_postings.hpp"
#include "store/run_list.hpp"

namespace invidx {

inline run_list::DecodedList decoded_impact_list(const QueryList& list) {
    run_list::DecodedList out;
    out.docids.resize(list.df());
    out.tfs.resize(list.df());
    size_t at = 0;
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const size_t count = list.blocks()[k].postings;
        list.decode_docids(k, std::span<uint32_t>(out.docids).subspan(at, count));
        list.decode_impacts(k, std::span<uint32_t>(out.tfs).subspan(at, count));
        at += count;
    }
    return out;
}

}  // namespace invidx
