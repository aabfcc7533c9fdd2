// The GPU query processor (devices/gpu_query.hpp): plans a batch of queries
// on the host (lists fetched from the device cache, one task per block of 128
// postings), sends the batch's tables in one copy, queues the kernels of
// devices/cuda/query/ and copies the top k of every query back at once.
// Long impact OR queries (dense_impact_suits) go as batches of their own to
// the dense path (run_dense_batch, dense_impact.cu), the rest term by term.
#include <algorithm>
#include <memory>
#include <numeric>
#include <unordered_map>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/query/batch_staging.hpp"
#include "devices/cuda/query/list_cache.hpp"
#include "devices/cuda/query/query_kernels.hpp"
#include "devices/gpu_query.hpp"

namespace invidx {
namespace {

using namespace invidx::cuda;

constexpr size_t kMaxSlots = 128;
constexpr size_t kAccumulatorBudget = size_t{1} << 30;  // OR accumulators of all slots together
// Dense impact sums stay below this: exact in the double a sort key holds.
constexpr uint64_t kDenseMaxScore = (uint64_t{1} << 53) - 1;

// Bits needed for `largest` (0 for 0).
uint32_t bits_for(uint64_t largest) {
    uint32_t bits = 0;
    for (; largest != 0; largest >>= 1) ++bits;
    return bits;
}

// Grows `array` for `needed` elements (contents not kept: batch scratch).
template <class T>
bool grow(DeviceArray<T>& array, size_t needed, cudaStream_t stream) {
    const size_t before = array.capacity();
    array.reserve(std::max<size_t>(needed, 1), 0, stream);
    return array.capacity() != before;
}

// A batch's lists: each distinct term once, held until the batch is done.
struct BatchLists {
    std::unordered_map<uint64_t, uint32_t> index_of;
    std::vector<std::shared_ptr<const CachedList>> held;
    std::vector<DeviceList> views;

    uint32_t add(ListCache& cache, const GpuQueryTerm& term) {
        const auto found = index_of.find(term.term);
        if (found != index_of.end()) return found->second;
        held.push_back(cache.fetch(term));
        views.push_back(held.back()->view());
        const auto index = static_cast<uint32_t>(views.size() - 1);
        index_of.emplace(term.term, index);
        return index;
    }
};

class CudaQueryProcessor final : public GpuQueryProcessor {
public:
    CudaQueryProcessor(int device, const std::vector<double>& norms, double k1, size_t cache_bytes)
        : device_(device), k1_plus_1_(k1 + 1.0), default_k1_plus_1_(k1 + 1.0), documents_(norms.size()),
          norms_(memory_), other_norms_(memory_), scores_(memory_),
          stamps_(memory_), dense_(memory_), dense_select_(memory_), touched_(memory_), keys_(memory_), sorted_(memory_), sort_temp_(memory_),
          results_(memory_), results_host_(memory_), candidate_docids_(memory_), candidate_slots_(memory_),
          candidate_blocks_(memory_), candidate_alive_(memory_), candidate_tfs_(memory_), needed_(memory_),
          level_docids_(memory_), level_tfs_(memory_) {
        stats_.device = "gpu:" + std::to_string(device) + " " + cuda::use_device(device);
        if (documents_ >= (size_t{1} << 32)) fail_on(device, "too many documents for the GPU query path");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        cache_ = std::make_unique<ListCache>(memory_, stream_, cache_bytes);
        staging_ = std::make_unique<BatchStaging>(memory_);
        slots_ = std::clamp<size_t>(kAccumulatorBudget / (std::max<size_t>(documents_, 1) * 12), 1, kMaxSlots);
        docid_bits_ = std::max<uint32_t>(1, bits_for(documents_ > 0 ? documents_ - 1 : 0));
        norms_.reserve(std::max<size_t>(documents_, 1), 0, stream_);
        if (documents_ > 0) {
            check(cudaMemcpyAsync(norms_.data(), norms.data(), documents_ * sizeof(double), cudaMemcpyHostToDevice,
                                  stream_),
                  "norms");
        }
        check(cudaStreamSynchronize(stream_), "setup");
        active_norms_ = norms_.data();
    }

    ~CudaQueryProcessor() override {
        cudaSetDevice(device_);
        if (stream_) cudaStreamSynchronize(stream_);
        cache_.reset();
        staging_.reset();
        if (stream_) cudaStreamSynchronize(stream_);
        norms_.release();
        other_norms_.release();
        scores_.release();
        stamps_.release();
        touched_.release();
        keys_.release();
        sorted_.release();
        sort_temp_.release();
        results_.release();
        candidate_docids_.release();
        candidate_slots_.release();
        candidate_blocks_.release();
        candidate_alive_.release();
        candidate_tfs_.release();
        needed_.release();
        level_docids_.release();
        level_tfs_.release();
        dense_.release();
        dense_select_.release();
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::vector<GpuQueryResult> top_k_batch(const std::vector<GpuQuery>& queries, bool conjunctive, size_t k,
                                            bool impacts) override {
        check(cudaSetDevice(device_), "cudaSetDevice");
        std::vector<GpuQueryResult> results(queries.size());
        if (k == 0 || documents_ == 0) return results;
        stats_.queries += queries.size();
        if (impacts && !conjunctive) {
            // Long impact OR queries by the dense path (dense_impact_suits),
            // the others (and any whose sums could pass 2^53) term by term.
            std::vector<size_t> dense, rest;
            for (size_t q = 0; q < queries.size(); ++q) {
                (dense_impact_suits(queries[q], documents_) ? dense : rest).push_back(q);
            }
            for (size_t first = 0; first < dense.size(); first += slots_) {
                const std::vector<size_t> group(dense.begin() + static_cast<std::ptrdiff_t>(first),
                                                dense.begin() + static_cast<std::ptrdiff_t>(std::min(dense.size(), first + slots_)));
                for (const size_t left : run_dense_batch(queries, group, k, results)) rest.push_back(left);
            }
            if (rest.size() < queries.size()) {
                std::sort(rest.begin(), rest.end());
                std::vector<GpuQuery> others;
                others.reserve(rest.size());
                for (const size_t q : rest) others.push_back(queries[q]);
                std::vector<GpuQueryResult> answers(others.size());
                for (size_t first = 0; first < others.size(); first += slots_) {
                    const size_t count = std::min(slots_, others.size() - first);
                    run_batch(others.data() + first, count, conjunctive, k, impacts, answers.data() + first);
                }
                for (size_t j = 0; j < rest.size(); ++j) results[rest[j]] = std::move(answers[j]);
                return results;
            }
        }
        for (size_t first = 0; first < queries.size(); first += slots_) {
            const size_t count = std::min(slots_, queries.size() - first);
            run_batch(queries.data() + first, count, conjunctive, k, impacts, results.data() + first);
        }
        return results;
    }

    void use_bm25(uint64_t key, const std::vector<double>& norms, double k1) override {
        if (key == 0) {
            active_norms_ = norms_.data();
            k1_plus_1_ = default_k1_plus_1_;
            return;
        }
        if (norms.size() != documents_) fail_on(device_, "BM25 norms for another number of documents");
        if (key != other_key_) {
            check(cudaSetDevice(device_), "cudaSetDevice");
            // The previous batch is done (each ends synchronized), so the array is free to overwrite.
            other_norms_.reserve(std::max<size_t>(documents_, 1), 0, stream_);
            if (documents_ > 0) {
                check(cudaMemcpyAsync(other_norms_.data(), norms.data(), documents_ * sizeof(double),
                                      cudaMemcpyHostToDevice, stream_),
                      "norms");
            }
            check(cudaStreamSynchronize(stream_), "norms");  // the host vector need not outlive the call
            other_key_ = key;
        }
        active_norms_ = other_norms_.data();
        k1_plus_1_ = k1 + 1.0;
    }

    size_t max_batch() const override { return slots_; }

    GpuQueryStats stats() const override {
        GpuQueryStats out = stats_;
        out.cache_hits = cache_->stats().hits;
        out.cache_misses = cache_->stats().misses;
        out.cache_bytes = cache_->bytes();
        out.cache_lists = cache_->lists();
        return out;
    }

private:
    // What the host keeps of a batch's plan to read the results back.
    struct SlotPlan {
        uint64_t blocks = 0;
        uint64_t candidates = 0;
        uint32_t out_base = 0;
        uint32_t out_capacity = 0;  // min(k, what the query can match)
    };

    void run_batch(const GpuQuery* queries, size_t count, bool conjunctive, size_t k, bool impacts, GpuQueryResult* out) {
        BatchLists lists;
        std::vector<std::vector<uint32_t>> list_of(count);  // per query, per term (query order)
        uint32_t max_terms = 1;
        for (size_t q = 0; q < count; ++q) {
            for (const GpuQueryTerm& term : queries[q]) list_of[q].push_back(lists.add(*cache_, term));
            max_terms = std::max<uint32_t>(max_terms, static_cast<uint32_t>(queries[q].size()));
        }
        const auto slots = static_cast<uint32_t>(count);
        std::vector<SlotPlan> plan(count);
        std::vector<double> idfs(count * max_terms, 0.0);
        std::vector<uint32_t> slot_terms(count);
        for (size_t q = 0; q < count; ++q) {
            slot_terms[q] = static_cast<uint32_t>(queries[q].size());
            for (size_t t = 0; t < queries[q].size(); ++t) {
                idfs[q * max_terms + t] = queries[q][t].idf;
                plan[q].blocks += lists.views[list_of[q][t]].blocks;
                stats_.postings_scored += lists.views[list_of[q][t]].postings;
            }
        }

        staging_->clear();
        const size_t lists_at = staging_->add(lists.views);
        const size_t idfs_at = staging_->add(idfs);
        const size_t slot_terms_at = staging_->add(slot_terms);
        // Tasks: OR one range per round (term position); AND the first level, then one range per level.
        std::vector<BlockTask> tasks;
        std::vector<size_t> task_ranges = {0};
        std::vector<uint32_t> first_candidate(count, 0);
        std::vector<LevelList> levels;  // level · slots + slot, levels 1..max_terms-1
        uint64_t bound = 0;             // keys to sort
        uint64_t level_blocks = 0;      // AND: the largest level's blocks
        if (!conjunctive) {
            for (uint32_t round = 0; round < max_terms; ++round) {
                for (uint32_t q = 0; q < slots; ++q) {
                    if (round >= queries[q].size()) continue;
                    const uint32_t list = list_of[q][round];
                    for (uint32_t b = 0; b < lists.views[list].blocks; ++b) tasks.push_back({list, b, q, round});
                }
                task_ranges.push_back(tasks.size());
            }
            for (size_t q = 0; q < count; ++q) {
                uint64_t postings = 0;
                for (const uint32_t list : list_of[q]) postings += lists.views[list].postings;
                plan[q].candidates = std::min<uint64_t>(postings, documents_);
                bound += plan[q].candidates;
            }
        } else {
            // Each query's lists by length (shortest first; ties by query order).
            std::vector<std::vector<uint32_t>> order(count);
            for (uint32_t q = 0; q < slots; ++q) {
                order[q].resize(queries[q].size());
                std::iota(order[q].begin(), order[q].end(), 0u);
                std::stable_sort(order[q].begin(), order[q].end(), [&](uint32_t a, uint32_t b) {
                    return lists.views[list_of[q][a]].postings < lists.views[list_of[q][b]].postings;
                });
                if (order[q].empty()) continue;
                const uint32_t list = list_of[q][order[q][0]];
                first_candidate[q] = static_cast<uint32_t>(bound);
                plan[q].candidates = lists.views[list].postings;
                bound += plan[q].candidates;
                for (uint32_t b = 0; b < lists.views[list].blocks; ++b) tasks.push_back({list, b, q, order[q][0]});
            }
            task_ranges.push_back(tasks.size());
            for (uint32_t level = 1; level < max_terms; ++level) {
                uint64_t needed_base = 0;
                for (uint32_t q = 0; q < slots; ++q) {
                    LevelList at;
                    if (level < order[q].size()) {
                        at.term = order[q][level];
                        at.list = list_of[q][at.term];
                        at.needed_base = static_cast<uint32_t>(needed_base);
                        for (uint32_t b = 0; b < lists.views[at.list].blocks; ++b) tasks.push_back({at.list, b, q, at.term});
                        needed_base += lists.views[at.list].blocks;
                    }
                    levels.push_back(at);
                }
                task_ranges.push_back(tasks.size());
                level_blocks = std::max(level_blocks, needed_base);
            }
        }
        if (bound >= (uint64_t{1} << 32)) fail_on(device_, "a GPU query batch too large: split it");
        uint64_t out_total = 0;
        std::vector<uint32_t> out_base(count);
        for (size_t q = 0; q < count; ++q) {
            plan[q].out_base = static_cast<uint32_t>(out_total);
            plan[q].out_capacity = static_cast<uint32_t>(std::min<uint64_t>(k, plan[q].candidates));
            out_base[q] = plan[q].out_base;
            out_total += plan[q].out_capacity;
        }
        // Each slot's region of the candidates and keys.
        std::vector<uint32_t> region_base(count), region_size(count);
        uint32_t largest_region = 0;
        for (size_t q = 0, at = 0; q < count; ++q) {
            region_base[q] = static_cast<uint32_t>(at);
            region_size[q] = static_cast<uint32_t>(plan[q].candidates);
            at += plan[q].candidates;
            largest_region = std::max(largest_region, region_size[q]);
        }
        const size_t region_base_at = staging_->add(region_base);
        const size_t region_size_at = staging_->add(region_size);
        const size_t tasks_at = staging_->add(tasks);
        const size_t first_candidate_at = staging_->add(first_candidate);
        const size_t levels_at = staging_->add(levels);
        const size_t out_base_at = staging_->add(out_base);
        staging_->upload(stream_);

        // Results block: per-slot matches, per-slot blocks decoded, the touched count; then the top keys.
        const size_t header_words = 2 * count;
        const size_t header_bytes = (header_words * sizeof(uint32_t) + 15) / 16 * 16;
        const size_t result_bytes = header_bytes + out_total * sizeof(SortKey);
        grow(results_, result_bytes, stream_);
        check(cudaMemsetAsync(results_.data(), 0, header_bytes, stream_), "counters");
        auto* header = reinterpret_cast<uint32_t*>(results_.data());
        const SlotCounters counters{header, header + count};
        auto* top = reinterpret_cast<SortKey*>(results_.data() + header_bytes);

        const auto* device_lists = staging_->on_device<const DeviceList>(lists_at);
        const auto* device_tasks = staging_->on_device<const BlockTask>(tasks_at);
        const Scoring scoring{active_norms_, k1_plus_1_, staging_->on_device<const double>(idfs_at),
                              staging_->on_device<const uint32_t>(slot_terms_at), max_terms, impacts};
        const Regions regions{staging_->on_device<const uint32_t>(region_base_at),
                              staging_->on_device<const uint32_t>(region_size_at), largest_region};
        const auto task_count = [&](size_t range) {
            return static_cast<uint32_t>(task_ranges[range + 1] - task_ranges[range]);
        };
        grow(keys_, bound, stream_);
        grow(sorted_, bound, stream_);
        if (!conjunctive) {
            const Accumulators accumulators = next_accumulators();
            grow(touched_, bound, stream_);
            for (uint32_t round = 0; round < max_terms; ++round) {
                launch_or_round(device_tasks + task_ranges[round], task_count(round), device_lists, scoring,
                                accumulators, touched_.data(), regions, counters, stream_);
            }
            launch_or_keys(touched_.data(), regions, slots, accumulators, docid_bits_, keys_.data(), counters, stream_);
        } else {
            grow(candidate_docids_, bound, stream_);
            grow(candidate_slots_, bound, stream_);
            grow(candidate_blocks_, bound, stream_);
            grow(candidate_alive_, bound, stream_);
            grow(candidate_tfs_, bound * max_terms, stream_);
            if (grow(needed_, level_blocks, stream_)) {
                check(cudaMemsetAsync(needed_.data(), 0, needed_.capacity() * sizeof(uint32_t), stream_), "stamps");
                level_stamp_ = 0;
            }
            grow(level_docids_, level_blocks * kBlockPostings, stream_);
            grow(level_tfs_, level_blocks * kBlockPostings, stream_);
            const Candidates candidates{candidate_docids_.data(), candidate_slots_.data(), candidate_blocks_.data(),
                                        candidate_alive_.data(), candidate_tfs_.data(), static_cast<uint32_t>(bound)};
            launch_and_first(device_tasks, task_count(0), device_lists,
                             staging_->on_device<const uint32_t>(first_candidate_at), candidates, max_terms, counters,
                             stream_);
            for (uint32_t level = 1; level < max_terms; ++level) {
                const LevelScratch scratch{needed_.data(), next_level_stamp(), level_docids_.data(),
                                           level_tfs_.data()};
                launch_and_level(device_tasks + task_ranges[level], task_count(level), device_lists,
                                 staging_->on_device<const LevelList>(levels_at) + (level - 1) * count, candidates,
                                 max_terms, scratch, counters, stream_);
            }
            launch_and_keys(candidates, scoring, docid_bits_, keys_.data(), counters, stream_);
        }
        const auto k32 = static_cast<uint32_t>(std::min<size_t>(k, UINT32_MAX));
        const auto* device_out_base = staging_->on_device<const uint32_t>(out_base_at);
        // Selection keeps at most kBlockTopK keys per slot: k must fit, unless every region does.
        if (largest_region <= kBlockTopK || (largest_region <= kSelectTopK && k <= kBlockTopK)) {
            launch_block_top_k(keys_.data(), regions, slots, counters.matches, device_out_base, k32, top, stream_);
        } else {
            const int end_bit = sort_key_bits(docid_bits_, bits_for(count - 1));
            const size_t temp_bytes = sort_temp_bytes(static_cast<uint32_t>(bound), end_bit);
            grow(sort_temp_, temp_bytes, stream_);
            sort_keys(sort_temp_.data(), temp_bytes, keys_.data(), sorted_.data(), static_cast<uint32_t>(bound),
                      end_bit, stream_);
            launch_gather_top(sorted_.data(), counters.matches, slots, device_out_base, k32, top, stream_);
        }

        // The batch's one copy back and one synchronization.
        results_host_.reserve(result_bytes);
        check(cudaMemcpyAsync(results_host_.data(), results_.data(), result_bytes, cudaMemcpyDeviceToHost, stream_),
              "results");
        check(cudaStreamSynchronize(stream_), "GPU query batch");
        ++stats_.batches;
        const auto* host_header = reinterpret_cast<const uint32_t*>(results_host_.data());
        const auto* host_top = reinterpret_cast<const SortKey*>(results_host_.data() + header_bytes);
        for (size_t q = 0; q < count; ++q) {
            GpuQueryResult& result = out[q];
            result.blocks = plan[q].blocks;
            result.blocks_decoded = host_header[count + q];
            result.candidates = conjunctive ? plan[q].candidates : host_header[q];
            result.matches = host_header[q];
            stats_.blocks_decoded += result.blocks_decoded;
            read_hits(host_top + plan[q].out_base, std::min<size_t>(plan[q].out_capacity, host_header[q]), q, result);
        }
    }

    // The queries `which` (at most slots_) by the dense impact OR path
    // (devices/cuda/query/dense_impact.cu); returns those left to run_batch:
    // sums that could reach 2^53 (weight · the list's largest value, summed).
    std::vector<size_t> run_dense_batch(const std::vector<GpuQuery>& queries, const std::vector<size_t>& which, size_t k,
                                        std::vector<GpuQueryResult>& results) {
        BatchLists lists;
        std::vector<size_t> taken, left;
        std::vector<SlotPlan> plan;
        std::vector<DensePair> pairs;
        std::vector<uint32_t> pair_first = {0};  // the pairs' first blocks, then the total
        uint64_t total_blocks = 0;
        uint64_t largest_bound = 0;
        for (const size_t q : which) {
            std::vector<uint32_t> list_of;
            unsigned __int128 bound = 0;
            for (const GpuQueryTerm& term : queries[q]) {
                list_of.push_back(lists.add(*cache_, term));
                bound += static_cast<unsigned __int128>(static_cast<uint64_t>(term.idf)) * lists.held[list_of.back()]->max_value();
            }
            if (bound > kDenseMaxScore) {
                left.push_back(q);
                continue;
            }
            largest_bound = std::max(largest_bound, static_cast<uint64_t>(bound));
            const auto slot = static_cast<uint32_t>(taken.size());
            taken.push_back(q);
            SlotPlan at;
            uint64_t postings = 0;
            for (size_t t = 0; t < list_of.size(); ++t) {
                const DeviceList& view = lists.views[list_of[t]];
                pairs.push_back({list_of[t], slot, static_cast<uint64_t>(queries[q][t].idf)});
                total_blocks += view.blocks;
                if (total_blocks >= (uint64_t{1} << 32)) fail_on(device_, "a GPU query batch too large: split it");
                pair_first.push_back(static_cast<uint32_t>(total_blocks));
                at.blocks += view.blocks;
                postings += view.postings;
            }
            stats_.postings_scored += postings;
            at.candidates = std::min<uint64_t>(postings, documents_);
            plan.push_back(at);
        }
        if (taken.empty()) return left;
        const auto slots = static_cast<uint32_t>(taken.size());
        // 32-bit sums where every query's bound fits them.
        const bool wide = largest_bound > UINT32_MAX;
        // Keys kept per slot: all of them fit one block's sort for k <= kBlockTopK, else a radix sort.
        const uint64_t capacity = k <= kBlockTopK ? kBlockTopK
                                  : k >= documents_ ? documents_
                                                    : std::min<uint64_t>(documents_, k + std::max<uint64_t>(k / 4, kBlockTopK));
        if (capacity * slots >= (uint64_t{1} << 32)) fail_on(device_, "a GPU query batch too large: split it");
        uint64_t out_total = 0;
        std::vector<uint32_t> out_base(slots), region_base(slots);
        for (uint32_t s = 0; s < slots; ++s) {
            plan[s].out_base = static_cast<uint32_t>(out_total);
            plan[s].out_capacity = static_cast<uint32_t>(std::min<uint64_t>(k, plan[s].candidates));
            out_base[s] = plan[s].out_base;
            out_total += plan[s].out_capacity;
            region_base[s] = static_cast<uint32_t>(s * capacity);
        }

        staging_->clear();
        const size_t lists_at = staging_->add(lists.views);
        const size_t pairs_at = staging_->add(pairs);
        const size_t pair_first_at = staging_->add(pair_first);
        const size_t out_base_at = staging_->add(out_base);
        const size_t region_base_at = staging_->add(region_base);
        staging_->upload(stream_);

        // Results block: per-slot matches, per-slot kept keys; then the top keys.
        const size_t header_bytes = (2 * slots * sizeof(uint32_t) + 15) / 16 * 16;
        const size_t result_bytes = header_bytes + out_total * sizeof(SortKey);
        grow(results_, result_bytes, stream_);
        check(cudaMemsetAsync(results_.data(), 0, header_bytes, stream_), "counters");
        auto* header = reinterpret_cast<uint32_t*>(results_.data());
        auto* top = reinterpret_cast<SortKey*>(results_.data() + header_bytes);
        const size_t states_bytes = slots * sizeof(DenseSelect);
        const size_t select_bytes = states_bytes + size_t{slots} * (size_t{1} << kDenseDigitBits) * sizeof(uint32_t);
        grow(dense_select_, select_bytes, stream_);
        check(cudaMemsetAsync(dense_select_.data(), 0, select_bytes, stream_), "select");
        const DenseAccumulators accumulators = dense_accumulators(wide);
        const auto k32 = static_cast<uint32_t>(std::min<size_t>(k, UINT32_MAX));
        const DenseSelection selection{reinterpret_cast<DenseSelect*>(dense_select_.data()),
                                       reinterpret_cast<uint32_t*>(dense_select_.data() + states_bytes), header,
                                       header + slots, static_cast<uint32_t>(capacity), k32, docid_bits_};
        const auto keys = static_cast<uint32_t>(capacity * slots);
        grow(keys_, keys, stream_);
        if (capacity > kBlockTopK) {
            // The radix sort sorts every key of every region: the unused ones sort last.
            check(cudaMemsetAsync(keys_.data(), 0xFF, size_t{keys} * sizeof(SortKey), stream_), "keys");
        }

        launch_dense_scatter(staging_->on_device<const DensePair>(pairs_at),
                             staging_->on_device<const uint32_t>(pair_first_at), static_cast<uint32_t>(pairs.size()),
                             static_cast<uint32_t>(total_blocks), staging_->on_device<const DeviceList>(lists_at),
                             accumulators, stream_);
        launch_dense_scan(accumulators, slots, selection, stream_);
        // Passes enough for the widest key any slot can have (done slots return at once).
        const uint32_t key_bits = bits_for(largest_bound) + docid_bits_;
        for (uint32_t pass = 0; pass < (key_bits + kDenseDigitBits - 1) / kDenseDigitBits; ++pass) {
            launch_dense_histogram(accumulators, slots, selection, stream_);
        }
        launch_dense_compact(accumulators, slots, selection, keys_.data(), stream_);
        const auto* device_out_base = staging_->on_device<const uint32_t>(out_base_at);
        const uint32_t* kept = selection.kept;  // at least min(k, matches) per slot, at most matches
        if (capacity <= kBlockTopK) {
            const Regions regions{staging_->on_device<const uint32_t>(region_base_at), kept, static_cast<uint32_t>(capacity)};
            launch_block_top_k(keys_.data(), regions, slots, kept, device_out_base, k32, top, stream_);
        } else {
            grow(sorted_, keys, stream_);
            const int end_bit = sort_key_bits(docid_bits_, bits_for(slots - 1));
            const size_t temp_bytes = sort_temp_bytes(keys, end_bit);
            grow(sort_temp_, temp_bytes, stream_);
            sort_keys(sort_temp_.data(), temp_bytes, keys_.data(), sorted_.data(), keys, end_bit, stream_);
            launch_gather_top(sorted_.data(), kept, slots, device_out_base, k32, top, stream_);
        }

        results_host_.reserve(result_bytes);
        check(cudaMemcpyAsync(results_host_.data(), results_.data(), result_bytes, cudaMemcpyDeviceToHost, stream_),
              "results");
        check(cudaStreamSynchronize(stream_), "GPU query batch");
        dense_dirty_ = false;  // the compaction set every entry back to 0
        ++stats_.batches;
        stats_.dense_queries += slots;
        const auto* host_header = reinterpret_cast<const uint32_t*>(results_host_.data());
        const auto* host_top = reinterpret_cast<const SortKey*>(results_host_.data() + header_bytes);
        for (uint32_t s = 0; s < slots; ++s) {
            GpuQueryResult& result = results[taken[s]];
            result.blocks = plan[s].blocks;
            result.blocks_decoded = plan[s].blocks;  // every block of every list
            result.candidates = host_header[s];
            result.matches = host_header[s];
            stats_.blocks_decoded += result.blocks_decoded;
            read_hits(host_top + plan[s].out_base, std::min<size_t>(plan[s].out_capacity, host_header[s]), s, result);
        }
        return left;
    }

    // The `take` top keys of slot `slot` copied back, as its hits; a key of
    // another slot means the batch went wrong.
    void read_hits(const SortKey* top, size_t take, size_t slot, GpuQueryResult& result) const {
        result.hits.reserve(take);
        for (size_t i = 0; i < take; ++i) {
            uint32_t key_slot = 0, docid = 0;
            double score = 0.0;
            read_sort_key(top[i], docid_bits_, key_slot, docid, score);
            if (key_slot != slot) fail_on(device_, "GPU query batch: a result of another query");
            result.hits.emplace_back(docid, score);
        }
    }

    // The dense path's accumulators, every entry 0 (allocated on first use,
    // for max_batch() slots; cleared again only after a batch that failed).
    DenseAccumulators dense_accumulators(bool wide) {
        const size_t stride = (documents_ + 31) / 32 * 32;
        const size_t needed = slots_ * stride * (wide ? sizeof(unsigned long long) : sizeof(uint32_t));
        if (dense_.capacity() < needed || dense_dirty_) {
            dense_.reserve(needed, 0, stream_);
            check(cudaMemsetAsync(dense_.data(), 0, dense_.capacity(), stream_), "accumulators");
        }
        dense_dirty_ = true;  // until the batch's compaction is known to have run
        return DenseAccumulators{dense_.data(), wide, stride, static_cast<uint32_t>(documents_)};
    }

    // The OR accumulators with a fresh stamp (allocated on first use).
    Accumulators next_accumulators() {
        const size_t entries = slots_ * documents_;
        if (scores_.capacity() < entries) {
            scores_.reserve(entries, 0, stream_);
            stamps_.reserve(entries, 0, stream_);
            check(cudaMemsetAsync(stamps_.data(), 0, stamps_.capacity() * sizeof(uint32_t), stream_), "stamps");
            or_stamp_ = 0;
        }
        if (or_stamp_ == UINT32_MAX) {
            check(cudaMemsetAsync(stamps_.data(), 0, stamps_.capacity() * sizeof(uint32_t), stream_), "stamps");
            or_stamp_ = 0;
        }
        return Accumulators{scores_.data(), stamps_.data(), static_cast<uint32_t>(documents_), ++or_stamp_};
    }

    uint32_t next_level_stamp() {
        if (level_stamp_ == UINT32_MAX) {
            check(cudaMemsetAsync(needed_.data(), 0, needed_.capacity() * sizeof(uint32_t), stream_), "stamps");
            level_stamp_ = 0;
        }
        return ++level_stamp_;
    }

    int device_;
    double k1_plus_1_;          // of the BM25 in use (use_bm25)
    double default_k1_plus_1_;  // key 0's
    size_t documents_;
    size_t slots_ = 1;
    uint32_t docid_bits_ = 1;
    cudaStream_t stream_ = nullptr;
    MemoryCounter memory_;
    std::unique_ptr<ListCache> cache_;
    std::unique_ptr<BatchStaging> staging_;
    DeviceArray<double> norms_;        // key 0's
    DeviceArray<double> other_norms_;  // other_key_'s
    uint64_t other_key_ = 0;           // 0: none yet
    const double* active_norms_ = nullptr;
    DeviceArray<double> scores_;    // OR accumulators, slot · documents
    DeviceArray<uint32_t> stamps_;  // their stamps
    uint32_t or_stamp_ = 0;
    DeviceArray<unsigned char> dense_;         // dense impact accumulators, slot · stride, 4 or 8 bytes each
    bool dense_dirty_ = false;                 // a batch may have left sums in them
    DeviceArray<unsigned char> dense_select_;  // DenseSelect per slot, then the histograms
    DeviceArray<uint2> touched_;
    DeviceArray<SortKey> keys_;
    DeviceArray<SortKey> sorted_;
    DeviceArray<unsigned char> sort_temp_;
    DeviceArray<unsigned char> results_;
    PinnedArray<unsigned char> results_host_;
    DeviceArray<uint32_t> candidate_docids_;
    DeviceArray<uint32_t> candidate_slots_;
    DeviceArray<uint32_t> candidate_blocks_;
    DeviceArray<uint8_t> candidate_alive_;
    DeviceArray<uint32_t> candidate_tfs_;
    DeviceArray<uint32_t> needed_;
    uint32_t level_stamp_ = 0;
    DeviceArray<uint32_t> level_docids_;
    DeviceArray<uint32_t> level_tfs_;
    GpuQueryStats stats_;
};

}  // namespace

std::unique_ptr<GpuQueryProcessor> create_gpu_query_processor(int device, const std::vector<double>& norms, double k1,
                                                              size_t cache_bytes) {
    return std::make_unique<CudaQueryProcessor>(device, norms, k1, cache_bytes);
}

}  // namespace invidx
