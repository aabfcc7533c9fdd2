#include "lexicon/hashed_terms_builder.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "invidx/error.hpp"

namespace invidx::lexicon {

HashedTerms::HashedTerms(const std::vector<std::string_view>& terms)
    : HashedTerms(terms.size(), [&](uint64_t i) { return terms[i]; }) {}

HashedTerms::HashedTerms(uint64_t count, const std::function<std::string_view(uint64_t)>& term) {
    constexpr uint64_t kLimit = std::numeric_limits<uint32_t>::max();
    const double slots_wanted = count == 0 ? 0 : std::ceil(static_cast<double>(count) / kHashedTermsLoad) + 1;
    if (slots_wanted >= static_cast<double>(kLimit))
        throw Error("lexicon: " + std::to_string(count) + " terms need more hash slots than a u32 numbers");
    std::vector<uint32_t> offsets{0};
    offsets.reserve(count + 1);
    std::string bytes;
    std::string previous;
    for (uint64_t i = 0; i < count; ++i) {
        const std::string_view current = term(i);
        if (i > 0 && !(std::string_view(previous) < current))
            throw Error("lexicon: terms are not in strictly increasing byte-wise order at " + std::to_string(i));
        if (bytes.size() + current.size() >= kLimit) throw Error("lexicon: the terms' bytes are over the hash table's 2^32 - 1");
        bytes.append(current);
        offsets.push_back(static_cast<uint32_t>(bytes.size()));
        previous.assign(current);
    }
    const auto slot_count = static_cast<uint32_t>(slots_wanted);
    std::vector<uint64_t> slots(slot_count, 0);
    for (uint64_t i = 0; i < count; ++i) {
        const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + offsets[i];
        const uint64_t hash = term_hash(data, offsets[i + 1] - offsets[i]);
        uint32_t slot = static_cast<uint32_t>(((hash & 0xFFFFFFFFu) * slot_count) >> 32);
        while (slots[slot] != 0)
            if (++slot == slot_count) slot = 0;
        slots[slot] = (hash >> 32 << 32) | (i + 1);
    }
    sections_.slots_offset = buffer_.append(slots);
    sections_.term_offsets_offset = buffer_.append(offsets);
    sections_.term_bytes_offset = buffer_.append(std::span<const char>(bytes.data(), bytes.size()));
    sections_.slot_count = slot_count;
    sections_.term_count = static_cast<uint32_t>(count);
}

}  // namespace invidx::lexicon
