#include "pipelines/cluster/postings_wire.hpp"

#include <algorithm>
#include <unordered_map>

#include "invidx/error.hpp"
#include "store/codecs/vbyte.hpp"

namespace invidx::postings_wire {
namespace {

// Gaps are taken modulo 2^32, so a sequence that does not increase still
// round-trips (it only costs longer codes).
uint32_t gap(uint32_t value, uint32_t previous) { return value - previous; }

}  // namespace

void encode_batch(const RegroupedBatch& batch, const std::vector<uint32_t>& owner_rank, uint32_t destination,
                  bool positional, std::string& out) {
    out.push_back(batch.end_of_input ? kLastBatchMessage : kBatchMessage);
    vbyte::put(out, batch.sequence);
    vbyte::put(out, batch.first_docid);
    vbyte::put(out, batch.docs.size());
    vbyte::put(out, batch.text_bytes);
    vbyte::put(out, batch.end_of_input ? 1 : 0);

    std::vector<const CollectionSlice*> slices;
    for (const auto& slice : batch.slices)
        if (owner_rank[slice.collection] == destination) slices.push_back(&slice);

    // The terms first, each once: a term recurs in many documents of a batch.
    std::unordered_map<std::string_view, uint32_t> term_ids;
    std::string terms;
    uint32_t term_count = 0;
    std::vector<uint32_t> occurrence_terms;
    for (const CollectionSlice* slice : slices) {
        for (uint32_t i = slice->begin; i < slice->end; ++i) {
            const TermOccurrence& o = batch.occurrences[i];
            const std::string_view term(batch.terms.data() + o.term_offset, o.term_length);
            const auto [it, added] = term_ids.try_emplace(term, term_count);
            if (added) {
                ++term_count;
                vbyte::put(terms, term.size());
                terms.append(term);
            }
            occurrence_terms.push_back(it->second);
        }
    }
    vbyte::put(out, term_count);
    out += terms;

    vbyte::put(out, slices.size());
    size_t first_term_of_slice = 0;
    std::vector<uint32_t> order;
    for (const CollectionSlice* slice : slices) {
        vbyte::put(out, slice->collection);
        vbyte::put(out, slice->tokens);
        // A slice's postings grouped by term (stably, so each term's docids
        // still increase): a term's number is then written once per slice,
        // not once per posting. Indexers take a slice's postings in any
        // order as long as each term's docids increase.
        const uint32_t count = slice->end - slice->begin;
        order.resize(count);
        for (uint32_t i = 0; i < count; ++i) order[i] = i;
        const uint32_t* term_of = occurrence_terms.data() + first_term_of_slice;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return term_of[a] < term_of[b]; });
        uint32_t groups = 0;
        for (uint32_t i = 0; i < count; ++i) groups += i == 0 || term_of[order[i]] != term_of[order[i - 1]];
        vbyte::put(out, groups);
        for (uint32_t i = 0; i < count;) {
            uint32_t end = i;
            while (end < count && term_of[order[end]] == term_of[order[i]]) ++end;
            vbyte::put(out, term_of[order[i]]);
            vbyte::put(out, end - i);
            uint32_t previous_docid = 0;
            for (; i < end; ++i) {
                const TermOccurrence& o = batch.occurrences[slice->begin + order[i]];
                vbyte::put(out, gap(o.local_docid, previous_docid));
                previous_docid = o.local_docid;
                vbyte::put(out, o.tf);
                if (!positional) continue;
                uint32_t previous_position = 0;
                for (uint32_t k = 0; k < o.tf; ++k) {
                    const uint32_t position = batch.positions[o.positions_offset + k];
                    vbyte::put(out, gap(position, previous_position));
                    previous_position = position;
                }
            }
        }
        first_term_of_slice += count;
    }
}

RegroupedBatch decode_batch(std::string_view bytes, bool positional, int source) {
    try {
        if (!is_batch_message(bytes)) throw Error("not a batch message");
        size_t pos = 1;
        const auto next = [&] { return vbyte::get(bytes, pos); };
        const auto next32 = [&](const char* what) {
            const uint64_t value = next();
            if (value > UINT32_MAX) throw Error(std::string(what) + " out of range");
            return static_cast<uint32_t>(value);
        };
        RegroupedBatch batch;
        batch.sequence = next();
        batch.first_docid = next();
        const uint64_t documents = next();
        if (documents > bytes.size() * 64 + (uint64_t{1} << 20)) throw Error("document count out of range");
        batch.docs.resize(documents);
        batch.text_bytes = next();
        batch.end_of_input = next() != 0;
        if (batch.end_of_input != (bytes[0] == kLastBatchMessage)) throw Error("the end flag contradicts the kind");

        const uint32_t term_count = next32("term count");
        std::vector<std::pair<uint32_t, uint32_t>> term_spans;  // offset, length in batch.terms
        term_spans.reserve(term_count);
        for (uint32_t t = 0; t < term_count; ++t) {
            const uint32_t length = next32("term length");
            if (length > bytes.size() - pos) throw Error("a term runs past the message");
            term_spans.emplace_back(static_cast<uint32_t>(batch.terms.size()), length);
            batch.terms.append(bytes.substr(pos, length));
            pos += length;
        }

        const uint32_t slice_count = next32("slice count");
        for (uint32_t s = 0; s < slice_count; ++s) {
            CollectionSlice slice;
            slice.collection = next32("collection");
            if (slice.collection >= kCollections) throw Error("collection out of range");
            slice.tokens = next();
            slice.begin = static_cast<uint32_t>(batch.occurrences.size());
            const uint32_t groups = next32("term count of a slice");
            for (uint32_t g = 0; g < groups; ++g) {
                const uint32_t term = next32("term id");
                if (term >= term_count) throw Error("a slice names a term the message does not hold");
                const uint32_t postings = next32("postings of a term");
                if (postings > bytes.size() - pos) throw Error("a term's postings run past the message");
                uint32_t docid = 0;
                for (uint32_t i = 0; i < postings; ++i) {
                    TermOccurrence o;
                    o.collection = slice.collection;
                    o.term_offset = term_spans[term].first;
                    o.term_length = term_spans[term].second;
                    docid += next32("docid gap");
                    o.local_docid = docid;
                    o.tf = next32("tf");
                    if (positional) {
                        if (o.tf > bytes.size() - pos) throw Error("tf past the message");
                        o.positions_offset = static_cast<uint32_t>(batch.positions.size());
                        uint32_t position = 0;
                        for (uint32_t k = 0; k < o.tf; ++k) {
                            position += next32("position gap");
                            batch.positions.push_back(position);
                        }
                    }
                    batch.tokens += o.tf;
                    batch.occurrences.push_back(o);
                }
            }
            slice.end = static_cast<uint32_t>(batch.occurrences.size());
            batch.slices.push_back(slice);
        }
        if (pos != bytes.size()) throw Error("bytes left after the last slice");
        return batch;
    } catch (const Error& error) {
        throw Error("a postings message from rank " + std::to_string(source) + " is malformed: " + error.what());
    }
}

}  // namespace invidx::postings_wire
