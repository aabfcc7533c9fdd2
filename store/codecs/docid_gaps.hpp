// Docids to the values the codecs store, and back. Docids strictly increase,
// so each gap is at least 1 and the codecs are given gap − 1: a run of
// consecutive docids costs 0 bits in a packed block. With `next` = previous
// docid + 1 (0 at the start of a list), value = docid − next. A block that
// starts mid-list takes `next` from the previous block's last docid (its
// skip entry), so blocks decode independently. Tfs (≥ 1) are stored as tf − 1
// the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace invidx::codecs {

inline void docids_to_gaps(std::span<const uint32_t> docids, uint32_t next, uint32_t* values) {
    for (size_t i = 0; i < docids.size(); ++i) {
        values[i] = docids[i] - next;
        next = docids[i] + 1;
    }
}

// In place: values in, docids out (an inclusive prefix sum of value + 1).
// `previous` wraps to 2^32 − 1 at a list's start, and wraps back: modular.
// Two docids a step, both from `previous`, so the dependency chain is one add
// per two docids (the prefix sum otherwise costs more than unpacking).
inline void gaps_to_docids(std::span<uint32_t> values, uint32_t next) {
    uint32_t previous = next - 1;
    uint32_t* value = values.data();
    const size_t n = values.size();
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const uint32_t first = value[i] + 1;
        const uint32_t both = first + value[i + 1] + 1;
        value[i] = previous + first;
        previous += both;
        value[i + 1] = previous;
    }
    if (i < n) value[i] += previous + 1;
}

}  // namespace invidx::codecs
