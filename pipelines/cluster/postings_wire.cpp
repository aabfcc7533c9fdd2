#include "pipelines/cluster/postings_wire.hpp"

#include <cstring>
#include <optional>
#include <span>

#include "invidx/error.hpp"
#include "pipelines/cluster/packed_positions.hpp"
#include "pipelines/cluster/term_groups.hpp"
#include "pipelines/cluster/wire_bytes.hpp"

namespace invidx::postings_wire {
namespace {

// Term bytes are copied sixteen at a time when both sides have room (the
// copy's tail is overwritten by what follows): most terms are shorter, and a
// memcpy call of a few bytes costs more than the copy.
constexpr size_t kCopySlack = 16;

char* copy_term(char* to, const char* from, size_t length, const char* from_end) {
    if (length <= kCopySlack && static_cast<size_t>(from_end - from) >= kCopySlack) {
        std::memcpy(to, from, kCopySlack);
    } else {
        std::memcpy(to, from, length);
    }
    return to + length;
}

// What a message holds, counted before its slices are written: the header
// carries it so that the receiver sizes its arrays once and can check them.
struct Totals {
    uint64_t slices = 0;
    uint64_t occurrences = 0;
    uint64_t tokens = 0;
};

void put_header(WireWriter& out, const RegroupedBatch& batch, const Totals& totals, bool positional) {
    // Most messages need no growth: about 5 bytes a posting without
    // positions (its term's bytes shared), 1-2 more a position.
    out.make_room(64 + totals.occurrences * 6 + (positional ? totals.tokens * 2 : 0));
    const char kind = batch.end_of_input ? kLastBatchMessage : kBatchMessage;
    out.put_bytes(std::string_view(&kind, 1));
    out.put(batch.sequence);
    out.put(batch.first_docid);
    out.put(batch.docs.size());
    out.put(batch.text_bytes);
    out.put(batch.end_of_input ? 1 : 0);
    out.put(totals.slices);
    out.put(totals.occurrences);
    out.put(totals.tokens);
}

// One slice: its collection (as the step from the message's previous slice's),
// its number of terms, then each term's bytes and postings (docid gaps,
// tf or tf and position width, packed position gaps).
void put_slice(WireWriter& out, const RegroupedBatch& batch, const CollectionSlice& slice,
               uint32_t previous_collection, bool positional, TermGroups& groups) {
    const std::span<const TermOccurrence> occurrences(batch.occurrences.data() + slice.begin, slice.end - slice.begin);
    groups.group(occurrences, batch.terms);
    size_t term_bytes = 0;
    for (uint32_t g = 0; g < groups.groups(); ++g) term_bytes += occurrences[groups.first(g)].term_length;
    // Room for the whole slice at once, so the loops below write through a
    // plain pointer: a posting's docid gap 5 bytes at most, its tf field 6,
    // the 4 a position packing writes past its end; a position 4.
    out.make_room(10 + groups.groups() * 10 + term_bytes + kCopySlack + occurrences.size() * 15 +
                  (positional ? slice.tokens * 4 : 0));
    char* at = out.cursor();
    const auto put = WireWriter::put_integer;
    at = put(at, slice.collection - previous_collection);
    at = put(at, groups.groups());
    for (uint32_t g = 0; g < groups.groups(); ++g) {
        const TermOccurrence& first = occurrences[groups.first(g)];
        at = put(at, first.term_length);
        at = copy_term(at, batch.terms.data() + first.term_offset, first.term_length,
                       batch.terms.data() + batch.terms.size());
        const auto members = groups.members(g);
        at = put(at, members.size());
        uint32_t next_docid = 0;  // gaps from the previous docid + 1: a term's docids increase
        for (const uint32_t i : members) {
            const TermOccurrence& o = occurrences[i];
            if (o.local_docid < next_docid)  // the parser gives a document each term once
                throw Error("batch " + std::to_string(batch.sequence) + ": a term twice in one document");
            at = put(at, o.local_docid - next_docid);
            next_docid = o.local_docid + 1;
            if (!positional) {
                at = put(at, o.tf);
                continue;
            }
            // The tf and the width of its position gaps in one integer.
            const uint32_t* positions = batch.positions.data() + o.positions_offset;
            const uint32_t width = packed_width(positions, o.tf);
            at = put(at, uint64_t{o.tf} << 5 | (width - 1));
            at = pack_positions(at, positions, o.tf, width);
        }
    }
    out.advance(at);
}

// The messages of the ranks r whose by_rank[r] is set, appended there, in
// one pass over the batch's slices.
void encode(const RegroupedBatch& batch, const std::vector<uint32_t>& owner_rank, bool positional,
            std::span<std::string* const> by_rank) {
    const auto wanted = [&](const CollectionSlice& slice) -> std::string* {
        const uint32_t rank = owner_rank[slice.collection];
        return rank < by_rank.size() ? by_rank[rank] : nullptr;
    };
    std::vector<Totals> totals(by_rank.size());
    for (const CollectionSlice& slice : batch.slices) {
        if (!wanted(slice)) continue;
        Totals& t = totals[owner_rank[slice.collection]];
        ++t.slices;
        t.occurrences += slice.end - slice.begin;
        t.tokens += slice.tokens;
    }
    std::vector<std::optional<WireWriter>> writers(by_rank.size());
    for (size_t r = 0; r < by_rank.size(); ++r) {
        if (!by_rank[r]) continue;
        writers[r].emplace(*by_rank[r]);
        put_header(*writers[r], batch, totals[r], positional);
    }
    // One thread's grouping arrays, kept from batch to batch: the
    // distribute node encodes several batches at once, on its own threads.
    thread_local TermGroups groups;
    std::vector<uint32_t> previous_collection(by_rank.size(), 0);
    for (const CollectionSlice& slice : batch.slices) {
        if (!wanted(slice)) continue;
        const uint32_t rank = owner_rank[slice.collection];
        put_slice(*writers[rank], batch, slice, previous_collection[rank], positional, groups);
        previous_collection[rank] = slice.collection;
    }
    for (size_t r = 0; r < by_rank.size(); ++r)
        if (writers[r]) writers[r]->finish();
}

}  // namespace

void encode_batch(const RegroupedBatch& batch, const std::vector<uint32_t>& owner_rank, uint32_t destination,
                  bool positional, std::string& out) {
    std::vector<std::string*> by_rank(size_t{destination} + 1, nullptr);
    by_rank[destination] = &out;
    encode(batch, owner_rank, positional, by_rank);
}

void encode_batches(const RegroupedBatch& batch, const std::vector<uint32_t>& owner_rank, uint32_t self,
                    bool positional, std::vector<std::string>& out) {
    std::vector<std::string*> by_rank(out.size(), nullptr);
    for (size_t r = 0; r < out.size(); ++r)
        if (r != self) by_rank[r] = &out[r];
    encode(batch, owner_rank, positional, by_rank);
}

namespace {

// Where decoded postings go: the batch's arrays, sized from the header at
// once and filled through plain pointers (the counts checked per term).
struct DecodeTarget {
    TermOccurrence* occurrences;
    TermOccurrence* occurrences_end;
    uint32_t* positions_begin;
    uint32_t* positions;
    uint32_t* positions_end;
    uint64_t documents;
};

// One term's postings. Positional or not is a template argument so that the
// loop without positions carries nothing of them. Returns their tf sum.
template <bool kPositional>
[[gnu::always_inline]] inline uint64_t read_postings(WireReader& message, uint32_t count, TermOccurrence term, DecodeTarget& target) {
    if (count == 0 || count > static_cast<size_t>(target.occurrences_end - target.occurrences))
        throw Error("more postings than the header says");
    // Locals, so that the loop keeps them in registers.
    WireReader in = message;
    TermOccurrence* out = target.occurrences;
    uint32_t* positions = target.positions;
    uint32_t* const positions_begin = target.positions_begin;
    uint32_t* const positions_end = target.positions_end;
    uint64_t tokens = 0;
    uint64_t next_docid = 0;  // the least the next posting's docid can be
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t gap;
        uint64_t tf_field;  // positional: the tf and its positions' width
        if (uint32_t small; in.get_two_small(gap, small)) {
            tf_field = small;
        } else {
            gap = in.get32("a docid gap");
            tf_field = in.get64("a tf");
            if (tf_field >> (kPositional ? 37 : 32)) throw Error("tf out of range");
        }
        const uint32_t tf = static_cast<uint32_t>(kPositional ? tf_field >> 5 : tf_field);
        const uint64_t docid = next_docid + gap;
        next_docid = docid + 1;
        tokens += tf;
        // The term's fields copied whole, then this posting's set: a struct
        // made of fresh fields and copied went through the stack, and its
        // wide load stalled on the narrow stores.
        *out = term;
        out->local_docid = static_cast<uint32_t>(docid);
        out->tf = tf;
        if constexpr (kPositional) {
            if (tf > static_cast<size_t>(positions_end - positions)) throw Error("more positions than the header says");
            out->positions_offset = static_cast<uint32_t>(positions - positions_begin);
            const uint32_t width = static_cast<uint32_t>(tf_field & 31) + 1;
            const char* packed = in.cursor();
            const size_t readable = in.left();
            in.skip(packed_bytes(tf, width), "a posting's positions");
            unpack_positions(reinterpret_cast<const uint8_t*>(packed), readable, tf, width, positions);
            positions += tf;
        }
        ++out;
    }
    // Docids only increase within a term (the gaps are offsets from the
    // previous docid + 1), so checking the last one checks them all.
    if (next_docid > target.documents) throw Error("a docid past the batch's documents");
    target.occurrences = out;
    target.positions = positions;
    message = in;
    return tokens;
}

}  // namespace

RegroupedBatch decode_batch(std::string_view bytes, bool positional, int source) {
    try {
        if (!is_batch_message(bytes)) throw Error("not a batch message");
        WireReader in(bytes.substr(1));
        RegroupedBatch batch;
        batch.sequence = in.get64("the sequence");
        batch.first_docid = in.get64("the first docid");
        const uint64_t documents = in.get64("the document count");
        if (documents > bytes.size() * 64 + (uint64_t{1} << 20)) throw Error("document count out of range");
        batch.docs.resize(documents);
        batch.text_bytes = in.get64("the text bytes");
        batch.end_of_input = in.get64("the end flag") != 0;
        if (batch.end_of_input != (bytes[0] == kLastBatchMessage)) throw Error("the end flag contradicts the kind");
        const uint64_t slice_count = in.get64("the slice count");
        const uint64_t occurrence_count = in.get64("the posting count");
        const uint64_t token_count = in.get64("the token count");
        // A posting takes two bytes at least, a position one bit, a slice
        // one posting: counts the message cannot hold are malformed, the
        // others size the arrays exactly.
        if (occurrence_count > in.left() / 2 || slice_count > occurrence_count ||
            (positional && token_count / 8 > in.left() - 2 * occurrence_count))
            throw Error("counts larger than the message");
        batch.slices.reserve(slice_count);
        batch.occurrences.resize(occurrence_count);
        if (positional) batch.positions.resize(token_count);
        // The terms are what is left of the message after those bytes: the
        // arena is cut to that (plus slack for whole-word copies) once, and
        // to its use at the end.
        batch.terms.resize(in.left() - 2 * occurrence_count - (positional ? token_count / 8 : 0) + kCopySlack);
        char* const terms_begin = batch.terms.data();
        const size_t terms_room = batch.terms.size() - kCopySlack;
        char* terms_at = terms_begin;
        DecodeTarget target{batch.occurrences.data(), batch.occurrences.data() + batch.occurrences.size(),
                            batch.positions.data(), batch.positions.data(),
                            batch.positions.data() + batch.positions.size(), documents};

        uint32_t collection = 0;
        for (uint64_t s = 0; s < slice_count; ++s) {
            const uint32_t step = in.get32("a collection");
            if (s > 0 && step == 0) throw Error("the slices' collections do not increase");
            if (step >= kCollections - collection) throw Error("collection out of range");
            collection += step;
            CollectionSlice slice;
            slice.collection = collection;
            slice.begin = static_cast<uint32_t>(target.occurrences - batch.occurrences.data());
            const uint32_t terms = in.get32("a slice's term count");
            if (terms == 0) throw Error("an empty slice");
            for (uint32_t t = 0; t < terms; ++t) {
                TermOccurrence term;
                term.collection = collection;
                term.term_length = in.get32("a term's length");
                term.term_offset = static_cast<uint32_t>(terms_at - terms_begin);
                const char* bytes_of_term = in.cursor();
                in.skip(term.term_length, "a term");
                if (term.term_length > terms_room - term.term_offset) throw Error("terms longer than the message holds");
                terms_at = copy_term(terms_at, bytes_of_term, term.term_length, in.cursor() + in.left());
                const uint32_t postings = in.get32("a term's posting count");
                slice.tokens += positional ? read_postings<true>(in, postings, term, target)
                                           : read_postings<false>(in, postings, term, target);
            }
            slice.end = static_cast<uint32_t>(target.occurrences - batch.occurrences.data());
            batch.tokens += slice.tokens;
            batch.slices.push_back(slice);
        }
        batch.terms.resize(static_cast<size_t>(terms_at - terms_begin));
        if (target.occurrences != target.occurrences_end || batch.tokens != token_count)
            throw Error("the postings contradict the header's counts");
        if (in.left() != 0) throw Error("bytes left after the last slice");
        return batch;
    } catch (const Error& error) {
        throw Error("a postings message from rank " + std::to_string(source) + " is malformed: " + error.what());
    }
}

}  // namespace invidx::postings_wire
