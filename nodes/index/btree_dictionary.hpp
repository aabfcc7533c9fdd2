// The B-tree of one trie collection (Wei & JaJa §III.B.2, Table II).
//
// Degree 16: a node holds up to 31 keys and 32 children, a size chosen in the
// paper to match the CUDA warp. Each key slot holds a 4-byte string cache (the
// first 4 key bytes, zero-padded, as a big-endian uint32 so that integer order
// is byte-wise order), the offset of the key's remaining bytes in an arena the
// dictionary owns, and the key's term id (the paper's "pointer to postings
// list"). Most comparisons end at the cache; the arena is read only when the
// first four bytes tie, which Zipf-distributed terms rarely do (§III.B.2).
//
// Arena entry of a key: one length byte (keys are at most 255 bytes, like the
// paper's Fig. 6 strings), then the key bytes after the fourth. A key of up to
// four bytes lives wholly in its node's cache.
//
// Search within a node is a branch-free binary search over all 32 cache
// slots (five loads and conditional moves) for where the probe's cache
// starts; slots past key_count hold UINT32_MAX, which is below no probe, so
// the search needs no bound. Only the slots whose cache equals the probe's
// are compared further (the key's bytes past the fourth, then its length).
//
// Splitting is proactive (top-down, as the paper's GPU indexer does in
// §III.D.2): a full node is split before the descent enters it, so an insert
// never walks back up. find_or_insert looks first with a plain descent (the
// common case: the term is there) and descends again to insert a new one.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

class BTreeDictionary {
public:
    static constexpr unsigned kDegree = 16;
    static constexpr unsigned kMaxKeys = 2 * kDegree - 1;     // 31
    static constexpr unsigned kMaxChildren = 2 * kDegree;     // 32
    static constexpr size_t kMaxKeyBytes = 255;

    // Returns the id of `key`, inserting it with id `next_id` if absent;
    // `inserted` tells which. Throws invidx::Error for keys over 255 bytes.
    uint32_t find_or_insert(std::string_view key, uint32_t next_id, bool& inserted);

    std::optional<uint32_t> find(std::string_view key) const;

    // Calls f(std::string_view key, uint32_t id) for every key, byte-wise
    // increasing. The view is valid only during the call.
    template <class F>
    void for_each_in_order(F&& f) const {
        if (root_ == kNoNode) return;
        std::array<char, kMaxKeyBytes> buffer;
        visit_in_order(root_, f, buffer);
    }

    size_t size() const { return size_; }
    // Levels from root to leaf; 0 when empty.
    unsigned height() const { return height_; }
    size_t node_count() const { return node_count_; }
    // Bytes held by nodes and the string arena (for the engine's memory metrics).
    size_t memory_bytes() const;

private:
    static constexpr uint32_t kNoNode = UINT32_MAX;

    // What an unused cache slot holds: no probe's cache is below it.
    static constexpr uint32_t kUnusedCache = UINT32_MAX;
    static constexpr unsigned kCacheSlots = kMaxChildren;  // 31 keys and one unused slot: 32 lanes

    // Table II's layout with the cache array padded to 32 slots:
    // 4 + 4 + 32*4 + 31*4*2 + 32*4 = 512 bytes, eight cache lines.
    struct alignas(64) Node {
        uint32_t key_count = 0;
        uint32_t leaf = 1;
        std::array<uint32_t, kCacheSlots> cache = unused_caches();
        std::array<uint32_t, kMaxKeys> string_offset{};
        std::array<uint32_t, kMaxKeys> id{};
        std::array<uint32_t, kMaxChildren> child{};
    };

    static constexpr std::array<uint32_t, kCacheSlots> unused_caches() {
        std::array<uint32_t, kCacheSlots> caches{};
        caches.fill(kUnusedCache);
        return caches;
    }

    // A key prepared for comparisons: its cache computed once per operation.
    struct Probe {
        std::string_view key;
        uint32_t cache;
    };

    // Nodes come from chunks of doubling size (1, 1, 2, 4, 8, ... nodes):
    // addresses stay valid as the tree grows, there is no allocation per
    // node, and the many tiny collections of a real corpus cost one node each.
    static unsigned chunk_of(uint32_t index) { return static_cast<unsigned>(std::bit_width(index)); }
    static uint32_t chunk_first(unsigned chunk) { return chunk == 0 ? 0 : 1u << (chunk - 1); }

    static Probe make_probe(std::string_view key);
    Node& node(uint32_t index) {
        const unsigned chunk = chunk_of(index);
        return chunks_[chunk][index - chunk_first(chunk)];
    }
    const Node& node(uint32_t index) const {
        const unsigned chunk = chunk_of(index);
        return chunks_[chunk][index - chunk_first(chunk)];
    }
    uint32_t allocate_node(bool leaf);
    uint32_t store_key(std::string_view key);
    std::string_view stored_tail(uint32_t string_offset, size_t& key_length) const;
    // <0, 0, >0 as `probe` is before, equal to, after key slot `slot` of `n`.
    int compare(const Probe& probe, const Node& n, unsigned slot) const;
    // The same where the caches are known to be equal: the bytes after the
    // fourth decide, then the length.
    int compare_past_cache(const Probe& probe, const Node& n, unsigned slot) const;
    // First slot whose key is >= probe; `equal` tells whether it is the probe.
    unsigned lower_bound(const Probe& probe, const Node& n, bool& equal) const;
    std::optional<uint32_t> find(const Probe& probe) const;
    // Inserts a key that is known to be absent, splitting full nodes on the way down.
    void insert(const Probe& probe, uint32_t id);
    void split_child(uint32_t parent, unsigned child_slot);
    // Writes the key of slot `slot` into `buffer`, returning its view.
    std::string_view key_at(const Node& n, unsigned slot, std::array<char, kMaxKeyBytes>& buffer) const;

    template <class F>
    void visit_in_order(uint32_t index, F& f, std::array<char, kMaxKeyBytes>& buffer) const {
        const Node& n = node(index);
        for (unsigned slot = 0; slot < n.key_count; ++slot) {
            if (!n.leaf) visit_in_order(n.child[slot], f, buffer);
            f(key_at(n, slot, buffer), n.id[slot]);
        }
        if (!n.leaf) visit_in_order(n.child[n.key_count], f, buffer);
    }

    std::vector<std::unique_ptr<Node[]>> chunks_;
    std::string arena_;
    uint32_t root_ = kNoNode;
    uint32_t node_count_ = 0;
    size_t size_ = 0;
    unsigned height_ = 0;
};

}  // namespace invidx
