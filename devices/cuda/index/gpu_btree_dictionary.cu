#include "devices/cuda/index/gpu_btree_dictionary.cuh"

#include <algorithm>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include "devices/cuda/common/cuda_check.hpp"
#include "invidx/collections.hpp"

namespace invidx::cuda {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;
constexpr uint32_t kCollectionCount = invidx::kCollections;
constexpr int kCollectionBits = 15;
static_assert(kCollectionCount < (1u << kCollectionBits), "collection ids must fit the sort key bits");
constexpr int kBlocksPerSm = 16;
enum Counter { kNodesUsed = 0, kProvisionalUsed = 1, kSegments = 2, kNextSegment = 3 };

unsigned blocks_for(uint64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__device__ uint32_t key_cache(const char* key, uint32_t length) {
    uint32_t cache = 0;
    for (uint32_t b = 0; b < 4; ++b) cache = (cache << 8) | (b < length ? static_cast<uint8_t>(key[b]) : 0u);
    return cache;
}

// Byte-wise order, shorter first on a common prefix: -1, 0 or 1.
__device__ int compare_keys(const char* a, uint32_t a_length, const char* b, uint32_t b_length) {
    const uint32_t n = min(a_length, b_length);
    for (uint32_t i = 0; i < n; ++i) {
        const auto x = static_cast<uint8_t>(a[i]);
        const auto y = static_cast<uint8_t>(b[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return a_length < b_length ? -1 : (a_length > b_length ? 1 : 0);
}

// The query as every lane of the warp holds it.
struct Query {
    const char* key;
    uint32_t length;
    uint32_t cache;
};

// The query against the stored key (cache, term): the 4-byte caches decide
// unless they are equal (zero padding sorts first, as shorter keys do).
__device__ int compare_with(const Query& query, uint32_t cache, uint32_t term, const DictionaryView& dictionary) {
    if (query.cache != cache) return query.cache < cache ? -1 : 1;
    return compare_keys(query.key, query.length, dictionary.arena + dictionary.term_offsets[term],
                        dictionary.term_lengths[term]);
}

// One node as the warp sees it: lane k holds key k and child k.
struct NodeLanes {
    uint32_t cache;
    uint32_t term;
    uint32_t child;
    uint32_t count;
    bool leaf;
};

__device__ NodeLanes load_node(const BtreeNode* node, unsigned lane) {
    NodeLanes lanes;
    lanes.cache = node->cache[lane];  // coalesced: 32 consecutive words
    lanes.term = node->term[lane];
    lanes.child = node->child[lane];
    lanes.count = node->count;
    lanes.leaf = node->leaf != 0;
    return lanes;
}

// Keys below the query (a prefix, as keys are sorted) and the equal key's lane.
struct Slot {
    uint32_t below;
    unsigned equal;  // ballot
};

__device__ Slot find_slot(const NodeLanes& lanes, const Query& query, const DictionaryView& dictionary,
                          unsigned lane) {
    int order = 0;
    if (lane < lanes.count) order = compare_with(query, lanes.cache, lanes.term, dictionary);
    const unsigned below = __ballot_sync(kFullWarp, lane < lanes.count && order > 0);
    const unsigned equal = __ballot_sync(kFullWarp, lane < lanes.count && order == 0);
    return Slot{static_cast<uint32_t>(__popc(below)), equal};
}

__device__ uint32_t allocate_node(BtreeNode* nodes, unsigned long long* counters, bool leaf, unsigned lane) {
    uint32_t index = 0;
    if (lane == 0) {
        index = static_cast<uint32_t>(atomicAdd(counters + kNodesUsed, 1ull));
        nodes[index].count = 0;
        nodes[index].leaf = leaf ? 1 : 0;
    }
    index = __shfl_sync(kFullWarp, index, 0);
    __syncwarp();
    return index;
}

// Splits the full child y = x.child[i] (CLRS B-TREE-SPLIT-CHILD): y keeps
// keys 0..14, a new node z takes 16..30, key 15 moves up into x at i.
__device__ void split_child(BtreeNode* nodes, unsigned long long* counters, uint32_t x, uint32_t i, uint32_t y,
                            unsigned lane) {
    BtreeNode& full = nodes[y];
    const bool leaf = full.leaf != 0;
    const uint32_t z = allocate_node(nodes, counters, leaf, lane);
    BtreeNode& right = nodes[z];
    const uint32_t cache = full.cache[lane];
    const uint32_t term = full.term[lane];
    const uint32_t child = full.child[lane];
    const uint32_t median_cache = __shfl_sync(kFullWarp, cache, 15);
    const uint32_t median_term = __shfl_sync(kFullWarp, term, 15);
    if (lane >= 16 && lane < 31) {
        right.cache[lane - 16] = cache;
        right.term[lane - 16] = term;
    }
    if (!leaf && lane >= 16) right.child[lane - 16] = child;
    BtreeNode& parent = nodes[x];
    const uint32_t parent_cache = parent.cache[lane];
    const uint32_t parent_term = parent.term[lane];
    const uint32_t parent_child = parent.child[lane];
    const uint32_t parent_count = parent.count;
    __syncwarp();
    if (lane >= i && lane < parent_count) {
        parent.cache[lane + 1] = parent_cache;
        parent.term[lane + 1] = parent_term;
    }
    if (lane >= i + 1 && lane <= parent_count) parent.child[lane + 1] = parent_child;
    __syncwarp();
    if (lane == 0) {
        parent.cache[i] = median_cache;
        parent.term[i] = median_term;
        parent.child[i + 1] = z;
        parent.count = parent_count + 1;
        right.count = 15;
        full.count = 15;
    }
    __syncwarp();
}

// Inserts a key known to be absent, splitting full nodes on the way down.
__device__ void insert_absent(const DictionaryView& dictionary, BtreeNode* nodes, uint32_t* roots,
                              unsigned long long* counters, uint32_t collection, const Query& query,
                              uint32_t provisional, unsigned lane) {
    uint32_t root = roots[collection];
    if (root == kNoNode) {
        root = allocate_node(nodes, counters, true, lane);
        if (lane == 0) roots[collection] = root;
    } else if (nodes[root].count == kBtreeMaxKeys) {
        const uint32_t top = allocate_node(nodes, counters, false, lane);
        if (lane == 0) nodes[top].child[0] = root;
        __syncwarp();
        split_child(nodes, counters, top, 0, root, lane);
        if (lane == 0) roots[collection] = top;
        root = top;
    }
    __syncwarp();
    uint32_t node = root;
    for (;;) {
        const NodeLanes lanes = load_node(nodes + node, lane);
        uint32_t position = find_slot(lanes, query, dictionary, lane).below;
        if (lanes.leaf) {
            __syncwarp();
            // The parallel shift: every key from the slot on moves right.
            if (lane >= position && lane < lanes.count) {
                nodes[node].cache[lane + 1] = lanes.cache;
                nodes[node].term[lane + 1] = lanes.term;
            }
            __syncwarp();
            if (lane == 0) {
                nodes[node].cache[position] = query.cache;
                nodes[node].term[position] = provisional;
                nodes[node].count = lanes.count + 1;
            }
            __syncwarp();
            return;
        }
        uint32_t child = __shfl_sync(kFullWarp, lanes.child, position);
        if (nodes[child].count == kBtreeMaxKeys) {
            split_child(nodes, counters, node, position, child, lane);
            const BtreeNode& parent = nodes[node];
            if (compare_with(query, parent.cache[position], parent.term[position], dictionary) > 0) ++position;
            child = parent.child[position];
        }
        node = child;
    }
}

// One warp per block; blocks take collections (segments of the grouped
// chunk) from a shared counter until none are left.
__global__ void __launch_bounds__(32) insert_segments(DictionaryView dictionary, BtreeNode* nodes, uint32_t* roots,
                                                      unsigned long long* counters, ChunkView chunk,
                                                      const uint32_t* sorted_occurrences,
                                                      const uint16_t* segment_collections,
                                                      const uint32_t* segment_lengths, const uint32_t* segment_starts,
                                                      uint32_t* provisional_of, unsigned long long* inserted) {
    const unsigned lane = threadIdx.x;
    const unsigned long long segments = counters[kSegments];
    for (;;) {
        unsigned long long segment = 0;
        if (lane == 0) segment = atomicAdd(counters + kNextSegment, 1ull);
        segment = __shfl_sync(kFullWarp, segment, 0);
        if (segment >= segments) return;
        const uint32_t collection = segment_collections[segment];
        const uint32_t begin = segment_starts[segment];
        const uint32_t end = begin + segment_lengths[segment];
        for (uint32_t s = begin; s < end; ++s) {
            const uint32_t i = sorted_occurrences[s];
            Query query;
            query.key = chunk.key_bytes + chunk.key_offsets[i];
            query.length = chunk.key_lengths[i];
            query.cache = key_cache(query.key, query.length);

            uint32_t found = kNoNode;
            for (uint32_t node = roots[collection]; node != kNoNode;) {
                const NodeLanes lanes = load_node(nodes + node, lane);
                const Slot slot = find_slot(lanes, query, dictionary, lane);
                if (slot.equal) {
                    found = __shfl_sync(kFullWarp, lanes.term, __ffs(slot.equal) - 1);
                    break;
                }
                node = lanes.leaf ? kNoNode : __shfl_sync(kFullWarp, lanes.child, slot.below);
            }
            if (found != kNoNode) {
                if (lane == 0) {
                    provisional_of[i] = found;
                    inserted[i] = 0;
                }
                continue;
            }

            // A new term: its key goes to the arena, its id is provisional.
            uint32_t provisional = 0;
            unsigned long long offset = 0;
            if (lane == 0) {
                provisional = static_cast<uint32_t>(atomicAdd(counters + kProvisionalUsed, 1ull));
                offset = atomicAdd(dictionary.counters + 1, static_cast<unsigned long long>(query.length));
                dictionary.term_offsets[provisional] = offset;
                dictionary.term_lengths[provisional] = static_cast<uint8_t>(query.length);
                dictionary.term_collections[provisional] = static_cast<uint16_t>(collection);
                provisional_of[i] = provisional;
                inserted[i] = 1;
            }
            provisional = __shfl_sync(kFullWarp, provisional, 0);
            offset = __shfl_sync(kFullWarp, offset, 0);
            for (uint32_t b = lane; b < query.length; b += 32) dictionary.arena[offset + b] = query.key[b];
            __syncwarp();
            insert_absent(dictionary, nodes, roots, counters, collection, query, provisional, lane);
        }
    }
}

__global__ void fill_sequence(uint32_t* values, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) values[i] = i;
}

__global__ void number_new_terms(DictionaryView dictionary, uint32_t* final_id, uint32_t count,
                                 const uint32_t* provisional_of, const unsigned long long* inserted,
                                 const unsigned long long* inserted_prefix) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count || inserted[i] == 0) return;
    final_id[provisional_of[i]] = static_cast<uint32_t>(dictionary.counters[0] + inserted_prefix[i]);
}

__global__ void advance_term_count(DictionaryView dictionary, const unsigned long long* inserted,
                                   const unsigned long long* inserted_prefix, uint32_t count) {
    dictionary.counters[0] += inserted_prefix[count - 1] + inserted[count - 1];
}

__global__ void resolve_term_ids(const uint32_t* final_id, const uint32_t* provisional_of, uint32_t count,
                                 uint32_t* term_ids) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) term_ids[i] = final_id[provisional_of[i]];
}

size_t grouping_temp_bytes(uint32_t max_chunk) {
    size_t sort_bytes = 0, encode_bytes = 0, scan_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<const uint16_t*>(nullptr),
                                          static_cast<uint16_t*>(nullptr), static_cast<const uint32_t*>(nullptr),
                                          static_cast<uint32_t*>(nullptr), static_cast<int>(max_chunk), 0,
                                          kCollectionBits),
          "cub::DeviceRadixSort::SortPairs (size)");
    check(cub::DeviceRunLengthEncode::Encode(nullptr, encode_bytes, static_cast<const uint16_t*>(nullptr),
                                             static_cast<uint16_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                             static_cast<unsigned long long*>(nullptr), static_cast<int>(max_chunk)),
          "cub::DeviceRunLengthEncode::Encode (size)");
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const uint32_t*>(nullptr),
                                        static_cast<uint32_t*>(nullptr), static_cast<int>(kCollectionCount)),
          "cub::DeviceScan::ExclusiveSum (size)");
    return std::max({sort_bytes, encode_bytes, scan_bytes});
}

}  // namespace

void btree_init(BtreeArrays& btree, cudaStream_t stream) {
    btree.roots.reserve(kCollectionCount, 0, stream);
    check(cudaMemsetAsync(btree.roots.data(), 0xFF, kCollectionCount * sizeof(uint32_t), stream), "cudaMemsetAsync");
    btree.counters.reserve(4, 0, stream);
    check(cudaMemsetAsync(btree.counters.data(), 0, 4 * sizeof(unsigned long long), stream), "cudaMemsetAsync");
    btree.segment_collections.reserve(kCollectionCount, 0, stream);
    btree.segment_lengths.reserve(kCollectionCount, 0, stream);
    btree.segment_starts.reserve(kCollectionCount, 0, stream);
}

size_t btree_temp_bytes(uint32_t max_chunk) {
    size_t bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<unsigned long long*>(nullptr),
                                        static_cast<unsigned long long*>(nullptr), static_cast<int>(max_chunk)),
          "cub::DeviceScan::ExclusiveSum (size)");
    return bytes;
}

void btree_reserve(BtreeArrays& btree, uint64_t terms, uint32_t max_chunk, cudaStream_t stream) {
    // Every node but the roots holds at least 15 keys; a split leaves the
    // old root as one of those.
    const uint64_t nodes = terms / 15 + kCollectionCount + 64;
    btree.nodes.reserve(nodes, btree.nodes.capacity(), stream);
    btree.final_id.reserve(std::max<uint64_t>(terms, 1), btree.final_id.capacity(), stream);
    btree.sorted_collections.reserve(max_chunk, 0, stream);
    btree.sorted_occurrences.reserve(max_chunk, 0, stream);
    btree.sort_temp.reserve(grouping_temp_bytes(max_chunk), 0, stream);
}

void btree_assign_term_ids(const DictionaryView& dictionary, BtreeArrays& btree, const ChunkView& chunk,
                           const BtreeScratch& scratch, uint32_t* term_ids, cudaStream_t stream) {
    const uint32_t n = chunk.count;
    if (n == 0) return;
    const unsigned blocks = blocks_for(n);
    unsigned long long* counters = btree.counters.data();

    // Group by collection, keeping arrival order within each (LSD radix sort
    // is stable); each run of one collection is a segment.
    fill_sequence<<<blocks, kThreads, 0, stream>>>(scratch.provisional, n);
    check_launch("fill_sequence");
    size_t temp_bytes = btree.sort_temp.capacity();
    check(cub::DeviceRadixSort::SortPairs(btree.sort_temp.data(), temp_bytes, chunk.collections,
                                          btree.sorted_collections.data(), scratch.provisional,
                                          btree.sorted_occurrences.data(), static_cast<int>(n), 0, kCollectionBits,
                                          stream),
          "cub::DeviceRadixSort::SortPairs");
    temp_bytes = btree.sort_temp.capacity();
    check(cub::DeviceRunLengthEncode::Encode(btree.sort_temp.data(), temp_bytes, btree.sorted_collections.data(),
                                             btree.segment_collections.data(), btree.segment_lengths.data(),
                                             counters + kSegments, static_cast<int>(n), stream),
          "cub::DeviceRunLengthEncode::Encode");
    temp_bytes = btree.sort_temp.capacity();
    check(cub::DeviceScan::ExclusiveSum(btree.sort_temp.data(), temp_bytes, btree.segment_lengths.data(),
                                        btree.segment_starts.data(), static_cast<int>(std::min(n, kCollectionCount)),
                                        stream),
          "cub::DeviceScan::ExclusiveSum (segments)");
    check(cudaMemsetAsync(counters + kNextSegment, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync");

    int device = 0, multiprocessors = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    const unsigned warps = std::min<unsigned>(std::min(n, kCollectionCount), multiprocessors * kBlocksPerSm);
    insert_segments<<<warps, 32, 0, stream>>>(dictionary, btree.nodes.data(), btree.roots.data(), counters, chunk,
                                              btree.sorted_occurrences.data(), btree.segment_collections.data(),
                                              btree.segment_lengths.data(), btree.segment_starts.data(),
                                              scratch.provisional, scratch.inserted);
    check_launch("insert_segments");

    // Final ids in order of first occurrence.
    size_t scan_bytes = scratch.scan_temp_bytes;
    check(cub::DeviceScan::ExclusiveSum(scratch.scan_temp, scan_bytes, scratch.inserted, scratch.inserted_prefix,
                                        static_cast<int>(n), stream),
          "cub::DeviceScan::ExclusiveSum");
    number_new_terms<<<blocks, kThreads, 0, stream>>>(dictionary, btree.final_id.data(), n, scratch.provisional,
                                                      scratch.inserted, scratch.inserted_prefix);
    check_launch("number_new_terms");
    advance_term_count<<<1, 1, 0, stream>>>(dictionary, scratch.inserted, scratch.inserted_prefix, n);
    check_launch("advance_term_count");
    resolve_term_ids<<<blocks, kThreads, 0, stream>>>(btree.final_id.data(), scratch.provisional, n, term_ids);
    check_launch("resolve_term_ids");
}

}  // namespace invidx::cuda
