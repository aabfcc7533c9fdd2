#include "nodes/index/btree_dictionary.hpp"

#include <algorithm>
#include <cstring>

#include "invidx/error.hpp"

namespace invidx {

namespace {

// Bytes of a key that sit in its cache rather than in the arena.
constexpr size_t kCacheBytes = 4;

std::string_view tail_of(std::string_view key) {
    return key.size() > kCacheBytes ? key.substr(kCacheBytes) : std::string_view{};
}

}  // namespace

BTreeDictionary::Probe BTreeDictionary::make_probe(std::string_view key) {
    // Big-endian packing: comparing the integers compares the first four
    // bytes as unsigned chars, the order memcmp uses.
    uint32_t cache = 0;
    if (key.size() >= kCacheBytes) {
        std::memcpy(&cache, key.data(), kCacheBytes);
        if constexpr (std::endian::native == std::endian::little) cache = __builtin_bswap32(cache);
        return Probe{key, cache};
    }
    for (size_t i = 0; i < kCacheBytes; ++i) {
        const uint32_t byte = i < key.size() ? static_cast<unsigned char>(key[i]) : 0u;
        cache = (cache << 8) | byte;
    }
    return Probe{key, cache};
}

uint32_t BTreeDictionary::allocate_node(bool leaf) {
    ensure(node_count_ < kNoNode, "B-tree dictionary has too many nodes");
    const uint32_t index = node_count_++;
    const unsigned chunk = chunk_of(index);
    if (chunk == chunks_.size()) {
        chunks_.push_back(std::make_unique<Node[]>(chunk == 0 ? 1 : chunk_first(chunk)));
    }
    Node& fresh = node(index);
    fresh = Node{};
    fresh.leaf = leaf ? 1 : 0;
    return index;
}

uint32_t BTreeDictionary::store_key(std::string_view key) {
    const std::string_view tail = tail_of(key);
    ensure(arena_.size() + 1 + tail.size() <= UINT32_MAX,
           "B-tree dictionary string arena is full (4 GiB)");
    const auto offset = static_cast<uint32_t>(arena_.size());
    arena_.push_back(static_cast<char>(static_cast<unsigned char>(key.size())));
    arena_.append(tail);
    return offset;
}

std::string_view BTreeDictionary::stored_tail(uint32_t string_offset, size_t& key_length) const {
    const char* entry = arena_.data() + string_offset;
    key_length = static_cast<unsigned char>(entry[0]);
    const size_t tail_length = key_length > kCacheBytes ? key_length - kCacheBytes : 0;
    return std::string_view(entry + 1, tail_length);
}

int BTreeDictionary::compare(const Probe& probe, const Node& n, unsigned slot) const {
    if (probe.cache != n.cache[slot]) return probe.cache < n.cache[slot] ? -1 : 1;
    return compare_past_cache(probe, n, slot);
}

inline int BTreeDictionary::compare_past_cache(const Probe& probe, const Node& n, unsigned slot) const {
    // Equal caches: the first four (zero-padded) bytes agree, so the bytes
    // after the fourth decide, and then the length. The length also settles
    // keys shorter than four bytes, where the padding hides the difference
    // ("ab" is a prefix of "ab\0", hence before it).
    size_t stored_length = 0;
    const std::string_view stored = stored_tail(n.string_offset[slot], stored_length);
    const std::string_view probe_tail = tail_of(probe.key);
    // Tails are short (a few bytes past the fourth): a byte loop, not a call.
    const size_t common = std::min(probe_tail.size(), stored.size());
    for (size_t i = 0; i < common; ++i) {
        const auto a = static_cast<unsigned char>(probe_tail[i]);
        const auto b = static_cast<unsigned char>(stored[i]);
        if (a != b) return a < b ? -1 : 1;
    }
    if (probe.key.size() == stored_length) return 0;
    return probe.key.size() < stored_length ? -1 : 1;
}

unsigned BTreeDictionary::lower_bound(const Probe& probe, const Node& n, bool& equal) const {
    // Keys are sorted, so the caches are too, and the unused slots after
    // them hold kUnusedCache, below no probe: all 32 slots are partitioned
    // by "cache below the probe's". A branch-free binary search over the
    // 32 finds where the probe's cache starts in five steps of a load and a
    // conditional move, whatever key_count is (a search with branches
    // mispredicts about every other step on real keys).
    static_assert(std::has_single_bit(kCacheSlots));
    unsigned slot = 0;
    for (unsigned half = kCacheSlots / 2; half > 0; half /= 2) {
        slot = n.cache[slot + half - 1] < probe.cache ? slot + half : slot;
    }
    equal = false;
    // Keys that share the probe's first four bytes: the rest decides.
    for (; slot < n.key_count && n.cache[slot] == probe.cache; ++slot) {
        const int order = compare_past_cache(probe, n, slot);
        if (order <= 0) {
            equal = order == 0;
            return slot;
        }
    }
    return slot;
}

void BTreeDictionary::split_child(uint32_t parent_index, unsigned child_slot) {
    // Allocate first: chunks never move, so the references below stay valid.
    const uint32_t left_index = node(parent_index).child[child_slot];
    const uint32_t right_index = allocate_node(node(left_index).leaf != 0);
    Node& parent = node(parent_index);
    Node& left = node(left_index);
    Node& right = node(right_index);

    // left keeps keys [0, 15), key 15 moves up, right takes keys [16, 31).
    constexpr unsigned kMedian = kDegree - 1;
    right.key_count = kDegree - 1;
    std::copy_n(left.cache.begin() + kDegree, kDegree - 1, right.cache.begin());
    std::copy_n(left.string_offset.begin() + kDegree, kDegree - 1, right.string_offset.begin());
    std::copy_n(left.id.begin() + kDegree, kDegree - 1, right.id.begin());
    if (!left.leaf) std::copy_n(left.child.begin() + kDegree, kDegree, right.child.begin());
    left.key_count = kDegree - 1;

    const unsigned count = parent.key_count;
    std::copy_backward(parent.cache.begin() + child_slot, parent.cache.begin() + count,
                       parent.cache.begin() + count + 1);
    std::copy_backward(parent.string_offset.begin() + child_slot,
                       parent.string_offset.begin() + count,
                       parent.string_offset.begin() + count + 1);
    std::copy_backward(parent.id.begin() + child_slot, parent.id.begin() + count,
                       parent.id.begin() + count + 1);
    std::copy_backward(parent.child.begin() + child_slot + 1, parent.child.begin() + count + 1,
                       parent.child.begin() + count + 2);
    parent.cache[child_slot] = left.cache[kMedian];
    parent.string_offset[child_slot] = left.string_offset[kMedian];
    parent.id[child_slot] = left.id[kMedian];
    parent.child[child_slot + 1] = right_index;
    ++parent.key_count;
    // The median and the keys right took leave left's slots unused.
    std::fill(left.cache.begin() + kMedian, left.cache.end(), kUnusedCache);
}

uint32_t BTreeDictionary::find_or_insert(std::string_view key, uint32_t next_id, bool& inserted) {
    // Not ensure(): its message would be built on every call of this hot path.
    if (key.size() > kMaxKeyBytes) [[unlikely]] {
        throw Error("term of " + std::to_string(key.size()) + " bytes is longer than the 255-byte limit");
    }
    const Probe probe = make_probe(key);
    // Nearly every call finds a term already there: look first with a plain
    // descent, and walk again, splitting, only for a new term.
    if (const std::optional<uint32_t> id = find(probe)) {
        inserted = false;
        return *id;
    }
    inserted = true;
    insert(probe, next_id);
    return next_id;
}

void BTreeDictionary::insert(const Probe& probe, uint32_t id) {
    if (root_ == kNoNode) {
        root_ = allocate_node(true);
        height_ = 1;
    }
    if (node(root_).key_count == kMaxKeys) {
        // Growing at the root is the only way the tree gets taller, which is
        // why every leaf stays at the same depth.
        const uint32_t new_root = allocate_node(false);
        node(new_root).child[0] = root_;
        root_ = new_root;
        split_child(new_root, 0);
        ++height_;
    }

    uint32_t current = root_;
    for (;;) {
        Node& n = node(current);
        bool equal = false;
        unsigned slot = lower_bound(probe, n, equal);

        if (n.leaf) {
            const unsigned count = n.key_count;
            std::copy_backward(n.cache.begin() + slot, n.cache.begin() + count,
                               n.cache.begin() + count + 1);
            std::copy_backward(n.string_offset.begin() + slot, n.string_offset.begin() + count,
                               n.string_offset.begin() + count + 1);
            std::copy_backward(n.id.begin() + slot, n.id.begin() + count,
                               n.id.begin() + count + 1);
            n.cache[slot] = probe.cache;
            n.string_offset[slot] = store_key(probe.key);
            n.id[slot] = id;
            ++n.key_count;
            ++size_;
            return;
        }

        if (node(n.child[slot]).key_count == kMaxKeys) {
            split_child(current, slot);
            // The key moved up is not the probe, which find() did not find.
            if (compare(probe, n, slot) > 0) ++slot;
        }
        current = n.child[slot];
    }
}

std::optional<uint32_t> BTreeDictionary::find(const Probe& probe) const {
    if (root_ == kNoNode) return std::nullopt;
    uint32_t current = root_;
    for (;;) {
        const Node& n = node(current);
        bool equal = false;
        const unsigned slot = lower_bound(probe, n, equal);
        if (equal) return n.id[slot];
        if (n.leaf) return std::nullopt;
        current = n.child[slot];
    }
}

std::optional<uint32_t> BTreeDictionary::find(std::string_view key) const {
    if (key.size() > kMaxKeyBytes) return std::nullopt;
    return find(make_probe(key));
}

std::string_view BTreeDictionary::key_at(const Node& n, unsigned slot,
                                         std::array<char, kMaxKeyBytes>& buffer) const {
    size_t length = 0;
    const std::string_view tail = stored_tail(n.string_offset[slot], length);
    for (size_t i = 0; i < std::min(length, kCacheBytes); ++i) {
        buffer[i] = static_cast<char>((n.cache[slot] >> (8 * (kCacheBytes - 1 - i))) & 0xff);
    }
    std::copy(tail.begin(), tail.end(), buffer.begin() + kCacheBytes);
    return std::string_view(buffer.data(), length);
}

size_t BTreeDictionary::memory_bytes() const {
    size_t nodes = 0;
    for (unsigned chunk = 0; chunk < chunks_.size(); ++chunk) {
        nodes += chunk == 0 ? 1 : chunk_first(chunk);
    }
    return nodes * sizeof(Node) + arena_.capacity() + chunks_.capacity() * sizeof(chunks_[0]);
}

}  // namespace invidx
