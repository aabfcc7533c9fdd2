#include "nodes/regroup/regroup.hpp"

#include <cstdint>
#include <string>

#include "invidx/error.hpp"

namespace invidx {

namespace {

void check_occurrence(const ParsedBatch& batch, const TermOccurrence& occurrence, size_t index) {
    if (occurrence.collection < kCollections && occurrence.local_docid < batch.docs.size()) return;
    ErrorContext context{.node = "regroup", .file = {}, .record = {}, .byte_offset = {}};
    const std::string where = "batch " + std::to_string(batch.sequence) + ", occurrence " +
                              std::to_string(index) + ": ";
    if (occurrence.collection >= kCollections) {
        throw Error(where + "collection " + std::to_string(occurrence.collection) +
                        " is out of range (there are " + std::to_string(kCollections) + ")",
                    context);
    }
    throw Error(where + "local docid " + std::to_string(occurrence.local_docid) +
                    " is past the batch's " + std::to_string(batch.docs.size()) + " documents",
                context);
}

}  // namespace

RegroupedBatch regroup(ParsedBatch&& batch) {
    const auto& occurrences = batch.occurrences;
    ensure(occurrences.size() < UINT32_MAX,
           "batch " + std::to_string(batch.sequence) + " has too many occurrences to regroup",
           ErrorContext{.node = "regroup", .file = {}, .record = {}, .byte_offset = {}});

    // Counting sort, pass 1: occurrences and tokens per collection.
    std::vector<uint32_t> first_of(kCollections + 1, 0);
    std::vector<uint64_t> tokens_of(kCollections, 0);
    for (size_t i = 0; i < occurrences.size(); ++i) {
        check_occurrence(batch, occurrences[i], i);
        ++first_of[occurrences[i].collection + 1];
        tokens_of[occurrences[i].collection] += occurrences[i].tf;
    }

    RegroupedBatch out;
    for (uint32_t c = 0; c < kCollections; ++c) {
        const uint32_t count = first_of[c + 1];
        first_of[c + 1] = first_of[c] + count;
        if (count != 0) {
            out.slices.push_back(CollectionSlice{.collection = c,
                                                 .begin = first_of[c],
                                                 .end = first_of[c + 1],
                                                 .tokens = tokens_of[c]});
        }
    }

    // Pass 2: scatter in input order, which is what makes the sort stable.
    out.occurrences.resize(occurrences.size());
    for (const auto& occurrence : occurrences) {
        out.occurrences[first_of[occurrence.collection]++] = occurrence;
    }

    out.sequence = batch.sequence;
    out.first_docid = batch.first_docid;
    out.docs = std::move(batch.docs);
    out.terms = std::move(batch.terms);
    out.positions = std::move(batch.positions);
    out.text_bytes = batch.text_bytes;
    out.tokens = batch.tokens;
    out.end_of_input = batch.end_of_input;
    out.resident = std::move(batch.resident);
    out.lease = std::move(batch.lease);
    batch.occurrences.clear();
    return out;
}

}  // namespace invidx
